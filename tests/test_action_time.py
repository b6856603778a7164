"""Resolving "Action Time" in the encounter engine: one scenario per action and rule (Major
Actions, Minor Actions, Taking Actions, Stacking Effects; rulings R29-R39, R51, R60-R62),
given / when / then, on the engine's in-process table (``tests/scene.py``; a few scenarios
also through the real websocket protocol against a real Redis, and what players are shown only
there). Every die is physical (``players_roll`` and ``manual_rolls``), so each scenario states
the faces it needs, initiative included.

The cast: Ace and Bloom (players), the Brute (a major NPC) and two Diggers (a group of minor
NPCs). Unless a scenario says otherwise the order is Ace, Bloom, Brute, Diggers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from clients.client import Client, CommandError
from encounter.actors import Actor
from encounter.legal import legal_actions
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import open_client
from tests.scene import BOTH_TRANSPORTS, NETWORK_ONLY, Scene, Tables

Make = Callable[..., Awaitable[Scene]]

ACE = {"name": "Ace", "id": "ace", "kind": "pc",
       "stats": {"body": "d8", "mind": "d10", "health": 12, "defense": 4, "speed": 10,
                 "bandages": "ready",
                 "weapons": [{"name": "Hoof", "damage": "d6"},
                             {"name": "Sling", "damage": "d4", "kind": "ranged", "range": 20}]}}
BLOOM = {"name": "Bloom", "id": "bloom", "kind": "pc",
         "stats": {"body": "d6", "mind": "d8", "health": 10, "defense": 3, "bandages": "ready",
                   "weapons": [{"name": "Hoof", "damage": "d4"}]}}
BRUTE = {"name": "Brute", "id": "brute", "kind": "npc",
         "stats": {"body": "d10", "mind": "d4", "health": 15, "defense": 5,
                   "weapons": [{"name": "Claws", "damage": "d8"}]}}
DIGGER = {"kind": "npc", "group": "diggers",
          "stats": {"body": "d6", "health": 6, "defense": 3,
                    "weapons": [{"name": "Shovel", "damage": "d6"}]}}
DIGGERS = [{**DIGGER, "name": "Digger One", "id": "digger1"},
           {**DIGGER, "name": "Digger Two", "id": "digger2"}]
CAST = [ACE, BLOOM, BRUTE, *DIGGERS]
GM = Actor(role="gm", token_id="gm")
ACE_PLAYER = Actor(role="player", token_id="ace", combatants=frozenset({"ace"}))
#: initiative faces: Ace 8, Bloom 6, Brute 5, the Diggers 2 (as a group, R39)
ORDER = {"ace": 8, "bloom": 6, "brute": 5, "digger1": 2}


def with_stats(block: dict[str, Any], **stats: Any) -> dict[str, Any]:
    return {**block, "stats": {**block["stats"], **stats}}


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]] | None = None,
                     initiative: dict[str, int] | None = None, **options: Any) -> Scene:
        scene = await tables.create(combatants or CAST, ruleset="action_time",
                                    players_roll=True, manual_rolls=True, **options)
        await scene.do("start_encounter")
        faces = initiative or ORDER
        for request, pending in list(scene.state.pending_rolls.items()):
            await scene.do("submit_roll", request=request, faces=[faces[pending.combatant or ""]])
        return scene

    return create


async def roll(scene: Scene, face: int) -> list[str]:
    """Answer the one pending roll with this face."""
    (request,) = scene.state.pending_rolls
    return await scene.do("submit_roll", request=request, faces=[face])


def pending_expr(scene: Scene) -> str:
    (pending,) = scene.state.pending_rolls.values()
    return pending.expr


def last(scene: Scene, kind: str) -> dict[str, Any]:
    return scene.last(kind)


def health(scene: Scene, cid: str) -> int:
    return scene.state.vitals[cid].fatigue


def held(scene: Scene, cid: str) -> list[tuple[str, int]]:
    """The effects ``cid`` holds, as (source, value)."""
    return [(e.source, e.value) for e in scene.state.action_time.effects if e.holder == cid
            and e.source_kind == "action"]


async def end_turns_until(scene: Scene, who: str) -> None:
    """End the current turn, and the next ones, until ``who``'s turn starts."""
    while True:
        current = scene.state.current
        assert current is not None
        await scene.act(current, "end_turn")
        if scene.state.current == who:
            return


# --- the scene ---------------------------------------------------------------------------------


@BOTH_TRANSPORTS
async def test_players_a_major_npc_and_a_group_of_minor_npcs_share_one_order(
        make: Make) -> None:
    # tie at 5 between Bloom and the Brute: players before NPCs (R31)
    scene = await make(initiative={"ace": 8, "bloom": 5, "brute": 5, "digger1": 6})
    assert scene.state.order == ["ace", "digger1", "digger2", "bloom", "brute"]
    # the Diggers rolled once as a group (R39) and take full turns one after the other
    assert await scene.turns_in_round() == ["ace", "digger1", "digger2", "bloom", "brute"]
    # Health lives in the vitals (R29), the full stat block's maximum at the start
    assert {cid: (v.fatigue, v.fatigue_max) for cid, v in scene.state.vitals.items()} == {
        "ace": (12, 12), "bloom": (10, 10), "brute": (15, 15), "digger1": (6, 6),
        "digger2": (6, 6)}
    assert await scene.replays()


@BOTH_TRANSPORTS
async def test_a_stat_block_is_checked_when_the_combatant_is_added(make: Make) -> None:
    scene = await make()
    bad = await scene.send("add_combatant", id="bad", combatant={
        "name": "Odd", "stats": {"body": "d8", "charm": 3}})
    assert bad["code"] == "invalid_payload" and "charm" in bad["message"]  # R60


