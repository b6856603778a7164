"""Grab (rules/grab.py): STANDARD ACTIONS -> Grab; rulings R24, R55."""

from __future__ import annotations

import pytest

from rules.attack import AttackKind
from rules.condition_track import Track
from rules.defenses import Status
from rules.grab import break_grab, can_move, grab_check
from rules.modifiers import RuleRefusal
from rules.sheet import parse_sheet

GRIFFON = parse_sheet({"skills": {"melee": 4}})
PONY = parse_sheet({"skills": {"melee": 4}, "non_dexterous": True})


def test_a_grab_is_an_unarmed_melee_attack_at_minus_5() -> None:
    check = grab_check(GRIFFON, parse_sheet({}))
    assert (check.kind, check.bonus, check.defense.total) == (AttackKind.GRAB, -1, 10)


def test_the_non_dexterous_malus() -> None:
    """R24: -2 more for a grabber without hands (option non_dexterous_penalty)."""
    assert grab_check(PONY, parse_sheet({})).bonus == -3
    assert grab_check(PONY, parse_sheet({}), non_dexterous_penalty=4).bonus == -5


def test_only_one_size_larger_and_one_target_at_a_time() -> None:
    assert grab_check(GRIFFON, parse_sheet({"size": "large"})).bonus == -1
    with pytest.raises(RuleRefusal, match="one size category larger"):
        grab_check(GRIFFON, parse_sheet({"size": "huge"}))
    with pytest.raises(RuleRefusal, match="one target at a time"):
        grab_check(GRIFFON, parse_sheet({}), already_grabbing=True)


def test_a_grabbed_creature_takes_minus_2_and_cannot_move() -> None:
    grabbed = Status(grabbed=True)
    assert grab_check(GRIFFON, parse_sheet({}), grabber_status=grabbed).bonus == -3
    assert not can_move(grabbed) and can_move(Status())
    assert not can_move(Status(physical=Track(step=5)))


def test_breaking_the_grab_clears_one_grabber_per_level() -> None:
    """Grab (R55): one grabber per heroic level, at least one; the grabbed creature chooses."""
    two = break_grab(["a", "b", "c"], 2)
    assert (two.cleared, two.remaining, two.free) == (("a", "b"), ("c",), False)
    chosen = break_grab(["a", "b", "c"], 2, chosen=["c"])
    assert chosen.cleared == ("c", "a")
    assert break_grab(["a"], 0).free
    assert break_grab(["a", "b"], 0).cleared == ("a",)
    with pytest.raises(ValueError, match="not grabbing"):
        break_grab(["a"], 1, chosen=["z"])
    with pytest.raises(RuleRefusal, match="nobody"):
        break_grab([], 3)
