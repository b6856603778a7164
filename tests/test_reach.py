"""Where a move can go (``rules.movement.reach_of_move`` / ``reach_of_run``; ruling R106): on
random maps with walls, blocked squares, difficult terrain, low objects and pits, among allies
and foes, a square is listed exactly when a move there is accepted. "Accepted" is asked of
``validate_move`` / ``validate_run`` for every path the mover's budget allows (all of them,
square by square), so the search is checked against the rules' own check, not against a
second implementation. The query over the wire (``get_reach``) is in ``tests/test_web.py``'s
map tests and below."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.client import Client, CommandError
from rules.battle_map import BattleMap, Placement, Size, Square
from rules.movement import (
    IllegalMove,
    Occupant,
    reach_of_move,
    reach_of_run,
    validate_move,
    validate_run,
)
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import create_table, join, until_turn_of

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


def scene(seed: int) -> tuple[BattleMap, Placement, list[Occupant], int, bool]:
    """A small random map, a mover on open floor, a few others and a speed."""
    rnd = random.Random(seed)
    width, height = rnd.randint(4, 7), rnd.randint(4, 6)
    squares = [(x, y) for x in range(width) for y in range(height)]
    rnd.shuffle(squares)
    size = Size.LARGE if rnd.random() < 0.2 else Size.MEDIUM
    side = 2 if size is Size.LARGE else 1
    start = (rnd.randrange(width - side + 1), rnd.randrange(height - side + 1))
    mine = {(start[0] + i, start[1] + j) for i in range(side) for j in range(side)}
    free = [s for s in squares if s not in mine]
    layers: dict[str, list[Square]] = {"blocked": [], "difficult": [], "low": [], "pits": []}
    for s in free[: rnd.randint(0, len(free) // 2)]:
        layers[rnd.choice(list(layers))].append(s)
    walls = []
    for _ in range(rnd.randint(0, 3)):
        x, y = rnd.randint(1, width - 1), rnd.randint(0, height - 1)
        walls.append(((x, y), (x, y + 1)) if rnd.random() < 0.5 else ((y % width, x % height),
                                                                       (y % width + 1,
                                                                        x % height)))
    walls = [w for w in walls if all(0 <= p[0] <= width and 0 <= p[1] <= height for p in w)]
    battle_map = BattleMap(width=width, height=height, walls=tuple(walls),
                           **{k: tuple(v) for k, v in layers.items()})
    taken = {*layers["blocked"], *mine}
    others = []
    for n, s in enumerate(s for s in free if s not in taken):
        if n >= rnd.randint(0, 3):
            break
        others.append(Occupant(id=f"o{n}", at=Placement(x=s[0], y=s[1]),
                               hostile=rnd.random() < 0.5, helpless=rnd.random() < 0.2))
    return (battle_map, Placement(x=start[0], y=start[1], size=size), others,
            rnd.randint(1, 3), rnd.random() < 0.15)


def accepted_ends(battle_map: BattleMap, mover: Placement, longest: int,
                  check: Any) -> dict[Square, int]:
    """Every square but the mover's own (R106: away and back is no move to list) that some
    path of at most ``longest`` steps ends on and ``check`` accepts, with the cheapest cost
    accepted."""
    ends: dict[Square, int] = {}
    for n in range(1, longest + 1):
        for steps in itertools.product(_STEPS, repeat=n):
            here, path = mover.at, []
            for dx, dy in steps:
                here = (here[0] + dx, here[1] + dy)
                path.append(here)
            try:
                plan = check(path)
            except (IllegalMove, ValueError):
                continue
            if plan.end != mover.at:
                ends[plan.end] = min(plan.total, ends.get(plan.end, plan.total))
    return ends


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32))
def test_a_square_is_listed_exactly_when_a_move_there_is_accepted(seed: int) -> None:
    battle_map, mover, others, speed, prone = scene(seed)

    def check(path: list[Square]) -> Any:
        return validate_move(battle_map, mover, path, speed=speed, others=others, prone=prone)

    budget, reach = reach_of_move(battle_map, mover, speed=speed, others=others, prone=prone)
    listed = {r.at: r.cost for r in reach}
    assert listed == accepted_ends(battle_map, mover, budget, check)
    for r in reach:  # each with a path the rules accept, at the cost listed
        assert check(list(r.path)).total == r.cost and r.path[-1] == r.at


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_a_run_lists_the_squares_of_the_straight_lines_it_may_take(seed: int) -> None:
    battle_map, mover, others, speed, _ = scene(seed)
    speed = 1  # a run of 4 squares: every straight line is tried whole below

    def check(path: list[Square]) -> Any:
        return validate_run(battle_map, mover, path, speed=speed, others=others)

    budget, reach = reach_of_run(battle_map, mover, speed=speed, others=others)
    ends: dict[Square, int] = {}
    for dx, dy in _STEPS:
        for n in range(1, budget + 1):
            path = [(mover.at[0] + i * dx, mover.at[1] + i * dy) for i in range(1, n + 1)]
            try:
                ends[path[-1]] = check(path).total
            except (IllegalMove, ValueError):
                continue  # (a straight line never comes back to the mover's square)
    assert {r.at: r.cost for r in reach} == ends


def test_a_prone_creature_runs_nowhere_and_crawls_one_square() -> None:
    battle_map = BattleMap(width=5, height=5)
    mover = Placement(x=2, y=2)
    assert reach_of_run(battle_map, mover, speed=6, prone=True)[1] == []
    budget, reach = reach_of_move(battle_map, mover, speed=6, prone=True)
    assert budget == 1 and len(reach) == 8 and {r.cost for r in reach} == {1}


async def test_get_reach_answers_as_the_move_would_be_and_only_when_it_may_be_taken(
        server: Server, clients: list[Client]) -> None:
    """Over the wire: on her turn a player asks where Twilight may move; a move along the
    path given to the farthest square listed is accepted, and one to a square not listed is
    refused. Out of turn, for another's combatant, or in Action Time (no map, R103), the
    query is refused as the action would be."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await gm.command("set_map", map={"width": 10, "height": 4, "difficult": [[2, 0], [2, 1]],
                                     "blocked": [[4, 0], [4, 1], [4, 2]]})
    for cid, at in (("twilight", [0, 0]), ("dash", [0, 3]), ("applejack", [1, 3]),
                    ("fluttershy", [2, 3]), ("dog", [9, 3])):
        await gm.command("place_combatant", combatant=cid, at=at)
    player = await join(url, table.tokens["twilight"], clients)
    with pytest.raises(CommandError) as refused:
        await player.command("get_reach", combatant="twilight")
    assert refused.value.code == "illegal_action"  # before the scene starts
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    answer = (await player.command("get_reach", combatant="twilight"))["result"]
    assert answer["combatant"] == "twilight" and answer["action"] == "move"
    assert answer["from"] == [0, 0] and answer["budget"] == 6
    squares = {tuple(s["at"]): s for s in answer["squares"]}
    assert (4, 0) not in squares and (0, 0) not in squares  # a blocked square; its own
    # 1 for (1, 0), then 2 into difficult terrain (R20); beyond the wall of blocked squares,
    # nothing (around it through the allies' row costs more than 6: diagonals count 2)
    assert squares[(2, 0)]["cost"] == 3 and squares[(3, 0)]["cost"] == 4
    assert not any(x > 4 for x, _ in squares)
    with pytest.raises(CommandError) as refused:
        await player.command("get_reach", combatant="dash")
    assert refused.value.code in ("forbidden", "not_your_turn", "illegal_action")
    run = (await player.command("get_reach", combatant="twilight", action="run"))["result"]
    assert run["budget"] == 24 and run["squares"] and all(  # straight lines from (0, 0)
        0 in s["at"] or s["at"][0] == s["at"][1] for s in run["squares"])
    unlisted = next((x, y) for y in range(4) for x in range(10)
                    if (x, y) not in squares and (x, y) != (0, 0)
                    and (x, y) not in {(4, 0), (4, 1), (4, 2)} and x < 7)
    with pytest.raises(CommandError):
        await player.command("act", combatant="twilight", action="move",
                             args={"path": [list(unlisted)]})
    far = max(squares.values(), key=lambda s: (s["at"][0], s["cost"]))
    await player.command("act", combatant="twilight", action="move", args={"path": far["path"]})
