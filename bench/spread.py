"""What a process pays for the tables of another: two servers on one Redis, the load on one.

    python -m bench.spread                        # 100 encounters, 3 windows of 20 s
    python -m bench.spread --encounters 100 --windows 3 --window 60
    python -m bench.spread --cluster              # on a 3-node Redis Cluster (Redis 7+)

Two Stablemaster processes share one Redis (``bench.procs``). The benchmark's tables
(``bench.loadgen``: a GM, 4 players and 2 spectators each) are set up on the first, the
serving one; the second, the peer, holds no connection. First, with nothing played, the peer's
CPU is measured for as long as a window lasts (its idle rate: its own ticks); then the tables
are played at saturation, window after window, and over each the peer's CPU and the serving
process's are taken over the same interval. Reported: the peer's CPU above its idle rate, as a
percentage of the serving process's; Redis's CPU per action; the serving process's CPU per
action, its throughput and bytes per action.

A process hears only the encounters it serves (``server.fanout``), so the peer's share should
be nil but for noise (issue 45: at most 0.3 %). The raw figures go to
``bench/results/spread-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import procs
from bench.__main__ import environment
from bench.loadgen import PLANS, Generator
from bench.paired import one_window, window_figures
from bench.report import write_results

RESULTS = Path(__file__).resolve().parent / "results"
#: the peer's CPU above its idle rate, as a share of the serving process's (issue 45)
PEER_SHARE = 0.3


def _cpu(pid: int) -> float:
    value = procs.cpu_seconds(pid)
    return 0.0 if value is None else value


async def run(args: argparse.Namespace, core: int | None) -> dict[str, Any]:
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    nodes: list[procs.Proc] = []
    extra = [*args.server_arg, *(["--redis-cluster"] if args.cluster else [])]
    if args.cluster:
        workdir = Path(tempfile.mkdtemp(prefix="bench-spread-"))
        stack = procs.Stack(url="", workdir=workdir)
        nodes, stack.redis_url = await procs.start_cluster(workdir, core)
        serving, stack.url = procs.start_peer(stack, core, extra, name="serving")
        stack.server, stack.server_pid = serving, serving.pid
        await procs.wait_port(_port(stack.url), serving.popen)
        redis_pids = [node.pid for node in nodes]
    else:
        stack = await procs.start_stack("stablemaster", core, extra)
        assert stack.redis_pid is not None
        redis_pids = [stack.redis_pid]
    peer: procs.Proc | None = None
    gen: Generator | None = None
    try:
        peer, peer_url = procs.start_peer(stack, core, extra)
        await procs.wait_port(_port(peer_url), peer.popen)
        assert stack.server_pid is not None
        gen = Generator(stack.url, "saturation", args.encounters, warmup=args.warmup,
                        duration=args.window, server_pid=stack.server_pid,
                        redis_pid=redis_pids[0], target="serving", log=log,
                        redis_url=None if args.cluster else stack.redis_url,
                        workload=args.workload, connect_concurrency=args.connect_concurrency)
        await gen.setup()
        await gen.start_tables()
        live = [t for t in gen.tables if not t.dead]
        if not live:
            raise RuntimeError("no encounter could be set up")
        length = args.warmup + args.window
        log(f"the peer at rest for {length:g} s ...")
        t0, c0 = time.monotonic(), _cpu(peer.pid)
        await asyncio.sleep(length)
        idle_rate = (_cpu(peer.pid) - c0) / (time.monotonic() - t0)
        windows = []
        for i in range(args.windows):
            t0, p0, s0 = time.monotonic(), _cpu(peer.pid), _cpu(stack.server_pid)
            r0 = sum(_cpu(pid) for pid in redis_pids)
            r = await one_window(gen, live, args.warmup, args.window)
            wall = time.monotonic() - t0
            peer_rate = (_cpu(peer.pid) - p0) / wall
            serving_rate = (_cpu(stack.server_pid) - s0) / wall
            redis_rate = (sum(_cpu(pid) for pid in redis_pids) - r0) / wall
            above = peer_rate - idle_rate
            share = 100 * above / serving_rate if serving_rate else None
            figures = {**window_figures(r), "peer_cpu_per_s": round(peer_rate, 5),
                       "peer_above_idle_per_s": round(above, 5),
                       "serving_cpu_per_s": round(serving_rate, 4),
                       "peer_share_pct": None if share is None else round(share, 3),
                       # (Redis's CPU over the window and its warm-up, every node's, by the
                       # window's rate of actions)
                       "redis_cpu_ms_per_action": round(1000 * redis_rate / r.actions_per_s, 4)
                       if r.actions_per_s else None,
                       "redis_commands_per_action": r.redis_commands_per_action}
            windows.append(figures)
            log(f"  window {i + 1}/{args.windows}: peer {1000 * peer_rate:.2f} ms/s "
                f"(idle {1000 * idle_rate:.2f}), serving {1000 * serving_rate:.0f} ms/s: "
                f"{figures['peer_share_pct']} %; {r.actions_per_s} actions/s, Redis "
                f"{figures['redis_cpu_ms_per_action']} ms/action")
        shares = [w["peer_share_pct"] for w in windows if w["peer_share_pct"] is not None]
        return {"encounters": args.encounters, "workload": args.workload,
                "window": args.window, "warmup": args.warmup, "cluster": args.cluster,
                "peer_idle_cpu_per_s": round(idle_rate, 5), "windows": windows,
                "peer_share_pct": round(sum(shares) / len(shares), 3) if shares else None}
    finally:
        if gen is not None:
            await gen.close_conns(list(gen.conns))
        if peer is not None:
            peer.stop()
        stack.stop()
        for node in nodes:
            node.stop(signal.SIGTERM)
        stack.cleanup()


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def markdown(data: dict[str, Any]) -> str:
    env, r = data["environment"], data["result"]
    where = "a 3-node Redis Cluster" if r.get("cluster") else "one Redis"
    lines = [f"# A process's cost of another's tables ({data['started']})", "",
             f"Revision {env['revision']}, {env['cpu']} ({env['cores']} cores); two processes "
             f"on {where}, {r['encounters']} encounters ({r['workload']}) at saturation on "
             f"one, none on the other; windows of {r['window']:g} s after {r['warmup']:g} s.",
             "", f"The peer at rest: {1000 * r['peer_idle_cpu_per_s']:.2f} ms of CPU a second.",
             "", "| window | actions/s | serving CPU ms/action | bytes/action | peer above idle, "
             "% of serving | Redis CPU ms/action |", "| --: | --: | --: | --: | --: | --: |"]
    for i, w in enumerate(r["windows"], 1):
        lines.append(f"| {i} | {w['actions_per_s']} | {w['server_cpu_ms_per_action']} | "
                     f"{w['bytes_per_action']} | {w['peer_share_pct']} | "
                     f"{w['redis_cpu_ms_per_action']} |")
    share = r["peer_share_pct"]
    if share is not None:
        lines += ["", f"The peer above its idle rate: {share:.3f} % of the serving process "
                  f"(target at most {PEER_SHARE} %: {'met' if share <= PEER_SHARE else 'NOT met'})"]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.spread", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--encounters", type=int, default=100, help="encounters (default 100)")
    p.add_argument("--workload", default="end_turn", choices=sorted(PLANS))
    p.add_argument("--windows", type=int, default=3, help="measured windows (default 3)")
    p.add_argument("--window", type=float, default=20.0, help="measured seconds (default 20)")
    p.add_argument("--warmup", type=float, default=2.0,
                   help="seconds played before each window is measured (default 2)")
    p.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for both servers' `python -m server serve`")
    p.add_argument("--connect-concurrency", type=int, default=50)
    p.add_argument("--no-pin", action="store_true",
                   help="do not pin (default: the servers and Redis on core 0, the generator "
                   "on core 1)")
    p.add_argument("--cluster", action="store_true",
                   help="a 3-node Redis Cluster (Redis 7 or later on PATH) instead of one Redis")
    p.add_argument("--out", type=Path, help="JSON results file (the table goes beside it)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    procs.raise_nofile()
    core, gen_core = procs.pin_generator(args.no_pin)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    result = asyncio.run(run(args, core))
    data = {"started": stamp, "environment": environment(core, gen_core, "asyncio"),
            "result": result}
    write_results(data, args.out or RESULTS / f"spread-{stamp}.json", markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