# --- the turn ----------------------------------------------------------------------------------


async def test_a_turn_is_a_major_and_a_minor_or_two_minors(make: Make) -> None:
    scene = await make()
    await scene.act("ace", "aim")
    await scene.act("ace", "defend")  # minor, then major: any order
    refused = await scene.refused("ace", "stand_firm")
    assert refused["message"].startswith("No action left")
    await scene.act("ace", "end_turn")
    await scene.act("bloom", "defend")
    refused = await scene.refused("bloom", "run")  # never two majors
    assert refused["message"].startswith("A turn has one major action at most")
    await scene.act("bloom", "stand_firm")
    await scene.act("bloom", "end_turn")
    await scene.act("brute", "move", yards=3)
    await scene.act("brute", "move", yards=3)  # two minors (R51: two Moves move twice)
    assert (await scene.refused("brute", "defend"))["code"] == "illegal_action"
    await scene.act("brute", "free", note="growls")  # free actions do not count
    assert await scene.replays()


# --- attacks (R29) -----------------------------------------------------------------------------


async def test_melee_attack_meets_the_defense_and_deals_the_damage_die_in_health(
        make: Make) -> None:
    scene = await make()
    legal = {a["action"]: a.get("targets") for a in scene.legal if a.get("combatant") == "ace"}
    # the enemies first, then the ally (an attack on an ally, a slip of the shovel, is accepted
    # too: listed as act accepts it)
    assert legal["melee_attack"] == ["brute", "digger1", "digger2", "bloom"]
    # nobody is injured: no Heal until there is someone to heal (act refuses it)
    assert "heal" not in legal and "press_the_attack" not in legal and "ready" not in legal
    assert await scene.act("ace", "melee_attack", target="brute") == ["action_taken",
                                                                      "roll_requested"]
    assert pending_expr(scene) == "1d8"  # Ace's Body die
    await roll(scene, 5)  # equal to the Brute's Defense of 5: a hit
    attack = last(scene, "attack_resolved")
    assert (attack["natural"], attack["defense_value"], attack["outcome"], attack["die"]) == (
        5, 5, "hit", "d8")
    assert pending_expr(scene) == "1d6"  # the Hoof's damage die
    assert await roll(scene, 4) == ["dice_rolled", "damage_dealt", "vitals_changed"]
    assert health(scene, "brute") == 11
    assert (await scene.refused("ace", "melee_attack", target="brute",
                                distance=3))["code"] == "illegal_action"  # one major a turn
    await scene.act("ace", "end_turn")
    await scene.act("bloom", "melee_attack", target="brute")
    assert await roll(scene, 4) == ["dice_rolled", "attack_resolved"]  # a miss: no damage
    assert last(scene, "attack_resolved")["outcome"] == "miss"
    assert await scene.replays()


async def test_melee_needs_the_target_within_2_yards(make: Make) -> None:
    scene = await make()
    refused = await scene.refused("ace", "melee_attack", target="brute", distance=3)
    assert "within 2 yards" in refused["message"]
    refused = await scene.refused("ace", "melee_attack", target="ace")
    assert refused["code"] == "illegal_action"


async def test_ranged_attack_needs_a_distance_within_range(make: Make) -> None:
    scene = await make()
    assert (await scene.refused("ace", "ranged_attack", target="brute"))["code"] == \
        "invalid_payload"
    refused = await scene.refused("ace", "ranged_attack", target="brute", distance=25)
    assert "within range (20 yards)" in refused["message"]
    await scene.act("ace", "ranged_attack", target="brute", distance=15)
    assert pending_expr(scene) == "1d8"
    await roll(scene, 8)
    assert last(scene, "attack_resolved")["weapon"] == "Sling"
    await roll(scene, 3)
    assert health(scene, "brute") == 12


async def test_all_out_attack_upgrades_the_damage_and_costs_1_defense_hit_or_miss(
        make: Make) -> None:
    scene = await make()
    await scene.act("ace", "all_out_attack", target="brute")
    await roll(scene, 2)  # a miss
    assert held(scene, "ace") == [("All-Out Attack", -1)]  # all the same
    await end_turns_until(scene, "brute")
    await scene.act("brute", "melee_attack", target="ace")
    await roll(scene, 3)  # Defense 4 - 1 = 3: a hit
    attack = last(scene, "attack_resolved")
    assert attack["defense_value"] == 3 and attack["outcome"] == "hit"
    assert ["All-Out Attack", -1] in [[p["name"], p["value"]] for p in attack["defense_parts"]]
    await roll(scene, 1)
    await end_turns_until(scene, "ace")  # "until your next turn"
    assert held(scene, "ace") == []
    await scene.act("ace", "all_out_attack", target="brute")
    await roll(scene, 7)
    assert pending_expr(scene) == "1d8"  # the Hoof's d6 upgraded
    await roll(scene, 8)
    assert health(scene, "brute") == 7
    assert await scene.replays()


