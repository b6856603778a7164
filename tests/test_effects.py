"""Effects that change numbers, stacking, feats and talents as data (rulings R90-R95), one
scenario per rule, given / when / then, on the engine's in-process table (``tests/scene.py``;
some also through the real protocol against a real Redis). Player characters roll physical
dice (``players_roll``; in "Action Time" every die, ``manual_rolls``), so each scenario states
the faces it needs.

"MLP Dramatic Systems": DEFENSES, ATTACK ROLL, DAMAGE, DAMAGE REDUCTION, SPEED, COVER,
CONCEALMENT, THE COMBAT ROUND, Quick Draw, Precise Shot. "Action Time": Stacking Effects (both
of its examples), Taking Actions (cast).
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from clients.cli import Terminal
from clients.live import Seat
from encounter.actors import Actor
from encounter.views import view_state
from encounter.words import summarize
from protocol import events as ev
from rules.rulesets import DramaticSystems, RulesetError
from rules.sheet import parse_sheet
from rules.social.status import related_status
from tests.scene import BOTH_TRANSPORTS, Scene, Tables
from tests.test_action_time import ACE, BLOOM, BRUTE, with_stats
from tests.test_battle_scenes import OPEN, dog, pony
from tests.test_resolution import DOG, PONY, last, roll

Make = Callable[..., Awaitable[Scene]]


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], battle_map: dict[str, Any] | None = None,
                     **options: Any) -> Scene:
        return await tables.started(combatants, battle_map, **options)

    return create


def parts(event: dict[str, Any], key: str = "modifiers") -> dict[str, int]:
    return {m["name"]: m["value"] for m in event[key]}


async def end_round(scene: Scene) -> None:
    await scene.turns_in_round()


# --- "MLP Dramatic Systems": what an effect changes ------------------------------------------


@BOTH_TRANSPORTS
async def test_an_effect_on_reflex_defense_counts_in_the_attack_and_names_itself(
        make: Make) -> None:
    """THE COMBAT ROUND, DEFENSES, R90: "+2 Reflex Defense for 3 rounds" changes the defense
    attacks read, itemised with the effect's name, and ends after its rounds."""
    scene = await make([PONY, DOG])
    await scene.do("add_effect", name="Shield of Leaves", rounds=3, combatant="dog",
                   modifiers=[{"target": "reflex_defense", "amount": 2}])
    started = last(scene, "effect_started")
    assert started["modifiers"] == [{"target": "reflex_defense", "amount": 2}]
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 7)  # 7 + 5 = 12 against 10 + Dex 1 + 2 = 13: a miss
    attack = last(scene, "attack_resolved")
    assert (attack["defense_value"], attack["outcome"]) == (13, "miss")
    assert ["Shield of Leaves", 2, "add_effect (R90)"] in [
        [m["name"], m["value"], m["section"]] for m in attack["defense_parts"]]
    for _ in range(3):
        await end_round(scene)
    assert scene.state.effects == {}
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 7)
    assert last(scene, "attack_resolved")["defense_value"] == 11
    assert await scene.replays()


async def test_add_effect_refuses_an_unknown_target_and_a_duration_without_its_rounds(
        make: Make) -> None:
    """R90: the targets are the ruleset's (docs/actions.md), or gm:<name>."""
    scene = await make([PONY, DOG])
    bad = await scene.send("add_effect", name="Odd", rounds=1, combatant="dog",
                           modifiers=[{"target": "luck", "amount": 1}])
    assert bad["code"] == "invalid_payload" and "reflex_defense" in bad["message"]
    bad = await scene.send("add_effect", name="Odd", combatant="dog",
                           modifiers=[{"target": "attack", "amount": 1}])
    assert bad["code"] == "invalid_payload" and "rounds" in bad["message"]
    bad = await scene.send("add_effect", name="Odd", rounds=1, combatant="dog",
                           modifiers=[{"target": "extra_damage_die", "amount": "d6"}])
    assert bad["code"] == "invalid_payload"  # an Action Time target
    await scene.do("add_effect", name="Luck", until="scene", combatant="dog",
                   modifiers=[{"target": "gm:luck", "amount": 1}])
    assert [m.target for m in next(iter(scene.state.effects.values())).modifiers] == ["gm:luck"]


