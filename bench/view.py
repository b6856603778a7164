"""The view's own cost, in-process, with no Redis and no sockets.

    python -m bench.view                      # 5 runs of 600 commands on a 40 x 40 map
    python -m bench.view --runs 9 --commands 900

The encounter is ``bench.decide``'s (16 combatants, 8 ponies and 8 Diamond Dogs, on a map with
walls and difficult terrain, a fixed ``dice_seed``), played as the benchmark's ``mix`` plays it:
each combatant in turn moves 2 squares along its column (and back on its next turn), shoots at
the enemy across the map and ends its turn. It is watched as a benchmark room is: the GM, 4
players (2 ponies each) and the spectators, 6 kinds of viewer sharing one ``Memo``. After each
command it does what a room's delivery does for the view (``server.rooms.Room._view_frames``):
``follow`` and the patch's JSON for each kind of viewer (the first to follow works out the step
of the parts they share), then ``Memo.settle``. It reports the
CPU time of that (``time.thread_time``, so other processes do not count) per command: the mean
of each run, their median and range, and the median by kind of command (move, attack, end of
turn) and by viewer. The cycle collector is off while it runs.

``python -m bench`` with ``--view`` gives what the view costs the whole server (the bytes, the
collector, the socket writes); this gives the part of it that ``encounter.patches`` is, steady
enough between runs to compare two versions of it on a busy machine.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any

from bench.decide import GM, Table
from encounter import engine
from encounter.actors import Actor
from encounter.patches import Memo, follow, show
from protocol import messages as msg

DISTANCE = 11
KINDS = ("move", "attack", "end_turn")


def viewers() -> list[Actor]:
    """A benchmark room's kinds of viewer: the GM, 4 players of 2 ponies each, spectators."""
    players = [Actor(role="player", token_id=f"p{k}",
                     combatants=frozenset({f"c{4 * k}", f"c{4 * k + 2}"})) for k in range(4)]
    return [GM, *players, Actor(role="spectator", token_id="s")]


def command(table: Table, kind: str, n: int, moved: set[str], side: int) -> msg.Act:
    cid = table.state.current
    assert cid is not None
    if kind == "end_turn":
        return msg.Act(id=f"a{n}", combatant=cid, action="end_turn")
    if kind == "attack":
        return msg.Act(id=f"a{n}", combatant=cid, action="attack",
                       args={"target": table.enemy_of(cid), "weapon": "sling"})
    i = int(cid[1:])
    pony = i % 2 == 0
    x = (i // 2 * 3) % side if side > 24 else i // 2
    home = 0 if pony else min(DISTANCE, side - 1)
    ahead = 1 if pony else -1
    path = [[x, home + ahead], [x, home]] if cid in moved else \
        [[x, home + ahead], [x, home + 2 * ahead]]
    moved ^= {cid}
    return msg.Act(id=f"a{n}", combatant=cid, action="move", args={"path": path})


#: Bytes written over to push the view's data out of the core's caches (``--cold``): more than
#: its level-2 cache holds.
EVICT_BYTES = 16 << 20


def one_run(commands: int, side: int, kept: list[Any] | None = None, cold: bool = False
            ) -> list[tuple[str, float, list[float]]]:
    """Each command's kind, the CPU time of the view's work after it (µs) and its share by
    viewer (µs); ``kept``: given the last state, the viewers and what each was shown;
    ``cold``: the caches emptied where a server's other work would empty them (before the
    delivery, which comes after Redis has the events, and after it)."""
    trash = bytearray(EVICT_BYTES) if cold else None
    zeros = bytes(EVICT_BYTES // 64) if cold else b""

    def evict() -> None:
        if trash is not None:
            trash[::64] = zeros  # (a write to every cache line of it)

    table = Table(side, DISTANCE)
    kinds = viewers()
    memo = Memo()
    shown = [show(table.state, v, 0, memo) for v in kinds]
    moved: set[str] = set()
    out = []
    for n in range(commands):
        kind = KINDS[n % len(KINDS)]
        new = engine.decide(table.state, GM, command(table, kind, n, moved, side),
                            table.ctx).state
        table.state = new
        evict()
        start = time.thread_time()
        each = []
        for s, viewer in zip(shown, kinds, strict=True):
            at = time.thread_time()
            if follow(s, new, viewer, n + 1):
                s.latest()
            each.append((time.thread_time() - at) * 1e6)
        memo.settle()
        out.append((kind, (time.thread_time() - start) * 1e6, each))
        evict()
    if kept is not None:
        kept.extend((table.state, kinds, shown))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.view", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--commands", type=int, default=600)
    parser.add_argument("--side", type=int, default=40, help="the map's side (default 40)")
    parser.add_argument("--cold", action="store_true",
                        help="empty the caches before and after each delivery, as a busy "
                        "server's other rooms do")
    args = parser.parse_args(argv)
    gc.disable()
    means, rows = [], []
    try:
        for _ in range(args.runs):
            run = one_run(args.commands, args.side, cold=args.cold)
            means.append(statistics.mean(t for _k, t, _e in run))
            rows.extend(run)
    finally:
        gc.enable()
    cold = ", cold caches" if args.cold else ""
    print(f"the view's work per command, {args.runs} runs of {args.commands} commands on "
          f"{args.side} x {args.side}{cold}: median of the runs' means "
          f"{statistics.median(means):.1f} µs ({min(means):.1f}-{max(means):.1f})")
    names = ["GM", "player 1", "player 2", "player 3", "player 4", "spectators"]
    for kind in KINDS:
        of = [r for r in rows if r[0] == kind]
        by = ", ".join(f"{name} {statistics.median(r[2][i] for r in of):.1f}"
                       for i, name in enumerate(names))
        print(f"  {kind}: median {statistics.median(r[1] for r in of):.1f} µs "
              f"(follow by viewer: {by})")


if __name__ == "__main__":
    main()
