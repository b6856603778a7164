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

import pytest

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
    await scene.do("adjust_combatant", combatant="ace", condition="unconscious",
                   reason="knocked out")
    check_round = scene.state.vitals["ace"].check_round
    assert check_round is not None
    while scene.state.round < check_round or scene.state.current != "ace":
        await scene.act("dog", "end_turn")
    await roll(scene, 3)  # 5 against DC 10: stays unconscious, persistent (R16, R17)
    assert scene.state.vitals["ace"].condition == ["unconscious", "out_for_scene"]
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