async def test_durations_end_at_the_next_turn_the_end_of_the_round_or_when_ended(
        make: Make) -> None:
    """R90: until the start of the holder's next turn (Defend's "until the beginning of your
    next turn"), until the end of the round (Guard Up's), the scene, until ended."""
    scene = await make([PONY, DOG])
    for until in ("start_of_next_turn", "end_of_round", "scene", "ended"):
        await scene.do("add_effect", name=until, until=until, combatant="dog",
                       modifiers=[{"target": "defenses", "amount": 1}])
    names = {e.name for e in scene.state.effects.values()}
    assert names == {"start_of_next_turn", "end_of_round", "scene", "ended"}
    await scene.act("ace", "end_turn")  # the dog's turn starts
    assert {e.name for e in scene.state.effects.values()} == {"end_of_round", "scene", "ended"}
    await scene.act("dog", "end_turn")  # the round ends
    assert {e.name for e in scene.state.effects.values()} == {"scene", "ended"}
    ended = next(e for e in scene.state.effects.values() if e.name == "ended")
    await scene.do("end_effect", effect=ended.effect)
    assert {e.name for e in scene.state.effects.values()} == {"scene"}
    assert await scene.replays()


async def test_effects_on_attack_and_damage_are_itemised_in_both_results(make: Make) -> None:
    """ATTACK ROLL, DAMAGE, R90: "-2 on attacks until the end of the round" and "+3 damage"."""
    scene = await make([PONY, DOG])
    await scene.do("add_effect", name="Dazzled", until="end_of_round", combatant="ace",
                   modifiers=[{"target": "attack", "amount": -2}])
    await scene.do("add_effect", name="Rage", rounds=2, combatant="ace",
                   modifiers=[{"target": "damage", "amount": 3}])
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 8)  # 8 + 5 - 2 = 11 against 11: a hit
    attack = last(scene, "attack_resolved")
    assert (attack["total"], parts(attack)["Dazzled"]) == (11, -2)
    await roll(scene, 4)  # 1d6 4 + Str 2 + Rage 3
    damage = last(scene, "damage_dealt")
    assert (damage["loss"], parts(damage, "bonuses")["Rage"]) == (9, 3)


async def test_effects_change_speed_damage_reduction_and_the_damage_threshold(
        make: Make) -> None:
    """SPEED, DAMAGE REDUCTION, Damage Threshold, R90."""
    scene = await make([pony("ace", [0, 0], speed=2, str=14),
                        dog([7, 3], fatigue_points=30, con=10)], OPEN)
    await scene.do("add_effect", name="Haste", rounds=1, combatant="ace",
                   modifiers=[{"target": "speed", "amount": 2}])
    await scene.act("ace", "move", path=[[1, 0], [2, 0], [3, 0], [4, 0]])  # 4 squares
    assert last(scene, "combatant_moved")["budget"] == 4
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    await scene.do("place_combatant", combatant="dog", at=[5, 0])
    await scene.do("add_effect", name="Stone Skin", until="scene", combatant="dog",
                   modifiers=[{"target": "damage_reduction", "amount": 3},
                              {"target": "physical_threshold", "amount": 20}])
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 15)
    await roll(scene, 6)  # 1d6 6 + Str 2 = 8, less DR 3
    damage = last(scene, "damage_dealt")
    assert (damage["before_reduction"], damage["loss"]) == (8, 5)
    # a threshold of 10 + 20 is not reached by 5: no step down the track
    assert scene.state.vitals["dog"].physical.step == 0


# --- "MLP Dramatic Systems": stacking (R92) ---------------------------------------------------


