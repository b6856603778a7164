"""Defenses and damage thresholds (rules/defenses.py): DEFENSES, HELPLESS CONDITION, Damage
Threshold; rulings R10, R14.5, R15, R41."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.condition_track import Track
from rules.defenses import DefenseName, Status, damage_thresholds, defenses, defenses_read
from rules.effects import Held
from rules.sheet import Sheet, parse_sheet
from rulesets.dramatic.battle import speed_from

PONY = parse_sheet({"size": "small", "dex": 16, "int": 14, "con": 12, "wis": 8,
                    "class_bonus": {"reflex": 2, "fortitude": 1, "will": 3, "wits": 1}})


def totals(status: Status | None = None, *, unaware: bool = False) -> tuple[int, int, int, int]:
    d = defenses(PONY, status, unaware=unaware)
    return d.reflex.total, d.fortitude.total, d.will.total, d.wits.total


def test_the_four_defenses() -> None:
    """DEFENSES: Reflex 10 + Dex 3 + class 2 + size (small) 1; Fortitude 10 + Con 1 + class 1;
    Will 10 + Wis -1 + class 3; Wits 10 + Int 2 + class 1."""
    assert totals() == (16, 12, 12, 13)


def test_the_parts_are_itemised_with_their_sections() -> None:
    reflex = defenses(PONY).reflex
    assert [(p.name, p.value) for p in reflex.parts] == [
        ("base", 10), ("Dexterity modifier", 3), ("class bonus", 2), ("size (small)", 1)]
    assert all(p.section.startswith("DEFENSES") for p in reflex.parts)
    assert sum(p.value for p in reflex.parts) == reflex.total


def test_flat_footed_loses_the_dexterity_and_intelligence_bonus() -> None:
    """R41: flat-footed, no positive Dex on Reflex, no positive Int on Wits."""
    assert totals(Status(flat_footed=True)) == (13, 12, 12, 11)
    reflex = defenses(PONY, Status(flat_footed=True)).reflex
    assert ("Dexterity bonus lost (flat-footed)", -3) in [(p.name, p.value) for p in reflex.parts]


def test_unaware_of_the_attack_is_the_same() -> None:
    """DEFENSES -> Dexterity Modifier: "flatfooted or unaware of an attack"."""
    assert totals(unaware=True) == (13, 12, 12, 11)


def test_a_penalty_is_kept_when_flat_footed() -> None:
    """R41: the bonus is lost, "but not a penalty"."""
    clumsy = parse_sheet({"dex": 6, "int": 7})
    d = defenses(clumsy, Status(flat_footed=True))
    assert (d.reflex.total, d.wits.total) == (8, 8)


def test_zero_fatigue_points_is_defenseless() -> None:
    """R14.5: at 0 fp no Dexterity bonus to Reflex and no Intelligence bonus to Wits."""
    assert totals(Status(fatigue_points=0)) == (13, 12, 12, 11)
    assert totals(Status(fatigue_points=1)) == (16, 12, 12, 13)


def test_helpless_uses_dexterity_zero() -> None:
    """HELPLESS CONDITION (R10): Dexterity modifier -5 instead of the target's own."""
    assert totals(Status(helpless=True)) == (8, 12, 12, 13)


def test_unconscious_uses_wisdom_zero_and_is_helpless() -> None:
    """DEFENSES -> Will Defense: unconscious, Wisdom 0 (-5); unconscious is helpless (R10)."""
    assert totals(Status(unconscious=True)) == (8, 12, 8, 13)
    bottom = Status(physical=Track(step=5))
    assert bottom.is_helpless and totals(bottom)[:3] == (8, 12, 8)


def test_armor_replaces_the_class_bonus() -> None:
    """DEFENSES -> Armor Bonus: worn armor's bonus instead of the Reflex class bonus."""
    armored = parse_sheet({"size": "small", "dex": 16, "class_bonus": {"reflex": 2},
                           "armor_type": "light", "armor_bonus": 4, "natural_armor": 1,
                           "equipment_fortitude": 2})
    d = defenses(armored)
    assert d.reflex.total == 10 + 3 + 4 + 1 + 1
    assert d.fortitude.total == 12


