"""The encounter flow of "MLP Dramatic Systems", one scenario per rule: surprise, flat-footed,
the action budget, delay, ready, NPC groups and durations. Given / when / then, driven by the GM
on the engine's in-process table (``tests/scene.py``; a few scenarios also through the real
websocket protocol against a real Redis, and those about what each viewer sees only there),
with dice fixed by seed; initiative modifiers 25 apart make the order independent of the
d20."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from clients.client import Client
from server.app import Server
from tests.scene import BOTH_TRANSPORTS, NETWORK_ONLY, Scene, Tables

Make = Callable[..., Awaitable[Scene]]


@pytest.fixture
def make(tables: Tables) -> Make:
    """Create a scene from stat blocks and options, with its GM connected."""

    async def create(combatants: list[dict[str, Any]], **options: Any) -> Scene:
        return await tables.create(combatants, **options)

    return create


def blocks(*specs: tuple[str, int, bool]) -> list[dict[str, Any]]:
    return [
        {"name": n.title(), "id": n, "kind": "pc", "initiative": mod, "aware": aware}
        for n, mod, aware in specs
    ]


# --- surprise and flat-footed -----------------------------------------------------------------


@BOTH_TRANSPORTS
async def test_a_surprise_round_with_two_aware_and_two_unaware(make: Make) -> None:
    log = await make(
        blocks(("ace", 50, True), ("bee", 25, False), ("cub", 0, True), ("dot", -25, False)),
        dice_seed=1,
    )
    events = await log.do("start_encounter")
    # given some but not all aware, when the scene starts, then a surprise round comes first
    assert events[:5] == ["scene_started"] + ["flat_footed"] * 4
    assert log.state.surprise and log.state.round == 0
    assert "surprise_round" in log.state.chart
    assert set(log.state.initiative) == {"ace", "cub"}  # only the aware rolled (R42)
    assert log.state.current == "ace"
    assert "ace" not in log.state.flat_footed  # acting ends flat-footed (R2)
    # a single action: standard, move or swift; no full-round action, no second action
    assert (await log.refused("ace", "run"))["code"] == "illegal_action"
    await log.act("ace", "move")
    assert (await log.refused("ace", "fall_prone"))["code"] == "illegal_action"
    assert "turn_started" in await log.act("ace", "end_turn")
    assert log.state.current == "cub"
    # the unaware are flat-footed: no free actions, but reactions (R4)
    assert "bee" in log.state.flat_footed
    assert "flat-footed" in (await log.refused("bee", "free"))["message"]
    await log.act("bee", "reaction")
    await log.act("cub", "end_turn")
    # round 1: the unaware rolled; everyone acts in order
    assert log.state.round == 1 and not log.state.surprise
    assert "regular_rounds" in log.state.chart
    assert set(log.state.initiative) == {"ace", "bee", "cub", "dot"}
    assert await log.turns_in_round() == ["ace", "bee", "cub", "dot"]
    assert log.state.flat_footed == []
    assert await log.replays()


@pytest.mark.parametrize("aware", [True, False])
async def test_no_surprise_round_when_everyone_or_nobody_is_aware(make: Make, aware: bool) -> None:
    log = await make(blocks(("ace", 50, aware), ("bee", 25, aware)), dice_seed=2)
    await log.do("start_encounter")
    assert not log.state.had_surprise and log.state.round == 1
    assert log.state.flat_footed == []
    await log.act(log.state.current or "", "free")  # nobody flat-footed: free actions allowed


async def test_awareness_is_set_by_the_gm_or_by_perception_checks(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=3)
    await log.do("set_awareness", combatant="bee", aware=False)
    assert not log.state.combatants["bee"].aware
    events = await log.do("call_perception", combatants=["bee"], dc=1)
    assert events == ["dice_rolled", "check_made", "awareness_set"]  # any roll meets DC 1
    assert log.state.combatants["bee"].aware
    total = log.last("dice_rolled")["roll"]["total"]
    # the same roll against what is totally concealed: -10 to notice it (CONCEALMENT)
    again = await make(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=3)
    await again.do("call_perception", combatants=["bee"], dc=total, concealment="total")
    assert not again.state.combatants["bee"].aware


async def test_delaying_on_the_first_turn_keeps_a_combatant_flat_footed(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, False), ("cub", 0, False)), dice_seed=4)
    await log.do("start_encounter")
    await log.act("ace", "end_turn")  # the surprise round: ace only
    assert log.state.current == "ace" and log.state.round == 1
    await log.act("ace", "end_turn")
    assert log.state.current == "bee" and "bee" not in log.state.flat_footed
    await log.act("bee", "delay")  # R3: still flat-footed until its delayed turn
    assert "bee" in log.state.flat_footed
    await log.act("bee", "take_delayed_turn")
    await log.act("cub", "end_turn")
    assert log.state.current == "bee" and "bee" not in log.state.flat_footed


# --- the action budget -------------------------------------------------------------------------

LEGAL = [
    ["other_standard", "move", "fall_prone"],
    ["fall_prone", "move", "other_standard"],
    ["move", "move", "fall_prone"],
    ["other_standard", "fall_prone", "drop_item"],
    ["fall_prone", "drop_item", "activate_item"],
    ["run"],
    ["move", "drop_item", "drop_item"],
]
ILLEGAL = [
    (["other_standard"], "other_standard"),
    (["move"], "run"),
    (["drop_item", "drop_item", "drop_item"], "fall_prone"),
    (["move", "move"], "other_standard"),
    (["move", "move"], "move"),
    (["run"], "fall_prone"),
]


async def started(make: Make, seed: int = 5) -> Scene:
    log = await make(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=seed)
    await log.do("start_encounter")
    return log


@pytest.mark.parametrize("actions", LEGAL, ids=["+".join(a) for a in LEGAL])
async def test_legal_budget_combinations(make: Make, actions: list[str]) -> None:
    log = await started(make)
    for name in actions:
        await log.act("ace", name)
    assert log.state.turn is not None and not any(log.state.turn.budget.values())


@pytest.mark.parametrize(
    ("before", "action"), ILLEGAL, ids=["+".join(b) + "->" + a for b, a in ILLEGAL]
)
async def test_illegal_budget_combinations(make: Make, before: list[str], action: str) -> None:
    log = await started(make)
    for name in before:
        await log.act("ace", name)
    error = await log.refused("ace", action)
    assert error["code"] == "illegal_action" and error["message"]


async def test_acting_out_of_turn_is_not_your_turn_but_free_actions_and_reactions_are_fine(
    make: Make,
) -> None:
    log = await started(make)
    assert (await log.refused("bee", "move"))["code"] == "not_your_turn"
    await log.act("bee", "free", note="Look out!")
    await log.act("bee", "reaction")


async def test_several_swift_actions_across_consecutive_rounds(make: Make) -> None:
    log = await make(
        blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=6, recover_in_scene=True
    )
    await log.do("start_encounter")
    await log.act("ace", "recover")
    await log.act("ace", "recover")
    assert log.state.swift_progress["ace"].spent == 2
    await log.turns_in_round()
    await log.act("ace", "recover")  # the third, in the next round: done
    assert "ace" not in log.state.swift_progress
    taken = log.events("action_taken")
    assert [(e["progress"], e["needed"]) for e in taken] == [(1, 3), (2, 3), (3, 3)]


async def test_recover_is_refused_in_a_dramatic_scene_by_default(make: Make) -> None:
    log = await started(make)
    assert "R18" in (await log.refused("ace", "recover"))["message"]


# --- delay ---------------------------------------------------------------------------------------


async def test_two_delayers_at_one_moment_go_by_initiative_modifier(make: Make) -> None:
    log = await make(
        blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True), ("dot", -25, True)),
        dice_seed=7,
    )
    await log.do("start_encounter")
    await log.act("ace", "delay")
    await log.act("bee", "delay")
    assert log.state.current == "cub"
    await log.act("bee", "take_delayed_turn")
    await log.act("ace", "take_delayed_turn")
    await log.act("cub", "end_turn")
    # both wanted "after cub": ace (+50) before bee (+25), both now on cub's count
    assert log.state.current == "ace"
    assert log.state.order == ["cub", "ace", "bee", "dot"]
    assert log.state.count_of("ace") == log.state.count_of("cub")
    await log.act("ace", "end_turn")
    assert log.state.current == "bee"
    await log.act("bee", "end_turn")
    assert log.state.current == "dot"
    await log.act("dot", "end_turn")
    assert await log.turns_in_round() == ["cub", "ace", "bee", "dot"]  # the new order holds


async def test_a_delayer_who_never_comes_back_is_offered_its_turn_at_the_end_of_the_round(
    make: Make,
) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, True)), dice_seed=8)
    await log.do("start_encounter")
    await log.act("ace", "delay")
    await log.act("bee", "end_turn")
    assert log.state.current == "ace" and log.state.round == 1  # R7.5
    assert log.state.order == ["bee", "ace"]


async def test_delay_to_a_named_count(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=9)
    await log.do("start_encounter")
    target = log.state.count_of("bee") - 1  # just below bee
    await log.act("ace", "delay", count=target)
    await log.act("bee", "end_turn")
    assert log.state.current == "ace" and log.state.count_of("ace") == target
    assert log.state.order == ["bee", "ace", "cub"]


# --- ready ---------------------------------------------------------------------------------------


@BOTH_TRANSPORTS
async def test_a_readied_action_fires_mid_turn_and_the_turn_resumes(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=10)
    await log.do("start_encounter")
    await log.act("ace", "ready", action="other_standard", trigger="when a dog charges")
    assert log.state.turn is not None and not log.state.turn.budget["standard"]
    await log.act("ace", "move")  # readying cost only the standard action (R8.1)
    await log.act("ace", "end_turn")
    await log.act("bee", "move")  # bee's turn is under way
    events = await log.act("ace", "trigger_ready")
    assert events == ["readied_action_triggered"]
    assert "interrupted" in log.state.chart
    assert (await log.refused("bee", "fall_prone"))["code"] == "illegal_action"  # bee waits
    events = await log.act("ace", "other_standard")
    assert events == ["action_taken", "order_changed", "interrupt_ended"]
    assert "underway" in log.state.chart and log.state.current == "bee"  # the history state
    await log.act("bee", "fall_prone")  # the interrupted turn resumes where it was
    assert log.state.order == ["ace", "bee", "cub"]
    assert log.state.count_of("ace") == log.state.count_of("bee")


async def test_a_readied_action_lapses_at_the_readiers_next_turn(make: Make) -> None:
    log = await started(make, 11)
    await log.act("ace", "ready", action="move", trigger="never")
    events = await log.turns_in_round()
    assert events == ["ace", "bee"]
    lost = log.events("readied_action_lost")
    assert len(lost) == 1 and "ace" not in log.state.readied


async def test_a_readied_action_taken_next_round_before_the_regular_turn(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=12)
    await log.do("start_encounter")
    await log.act("ace", "end_turn")
    await log.act("bee", "ready", action="move", trigger="when ace moves")
    await log.act("bee", "end_turn")
    await log.act("cub", "end_turn")
    assert log.state.round == 2 and log.state.current == "ace"
    await log.act("bee", "trigger_ready")
    await log.act("bee", "move")
    # bee's count rose to ace's; it has no regular turn this round (R8.5)
    assert log.state.order == ["bee", "ace", "cub"]
    await log.act("ace", "end_turn")
    assert log.state.current == "cub"
    await log.act("cub", "end_turn")
    assert log.state.round == 3 and log.state.current == "bee"


# --- NPC groups and durations --------------------------------------------------------------------


@BOTH_TRANSPORTS
async def test_an_npc_group_rolls_once_and_acts_together(make: Make) -> None:
    log = await make(
        [
            {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
            {"name": "Dog A", "id": "dog-a", "initiative": 3, "group": "dogs"},
            {"name": "Dog B", "id": "dog-b", "initiative": 1, "group": "dogs"},
            {"name": "Dog C", "id": "dog-c", "initiative": 2, "group": "dogs"},
        ],
        dice_seed=13,
    )
    await log.do("start_encounter")
    rolls = log.events("dice_rolled")
    assert len(rolls) == 2  # ace, and one for the pack
    assert rolls[1]["roll"]["expr"] == "1d20+1"  # the lowest modifier in the group
    assert log.state.order == ["ace", "dog-a", "dog-b", "dog-c"]
    assert {log.state.initiative[d].total for d in ("dog-a", "dog-b", "dog-c")} == {
        rolls[1]["roll"]["total"]
    }
    assert await log.turns_in_round() == ["ace", "dog-a", "dog-b", "dog-c"]


@BOTH_TRANSPORTS
async def test_a_three_round_effect_ends_at_its_count_after_its_owner_delayed(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)), dice_seed=14)
    await log.do("start_encounter")
    await log.act("ace", "end_turn")
    await log.do("add_effect", name="Stunned", rounds=3, combatant="cub")  # on bee's count
    effect = next(iter(log.state.effects.values()))
    assert effect.round == 1 and effect.ends_round == 4
    await log.act("bee", "end_turn")
    await log.act("cub", "end_turn")
    await log.act("ace", "end_turn")
    await log.act("bee", "delay")  # round 2: bee moves down the order
    await log.act("cub", "end_turn")
    await log.act("bee", "end_turn")
    await log.turns_in_round()  # round 3
    assert log.state.round == 4 and log.state.effects
    await log.act("ace", "end_turn")
    # round 4: the effect ends just before the count it began on, though bee moved
    ended = log.events("effect_ended")
    assert len(ended) == 1 and not log.state.effects
    assert await log.replays()


# --- initiative ----------------------------------------------------------------------------------


async def test_initiative_ties_go_to_the_higher_modifier_then_to_a_rolloff(make: Make) -> None:
    """INITIATIVE CHECKS: "If there is still a tie, roll a die" (R5) — with physical dice each
    tied player throws its own roll-off die, asked for one at a time, the encounter waiting in
    ``rolling_initiative`` (R80); a roll-off still tied is thrown again among the tied."""
    log = await make(
        [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 3},
         {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 1},
         {"name": "Cub", "id": "cub", "kind": "pc", "initiative": 1},
         {"name": "Dot", "id": "dot", "kind": "pc", "initiative": 1}],
        players_roll=True, dice_seed=15)
    await log.do("start_encounter")
    faces = {"ace": 10, "bee": 12, "cub": 12, "dot": 12}  # 13, 13, 13, 13
    for pending in list(log.state.pending_rolls.values()):
        assert pending.combatant is not None
        await log.do("submit_roll", request=pending.request, faces=[faces[pending.combatant]])
    # bee 5, cub 9, dot 9; cub and dot tie again: cub 3, dot 8
    for who, face in (("bee", 5), ("cub", 9), ("dot", 9), ("cub", 3), ("dot", 8)):
        assert log.state.chart == ["rolling_initiative"] and not log.state.order
        [pending] = log.state.pending_rolls.values()
        assert (pending.purpose, pending.combatant, pending.roller) == (
            "initiative roll-off", who, who)
        await log.do("submit_roll", request=pending.request, faces=[face])
    order = log.state.order
    assert order == ["ace", "dot", "cub", "bee"]  # same total: the higher modifier first
    assert [log.state.initiative[c].rolloff for c in order] == [(), (9, 8), (9, 3), (5,)]
    rolloffs = [e for e in log.events("dice_rolled") if e["purpose"] == "initiative roll-off"]
    assert len(rolloffs) == 5 and all(e["roll"]["manual"] for e in rolloffs)
    assert await log.replays()


async def test_a_rolloff_between_the_gms_npc_and_a_player(make: Make) -> None:
    """R80: in a roll-off between a player character (``players_roll``) and an NPC whose dice
    the server rolls, the server throws the NPC's die and the player its own."""
    log = await make(
        [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 1},
         {"name": "Dog", "id": "dog", "kind": "npc", "initiative": 1}],
        players_roll=True, dice_seed=15)
    await log.do("start_encounter")
    [pending] = log.state.pending_rolls.values()
    dog_total = log.state.initiative_rolls["dog"].total
    await log.do("submit_roll", request=pending.request, faces=[dog_total - 1])
    [pending] = log.state.pending_rolls.values()
    assert (pending.purpose, pending.combatant) == ("initiative roll-off", "ace")
    dog_rolloff = log.last("dice_rolled")
    assert dog_rolloff["purpose"] == "initiative roll-off" and dog_rolloff["roll"]["seed"]
    face = 20 if dog_rolloff["roll"]["total"] < 20 else 1
    await log.do("submit_roll", request=pending.request, faces=[face])
    assert log.state.order == (["ace", "dog"] if face == 20 else ["dog", "ace"])
    assert log.state.initiative["dog"].rolloff == (dog_rolloff["roll"]["total"],)
    assert await log.replays()


