"""Every die of "MLP Dramatic Systems" physical on request, taking 10, Perception and awareness
during the scene, flying: one scenario per rule on the engine's in-process table
(``tests/scene.py``; some also through the real protocol), with each physical die given face
by face (``players_roll`` for the player characters, ``manual_rolls`` for the GM's).

Rulings R80 (physical dice everywhere), R81 (taking 10), R82 (Perception and awareness in the
scene), R83 (flying), R84 (the Physical Base Bonus; the untrained faller) in docs/rulings.md.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from rules.battle_map import BattleMap
from tests.scene import BOTH_TRANSPORTS, Scene, Tables
from tests.test_resolution import last, roll

Make = Callable[..., Awaitable[Scene]]

ACE = {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50,
       "stats": {"skills": {"melee": 5}, "str": 14, "con": 14, "speed": 6,
                 "trained": ["acrobatics"], "perception": 3}}
DOG = {"name": "Dog", "id": "dog", "kind": "npc", "initiative": 0,
       "stats": {"fatigue_points": 30, "perception": 1}}


def ace(**stats: Any) -> dict[str, Any]:
    return {**ACE, "stats": {**ACE["stats"], **stats}}


def dog(**stats: Any) -> dict[str, Any]:
    return {**DOG, "stats": {**DOG["stats"], **stats}}


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], **options: Any) -> Scene:
        return await tables.started(combatants, **options)

    return create


def pending(scene: Scene) -> Any:
    (one,) = scene.state.pending_rolls.values()
    return one


# --- R80: the dice of falls, collisions, Constitution checks, Perception, adjudicate -----------


@BOTH_TRANSPORTS
async def test_a_fall_asks_the_faller_for_each_die(make: Make) -> None:
    """Flying: Falling Damage (R22) with physical dice (R80): the trained faller's Acrobatics
    check, the 1d20+20 falling roll, then the falling damage dice, each asked for in turn."""
    scene = await make([ACE, DOG])
    await scene.do("fall", combatant="ace", meters=9)
    assert (pending(scene).purpose, pending(scene).roller) == ("acrobatics", "ace")
    await roll(scene, 4)  # 4 + Acrobatics 0 = 4 against DC 15: no shorter fall
    check = last(scene, "check_made")
    assert (check["check"], check["total"], check["success"]) == ("acrobatics", 4, False)
    assert pending(scene).purpose == "falling"
    await roll(scene, 1)  # 1 + 20 = 21 against Fortitude 12 (10 + Con 2), but a natural 1: half
    assert (pending(scene).purpose, pending(scene).expr) == ("falling damage", "3d6")
    await roll(scene, 6, 5, 4)  # 15, halved: 7
    assert last(scene, "damage_dealt")["loss"] == 7
    assert scene.state.vitals["ace"].fatigue == 3 and scene.state.vitals["ace"].prone
    assert await scene.replays()


async def knocked_out_until_the_check(scene: Scene) -> None:
    """The GM knocks Ace out; the dog ends its turns until Ace's turn with its Constitution
    check (R16) comes."""
    await scene.do("adjust_combatant", combatant="ace", condition="unconscious",
                   reason="knocked out")
    check_round = scene.state.vitals["ace"].check_round
    assert check_round is not None
    while scene.state.round < check_round or scene.state.current != "ace":
        await scene.act("dog", "end_turn")


async def test_an_untrained_faller_is_asked_for_no_acrobatics_check(make: Make) -> None:
    """Falling Damage: "If you are trained in the Acrobatics skill, you can reduce the damage"
    — the untrained faller's first die is the falling roll itself (R84)."""
    scene = await make([ace(trained=[]), DOG])
    await scene.do("fall", combatant="ace", meters=3)
    assert pending(scene).purpose == "falling"
    await roll(scene, 15)  # 35 against Fortitude 12: full damage
    await roll(scene, 5)
    assert "acrobatics" not in [e["check"] for e in scene.events("check_made")]
    assert last(scene, "damage_dealt")["loss"] == 5