async def test_one_cover_bonus_one_concealment_penalty_and_conditions_add_up(
        make: Make) -> None:
    """COVER: "+2 cover bonus [...] no matter how many creatures and terrain features";
    CONCEALMENT: "Multiple sources of concealment [...] do not apply additional penalties";
    conditions are cumulative; the same source twice counts once (R92)."""
    scene = await make([PONY, DOG])
    for name in ("crate", "wagon"):
        await scene.do("add_effect", name=name, until="scene", combatant="dog",
                       source_kind="cover", modifiers=[{"target": "reflex_defense", "amount": 2}])
    for name in ("fog", "night"):
        await scene.do("add_effect", name=name, until="scene", combatant="ace",
                       source_kind="concealment", modifiers=[{"target": "attack", "amount": -2}])
    for name in ("shaken", "sore"):
        await scene.do("add_effect", name=name, until="scene", combatant="ace",
                       source_kind="condition", modifiers=[{"target": "attack", "amount": -1}])
    for _ in range(2):
        await scene.do("add_effect", name="Blessing", until="scene", combatant="ace",
                       origin="dog", modifiers=[{"target": "attack", "amount": 2}])
    await scene.act("ace", "attack", target="dog", weapon="bow", range="point_blank",
                    cover="cover", concealment="concealment")
    await roll(scene, 10)
    attack = last(scene, "attack_resolved")
    mods = parts(attack)
    # concealment -2 once (the situation's is covered by the effects'), conditions -1 -1,
    # Blessing +2 once
    assert mods["fog"] == -2 and mods["night - not counted: several sources of concealment "
                                      "give one penalty (CONCEALMENT)"] == 0
    assert mods["concealment (one concealment penalty with the effect's, R92)"] == 0
    assert (mods["shaken"], mods["sore"]) == (-1, -1)
    assert sorted(v for k, v in mods.items() if k.startswith("Blessing")) == [0, 2]
    assert attack["total"] == 10 + 4 - 2 - 2 + 2
    # one cover bonus: the crate's +2; the wagon's and the situation's do not add
    assert attack["defense_value"] == 11 + 2
    assert await scene.replays()


# --- "MLP Dramatic Systems": feats and species as data (R93) ----------------------------------


async def test_feats_are_named_as_the_rule_text_writes_them_and_unknown_ones_are_refused(
        make: Make) -> None:
    """RANGED MANEUVER INTO A MELEE: Precise Shot, written "Precise Shot" (R93); an unknown
    feat is refused unless the stat block declares it with its effects."""
    sharp = {**PONY, "stats": {**PONY["stats"], "feats": ["Precise Shot", "improved  DEFENSES"]}}
    scene = await make([sharp, DOG])
    await scene.act("ace", "attack", target="dog", weapon="bow", range="point_blank",
                    into_melee=True)
    await roll(scene, 1)
    assert parts(last(scene, "attack_resolved"))["into melee (Precise Shot)"] == 0
    bad = await scene.send("add_combatant", combatant={
        "name": "Odd", "stats": {"feats": ["Lucky Charm"]}})
    assert bad["code"] == "invalid_payload" and "Lucky Charm" in bad["message"]
    await scene.do("add_combatant", id="hide", combatant={
        "name": "Hide", "stats": {"feats": ["iron hide", "Improved Defenses"],
                                  "homebrew_feats": [{"name": "Iron Hide", "modifiers": [
                                      {"target": "reflex_defense", "amount": 1}]}]}})
    await scene.act("ace", "end_turn")
    await scene.turns_in_round()
    await scene.act("ace", "attack", target="hide")
    await roll(scene, 1)
    defense = parts(last(scene, "attack_resolved"), "defense_parts")
    assert (defense["Iron Hide"], defense["Improved Defenses"]) == (1, 1)


async def test_a_buffalo_has_its_species_bonus_to_fortitude(make: Make) -> None:
    """DEFENSES: "Buffalos gain a +1 species bonus to Fortitude Defense" (R93)."""
    buffalo = {**DOG, "stats": {**DOG["stats"], "species": "Buffalo"}}
    scene = await make([PONY, buffalo])
    await scene.act("ace", "attack", target="dog", defense="fortitude")
    await roll(scene, 1)
    attack = last(scene, "attack_resolved")
    assert parts(attack, "defense_parts")["Buffalo: species bonus"] == 1
    assert attack["defense_value"] == 11