def test_size_modifies_only_reflex() -> None:
    """DEFENSES -> Size Modifier: Colossal -10 ... Fine +10, Reflex only."""
    big = defenses(parse_sheet({"size": "colossal"}))
    tiny = defenses(parse_sheet({"size": "fine"}))
    assert (big.reflex.total, big.fortitude.total) == (0, 10)
    assert (tiny.reflex.total, tiny.will.total) == (20, 10)


def test_condition_penalties_of_both_tracks_apply_to_all_defenses() -> None:
    """R15: physical step 2 (-2) and mental step 1 (-1) add up on all four defenses."""
    status = Status(physical=Track(step=2), mental=Track(step=1))
    assert totals(status) == (13, 9, 9, 10)


def test_improved_defenses_and_misc_bonuses() -> None:
    """DEFENSES: Improved Defenses +1 to all four; species bonuses per defense."""
    buffalo = parse_sheet({"feats": ["improved_defenses"], "misc_defense": {"fortitude": 1}})
    d = defenses(buffalo)
    assert (d.reflex.total, d.fortitude.total, d.will.total, d.wits.total) == (11, 12, 11, 11)
    assert d.get("fortitude") is d.fortitude and d.get(DefenseName.WITS) is d.wits


def test_damage_thresholds() -> None:
    """Damage Threshold: physical = Fortitude + size bonus (Large +5) + feats; mental = Will +
    feats."""
    troll = parse_sheet({"size": "large", "con": 14, "class_bonus": {"fortitude": 2},
                         "threshold_bonus": {"physical": 3, "mental": 1}})
    t = damage_thresholds(troll, defenses(troll))
    assert (t.physical.total, t.mental.total) == (14 + 5 + 3, 10 + 1)
    assert t.get("physical") == 22 and t.get("mental") == 11


def test_thresholds_use_the_penalised_defenses() -> None:
    """R15: thresholds come from the current (penalised) Fortitude and Will Defense."""
    hurt = Status(physical=Track(step=3))
    t = damage_thresholds(PONY, defenses(PONY, hurt))
    assert (t.physical.total, t.mental.total) == (12 - 5, 12 - 5)


_TRACKS = st.builds(Track, step=st.integers(0, 5))
_HELD = st.builds(Held, target=st.sampled_from(["defenses", "reflex_defense", "speed", "will"]),
                  amount=st.integers(-4, 4), source=st.sampled_from(["a", "b"]),
                  kind=st.sampled_from(["gm", "morale", "cover"]))
_STATUSES = st.builds(
    Status, physical=_TRACKS, mental=_TRACKS,
    fatigue_points=st.one_of(st.none(), st.integers(-5, 30)), flat_footed=st.booleans(),
    helpless=st.booleans(), unconscious=st.booleans(), prone=st.booleans(),
    grabbed=st.booleans(), distracted=st.booleans(),
    effects=st.lists(_HELD, max_size=3).map(tuple))


@settings(max_examples=300, deadline=None)
@given(_STATUSES, st.booleans(), st.sampled_from([PONY, parse_sheet(
    {"size": "large", "dex": 8, "int": 17, "feats": ["improved_defenses"], "speed": 8,
     "fly_speed": 10})]))
def test_what_defenses_read_of_a_status_gives_the_same_defenses_and_speed(
        status: Status, unaware: bool, sheet: Sheet) -> None:
    """``defenses_read`` keeps of the fatigue points only whether they are down to 0 (R14.5):
    the defenses and the speed worked out from it are those of the status itself (the view's
    numbers are kept by it)."""
    read = defenses_read(status)
    assert read.defenseless == status.defenseless
    assert defenses(sheet, read, unaware=unaware) == defenses(sheet, status, unaware=unaware)
    for fly in (False, True):
        for half in (False, True):
            assert speed_from(sheet, read, condition_half_speed=half, fly=fly) == \
                speed_from(sheet, status, condition_half_speed=half, fly=fly)
    other = msgspec.structs.replace(status, fatigue_points=(status.fatigue_points or 0) + 7)
    if not other.defenseless and not status.defenseless:
        assert defenses_read(other) == read
