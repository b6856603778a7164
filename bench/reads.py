"""What reads cost the other tables of a process: replays and history pages of one link.

    python -m bench.reads                  # 60 replays of 3,000 events; 30 history readers
    python -m bench.reads --quick          # smoke run: small logs, a few seconds each
    python -m bench.reads --parts history --readers 30 --window 30

A Stablemaster server and its Redis run as real processes, pinned to core 0 (the generator on
core 1, ``procs.pin_generator``). The logs are grown through the protocol first, by a server
started for that with a command rate no client gets by default (``--commands-per-second``
and ``--command-burst`` of 100,000: growing 3,000 events at 20 commands a second would take
minutes); it is then stopped, and the server measured is started on the same Redis with the
default rate limits and read budgets (``--server-arg`` adds to both), so that every reader
meets the limits a client meets. Meanwhile another table (a GM and 5 combatants, nothing
hidden), created on the measured server, plays: its GM ends a turn every ``--pace`` seconds
(within the default rate limit), and the time from each command to its ``ack`` is taken.

- **Replays** (issue 46, 60 replays of one link at once): a log of ``--events`` events; then
  ``--replays`` replays (``hello.replay``, speed 1,000, no pause) opened at once with the
  encounter's spectator link, the overlay link a GM hands out. Until every replay has ended
  (or been refused), and for at least ``--min-commands`` of the other table's commands, the
  other table's p50, p99 and max; how many replays were welcomed and how many refused
  (``rate_limited``: the credential's read budget), and the server's CPU over that time.
  Target: the other table's p99 under 100 ms.
- **History** (issue 46, 30 readers of one link paging): a log in which ``--hidden`` events
  are hidden from a spectator (spectator links issued by the GM, each event the GM's alone,
  in ten runs between visible turns; the hidden NPC's turns besides). The other table plays
  alone for ``--idle`` seconds (its idle median); then ``--readers`` connections of the
  encounter's spectator link page back through ``get_history`` (``limit`` ``--page``, from
  the newest to the start and again) for ``--window`` seconds, each as fast as it is
  answered; a page refused ``rate_limited`` waits the ``retry_after`` it was told. Reported:
  the other table's median and p99 idle and under the readers, the ratio of the medians,
  pages served and refused, and the server's CPU. Target: the median under 2x the idle one.

Loopback clients have no address budget (``server.budgets``): what bounds these readers is
the credential's. The figures go to ``bench/results/reads-<timestamp>.json`` and the table
beside it (``.md``); on a machine shared with other work, read them with its load in mind.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import connect

from bench import procs
from bench.__main__ import environment
from bench.report import write_results
from bench.storm import ROSTER
from clients.client import FEATURES, Client, CommandError

RESULTS = Path(__file__).resolve().parent / "results"
#: issue 46: the other table's p99 during the replays, ms
P99_TARGET_MS = 100.0
#: issue 46: the other table's median under the history readers, times its idle median
MEDIAN_RATIO = 2.0
#: what the server that grows the logs lets through (the measured one has the defaults)
GROW_ARGS = ["--commands-per-second", "100000", "--command-burst", "100000"]
REPLAY = {"speed": 1000, "max_pause": 0}
VIEW = [*FEATURES, "cursor", "view", "summaries"]
#: the other table: nothing hidden, so that every command of its GM is answered at once
OTHER = [c for c in ROSTER if not c.get("hidden")]

Log = Callable[[str], None]


class Table:
    def __init__(self, encounter: str, gm: Client, spectator_token: str) -> None:
        self.encounter, self.gm, self.spectator_token = encounter, gm, spectator_token


async def create(url: str, name: str, roster: list[dict[str, Any]], seed: int,
                 opened: list[Client]) -> Table:
    """An encounter begun: its GM connected, a spectator link issued."""
    anon = await Client.open(url)
    opened.append(anon)
    await anon.hello()
    ack = await anon.command("create_encounter", name=name, combatants=roster,
                             options={"dice_seed": seed})
    await anon.close()
    gm = await Client.open(url)
    opened.append(gm)
    await gm.hello(ack["result"]["gm_token"])
    link = await gm.command("issue_spectator_link", label="overlay")
    await gm.command("start_encounter")
    return Table(ack["result"]["encounter"], gm, link["result"]["token"])


async def end_turn(gm: Client) -> float:
    """The GM ends the current turn (whoever acts: the GM may act for everyone); the seconds
    from the command to its ``ack``. Returns once the GM's legal actions are current."""
    await gm.wait_until(lambda: any(a["action"] == "end_turn" for a in gm.legal))
    actor = next(a["combatant"] for a in gm.legal if a["action"] == "end_turn")
    begun = time.perf_counter()
    ack = await gm.command("act", combatant=actor, action="end_turn")
    took = time.perf_counter() - begun
    seq = int(ack["seq"])
    await gm.wait_until(lambda: gm.last_seq >= seq and (gm.legal_seq or 0) >= seq, timeout=30)
    return took