@BOTH_TRANSPORTS
async def test_a_fall_under_3_m_asks_for_no_falling_roll_and_0_m_is_no_fall(
        make: Make) -> None:
    """Falling Damage: "1d6 points of damage for every 3 meters fallen" and "A falling
    creature also lands prone" (R22): a fall that counts under 3 m has no damage for the
    falling roll to decide, so none is asked for; the faller lands prone, or on its feet after
    a successful Acrobatics check. A fall of 0 m is no fall (R98)."""
    scene = await make([ace(trained=[]), ACE | {"id": "bee", "name": "Bee", "initiative": 40},
                        DOG])
    before = len(scene.events())
    reply = await scene.send("fall", combatant="ace", meters=0)
    assert reply["code"] == "invalid_payload" and "meters" in reply["message"]
    assert len(scene.events()) == before and not scene.state.vitals["ace"].prone
    await scene.do("fall", combatant="ace", meters=1.5)
    assert not scene.state.pending_rolls
    assert "attack_resolved" not in [e["kind"] for e in scene.events()]
    ace_now = scene.state.vitals["ace"]
    assert (ace_now.fatigue, ace_now.prone) == (10, True)
    await scene.do("fall", combatant="bee", meters=4.5)
    assert pending(scene).purpose == "acrobatics"
    await roll(scene, 15)  # 15 against DC 15: the fall counts 1.5 m, no damage
    assert not scene.state.pending_rolls
    assert not scene.state.vitals["bee"].prone  # on its feet (Acrobatics)
    assert await scene.replays()


async def test_a_collision_asks_each_side_for_the_other_sides_size_damage(make: Make) -> None:
    """Collision (R23): each side takes both speeds + the other's Strength and size damage —
    the size damage is the other side's dice: the GM's for the dog, the player's for Ace."""
    scene = await make([ACE, DOG], manual_rolls=True)
    await scene.do("collide", first="ace", second="dog")
    first = pending(scene)
    assert (first.purpose, first.combatant, first.roller) == ("collision damage", "dog", "gm")
    await roll(scene, 1, 1)  # what Ace takes: 6 + 6 + the dog's Str 0 + 2 = 14
    assert last(scene, "damage_dealt")["target"] == "ace"
    assert last(scene, "damage_dealt")["loss"] == 14
    second = pending(scene)
    assert (second.combatant, second.roller) == ("ace", "ace")
    await roll(scene, 2, 2)  # what the dog takes: 6 + 6 + Ace's Str 2 + 4 = 18
    assert last(scene, "damage_dealt")["loss"] == 18
    assert scene.state.vitals["dog"].fatigue == 12


@BOTH_TRANSPORTS
async def test_the_constitution_check_waits_for_the_unconscious_players_die(make: Make) -> None:
    """Falling Unconscious (R16): the DC 10 Constitution check at the start of the turn ten
    rounds on; with physical dice the turn waits for it (R80) and does not pass meanwhile."""
    scene = await make([ACE, DOG])
    await scene.do("adjust_combatant", combatant="ace", condition="unconscious",
                   reason="knocked out")
    check_round = scene.state.vitals["ace"].check_round
    assert check_round is not None
    while scene.state.round < check_round or scene.state.current != "ace":
        assert scene.state.current == "dog"
        await scene.act("dog", "end_turn")
    # Ace's turn has begun, and waits for the check
    asked = pending(scene)
    assert (asked.purpose, asked.roller, asked.expr) == ("constitution check", "ace", "1d20")
    refused = await scene.refused("dog", "end_turn")
    assert refused["code"] in ("not_your_turn", "illegal_action")
    await roll(scene, 8)  # 8 + Con 2 = 10 against DC 10: conscious, one step up, prone
    check = last(scene, "check_made")
    assert (check["check"], check["total"], check["success"]) == ("constitution", 10, True)
    assert scene.state.vitals["ace"].conscious and scene.state.current == "ace"
    assert await scene.replays()