async def test_quick_draw_draws_as_a_swift_action(make: Make) -> None:
    """MOVE ACTIONS, Quick Draw: "you can draw or holster a object as a swift action instead
    of a move action" (R93)."""
    quick = {**PONY, "stats": {**PONY["stats"], "feats": ["Quick Draw"]}}
    scene = await make([quick, {**DOG, "stats": {**DOG["stats"], "feats": []}}])
    legal = {a["action"] for a in scene.legal if a.get("combatant") == "ace"}
    assert "quick_draw" in legal
    await scene.act("ace", "quick_draw")
    assert last(scene, "action_taken")["action_type"] == "swift"
    await scene.act("ace", "draw")  # the move action is still there
    await scene.act("ace", "end_turn")
    refused = await scene.refused("dog", "quick_draw")
    assert "Quick Draw" in refused["message"]


async def test_extra_second_lunch_is_read_as_the_text_writes_it(make: Make) -> None:
    """Catch a Second Lunch: "Extra Second Lunch: [...] one extra time per day (but never more
    than once in a single sceene)" (R93)."""
    hungry = {**PONY, "stats": {**PONY["stats"], "feats": ["Extra Second Lunch"],
                                "fatigue_points": 20}}
    scene = await make([hungry, DOG])
    await scene.do("adjust_combatant", combatant="ace", fatigue=4, reason="tired")
    await scene.act("ace", "second_lunch")
    assert scene.state.vitals["ace"].fatigue == 9  # a quarter of 20
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    refused = await scene.refused("ace", "second_lunch")
    assert "encounter" in refused["message"] or "scene" in refused["message"]


# --- "Action Time": Stacking Effects, both examples (R91, R95) --------------------------------


@pytest.fixture
def at_make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], faces: dict[str, int]) -> Scene:
        scene = await tables.create(combatants, ruleset="action_time", players_roll=True,
                                    manual_rolls=True)
        await scene.do("start_encounter")
        for request, pending in list(scene.state.pending_rolls.items()):
            await scene.do("submit_roll", request=request, faces=[faces[pending.combatant or ""]])
        return scene

    return create


ROGUE = with_stats({**ACE, "name": "Rogue", "id": "rogue"}, talents=[
    {"name": "Backstab", "die": "d6"}])
MAGE = with_stats({**BLOOM, "name": "Mage", "id": "mage"}, spells=[
    {"name": "Frost Weapons", "modifiers": [{"target": "extra_damage_die", "amount": "d6"}]}])
SECOND_MAGE = with_stats({**MAGE, "name": "Second Mage", "id": "mage2"}, spells=[
    {"name": "frost weapons", "modifiers": [{"target": "extra_damage_die", "amount": "d6"}]}])
CHAMPIONS = [with_stats({**BLOOM, "name": f"Champion {n}", "id": f"champ{n}"},
                        talents=[{"name": "Champion"}]) for n in (1, 2)]


@BOTH_TRANSPORTS
async def test_backstab_and_frost_weapons_stack_to_two_extra_dice(at_make: Make) -> None:
    """Stacking Effects: "A rogue in both circumstances inflicts 2 extra dice worth of damage
    on a hit, the sum of both effects" (R95). The extra dice are in the event's ``dice`` and
    ``rolled``, itemised in its ``dice_parts``: ``rolled`` + ``bonuses`` is the loss, no die
    counted twice."""
    scene = await at_make([MAGE, ROGUE, BRUTE], {"mage": 6, "rogue": 4, "brute": 2})
    await scene.act("mage", "cast_major", spell="Frost Weapons", target="rogue")
    started = last(scene, "effect_started")
    assert (started["combatant"], started["source_kind"], started["origin"]) == (
        "rogue", "spell", "mage")
    await scene.act("mage", "end_turn")
    await scene.act("rogue", "melee_attack", target="brute")
    await roll(scene, 6)  # a hit on Defense 5
    (pending,) = scene.state.pending_rolls.values()
    assert pending.expr == "1d6+1d6+1d6"  # the Hoof, Backstab, Frost Weapons
    await scene.do("submit_roll", request=next(iter(scene.state.pending_rolls)),
                   faces=[1, 2, 3])
    damage = last(scene, "damage_dealt")
    assert (damage["dice"], damage["rolled"], damage["bonuses"]) == ("1d6+1d6+1d6", 6, [])
    assert damage["rolled"] + sum(parts(damage, "bonuses").values()) == damage[
        "before_reduction"] == damage["loss"] == 6
    assert {"Backstab (d6)": 2, "Frost Weapons (d6)": 3}.items() <= parts(
        damage, "dice_parts").items()
    assert scene.state.vitals["brute"].fatigue == 15 - 6
    assert await scene.replays()