async def grow_turns(gm: Client, events: int) -> None:
    while gm.last_seq < events:
        await end_turn(gm)


async def grow_hidden(gm: Client, hidden: int, runs: int = 10, turns: int = 15) -> None:
    """``hidden`` events a spectator may not see (spectator links issued: each event the
    GM's alone), in ``runs`` runs, each after ``turns`` visible turns; ``turns`` more after."""
    for k in range(runs):
        for _ in range(turns):
            await end_turn(gm)
        n = hidden // runs + (1 if k < hidden % runs else 0)
        sends = [gm.send_command("issue_spectator_link", label=f"hidden {k}.{i}")
                 for i in range(n)]
        replies = await asyncio.gather(*await asyncio.gather(*sends))
        bad = [r for r in replies if r["type"] != "ack"]
        if bad:
            raise RuntimeError(f"growing the hidden events: {bad[0]}")
    for _ in range(turns):
        await end_turn(gm)


def figures(waits: list[float]) -> dict[str, Any]:
    """Count, p50, p99 and max of latencies in seconds, as milliseconds."""
    if not waits:
        return {"commands": 0, "p50_ms": None, "p99_ms": None, "max_ms": None}
    ordered = sorted(waits)
    p99 = ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]
    return {"commands": len(ordered), "p50_ms": round(1000 * statistics.median(ordered), 2),
            "p99_ms": round(1000 * p99, 2), "max_ms": round(1000 * ordered[-1], 2)}


class Pacer:
    """The other table's GM, ending a turn every ``pace`` seconds (no sooner than the last
    one is answered); ``errors``: the codes of its commands refused, by count."""

    def __init__(self, gm: Client, pace: float) -> None:
        self.gm, self.pace = gm, pace
        self.waits: list[float] = []
        self.sent: list[float] = []
        self.errors: dict[str, int] = {}

    async def run_until(self, done: Callable[[int], bool]) -> list[float]:
        """Play until ``done(commands played so far)``, checked after each command; the
        latencies of that stretch (``sent`` has when each was sent, ``time.perf_counter``)."""
        waits: list[float] = []
        self.sent = []
        due = time.perf_counter()
        while not done(len(waits)):
            due += self.pace
            try:
                sent = time.perf_counter()
                waits.append(await end_turn(self.gm))
                self.sent.append(sent)
            except CommandError as exc:
                code = str(exc.reply.get("code"))
                self.errors[code] = self.errors.get(code, 0) + 1
                await self.gm.command("get_legal_actions")
            pause = due - time.perf_counter()
            if pause > 0:
                await asyncio.sleep(pause)
            else:
                due = time.perf_counter()  # (late: no catching up in a burst)
        self.waits += waits
        return waits

    async def run_for(self, seconds: float) -> list[float]:
        until = time.monotonic() + seconds
        return await self.run_until(lambda _: time.monotonic() >= until)


def _cpu(pid: int) -> float:
    value = procs.cpu_seconds(pid)
    return 0.0 if value is None else value


async def watch_replay(url: str, token: str, timeout: float) -> dict[str, Any]:
    """One replay on a plain websocket (nothing folds it: what is measured is the server):
    its answer (``welcome`` or the error's code), whether ``replay_ended`` came, its frames
    and seconds."""
    begun = time.monotonic()
    out: dict[str, Any] = {"answer": "none", "ended": False, "frames": 0}
    try:
        async with connect(url, max_size=None, compression=None) as ws:
            await ws.send(orjson.dumps({"type": "hello", "versions": [1], "token": token,
                                        "features": VIEW, "replay": REPLAY}).decode())
            async with asyncio.timeout(timeout):
                while True:
                    raw = await ws.recv(decode=False)
                    out["frames"] += 1
                    if out["answer"] == "none":
                        first = orjson.loads(raw)
                        if first.get("type") == "batch" and first.get("messages"):
                            first = first["messages"][0]
                        if first.get("type") == "error":
                            out["answer"] = str(first.get("code"))
                            break
                        out["answer"] = str(first.get("type"))
                    if b'"type":"replay_ended"' in raw:
                        out["ended"] = True
                        break
    except TimeoutError:
        out["timed_out"] = True
    except Exception as exc:  # (closed: what it got is what is reported)
        out["closed"] = f"{type(exc).__name__}: {exc}"
    out["seconds"] = round(time.monotonic() - begun, 3)
    out["ended_at"] = time.perf_counter()
    return out


