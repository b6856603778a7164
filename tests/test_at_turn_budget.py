"""A turn: one major and one minor action, or two minors, plus free actions (Taking Actions;
rulings R29, R36, R51)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.action_time.turn_budget import ActionKind, TurnBudget, can_take, end_turn, spend
from rules.actions import IllegalAction

MAJOR, MINOR, FREE = ActionKind.MAJOR, ActionKind.MINOR, ActionKind.FREE


def take(*kinds: ActionKind) -> TurnBudget:
    budget = TurnBudget.fresh()
    for kind in kinds:
        budget = spend(budget, kind, str(kind))
    return budget


@pytest.mark.parametrize("kinds", [(MAJOR, MINOR), (MINOR, MAJOR), (MINOR, MINOR), (MAJOR,),
                                   (), (FREE, MAJOR, FREE, MINOR, FREE)])
def test_legal_turns(kinds: tuple[ActionKind, ...]) -> None:
    budget = take(*kinds)
    assert budget.majors == kinds.count(MAJOR)
    assert budget.minors == kinds.count(MINOR)


def test_two_major_actions_are_refused_r51() -> None:
    with pytest.raises(IllegalAction, match="one major action at most"):
        take(MAJOR, MAJOR)


def test_a_third_action_is_refused() -> None:
    with pytest.raises(IllegalAction, match=r"no action left.*\(taken: minor, minor\)"):
        take(MINOR, MINOR, MINOR)
    with pytest.raises(IllegalAction, match="no action left"):
        take(MINOR, MINOR, MAJOR)
    with pytest.raises(IllegalAction, match="no action left"):
        take(MINOR, MAJOR, MINOR)


def test_free_actions_are_always_allowed() -> None:
    budget = take(MAJOR, MINOR)
    assert budget.spent
    assert spend(budget, FREE) == budget


def test_an_ended_turn_takes_no_more_actions_r36() -> None:
    budget = end_turn(take(MINOR), "Prepare ends the turn (ruling R36)")
    assert not can_take(budget, MINOR)
    with pytest.raises(IllegalAction, match="the turn is over: Prepare ends the turn"):
        spend(budget, MAJOR)


def test_at_0_health_the_turn_passes_r29() -> None:
    budget = TurnBudget.passed()
    with pytest.raises(IllegalAction, match="0 Health"):
        spend(budget, MINOR)


@given(st.lists(st.sampled_from([MAJOR, MINOR, FREE]), max_size=10))
def test_never_more_than_one_major_or_two_actions(kinds: list[ActionKind]) -> None:
    budget = TurnBudget.fresh()
    for kind in kinds:
        if can_take(budget, kind):
            budget = spend(budget, kind)
        else:
            with pytest.raises(IllegalAction):
                spend(budget, kind)
        assert budget.majors <= 1
        assert budget.majors + budget.minors <= 2