async def test_a_late_joiner_acts_when_its_count_comes_up(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("cub", 0, True)), dice_seed=16)
    await log.do("start_encounter")
    events = await log.do("add_combatant", combatant={"name": "Bee", "id": "bee",
                                                      "kind": "pc", "initiative": 25})
    assert events == ["combatant_added", "dice_rolled", "combatant_joined"]
    assert log.state.order == ["ace", "bee", "cub"] and "bee" not in log.state.flat_footed
    assert await log.turns_in_round() == ["ace", "bee", "cub"]  # in this very round


@NETWORK_ONLY
async def test_snapshots_show_the_turn_flow_as_each_viewer_may_see_it(
    make: Make, server: Server, clients: list[Client]
) -> None:
    from tests.conftest import ws_url
    from tests.helpers import join

    log = await make(
        [*blocks(("ace", 50, True), ("bee", 25, False), ("cub", 0, True)),
         {"name": "Eel", "id": "eel", "initiative": 10, "hidden": True}],
        dice_seed=17)
    link = await log.gm.command("issue_spectator_link")
    invite = await log.gm.command("issue_invite", combatants=["cub"])
    await log.do("start_encounter")  # surprise round: ace, eel (hidden) and cub are aware
    await log.act("ace", "ready", action="move", trigger="when the eel shows")
    await log.do("add_effect", name="Fog", rounds=2)
    spectator = await join(ws_url(server), link["result"]["token"], clients)
    player = await join(ws_url(server), invite["result"]["token"], clients)
    for viewer in (spectator, player, log.gm):
        await viewer.wait_for(lambda m: m["type"] == "legal_actions")
    gm = await join(ws_url(server), log.gm_token, clients)
    await gm.wait_for(lambda m: m["type"] == "snapshot")
    full = gm.snapshot["state"]  # type: ignore[index]
    assert full["readied"]["ace"]["trigger"] == "when the eel shows"
    assert "eel" in full["flat_footed"]  # the GM sees the hidden eel, not yet acted
    seen = spectator.snapshot["state"]  # type: ignore[index]
    assert seen["turn"]["combatant"] == "ace" and seen["turn"]["acted"]
    # readying a move in the surprise round used its single action
    assert seen["turn"]["budget"] == {"standard": False, "move": False, "swift": False}
    assert set(seen["flat_footed"]) == {"bee", "cub"}  # the hidden eel is not listed
    assert seen["readied"] == {}  # a readied action's trigger is its controller's and the GM's
    assert [e["name"] for e in seen["effects"]] == ["Fog"]
    assert "eel" not in str(seen)
    assert player.snapshot["state"]["readied"] == {}  # type: ignore[index]


