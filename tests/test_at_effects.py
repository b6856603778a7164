"""The stacking rule and effect expiry (Stacking Effects; rulings R51, R61)."""

from __future__ import annotations

import pytest

from rules.action_time.effects import (
    DEFENSE,
    END_OF_ROUND,
    NEXT_ACTION,
    NEXT_ATTACK,
    TEST_STEPS,
    Effect,
    EffectError,
    Modifier,
    add_effect,
    at_round_end,
    at_turn_start,
    net,
    net_all,
    on_action,
    remove,
    stack,
    start_of_next_turn,
)


def fx(holder: str, target: str, value: int, kind: str, source: str, expiry: str,
       origin: str = "") -> Effect:
    return Effect(holder=holder, target=target, value=value, source_kind=kind, source=source,
                  expiry=expiry, origin=origin)


def test_two_identical_effects_do_not_stack_champion_example() -> None:
    """Stacking Effects: two allies' Champion talents give the rogue +1 Defense, not +2."""
    effects = [fx("rogue", DEFENSE, 1, "talent", "Champion", END_OF_ROUND, origin="ally1"),
               fx("rogue", DEFENSE, 1, "talent", "Champion", END_OF_ROUND, origin="ally2")]
    result = net(effects, "rogue", DEFENSE)
    assert result.total == 1
    assert [c.counted for c in result.contributions] == [True, False]
    assert "does not stack" in result.contributions[1].note


def test_two_different_effects_stack() -> None:
    """R51: Defend and Guard Up give +4 Defense at most."""
    effects = [fx("aj", DEFENSE, 2, "action", "Defend", start_of_next_turn("aj")),
               fx("aj", DEFENSE, 2, "action", "Guard Up", END_OF_ROUND)]
    result = net(effects, "aj", DEFENSE)
    assert result.total == 4
    assert result.explain() == "Defend +2, Guard Up +2 = +4"


def test_same_name_of_a_different_kind_is_a_different_thing() -> None:
    assert stack([Modifier("talent", "Shield", 1), Modifier("spell", "Shield", 1)]).total == 2


def test_of_duplicates_the_largest_counts_r61() -> None:
    result = stack([Modifier("item", "Ward", 1), Modifier("item", "Ward", 3),
                    Modifier("item", "Ward", -2)])
    assert result.total == 3
    assert [c.counted for c in result.contributions] == [False, True, False]


def test_a_repeated_own_effect_replaces_the_earlier_r51() -> None:
    first = fx("dash", DEFENSE, 2, "action", "Guard Up", END_OF_ROUND, origin="dash")
    second = fx("dash", DEFENSE, 1, "action", "Guard Up", END_OF_ROUND, origin="dash")
    effects = add_effect(add_effect((), first), second)
    assert effects == (second,)
    assert net(effects, "dash", DEFENSE).total == 1


def test_effects_apply_only_to_their_holder_and_target() -> None:
    effects = [fx("aj", DEFENSE, 2, "action", "Defend", start_of_next_turn("aj")),
               fx("aj", TEST_STEPS, -1, "action", "Guard Up", END_OF_ROUND),
               fx("dash", DEFENSE, 1, "action", "Guard Up", END_OF_ROUND)]
    nets = net_all(effects, "aj")
    assert {t: n.total for t, n in nets.items()} == {DEFENSE: 2, TEST_STEPS: -1}
    assert net(effects, "twilight", DEFENSE).total == 0


def test_turn_start_ends_effects_lasting_until_that_turn() -> None:
    defend = fx("aj", DEFENSE, 2, "action", "Defend", start_of_next_turn("aj"))
    guard = fx("aj", DEFENSE, 1, "action", "Guard Up", END_OF_ROUND)
    other = fx("dash", DEFENSE, 2, "action", "Defend", start_of_next_turn("dash"))
    split = at_turn_start([defend, guard, other], "aj")
    assert split.ended == (defend,)
    assert split.kept == (guard, other)


def test_round_end_ends_guard_up_but_not_defend() -> None:
    defend = fx("aj", DEFENSE, 2, "action", "Defend", start_of_next_turn("aj"))
    guard = fx("aj", DEFENSE, 1, "action", "Guard Up", END_OF_ROUND)
    split = at_round_end([defend, guard])
    assert (split.kept, split.ended) == ((defend,), (guard,))


def test_use_ends_next_action_and_next_attack_effects() -> None:
    aim = fx("dash", "attack_steps", 1, "action", "Aim", NEXT_ACTION)
    shot = fx("dash", DEFENSE, 1, "item", "Lucky Charm", NEXT_ATTACK)
    assert on_action([aim, shot], "dash", attack=False).ended == (aim,)
    assert on_action([aim, shot], "dash", attack=True).ended == (aim, shot)
    assert on_action([aim, shot], "aj", attack=True).ended == ()
    assert remove([aim, shot], aim) == (shot,)


def test_an_unknown_expiry_is_refused() -> None:
    with pytest.raises(EffectError):
        fx("aj", DEFENSE, 1, "item", "x", "whenever")
    with pytest.raises(EffectError):
        fx("aj", DEFENSE, 1, "item", "x", "start_of_next_turn:")