@BOTH_TRANSPORTS
async def test_damage_dealt_adds_up_with_the_upgrades_itemised_apart(make: Make) -> None:
    """All-Out Attack: "If you hit, you get to upgrade the damage"; R30 with the option
    ``"modifier"``: a d20 upgraded counts +1 on its face. The event's ``rolled`` + ``bonuses``
    is the loss; the upgrade is itemised in ``dice_parts``, not added again."""
    big = with_stats(ACE, weapons=[{"name": "Maul", "damage": "d20"}])
    scene = await make([big, BLOOM, BRUTE, *DIGGERS], die_ladder_overflow="modifier")
    await scene.act("ace", "all_out_attack", target="brute")
    await roll(scene, 7)
    assert pending_expr(scene) == "1d20"
    await roll(scene, 5)
    damage = last(scene, "damage_dealt")
    assert (damage["rolled"], damage["loss"]) == (5, 6)
    assert damage["rolled"] + sum(b["value"] for b in damage["bonuses"]) == damage["loss"]
    assert [(b["name"], b["value"]) for b in damage["bonuses"]] == [
        ("beyond the die ladder's end", 1)]
    assert [(p["name"], p["value"]) for p in damage["dice_parts"]] == [
        ("All-Out Attack (upgrade)", 1)]
    assert health(scene, "brute") == 15 - 6


async def test_charge_moves_half_speed_then_attacks_with_an_upgrade(make: Make) -> None:
    scene = await make()
    refused = await scene.refused("ace", "charge", target="brute", yards=6)
    assert "half Speed, 5 yards" in refused["message"]
    assert await scene.act("ace", "charge", target="brute", yards=5) == [
        "action_taken", "at_moved", "roll_requested"]
    assert pending_expr(scene) == "1d10"  # Body d8 upgraded (CHARGE)
    await roll(scene, 9)
    assert ["Charge (upgrade)", 1] in [[m["name"], m["value"]]
                                       for m in last(scene, "attack_resolved")["modifiers"]]
    await roll(scene, 2)
    await scene.act("ace", "end_turn")
    await scene.do("adjust_combatant", combatant="bloom", prone=True, reason="tripped")
    refused = await scene.refused("bloom", "charge", target="brute")
    assert "R62" in refused["message"]  # not while prone


# --- Defend, Guard Up, Aim and stacking (R35, R51, R61) ----------------------------------------


async def test_guard_up_ends_with_the_round_while_defend_lasts_to_the_next_turn(
        make: Make) -> None:
    # the Brute acts first, so it attacks Bloom between the round's end and Bloom's next turn
    scene = await make(initiative={"brute": 9, "bloom": 6, "ace": 5, "digger1": 2})
    await scene.act("brute", "end_turn")
    await scene.act("bloom", "guard_up", amount=1)
    await scene.act("bloom", "defend")
    assert held(scene, "bloom") == [("Guard Up", 1), ("Guard Up", -1), ("Defend", 2)]
    await end_turns_until(scene, "brute")  # the round ends: Guard Up ends
    assert held(scene, "bloom") == [("Defend", 2)]
    ended = last(scene, "at_effect_ended")
    assert (ended["effect"]["source"], ended["reason"]) == ("Guard Up", "round_end")
    await scene.act("brute", "melee_attack", target="bloom")
    await roll(scene, 4)  # Defense 3 + 2 (Defend) = 5: a miss
    assert (last(scene, "attack_resolved")["defense_value"],
            last(scene, "attack_resolved")["outcome"]) == (5, "miss")
    await scene.act("brute", "end_turn")  # Bloom's turn starts: Defend ends
    assert scene.state.current == "bloom" and held(scene, "bloom") == []
    assert last(scene, "at_effect_ended")["reason"] == "turn_start"
    assert await scene.replays()


async def test_guard_up_downgrades_every_test_and_comes_before_any_major_action(
        make: Make) -> None:
    scene = await make()
    await scene.act("ace", "guard_up", amount=2)
    await scene.act("ace", "melee_attack", target="brute")
    assert pending_expr(scene) == "1d4"  # d8 with a double downgrade
    await roll(scene, 4)
    await scene.act("ace", "end_turn")
    await scene.act("bloom", "melee_attack", target="brute")
    await roll(scene, 1)
    refused = await scene.refused("bloom", "guard_up")
    assert "before any major action" in refused["message"]


async def test_aim_upgrades_the_next_attack_even_next_turn_and_other_actions_use_it_up(
        make: Make) -> None:
    scene = await make()
    await scene.act("ace", "aim")
    await scene.act("ace", "aim")  # two Aims give one upgrade (R51)
    assert held(scene, "ace") == [("Aim", 1)]
    await scene.act("ace", "end_turn")
    await end_turns_until(scene, "ace")
    await scene.act("ace", "free", note="shouts")  # free actions do not break Aim (R35)
    await scene.act("ace", "melee_attack", target="brute")
    assert pending_expr(scene) == "1d10"
    await roll(scene, 1)
    assert held(scene, "ace") == []
    await scene.act("ace", "aim")
    await scene.act("ace", "end_turn")
    await end_turns_until(scene, "ace")
    await scene.act("ace", "move", yards=1)  # another action uses Aim up without benefit
    assert held(scene, "ace") == []


async def test_stacking_identical_effects_count_once_and_different_ones_add(
        make: Make) -> None:
    scene = await make()
    # two identical: a second Guard Up replaces the first (R51, R61)
    await scene.act("ace", "guard_up", amount=1)
    await scene.act("ace", "guard_up", amount=2)
    assert held(scene, "ace") == [("Guard Up", 2), ("Guard Up", -2)]
    await scene.act("ace", "end_turn")
    # two different: Aim and Charge give two upgrades (R35, R51)
    await scene.act("bloom", "aim")
    await scene.act("bloom", "charge", target="brute", yards=2)
    assert pending_expr(scene) == "1d10"  # d6 -> d8 -> d10
    await roll(scene, 1)
    await scene.act("bloom", "end_turn")
    # two different on Defense: Guard Up and Defend add (R51: +4 at most)
    await scene.act("brute", "melee_attack", target="ace")
    await roll(scene, 7)
    attack = last(scene, "attack_resolved")
    assert (attack["defense_value"], attack["outcome"]) == (6, "hit")  # 4 + Guard Up 2
    assert await scene.replays()