async def test_a_failed_constitution_check_passes_the_turn(make: Make) -> None:
    scene = await make([ACE, DOG])
    await knocked_out_until_the_check(scene)
    await roll(scene, 3)  # 5 against DC 10: stays unconscious, persistent (R16, R17)
    assert scene.state.vitals["ace"].condition == ("unconscious", "out_for_scene")
    assert scene.state.current == "dog"


async def test_perception_checks_are_the_combatants_dice(tables: Tables) -> None:
    """Determining Awareness: "She may call for Perception checks" — the player's and the GM's
    own physical dice (R80), each check against the DC with -5 for concealment."""
    scene = await tables.create([ACE, DOG], players_roll=True, manual_rolls=True)
    await scene.do("call_perception", dc=12, concealment="concealment")
    asked = {p.combatant: p for p in scene.state.pending_rolls.values()}
    assert {c: (p.roller, p.expr) for c, p in asked.items()} == {
        "ace": ("ace", "1d20+3"), "dog": ("gm", "1d20+1")}
    refused = await scene.send("start_encounter")
    assert refused["code"] == "illegal_action"  # the checks are still to come in
    await scene.do("submit_roll", request=asked["ace"].request, faces=[14])  # 17 - 5 = 12
    await scene.do("submit_roll", request=asked["dog"].request, faces=[15])  # 16 - 5 = 11
    assert scene.state.combatants["ace"].aware and not scene.state.combatants["dog"].aware
    checks = {e["combatant"]: e["total"] for e in scene.events("check_made")}
    assert checks == {"ace": 12, "dog": 11}


async def test_an_adjudicated_check_is_the_combatants_die(make: Make) -> None:
    """The GM's adjudicate: the d20 of the check is the combatant's (R80)."""
    scene = await make([ACE, DOG])
    await scene.do("adjudicate", description="leaps the chasm", combatant="ace", dc=15,
                   modifier=2, on_failure={"fatigue_loss": 4})
    assert (pending(scene).purpose, pending(scene).roller) == ("adjudicated check", "ace")
    await roll(scene, 12)  # 14 against 15: the failure applies
    assert not last(scene, "check_made")["success"]
    assert scene.state.vitals["ace"].fatigue == 6


async def test_an_adjudicated_check_of_nobody_is_the_gms_die(tables: Tables) -> None:
    scene = await tables.started([ACE, DOG], manual_rolls=True)
    for request in list(scene.state.pending_rolls):
        await scene.do("submit_roll", request=request, faces=[10])
    await scene.do("adjudicate", description="the bridge holds", dc=10, target="dog",
                   on_failure={"prone": True})
    asked = pending(scene)
    assert (asked.roller, asked.combatant) == ("gm", None)
    await roll(scene, 9)
    assert scene.state.vitals["dog"].prone


# --- R81: taking 10 -----------------------------------------------------------------------------


DOOR = {"name": "Door", "id": "door", "kind": "npc", "initiative": -50,
        "stats": {"nature": "object", "str": 16, "fatigue_points": 1}}


async def test_taking_10_throws_no_die_where_the_check_allows_it(make: Make) -> None:
    """Taking 10 (R81) on a check made against a number: a distraction (STANDARD ACTIONS:
    Distraction, a check against 10) and breaking an object (Breaking an Object: Strength +
    Physical Base Bonus, R84) — no die asked for, the check's ``took_10`` says so."""
    scene = await make([ace(skills={"melee": 5}, physical_base_bonus=4), DOG, DOOR])
    events = await scene.act("ace", "distraction", target="dog", take_10=True)
    assert "roll_requested" not in events and "dice_rolled" not in events
    check = last(scene, "check_made")
    assert (check["natural"], check["total"], check["took_10"], check["success"]) == (
        10, 15, True, True)
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    await scene.act("door", "end_turn")
    await scene.act("ace", "break_object", target="door", take_10=True)
    check = last(scene, "check_made")
    # 10 + Str 2 + Physical Base Bonus 4 = 16 against DC 15 + the door's Str 3 = 18
    assert (check["total"], check["dc"], check["success"]) == (16, 18, False)
    assert ("Physical Base Bonus", 4) in [(m["name"], m["value"]) for m in check["modifiers"]]
    assert await scene.replays()


