"""Dice: seeded rolls replay, physical dice are checked face by face (rules/dice.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import (
    DiceError,
    check_expression,
    derived_seed,
    dice_in,
    roll_faces,
    roll_seeded,
)


@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_a_seed_gives_the_same_roll_every_time(seed: int) -> None:
    assert roll_seeded("2d6+1d20+3", seed) == roll_seeded("2d6+1d20+3", seed)


@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_a_roll_records_every_die_and_its_total(seed: int) -> None:
    roll = roll_seeded("2d6+1d20+3", seed)
    assert [d.sides for d in roll.dice] == [6, 6, 20]
    assert roll.total == sum(d.face for d in roll.dice) + 3
    assert all(1 <= d.face <= d.sides for d in roll.dice)
    assert roll.seed == seed and not roll.manual


def test_physical_dice_give_the_total_of_their_faces() -> None:
    roll = roll_faces("2d6+1d20-1", [3, 4, 20])
    assert roll.total == 26 and roll.manual and roll.seed is None
    assert roll.natural == 20
    assert roll_faces("4d6kh3", [1, 5, 6, 2]).total == 13


@pytest.mark.parametrize(("expr", "faces", "problem"), [
    ("1d6", [7], "not a face of a d6"),
    ("1d6", [0], "not a face of a d6"),
    ("1d20", [1, 2], "used 1 faces"),
    ("2d6", [3], "too few faces"),
    ("1d%", [15], "percentile"),
    ("banana", [1], "not valid dice notation"),
    ("1d6", [True], "whole numbers"),
])
def test_wrong_faces_are_refused(expr: str, faces: list[int], problem: str) -> None:
    with pytest.raises(DiceError, match=problem):
        roll_faces(expr, faces)


def test_dice_in_lists_the_dice_to_throw() -> None:
    assert dice_in("2d6+1d20-1") == [6, 6, 20]
    assert dice_in("1d%") == [100]
    with pytest.raises(DiceError):
        dice_in("1000d6")


def test_too_many_dice_are_refused() -> None:
    with pytest.raises(DiceError, match="more than 100 dice"):
        roll_seeded("101d6", 1)


def test_derived_seeds_differ_per_roll_and_repeat_per_encounter_seed() -> None:
    seeds = [derived_seed(42, n) for n in range(50)]
    assert len(set(seeds)) == 50
    assert seeds == [derived_seed(42, n) for n in range(50)]


@pytest.mark.parametrize(("expr", "problem"), [
    ("1d6/0", "division by 0"), ("1d6%(-0)", "division by 0"),
    ("1d20/1d4", "not dice"), ("1d1e1", "never stops"), ("1d6rr>0", "never stops"),
    ("4d6rrl1", "never stops"), ("1d0", "sides"), ("1d1001", "sides"),
    ("1d6*9999999", "may total"), ("1d20mi9999999", "may total"),
    ("99999999999d6", "more than 100 dice"),
])
def test_a_stat_blocks_expression_must_always_roll(expr: str, problem: str) -> None:
    with pytest.raises(DiceError, match=problem):
        check_expression(expr)


def test_a_stat_blocks_expression_within_the_bounds_passes() -> None:
    for expr in ("2d6+3", "1d8/2", "(1d6+2)//2", "1d6e6", "2d6ro1", "3d6kh2", "1d%", "1d1000",
                 "100d6", "1d6*1000", "-1d6", "0", "1d6 [fire]"):
        assert check_expression(expr) == dice_in(expr)


def test_a_roll_that_cannot_be_evaluated_is_a_dice_error() -> None:
    with pytest.raises(DiceError, match="divide by zero"):
        roll_seeded("1d6/0", 1)
    with pytest.raises(DiceError, match="divide by zero"):
        roll_faces("1d6//(1-1)", [3])