# --- Heal (R33) and Health (R29) -----------------------------------------------------------------


async def test_heal_rolls_mind_against_4_and_heals_the_face_once_until_new_damage(
        make: Make) -> None:
    scene = await make()
    await scene.act("ace", "end_turn")
    assert (await scene.refused("bloom", "heal", target="ace"))["message"] == \
        "Heal: ace is not injured."
    await scene.do("adjust_combatant", combatant="ace", fatigue=3, reason="an old wound")
    # the override says what Action Time calls the value (R29), as the pages do
    assert scene.last("gm_ruling")["description"] == "GM sets Health of Ace"
    assert (await scene.refused("bloom", "heal", target="bloom"))["code"] == "illegal_action"
    assert (await scene.refused("bloom", "heal", target="ace", distance=3))[
        "code"] == "illegal_action"
    heal = next(a for a in scene.legal if a["action"] == "heal")
    assert heal["targets"] == ["ace"]
    await scene.act("bloom", "heal", target="ace")
    assert pending_expr(scene) == "1d8"  # Bloom's Mind die
    await roll(scene, 6)
    check = last(scene, "check_made")
    assert (check["check"], check["total"], check["dc"], check["success"]) == ("heal", 6, 4,
                                                                               True)
    assert health(scene, "ace") == 9
    await end_turns_until(scene, "bloom")
    refused = await scene.refused("bloom", "heal", target="ace")
    assert "until it takes damage again" in refused["message"]
    await end_turns_until(scene, "brute")
    await scene.act("brute", "melee_attack", target="ace")
    await roll(scene, 9)
    await roll(scene, 1)  # any damage clears the mark
    await end_turns_until(scene, "bloom")
    await scene.act("bloom", "heal", target="ace")
    await roll(scene, 3)  # a failed test heals nothing
    assert health(scene, "ace") == 8 and last(scene, "check_made")["success"] is False
    assert await scene.replays()


async def test_heal_options_let_a_pony_heal_itself_with_a_second_roll(make: Make) -> None:
    scene = await make(heal_self=True, heal_rolls_again=True)  # R33's options
    await scene.do("adjust_combatant", combatant="ace", fatigue=2, reason="bruised")
    await scene.act("ace", "heal", target="ace")
    await roll(scene, 4)  # the test: Mind d10 against 4
    assert last(scene, "check_made")["success"] is True and health(scene, "ace") == 2
    assert pending_expr(scene) == "1d10"  # the amount, rolled again
    await roll(scene, 7)
    assert health(scene, "ace") == 9
    assert await scene.replays()


async def test_at_0_health_a_combatant_is_out_of_the_fight_and_its_turns_pass(
        make: Make) -> None:
    scene = await make(initiative={"ace": 8, "bloom": 4, "brute": 4, "digger1": 6})
    await scene.act("ace", "melee_attack", target="digger1")
    await roll(scene, 3)
    await roll(scene, 6)  # 6 Health: down to 0
    assert health(scene, "digger1") == 0
    assert scene.state.vitals["digger1"].condition == ("active", "defenseless")
    await scene.act("ace", "end_turn")  # the Digger's turn passes by itself (R29, R39)
    assert scene.state.current == "digger2"
    attack = next(a for a in scene.legal if a["action"] == "melee_attack")
    assert "digger1" not in attack["targets"]
    await scene.do("adjust_combatant", combatant="digger1", fatigue=2, reason="gets up")
    assert scene.state.vitals["digger1"].condition == ("active", "fit")
    assert await scene.replays()


# --- movement (R34) ------------------------------------------------------------------------------


async def test_move_and_run_measure_speed_and_prone_halves_a_move(make: Make) -> None:
    scene = await make()
    await scene.do("adjust_combatant", combatant="ace", prone=True, reason="knocked down")
    assert "half Speed" in (await scene.refused("ace", "move", yards=6))["message"]
    assert "prone" in (await scene.refused("ace", "run", yards=1))["message"]
    await scene.act("ace", "move", yards=5, posture="stand")  # standing up: half Speed
    assert scene.state.vitals["ace"].prone is False
    await scene.act("ace", "move", yards=10)  # then full Speed
    await scene.act("ace", "end_turn")
    assert "20 yards" in (await scene.refused("bloom", "run", yards=21))["message"]
    await scene.act("bloom", "run", yards=20)
    moved = last(scene, "at_moved")
    assert (moved["yards"], moved["max_yards"], moved["reason"]) == (20, 20, "double Speed")


# --- Ready (R60) -------------------------------------------------------------------------------


async def test_ready_draws_a_stowed_item_before_it_is_used(make: Make) -> None:
    scene = await make([with_stats(ACE, bandages="stowed"), BLOOM, BRUTE],
                       initiative={"ace": 8, "bloom": 6, "brute": 5})
    await scene.do("adjust_combatant", combatant="bloom", fatigue=2, reason="hurt")
    assert "bandages ready" in (await scene.refused("ace", "heal", target="bloom"))["message"]
    assert await scene.act("ace", "ready_item", draw="bandages", stow="Sling") == [
        "action_taken", "items_readied"]
    assert last(scene, "items_readied")["in_hoof"] == ["Hoof", "bandages"]
    await scene.act("ace", "heal", target="bloom")
    await roll(scene, 10)
    assert health(scene, "bloom") == 10  # up to the maximum
    await end_turns_until(scene, "ace")
    refused = await scene.refused("ace", "ranged_attack", target="brute", distance=5)
    assert "stowed" in refused["message"]
    assert await scene.replays()


