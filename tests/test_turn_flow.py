"""The encounter flow of "MLP Dramatic Systems", one scenario per rule: surprise, flat-footed,
the action budget, delay, ready, NPC groups and durations. Given / when / then, through the
decider; initiative modifiers 25 apart make the order independent of the d20."""

from __future__ import annotations

from typing import Any

import pytest

from encounter import engine
from encounter.actors import Actor
from encounter.fold import fold
from protocol import messages as msg
from tests.test_engine import Log

GM = Actor(role="gm", token_id="gm")


def blocks(*specs: tuple[str, int, bool]) -> list[dict[str, Any]]:
    return [{"name": n.title(), "id": n, "kind": "pc", "initiative": mod, "aware": aware}
            for n, mod, aware in specs]


def act(log: Log, who: str, action: str, /, **args: Any) -> list[str]:
    return log.kinds(log.do(msg.Act(id="a", combatant=who, action=action, args=args)))


def refused(log: Log, who: str, action: str, /, **args: Any) -> engine.Rejected:
    with pytest.raises(engine.Rejected) as err:
        log.do(msg.Act(id="a", combatant=who, action=action, args=args))
    return err.value


def turns_in_round(log: Log) -> list[str]:
    """End turns until the round changes; return who had them."""
    start, seen = log.state.round, []
    while log.state.round == start:
        assert log.state.current is not None
        seen.append(log.state.current)
        act(log, log.state.current, "end_turn")
    return seen


# --- surprise and flat-footed -----------------------------------------------------------------

def test_a_surprise_round_with_two_aware_and_two_unaware() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, False), ("cub", 0, True),
                     ("dot", -25, False)), dice_seed=1)
    events = log.kinds(log.do(msg.StartEncounter(id="s")))
    # given some but not all aware, when the scene starts, then a surprise round comes first
    assert events[:5] == ["scene_started"] + ["flat_footed"] * 4
    assert log.state.surprise and log.state.round == 0
    assert set(log.state.initiative) == {"ace", "cub"}  # only the aware rolled (R42)
    assert log.state.current == "ace"
    assert "ace" not in log.state.flat_footed  # acting ends flat-footed (R2)
    # a single action: standard, move or swift; no full-round action, no second action
    assert refused(log, "ace", "run").code == "illegal_action"
    act(log, "ace", "move")
    assert refused(log, "ace", "fall_prone").code == "illegal_action"
    assert "turn_started" in act(log, "ace", "end_turn")
    assert log.state.current == "cub"
    # the unaware are flat-footed: no free actions, but reactions (R4)
    assert "bee" in log.state.flat_footed
    assert "flat-footed" in refused(log, "bee", "free").message
    act(log, "bee", "reaction")
    act(log, "cub", "end_turn")
    # round 1: the unaware rolled; everyone acts in order
    assert log.state.round == 1 and not log.state.surprise
    assert set(log.state.initiative) == {"ace", "bee", "cub", "dot"}
    assert turns_in_round(log) == ["ace", "bee", "cub", "dot"]
    assert log.state.flat_footed == []
    assert fold("enc", log.envelopes) == log.state


@pytest.mark.parametrize("aware", [True, False])
def test_no_surprise_round_when_everyone_or_nobody_is_aware(aware: bool) -> None:
    log = Log(blocks(("ace", 50, aware), ("bee", 25, aware)), dice_seed=2)
    log.do(msg.StartEncounter(id="s"))
    assert not log.state.had_surprise and log.state.round == 1
    assert log.state.flat_footed == []
    act(log, log.state.current or "", "free")  # nobody flat-footed: free actions allowed


def test_awareness_is_set_by_the_gm_or_by_perception_checks() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=3)
    log.do(msg.SetAwareness(id="w", combatant="bee", aware=False))
    assert not log.state.combatants["bee"].aware
    events = log.kinds(log.do(msg.CallPerception(id="p", combatants=["bee"], dc=1)))
    assert events == ["dice_rolled", "awareness_set"]  # any roll meets DC 1
    assert log.state.combatants["bee"].aware


def test_delaying_on_the_first_turn_keeps_a_combatant_flat_footed() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, False), ("cub", 0, False)), dice_seed=4)
    log.do(msg.StartEncounter(id="s"))
    act(log, "ace", "end_turn")  # the surprise round: ace only
    assert log.state.current == "ace" and log.state.round == 1
    act(log, "ace", "end_turn")
    assert log.state.current == "bee" and "bee" not in log.state.flat_footed
    act(log, "bee", "delay")  # R3: still flat-footed until its delayed turn
    assert "bee" in log.state.flat_footed
    act(log, "bee", "take_delayed_turn")
    act(log, "cub", "end_turn")
    assert log.state.current == "bee" and "bee" not in log.state.flat_footed