@NETWORK_ONLY
async def test_an_order_change_counts_only_the_combatants_the_viewer_sees(
    make: Make, server: Server, clients: list[Client]
) -> None:
    from tests.conftest import ws_url
    from tests.helpers import join

    log = await make(
        [*blocks(("ace", 50, True), ("bee", 0, True)),
         {"name": "Eel", "id": "eel", "initiative": 25, "hidden": True}],
        dice_seed=18)
    link = await log.gm.command("issue_spectator_link")
    spectator = await join(ws_url(server), link["result"]["token"], clients)
    await log.do("start_encounter")
    await log.act("ace", "delay")
    await log.act("ace", "take_delayed_turn")
    await log.act("eel", "end_turn")
    assert log.state.order == ["eel", "ace", "bee"]
    gm_sees = log.events("order_changed")
    shown = await spectator.wait_for(lambda m: m["type"] == "event"
                                     and m["event"]["kind"] == "order_changed")
    assert gm_sees[0]["position"] == 1 and shown["event"]["position"] == 0


async def test_after_the_surprise_round_the_unaware_roll_physical_dice(make: Make) -> None:
    log = await make(blocks(("ace", 50, True), ("bee", 25, False)), players_roll=True)
    await log.do("start_encounter")
    (ace_roll,) = log.state.pending_rolls.values()  # only the aware roll now (R42)
    assert ace_roll.combatant == "ace"
    await log.do("submit_roll", request=ace_roll.request, faces=[10])
    assert "surprise_round" in log.state.chart and log.state.current == "ace"
    events = await log.act("ace", "end_turn")  # the surprise round is over: bee rolls
    assert events[-1] == "roll_requested" and log.state.chart == ["rolling_initiative"]
    (bee_roll,) = log.state.pending_rolls.values()
    await log.do("submit_roll", request=bee_roll.request, faces=[3])
    assert "regular_rounds" in log.state.chart and log.state.round == 1
    assert log.state.order == ["ace", "bee"] and log.state.current == "ace"