# --- Prepare (R36) -----------------------------------------------------------------------------


async def test_a_prepared_action_interrupts_another_turn_without_moving_the_order(
        make: Make) -> None:
    scene = await make()
    await scene.act("ace", "aim")
    assert await scene.act("ace", "prepare", action="melee_attack") == [
        "action_taken", "at_effect_ended", "action_readied", "turn_ended", "turn_started"]
    assert scene.state.current == "bloom"  # Prepare ends the turn
    await scene.act("bloom", "end_turn")
    await scene.act("brute", "move", yards=2)
    await scene.act("ace", "trigger_ready")
    assert (await scene.refused("brute", "move"))["code"] == "illegal_action"
    assert await scene.act("ace", "melee_attack", target="brute") == [
        "action_taken", "roll_requested"]
    assert pending_expr(scene) == "1d8"  # Aim was used up by Prepare (R35)
    assert await roll(scene, 6) == [  # 6 against Defense 5: a hit (R29)
        "dice_rolled", "attack_resolved", "at_effect_started", "roll_requested"]
    assert await roll(scene, 5) == [
        "dice_rolled", "damage_dealt", "vitals_changed", "interrupt_ended"]
    assert health(scene, "brute") == 10
    assert scene.state.order == ["ace", "bloom", "brute", "digger1", "digger2"]
    await scene.act("brute", "end_turn")  # the Brute's turn goes on
    assert await scene.replays()


@BOTH_TRANSPORTS
async def test_a_prepared_action_waiting_for_its_dice_keeps_the_turn_interrupted(
        make: Make) -> None:
    """Prepare: "you can interrupt another pony and take your prepared action immediately"
    (R36: the interrupted action waits, as in R8). With physical dice the interrupt lasts until
    the prepared attack is resolved: its attack die, then its damage die; only then
    ``interrupt_ended``, and the Brute's turn goes on where it was."""
    scene = await make()
    await scene.act("ace", "prepare", action="melee_attack")
    await scene.act("bloom", "end_turn")
    await scene.act("brute", "move", yards=2)  # the Brute's turn is under way
    await scene.act("ace", "trigger_ready")
    assert await scene.act("ace", "melee_attack", target="brute") == [
        "action_taken", "roll_requested"]
    for face, events in ((6, ["dice_rolled", "attack_resolved", "at_effect_started",
                              "roll_requested"]),
                         (5, ["dice_rolled", "damage_dealt", "vitals_changed",
                              "interrupt_ended"])):
        # waiting for Ace's die: still interrupted; Ace answers it, the Brute cannot act
        assert "interrupted" in scene.state.chart
        assert scene.state.turn is not None and scene.state.turn.interrupted_by == "ace"
        for viewer in (GM, ACE_PLAYER):
            assert {(a.action, a.combatant) for a in legal_actions(scene.state, viewer)} <= {
                ("end_encounter", None), ("submit_roll", "ace"), ("server_roll", "ace"),
                ("adjust_combatant", None), ("add_effect", None),  # the GM's tools stay
                ("request_undo", "ace")}  # (R108: the player may ask its attack back)
            assert ("submit_roll", "ace") in [(a.action, a.combatant)
                                              for a in legal_actions(scene.state, viewer)]
        refused = await scene.refused("brute", "end_turn")
        assert "Waiting for the dice" in refused["message"]
        assert await roll(scene, face) == events
    assert health(scene, "brute") == 10  # 15 - 5 (R29)
    assert "underway" in scene.state.chart and scene.state.current == "brute"
    assert "end_turn" in [a.action for a in legal_actions(scene.state, GM)
                          if a.combatant == "brute"]
    await scene.act("brute", "move", yards=2)  # the Brute's second minor action
    assert scene.state.order == ["ace", "bloom", "brute", "digger1", "digger2"]  # R36
    assert await scene.replays()


async def test_a_prepared_action_unused_by_the_next_turn_is_lost(make: Make) -> None:
    scene = await make()
    await scene.act("ace", "melee_attack", target="brute")
    await roll(scene, 1)
    refused = await scene.refused("ace", "prepare", action="defend")
    assert "R36" in refused["message"]  # not after a major action
    await scene.act("ace", "end_turn")
    await scene.act("bloom", "prepare", action="defend")
    assert "bloom" in scene.state.readied
    events = []
    while scene.state.current != "bloom":
        current = scene.state.current
        assert current is not None
        events += await scene.act(current, "end_turn")
    assert "readied_action_lost" in events and "bloom" not in scene.state.readied
    assert await scene.replays()


# --- Press the Attack (R37) --------------------------------------------------------------------


async def test_press_the_attack_pursues_an_enemy_that_retreats(make: Make) -> None:
    scene = await make()
    refused = await scene.refused("ace", "press_the_attack", target="brute")
    assert "struck in melee" in refused["message"]
    await scene.act("ace", "melee_attack", target="brute")
    await roll(scene, 6)
    await roll(scene, 1)
    press = next(a for a in scene.legal if a["action"] == "press_the_attack")
    assert press["targets"] == ["brute"]
    await scene.act("ace", "press_the_attack", target="brute")
    await end_turns_until(scene, "brute")
    events = await scene.act("brute", "move", yards=8, away_from=["ace"])
    assert events[-3:] == ["at_effect_ended", "action_readied", "readied_action_triggered"]
    assert (await scene.refused("brute", "move", yards=1))["code"] == "illegal_action"
    assert "pursue" in [a["action"] for a in scene.legal if a.get("combatant") == "ace"]
    assert (await scene.refused("ace", "pursue", yards=11))["code"] == "illegal_action"
    assert await scene.act("ace", "pursue", yards=10) == [
        "action_taken", "at_moved", "interrupt_ended"]
    await scene.act("brute", "move", yards=8, away_from=["ace"])  # once only
    assert scene.state.turn is not None and scene.state.turn.interrupted_by is None
    assert (await scene.refused("ace", "pursue", yards=1))["code"] == "illegal_action"
    assert await scene.replays()


