"""Resolving actions in "MLP Dramatic Systems": attacks, damage, damage reduction, fatigue, the
condition tracks, unconsciousness, death, Second Lunch and the GM's rulings. One scenario per
rule, given / when / then, on the engine's in-process table (``tests/scene.py``; a few
scenarios also through the real websocket protocol against a real Redis, and what players and
the client's table view are shown only there). Player characters roll physical dice
(``players_roll``), so each scenario states the faces it needs; initiative modifiers 50 apart
fix the order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from clients.client import Client
from clients.view import vitals_text
from encounter.actors import Actor
from encounter.legal import legal_actions
from encounter.views import view_state
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import open_client
from tests.scene import BOTH_TRANSPORTS, NETWORK_ONLY, Scene, Tables

Make = Callable[..., Awaitable[Scene]]

PONY = {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50,
        "stats": {"skills": {"melee": 5, "ranged": 4}, "str": 14,
                  "weapons": [{"name": "bow", "damage": "1d8", "kind": "ranged"},
                              {"name": "glowing horn", "damage": "1d6",
                               "damage_types": ["magic"]}]}}
DOG = {"name": "Dog", "id": "dog", "kind": "npc", "initiative": 0,
       "stats": {"dex": 12, "fatigue_points": 10}}


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], **options: Any) -> Scene:
        return await tables.started(combatants, **options)

    return create


async def roll(scene: Scene, *faces: int) -> list[str]:
    """Answer the one pending roll with these faces."""
    (request,) = scene.state.pending_rolls
    return await scene.do("submit_roll", request=request, faces=list(faces))


def last(scene: Scene, kind: str) -> dict[str, Any]:
    return scene.last(kind)


def dog(**stats: Any) -> dict[str, Any]:
    return {**DOG, "stats": {**DOG["stats"], **stats}}


# --- the attack roll --------------------------------------------------------------------------


@BOTH_TRANSPORTS
async def test_a_melee_hit_itemises_the_roll_and_deals_size_die_plus_strength(make: Make) -> None:
    scene = await make([PONY, DOG])
    assert scene.state.current == "ace"
    # ATTACK ROLL: 1d20 + Melee skill against Reflex Defense (10 + Dex 1 = 11)
    assert await scene.act("ace", "attack", target="dog") == ["action_taken", "roll_requested"]
    assert (await scene.refused("ace", "end_turn"))["code"] == "illegal_action"  # dice first
    await roll(scene, 6)  # 6 + 5 = 11: equal to the defense hits
    attack = last(scene, "attack_resolved")
    assert (attack["natural"], attack["total"], attack["defense_value"]) == (6, 11, 11)
    assert attack["outcome"] == "hit"
    assert ["Melee skill", 5, "ATTACK ROLL"] in [list(m.values()) for m in attack["modifiers"]]
    # DAMAGE (R12): unarmed Medium 1d6 + Strength modifier 2
    assert await roll(scene, 4) == ["dice_rolled", "damage_dealt", "vitals_changed"]
    damage = last(scene, "damage_dealt")
    assert (damage["rolled"], damage["loss"]) == (4, 6)
    assert scene.state.vitals["dog"].fatigue == 4
    assert await scene.replays()


async def test_a_natural_1_misses_and_a_natural_20_is_a_critical_hit(make: Make) -> None:
    scene = await make([{**PONY, "stats": {**PONY["stats"], "skills": {"melee": 30}}},
                        dog(fatigue_points=40)])
    await scene.act("ace", "attack", target="dog")
    assert await roll(scene, 1) == ["dice_rolled", "attack_resolved"]  # no damage roll
    assert last(scene, "attack_resolved")["outcome"] == "automatic_miss"
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 20)
    assert last(scene, "attack_resolved")["outcome"] == "critical"
    await roll(scene, 3)  # (3 + 2) doubled (R44)
    assert last(scene, "damage_dealt")["loss"] == 10


async def test_ranged_attacks_take_the_range_penalty_and_miss_below_the_defense(
        make: Make) -> None:
    scene = await make([PONY, dog()])
    refused = await scene.refused("ace", "attack", target="dog", weapon="bow")
    assert "distance or the range band" in refused["message"]
    # Ranged skill 4, medium range -5: 11 + 4 - 5 = 10 against 11
    await scene.act("ace", "attack", target="dog", weapon="bow", range="medium")
    await roll(scene, 11)
    attack = last(scene, "attack_resolved")
    assert ["range (medium)", -5] in [[m["name"], m["value"]] for m in attack["modifiers"]]
    assert (attack["total"], attack["outcome"]) == (10, "miss")


async def test_cover_and_a_prone_target_are_itemised(make: Make) -> None:
    scene = await make([PONY, dog()])
    await scene.do("adjust_combatant", combatant="dog", prone=True, reason="tripped")
    total_cover = await scene.refused("ace", "attack", target="dog", cover="total")
    assert total_cover["code"] == "illegal_action"
    await scene.act("ace", "attack", target="dog", weapon="bow", range="point_blank",
                    cover="cover")
    await roll(scene, 9)
    attack = last(scene, "attack_resolved")
    names = {m["name"]: m["value"] for m in attack["modifiers"]}
    assert names["prone target"] == -2  # ranged against prone (PRONE TARGETS, R10)
    assert attack["defense_value"] == 13  # cover +2 on Reflex (COVER)


# --- damage reduction and the damage threshold ------------------------------------------------


async def test_damage_reduction_takes_the_best_value_for_the_defender(make: Make) -> None:
    reductions = [{"value": 5, "bypass": ["magic"]}, {"value": 1}]
    scene = await make([PONY, dog(damage_reduction=reductions, fatigue_points=30)])
    await scene.act("ace", "attack", target="dog", weapon="glowing horn")
    await roll(scene, 15)
    await roll(scene, 6)  # 6 + 2 = 8; magic bypasses DR 5, so DR 1 applies (R13)
    damage = last(scene, "damage_dealt")
    assert (damage["reduction"], damage["reduction_label"], damage["loss"]) == (1, "DR 1", 7)


async def test_a_loss_that_reaches_the_threshold_moves_the_track_a_step(make: Make) -> None:
    # physical damage threshold = Fortitude Defense 10 (R45: equal reaches it)
    scene = await make([{**PONY, "stats": {**PONY["stats"], "str": 30}}, dog(fatigue_points=40)])
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 15)
    await roll(scene, 1)  # 1 + Str 10 = 11 >= 10
    dog_now = scene.state.vitals["dog"]
    assert (dog_now.fatigue, dog_now.physical.step, dog_now.physical.penalty) == (29, 1, -1)
    assert any("damage threshold" in n for n in last(scene, "vitals_changed")["notes"])


# --- 0 fatigue points, unconsciousness and death ----------------------------------------------


async def knock_out(scene: Scene) -> None:
    """The GM's ruling takes the dog to 0 fatigue points and four steps down; one more loss
    at 0 moves it to the bottom."""
    await scene.do("adjust_combatant", combatant="dog", fatigue=0, physical_step=4,
                   reason="a long fight")
    await scene.do("adjudicate", description="a falling beam", target="dog",
                   on_success={"fatigue_loss": 1})


@BOTH_TRANSPORTS
async def test_at_0_fatigue_a_loss_is_a_step_and_the_bottom_is_unconscious(make: Make) -> None:
    scene = await make([PONY, dog()])
    await knock_out(scene)
    v = scene.state.vitals["dog"]
    assert (v.physical.step, v.condition, v.prone) == (5, ("unconscious", "awaiting_check"), True)
    # R16: fell in round 1 during ace's turn (position 0); the dog is at position 1
    assert v.check_round == 11
    notes = last(scene, "vitals_changed")["notes"]
    assert any("one step (0 Fatigue Points, R14.2)" in n for n in notes)
    # an unconscious creature takes no actions, and its turns pass by themselves
    assert (await scene.refused("dog", "end_turn"))["code"] in ("illegal_action",
                                                                "not_your_turn")
    assert await scene.turns_in_round() == ["ace"]
    assert scene.state.current == "ace" and scene.state.round == 2
    assert await scene.replays()


@NETWORK_ONLY
async def test_the_bottom_of_the_track_makes_the_vitals_helpless_as_attacks_read_it(
        make: Make) -> None:
    """HELPLESS CONDITION: "bound, sleeping, unconscious or on the botom of the condition
    track"; The Condition Track: "A creature pushed to the last step on any condition track
    falls unconscious" (R15). The vitals' ``helpless`` comes from the function the attacks use
    (``encounter.vitals.rules_status``), so a client shows what the next attack counts."""
    scene = await make([PONY, dog()])
    await knock_out(scene)
    first, changed = scene.events("vitals_changed")[-2:]
    assert first["helpless"] is False  # step 4 is not the bottom
    assert (changed["physical"]["step"], changed["condition"]) == (5, ["unconscious",
                                                                      "awaiting_check"])
    assert (changed["helpless"], changed["bound_or_asleep"]) == (True, False)
    assert scene.state.vitals["dog"].helpless
    player_view = view_state(scene.state, Actor(role="player", token_id="t",
                                                   combatants=frozenset({"ace"})))
    (dog_entry,) = [c for c in player_view["combatants"] if c["id"] == "dog"]
    assert dog_entry["vitals"]["helpless"] is True  # the snapshot says it too
    assert "helpless" in vitals_text(dog_entry["vitals"])  # and the terminal client shows it
    # the next attack counts the same helplessness: Dexterity -5, one +2 (R10)
    await scene.act("ace", "end_turn")
    await scene.act("ace", "attack", target="dog")  # the dog's turn passed by itself
    await roll(scene, 2)
    attack = last(scene, "attack_resolved")
    assert ["helpless target", 2] in [[m["name"], m["value"]] for m in attack["modifiers"]]
    assert attack["defense_value"] == 5  # 10 - 5 for Dexterity 0 (HELPLESS CONDITION, R10)
    await roll(scene, 1)
    # healing wakes it (R16): no longer helpless, unless the GM has it tied up
    await scene.do("adjudicate", description="a healing potion", target="dog",
                   on_success={"heal": 3})
    assert last(scene, "vitals_changed")["helpless"] is False
    await scene.do("adjust_combatant", combatant="dog", helpless=True, reason="tied up")
    changed = last(scene, "vitals_changed")
    assert (changed["helpless"], changed["bound_or_asleep"]) == (True, True)
    assert await scene.replays()


async def test_the_constitution_check_comes_after_ten_rounds(make: Make) -> None:
    scene = await make([PONY, dog(con=30)], dice_seed=4)  # Con +10: the check succeeds
    await knock_out(scene)
    for _ in range(10):
        assert await scene.turns_in_round() == ["ace"]
    assert scene.state.round == 11
    events = await scene.act("ace", "end_turn")  # the dog's turn in round 11: the check
    assert "check_made" in events
    check = last(scene, "check_made")
    assert (check["check"], check["dc"], check["success"]) == ("constitution", 10, True)
    v = scene.state.vitals["dog"]
    assert (v.condition, v.prone, v.physical.step) == (("active", "defenseless"), True, 4)
    assert scene.state.current == "dog"  # and it takes that turn (R16)


async def test_a_failed_constitution_check_makes_a_condition_persistent(make: Make) -> None:
    scene = await make([PONY, dog(con=0)], dice_seed=1)  # Con -5: 1d20-5 fails below 15
    await knock_out(scene)
    for _ in range(10):
        await scene.turns_in_round()
    await scene.act("ace", "end_turn")
    check = last(scene, "check_made")
    assert (check["natural"] < 15, check["success"]) == (True, False)  # seed 1 rolls low
    v = scene.state.vitals["dog"]
    assert v.condition == ("unconscious", "out_for_scene")
    assert v.physical.persistent == 1
    assert scene.state.current == "ace"  # no further turns in this scene


async def test_the_scene_ends_with_the_next_check_for_one_that_failed_its_first(
        make: Make) -> None:
    """R16, R50: "If the check fails, you remain unconscious for 1 sceen, after which you can
    attempt another Constitution check": no second check inside the scene, but when the GM
    ends it the server rolls the next one (before, the end of the scene checked only the
    unconscious still awaiting their first check, and the dog's next check never came)."""
    scene = await make([PONY, dog(con=0)], dice_seed=1)
    await knock_out(scene)
    for _ in range(10):
        await scene.turns_in_round()
    await scene.act("ace", "end_turn")
    assert scene.state.vitals["dog"].condition == ("unconscious", "out_for_scene")
    checks = len(scene.events("check_made"))
    assert await scene.turns_in_round() == ["ace"]  # no further check in the scene
    assert len(scene.events("check_made")) == checks
    events = await scene.do("end_encounter")
    assert events[-1] == "encounter_ended"
    (check,) = scene.events("check_made")[checks:]
    assert (check["combatant"], check["check"], check["dc"]) == ("dog", "constitution", 10)
    assert check["success"] is False  # seed 1 rolls low again: it stays unconscious, and
    v = scene.state.vitals["dog"]  # "one condition becomes persistent" once more (R17)
    assert (v.condition, v.physical.persistent) == (("unconscious", "out_for_scene"), 2)
    assert "after the next scene" in scene.last("vitals_changed")["notes"][-1]
    assert await scene.replays()


async def test_a_step_at_the_bottom_set_by_the_gm_is_unconscious_unless_the_gm_says_not(
        make: Make) -> None:
    """R15, R17: step 5 is "unconscious and helpless" (an object's: destroyed). A GM's
    ``adjust_combatant`` that sets it makes the combatant so, as a loss down to it would; a
    ``condition`` the command gives wins (before, a bare ``physical_step: 5`` left it fit)."""
    crate = {"name": "Crate", "id": "crate", "initiative": -50,
             "stats": {"nature": "object", "fatigue_points": 5}}
    scene = await make([PONY, dog(), crate])
    await scene.do("adjust_combatant", combatant="dog", physical_step=5, reason="a rockfall")
    v = scene.state.vitals["dog"]
    assert (v.condition, v.prone, v.helpless) == (("unconscious", "awaiting_check"), True, True)
    assert v.check_round == 11  # R16, as for a fall in ace's turn of round 1
    assert (await scene.refused("dog", "end_turn"))["code"] in ("illegal_action",
                                                                "not_your_turn")
    await scene.do("adjust_combatant", combatant="dog", mental_step=5, condition="conscious",
                   physical_step=0, reason="only dazed")
    v = scene.state.vitals["dog"]
    assert (v.condition[0], v.mental.step if v.mental else None) == ("active", 5)
    await scene.do("adjust_combatant", combatant="crate", physical_step=5, reason="smashed")
    assert scene.state.vitals["crate"].condition == ("destroyed",)
    assert await scene.replays()


async def test_healing_revives_an_unconscious_creature_prone(make: Make) -> None:
    scene = await make([PONY, dog()])
    await knock_out(scene)
    await scene.do("adjudicate", description="a healing potion", target="dog",
                   on_success={"heal": 3})
    v = scene.state.vitals["dog"]
    assert (v.condition, v.fatigue, v.prone, v.physical.step) == (("active", "fit"), 3, True, 4)


@BOTH_TRANSPORTS
async def test_a_fatal_blow_kills_and_nothing_wakes_the_dead(make: Make) -> None:
    scene = await make([PONY, dog()])
    await scene.do("adjust_combatant", combatant="dog", fatigue=0, reason="exhausted")
    # at 0 fp a loss of three times the threshold (10) is a fatal blow (R14.2, R14.3)
    await scene.do("adjudicate", description="a boulder", target="dog",
                   on_success={"fatigue_loss": 30})
    assert scene.state.vitals["dog"].condition == ("dead",)
    refused = await scene.send("adjudicate", id="heal-dead", description="a potion",
                               target="dog", on_success={"heal": 5})
    assert refused["type"] == "error" and refused["code"] == "illegal_action"
    assert await scene.turns_in_round() == ["ace"]  # the dead have no turns
    assert all("dog" not in (a.get("targets") or []) for a in scene.legal)


# --- a readied attack with physical dice (R8) -------------------------------------------------

GM = Actor(role="gm", token_id="gm")
ACE_PLAYER = Actor(role="player", token_id="ace", combatants=frozenset({"ace"}))


async def ready_and_trigger(scene: Scene) -> None:
    """Ace readies an attack (SPECIAL INITIATIVE ACTIONS → Ready), the dog's turn starts and
    its move triggers it: the dog's turn is interrupted (R8.3)."""
    await scene.act("ace", "ready", action="attack", trigger="when the dog moves")
    await scene.act("ace", "end_turn")
    await scene.act("dog", "move")
    assert await scene.act("ace", "trigger_ready") == ["readied_action_triggered"]


@BOTH_TRANSPORTS
async def test_a_readied_attack_interrupts_until_its_dice_are_in_and_resolved(
        make: Make) -> None:
    """R8.3: "the readied action is resolved first; the action that triggered it waits". With
    physical dice (``players_roll``) the interrupt lasts until the attack is resolved: the
    attack die, the damage dice, their results; then the readier moves ahead of the dog
    (R8.4, ``order_changed``), ``interrupt_ended``, and the dog's turn resumes where it was."""
    scene = await make([PONY, dog()])
    await ready_and_trigger(scene)
    assert await scene.act("ace", "attack", target="dog") == ["action_taken", "roll_requested"]
    for faces, events in (((6,), ["dice_rolled", "attack_resolved", "roll_requested"]),
                          ((4,), ["dice_rolled", "damage_dealt", "vitals_changed",
                                  "order_changed", "interrupt_ended"])):
        # waiting for Ace's dice: the turn stays interrupted (the chart's `interrupted`)
        assert "interrupted" in scene.state.chart
        assert scene.state.turn is not None and scene.state.turn.interrupted_by == "ace"
        # legal actions: Ace (and the GM for it) answer the dice; nobody acts for the dog
        for viewer in (GM, ACE_PLAYER):
            offered = {(a.action, a.combatant) for a in legal_actions(scene.state, viewer)
                       if a.combatant is not None}
            if viewer is ACE_PLAYER:  # (and, right after the attack, ask it back: R108)
                offered.discard(("request_undo", "ace"))
            assert offered == {("submit_roll", "ace"), ("server_roll", "ace")}
        refused = await scene.refused("dog", "end_turn")
        assert "waiting for the dice" in refused["message"].lower()
        assert await roll(scene, *faces) == events
    # ATTACK ROLL 6 + Melee 5 = 11 against Reflex 11: a hit; DAMAGE 1d6 4 + Str 2 (R12)
    assert last(scene, "damage_dealt")["loss"] == 6 and scene.state.vitals["dog"].fatigue == 4
    assert "underway" in scene.state.chart and scene.state.current == "dog"  # the history state
    assert scene.state.turn is not None and scene.state.turn.interrupted_by is None
    assert "end_turn" in [a.action for a in legal_actions(scene.state, GM)
                          if a.combatant == "dog"]
    assert scene.state.count_of("ace") == scene.state.count_of("dog")  # R8.4
    await scene.act("dog", "fall_prone")  # the dog's turn goes on
    assert await scene.replays()


async def test_a_readied_attack_that_misses_ends_the_interrupt_with_its_attack_die(
        make: Make) -> None:
    """R8.3: a miss has no damage dice, so the attack die is the action's last."""
    scene = await make([PONY, dog()])
    await ready_and_trigger(scene)
    await scene.act("ace", "attack", target="dog")
    assert await roll(scene, 2) == ["dice_rolled", "attack_resolved", "order_changed",
                                    "interrupt_ended"]
    assert last(scene, "attack_resolved")["outcome"] == "miss"
    assert scene.state.current == "dog" and "underway" in scene.state.chart
    assert await scene.replays()


async def test_removing_the_readier_ends_its_interrupt(make: Make) -> None:
    """A readier the GM takes out of the encounter (``remove_combatant``) while its dice are
    awaited ends its interrupt first (R8.3): its roll request goes, the dog's turn resumes."""
    scene = await make([PONY, dog()])
    await ready_and_trigger(scene)
    await scene.act("ace", "attack", target="dog")
    assert await scene.do("remove_combatant", combatant="ace") == [
        "order_changed", "interrupt_ended", "combatant_removed"]
    assert not scene.state.pending_rolls and "underway" in scene.state.chart
    await scene.act("dog", "end_turn")
    assert await scene.replays()


async def test_a_readied_attack_that_kills_ends_the_interrupt_and_the_turn(make: Make) -> None:
    """Death: the dead leave the order, so the dog's interrupted turn ends with the interrupt,
    and the readier has no count of the dog's to take (R8.4; 0 Fatigue Points: a fatal blow,
    R14.3)."""
    scene = await make([PONY, dog(), {**DOG, "name": "Pup", "id": "pup", "initiative": -50}])
    await scene.do("adjust_combatant", combatant="dog", fatigue=0, physical_step=4,
                   reason="a long fight")  # Fortitude 10 - 10: a threshold of 0
    await ready_and_trigger(scene)
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 10)
    assert (await roll(scene, 1))[:5] == ["dice_rolled", "damage_dealt", "vitals_changed",
                                          "interrupt_ended", "turn_ended"]
    assert scene.state.vitals["dog"].condition == ("dead",) and "dog" not in scene.state.order
    assert scene.state.order == ["ace", "pup"]  # Ace keeps its place: the dog's is gone
    assert await scene.replays()


