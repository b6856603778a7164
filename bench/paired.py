"""What a feature costs the server, measured in alternating windows on two servers at once.

    python -m bench.paired                          # the view: end_turn and the mix on 40 x 40
    python -m bench.paired --workloads mix --pairs 16 --window 5

Two Stablemaster servers run side by side, each on its own Redis, both pinned to the same core
(the generator on the other). Both get the benchmark's tables (``bench.loadgen``: a GM, 4
players and 2 spectators each, ``--encounters`` of them), and the clients of the second ask for
the ``view`` feature too. Then the generator plays them at saturation by turns: a window on the
first while the second waits, a window on the second while the first waits, and so on, ABBA
(A B, B A, A B...), so that the machine's drift over the minutes of a run (other work, the
hypervisor's steal, CPU frequency) falls on both alike. Each window plays ``--warmup`` seconds
and then measures ``--window`` seconds: the server's CPU (utime + stime of its process) per
action and the bytes its room's clients received per action.

For each workload it reports the CPU and the bytes per action of the two servers over all
their windows, the ratio of the two (the view's cost), and the ratios of each pair of
neighbouring windows (their median and range: how steady the machine was). The raw figures go
to ``bench/results/paired-<timestamp>.json`` and the table to ``bench/results/paired-latest.md``.

``--rate N``: instead of saturation, each server gets the same N actions a second (open loop,
as the benchmark's human pace: every table acts once every encounters / N seconds, staggered).
At saturation the server that does more per action also plays fewer actions a second, and what
it spends by the second (the collector's ticks, its timers) falls on fewer of them; at a fixed
rate both play the same actions in the same time, and the ratio is the feature's cost alone.
A window where a server could not keep the rate (late ticks) is reported as such.

``--compare TREE``: the clients of both servers ask for the view, and the second server runs
from another checkout (``git worktree add``): the ratios are then what a change to the server
saves or costs, window by window, with the machine's drift taken out as for the view's cost.

``--same``: neither server's clients ask for the view (an A/A test of the method: its ratios
should be 1). ``--profile``: py-spy samples both servers for the whole run, and what each
function costs per action on each, and the difference, goes beside the JSON.

``python -m bench --view`` runs the two servers one after the other instead, each for one
window; on a machine whose speed drifts by more than the view costs, its ratio says little.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import procs
from bench.__main__ import Profiler, environment, folded_samples
from bench.loadgen import PLANS, Generator, RunResult
from server.loop import LOOPS

PROFILE_RATE = 100
RESULTS = Path(__file__).resolve().parent / "results"
#: what the view may cost (issue "The view, not the events"): CPU and bytes per action
CPU_RATIO = 1.15
BYTES_RATIO = 1.25
WORKLOAD_NAMES = {"end_turn": "end_turn (6 combatants, no map)",
                  "mix": "the mix (move, attack, end of turn)",
                  "attack": "attack, end of turn", "move": "move, end of turn",
                  "map_end_turn": "end of turn on a map"}


@dataclass
class Side:
    """One of the two servers over its windows."""

    label: str
    windows: list[dict[str, Any]] = field(default_factory=list)

    def total(self, key: str) -> float:
        return sum(w[key] for w in self.windows)

    @property
    def cpu_ms_per_action(self) -> float:
        return 1000 * self.total("server_cpu_s") / max(1, int(self.total("actions")))

    @property
    def bytes_per_action(self) -> float:
        return self.total("bytes") / max(1, int(self.total("actions")))


def window_figures(r: RunResult) -> dict[str, Any]:
    cpu_s = (r.server_cpu_ms_per_action or 0.0) * r.actions / 1000
    return {"actions": r.actions, "server_cpu_s": round(cpu_s, 4),
            "server_cpu_ms_per_action": r.server_cpu_ms_per_action,
            "bytes": round((r.bytes_per_action or 0.0) * r.actions),
            "bytes_per_action": r.bytes_per_action, "actions_per_s": r.actions_per_s,
            "latency_ms": r.latency_ms, "late_ticks": r.late_ticks, "steal_pct": r.steal_pct,
            "other_cpu_pct": r.other_cpu_pct, "generator_cpu_pct": r.generator_cpu_pct,
            "errors": r.errors}


async def one_window(gen: Generator, live: list[Any], warmup: float,
                     duration: float) -> RunResult:
    """Play ``gen``'s tables for one more window and return that window's figures."""
    gen.warmup, gen.duration = warmup, duration
    gen.latencies, gen.sent, gen.lags = [], [], []
    gen.late = gen.throttled = 0
    gen.errors = {}
    base = gen.result
    gen.result = RunResult(target=base.target, mode=base.mode, encounters=base.encounters,
                           workload=base.workload, map_side=base.map_side,
                           framing=base.framing, connections=base.connections,
                           tables_ok=base.tables_ok)
    try:
        await gen.play(live)
        gen.result.errors = dict(sorted(gen.errors.items()))
        return gen.result
    finally:
        gen.result = base


def pair_ratios(a: Side, b: Side, key: str) -> list[float]:
    """``b / a`` for each pair of neighbouring windows (window i of each)."""
    out = []
    for wa, wb in zip(a.windows, b.windows, strict=False):
        x, y = wa[key], wb[key]
        if x and y:
            out.append(round(y / x, 3))
    return out


async def run_workload(args: argparse.Namespace, workload: str, core: int | None,
                       log: Any) -> dict[str, Any]:
    side_len = args.map_side if workload != "end_turn" else 40
    stacks: list[procs.Stack] = []
    gens: list[Generator] = []
    try:
        sides = [(False, procs.ROOT), (not args.same, procs.ROOT)] if args.compare is None \
            else [(True, procs.ROOT), (True, args.compare.resolve())]
        for k, (view, root) in enumerate(sides):
            stack = await procs.start_stack("stablemaster", core, args.server_arg, root=root,
                                            loop=args.server_loop)
            stacks.append(stack)
            label = "stablemaster+view" if view else "stablemaster"
            if args.compare is not None:
                label = f"{'this tree' if k == 0 else root}, with the view"
            gens.append(Generator(stack.url, "human" if args.rate else "saturation",
                                  args.encounters, warmup=args.warmup,
                                  period=args.encounters / args.rate if args.rate else 2.0,
                                  duration=args.window, server_pid=stack.server_pid,
                                  redis_pid=stack.redis_pid, target=label, log=log,
                                  workload=workload, side=side_len, view=view,
                                  connect_concurrency=args.connect_concurrency))
        lives: list[list[Any]] = []
        for gen in gens:
            await gen.setup()
            await gen.start_tables()
            live = [t for t in gen.tables if not t.dead]
            if not live:
                raise RuntimeError(f"{gen.result.target}: no encounter could be set up")
            gen.result.connections = sum(len(t.conns) for t in live)
            gen.result.tables_ok = len(live)
            lives.append(live)
        gc.collect()
        gc.freeze()
        profilers = []
        if args.profile:
            length = args.pairs * 2 * (args.window + args.warmup + 0.5)
            for k, stack in enumerate(stacks):
                prof = Profiler(stack.server_pid,
                                RESULTS / f"paired-{args.stamp}-profile-{workload}-{k}.txt")
                prof.start(length)
                profilers.append(prof)
        kept = [Side(g.result.target) for g in gens]
        for i in range(args.pairs):
            order = (0, 1) if i % 2 == 0 else (1, 0)
            for k in order:
                r = await one_window(gens[k], lives[k], args.warmup, args.window)
                kept[k].windows.append({**window_figures(r), "rss_mib": gens[k].rss_mib()})
            a, b = (s.windows[-1] for s in kept)
            log(f"  {workload} pair {i + 1}/{args.pairs}: "
                f"{a['server_cpu_ms_per_action']} / {b['server_cpu_ms_per_action']} ms/action, "
                f"{a['actions']} / {b['actions']} actions, steal "
                f"{a['steal_pct']} / {b['steal_pct']} %, RSS {a['rss_mib']:.0f} / "
                f"{b['rss_mib']:.0f} MiB")
        without, with_view = kept
        profile = None
        if profilers:
            profile = RESULTS / f"paired-{args.stamp}-profile-{workload}.txt"
            folded = []
            for prof, side in zip(profilers, kept, strict=True):
                prof.finish(side.label)
                folded.append(prof.raw.read_text() if prof.raw.exists() else "")
            profile.write_text(compare_profiles(folded, [int(s.total("actions")) for s in kept],
                                                workload))
        cpu = pair_ratios(without, with_view, "server_cpu_ms_per_action")
        byt = pair_ratios(without, with_view, "bytes_per_action")
        return {
            "workload": workload, "map_side": side_len if workload != "end_turn" else None,
            "encounters": args.encounters,
            "connections": [g.result.connections for g in gens],
            "without": {"cpu_ms_per_action": round(without.cpu_ms_per_action, 3),
                        "bytes_per_action": round(without.bytes_per_action, 1),
                        "windows": without.windows},
            "with_view": {"cpu_ms_per_action": round(with_view.cpu_ms_per_action, 3),
                          "bytes_per_action": round(with_view.bytes_per_action, 1),
                          "windows": with_view.windows},
            "cpu_ratio": round(with_view.cpu_ms_per_action / without.cpu_ms_per_action, 3),
            "bytes_ratio": round(with_view.bytes_per_action / without.bytes_per_action, 3),
            "cpu_pair_ratios": cpu, "bytes_pair_ratios": byt,
            "rate": args.rate,
            "late_ticks": [int(s.total("late_ticks")) for s in kept],
            "steal_pct_max": max((w["steal_pct"] or 0.0) for s in kept for w in s.windows),
            "other_cpu_pct_max": max((w["other_cpu_pct"] or 0.0)
                                     for s in kept for w in s.windows),
            "profile": None if profile is None else profile.name,
        }
    finally:
        gc.unfreeze()
        for gen in gens:
            await gen.close_conns(list(gen.conns))
        for stack in stacks:
            stack.stop()
            stack.cleanup()


def compare_profiles(folded: list[str], actions: list[int], title: str, top: int = 40) -> str:
    """What the second server spends per action beyond the first, function by function, in
    microseconds of samples (py-spy samples at PROFILE_RATE a second)."""
    (own_a, incl_a, _), (own_b, incl_b, _) = (folded_samples(f) for f in folded)
    us = [1e6 / PROFILE_RATE / max(1, n) for n in actions]
    lines = [f"# {title}: microseconds per action, without the view / with it / the difference",
             f"# {sum(own_a.values())} and {sum(own_b.values())} samples, {actions[0]} and "
             f"{actions[1]} actions", ""]
    for name, (a, b) in (("self time", (own_a, own_b)), ("inclusive time", (incl_a, incl_b))):
        rows = [(f, a.get(f, 0) * us[0], b.get(f, 0) * us[1]) for f in set(a) | set(b)]
        rows.sort(key=lambda r: -abs(r[2] - r[1]))
        lines += [f"## {name}, by the difference", ""]
        lines += [f"{x:8.1f} {y:8.1f} {y - x:+8.1f}  {f}" for f, x, y in rows[:top]]
        lines.append("")
    return "\n".join(lines)


def _range(values: list[float]) -> str:
    if not values:
        return "-"
    return (f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f}x, "
            f"{len(values)} pairs)")


def markdown(data: dict[str, Any]) -> str:
    env = data["environment"]
    compare = data["config"].get("compare")
    sides = "without / with the view" if compare is None else \
        f"this tree / {compare} (both with the view)"
    lines = [
        f"# The view's cost in alternating windows ({data['started']})", "",
        f"Revision {env['revision']}, {env['cpu']} ({env['cores']} cores), Python "
        f"{env['python']}; servers on {env.get('server_loop', 'asyncio')}; "
        f"{data['config']['encounters']} encounters of 7 connections on each server, "
        f"{pace(data['config'].get('rate'))}, {data['config']['pairs']} pairs of "
        f"windows of {data['config']['window']:g} s (after {data['config']['warmup']:g} s "
        "each).", "",
        f"| workload | server CPU ms/action {sides} | ratio | ratio of "
        f"neighbouring windows, median (range) | bytes/action {sides} | ratio | "
        "steal, most in a window |",
        "| --- | --: | --: | --: | --: | --: | --: |",
    ]
    verdicts = []
    late = [(r["workload"], r["late_ticks"]) for r in data["results"] if any(r.get("late_ticks")
                                                                            or ())]
    for r in data["results"]:
        name = WORKLOAD_NAMES.get(r["workload"], r["workload"])
        if r["map_side"]:
            name += f" on {r['map_side']} x {r['map_side']}"
        if "error" in r:
            lines.append(f"| {name} | run failed: {r['error']} | | | | | |")
            continue
        lines.append(
            f"| {name} | {r['without']['cpu_ms_per_action']:.3f} / "
            f"{r['with_view']['cpu_ms_per_action']:.3f} | {r['cpu_ratio']:.2f}x | "
            f"{_range(r['cpu_pair_ratios'])} | {r['without']['bytes_per_action']:.0f} / "
            f"{r['with_view']['bytes_per_action']:.0f} | {r['bytes_ratio']:.2f}x | "
            f"{r['steal_pct_max']:g} % |")
        if compare is not None:
            continue  # (the view's targets are for the view against none)
        for what, ratio, bound in (("server CPU", r["cpu_ratio"], CPU_RATIO),
                                   ("bytes", r["bytes_ratio"], BYTES_RATIO)):
            verdicts.append(f"- {name}: {what} per action {ratio:.2f}x, target at most "
                            f"{bound:.2f}x: {'met' if ratio <= bound else 'NOT met'}")
    if late and data["config"].get("rate"):
        verdicts += [f"- {w}: late ticks (an action not sent on time, the previous one still "
                     f"in flight) without / with the view: {a} / {b}; the rate was not kept "
                     f"throughout" for w, (a, b) in late]
    return "\n".join([*lines, "", *verdicts]) + "\n"


def pace(rate: float | None) -> str:
    return f"{rate:g} actions/s each (open loop)" if rate else "saturation"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.paired", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workloads", default="end_turn,mix",
                   help=f"comma-separated, of {', '.join(PLANS)} (default end_turn,mix)")
    p.add_argument("--encounters", type=int, default=100,
                   help="encounters on each server (default 100)")
    p.add_argument("--map-side", type=int, default=40,
                   help="side of the battle map of the map workloads (default 40)")
    p.add_argument("--pairs", type=int, default=12, help="pairs of windows (default 12)")
    p.add_argument("--window", type=float, default=4.0, help="measured seconds (default 4)")
    p.add_argument("--warmup", type=float, default=1.0,
                   help="seconds played before each window is measured (default 1)")
    p.add_argument("--rate", type=float, default=None,
                   help="actions a second on each server, open loop (default: saturation)")
    p.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for both servers' `python -m server serve`")
    p.add_argument("--connect-concurrency", type=int, default=50)
    p.add_argument("--no-pin", action="store_true",
                   help="do not pin (default: the servers and Redis on core 0, the generator "
                   "on core 1)")
    p.add_argument("--same", action="store_true",
                   help="neither server's clients ask for the view: what the method itself "
                   "gives two servers alike (the ratios should be 1)")
    p.add_argument("--compare", type=Path, metavar="TREE",
                   help="both servers' clients ask for the view, and the second server runs "
                   "from TREE (another checkout, e.g. a git worktree): what a change to the "
                   "server saves or costs, the second against the first")
    p.add_argument("--server-loop", choices=LOOPS, default="auto",
                   help="both servers' event loop (STABLEMASTER_LOOP; default auto: uvloop where "
                   "it is installed). A --compare tree from before --loop runs on asyncio's "
                   "whatever this says")
    p.add_argument("--profile", action="store_true",
                   help="sample both servers with py-spy and write, function by function, what "
                   "the view adds per action")
    p.add_argument("--out", type=Path,
                   help="JSON results file (the table goes beside it, as .md)")
    return p


async def run_all(args: argparse.Namespace, core: int | None, env: dict[str, Any]) -> \
        dict[str, Any]:
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    args.stamp = time.strftime("%Y%m%d-%H%M%S")
    data: dict[str, Any] = {
        "started": args.stamp, "environment": env,
        "config": {"encounters": args.encounters, "pairs": args.pairs, "window": args.window,
                   "warmup": args.warmup, "map_side": args.map_side, "rate": args.rate,
                   "compare": None if args.compare is None else str(args.compare),
                   "server_args": args.server_arg},
        "results": []}
    for workload in [w.strip() for w in args.workloads.split(",") if w.strip()]:
        if workload not in PLANS:
            raise SystemExit(f"unknown workload {workload!r}")
        log(f"{workload}: setting up two servers of {args.encounters} encounters ...")
        try:
            data["results"].append(await run_workload(args, workload, core, log))
        except Exception as exc:  # one failed workload must not lose the others
            data["results"].append({"workload": workload, "map_side": None,
                                    "error": f"{type(exc).__name__}: {exc}"})
    return data


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    procs.raise_nofile()
    core, gen_core = procs.pin_generator(args.no_pin)
    try:
        import uvloop
    except ImportError:
        env = environment(core, gen_core, "asyncio", args.server_loop)
        data = asyncio.run(run_all(args, core, env))
    else:
        env = environment(core, gen_core, f"uvloop {uvloop.__version__}", args.server_loop)
        data = uvloop.run(run_all(args, core, env))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = args.out or RESULTS / f"paired-{data['started']}.json"
    out.write_text(json.dumps(data, indent=2) + "\n")
    md = markdown(data)
    (out.with_suffix(".md") if args.out else RESULTS / "paired-latest.md").write_text(md)
    print(md)
    print(f"raw figures: {out}", file=sys.stderr)
    failed = any("error" in r for r in data["results"])
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

