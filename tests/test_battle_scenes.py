"""The battle map, grabs, aid, distraction, falling and the end of the scene in "MLP Dramatic
Systems": one scenario per rule on the engine's in-process table (``tests/scene.py``; some
also through the real protocol against a real Redis). Player
characters roll physical dice (``players_roll``), so each scenario states its faces; maps are
drawn in text (``.`` floor, ``#`` blocked, ``~`` difficult terrain, ``:`` fog)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from rules.battle_map import BattleMap
from tests.scene import BOTH_TRANSPORTS, Scene, Tables
from tests.test_resolution import last, roll

Make = Callable[..., Awaitable[Scene]]


def drawn(text: str) -> dict[str, Any]:
    import msgspec

    return msgspec.to_builtins(BattleMap.from_ascii(text))  # type: ignore[no-any-return]


OPEN = drawn("""
    ........
    ........
    ........
    ........
""")


def pony(cid: str, at: list[int], init: int = 50, **stats: Any) -> dict[str, Any]:
    return {"name": cid.title(), "id": cid, "kind": "pc", "initiative": init, "position": at,
            "stats": {"skills": {"melee": 5, "ranged": 4},
                      "weapons": [{"name": "bow", "damage": "1d8", "kind": "ranged"}], **stats}}


def dog(at: list[int] | None, cid: str = "dog", init: int = 0, **stats: Any) -> dict[str, Any]:
    return {"name": cid.title(), "id": cid, "kind": "npc", "initiative": init, "position": at,
            "stats": stats}


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], battle_map: dict[str, Any] | None = OPEN,
                     **options: Any) -> Scene:
        return await tables.started(combatants, battle_map, **options)

    return create


# --- moving on the map ------------------------------------------------------------------------


@BOTH_TRANSPORTS
async def test_a_move_spends_speed_and_diagonals_cost_double(make: Make) -> None:
    scene = await make([pony("ace", [0, 0], speed=4), dog([7, 3])])
    # MOVE ACTIONS: Move; DIAGONAL MOVEMENT: each diagonal counts as 2 squares
    await scene.act("ace", "move", path=[[1, 1], [2, 1]])
    moved = last(scene, "combatant_moved")
    assert (moved["cost"], moved["budget"], moved["path"]) == (3, 4, [[1, 1], [2, 1]])
    assert scene.state.positions["ace"] == (2, 1)
    refused = await scene.refused("ace", "move", path=[[3, 2], [4, 3], [5, 3]])
    assert refused["code"] == "illegal_action" and "5" in refused["message"]  # 2+2+1 > 4
    assert scene.state.positions["ace"] == (2, 1)


async def test_walls_block_and_difficult_terrain_costs_double(make: Make) -> None:
    battle_map = drawn("""
        .#..
        .~..
        ....
    """)
    scene = await make([pony("ace", [0, 0]), dog([3, 2])], battle_map)
    assert (await scene.refused("ace", "move", path=[[1, 0]]))["code"] == "illegal_action"
    corner = await scene.refused("ace", "move", path=[[1, 1]])
    assert "cuts the corner of a wall" in corner["message"]  # DIAGONAL MOVEMENT
    await scene.act("ace", "move", path=[[0, 1], [1, 1], [2, 1]])  # 1, difficult 2, 1
    assert last(scene, "combatant_moved")["cost"] == 4


async def test_a_large_pony_pays_for_mud_only_where_its_space_moves_into_it(
        make: Make) -> None:
    """Ruling R78 (DIFFICULT TERRAIN: "Creatures of Large size and bigger must pay the extra
    cost for moving across difficult terrain if any part of their ocupied squares moves into
    such a space"): the step onto the mud at (2,1) costs 2, the steps with the mud already
    under the pony's 2x2 space cost 1 each."""
    battle_map = drawn("""
        ....
        ..~.
        ....
        ....
    """)
    scene = await make([pony("big", [0, 0], size="large", speed=6), dog(None)], battle_map)
    await scene.act("big", "move", path=[[1, 0], [2, 0], [2, 1]])  # 2 + 1 + 1
    moved = last(scene, "combatant_moved")
    assert (moved["cost"], moved["budget"]) == (4, 6)
    assert scene.state.positions["big"] == (2, 1)
    assert await scene.replays()


async def test_without_a_map_a_move_only_spends_the_action(make: Make) -> None:
    scene = await make([pony("ace", None), dog(None)], None)  # type: ignore[arg-type]
    assert await scene.act("ace", "move") == ["action_taken"]
    refused = await scene.refused("ace", "move", path=[[1, 0]])
    assert "not on a battle map" in refused["message"]


# --- what the map decides about an attack -----------------------------------------------------


async def test_melee_needs_reach_and_ranged_range_comes_from_the_map(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), dog([5, 0])])
    refused = await scene.refused("ace", "attack", target="dog")
    assert "out of Ace's reach" in refused["message"]
    # 4 squares between them: the bow's point blank range (R64, DIAGONAL MOVEMENT)
    await scene.act("ace", "attack", target="dog", weapon="bow", range="long", cover="total")
    await roll(scene, 10)
    attack = last(scene, "attack_resolved")
    names = {m["name"]: m["value"] for m in attack["modifiers"]}
    assert names["range (point blank)"] == 0  # the map's answer, not the stated one