async def test_two_casts_of_the_very_same_spell_add_one_die(at_make: Make) -> None:
    """Stacking Effects: "the effects of multiple instances of the very same thing do not
    stack" (R91): two mages' Frost Weapons on one pony (the name written in two ways, R93)
    give one extra die."""
    rogue = with_stats(ROGUE, talents=[])
    scene = await at_make([MAGE, SECOND_MAGE, rogue, BRUTE],
                          {"mage": 6, "mage2": 5, "rogue": 4, "brute": 2})
    await scene.act("mage", "cast_major", spell="Frost Weapons", target="rogue")
    await scene.act("mage", "end_turn")
    await scene.act("mage2", "cast_major", spell="frost weapons", target="rogue")
    await scene.act("mage2", "end_turn")
    await scene.act("rogue", "melee_attack", target="brute")
    await roll(scene, 6)
    (pending,) = scene.state.pending_rolls.values()
    assert pending.expr == "1d6+1d6"


@BOTH_TRANSPORTS
async def test_two_champions_rally_gives_plus_1_defense_not_plus_2(at_make: Make) -> None:
    """Stacking Effects: "These bonuses do not stack to give a +2 bonus to the rogue's Defense
    since they arise from exactly the same talent. The rogue's bonus is only +1" (R91, R95)."""
    scene = await at_make([*CHAMPIONS, ROGUE, BRUTE],
                          {"champ1": 6, "champ2": 5, "rogue": 4, "brute": 2})
    for champ in ("champ1", "champ2"):
        await scene.do("add_effect", name="Rally", source="Champion", source_kind="talent",
                       origin=champ, until="scene", combatant="rogue",
                       modifiers=[{"target": "defense", "amount": 1}])
    await end_round_until(scene, "brute")
    await scene.act("brute", "melee_attack", target="rogue")
    await roll(scene, 5)  # Defense 4 + 1: met, a hit
    attack = last(scene, "attack_resolved")
    assert attack["defense_value"] == 5
    defense = parts(attack, "defense_parts")
    assert defense["Champion"] == 1
    assert defense["Champion - not counted: same talent as another, does not stack"] == 0
    await roll(scene, 1)
    assert await scene.replays()


async def end_round_until(scene: Scene, who: str) -> None:
    while scene.state.current != who:
        current = scene.state.current
        assert current is not None
        await scene.act(current, "end_turn")


async def test_different_sources_on_defense_and_steps_add(at_make: Make) -> None:
    """Stacking Effects: different things stack (R91): the GM's -1 test step and Defend's +2
    and a homebrew talent's +1 Defense."""
    tough = with_stats(ROGUE, talents=[{"name": "Thick Hide", "modifiers": [
        {"target": "defense", "amount": 1}]}])
    scene = await at_make([tough, BRUTE], {"rogue": 6, "brute": 2})
    await scene.act("rogue", "defend")
    await scene.do("add_effect", name="Mud", until="end_of_round", combatant="brute",
                   modifiers=[{"target": "test_steps", "amount": -1}])
    await scene.act("rogue", "end_turn")
    await scene.act("brute", "melee_attack", target="rogue")
    (pending,) = scene.state.pending_rolls.values()
    assert pending.expr == "1d8"  # the Brute's d10 downgraded
    await roll(scene, 7)  # Defense 4 + Defend 2 + Thick Hide 1 = 7
    attack = last(scene, "attack_resolved")
    assert (attack["defense_value"], attack["outcome"]) == (7, "hit")
    assert parts(attack, "defense_parts")["Thick Hide"] == 1


async def test_an_unknown_talent_is_refused_unless_it_declares_its_effects(
        at_make: Make) -> None:
    """R93: names as the text writes them; an unknown one needs its modifiers."""
    scene = await at_make([ROGUE, BRUTE], {"rogue": 6, "brute": 2})
    bad = await scene.send("add_combatant", combatant=with_stats(
        {**BRUTE, "id": "odd", "name": "Odd"}, talents=[{"name": "Sneaky"}]))
    assert bad["code"] == "invalid_payload" and "Sneaky" in bad["message"]
    await scene.do("add_combatant", combatant=with_stats(
        {**BRUTE, "id": "odd", "name": "Odd"}, talents=[{"name": "backstab"}]))


