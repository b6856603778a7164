"""The Action Time stat sheet read from a stat block (rulings R29, R33, R39, R60)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rules.action_time.options import AtOptions
from rules.action_time.sheet import SheetError, parse_sheet, role

EXAMPLES = sorted((Path(__file__).parent.parent / "server" / "examples").glob("action-time-*.yaml"))

FULL: dict[str, Any] = {
    "body": "d8", "mind": "d6", "cunning": "D10", "health": 14, "defense": 11, "speed": 8,
    "bandages": "ready",
    "weapons": [{"name": "Hooves", "damage": "d6"},
                {"name": "Sling", "damage": "d4", "kind": "ranged", "range": 30,
                 "ability": "cunning"},
                {"name": "Crossbow", "damage": "d8", "kind": "ranged", "range": 40,
                 "reload": "major", "stowed": True}],
    "spells": [{"name": "Frost Weapons", "cast": "minor"}, {"name": "Heal Light"}],
}


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_stat_block_of_the_examples_parses(example: Path) -> None:
    demo = yaml.safe_load(example.read_text())
    assert all(parse_sheet(c["stats"]).abilities["body"] for c in demo["combatants"])


def test_ability_dice_alone_parse_with_defaults() -> None:
    # a sheet of ability dice only: no Health, no Defense, Speed 10 yards, no weapons
    sheet = parse_sheet({"body": "d6", "mind": "d12"})
    assert sheet.abilities == {"body": 6, "mind": 12}
    assert (sheet.health, sheet.defense, sheet.speed) == (None, None, 10)
    assert sheet.bandages == "none" and sheet.weapons == ()


def test_the_changeling_scouts_have_health_defense_and_weapons() -> None:
    demo = yaml.safe_load((EXAMPLES[0].parent / "action-time-changeling-scouts.yaml")
                          .read_text())
    for block in demo["combatants"]:
        sheet = parse_sheet(block["stats"])
        assert sheet.health and sheet.health > 0 and sheet.defense and sheet.weapons, block


def test_a_full_sheet() -> None:
    sheet = parse_sheet(FULL)
    assert sheet.abilities == {"body": 8, "mind": 6, "cunning": 10}
    assert (sheet.health, sheet.defense, sheet.speed, sheet.bandages) == (14, 11, 8, "ready")
    hooves, sling, crossbow = sheet.weapons
    assert (hooves.damage_die, hooves.reach, hooves.reload_cost) == (6, 2, None)
    assert (sling.reach, sling.ability, sling.reload_cost) == (30, "cunning", "minor")
    assert (crossbow.reload_cost, crossbow.stowed) == ("major", True)
    assert [s.cast for s in sheet.spells] == ["minor", "major"]
    assert sheet.spell("Heal Light").ability == "mind"


def test_r60_default_speed_is_an_option() -> None:
    assert parse_sheet({"body": "d6"}, AtOptions(default_speed_yards=6)).speed == 6
    assert parse_sheet({"body": "d6", "speed": 12}, AtOptions(default_speed_yards=6)).speed == 12


@pytest.mark.parametrize(("stats", "field"), [
    ({"mind": "d6"}, "body"),
    ({"body": "d7"}, "body"),
    ({"body": "d6", "armour": 3}, "armour"),
    ({"body": "d6", "health": "lots"}, "health"),
    ({"body": "d6", "health": 0}, "health"),
    ({"body": "d6", "speed": -1}, "speed"),
    ({"body": "d6", "bandages": "many"}, "bandages"),
    ({"body": "d6", "weapons": [{"name": "Axe", "damage": "d5"}]}, "weapons[0].damage"),
    ({"body": "d6", "weapons": [{"name": "Axe"}]}, "weapons[0]"),
    ({"body": "d6", "weapons": [{"name": "Axe", "damage": "d6", "edge": 1}]}, "weapons[0]"),
    ({"body": "d6", "weapons": [{"name": "Bow", "damage": "d6", "kind": "ranged"}]},
     "weapons[0].range"),
    ({"body": "d6", "weapons": [{"name": "Bow", "damage": "d6", "ability": "agility"}]},
     "weapons[0].ability"),
    ({"body": "d6", "weapons": [{"name": "A", "damage": "d6"}, {"name": "A", "damage": "d4"}]},
     "weapons"),
    ({"body": "d6", "spells": [{"name": "Zap", "cast": "reaction"}]}, "spells[0].cast"),
    ({"body": "d6", "abilities": {"mind": "d6"}}, "abilities"),
])
def test_a_bad_field_is_named(stats: dict[str, Any], field: str) -> None:
    with pytest.raises(SheetError) as caught:
        parse_sheet(stats)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"stats.{field}: ")
    assert isinstance(caught.value, ValueError)


def test_r39_roles() -> None:
    assert role("pc", None) == "player"
    assert role("npc", None) == "major_npc"
    assert role("npc", "diamond dogs") == "minor_npc"