# --- Second Lunch -----------------------------------------------------------------------------


async def test_second_lunch_at_half_fatigue_once_per_encounter(make: Make) -> None:
    scene = await make([{**PONY, "stats": {**PONY["stats"], "fatigue_points": 20}}, DOG])
    assert (await scene.refused("ace", "second_lunch"))["code"] == "illegal_action"
    await scene.do("adjust_combatant", combatant="ace", fatigue=10, reason="tired")
    await scene.act("ace", "second_lunch")  # a quarter of 20
    assert scene.state.vitals["ace"].fatigue == 15
    await scene.do("adjust_combatant", combatant="ace", fatigue=2, reason="tired again")
    refused = await scene.refused("ace", "second_lunch")
    assert "never more than once in a single encounter" in refused["message"]


# --- what each viewer sees --------------------------------------------------------------------


@NETWORK_ONLY
async def test_players_see_why_they_hit_but_not_behind_the_gm_screen(
        make: Make, server: Server, clients: list[Client]) -> None:
    scene = await make([PONY, dog()])
    invite = await scene.gm.command("issue_invite", combatants=["ace"])
    player = await open_client(ws_url(server), clients)
    await player.hello(invite["result"]["token"])
    await player.wait_for(lambda m: m["type"] == "snapshot")
    snap = [m for m in player.messages if m["type"] == "snapshot"][-1]["state"]
    vitals = {c["id"]: c["vitals"] for c in snap["combatants"]}
    assert vitals["ace"]["fatigue"] == 10 and vitals["dog"]["fatigue"] is None
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 12)
    await roll(scene, 2)
    seen = await player.wait_for(lambda m: m["type"] == "event"
                                 and m["event"]["kind"] == "vitals_changed")
    assert seen["event"]["fatigue"] is None  # the dog's fatigue points stay secret
    attack = [m["event"] for m in player.events() if m["event"]["kind"] == "attack_resolved"][-1]
    assert attack["natural"] == 12 and attack["modifiers"]  # its own roll, itemised
    assert attack["defense_value"] is None  # the dog's Reflex Defense is the GM's
    assert last(scene, "attack_resolved")["defense_value"] == 11
    # the GM's override, with its reason, as the table sees it
    await scene.do("adjust_combatant", combatant="ace", physical_step=2,
                   physical_crippling=0, reason="old wound")
    ruling = await player.wait_for(lambda m: m["type"] == "event"
                                   and m["event"]["kind"] == "gm_ruling")
    assert ruling["event"]["reason"] == "old wound"
    bad = await scene.gm.request({"type": "adjust_combatant", "id": "bad-track",
                                  "combatant": "ace", "physical_persistent": 3,
                                  "reason": "x"})
    assert bad["code"] == "invalid_payload"