# --- the action budget -------------------------------------------------------------------------

LEGAL = [
    ["aid_another", "move", "fall_prone"],
    ["fall_prone", "move", "aid_another"],
    ["move", "move", "fall_prone"],
    ["aid_another", "fall_prone", "drop_item"],
    ["fall_prone", "drop_item", "activate_item"],
    ["run"],
    ["move", "drop_item", "drop_item"],
]
ILLEGAL = [
    (["aid_another"], "grab"),
    (["move"], "run"),
    (["drop_item", "drop_item", "drop_item"], "fall_prone"),
    (["move", "move"], "aid_another"),
    (["move", "move"], "move"),
    (["run"], "fall_prone"),
]


def started(seed: int = 5) -> Log:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=seed)
    log.do(msg.StartEncounter(id="s"))
    return log


@pytest.mark.parametrize("actions", LEGAL, ids=["+".join(a) for a in LEGAL])
def test_legal_budget_combinations(actions: list[str]) -> None:
    log = started()
    for name in actions:
        act(log, "ace", name)
    assert log.state.turn is not None and log.state.turn.budget.spent()


@pytest.mark.parametrize(("before", "action"), ILLEGAL,
                         ids=["+".join(b) + "->" + a for b, a in ILLEGAL])
def test_illegal_budget_combinations(before: list[str], action: str) -> None:
    log = started()
    for name in before:
        act(log, "ace", name)
    error = refused(log, "ace", action)
    assert error.code == "illegal_action" and error.message


def test_acting_out_of_turn_is_not_your_turn_but_free_actions_and_reactions_are_fine() -> None:
    log = started()
    assert refused(log, "bee", "move").code == "not_your_turn"
    act(log, "bee", "free", note="Look out!")
    act(log, "bee", "reaction")


def test_several_swift_actions_across_consecutive_rounds() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=6, recover_in_scene=True)
    log.do(msg.StartEncounter(id="s"))
    act(log, "ace", "recover")
    act(log, "ace", "recover")
    assert log.state.swift_progress["ace"].spent == 2
    turns_in_round(log)
    act(log, "ace", "recover")  # the third, in the next round: done
    assert "ace" not in log.state.swift_progress
    taken = [e.event for e in log.envelopes if e.event.__struct_config__.tag == "action_taken"]
    assert [(e.progress, e.needed) for e in taken] == [(1, 3), (2, 3), (3, 3)]  # type: ignore[attr-defined]


def test_recover_is_refused_in_a_dramatic_scene_by_default() -> None:
    assert "R18" in refused(started(), "ace", "recover").message


# --- delay ---------------------------------------------------------------------------------------

def test_two_delayers_at_one_moment_go_by_initiative_modifier() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True),
                     ("dot", -25, True)), dice_seed=7)
    log.do(msg.StartEncounter(id="s"))
    act(log, "ace", "delay")
    act(log, "bee", "delay")
    assert log.state.current == "cub"
    act(log, "bee", "take_delayed_turn")
    act(log, "ace", "take_delayed_turn")
    act(log, "cub", "end_turn")
    # both wanted "after cub": ace (+50) before bee (+25), both now on cub's count
    assert log.state.current == "ace"
    assert log.state.order == ["cub", "ace", "bee", "dot"]
    assert log.state.count_of("ace") == log.state.count_of("cub")
    act(log, "ace", "end_turn")
    assert log.state.current == "bee"
    act(log, "bee", "end_turn")
    assert log.state.current == "dot"
    act(log, "dot", "end_turn")
    assert turns_in_round(log) == ["cub", "ace", "bee", "dot"]  # the new order holds


def test_a_delayer_who_never_comes_back_is_offered_its_turn_at_the_end_of_the_round() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=8)
    log.do(msg.StartEncounter(id="s"))
    act(log, "ace", "delay")
    act(log, "bee", "end_turn")
    assert log.state.current == "ace" and log.state.round == 1  # R7.5
    assert log.state.order == ["bee", "ace"]


def test_delay_to_a_named_count() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=9)
    log.do(msg.StartEncounter(id="s"))
    target = log.state.count_of("bee") - 1  # just below bee
    act(log, "ace", "delay", count=target)
    act(log, "bee", "end_turn")
    assert log.state.current == "ace" and log.state.count_of("ace") == target
    assert log.state.order == ["bee", "ace", "cub"]