# --- what the clients show (R90) -----------------------------------------------------------


async def test_the_terminal_client_shows_what_an_effect_changes_and_how_long(
        make: Make) -> None:
    """The server says what an effect changes and how long it lasts (the ``summary`` of its
    ``effect_started``, the log's line), and the terminal client's table shows it from the
    state."""
    scene = await make([PONY, DOG])
    await scene.do("add_effect", name="Rally", until="start_of_next_turn", combatant="ace",
                   modifiers=[{"target": "defenses", "amount": 1}])
    await scene.do("add_effect", name="Haste", rounds=2, combatant="ace",
                   modifiers=[{"target": "speed", "amount": 2}])
    state = await scene.view()
    names = {c["id"]: c["name"] for c in state["combatants"]}
    said = [summarize(msgspec.convert(e, ev.AnyEvent), "dramatic", names).text
            for e in scene.events("effect_started")]
    assert said == [f"Rally (defenses +1) begins on {names['ace']}, until its holder's next turn.",
                    f"Haste (speed +2) begins on {names['ace']}, for 2 rounds, until round 3."]
    seat = Seat("ws://127.0.0.1:9/ws", "unused")
    seat.view.state = state
    shown = Terminal(seat, io.StringIO()).state_lines()
    assert f"  effect: Rally on {names['ace']} (defenses +1; until start of next turn)" in shown
    assert f"  effect: Haste on {names['ace']} (speed +2; until round 3)" in shown


def test_skill_focus_is_named_as_the_text_writes_it() -> None:
    """Social Status: "if she as also an Skill Focus on this skill the Bonus is increased to
    +4" (R70, R93, R94): "Skill Focus (Knowledge: Magic)" is the feat; Skill Focus on another
    skill is known and changes nothing; a misspelt feat is refused."""
    sheet = parse_sheet({"trained": ["knowledge_magic"],
                         "feats": ["Skill Focus (Knowledge: Magic)", "Skill Focus (Stealth)"]})
    focus = related_status(sheet, "magic")
    assert focus is not None and focus.value == 4
    DramaticSystems().validate_stats({"feats": ["Skill Focus (Stealth)", "PRECISE SHOT"]})
    with pytest.raises(RulesetError, match="Precise Shoot"):
        DramaticSystems().validate_stats({"feats": ["Precise Shoot"]})


async def test_an_effect_on_speed_changes_how_far_a_move_goes(at_make: Make) -> None:
    """Minor Actions: MOVE ("up to your Speed in yards"), R60, R90: Speed 10 and +2."""
    scene = await at_make([ROGUE, BRUTE], {"rogue": 6, "brute": 2})
    await scene.do("add_effect", name="Tailwind", until="end_of_round", combatant="rogue",
                   modifiers=[{"target": "speed", "amount": 2}])
    refused = await scene.refused("rogue", "move", yards=13)
    assert "at most 12 yards" in refused["message"]
    await scene.act("rogue", "move", yards=12)


async def test_backstab_adds_its_die_to_melee_hits_only(at_make: Make) -> None:
    """R95: Backstab's die on the holder's melee hits; a Sling hit deals its own die alone."""
    scene = await at_make([ROGUE, BRUTE], {"rogue": 6, "brute": 2})
    await scene.act("rogue", "ranged_attack", target="brute", distance=10)
    await roll(scene, 6)
    (pending,) = scene.state.pending_rolls.values()
    assert pending.expr == "1d4"


# --- the numbers effects change, in snapshots and in moves (R90) ------------------------------

RUNNER = Actor(role="player", token_id="ace", combatants=frozenset({"ace"}))
GM_VIEW = Actor(role="gm", token_id="gm")
OVERLAY = Actor(role="integration", token_id="overlay", scopes=frozenset({"view:gm"}))


