"""Lies (rules/social/lies.py): Creating a Lie; rulings R28, R47, R49, R74."""

from __future__ import annotations

import pytest

from rules.condition_track import Track
from rules.defenses import Status
from rules.modifiers import RuleRefusal
from rules.sheet import Size, parse_sheet
from rules.social.lies import caught_lie_statement, lie_check, lie_outcome

LIAR = parse_sheet({"skills": {"deception": 6}})
GUARD = parse_sheet({"skills": {"empathy": 2}})
CAPTAIN = parse_sheet({"skills": {"empathy": 5}})
CLERK = parse_sheet({"skills": {"empathy": 5}})


def test_deception_against_empathy_modified_by_size() -> None:
    """Creating a Lie: a Large lie adds +5 to the Empathy side; equality believes (R28)."""
    check = lie_check(LIAR, [GUARD], Size.LARGE)
    assert (check.deception_bonus, check.empathy_bonus) == (6, 7)
    assert lie_outcome(check, 11, 10).believed  # 17 against 17
    assert not lie_outcome(check, 10, 10).believed


@pytest.mark.parametrize(("size", "value"), [
    (Size.FINE, -20), (Size.DIMINUTIVE, -15), (Size.TINY, -10), (Size.SMALL, -5),
    (Size.MEDIUM, 0), (Size.LARGE, 5), (Size.HUGE, 10), (Size.GARGANTUAN, 15),
    (Size.COLOSSAL, 20)])
def test_the_size_table(size: Size, value: int) -> None:
    """Creating a Lie table, and R74 for Fine and Diminutive."""
    assert lie_check(LIAR, [GUARD], size).empathy_bonus == 2 + value


def test_the_highest_empathy_judges_for_all() -> None:
    """R28: the target with the highest Empathy modifier rolls once; ties: the first listed."""
    check = lie_check(LIAR, [GUARD, CAPTAIN, CLERK], Size.MEDIUM)
    assert check.judge == 1 and check.empathy_bonus == 5
    shaken = Status(mental=Track(step=3))
    check = lie_check(LIAR, [GUARD, CAPTAIN], Size.MEDIUM, target_statuses=[Status(), shaken])
    assert check.judge == 0  # the captain's 5 - 5 (R15) is below the guard's 2


def test_a_caught_lie_becomes_a_bigger_statement_against_the_liar() -> None:
    """Creating a Lie, R28: one size bigger, attitude toward the liar one step down."""
    caught = lie_outcome(lie_check(LIAR, [GUARD], Size.MEDIUM), 2, 15)
    assert not caught.believed
    assert (caught.statement, caught.attitude_steps) == (Size.LARGE, -1)


def test_at_most_huge_unless_perilous() -> None:
    """Creating a Lie: "maximum Huge Size as long as the Lie is not perilous"."""
    assert caught_lie_statement(Size.HUGE) is Size.HUGE
    assert caught_lie_statement(Size.GARGANTUAN) is Size.HUGE
    assert caught_lie_statement(Size.HUGE, perilous=True) is Size.GARGANTUAN
    assert caught_lie_statement(Size.COLOSSAL, perilous=True) is Size.COLOSSAL


def test_a_white_lie_is_one_size_smaller_and_keeps_attitude() -> None:
    """Creating a Lie, R28: one size smaller, no attitude change; a Fine white lie gives none;
    option white_lie_statement "same": the lie's own size."""
    caught = lie_outcome(lie_check(LIAR, [GUARD], Size.MEDIUM), 2, 15, white=True)
    assert (caught.statement, caught.attitude_steps) == (Size.SMALL, 0)
    assert caught_lie_statement(Size.FINE, white=True) is None
    assert caught_lie_statement(Size.MEDIUM, white=True, white_lie_statement="same") is Size.MEDIUM


def test_a_believed_lie_has_no_consequence() -> None:
    held = lie_outcome(lie_check(LIAR, [GUARD], Size.TINY), 5, 19)  # 11 against 11
    assert held.believed and held.statement is None and held.attitude_steps == 0


def test_no_lies_to_the_unconscious_or_while_blocking() -> None:
    """R47: refused against an unconscious target; R49: a blocking liar uses no argument."""
    with pytest.raises(RuleRefusal, match="R47"):
        lie_check(LIAR, [GUARD], Size.SMALL, target_statuses=[Status(unconscious=True)])
    with pytest.raises(RuleRefusal, match="R49"):
        lie_check(LIAR, [GUARD], Size.SMALL, liar_blocking=True)