async def part_replays(args: argparse.Namespace, url: str, pid: int, table_token: str,
                       log_events: int, pacer: Pacer, log: Log) -> dict[str, Any]:
    log(f"replays: {args.replays} at once of a log of {log_events} events ...")
    await pacer.run_for(args.settle)
    watchers = [asyncio.ensure_future(watch_replay(url, table_token, args.replay_timeout))
                for _ in range(args.replays)]
    t0, c0 = time.monotonic(), _cpu(pid)
    waits = await pacer.run_until(lambda n: n >= args.min_commands
                                  and all(w.done() for w in watchers))
    wall, cpu = time.monotonic() - t0, _cpu(pid) - c0
    answers = [w.result() for w in watchers]
    last = max(a.pop("ended_at") for a in answers)
    during = [w for w, at in zip(waits, pacer.sent, strict=True) if at < last]
    welcomed = sum(1 for a in answers if a["answer"] == "welcome")
    refused = sum(1 for a in answers if a["answer"] == "rate_limited")
    other = {a["answer"] for a in answers} - {"welcome", "rate_limited"}
    lasted = [a["seconds"] for a in answers if a["answer"] == "welcome"]
    result = {"log_events": log_events, "replays": args.replays, "welcomed": welcomed,
              "refused": refused, "other_answers": sorted(other),
              "ended": sum(1 for a in answers if a["ended"]),
              "replay_seconds_max": max(lasted) if lasted else None,
              "wall_s": round(wall, 2), "server_cpu_s": round(cpu, 3),
              "server_cpu_pct": round(100 * cpu / wall, 1) if wall else None,
              "other_table": figures(waits),
              # (of them, those sent before the last replay had ended or been refused)
              "other_table_during": figures(during), "target_p99_ms": P99_TARGET_MS}
    # (met when the p99 of the whole stretch and that of the commands sent while a replay
    # ran, few as they may be, are both under the target)
    p99s = [f["p99_ms"] for f in (result["other_table"], result["other_table_during"])
            if f["commands"]]
    result["p99_ms"] = max(p99s) if p99s else None
    result["met"] = result["p99_ms"] is not None and result["p99_ms"] < P99_TARGET_MS
    log(f"  {welcomed} welcomed, {refused} refused; the other table: {result['other_table']}")
    return result


async def part_history(args: argparse.Namespace, url: str, pid: int, table_token: str,
                       log_events: int, pacer: Pacer, opened: list[Client],
                       log: Log) -> dict[str, Any]:
    log(f"history: the other table alone for {args.idle:g} s ...")
    await pacer.run_for(args.settle)
    t0, c0 = time.monotonic(), _cpu(pid)
    idle = figures(await pacer.run_for(args.idle))
    idle_cpu = (_cpu(pid) - c0) / (time.monotonic() - t0)
    log(f"  idle: {idle}")
    log(f"history: {args.readers} readers of one link for {args.window:g} s ...")
    stop = asyncio.Event()
    go = asyncio.Event()
    tally = {"served": 0, "refused": 0, "events": 0}
    connected = await asyncio.gather(*(Client.open(url) for _ in range(args.readers)))
    opened.extend(connected)
    await asyncio.gather(*(c.hello(table_token) for c in connected))

    async def page_back(client: Client) -> None:
        await go.wait()
        before: Any = None
        while not stop.is_set():
            client.messages.clear()
            fields: dict[str, Any] = {"limit": args.page}
            if before is not None:
                fields["before"] = before
            try:
                await client.command("get_history", **fields)
            except CommandError as exc:
                code = str(exc.reply.get("code"))
                key = "refused" if code == "rate_limited" else f"error {code}"
                tally[key] = tally.get(key, 0) + 1
                retry = float(exc.reply.get("details", {}).get("retry_after", 1))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), retry)
                continue
            page = next((m for m in client.messages if m["type"] == "history"), None)
            if page is None:
                tally["no page"] = tally.get("no page", 0) + 1
                continue
            tally["served"] += 1
            tally["events"] += len(page["events"])
            before = page.get("before")

    readers = [asyncio.ensure_future(page_back(c)) for c in connected]
    t0, c0 = time.monotonic(), _cpu(pid)
    go.set()
    try:
        loaded = figures(await pacer.run_for(args.window))
    finally:
        stop.set()
    wall, cpu = time.monotonic() - t0, _cpu(pid) - c0
    await asyncio.gather(*readers, return_exceptions=True)
    ratio = None
    if idle["p50_ms"] and loaded["p50_ms"] is not None:
        ratio = round(loaded["p50_ms"] / idle["p50_ms"], 3)
    result = {"log_events": log_events, "hidden_events": args.hidden, "readers": args.readers,
              "page_limit": args.page, "idle": idle, "loaded": loaded, "ratio": ratio,
              "pages_served": tally["served"], "pages_refused": tally["refused"],
              "events_served": tally["events"],
              "other_outcomes": {k: v for k, v in tally.items()
                                 if k not in ("served", "refused", "events")},
              "wall_s": round(wall, 2),
              "server_cpu_pct_idle": round(100 * idle_cpu, 1),
              "server_cpu_pct": round(100 * cpu / wall, 1) if wall else None,
              "target_ratio": MEDIAN_RATIO,
              "met": ratio is not None and ratio < MEDIAN_RATIO}
    log(f"  under the readers: {loaded}; {tally['served']} pages served, "
        f"{tally['refused']} refused")
    return result