@BOTH_TRANSPORTS
async def test_taking_10_is_refused_to_aid_another_and_on_the_constitution_check(
        make: Make) -> None:
    """Aid Another: "You can't take 10 on a skill check or ability check to aid another";
    Falling Unconscious: "You can't take 10 on the Constitution check" (R81). An attack roll
    takes no 10 either; a Perception check asked for as physical dice may."""
    scene = await make([ACE, DOG])
    refused = await scene.refused("ace", "aid_another", target="dog", take_10=True)
    assert refused["code"] == "illegal_action" and "aid another" in refused["message"]
    await scene.act("ace", "attack", target="dog")
    attack = pending(scene)
    reply = await scene.send("submit_roll", request=attack.request, take_10=True)
    assert reply["code"] == "illegal_action" and "attack" in reply["message"] \
        and "R81" in reply["message"]
    await roll(scene, 1)  # a natural 1: an automatic miss
    await scene.act("ace", "end_turn")
    await knocked_out_until_the_check(scene)
    constitution = pending(scene)
    reply = await scene.send("submit_roll", request=constitution.request, take_10=True)
    assert reply["code"] == "illegal_action"
    assert "can't take 10 on the Constitution check" in reply["message"]
    assert pending(scene).request == constitution.request  # still waiting for the die
    await roll(scene, 15)
    assert scene.state.vitals["ace"].conscious


async def test_a_physical_perception_check_may_take_10(tables: Tables) -> None:
    scene = await tables.create([ACE, DOG], players_roll=True)
    await scene.do("call_perception", combatants=["ace"], dc=13)
    reply = await scene.send("submit_roll", request=pending(scene).request, take_10=True)
    assert reply["type"] == "ack"
    check = last(scene, "check_made")
    assert (check["natural"], check["total"], check["took_10"]) == (10, 13, True)
    assert scene.state.combatants["ace"].aware


async def test_the_gm_takes_10_on_an_adjudicated_check(make: Make) -> None:
    scene = await make([ACE, DOG])
    events = await scene.do("adjudicate", description="picks the lock", combatant="ace",
                            dc=12, modifier=2, take_10=True, on_failure={"prone": True})
    assert "roll_requested" not in events
    assert last(scene, "check_made")["success"]  # 10 + 2 = 12
    reply = await scene.send("adjudicate", description="no check", take_10=True)
    assert reply["code"] == "invalid_payload"


# --- R82: Perception and awareness during the scene ---------------------------------------------


@BOTH_TRANSPORTS
async def test_an_unaware_combatant_loses_its_dexterity_bonus_mid_scene(make: Make) -> None:
    """CONCEALMENT: "If you attempt to notice a target with total concealment, you take a -10
    penalty on your Perception check"; Dexterity Modifier: "If you are flatfooted or unaware of
    an attack, you lose your Dexterity bonus" — during the scene too (R82)."""
    scene = await make([ACE, dog(dex=16)], manual_rolls=True)
    await scene.do("call_perception", combatants=["dog"], dc=10, concealment="total")
    assert pending(scene).purpose == "perception"
    await roll(scene, 15)  # 15 + 1 - 10 = 6 against 10: it does not notice Ace
    check = last(scene, "check_made")
    assert (check["total"], check["success"]) == (6, False)
    assert scene.state.unaware == ["dog"]
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 3)
    resolved = last(scene, "attack_resolved")
    assert resolved["defense_value"] == 10  # Reflex 10 without the Dexterity bonus of +3
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    await scene.do("call_perception", combatants=["dog"], dc=10, concealment="concealment")
    await roll(scene, 15)  # 15 + 1 - 5 = 11: it notices
    assert scene.state.unaware == []
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 3)
    assert last(scene, "attack_resolved")["defense_value"] == 13
    assert await scene.replays()


