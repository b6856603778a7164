"""Medians and spread of several runs of the benchmark.

    python -m bench.combine bench/results/A.json bench/results/B.json bench/results/C.json

For every row the runs share (server, mode, E, workload, map), each figure is given as the
median of the runs and, after it, the lowest and highest (``median (low-high)``); ratios to
the floors are taken within each run (the floors ran in the same invocation), then their
median and spread. The targets of the report are checked against the medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from bench.report import (
    FRAMES_PER_ACTION,
    HUMAN_E_FOR_P99,
    MAP_CPU_RATIO,
    MIX_P99_MS,
    MIX_SIDE,
    SAT_BARE_RATIO,
    SAT_E_FOR_RATIO,
    TARGET_NAMES,
    WORKLOAD_NAMES,
    cpu_per_kind,
)

Key = tuple[str, str, int, str, int | None]


def _key(r: dict[str, Any]) -> Key:
    return (r["target"], r["mode"], r["encounters"], r.get("workload", "end_turn"),
            r.get("map_side"))


def spread(values: list[float | None], digits: int = 1) -> str:
    xs = [v for v in values if v is not None and v == v]
    if not xs:
        return "-"
    med = statistics.median(xs)
    if len(xs) == 1:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f} ({min(xs):.{digits}f}-{max(xs):.{digits}f})"


def _measures(rs: list[dict[str, Any]]) -> str:
    """The measured cells of a table row (throughput, latency, CPU, frames, bytes), each the
    median of the runs with their spread."""
    return (f"{spread([r['actions_per_s'] for r in rs], 0)} | "
            f"{spread([r['latency_ms'].get('p50') for r in rs], 2)} | "
            f"{spread([r['latency_ms'].get('p99') for r in rs], 2)} | "
            f"{spread([r['latency_ms'].get('max') for r in rs], 1)} | "
            f"{spread([r['server_cpu_pct'] for r in rs], 0)} | "
            f"{spread([r.get('server_cpu_ms_per_action') for r in rs], 3)} | "
            f"{spread([r['frames_per_action'] for r in rs], 2)} | "
            f"{spread([r.get('bytes_per_action') for r in rs], 0)} |")


def median(values: list[float | None]) -> float | None:
    xs = [v for v in values if v is not None and v == v]
    return statistics.median(xs) if xs else None


def rows_by_key(runs: list[dict[str, Any]]) -> dict[Key, list[dict[str, Any]]]:
    out: dict[Key, list[dict[str, Any]]] = {}
    for data in runs:
        for r in data["results"]:
            out.setdefault(_key(r), []).append(r)
    return out


def _ratio(run: dict[str, Any], mode: str, e: int, floor: str, field: str,
           target: str = "stablemaster") -> float | None:
    def find(target: str) -> dict[str, Any] | None:
        for r in run["results"]:
            if _key(r) == (target, mode, e, "end_turn", None):
                return r
        return None

    sm, fl = find(target), find(floor)
    if sm is None or fl is None:
        return None
    if field == "actions_per_s":
        a, b = sm["actions_per_s"], fl["actions_per_s"]
    else:
        a, b = sm["latency_ms"].get(field), fl["latency_ms"].get(field)
    return a / b if a and b else None


def markdown(runs: list[dict[str, Any]]) -> str:
    by = rows_by_key(runs)
    n = len(runs)
    revisions = sorted({d["environment"].get("revision", "?") for d in runs})
    out = [f"Medians of {n} runs, (lowest-highest) after each; at {', '.join(revisions)}.", ""]
    for mode, title in (("human", "Human pace (open loop), end_turn"),
                        ("saturation", "Saturation (closed loop), end_turn")):
        keys = sorted((k for k in by if k[1] == mode and k[3] == "end_turn"),
                      key=lambda k: (k[2], list(TARGET_NAMES).index(k[0])
                                     if k[0] in TARGET_NAMES else 9))
        if not keys:
            continue
        out += [f"#### {title}", "",
                "| server | E | actions/s | p50 ms | p99 ms | max ms | server CPU % | "
                "server CPU ms/action | frames/action | bytes/action |",
                "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
        for k in keys:
            rs = by[k]
            out.append(
                f"| {TARGET_NAMES.get(k[0], k[0])} | {k[2]} | {_measures(rs)}")
        out.append("")
    sat = sorted({k[2] for k in by if k[1] == "saturation" and k[3] == "end_turn"})
    hum = sorted({k[2] for k in by if k[1] == "human" and k[3] == "end_turn"})
    if sat:
        out += ["#### Ratios within each run, saturation throughput (Stablemaster ÷ floor)", "",
                "| E | ÷ Redis relay | ÷ bare relay |", "|--:|--:|--:|"]
        for e in sat:
            for target, what in (("stablemaster", ""), ("stablemaster+mypyc", " (mypyc)")):
                if target != "stablemaster" and (target, "saturation", e, "end_turn",
                                                 None) not in by:
                    continue
                out.append(f"| {e}{what} | "
                           f"{spread([_ratio(d, 'saturation', e, 'redis-relay', 'actions_per_s', target) for d in runs], 2)}x | "  # noqa: E501
                           f"{spread([_ratio(d, 'saturation', e, 'bare-relay', 'actions_per_s', target) for d in runs], 2)}x |")  # noqa: E501
        out.append("")
    if hum:
        out += ["#### Ratios within each run, human-pace p99 latency (Stablemaster ÷ floor)",
                "", "| E | ÷ Redis relay | ÷ bare relay |", "|--:|--:|--:|"]
        for e in hum:
            out.append(f"| {e} | {spread([_ratio(d, 'human', e, 'redis-relay', 'p99') for d in runs], 2)}x | "  # noqa: E501
                       f"{spread([_ratio(d, 'human', e, 'bare-relay', 'p99') for d in runs], 2)}x |")  # noqa: E501
        out.append("")
    mk = sorted((k for k in by if k[3] != "end_turn"),
                key=lambda k: (k[1] != "saturation", k[4] or 0,
                               list(WORKLOAD_NAMES).index(k[3]) if k[3] in WORKLOAD_NAMES
                               else 9, k[2]))
    if mk:
        out += ["#### Battle-map workloads (Stablemaster, 16 combatants)", "",
                "| workload | map | mode | E | actions/s | p50 ms | p99 ms | max ms | "
                "server CPU % | server CPU ms/action | frames/action | bytes/action |",
                "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
        for k in mk:
            rs = by[k]
            out.append(
                f"| {WORKLOAD_NAMES.get(k[3], k[3])} | {k[4]} x {k[4]} | {k[1]} | {k[2]} | "
                f"{_measures(rs)}")
        out.append("")
        sides = sorted({k[4] for k in mk if k[1] == "saturation" and k[4]})
        out += ["#### Server CPU per command, by kind (ms; saturation windows of one kind each)",
                "", "| map | end of turn | move | attack | attack + end of turn | the mix, per "
                "command |", "|--:|--:|--:|--:|--:|--:|"]
        kinds: dict[int, list[dict[str, float | None]]] = {
            side: [cpu_per_kind(d["results"], side) for d in runs] for side in sides}
        for side in sides:
            ks = kinds[side]
            out.append(f"| {side} x {side} | "
                       + " | ".join(spread([k[name] for k in ks], 3) for name in
                                    ("end_turn", "move", "attack", "attack_end_turn", "mix"))
                       + " |")
        out.append("")
    # targets, on the medians
    lines = []
    bare = [_ratio(d, "saturation", SAT_E_FOR_RATIO, "bare-relay", "actions_per_s")
            for d in runs]
    if median(bare) is not None:
        m = median(bare)
        assert m is not None
        lines.append(f"| saturation, E = {SAT_E_FOR_RATIO}, end_turn: ≥ {SAT_BARE_RATIO:g}x the "
                     f"bare relay | {spread(bare, 2)}x | "
                     f"{'met' if m >= SAT_BARE_RATIO else 'NOT met'} |")
    mix = by.get(("stablemaster", "human", HUMAN_E_FOR_P99, "mix", MIX_SIDE), [])
    if mix:
        p99 = [r["latency_ms"].get("p99") for r in mix]
        m = median(p99)
        lines.append(f"| human pace, E = {HUMAN_E_FOR_P99}, the mix on {MIX_SIDE} x {MIX_SIDE}: "
                     f"p99 < {MIX_P99_MS:g} ms | {spread(p99, 2)} ms | "
                     f"{'met' if m is not None and m < MIX_P99_MS else 'NOT met'} |")
    frames = [median([r["frames_per_action"] for r in rs]) for k, rs in by.items()
              if k[0] == "stablemaster" and k[2] > 1]
    if frames:
        worst = max(f for f in frames if f is not None)
        lines.append(f"| at most {FRAMES_PER_ACTION:g} frames per action, the ack included (worst "
                     f"row) | {worst:.2f} | {'met' if worst <= FRAMES_PER_ACTION else 'NOT met'} |")
    small = [cpu_per_kind(d["results"], 12)["attack_end_turn"] for d in runs]
    big = [cpu_per_kind(d["results"], 100)["attack_end_turn"] for d in runs]
    ratios = [b / a if a and b else None for a, b in zip(small, big, strict=True)]
    if median(ratios) is not None:
        m = median(ratios)
        assert m is not None
        lines.append(f"| server CPU per attack + end of turn, 100 x 100 ÷ 12 x 12 ≤ "
                     f"{MAP_CPU_RATIO:g} | {spread(big, 3)} ÷ {spread(small, 3)} ms = "
                     f"{spread(ratios, 2)}x | {'met' if m <= MAP_CPU_RATIO else 'NOT met'} |")
    if lines:
        out += ["#### Targets (medians)", "", "| target | measured | |", "|---|--:|---|", *lines,
                ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, nargs="+", help="JSON files of python -m bench")
    args = parser.parse_args(argv)
    print(markdown([json.loads(p.read_text()) for p in args.results]))


if __name__ == "__main__":
    main()