@BOTH_TRANSPORTS
async def test_a_thrown_weapon_makes_a_ranged_attack_without_throw(make: Make) -> None:
    """STANDARD ACTIONS: "With a ranged or Athletics roll ... you can throw or shoot at any
    target within your line of sight": a weapon of kind ``thrown`` is thrown at the range the
    map gives (thrown bands 6/8/10/12), with the Ranged skill and no improvised -5; a melee
    weapon thrown with ``throw`` takes the -5 (Improvised Thrown Objects)."""
    weapons = [{"name": "javelin", "damage": "1d6", "kind": "thrown"},
               {"name": "club", "damage": "1d6"}]
    scene = await make([pony("ace", [0, 0], weapons=weapons), dog([7, 0])])
    refused = await scene.refused("ace", "attack", target="dog", weapon="club")
    assert "out of Ace's reach" in refused["message"]
    await scene.act("ace", "attack", target="dog", weapon="javelin")
    await roll(scene, 10)
    names = {m["name"]: m["value"] for m in last(scene, "attack_resolved")["modifiers"]}
    assert names == {"Ranged skill": 4, "range (short)": -2}  # 6 squares between them
    await roll(scene, 3)
    assert last(scene, "damage_dealt")["dice"] == "1d6"
    await scene.act("ace", "end_turn")
    await scene.act("dog", "end_turn")
    await scene.act("ace", "attack", target="dog", weapon="club", throw=True)
    await roll(scene, 10)
    names = {m["name"]: m["value"] for m in last(scene, "attack_resolved")["modifiers"]}
    assert names["improvised thrown object"] == -5


async def test_a_creature_in_between_gives_cover_and_fog_conceals(make: Make) -> None:
    battle_map = drawn("""
        ......
        .....:
        ......
    """)
    scene = await make([pony("ace", [0, 1]), dog([5, 1]), dog([2, 1], "pup", init=-10)],
                       battle_map)
    await scene.act("ace", "attack", target="dog", weapon="bow")
    await roll(scene, 10)
    attack = last(scene, "attack_resolved")
    assert attack["defense_value"] == 12  # Reflex 10 + cover 2 (COVER, R9)
    assert {"concealment": -2}.items() <= {m["name"]: m["value"]
                                           for m in attack["modifiers"]}.items()


async def test_total_cover_behind_a_wall_refuses_the_attack(make: Make) -> None:
    battle_map = drawn("""
        .....
        ..#..
        ..#..
        ..#..
        .....
    """)
    scene = await make([pony("ace", [0, 2]), dog([4, 2])], battle_map)
    refused = await scene.refused("ace", "attack", target="dog", weapon="bow")
    assert "total cover" in refused["message"]


# --- grab, aid another, distraction ----------------------------------------------------------


@BOTH_TRANSPORTS
async def test_a_grab_holds_the_target_until_it_breaks_free(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), pony("bee", [1, 0], init=0)])
    await scene.act("ace", "grab", target="bee")
    await roll(scene, 15)  # 15 + 5 - 5 (grab) = 15 against Reflex 10: held, no damage
    attack = last(scene, "attack_resolved")
    assert ["grab", -5] in [[m["name"], m["value"]] for m in attack["modifiers"]]
    assert scene.state.grabs == {"bee": ["ace"]}
    await scene.act("ace", "end_turn")
    refused = await scene.refused("bee", "move", path=[[2, 0]])
    assert "grabbed" in refused["message"]
    assert "move" not in [a["action"] for a in scene.legal if a.get("combatant") == "bee"]
    # -2 on its skill rolls while grabbed
    await scene.act("bee", "attack", target="ace")
    await roll(scene, 10)
    assert ["grabbed", -2] in [[m["name"], m["value"]]
                               for m in last(scene, "attack_resolved")["modifiers"]]
    await roll(scene, 1)  # the damage die of the hit (10 + 5 - 2 = 13 against 10)
    assert scene.state.positions["bee"] == (1, 0)