async def test_the_gm_makes_a_combatant_unaware_of_attacks_mid_scene(make: Make) -> None:
    scene = await make([ACE, dog(dex=16)])
    await scene.do("set_awareness", combatant="dog", aware=False)
    assert scene.state.unaware == ["dog"] and scene.state.combatants["dog"].aware is True
    reply = await scene.send("set_awareness", combatant="dog", aware=False)
    assert reply["code"] == "illegal_action"
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 3)
    assert last(scene, "attack_resolved")["defense_value"] == 10
    await scene.do("set_awareness", combatant="dog", aware=True)
    assert scene.state.unaware == []


@BOTH_TRANSPORTS
async def test_the_snapshot_shows_the_defenses_an_unaware_combatant_is_attacked_with(
        make: Make) -> None:
    """Dexterity Modifier, Intelligence Modifier: "If you are flatfooted or unaware of an
    attack, you lose your Dexterity bonus" (R82): the snapshot's numbers are the ones the next
    attack reads, without the bonuses while the combatant is unaware, with them again after."""
    scene = await make([ACE, dog(dex=16, int=14)])
    defenses = (await scene.view())["numbers"]["dog"]["defenses"]
    assert (defenses["reflex"]["total"], defenses["wits"]["total"]) == (13, 12)
    await scene.do("set_awareness", combatant="dog", aware=False)
    defenses = (await scene.view())["numbers"]["dog"]["defenses"]
    reflex = defenses["reflex"]
    assert (reflex["total"], defenses["wits"]["total"]) == (10, 10)
    assert {"name": "Dexterity bonus lost (unaware)", "value": -3,
            "section": "FLAT-FOOTED (R41)"} in reflex["parts"]
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 3)
    resolved = last(scene, "attack_resolved")
    assert (resolved["defense_value"], resolved["defense_parts"]) == (10, reflex["parts"])
    await scene.do("set_awareness", combatant="dog", aware=True)
    assert (await scene.view())["numbers"]["dog"]["defenses"]["reflex"]["total"] == 13


# --- R83: flying; R84: the stat block ----------------------------------------------------------


OPEN = {"width": 12, "height": 3}


def flyer(cid: str, kind: str, at: list[int], init: int, **stats: Any) -> dict[str, Any]:
    return {"name": cid.title(), "id": cid, "kind": kind, "initiative": init, "position": at,
            "stats": {"str": 14, "speed": 6, "fly_speed": 8, **stats}}


@BOTH_TRANSPORTS
async def test_a_flying_move_counts_the_fly_speed(tables: Tables) -> None:
    """SPEED: "Some creatures ... have a natural ... fly ... speed"; a flying move spends the
    fly speed, and the flyer stays in the air until it moves otherwise (R83)."""
    scene = await tables.started([flyer("ace", "pc", [0, 0], 50), flyer("dog", "npc", [0, 2], 0)],
                                 OPEN)
    path = [[x, 0] for x in range(1, 9)]
    refused = await scene.refused("ace", "move", path=path)  # 8 squares, speed 6
    assert refused["code"] == "illegal_action"
    await scene.act("ace", "move", path=path, fly=True)
    moved = last(scene, "combatant_moved")
    assert (moved["mode"], moved["cost"], moved["budget"]) == ("fly", 8, 8)
    assert scene.state.flying == ["ace"] and scene.state.positions["ace"] == (8, 0)
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    await scene.act("ace", "move", path=[[9, 0]])  # lands
    assert scene.state.flying == []