async def run(args: argparse.Namespace, core: int | None, log: Log) -> dict[str, Any]:
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    opened: list[Client] = []
    stack = await procs.start_stack("stablemaster", core, [*GROW_ARGS, *args.server_arg])
    serving: procs.Proc | None = None
    try:
        url = stack.url
        replayed = paged = None
        if "replays" in parts:
            log(f"growing a log of {args.events} events ...")
            replayed = await create(url, "Replayed", ROSTER, 5, opened)
            await grow_turns(replayed.gm, args.events)
        if "history" in parts:
            log(f"growing a log with {args.hidden} events hidden from a spectator ...")
            paged = await create(url, "Paged", ROSTER, 7, opened)
            await grow_hidden(paged.gm, args.hidden)
        lengths = {"replays": replayed.gm.last_seq if replayed else 0,
                   "history": paged.gm.last_seq if paged else 0}
        for client in opened:
            await client.close()
        opened.clear()
        assert stack.server is not None
        stack.server.stop()
        # the server measured: the same Redis, the default limits
        serving, url = procs.start_peer(stack, core, args.server_arg, name="serving")
        await procs.wait_port(int(url.rsplit(":", 1)[1].split("/")[0]), serving.popen)
        other = await create(url, "Another table", OTHER, 9, opened)
        pacer = Pacer(other.gm, args.pace)
        out: dict[str, Any] = {}
        if replayed is not None:
            out["replays"] = await part_replays(args, url, serving.pid,
                                                replayed.spectator_token, lengths["replays"],
                                                pacer, log)
        if paged is not None:
            out["history"] = await part_history(args, url, serving.pid, paged.spectator_token,
                                                lengths["history"], pacer, opened, log)
        out["other_table_errors"] = pacer.errors
        return out
    except Exception:
        log(stack.logs())
        if serving is not None:
            log(f"--- serving ---\n{serving.tail()}")
        raise
    finally:
        for client in opened:
            with contextlib.suppress(Exception):
                await client.close()
        if serving is not None:
            serving.stop()
        stack.stop()
        stack.cleanup()


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def markdown(data: dict[str, Any]) -> str:
    env, r, c = data["environment"], data["result"], data["config"]
    pinned = "the server and Redis on core 0, the clients on core 1" \
        if env.get("server_core") is not None else "not pinned"
    lines = [f"# What reads cost another table ({data['started']})", "",
             f"Revision {env['revision']}, {env['cpu']} ({env['cores']} cores), {pinned}; "
             f"the server's default rate limits and read budgets; the other table's GM ends a "
             f"turn every {c['pace']:g} s.", ""]
    verdicts = []
    if "replays" in r:
        a, o, d = r["replays"], r["replays"]["other_table"], r["replays"]["other_table_during"]
        lines += [f"## {a['replays']} replays of one spectator link, a log of "
                  f"{a['log_events']} events", "",
                  f"Replays welcomed {a['welcomed']}, refused {a['refused']} "
                  f"(ended {a['ended']}, the longest in {_ms(a['replay_seconds_max'])} s); "
                  f"the server's CPU {a['server_cpu_pct']} % over {a['wall_s']:g} s.", "",
                  "| other table's commands | count | p50 ms | p99 ms | max ms |",
                  "| --- | --: | --: | --: | --: |",
                  f"| from the replays' opening on | {o['commands']} | {_ms(o['p50_ms'])} | "
                  f"{_ms(o['p99_ms'])} | {_ms(o['max_ms'])} |",
                  f"| of them, sent while a replay ran | {d['commands']} | {_ms(d['p50_ms'])} | "
                  f"{_ms(d['p99_ms'])} | {_ms(d['max_ms'])} |", ""]
        verdicts.append(f"- Replays: the other table's p99 {_ms(a['p99_ms'])} ms (the higher of "
                        "the two above), target under "
                        f"{P99_TARGET_MS:g} ms: {'met' if a['met'] else 'NOT met'}")
    if "history" in r:
        h = r["history"]
        i, loaded = h["idle"], h["loaded"]
        lines += [f"## {h['readers']} connections of one spectator link paging history "
                  f"(limit {h['page_limit']}), {h['hidden_events']} events hidden from it in "
                  f"a log of {h['log_events']}", "",
                  "| other table | commands | median ms | p99 ms | max ms | pages served | "
                  "refused | server CPU |",
                  "| --- | --: | --: | --: | --: | --: | --: | --: |",
                  f"| idle | {i['commands']} | {_ms(i['p50_ms'])} | {_ms(i['p99_ms'])} | "
                  f"{_ms(i['max_ms'])} | | | {h['server_cpu_pct_idle']} % |",
                  f"| under the readers | {loaded['commands']} | {_ms(loaded['p50_ms'])} | "
                  f"{_ms(loaded['p99_ms'])} | {_ms(loaded['max_ms'])} | {h['pages_served']} | "
                  f"{h['pages_refused']} | {h['server_cpu_pct']} % |", "",
                  f"Median under the readers / idle median: {h['ratio']}x", ""]
        verdicts.append(f"- History: the other table's median {h['ratio']}x its idle median, "
                        f"target under {MEDIAN_RATIO:g}x: {'met' if h['met'] else 'NOT met'}")
    return "\n".join([*lines, *verdicts]) + "\n"


