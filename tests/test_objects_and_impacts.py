"""Objects, rams, collisions, Recover, helplessness and rest in "MLP Dramatic Systems": one
scenario per rule on the engine's in-process table (``tests/scene.py``; some also through the
real protocol against a real Redis), with the player characters' dice given face by face
(``players_roll``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.scene import BOTH_TRANSPORTS, Scene, Tables
from tests.test_resolution import last, roll

Make = Callable[..., Awaitable[Scene]]

ACE = {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50,
       "stats": {"skills": {"melee": 5, "physical_base_bonus": 3}, "str": 14, "speed": 6,
                 "weapons": [{"name": "axe", "damage": "1d8", "fierce": True},
                             {"name": "stick", "damage": "1d4"}]}}
DOOR = {"name": "Door", "id": "door", "kind": "npc", "initiative": -50,
        "stats": {"nature": "object", "str": 16, "fatigue_points": 1, "size": "medium",
                  "load_limit": 100}}


def dog(**stats: Any) -> dict[str, Any]:
    return {"name": "Dog", "id": "dog", "kind": "npc", "initiative": 0,
            "stats": {"fatigue_points": 30, **stats}}


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], **options: Any) -> Scene:
        return await tables.started(combatants, **options)

    return create


@BOTH_TRANSPORTS
async def test_breaking_an_object_is_a_strength_check_against_its_dc(make: Make) -> None:
    scene = await make([ACE, DOOR])
    refused = await scene.refused("ace", "break_object", target="ace")
    assert refused["code"] == "invalid_payload"
    await scene.act("ace", "break_object", target="door")
    await roll(scene, 12)  # 12 + Str 2 + 3 = 17 against DC 15 + Str 3 = 18: holds
    check = last(scene, "check_made")
    assert (check["total"], check["dc"], check["success"]) == (17, 18, False)
    await scene.act("ace", "end_turn")
    await scene.act("door", "end_turn")
    await scene.act("ace", "break_object", target="door")
    await roll(scene, 13)
    assert last(scene, "check_made")["success"]
    assert scene.state.vitals["door"].condition == ("destroyed",)


async def test_objects_take_structure_loss_from_fierce_weapons_only(make: Make) -> None:
    scene = await make([ACE, {**DOOR, "stats": {**DOOR["stats"], "fatigue_points": 50}}])
    # an unattended, immobile object: Reflex Defense 5 + size 0 (Destructive Harvest)
    await scene.act("ace", "attack", target="door", weapon="stick")
    await roll(scene, 2)  # 2 + 5 = 7 against 5
    assert last(scene, "attack_resolved")["defense_value"] == 5
    await roll(scene, 4)
    assert scene.state.vitals["door"].structure_loss == 0  # a stick is not fierce (R46)
    await scene.act("ace", "end_turn")
    await scene.act("door", "end_turn")
    await scene.act("ace", "attack", target="door", weapon="axe")
    await roll(scene, 10)
    await roll(scene, 6)  # 6 + Str 2 = 8 structure loss, below the threshold (Fortitude 10)
    assert scene.state.vitals["door"].structure_loss == 8
    await scene.act("ace", "end_turn")
    await scene.act("door", "end_turn")
    await scene.act("ace", "attack", target="door", weapon="axe")
    await roll(scene, 10)
    await roll(scene, 3)  # 5 more: 13 reaches 10, one step down, 3 carried over (R46)
    door = scene.state.vitals["door"]
    assert (door.structure_loss, door.physical.step) == (3, 1)
    assert await scene.replays()


async def test_a_held_object_uses_its_holders_reflex_defense(make: Make) -> None:
    scene = await make([ACE, dog(dex=14), DOOR])
    await scene.act("ace", "attack", target="door", weapon="axe", held_by="dog")
    await roll(scene, 2)
    # Held, Carried, or Worn Objects: 10 + size 0 + the holder's Reflex (10 + Dex 2)
    assert last(scene, "attack_resolved")["defense_value"] == 22


async def test_an_overloaded_object_moves_down_each_round_then_breaks(make: Make) -> None:
    scene = await make([ACE, DOOR])
    await scene.do("load_object", combatant="door", weight=150)
    assert scene.state.vitals["door"].physical.step == 1  # at once (Strength)
    await scene.turns_in_round()
    await scene.act("ace", "end_turn")  # the same count in the next round
    assert scene.state.vitals["door"].physical.step == 2
    await scene.do("load_object", combatant="door", weight=250)  # beyond twice: disabled
    assert scene.state.vitals["door"].condition == ("destroyed",)


@BOTH_TRANSPORTS
async def test_a_ram_hurts_both_and_a_collision_needs_no_roll(make: Make) -> None:
    scene = await make([ACE, dog()])
    await scene.act("ace", "ram", target="dog")
    await roll(scene, 10)  # 10 + 5 against Reflex 10: hit
    # R23: speed 6 + Str 2 + size damage 2d6 (Medium), both take it
    await roll(scene, 3, 4)
    losses = scene.events("damage_dealt")
    assert [(d["target"], d["loss"]) for d in losses] == [("dog", 15), ("ace", 15)]
    await scene.do("collide", first="ace", second="dog")
    # R80: what the dog takes is Ace's size damage, Ace's dice: its player throws them
    assert last(scene, "roll_requested")["purpose"] == "collision damage"
    await roll(scene, 2, 5)
    collision = scene.events("damage_dealt")[2:]
    assert {d["target"] for d in collision} == {"ace", "dog"}
    # Collision (R23): speeds 6 + 6, Ace's Str +2, 2 + 5 on Ace's 2d6
    assert collision[-1]["target"] == "dog" and collision[-1]["loss"] == 21


async def test_recover_takes_three_swift_actions_when_the_option_allows(make: Make) -> None:
    scene = await make([ACE, dog()])
    assert "recover" not in [a["action"] for a in scene.legal]  # R18: not in a scene
    await scene.do("set_options", options={"players_roll": True, "recover_in_scene": True})
    await scene.do("adjust_combatant", combatant="ace", fatigue=5, reason="winded")
    for _ in range(3):
        await scene.act("ace", "recover")
    assert scene.state.vitals["ace"].fatigue == 6


async def test_a_helpless_target_loses_its_dexterity_and_gives_plus_2(make: Make) -> None:
    scene = await make([ACE, dog(dex=16)])
    await scene.do("adjust_combatant", combatant="dog", helpless=True, reason="tied up")
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 2)
    attack = last(scene, "attack_resolved")
    assert attack["defense_value"] == 5  # Dexterity treated as 0: -5 (HELPLESS CONDITION)
    assert ["helpless target", 2] in [[m["name"], m["value"]] for m in attack["modifiers"]]


async def test_a_nights_rest_after_the_scene_heals_all_but_the_persistent(make: Make) -> None:
    bee = {**ACE, "name": "Bee", "id": "bee", "initiative": 25}
    scene = await make([ACE, bee, dog()])
    await scene.do("adjust_combatant", combatant="ace", fatigue=2, physical_step=3,
                   reason="bruised")
    await scene.do("adjust_combatant", combatant="bee", fatigue=2, physical_step=3,
                   physical_persistent=1, reason="a broken leg")
    await scene.do("end_encounter", reason="camp", rest=True)
    ace, bee_now = scene.state.vitals["ace"], scene.state.vitals["bee"]
    assert (ace.fatigue, ace.physical.step) == (10, 0)  # Natural Healing
    assert (bee_now.fatigue, bee_now.physical.step) == (2, 2)  # only R50's step (R17)


async def test_a_harvest_gains_one_unit_per_point_of_the_harvest_roll(make: Make) -> None:
    miner = {**ACE, "stats": {**ACE["stats"], "skills": {"profession_miner": 6}}}
    rock = {**DOOR, "name": "Rock", "id": "rock", "stats": {"nature": "object",
                                                           "fatigue_points": 50}}
    scene = await make([miner, rock])
    await scene.act("ace", "harvest", skill="profession_miner", resource="gems",
                    weapon="axe")
    await roll(scene, 14)  # 14 + 6 = 20 against 10: +2 on the harvest roll (every 5 over)
    check = last(scene, "check_made")
    assert (check["check"], check["total"], check["success"]) == ("harvest", 20, True)
    await roll(scene, 5)
    got = last(scene, "harvested")
    assert (got["rolled"], got["bonus"], got["resources"], got["resource"]) == (5, 2, 7, "gems")


async def test_options_for_engage_and_a_ram_by_the_distance_moved(make: Make) -> None:
    hero = {**ACE, "stats": {**ACE["stats"], "heroic_level": 4}}
    scene = await make([hero, dog()], engage_adds_half_level=False,
                       ram_speed_from_distance=True)
    await scene.act("ace", "attack", target="dog", engage=True)
    await roll(scene, 15)
    await roll(scene, 3)  # Engage without half level (R12 option): 3 + Str 2
    bonuses = {b["name"]: b["value"] for b in last(scene, "damage_dealt")["bonuses"]}
    assert "one-half heroic level" not in bonuses and last(scene, "damage_dealt")["loss"] == 5
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    refused = await scene.refused("ace", "ram", target="dog")
    assert "distance moved" in refused["message"]  # R23 option: the squares moved count
    await scene.act("ace", "ram", target="dog", moved=3)
    await roll(scene, 15)
    await roll(scene, 1, 1)  # 3 squares + Str 2 + 2d6 (2) = 7
    assert last(scene, "damage_dealt")["loss"] == 7