async def test_a_flyer_passes_over_mud_and_pits_and_a_fall_brings_it_down(
        tables: Tables) -> None:
    """DIFFICULT TERRAIN is on the ground, and a pit ends the movement of those who walk into
    it (R66): a flyer pays neither (R83). Falling out of the air (Falling Damage) lands it."""
    ground = msgspec.to_builtins(BattleMap.from_ascii("""
        .~~^~~....
        ..........
    """))
    scene = await tables.started([flyer("ace", "pc", [0, 0], 50), flyer("dog", "npc", [0, 1], 0)],
                                 ground)
    path = [[x, 0] for x in range(1, 7)]
    refused = await scene.refused("ace", "move", path=path)
    assert refused["code"] == "illegal_action"  # on foot: the mud costs double, the pit stops
    await scene.act("ace", "move", path=path, fly=True)
    moved = last(scene, "combatant_moved")
    assert (moved["cost"], moved["falls"]) == (6, False)
    assert scene.state.flying == ["ace"]
    await scene.do("fall", combatant="ace", meters=6)
    assert scene.state.flying == []
    assert pending(scene).purpose == "falling"  # untrained: no Acrobatics check (R84)


async def test_no_flight_without_a_fly_speed_or_under_a_heavy_load(make: Make) -> None:
    """ENCUMBRANCE AND SPEED: "A character with a fly speed cannot fly while carrying a heavy
    load" (R83)."""
    scene = await make([ace(fly_speed=8, heavy_load=True), DOG])
    refused = await scene.refused("ace", "move", fly=True)
    assert "heavy load" in refused["message"]
    refused = await scene.refused("ace", "ram", target="dog", flying=True)
    assert "heavy load" in refused["message"]
    plain = await make([ACE, DOG])
    refused = await plain.refused("ace", "move", fly=True)
    assert "no fly speed" in refused["message"]


@BOTH_TRANSPORTS
async def test_ramming_a_flyer_moving_away_subtracts_its_fly_speed(make: Make) -> None:
    """Ramming: "Speed (- Speed of the target if the Target is moving away)" — the speed of
    the mode it moves in: a target in the air after a flying move counts its fly speed 5, not
    its land speed 6 (R83, R23)."""
    scene = await make([ACE, dog(fly_speed=5)], manual_rolls=True)
    await scene.act("ace", "end_turn")
    await scene.act("dog", "move", fly=True)  # off the map: takes to the air
    assert scene.state.flying == ["dog"]
    await scene.act("dog", "end_turn")
    await scene.act("ace", "ram", target="dog", moving_away=True)
    await roll(scene, 10)  # 10 + 5 against Reflex 10: a hit
    await roll(scene, 3, 4)
    dealt = scene.events("damage_dealt")[0]
    bonuses = {b["name"]: b["value"] for b in dealt["bonuses"]}
    assert bonuses["target's fly speed (moving away)"] == -5
    assert dealt["loss"] == 6 - 5 + 2 + 7
    await scene.do("collide", first="ace", second="dog")
    await roll(scene, 1, 1)  # the dog's size damage, the GM's dice: Ace takes 6 + 5 + 0 + 2
    assert last(scene, "damage_dealt")["loss"] == 13


async def test_an_objects_break_dc_comes_from_its_stat_block(make: Make) -> None:
    """Breaking an Object: "The DC depends more on the construction of the item than on the
    material" — an object's ``break_dc`` (R84)."""
    vault = {**DOOR, "stats": {**DOOR["stats"], "break_dc": 25}}
    scene = await make([ace(physical_base_bonus=3), DOG, vault])
    await scene.act("ace", "break_object", target="door")
    await roll(scene, 19)  # 19 + 2 + 3 = 24 against 25
    check = last(scene, "check_made")
    assert (check["total"], check["dc"], check["success"]) == (24, 25, False)


async def test_the_scene_ending_rolls_a_constitution_check_still_waiting(make: Make) -> None:
    """R80: the checks made as the scene ends are the server's — one still waiting for a
    player's die too, so that nothing waits in an ended encounter."""
    scene = await make([ACE, DOG])
    await knocked_out_until_the_check(scene)
    waiting = pending(scene)
    await scene.do("end_encounter")
    assert scene.state.pending_rolls == {}
    rolled = [e for e in scene.events("dice_rolled") if e["purpose"] == "constitution check"]
    assert len(rolled) == 1 and rolled[0]["request"] == waiting.request
    assert rolled[0]["roll"]["seed"] is not None
    assert [e["check"] for e in scene.events("check_made")].count("constitution") == 1