async def test_a_pursuit_is_declined_with_zero_yards(make: Make) -> None:
    """Press the Attack: the presser "may" pursue (R37); ``pursue`` with ``yards: 0`` (as
    docs/actions.md says) declines, and the enemy's turn goes on."""
    scene = await make()
    await scene.act("ace", "melee_attack", target="brute")
    await roll(scene, 6)
    await roll(scene, 1)
    await scene.act("ace", "press_the_attack", target="brute")
    await end_turns_until(scene, "brute")
    await scene.act("brute", "move", yards=8, away_from=["ace"])
    events = await scene.act("ace", "pursue", yards=0)
    assert events[0] == "action_taken" and events[-1] == "interrupt_ended"
    assert scene.state.current == "brute" and scene.state.turn is not None
    assert scene.state.turn.interrupted_by is None
    assert await scene.replays()


async def test_a_pursuit_waits_for_the_prepared_charge_to_be_resolved(make: Make) -> None:
    """Press the Attack: "if that enemy moves away from you, you may immediately move up to
    your Speed in yards in direct pursuit" (R37); Prepare (R36). A prepared Charge that moves
    Ace away from the Brute readies the Brute's pursuit, but the Charge's interrupt lasts until
    its dice are in (R8.3): the pursuit interrupts once ``interrupt_ended`` is sent."""
    scene = await make()
    await scene.act("ace", "prepare", action="charge")
    await scene.act("bloom", "end_turn")
    await scene.act("brute", "melee_attack", target="ace")
    await roll(scene, 6)  # 6 against Ace's Defense 4: struck in melee (R29, R37)
    await roll(scene, 1)
    await scene.act("brute", "press_the_attack", target="ace")
    await scene.act("brute", "end_turn")
    assert scene.state.current == "digger1"
    await scene.act("ace", "trigger_ready")
    events = await scene.act("ace", "charge", target="digger1", yards=5, away_from=["brute"])
    # the pursuit is readied (Press the Attack used up), but no second interrupt yet
    assert events == ["action_taken", "at_moved", "roll_requested", "at_effect_ended",
                      "action_readied"]
    assert scene.state.turn is not None and scene.state.turn.interrupted_by == "ace"
    assert await roll(scene, 1) == [  # the Charge misses: its last die
        "dice_rolled", "attack_resolved", "interrupt_ended", "readied_action_triggered"]
    assert scene.state.turn is not None and scene.state.turn.interrupted_by == "brute"
    assert await scene.act("brute", "pursue", yards=5) == [
        "action_taken", "at_moved", "interrupt_ended"]
    assert scene.state.current == "digger1" and "brute" not in scene.state.readied
    assert await scene.replays()


# --- Stand Firm (R38, R39) ---------------------------------------------------------------------


async def test_stand_firm_makes_stunts_win_an_opposed_body_test(make: Make) -> None:
    scene = await make(initiative={"brute": 9, "ace": 8, "bloom": 6, "digger1": 2})
    await scene.act("brute", "stand_firm")
    await scene.act("brute", "end_turn")
    assert await scene.act("ace", "stunt", stunt="knock_prone", target="brute") == [
        "action_taken", "roll_requested"]
    assert pending_expr(scene) == "1d8"  # Ace's Body die
    await roll(scene, 7)
    assert pending_expr(scene) == "1d10"  # the Brute's
    await roll(scene, 7)  # a tie: the larger die wins (R38)
    check = last(scene, "check_made")
    assert (check["check"], check["success"]) == ("stand_firm", False)
    assert "larger die" in check["section"]
    assert scene.state.vitals["brute"].prone is False
    await scene.act("ace", "stunt", stunt="knock_prone", target="brute")
    await roll(scene, 8)
    await roll(scene, 3)
    assert scene.state.vitals["brute"].prone is True
    # without Stand Firm a stunt simply works
    assert await scene.act("ace", "stunt", stunt="skirmish", target="bloom", yards=4) == [
        "action_taken", "at_moved"]
    assert await scene.replays()


# --- cast and reload as data (R60) -------------------------------------------------------------


async def test_cast_and_reload_cost_what_the_stat_block_says(make: Make) -> None:
    mage = with_stats(ACE, spells=[{"name": "Glow", "cast": "minor"},
                                   {"name": "Frost Weapons"}],
                      weapons=[{"name": "Crossbow", "damage": "d8", "kind": "ranged",
                                "range": 30, "reload": "major"}])
    scene = await make([mage, BLOOM, BRUTE], initiative={"ace": 8, "bloom": 6, "brute": 5})
    actions = {a["action"] for a in scene.legal if a.get("combatant") == "ace"}
    assert {"cast_minor", "cast_major", "reload_major"} <= actions
    assert "cast_free" not in actions
    assert "minor action" in (await scene.refused("ace", "cast_major", spell="Glow"))["message"]
    await scene.act("ace", "cast_minor", spell="Glow")
    await scene.act("ace", "reload_major", weapon="Crossbow")
    assert (await scene.refused("ace", "cast_minor", spell="Glow"))["code"] == "illegal_action"


