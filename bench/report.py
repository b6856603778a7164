"""The Markdown report: one table per mode, the floors beside Stablemaster, ratios, targets."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_NAMES = {"stablemaster": "Stablemaster",
                "stablemaster+mypyc": "Stablemaster, modules compiled by mypyc",
                "stablemaster+view": "Stablemaster, clients with the view feature",
                "redis-relay": "Redis relay floor", "bare-relay": "bare relay floor",
                "stablemaster+always": "Stablemaster, durability always",
                "stablemaster+replicas": "Stablemaster, durability replicas (WAIT 1)"}
ORDER = ["stablemaster", "redis-relay", "bare-relay"]
_ROW_ORDER = ["stablemaster", "stablemaster+view", "stablemaster+mypyc", "stablemaster+always",
              "stablemaster+replicas", "redis-relay", "bare-relay"]

#: What the project wants (see bench/README.md).
HUMAN_E_FOR_P99 = 500
HUMAN_P99_MS = 15.0
SAT_E_FOR_RATIO = 100
SAT_RATIO = 0.8
KIB_PER_CONN = 30.0
#: issue 19: saturation at E = 100 against the bare relay, the mix at human pace, frames per
#: action, and an attack plus an end of turn on a big map against a small one
SAT_BARE_RATIO = 0.35
MIX_P99_MS = 10.0
MIX_SIDE = 40
FRAMES_PER_ACTION = 8.0
MAP_CPU_RATIO = 1.3
WORKLOAD_NAMES = {"mix": "move, attack, end of turn", "attack": "attack, end of turn",
                  "move": "move, end of turn", "map_end_turn": "end of turn"}


def _f(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value != value:  # NaN
            return "-"
        return f"{value:.{digits}f}"
    return str(value)


def _errors(r: dict[str, Any]) -> str:
    errs = {k: v for k, v in r["errors"].items() if k != "connect_retry"}
    if not errs:
        return "0"
    return ", ".join(f"{k} {v}" for k, v in errs.items())


def _redis(r: dict[str, Any]) -> str:
    per = r.get("redis_commands_per_action") or {}
    return _f(round(sum(per.values()), 1)) if per else "-"


def _generator_warning(r: dict[str, Any]) -> list[str]:
    """A run where the generator was busy measures the generator as much as the server."""
    cpu = r.get("generator_cpu_pct") or 0.0
    lag = (r.get("generator_loop_lag_ms") or {}).get("p99") or 0.0
    if cpu > 85 or lag > 10:
        return [f"the generator was busy (CPU {cpu:g}% of its core, event-loop lag p99 "
                f"{lag:g} ms): this throughput is a lower bound, the generator may be what "
                "limits it"]
    return []


def _find(results: list[dict[str, Any]], target: str, mode: str, e: int,
          workload: str = "end_turn", side: int | None = None) -> dict[str, Any] | None:
    for r in results:
        if r["target"] == target and r["mode"] == mode and r["encounters"] == e \
                and r.get("workload", "end_turn") == workload and r.get("map_side") == side:
            return r
    return None


def cpu_per_kind(results: list[dict[str, Any]], side: int) -> dict[str, float | None]:
    """Server CPU ms per command of each kind on a map of ``side`` squares, from the windows
    at saturation that play one kind (and an end of turn): an end of turn is what the
    ``map_end_turn`` window measured, a move or an attack what its window measured per pair
    of commands less an end of turn."""
    def per(workload: str) -> float | None:
        rows = [r for r in results if r["mode"] == "saturation" and r["target"] ==
                "stablemaster" and r.get("workload") == workload and r.get("map_side") == side
                and r.get("server_cpu_ms_per_action")]
        return rows[0]["server_cpu_ms_per_action"] if rows else None

    end, move, attack, mix = per("map_end_turn"), per("move"), per("attack"), per("mix")
    return {
        "end_turn": end,
        "move": None if move is None or end is None else 2 * move - end,
        "attack": None if attack is None or end is None else 2 * attack - end,
        "attack_end_turn": None if attack is None else 2 * attack,
        "mix": mix,
    }


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b or a != a or b != b:
        return "-"
    return f"{a / b:.2f}x"


def _map_tables(results: list[dict[str, Any]]) -> list[str]:
    rows = [r for r in results if r.get("workload", "end_turn") != "end_turn"]
    if not rows:
        return []
    order = list(WORKLOAD_NAMES)
    rows.sort(key=lambda r: (r["mode"] != "saturation", r.get("map_side") or 0,
                             order.index(r["workload"]) if r["workload"] in order else 9,
                             r["encounters"], r.get("target") == "stablemaster+view"))
    out = ["#### Battle map workloads (Stablemaster)", "",
           "16 combatants on a map with walls and difficult terrain; latency: sending the "
           "command → the last of the room's 7 clients has its last event.", "",
           "| workload | map | mode | E | actions/s | p50 ms | p99 ms | max ms | server CPU % | "
           "server CPU ms/action | frames/action | bytes/action | errors |",
           "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for r in rows:
        lat = r["latency_ms"]
        side = r.get("map_side")
        named = WORKLOAD_NAMES.get(r["workload"], r["workload"])
        if r.get("target") == "stablemaster+view":
            named += ", clients with the view"
        out.append(f"| {named} | {side} x {side} | "
                   f"{r['mode']} | {r['encounters']} | {_f(r['actions_per_s'])} | "
                   f"{_f(lat.get('p50'), 2)} | {_f(lat.get('p99'), 2)} | "
                   f"{_f(lat.get('max'), 2)} | {_f(r['server_cpu_pct'])} | "
                   f"{_f(r.get('server_cpu_ms_per_action'), 3)} | "
                   f"{_f(r['frames_per_action'])} | {_f(r.get('bytes_per_action'), 0)} | "
                   f"{_errors(r)} |")
    out.append("")
    sides = sorted({r["map_side"] for r in rows if r["mode"] == "saturation"})
    if sides:
        out += ["#### Server CPU per command, by kind (ms; saturation windows of one kind each)",
                "",
                "| map | end of turn | move | attack | attack + end of turn | the mix, per "
                "command |",
                "|--:|--:|--:|--:|--:|--:|"]
        for side in sides:
            k = cpu_per_kind(results, side)
            out.append(f"| {side} x {side} | {_f(k['end_turn'], 3)} | {_f(k['move'], 3)} | "
                       f"{_f(k['attack'], 3)} | {_f(k['attack_end_turn'], 3)} | "
                       f"{_f(k['mix'], 3)} |")
        out.append("")
    return out


def markdown(data: dict[str, Any]) -> str:
    results: list[dict[str, Any]] = data["results"]
    env = data["environment"]
    cfg = data["config"]
    out: list[str] = []
    out.append(f"### Benchmark ({data['started']})")
    out.append("")
    out.append(
        f"Stablemaster at {env.get('revision', 'unknown')}. "
        f"{env['cpu']}, {env['cores']} cores; Python {env['python']}, websockets "
        f"{env['websockets']}; generator on {env['generator_loop']}; Stablemaster and the "
        f"floors on {env.get('server_loop', 'asyncio')}. Server under test"
        f"{' and its redis-server' if env['redis_core'] == env['server_core'] else ''} pinned "
        f"to core {_f(env['server_core'])}, generator to core {_f(env['generator_core'])}. "
        f"Redis AOF `appendfsync everysec` (unless a row says otherwise: durability "
        "`always` runs it with `appendfsync always`, `replicas` adds a replica on the same "
        "core that every append waits for). Encounters of 7 connections (GM, 4 players, "
        f"2 spectators). Human pace: one action per encounter every {cfg['period']:g} s, "
        f"{cfg['human_duration']:g} s measured after {cfg['human_warmup']:g} s warm-up. "
        f"Saturation: closed loop, {cfg['saturation_duration']:g} s measured after "
        f"{cfg['saturation_warmup']:g} s warm-up. Latency: sending `act` → the last of the "
        "room's 7 clients has the `turn_started`.")
    if env.get("mypyc"):
        out.append(f"\"Stablemaster, modules compiled by mypyc\": the same server with "
                   f"{len(env['mypyc']['modules'])} of its modules compiled by mypyc "
                   f"{env['mypyc']['version']}, unchanged (`bench/compiled.py`); the server "
                   "runs them as Python otherwise.")
    out.append("")
    framing = cfg.get("framing", False)
    asked = cfg.get("features")
    if asked is not None:
        out.append("Clients ask for " + (", ".join(f"`{f}`" for f in asked) if asked else
                                         "no feature") + " in `hello`.")
    else:
        out.append("Clients " + ("ask for the `batch` and `legal_delta` features (one websocket "
                                 "message per command per client, legal actions as deltas)."
                                 if framing else "ask for no feature (one websocket message "
                                 "per server message, full legal action lists)."))
    out.append("")
    by_viewer = [r for r in results if r.get("bytes_per_action_by_viewer")
                 and r.get("workload", "end_turn") == "end_turn"]
    if by_viewer:
        out.append("Bytes per action by viewer (end_turn; the 4 players and the 2 spectators "
                   "together; `python -m bench.wirebytes` splits them by message type and "
                   "into the acting and the waiting players):")
        out.append("")
        out.append("| target | mode | E | GM | players | spectators | all |")
        out.append("| --- | --- | --: | --: | --: | --: | --: |")
        for r in by_viewer:
            v = r["bytes_per_action_by_viewer"]
            out.append(f"| {r['target']} | {r['mode']} | {r['encounters']} | {_f(v['gm'], 0)} "
                       f"| {_f(v['players'], 0)} | {_f(v['spectators'], 0)} | "
                       f"{_f(r.get('bytes_per_action'), 0)} |")
        out.append("")
    for mode, title in (("human", "Human pace (open loop)"),
                        ("saturation", "Saturation (closed loop)")):
        rows = [r for r in results if r["mode"] == mode
                and r.get("workload", "end_turn") == "end_turn"]
        if not rows:
            continue
        rows.sort(key=lambda r: (r["encounters"], _ROW_ORDER.index(r["target"])
                                 if r["target"] in _ROW_ORDER else 9))
        extra = "late" if mode == "human" else "throttled"
        out.append(f"#### {title}")
        out.append("")
        out.append(f"| server | E | conns | actions/s | p50 ms | p95 ms | p99 ms | max ms | "
                   f"{extra} | server CPU % | Redis CPU % | gen CPU % | other CPU % | RSS MiB | "
                   "KiB/conn | frames/action | bytes/action | Redis cmds/action | errors |")
        out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
                   "---|")
        for r in rows:
            lat = r["latency_ms"]
            rss = r["rss_mib"].get("end") if r["rss_mib"] else None
            out.append(
                f"| {TARGET_NAMES.get(r['target'], r['target'])} | {r['encounters']} | "
                f"{r['connections']} | {_f(r['actions_per_s'])} | {_f(lat.get('p50'), 2)} | "
                f"{_f(lat.get('p95'), 2)} | {_f(lat.get('p99'), 2)} | {_f(lat.get('max'), 2)} | "
                f"{r['late_ticks'] if mode == 'human' else r['throttled']} | "
                f"{_f(r['server_cpu_pct'])} | {_f(r['redis_cpu_pct'])} | "
                f"{_f(r['generator_cpu_pct'])} | {_f(r.get('other_cpu_pct'))} | {_f(rss)} | "
                f"{_f(r['mem_per_conn_kib'])} | "
                f"{_f(r['frames_per_action'])} | {_f(r.get('bytes_per_action'), 0)} | "
                f"{_redis(r)} | {_errors(r)} |")
        out.append("")
    out.extend(_map_tables(results))
    # ratios
    sat = sorted({r["encounters"] for r in results if r["mode"] == "saturation"
                  and r.get("workload", "end_turn") == "end_turn"})
    hum = sorted({r["encounters"] for r in results if r["mode"] == "human"
                  and r.get("workload", "end_turn") == "end_turn"})
    if any(_find(results, "redis-relay", "saturation", e) or _find(results, "bare-relay",
           "saturation", e) for e in sat):
        out.append("#### Ratios, saturation throughput (Stablemaster ÷ floor)")
        out.append("")
        out.append("| E | Stablemaster actions/s | Redis relay | bare relay | ÷ Redis relay | "
                   "÷ bare relay |")
        out.append("|--:|--:|--:|--:|--:|--:|")
        for e in sat:
            sm, rr, br = (_find(results, t, "saturation", e) for t in ORDER)
            b = rr["actions_per_s"] if rr else None
            c = br["actions_per_s"] if br else None
            for variant, what in (("stablemaster", ""), ("stablemaster+mypyc", " (mypyc)")):
                row = sm if variant == "stablemaster" else _find(results, variant, "saturation",
                                                                 e)
                if row is None and variant != "stablemaster":
                    continue
                a = row["actions_per_s"] if row else None
                out.append(f"| {e}{what} | {_f(a)} | {_f(b)} | {_f(c)} | {_ratio(a, b)} | "
                           f"{_ratio(a, c)} |")
        out.append("")
    if any(_find(results, "redis-relay", "human", e) or _find(results, "bare-relay", "human", e)
           for e in hum):
        out.append("#### Ratios, human-pace latency (Stablemaster ÷ floor)")
        out.append("")
        out.append("| E | Stablemaster p50 / p99 ms | Redis relay | bare relay | p50 ÷ Redis | "
                   "p99 ÷ Redis | p50 ÷ bare | p99 ÷ bare |")
        out.append("|--:|--:|--:|--:|--:|--:|--:|--:|")
        for e in hum:
            sm, rr, br = (_find(results, t, "human", e) for t in ORDER)

            def pair(r: dict[str, Any] | None) -> str:
                if r is None:
                    return "-"
                return f"{_f(r['latency_ms'].get('p50'), 2)} / {_f(r['latency_ms'].get('p99'), 2)}"

            def q(r: dict[str, Any] | None, k: str) -> float | None:
                return None if r is None else r["latency_ms"].get(k)

            ratios = [_ratio(q(sm, k), q(floor, k)) for floor in (rr, br) for k in ("p50", "p99")]
            out.append(f"| {e} | {pair(sm)} | {pair(rr)} | {pair(br)} | "
                       + " | ".join(ratios) + " |")
        out.append("")
    # targets
    lines = []
    sm500 = _find(results, "stablemaster", "human", HUMAN_E_FOR_P99)
    if sm500:
        p99 = sm500["latency_ms"].get("p99")
        met = p99 is not None and p99 == p99 and p99 < HUMAN_P99_MS
        lines.append(f"| human pace, E = {HUMAN_E_FOR_P99}: p99 < {HUMAN_P99_MS:g} ms | "
                     f"{_f(p99, 2)} ms | {'met' if met else 'NOT met'} |")
    sm100 = _find(results, "stablemaster", "saturation", SAT_E_FOR_RATIO)
    rr100 = _find(results, "redis-relay", "saturation", SAT_E_FOR_RATIO)
    if sm100 and rr100 and rr100["actions_per_s"]:
        ratio = sm100["actions_per_s"] / rr100["actions_per_s"]
        lines.append(f"| saturation, E = {SAT_E_FOR_RATIO}: ≥ {SAT_RATIO:g}x the Redis relay's "
                     f"throughput | {ratio:.2f}x | {'met' if ratio >= SAT_RATIO else 'NOT met'} |")
    br100 = _find(results, "bare-relay", "saturation", SAT_E_FOR_RATIO)
    if sm100 and br100 and br100["actions_per_s"]:
        ratio = sm100["actions_per_s"] / br100["actions_per_s"]
        lines.append(f"| saturation, E = {SAT_E_FOR_RATIO}, end_turn: ≥ {SAT_BARE_RATIO:g}x the "
                     f"bare relay's throughput | {ratio:.2f}x | "
                     f"{'met' if ratio >= SAT_BARE_RATIO else 'NOT met'} |")
    mix = _find(results, "stablemaster", "human", HUMAN_E_FOR_P99, "mix", MIX_SIDE)
    if mix:
        p99 = mix["latency_ms"].get("p99")
        met = p99 is not None and p99 == p99 and p99 < MIX_P99_MS
        lines.append(f"| human pace, E = {HUMAN_E_FOR_P99}, the mix on {MIX_SIDE} x {MIX_SIDE}: "
                     f"p99 < {MIX_P99_MS:g} ms | {_f(p99, 2)} ms | {'met' if met else 'NOT met'} |")
    frames = [r["frames_per_action"] for r in results if r["target"] == "stablemaster"
              and r.get("frames_per_action") is not None and r["encounters"] > 1]
    if frames and framing:
        worst = max(frames)
        lines.append(f"| frames per action ≤ {FRAMES_PER_ACTION:g}, the ack included (worst "
                     f"run) | {worst:.2f} | {'met' if worst <= FRAMES_PER_ACTION else 'NOT met'} |")
    small, big = cpu_per_kind(results, 12), cpu_per_kind(results, 100)
    a, b = small["attack_end_turn"], big["attack_end_turn"]
    if a and b:
        lines.append(f"| server CPU per attack + end of turn, 100 x 100 within {MAP_CPU_RATIO:g}x "
                     f"of 12 x 12 | {b:.2f} / {a:.2f} ms = {b / a:.2f}x | "
                     f"{'met' if b / a <= MAP_CPU_RATIO else 'NOT met'} |")
    mems = [r["mem_per_conn_kib"] for r in results
            if r["target"] == "stablemaster" and r["mem_per_conn_kib"] is not None
            and r["connections"] >= 700]
    if mems:
        worst = max(mems)
        ends = [r["mem_per_conn_end_kib"] for r in results
                if r["target"] == "stablemaster" and r.get("mem_per_conn_end_kib") is not None
                and r["connections"] >= 700]
        after = f" ({max(ends):.1f} KiB with the RSS at the end of the window)" if ends else ""
        lines.append(f"| server memory < {KIB_PER_CONN:g} KiB per connection (runs with ≥ 700 "
                     f"connections, worst; RSS after connecting) | {worst:.1f} KiB{after} | "
                     f"{'met' if worst < KIB_PER_CONN else 'NOT met'} |")
    if lines:
        out.append("#### Targets")
        out.append("")
        out.append("| target | measured | |")
        out.append("|---|--:|---|")
        out.extend(lines)
        out.append("")
    gcs = [r for r in results if r.get("server_gc")]
    if gcs:
        out.append("#### Server garbage-collector pauses ≥ 2 ms in the window")
        out.append("")
        out.append("| server | mode | E | pauses | total ms | share of window | longest ms | "
                   "full (gen 2) collections | longest gen 2 ms |")
        out.append("|---|---|--:|--:|--:|--:|--:|--:|--:|")
        for r in gcs:
            g = r["server_gc"]
            g2 = g.get("by_gen", {}).get("gen2", {})
            share = 100 * g["total_ms"] / 1000 / r["duration"] if r["duration"] else None
            out.append(f"| {TARGET_NAMES.get(r['target'], r['target'])} | {r['mode']} | "
                       f"{r['encounters']} | {g['count']} | {_f(g['total_ms'])} | "
                       f"{_f(share)} % | {_f(g['max_ms'])} | {g2.get('count', 0)} | "
                       f"{_f(g2.get('max_ms'))} |")
        out.append("")
    notes = [f"- {r['target']} {r['mode']} E={r['encounters']}"
             + (f" {r['workload']}@{r.get('map_side')}" if r.get("workload", "end_turn")
                != "end_turn" else "") + f": {n}"
             for r in results for n in r.get("notes", []) + _generator_warning(r)
             if not n.startswith("waited ")]
    if notes:
        out.append("Notes:")
        out.append("")
        out.extend(notes)
        out.append("")
    return "\n".join(out)


def write_results(data: dict[str, Any], out: Path, markdown: Callable[[dict[str, Any]], str]
                  ) -> None:
    """A benchmark's raw figures to ``out`` (JSON) and its table beside them (``.md``), the
    table printed and the file named on stderr."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n")
    md = markdown(data)
    out.with_suffix(".md").write_text(md)
    print(md)
    print(f"raw figures: {out}", file=sys.stderr)
