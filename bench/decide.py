"""The cost of deciding commands in-process, with no Redis and no sockets.

    python -m bench.decide                   # maps of 12, 40, 100 and 200 squares a side
    python -m bench.decide --sizes 40 --runs 5 --commands 200

Each encounter has 16 combatants ("MLP Dramatic Systems": 8 ponies with a ranged weapon, 8
Diamond Dogs) on a square map with thin walls and difficult terrain across all of it, and a
fixed ``dice_seed``. Each combatant shoots at the enemy 11 squares away in its column (the
same distance on every map, so that the figures show what the size of the map costs;
``--distance`` changes it, up to the map's side). For each map size it times, on the state
the server holds between commands: ``engine.decide`` of a ranged attack (the server rolls the
d20 and the damage), ``engine.decide`` of ``end_turn``, and ``legal_actions`` for the GM in the
turn's state. Every
figure is the median over ``--runs`` runs of the median (and the max) over ``--commands``
commands of that kind; the attacks and ends of turn alternate, so each is decided in a state
like the one a table would be in.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import statistics
import time
from typing import Any

import msgspec

from encounter import engine
from encounter.actors import Actor
from encounter.legal import legal_actions
from encounter.state import EncounterState
from protocol import messages as msg
from protocol.model import BattleMap, EncounterOptions, StatBlock

GM = Actor(role="gm", token_id="gm")


def battle_map(side: int, seed: int = 7) -> dict[str, Any]:
    """Walls every 6 columns with a gap every 5 squares, difficult terrain on a tenth of the
    squares, none of it where the combatants stand (the first and last rows)."""
    rng = random.Random(seed)
    walls = []
    for x in range(6, side, 6):
        for y in range(1, side - 1):
            if y % 5:
                walls.append([[x, y], [x, y + 1]])
    difficult = sorted({(rng.randrange(side), rng.randrange(1, side - 1))
                        for _ in range(side * side // 10)})
    return {"width": side, "height": side, "walls": walls,
            "difficult": [list(s) for s in difficult]}


def combatants(side: int, distance: int) -> list[dict[str, Any]]:
    far = min(distance, side - 1)
    blocks = []
    for i in range(16):
        pony = i % 2 == 0
        blocks.append({
            "name": f"{'Pony' if pony else 'Dog'} {i}", "id": f"c{i}",
            "kind": "pc" if pony else "npc", "initiative": 40 - i,
            "position": [(i // 2 * 3) % side if side > 24 else i // 2, 0 if pony else far],
            "stats": {"skills": {"ranged": 6, "melee": 4}, "fatigue_points": 10_000,
                      "weapons": [{"name": "sling", "damage": "1d6", "kind": "ranged",
                                   "ranges": {"point_blank": 500, "short": 1000,
                                              "medium": 1500, "long": 2000}}]},
        })
    return blocks


class Table:
    def __init__(self, side: int, distance: int) -> None:
        ids = (f"id{i}" for i in itertools.count())
        self.ctx = engine.Context(now_ms=1_000, new_id=lambda: next(ids))
        create = msg.CreateEncounter(
            id="0123456789abcdef", name="Bench", ruleset="dramatic",
            combatants=[msgspec.convert(b, StatBlock) for b in combatants(side, distance)],
            options=EncounterOptions(dice_seed=1),
            map=msgspec.convert(battle_map(side), BattleMap))
        self.state: EncounterState = engine.create(create, "enc", "gm", self.ctx).state
        self.do(msg.StartEncounter(id="s"))

    def do(self, cmd: msg.Command) -> None:
        self.state = engine.decide(self.state, GM, cmd, self.ctx).state

    def enemy_of(self, cid: str) -> str:
        """The enemy across the map in the same column (no wall between them)."""
        i = int(cid[1:])
        return f"c{i + 1 if i % 2 == 0 else i - 1}"


def timed(fn: Any, *args: Any) -> float:
    start = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - start) * 1000


def one_run(side: int, commands: int, distance: int) -> dict[str, tuple[float, float]]:
    table = Table(side, distance)
    attack, end, legal = [], [], []
    n = itertools.count()
    for _ in range(commands):
        actor = table.state.current
        assert actor is not None
        legal.append(timed(legal_actions, table.state, GM))
        cmd = msg.Act(id=f"a{next(n)}", combatant=actor, action="attack",
                      args={"target": table.enemy_of(actor), "weapon": "sling"})
        attack.append(timed(engine.decide, table.state, GM, cmd, table.ctx))
        table.do(cmd)
        cmd = msg.Act(id=f"e{next(n)}", combatant=actor, action="end_turn")
        end.append(timed(engine.decide, table.state, GM, cmd, table.ctx))
        table.do(cmd)
    return {name: (statistics.median(xs), max(xs))
            for name, xs in (("attack", attack), ("end_turn", end), ("legal", legal))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[12, 40, 100, 200])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--commands", type=int, default=100)
    parser.add_argument("--distance", type=int, default=11)
    args = parser.parse_args(argv)
    print("| map | decide attack median / max ms | decide end_turn median / max ms | "
          "GM legal_actions median / max ms |")
    print("| --- | --: | --: | --: |")
    for side in args.sizes:
        runs = []
        for _ in range(args.runs):
            gc.collect()
            runs.append(one_run(side, args.commands, args.distance))
        cells = []
        for name in ("attack", "end_turn", "legal"):
            med = statistics.median(r[name][0] for r in runs)
            top = statistics.median(r[name][1] for r in runs)
            cells.append(f"{med:.2f} / {top:.2f}")
        print(f"| {side} x {side} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
