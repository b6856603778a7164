"""What the map says of each target before the click (``get_aim``; ruling R107): on random
maps with walls, blocked squares, fog and others standing around, a target is answered ``ok``
exactly when the attack (or grab) at it is accepted, and a target not ``ok`` is refused with
the very sentence ``why`` gave. "Accepted" is asked of the action itself, in a fresh table for
each target, so the query is checked against the rules' own checks. Over the wire below."""

from __future__ import annotations

import random
from typing import Any

import pytest

from clients.client import Client, CommandError
from encounter import engine
from encounter.harness import GM, Table
from protocol import messages as msg
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import create_table, join, set_out, until_turn_of

WEAPONS = [{"name": "hoof", "damage": "1d6", "kind": "melee"},
           {"name": "sling", "damage": "1d4", "kind": "ranged",
            "ranges": {"point_blank": 2, "short": 3, "medium": 4, "long": 5}},
           {"name": "stone", "damage": "1d4", "kind": "thrown"}]


def scene(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]], str, str]:
    """A random map, Ace (who attacks first) and two to four others, a weapon and an
    action."""
    rnd = random.Random(seed)
    width, height = rnd.randint(5, 9), rnd.randint(4, 7)
    squares = [(x, y) for x in range(width) for y in range(height)]
    rnd.shuffle(squares)
    people, rest = squares[:5], squares[5:]
    layers: dict[str, list[list[int]]] = {"blocked": [], "fog": [], "improved_cover": []}
    for x, y in rest[: rnd.randint(0, len(rest) // 3)]:
        layers[rnd.choice(list(layers))].append([x, y])
    walls = []
    for _ in range(rnd.randint(0, 4)):
        x, y = rnd.randint(1, width - 1), rnd.randint(0, height - 1)
        walls.append([[x, y], [x, y + 1]])
    battle_map = {"width": width, "height": height, "walls": walls, **layers}
    weapons = WEAPONS
    blocks = [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 30, "side": "party",
               "position": list(people[0]),
               "stats": {"skills": {"melee": 5, "ranged": 5}, "fatigue_points": 12,
                         "weapons": weapons}}]
    for n, at in enumerate(people[1:rnd.randint(3, 5)]):
        blocks.append({"name": f"Other {n}", "id": f"o{n}", "kind": "npc", "initiative": n,
                       "side": rnd.choice(["party", "foes", "foes"]), "position": list(at),
                       "stats": {"fatigue_points": 8, "size": rnd.choice(["medium", "small"])}})
    action = "grab" if rnd.random() < 0.2 else "attack"
    return battle_map, blocks, action, rnd.choice([w["name"] for w in weapons] + ["unarmed"])


def table(seed: int) -> Table:
    battle_map, blocks, _, _ = scene(seed)
    t = Table(blocks, map=battle_map, dice_seed=seed)
    t.do("start_encounter")
    assert t.state.current == "ace"
    return t


def aimed(t: Table, action: str, args: dict[str, Any]) -> dict[str, Any]:
    return engine.aim(t.state, GM, msg.GetAim(id="aim-000000", combatant="ace", action=action,
                                              args=args), t.context())


@pytest.mark.parametrize("seed", range(80))
def test_a_target_is_ok_exactly_when_the_action_at_it_is_accepted(seed: int) -> None:
    t = table(seed)
    _, _, action, weapon = scene(seed)
    args = {"weapon": weapon} if action == "attack" else {}
    entry = next((e for e in t.legal() if e.action == action and e.combatant == "ace"), None)
    if entry is None:  # nobody to grab: get_aim is refused as the action would be
        with pytest.raises(engine.Rejected):
            aimed(t, action, args)
        return
    answer = aimed(t, action, args)
    assert [a["target"] for a in answer["targets"]] == entry.targets
    for a in answer["targets"]:
        fresh = table(seed)
        if a["ok"]:
            fresh.act("ace", action, target=a["target"], **args)  # accepted
            assert set(a) == {"target", "ok", "distance", "cover", "concealment", "into_melee"}
        else:
            refused = fresh.refused_act("ace", action, target=a["target"], **args)
            assert refused.code == "illegal_action" and refused.message == a["why"]


def test_the_scenes_hold_targets_of_both_answers() -> None:
    """The random scenes above are worth their name: some targets are out of reach or line of
    effect, some are in it, with each weapon kind."""
    seen: dict[tuple[str, bool], int] = {}
    for seed in range(80):
        t = table(seed)
        _, _, action, weapon = scene(seed)
        try:
            answer = aimed(t, action, {"weapon": weapon} if action == "attack" else {})
        except engine.Rejected:
            continue
        for a in answer["targets"]:
            key = (weapon if action == "attack" else "grab", a["ok"])
            seen[key] = seen.get(key, 0) + 1
    assert all(seen.get((w, ok), 0) for w in ("hoof", "sling") for ok in (True, False)), seen
    assert sum(n for (_, ok), n in seen.items() if not ok) >= 10, seen


def test_get_aim_refuses_what_it_does_not_answer() -> None:
    t = table(0)
    with pytest.raises(engine.Rejected) as refused:  # not aimed by the map
        aimed(t, "distraction", {})
    assert refused.value.code.value == "illegal_action" and "R107" in refused.value.message
    with pytest.raises(engine.Rejected) as refused:  # the arguments, for every target
        aimed(t, "attack", {"weapon": "no such thing"})
    assert refused.value.code.value == "invalid_payload"
    with pytest.raises(engine.Rejected) as refused:  # every listed target is answered
        aimed(t, "attack", {"target": "o0"})
    assert refused.value.code.value == "invalid_payload"
    with pytest.raises(engine.Rejected) as refused:  # another's turn
        engine.aim(t.state, GM, msg.GetAim(id="aim-000001", combatant="o0", action="attack"),
                   t.context())
    assert refused.value.code.value == "illegal_action"


async def test_get_aim_over_the_wire_marks_a_target_behind_a_wall(
        server: Server, clients: list[Client]) -> None:
    """A player asks, before attacking, whom Twilight's hoof can reach: the foe behind a wall
    of blocked squares is not ok, with the reason the attack is then refused with; an ally
    beside her is; one three squares off is out of reach. Refused for another's combatant."""
    url = ws_url(server)
    t = await create_table(url, clients)
    gm = t.gm
    await set_out(gm, {"width": 10, "height": 4, "blocked": [[5, 0], [5, 1], [5, 2], [5, 3]]},
                  {"twilight": [0, 0], "dash": [1, 0], "applejack": [0, 3], "fluttershy": [2, 3],
                   "dog": [9, 3]})
    player = await join(url, t.tokens["twilight"], clients)
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    await player.wait_until(lambda: any(e["action"] == "attack" for e in player.legal))
    entry = next(e for e in player.legal
                 if e["action"] == "attack" and e["combatant"] == "twilight")
    weapon = entry["options"]["weapon"][0]
    answer = (await player.command("get_aim", combatant="twilight", action="attack",
                                   args={"weapon": weapon}))["result"]
    by = {a["target"]: a for a in answer["targets"]}
    assert list(by) == entry["targets"] and "dog" in by
    assert by["dog"]["ok"] is False and "line of effect" in by["dog"]["why"]
    assert by["dash"] == {"target": "dash", "ok": True, "distance": None, "cover": "none",
                          "concealment": "none", "into_melee": False}
    assert by["applejack"]["ok"] is False and "reach" in by["applejack"]["why"]
    with pytest.raises(CommandError) as refused:
        await player.command("act", combatant="twilight", action="attack",
                             args={"target": "dog", "weapon": weapon})
    assert refused.value.reply["message"] == by["dog"]["why"]
    with pytest.raises(CommandError) as refused:
        await player.command("get_aim", combatant="dash", action="attack")
    assert refused.value.code == "illegal_action"
