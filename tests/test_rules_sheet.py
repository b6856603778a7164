"""The Dramatic stat sheet (rules/sheet.py): parsing, defaults and clear errors."""

from __future__ import annotations

import msgspec
import pytest

from rules.sheet import (
    ArmorType,
    Nature,
    SheetError,
    Size,
    WeaponKind,
    ability_modifier,
    parse_sheet,
    size_steps,
)


def test_an_old_stat_block_parses_with_defaults() -> None:
    sheet = parse_sheet({})
    assert sheet.size is Size.MEDIUM and sheet.nature is Nature.CREATURE
    assert sheet.mod("str") == 0 and sheet.fatigue_points == 10 and sheet.speed == 6
    assert sheet.reach_squares == 1 and not sheet.armored


def test_a_full_stat_block_parses() -> None:
    sheet = parse_sheet({
        "size": "small", "heroic_level": 3, "str": 14, "dex": 17, "con": 8, "int": 12,
        "wis": 9, "cha": 10, "skills": {"melee": 5, "ranged": 6}, "trained": ["acrobatics"],
        "class_bonus": {"reflex": 2}, "armor_type": "light", "armor_bonus": 3,
        "fatigue_points": 24, "damage_reduction": [{"value": 5, "bypass": ["magic"]}],
        "weapons": [{"name": "sling", "damage": "1d4", "kind": "ranged",
                     "ranges": {"point_blank": 6, "short": 12, "medium": 18, "long": 24}}],
        "feats": ["precise_shot"], "non_dexterous": True, "note": "a pegasus",
    })
    mods = (sheet.mod("str"), sheet.mod("dex"), sheet.mod("con"), sheet.mod("wis"))
    assert mods == (2, 3, -1, -1)
    assert sheet.skill("ranged") == 6 and sheet.skill("stealth") == 0
    assert sheet.armor_type is ArmorType.LIGHT and sheet.armored
    assert sheet.weapon("sling").kind is WeaponKind.RANGED
    assert sheet.weapon("unarmed").kind is WeaponKind.UNARMED
    assert sheet.damage_reduction[0].bypass == ("magic",)


def test_ability_modifier_rounds_down() -> None:
    assert [ability_modifier(s) for s in (0, 1, 9, 10, 11, 12, 19)] == [-5, -5, -1, 0, 0, 1, 4]


@pytest.mark.parametrize(("stats", "message"), [
    ({"strength": 12}, "stats: Object contains unknown field `strength`"),
    ({"str": "12"}, "stats.str: Expected `int`, got `str`"),
    ({"size": "enormous"}, "stats.size: Invalid enum value 'enormous'"),
    ({"weapons": [{"name": "x", "damage": "1d6", "kind": "laser"}]}, "stats.weapons[0].kind"),
    ({"weapons": [{"name": "x", "damage": "banana"}]}, "not valid dice notation"),
    ({"weapons": [{"name": "x"}]}, "needs a damage expression"),
    ({"armor_bonus": 2}, "armor_bonus needs an armor_type"),
    ({"dex": -1}, "dex cannot be negative"),
    ({"damage_reduction": [{"value": 5, "source": "spiritual"}]}, "damage_reduction[0].source"),
])
def test_a_bad_stat_block_names_the_field(stats: dict[str, object], message: str) -> None:
    with pytest.raises(SheetError) as info:
        parse_sheet(stats)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_an_unknown_weapon_is_refused() -> None:
    with pytest.raises(SheetError, match="no weapon named 'axe'"):
        parse_sheet({}).weapon("axe")


def test_a_sheet_is_plain_data() -> None:
    sheet = parse_sheet({"str": 14, "weapons": [{"name": "bite", "kind": "natural"}]})
    assert msgspec.json.decode(msgspec.json.encode(sheet), type=type(sheet)) == sheet


def test_size_steps_and_reach_by_size() -> None:
    assert size_steps(Size.SMALL, Size.LARGE) == 2
    assert size_steps(Size.LARGE, Size.MEDIUM) == -1
    assert parse_sheet({"size": "tiny"}).reach_squares == 0
    assert parse_sheet({"size": "huge"}).reach_squares == 2  # R64
    assert parse_sheet({"size": "large", "reach": 2}).reach_squares == 2