# --- a death in one's own turn --------------------------------------------------------------


async def test_a_combatant_that_dies_in_its_own_turn_hands_it_to_the_next_in_the_order(
        make: Make) -> None:
    """THE COMBAT ROUND: the round goes on from where the dead one stood (Death: it leaves
    the order): the combatant after it acts next, not the top of the order again."""
    log = await make(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True),
                            ("dot", -25, True)), dice_seed=5)
    await log.do("start_encounter")
    await log.act("ace", "end_turn")
    assert log.state.current == "bee"
    await log.do("fall", combatant="bee", meters=600)  # far too far to live through
    assert log.state.vitals["bee"].condition == ("dead",)
    assert "bee" not in log.state.order
    assert (log.state.round, log.state.current) == (1, "cub")
    await log.act("cub", "end_turn")
    assert (log.state.round, log.state.current) == (1, "dot")
    assert await log.turns_in_round() == ["dot"]
    assert (log.state.round, log.state.current) == (2, "ace")


async def test_a_delayer_waiting_for_the_turn_of_one_who_dies_in_it_acts_next(
        make: Make) -> None:
    """SPECIAL INITIATIVE ACTIONS: Delay (R7.2): a delayer who asked to act right after the
    current turn acts when that turn ends, also when it ends with its taker's death; it
    takes the count of the dead one's turn."""
    log = await make(blocks(("ace", 50, True), ("bee", 25, True), ("cub", 0, True)),
                     dice_seed=6)
    await log.do("start_encounter")
    await log.act("ace", "delay")
    assert log.state.current == "bee"
    await log.act("ace", "take_delayed_turn")  # right after bee's turn
    bee_count = log.state.count_of("bee")
    await log.do("fall", combatant="bee", meters=600)
    assert log.state.vitals["bee"].condition == ("dead",)
    assert (log.state.round, log.state.current) == (1, "ace")
    assert log.state.count_of("ace") == bee_count
    assert log.state.order == ["ace", "cub"]
    await log.act("ace", "end_turn")
    assert (log.state.round, log.state.current) == (1, "cub")