async def test_a_move_itemises_the_effects_on_its_speed(make: Make) -> None:
    """SPEED, R90, R92: "+2 speed" named in the move it lengthens, as an attack names its
    modifiers; a move without effects names none."""
    scene = await make([pony("ace", [0, 0], speed=2), dog([7, 3])], OPEN)
    await scene.act("ace", "move", path=[[1, 0]])
    assert last(scene, "combatant_moved")["speed_modifiers"] == []
    await scene.do("add_effect", name="Haste", rounds=1, combatant="ace",
                   modifiers=[{"target": "speed", "amount": 2}])
    await scene.act("ace", "move", path=[[2, 0], [3, 0], [4, 0]])
    moved = last(scene, "combatant_moved")
    assert (moved["budget"], parts(moved, "speed_modifiers")) == (4, {"Haste": 2})
    assert moved["speed_modifiers"][0]["section"] == "add_effect (R90)"
    assert await scene.replays()


async def test_snapshots_show_the_defenses_and_speed_effects_change_to_who_sees_the_sheet(
        make: Make) -> None:
    """DEFENSES, SPEED, R90: the numbers attacks and moves read, effects included and itemised,
    in the snapshot of whoever sees the stat block — the GM and a ``view:gm`` integration every
    combatant's, a player its own only (an NPC's defenses stay behind the GM's screen)."""
    scene = await make([pony("ace", [0, 0], speed=6, dex=14),
                        dog([7, 3], dex=12, con=14)], OPEN)
    await scene.do("add_effect", name="Shield of Leaves", rounds=3, combatant="dog",
                   modifiers=[{"target": "reflex_defense", "amount": 2}])
    await scene.do("add_effect", name="Haste", rounds=3, combatant="ace",
                   modifiers=[{"target": "speed", "amount": 2}])
    gm = view_state(scene.state, GM_VIEW)["numbers"]
    reflex = gm["dog"]["defenses"]["reflex"]
    assert reflex["total"] == 13  # 10 + Dex 1 + Shield of Leaves 2
    assert {"name": "Shield of Leaves", "value": 2, "section": "add_effect (R90)"} in reflex[
        "parts"]
    assert gm["dog"]["defenses"]["fortitude"]["total"] == 12  # 10 + Con 2
    assert set(gm["dog"]["defenses"]) == {"reflex", "fortitude", "will", "wits"}
    assert (gm["ace"]["speed"], parts(gm["ace"], "speed_modifiers")) == (8, {"Haste": 2})
    # the snapshot's defense is the one the next attack reads
    await scene.act("ace", "attack", target="dog", weapon="bow")
    await roll(scene, 7)
    assert last(scene, "attack_resolved")["defense_value"] == reflex["total"]
    assert view_state(scene.state, OVERLAY)["numbers"] == view_state(scene.state,
                                                                      GM_VIEW)["numbers"]
    player = view_state(scene.state, RUNNER)
    assert set(player["numbers"]) == {"ace"}
    assert player["numbers"]["ace"] == gm["ace"]
    assert "dog" in {c["id"] for c in player["combatants"]}  # seen, its numbers not


async def test_action_time_snapshots_show_defense_and_speed_with_their_effects(
        at_make: Make) -> None:
    """R29, R60, R90, Stacking Effects (R61): Defense and Speed as attacks and moves read them,
    for the GM of every combatant, for a player of its own only."""
    scene = await at_make([ROGUE, BRUTE], {"rogue": 6, "brute": 2})
    await scene.do("add_effect", name="Tailwind", until="end_of_round", combatant="rogue",
                   modifiers=[{"target": "speed", "amount": 2}])
    await scene.do("add_effect", name="Bark Skin", until="scene", combatant="brute",
                   modifiers=[{"target": "defense", "amount": 1}])
    gm = view_state(scene.state, GM_VIEW)["action_time"]["numbers"]
    assert (gm["rogue"]["speed"], gm["rogue"]["speed_modifiers"]) == (
        12, [{"name": "Tailwind", "value": 2}])
    assert gm["brute"]["defense"] == 6  # 5 + Bark Skin 1
    assert [(m["name"], m["value"]) for m in gm["brute"]["defense_modifiers"]] == [
        ("Bark Skin", 1)]
    rogue_player = Actor(role="player", token_id="rogue", combatants=frozenset({"rogue"}))
    mine = view_state(scene.state, rogue_player)["action_time"]["numbers"]
    assert mine == {"rogue": gm["rogue"]}
