"""Statements and attitude (rules/social/statements.py, rules/social/attitude.py): STATEMENTS,
Statements; rulings R25, R27, R48."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import dice_in
from rules.modifiers import RuleRefusal
from rules.sheet import Size
from rules.social.attitude import (
    LADDER,
    Attitude,
    Attitudes,
    set_attitude,
    shift,
    shift_attitude,
)
from rules.social.statements import (
    STATEMENT_DAMAGE,
    Answer,
    Statement,
    answer_statement,
    grow,
    reservation_loss,
    shrink,
    size_level,
    use_statement,
)


def test_statement_damage_table() -> None:
    """Statements table: Fine 1 .. Colossal 20d6, one damage per size."""
    assert [STATEMENT_DAMAGE[s] for s in Size] == [
        "1", "1d2", "1d3", "1d6", "2d6", "4d6", "8d6", "12d6", "20d6"]
    for expr in STATEMENT_DAMAGE.values():
        dice_in(expr)
    assert Statement(size=Size.LARGE).damage == "4d6"


def test_a_statement_loses_a_size_per_use() -> None:
    """STATEMENTS: one size step every time it is used; below Fine it is spent (R27)."""
    st_ = Statement(size=Size.SMALL, text="You do it, I'm busy")
    st_ = use_statement(st_)
    assert st_.size is Size.TINY and st_.text == "You do it, I'm busy"
    st_ = use_statement(use_statement(use_statement(st_)))
    assert st_.spent
    with pytest.raises(RuleRefusal, match="spent"):
        use_statement(st_)
    with pytest.raises(RuleRefusal, match="spent"):
        _ = st_.damage


def test_growing_is_capped() -> None:
    assert grow(Size.LARGE) is Size.HUGE
    assert grow(Size.HUGE, at_most=Size.HUGE) is Size.HUGE
    assert grow(None) is Size.FINE


@pytest.mark.parametrize(("answer", "now", "recorded"), [
    (Answer.ACCEPT, 0, 0), (Answer.RESERVATION, 0, 9), (Answer.REFUSE, 9, 0), (None, 9, 0)])
def test_answering_a_statement(answer: Answer | None, now: int, recorded: int) -> None:
    """STATEMENTS, R48: only a refused argument causes loss; no answer refuses."""
    answered = answer_statement(9, answer)
    assert (answered.loss, answered.recorded, answered.rolled) == (now, recorded, 9)


def test_a_reservation_costs_half_if_the_doubt_was_unfounded() -> None:
    """STATEMENTS, R48: half the recorded loss, rounded down, if the doubt proves unfounded."""
    assert reservation_loss(9, doubt_unfounded=True) == 4
    assert reservation_loss(9, doubt_unfounded=False) == 0


def test_the_attitude_ladder() -> None:
    """R25: Hostile, Unfriendly, Indifferent, Friendly, Helpful; the ends stop a shift."""
    assert [a.value for a in LADDER] == ["hostile", "unfriendly", "indifferent", "friendly",
                                         "helpful"]
    assert shift(Attitude.INDIFFERENT, -1) is Attitude.UNFRIENDLY
    assert shift(Attitude.HOSTILE, -1) is Attitude.HOSTILE
    assert shift(Attitude.HELPFUL, 2) is Attitude.HELPFUL


def test_attitude_is_kept_per_pair() -> None:
    """R25: per ordered pair; a pair never set is Indifferent."""
    atts = set_attitude(Attitudes(), "rarity", "blueblood", Attitude.FRIENDLY)
    atts = shift_attitude(atts, "blueblood", "rarity", -1)
    assert atts.of("rarity", "blueblood") is Attitude.FRIENDLY
    assert atts.of("blueblood", "rarity") is Attitude.UNFRIENDLY
    assert atts.of("rarity", "spike") is Attitude.INDIFFERENT
    assert Attitudes().of("rarity", "blueblood") is Attitude.INDIFFERENT
    with pytest.raises(ValueError):
        set_attitude(atts, "rarity", "rarity", Attitude.HELPFUL)


@given(st.sampled_from([*Size, None]), st.lists(st.integers(0, 12), max_size=10))
def test_statement_size_never_below_zero(size: Size | None, uses: list[int]) -> None:
    """R27: shrinking stops at zero (spent)."""
    for steps in uses:
        size = shrink(size, steps)
        assert 0 <= size_level(size) <= 9
    assert size_level(shrink(size, 20)) == 0


@given(st.sampled_from(list(Attitude)), st.lists(st.integers(-6, 6), max_size=20))
def test_attitude_stays_on_its_ladder(attitude: Attitude, steps: list[int]) -> None:
    """R25: any number of shifts leaves an attitude on the ladder."""
    for n in steps:
        attitude = shift(attitude, n)
        assert attitude in LADDER