async def test_breaking_a_grab_frees_the_creature(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), pony("bee", [1, 0], init=0)])
    await scene.act("ace", "grab", target="bee")
    await roll(scene, 15)
    await scene.act("ace", "end_turn")
    assert await scene.act("bee", "break_grab") == ["action_taken", "grab_changed"]
    assert scene.state.grabs == {}
    await scene.act("bee", "move", path=[[2, 0]])
    assert scene.state.positions["bee"] == (2, 0)


async def test_aid_another_gives_plus_2_to_the_next_attack(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), pony("bee", [1, 0], init=25), dog([2, 0])])
    await scene.act("ace", "aid_another", target="bee")
    await roll(scene, 5)  # 5 + Melee 5 = 10: success (R11)
    check = last(scene, "check_made")
    assert (check["check"], check["total"], check["success"]) == ("aid_another", 10, True)
    await scene.act("ace", "end_turn")
    await scene.act("bee", "attack", target="dog")
    await roll(scene, 3)
    names = {m["name"]: m["value"] for m in last(scene, "attack_resolved")["modifiers"]}
    assert names["aid another (1)"] == 2
    assert scene.state.aid == {}  # spent on that check


async def test_a_distraction_costs_the_target_2_on_its_next_roll(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), pony("bee", [1, 0], init=0)])
    await scene.act("ace", "distraction", target="bee", skill="ranged")
    await roll(scene, 6)  # 6 + Ranged 4 = 10: success
    await scene.act("ace", "end_turn")
    await scene.act("bee", "attack", target="ace")
    await roll(scene, 10)
    names = {m["name"]: m["value"] for m in last(scene, "attack_resolved")["modifiers"]}
    assert names["distracted"] == -2
    assert scene.state.distracted == {}


# --- falling and the end of the scene ----------------------------------------------------------


async def test_a_fall_deals_a_d6_per_3_meters_and_lands_prone(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), dog([3, 3], fatigue_points=30)], dice_seed=2)
    events = await scene.do("fall", combatant="dog", meters=7.5)
    assert "damage_dealt" in events
    damage = last(scene, "damage_dealt")
    assert damage["dice"] == "2d6"  # two whole 3-meter steps (R22)
    fall = last(scene, "attack_resolved")
    assert (fall["action"], fall["defense"]) == ("fall", "fortitude")
    assert scene.state.vitals["dog"].prone
    expected = damage["rolled"] if fall["outcome"] == "hit" else damage["rolled"] // 2
    assert damage["loss"] == expected


async def test_after_the_scene_every_conscious_creature_moves_a_step_up(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), dog([3, 3], con=30)], dice_seed=2)
    await scene.do("adjust_combatant", combatant="ace", physical_step=2, physical_persistent=1,
                   mental_step=1, reason="a hard day")
    await scene.do("adjust_combatant", combatant="dog", condition="unconscious",
                   physical_step=5, reason="knocked out")
    events = await scene.do("end_encounter", reason="the dogs flee")
    assert "check_made" in events  # R16: the unconscious roll when the scene ends
    ace = scene.state.vitals["ace"]
    assert (ace.physical.step, ace.mental.step) == (1, 0)  # R50, not below persistent (R17)
    assert scene.state.vitals["dog"].conscious  # Con +10 wakes it


async def test_a_prone_creature_crawls_one_square(make: Make) -> None:
    scene = await make([pony("ace", [0, 0]), dog([7, 3])])
    await scene.act("ace", "fall_prone")
    refused = await scene.refused("ace", "move", path=[[1, 0], [2, 0]])
    assert refused["code"] == "illegal_action"  # R19: one square a move action
    await scene.act("ace", "move", path=[[1, 0]])
    assert last(scene, "combatant_moved")["mode"] == "crawl"


async def test_running_goes_four_times_the_speed_in_a_straight_line(make: Make) -> None:
    battle_map = drawn("." * 12 + "\n" + "." * 12)
    scene = await make([pony("ace", [0, 0], speed=2), dog([11, 1])], battle_map)
    bent = await scene.refused("ace", "run", path=[[1, 0], [2, 1]])
    assert bent["code"] == "illegal_action"  # FULL-ROUND ACTIONS: Run, a straight line
    await scene.act("ace", "run", path=[[x, 0] for x in range(1, 9)])  # 8 = 4 x 2 (R21)
    moved = last(scene, "combatant_moved")
    assert (moved["mode"], moved["cost"], moved["budget"]) == ("run", 8, 8)