QUICK = {"events": 300, "replays": 12, "hidden": 300, "readers": 6, "idle": 2.0,
         "window": 3.0, "min_commands": 10, "settle": 0.3}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.reads", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", default="replays,history",
                   help="comma-separated, of replays and history (default both)")
    p.add_argument("--events", type=int, default=3000,
                   help="events in the replayed log (default 3,000)")
    p.add_argument("--replays", type=int, default=60, help="replays at once (default 60)")
    p.add_argument("--min-commands", type=int, default=100,
                   help="the other table's commands measured during the replays, at least "
                   "(default 100)")
    p.add_argument("--replay-timeout", type=float, default=300.0,
                   help="seconds a replay may take before it is given up (default 300)")
    p.add_argument("--hidden", type=int, default=3000,
                   help="events hidden from the spectator in the paged log (default 3,000)")
    p.add_argument("--readers", type=int, default=30,
                   help="connections of the link paging history (default 30)")
    p.add_argument("--page", type=int, default=100, help="get_history's limit (default 100)")
    p.add_argument("--idle", type=float, default=20.0,
                   help="seconds the other table plays alone first (default 20)")
    p.add_argument("--window", type=float, default=30.0,
                   help="seconds of the history readers (default 30)")
    p.add_argument("--pace", type=float, default=0.1,
                   help="seconds between the other table's commands (default 0.1: within "
                   "the default 20 a second)")
    p.add_argument("--settle", type=float, default=2.0,
                   help="seconds the other table plays before each measure (default 2)")
    p.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for the servers' `python -m server serve`")
    p.add_argument("--no-pin", action="store_true",
                   help="do not pin (default: the server and Redis on core 0, the clients on "
                   "core 1)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run, unless said otherwise: "
                   + ", ".join(f"--{k.replace('_', '-')} {v:g}" for k, v in QUICK.items()))
    p.add_argument("--out", type=Path, help="JSON results file (the table goes beside it)")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.quick:  # (its sizes, but for those given)
        parser.set_defaults(**QUICK)
        args = parser.parse_args(argv)
    procs.raise_nofile()
    core, gen_core = procs.pin_generator(args.no_pin)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log: Log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    result = asyncio.run(run(args, core, log))
    config = {k: getattr(args, k) for k in ("parts", "events", "replays", "min_commands",
                                             "hidden", "readers", "page", "idle", "window",
                                             "pace", "settle", "server_arg", "quick")}
    data = {"started": stamp, "environment": environment(core, gen_core, "asyncio"),
            "config": {**config, "grow_args": GROW_ARGS}, "result": result}
    write_results(data, args.out or RESULTS / f"reads-{stamp}.json", markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
