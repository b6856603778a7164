"""Tests against a Difficulty and opposed tests (rulings R29, R30, R38, R51)."""

from __future__ import annotations

from rules.action_time.checks import (
    Side,
    plan_check,
    resolve_check,
    resolve_opposed,
    step_modifiers,
)
from rules.action_time.effects import TEST_STEPS, Effect, Modifier
from rules.action_time.options import AtOptions

UP = Modifier("action", "Aim", 1)
DOWN = Modifier("action", "Guard Up", -1)


def test_r29_meeting_the_difficulty_succeeds() -> None:
    planned = plan_check("mind", 8)
    assert resolve_check(planned, 4, 4).success
    assert resolve_check(planned, 5, 4).margin == 1
    failed = resolve_check(planned, 3, 4)
    assert not failed.success and failed.margin == -1
    assert failed.text == "Mind d8 rolled 3 vs Difficulty 4: failure"


def test_upgrades_and_downgrades_are_itemised() -> None:
    planned = plan_check("body", 8, [UP, Modifier("action", "Charge", 1), DOWN])
    assert planned.die.sides == 10
    assert planned.die.expr == "1d10"
    result = resolve_check(planned, 9, 8)
    assert result.text == ("Body d8 (Aim +1, Charge +1, Guard Up -1 = +1) -> d10 rolled 9 "
                           "vs Difficulty 8: success")


def test_two_aims_give_one_upgrade_r51() -> None:
    assert plan_check("body", 6, [UP, UP]).die.sides == 8


def test_r30_modifier_option_in_a_test() -> None:
    planned = plan_check("body", 20, [UP, Modifier("talent", "Mighty", 1)],
                         AtOptions(die_ladder_overflow="modifier"))
    assert planned.die.sides == 20
    result = resolve_check(planned, 19, 21)
    assert result.rolled.total == 21 and result.success


def test_step_modifiers_take_all_tests_and_attack_only_effects() -> None:
    effects = [Effect(holder="aj", target=TEST_STEPS, value=-2, source_kind="action",
                      source="Guard Up", expiry="end_of_round"),
               Effect(holder="aj", target="attack_steps", value=1, source_kind="action",
                      source="Aim", expiry="next_action")]
    assert [m.source for m in step_modifiers(effects, "aj")] == ["Guard Up"]
    assert [m.source for m in step_modifiers(effects, "aj", attack=True)] == ["Guard Up", "Aim"]


def side(name: str, die: int, face: int) -> Side:
    return Side(name, plan_check("body", die), face)


def test_opposed_higher_roll_wins() -> None:
    result = resolve_opposed(side("brute", 10, 7), side("aj", 12, 5))
    assert result.winner == "first"
    assert result.reason == "higher roll"


def test_r38_tie_goes_to_the_larger_die() -> None:
    assert resolve_opposed(side("brute", 10, 6), side("aj", 8, 6)).winner == "first"
    assert resolve_opposed(side("brute", 6, 6), side("aj", 8, 6)).winner == "second"


def test_r38_same_die_tie_goes_to_the_defender() -> None:
    result = resolve_opposed(side("brute", 8, 5), side("aj", 8, 5), defender="second")
    assert result.winner == "second"
    assert result.text == ("brute: Body d8 rolled 5; aj: Body d8 rolled 5: aj wins "
                           "(tie: the defender wins (R38))")
    assert resolve_opposed(side("aj", 8, 5), side("brute", 8, 5), defender="first").winner == \
        "first"


def test_r38_contest_without_defender_rolls_again() -> None:
    result = resolve_opposed(side("a", 8, 5), side("b", 8, 5), defender=None)
    assert result.winner is None and result.reason == "tie: roll again (R38)"


def test_r38_option_opposed_tie_reroll() -> None:
    options = AtOptions(opposed_tie_reroll=True)
    assert resolve_opposed(side("a", 8, 5), side("b", 8, 5), options=options).winner is None
    # the die-size comparison still comes first
    assert resolve_opposed(side("a", 10, 5), side("b", 8, 5), options=options).winner == "first"


def test_guard_up_downgrade_applies_to_opposed_tests() -> None:
    """GUARD UP: "a penalty to all tests you make, even opposed tests"."""
    guarded = Side("aj", plan_check("body", 10, [Modifier("action", "Guard Up", -2)]), 6)
    assert guarded.planned.die.sides == 6
    # equal faces: the brute's d8 is now the larger die
    assert resolve_opposed(side("brute", 8, 6), guarded).winner == "first"
