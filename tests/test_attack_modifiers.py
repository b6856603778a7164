"""Every modifier of an attack roll and of a defense, one scenario each ("MLP Dramatic Systems",
ATTACK ROLL, DEFENSES, CONCEALMENT, COVER, PRONE TARGETS, HELPLESS CONDITION, RANGED MANEUVER
INTO A MELEE, STANDARD ACTIONS; rulings R9-R11, R15, R41, R53), on the engine's in-process
table (``tests/scene.py``; one also through the real protocol against a real Redis): the
attack is declared, its d20 given, and the ``attack_resolved`` event must name the modifier with
its value (or the defense must show it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.scene import BOTH_TRANSPORTS, Scene, Tables
from tests.test_resolution import last, roll

Make = Callable[..., Awaitable[Scene]]

ACE = {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50,
       "stats": {"skills": {"melee": 4, "ranged": 4},
                 "weapons": [{"name": "bow", "damage": "1d8", "kind": "ranged"},
                             {"name": "rock", "damage": "1d4", "kind": "thrown",
                              "improvised": True}]}}
DOG = {"name": "Dog", "id": "dog", "kind": "npc", "initiative": 0,
       "stats": {"dex": 14, "fatigue_points": 40}}
PUP = {"name": "Pup", "id": "pup", "kind": "npc", "initiative": -10, "stats": {}}


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], **options: Any) -> Scene:
        return await tables.started(combatants, **options)

    return create


def stats(block: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {**block, "stats": {**block["stats"], **more}}


# (case, stat blocks, GM rulings before the attack, attack args, modifier or defense part, value)
CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], str, int]] = [
    ("cover +2 to Reflex (COVER)", [ACE, DOG], [], {"weapon": "bow", "range": "short",
                                                   "cover": "cover"}, "defense:cover", 2),
    ("improved cover +4 (Improved Cover)", [ACE, DOG], [],
     {"weapon": "bow", "range": "short", "cover": "improved"}, "defense:improved cover", 4),
    ("concealment -2 (CONCEALMENT)", [ACE, DOG], [],
     {"weapon": "bow", "range": "short", "concealment": "concealment"}, "concealment", -2),
    ("total concealment -5 (Total Concealment)", [ACE, DOG], [],
     {"weapon": "bow", "range": "short", "concealment": "total", "at_square": True},
     "total concealment", -5),
    ("short range -2", [ACE, DOG], [], {"weapon": "bow", "range": "short"}, "range (short)", -2),
    ("long range -10", [ACE, DOG], [], {"weapon": "bow", "range": "long"}, "range (long)", -10),
    ("a prone target, melee +2 (PRONE TARGETS, R10)", [ACE, DOG],
     [{"combatant": "dog", "prone": True}], {}, "prone target", 2),
    ("attacking while prone -2 (R53)", [ACE, DOG], [{"combatant": "ace", "prone": True}], {},
     "attacking while prone", -2),
    ("ranged into melee -2", [ACE, DOG, PUP], [], {"weapon": "bow", "range": "short",
                                                  "into_melee": True}, "into melee", -2),
    ("Precise Shot: no penalty into melee", [stats(ACE, feats=["precise_shot"]), DOG, PUP], [],
     {"weapon": "bow", "range": "short", "into_melee": True}, "into melee (Precise Shot)", 0),
    ("an improvised thrown object -5", [ACE, DOG], [], {"weapon": "rock", "range": "short"},
     "improvised thrown object", -5),
    ("the attacker's condition track (R15)", [ACE, DOG],
     [{"combatant": "ace", "physical_step": 3}], {}, "condition (physical step 3)", -5),
    ("size on Reflex: a Small target +1 (DEFENSES)", [ACE, stats(DOG, size="small")], [], {},
     "defense:size (small)", 1),
    ("Dexterity on Reflex (DEFENSES)", [ACE, DOG], [], {}, "defense:Dexterity modifier", 2),
]


@pytest.mark.parametrize(("blocks", "rulings", "args", "name", "value"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_each_modifier_is_itemised(make: Make, blocks: list[dict[str, Any]],
                                         rulings: list[dict[str, Any]], args: dict[str, Any],
                                         name: str, value: int) -> None:
    scene = await make(blocks)
    for ruling in rulings:
        await scene.do("adjust_combatant", reason="the scenario", **ruling)
    await scene.act("ace", "attack", target="dog", **args)
    await roll(scene, 10)
    attack = last(scene, "attack_resolved")
    if name.startswith("defense:"):
        parts = {p["name"]: p["value"] for p in attack["defense_parts"]}
        assert parts.get(name.removeprefix("defense:")) == value, parts
    else:
        parts = {m["name"]: m["value"] for m in attack["modifiers"]}
        assert parts.get(name) == value, parts
    assert attack["total"] == 10 + sum(m["value"] for m in attack["modifiers"])


async def test_a_sight_based_attack_on_a_totally_concealed_target_aims_at_its_square(
        make: Make) -> None:
    """Total Concealment: "You are unable to use sight based skills checks or maneuver on an
    opponent that has total concealment, though you can try to affect the square that you
    think he occupies. If you do so, you take a -5 penalty" (R67.5): an attack or a grab at a
    target in total concealment is refused with a sentence that says so, unless it is aimed at
    the square (``at_square``), at -5; before, it was taken as aimed at the square unasked."""
    scene = await make([ACE, DOG])
    for action, args in (("attack", {"weapon": "bow", "range": "short"}), ("grab", {})):
        refused = await scene.refused("ace", action, target="dog", concealment="total", **args)
        assert refused["code"] == "illegal_action"
        assert "total concealment" in refused["message"] and "sight-based" in refused["message"]
        assert "at_square" in refused["message"]
    await scene.act("ace", "attack", target="dog", weapon="bow", range="short",
                    concealment="total", at_square=True)
    await roll(scene, 10)
    parts = {m["name"]: m["value"] for m in last(scene, "attack_resolved")["modifiers"]}
    assert parts["total concealment"] == -5
    # on a map, darkness between them is total concealment: the same refusal, the same -5
    lit = await make([{**ACE, "position": [0, 0]}, {**DOG, "position": [3, 0]}],
                     battle_map={"width": 6, "height": 2, "darkness": [[3, 0]]})
    refused = await lit.refused("ace", "attack", target="dog", weapon="bow")
    assert "sight-based" in refused["message"]
    await lit.act("ace", "attack", target="dog", weapon="bow", at_square=True)
    await roll(lit, 10)
    attack = last(lit, "attack_resolved")
    assert {m["name"]: m["value"] for m in attack["modifiers"]}["total concealment"] == -5
    assert await lit.replays()


@BOTH_TRANSPORTS
async def test_a_flat_footed_target_loses_its_dexterity_bonus(make: Make) -> None:
    # the surprise round: the unaware dog is flat-footed (FLAT-FOOTED, R41)
    scene = await make([ACE, {**DOG, "aware": False}])
    assert "dog" in scene.state.flat_footed
    await scene.act("ace", "attack", target="dog")
    await roll(scene, 10)
    parts = {p["name"]: p["value"] for p in last(scene, "attack_resolved")["defense_parts"]}
    assert parts["Dexterity bonus lost (flat-footed)"] == -2
    assert last(scene, "attack_resolved")["defense_value"] == 10


async def test_losses_at_0_fatigue_become_persistent_and_crippling_steps(make: Make) -> None:
    scene = await make([ACE, DOG])
    await scene.do("adjust_combatant", combatant="dog", fatigue=0, reason="worn out")
    # R14.2 with the threshold of Fortitude 10: 11 is one persistent step
    await scene.do("adjudicate", description="a hard blow", target="dog",
                   on_success={"fatigue_loss": 11})
    dog = scene.state.vitals["dog"]
    assert (dog.physical.step, dog.physical.persistent, dog.physical.crippling) == (1, 1, 0)
    # 21: a persistent and a crippling step
    await scene.do("adjudicate", description="a harder blow", target="dog",
                   on_success={"fatigue_loss": 21})
    dog = scene.state.vitals["dog"]
    assert (dog.physical.step, dog.physical.persistent, dog.physical.crippling) == (3, 3, 1)