# --- what each viewer sees ---------------------------------------------------------------------


@NETWORK_ONLY
async def test_players_see_the_stances_but_not_an_npcs_health(
        make: Make, server: Server, clients: list[Client]) -> None:
    scene = await make()
    invite = await scene.gm.command("issue_invite", combatants=["ace"])
    player = await open_client(ws_url(server), clients)
    await player.hello(invite["result"]["token"])
    await player.wait_for(lambda m: m["type"] == "snapshot")
    await scene.act("ace", "defend")
    await scene.act("ace", "end_turn")
    await scene.act("bloom", "end_turn")
    await scene.act("brute", "melee_attack", target="ace")
    await roll(scene, 9)
    await roll(scene, 2)
    await player.wait_for(lambda m: m["type"] == "event"
                          and m["event"]["kind"] == "vitals_changed")
    attack = [m["event"] for m in player.events() if m["event"]["kind"] == "attack_resolved"][-1]
    assert attack["natural"] is None  # the GM's die behind the screen
    assert attack["defense_value"] == 6  # Ace's own Defense, Defend itemised
    await scene.act("brute", "end_turn")
    await scene.act("digger1", "melee_attack", target="brute")  # a slip of the shovel
    await roll(scene, 6)
    await roll(scene, 1)
    seen = await player.wait_for(lambda m: m["type"] == "event"
                                 and m["event"]["kind"] == "vitals_changed"
                                 and m["event"]["combatant"] == "brute")
    assert seen["event"]["fatigue"] is None  # the Brute's Health stays secret
    player2 = await open_client(ws_url(server), clients)
    await player2.hello(invite["result"]["token"])
    snap = (await player2.wait_for(lambda m: m["type"] == "snapshot"))["state"]
    assert snap["action_time"]["in_hoof"] == {"ace": ["Hoof", "Sling", "bandages"]}
    vitals = {c["id"]: c["vitals"] for c in snap["combatants"]}
    assert vitals["ace"]["fatigue"] == 10 and vitals["brute"]["fatigue"] is None


# --- newcomers and delay ----------------------------------------------------------------------


async def test_a_newcomer_rolls_at_the_start_of_the_next_round(make: Make) -> None:
    scene = await make()
    # R32: added mid-round, the newcomer waits for the next round's start
    await scene.do("add_combatant", combatant={**BRUTE, "name": "Boss", "id": "boss"})
    assert "boss" not in scene.state.order and not scene.state.pending_rolls
    rest = await scene.turns_in_round()
    assert "boss" not in rest
    assert scene.state.round == 2
    # the round began with the newcomer's initiative (a Body test, the GM's physical die)
    (pending,) = scene.state.pending_rolls.values()
    assert (pending.combatant, pending.purpose, pending.expr) == ("boss", "join", "1d10")
    await roll(scene, 7)
    assert scene.state.order.index("boss") == 1  # after Ace's 8, before Bloom's 6
    assert await scene.replays()


async def test_a_newcomer_with_physical_dice_acts_at_its_place_in_the_next_round(
        make: Make) -> None:
    """R32, R80: "they roll initiative at the start of the round they appear": the round waits
    for the newcomer's die before its first turn, then the newcomer acts at its place in that
    round (before, round 2's first turn started with the request, and a newcomer placed first
    had its first turn in round 3)."""
    scene = await make()
    await scene.do("add_combatant", combatant={**BRUTE, "name": "Boss", "id": "boss"})
    await scene.turns_in_round()
    assert scene.state.round == 2
    (pending,) = scene.state.pending_rolls.values()
    assert (pending.combatant, pending.purpose) == ("boss", "join")
    # the round waits: nobody's turn has started, and nobody may act
    assert scene.state.current is None and scene.last("round_started")["round"] == 2
    assert scene.events("turn_started")[-1]["round"] == 1
    refused = await scene.send("act", combatant="ace", action="end_turn")
    assert refused["type"] == "error"
    assert await roll(scene, 10) == ["dice_rolled", "combatant_joined", "turn_started"]
    assert scene.state.order[0] == "boss" and scene.state.current == "boss"
    assert await scene.turns_in_round() == ["boss", "ace", "bloom", "brute", "digger1",
                                            "digger2"]
    # a newcomer removed while the round waits for its die: the round goes on without it
    await scene.do("add_combatant", combatant={**BRUTE, "name": "Late", "id": "late"})
    await scene.turns_in_round()
    assert scene.state.current is None and "late" in {
        p.combatant for p in scene.state.pending_rolls.values()}
    events = await scene.do("remove_combatant", combatant="late")
    assert events[-1] == "turn_started" and scene.state.current == "boss"
    assert not scene.state.pending_rolls
    assert await scene.replays()


async def test_a_hidden_newcomer_behind_the_screen_holds_no_round_up(make: Make) -> None:
    """R32, R99.2: with anonymous hidden turns a hidden newcomer acts inside the screen's turn
    wherever its roll places it, so the round does not wait for its die (a wait the table
    would see only when someone hidden joins): the first turn starts, and the newcomer, its
    roll in, acts behind the screen."""
    scene = await make(anonymous_hidden_turns=True, screen_count=0)
    await scene.do("add_combatant", combatant={**BRUTE, "name": "Boss", "id": "boss",
                                               "hidden": True})
    await scene.turns_in_round()
    assert scene.state.round == 2 and scene.state.current == "ace"
    (pending,) = scene.state.pending_rolls.values()
    assert (pending.combatant, pending.purpose) == ("boss", "join")
    await roll(scene, 10)
    assert scene.state.screened == ["boss"]
    assert await scene.turns_in_round() == ["ace", "bloom", "brute", "digger1", "digger2",
                                            "boss"]
    assert await scene.replays()