# --- ready ---------------------------------------------------------------------------------------

def test_a_readied_action_fires_mid_turn_and_the_turn_resumes() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=10)
    log.do(msg.StartEncounter(id="s"))
    act(log, "ace", "ready", action="aid_another", trigger="when a dog charges")
    assert log.state.turn is not None and not log.state.turn.budget.standard
    act(log, "ace", "move")  # readying cost only the standard action (R8.1)
    act(log, "ace", "end_turn")
    act(log, "bee", "move")  # bee's turn is under way
    events = act(log, "ace", "trigger_ready")
    assert events == ["readied_action_triggered"]
    assert log.state.chart[-1] == "interrupted"
    assert refused(log, "bee", "fall_prone").code == "illegal_action"  # bee waits
    events = act(log, "ace", "aid_another")
    assert events == ["action_taken", "order_changed", "interrupt_ended"]
    assert log.state.chart[-1] == "acting" and log.state.current == "bee"
    act(log, "bee", "fall_prone")  # the interrupted turn resumes where it was
    assert log.state.order == ["ace", "bee", "cub"]
    assert log.state.count_of("ace") == log.state.count_of("bee")


def test_a_readied_action_lapses_at_the_readiers_next_turn() -> None:
    log = started(11)
    act(log, "ace", "ready", action="move", trigger="never")
    events = turns_in_round(log)
    assert events == ["ace", "bee"]
    lost = [e for e in log.envelopes if e.event.__struct_config__.tag == "readied_action_lost"]
    assert len(lost) == 1 and "ace" not in log.state.readied


def test_a_readied_action_taken_next_round_before_the_regular_turn() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=12)
    log.do(msg.StartEncounter(id="s"))
    act(log, "ace", "end_turn")
    act(log, "bee", "ready", action="move", trigger="when ace moves")
    act(log, "bee", "end_turn")
    act(log, "cub", "end_turn")
    assert log.state.round == 2 and log.state.current == "ace"
    act(log, "bee", "trigger_ready")
    act(log, "bee", "move")
    # bee's count rose to ace's; it has no regular turn this round (R8.5)
    assert log.state.order == ["bee", "ace", "cub"]
    act(log, "ace", "end_turn")
    assert log.state.current == "cub"
    act(log, "cub", "end_turn")
    assert log.state.round == 3 and log.state.current == "bee"


# --- NPC groups and durations --------------------------------------------------------------------

def test_an_npc_group_rolls_once_and_acts_together() -> None:
    log = Log([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
               {"name": "Dog A", "id": "dog-a", "initiative": 3, "group": "dogs"},
               {"name": "Dog B", "id": "dog-b", "initiative": 1, "group": "dogs"},
               {"name": "Dog C", "id": "dog-c", "initiative": 2, "group": "dogs"}],
              dice_seed=13)
    events = log.do(msg.StartEncounter(id="s"))
    rolls = [e.event for e in events if e.event.__struct_config__.tag == "dice_rolled"]
    assert len(rolls) == 2  # ace, and one for the pack
    assert rolls[1].roll.expr == "1d20+1"  # type: ignore[attr-defined]  # lowest modifier
    assert log.state.order == ["ace", "dog-a", "dog-b", "dog-c"]
    assert {log.state.initiative[d].total for d in ("dog-a", "dog-b", "dog-c")} == {
        rolls[1].roll.total}  # type: ignore[attr-defined]
    assert turns_in_round(log) == ["ace", "dog-a", "dog-b", "dog-c"]


def test_a_three_round_effect_ends_at_its_count_after_its_owner_delayed() -> None:
    log = Log(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=14)
    log.do(msg.StartEncounter(id="s"))
    act(log, "ace", "end_turn")
    log.do(msg.AddEffect(id="e", name="Stunned", rounds=3, combatant="cub"))  # on bee's count
    effect = next(iter(log.state.effects.values()))
    assert effect.round == 1 and effect.ends_round == 4
    act(log, "bee", "end_turn")
    act(log, "cub", "end_turn")
    act(log, "ace", "end_turn")
    act(log, "bee", "delay")  # round 2: bee moves down the order
    act(log, "cub", "end_turn")
    act(log, "bee", "end_turn")
    turns_in_round(log)  # round 3
    assert log.state.round == 4 and log.state.effects
    act(log, "ace", "end_turn")
    # round 4: the effect ends just before the count it began on, though bee moved
    ended = [e for e in log.envelopes if e.event.__struct_config__.tag == "effect_ended"]
    assert len(ended) == 1 and not log.state.effects
    assert fold("enc", log.envelopes) == log.state