async def test_action_time_has_no_delay(make: Make) -> None:
    scene = await make()
    assert "delay" not in [a["action"] for a in scene.legal]
    refused = await scene.refused("ace", "delay")
    assert refused["code"] == "illegal_action" and "no delay" in refused["message"]


@pytest.mark.parametrize("leaving", ["brute", "ace"])
@BOTH_TRANSPORTS
async def test_removing_either_side_of_an_interrupt_ends_it_first(
        make: Make, leaving: str) -> None:
    """Prepare (R36, as Ready R8.3): the GM removes the combatant whose turn a prepared
    action interrupts, or the one who interrupts. The interrupt ends first (``interrupt_ended``),
    then the removal; the scene goes on, and the GM can still end it."""
    scene = await make()
    await scene.act("ace", "prepare", action="melee_attack")
    await scene.act("bloom", "end_turn")
    await scene.act("ace", "trigger_ready")
    events = await scene.do("remove_combatant", combatant=leaving)
    assert events[0] == "interrupt_ended" and "combatant_removed" in events
    assert "interrupted" not in scene.state.chart
    assert scene.state.current == ("digger1" if leaving == "brute" else "brute")
    assert (await scene.do("end_encounter"))[-1] == "encounter_ended"
    assert await scene.replays()



async def test_action_time_has_no_surprise_round_with_an_unaware_npc(tables: Tables) -> None:
    """Action Time's initiative: "Each player makes an initiative roll" and the order runs from
    the first round; it has no surprise round (its declaration says so: ``surprise_round``
    false). An unaware NPC rolls and acts in round 1 like everyone, and nobody is flat-footed
    ("MLP Dramatic Systems"' R1-R2 are not Action Time's)."""
    cast = [ACE, BLOOM, {**BRUTE, "aware": False}]
    scene = await tables.create(cast, ruleset="action_time", dice_seed=4)
    events = await scene.do("start_encounter")
    assert "flat_footed" not in events
    assert scene.state.round == 1 and not scene.state.surprise and not scene.state.flat_footed
    assert set(scene.state.order) == {"ace", "bloom", "brute"}
    assert scene.last("scene_started")["surprise"] is False


async def test_another_rulesets_gm_commands_and_rest_are_refused(make: Make) -> None:
    """The GM commands that belong to "MLP Dramatic Systems" (a fall, a collision, a
    Perception check, the social event...) are not Action Time's: refused, naming the ruleset;
    Action Time has no rule for resting after the scene, so ``rest`` is refused too."""
    scene = await make()
    for command, fields in (("fall", {"combatant": "ace", "meters": 6}),
                            ("set_attitude", {"holder": "brute", "toward": "ace",
                                              "attitude": "hostile"}),
                            ("call_perception", {})):
        with pytest.raises(CommandError) as refused:
            await scene.command(command, **fields)
        assert refused.value.code == "illegal_action"
        assert refused.value.reply["message"] == f"{command} is not a command of Action Time"
    with pytest.raises(CommandError) as refused:
        await scene.command("end_encounter", rest=True)
    assert refused.value.code == "invalid_payload" and "rest" in refused.value.reply["message"]
    assert (await scene.do("end_encounter"))[-1] == "encounter_ended"


async def test_an_ability_die_written_as_its_sides_rolls_initiative(tables: Tables) -> None:
    """The stat sheet takes an ability die as ``"d8"``, ``"1d8"`` or ``8`` (its sides); the
    initiative roll ("a Body test") and its tie-break read the Body die the same way. A Body of
    ``12`` used to pass the sheet and then fail the encounter's start with an internal error."""
    cast = [with_stats(ACE, body=12), with_stats(BLOOM, body="1D6"), BRUTE]
    scene = await tables.create(cast, ruleset="action_time", players_roll=True,
                                manual_rolls=True)
    await scene.do("start_encounter")
    exprs = {p.combatant: p.expr for p in scene.state.pending_rolls.values()}
    assert exprs == {"ace": "1d12", "bloom": "1d6", "brute": "1d10"}
    added = await scene.do("add_combatant", combatant={**DIGGER, "name": "Digger Three",
                                                        "id": "digger3", "group": None,
                                                        "stats": {**DIGGER["stats"],
                                                                  "body": 4}})
    assert "combatant_added" in added


async def test_the_override_sets_only_what_action_time_combatants_have(make: Make) -> None:
    """Action Time's combatants have Health (in the vitals' ``fatigue`` fields), whether they
    are prone, and consciousness; no condition tracks and no helplessness of the GM's. The
    GM's override refuses the others, naming what it may set, and changes nothing."""
    scene = await make()
    before = scene.state.version
    for field, value in (("physical_step", 2), ("mental_persistent", 1), ("helpless", True)):
        with pytest.raises(CommandError) as refused:
            await scene.command("adjust_combatant", combatant="ace", reason="a ruling",
                                **{field: value})
        assert refused.value.code == "invalid_payload"
        details = refused.value.reply["details"]
        assert details == {"field": field,
                           "allowed": ["fatigue", "fatigue_max", "prone", "condition"]}
        assert f"{field} is not a value of a combatant in Action Time" in \
            refused.value.reply["message"]
    assert scene.state.version == before
    await scene.do("adjust_combatant", combatant="ace", fatigue=5, prone=True, reason="a fall")
    assert (scene.state.vitals["ace"].fatigue, scene.state.vitals["ace"].prone) == (5, True)
