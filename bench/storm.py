"""A reconnect storm: every player and spectator of many encounters resumes at once.

    python -m bench.storm                       # 50 encounters, 3 rounds
    python -m bench.storm --encounters 100 --rounds 5 --behind 12
    python -m bench.storm --ways since,join --root /path/to/an/older/checkout   # a baseline

What it measures is the server's CPU per resume (utime + stime of its process over the storm,
divided by the connections that resumed), for each way a reader names its place in the log, in
the same run against the same server and Redis:

- ``since``: ``hello.since`` and ``hello.digest`` (protocol 1 without the ``cursor`` feature);
- ``cursor``: ``hello.cursor`` with the ``cursor`` feature (the place sealed in an opaque cursor);
- ``join``: a ``hello`` without either, answered with a snapshot (what a resume saves).

Each encounter is a GM, 4 players and a spectator (5 readers), with a hidden NPC among the
combatants. Each round the readers note their place and drop, the GM plays ``--behind`` turns,
and then, for each way in turn, all readers reconnect at once and resume from the same places
(a resume changes nothing in the log, so every way replays the same events); a resume is done
when its ``legal_actions`` has come. The order of the ways turns round after round (after one
storm of each, not counted, to warm up), so that a drift of the machine falls on all of them.
Results are printed as a Markdown table and written to ``bench/results/storm-<time>.json``.

``--failover`` measures the storm a crash brings instead: two server processes on one Redis,
every GM, player and spectator connected to the first; it is SIGKILLed, and all of them
reconnect at once to the second (whose rooms are not loaded yet) and resume by ``since`` and
``digest``. It reports the time until every one of them has its ``legal_actions``, and the
second server's CPU per resume (``--rounds`` times, on fresh processes each).

    python -m bench.storm --failover --encounters 700          # 4,200 connections
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench import procs
from clients.client import FEATURES, Client

WAYS = ("since", "cursor", "join")
ROSTER = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 40},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 30},
    {"name": "Applejack", "id": "applejack", "kind": "pc", "initiative": 20},
    {"name": "Rarity", "id": "rarity", "kind": "pc", "initiative": 10},
    {"name": "Lurking Dog", "id": "lurker", "kind": "npc", "initiative": 0, "hidden": True},
    {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": -20},
]


class Encounter:
    def __init__(self, encounter: str, gm: Client, tokens: list[str], gm_token: str = "") -> None:
        self.encounter, self.gm, self.tokens = encounter, gm, tokens
        self.gm_token = gm_token
        # each reader's place: (since, digest) and its cursor, noted before it drops
        self.places: list[tuple[int, str | None, str | None]] = []


async def set_up(url: str, n: int) -> list[Encounter]:
    anon = await Client.open(url)
    await anon.hello()
    out = []
    for i in range(n):
        if i and i % 40 == 0:  # (within a connection's rate limit: a fresh one now and then)
            await anon.close()
            anon = await Client.open(url)
            await anon.hello()
        ack = await anon.command("create_encounter", name=f"Storm {i}", combatants=ROSTER,
                                 options={"dice_seed": i + 1})
        gm = await Client.open(url)
        await gm.hello(ack["result"]["gm_token"])
        tokens = []
        for pc in ("twilight", "dash", "applejack", "rarity"):
            invite = await gm.command("issue_invite", combatants=[pc])
            tokens.append(invite["result"]["token"])
        link = await gm.command("issue_spectator_link")
        tokens.append(link["result"]["token"])
        await gm.command("start_encounter")
        out.append(Encounter(ack["result"]["encounter"], gm, tokens, ack["result"]["gm_token"]))
    await anon.close()
    return out


async def end_turns(e: Encounter, n: int) -> None:
    """The GM ends ``n`` turns (a player's too: the GM may act for everyone)."""
    for _ in range(n):
        acting = [a["combatant"] for a in e.gm.legal if a["action"] == "end_turn"]
        if not acting:
            await e.gm.wait_for(lambda m: m["type"] == "legal_actions", start=len(e.gm.messages))
            continue
        ack = await e.gm.command("act", combatant=acting[0], action="end_turn")
        await e.gm.wait_seq(ack["seq"])


async def note_places(url: str, encounters: list[Encounter], cursors: bool = True) -> None:
    """Every reader connects (with the cursor feature, which also gives the seq and digest it
    would be told without it: the same server, asked twice), notes its place and drops."""
    async def one(e: Encounter, token: str) -> tuple[int, str | None, str | None]:
        plain = await Client.open(url)
        await plain.hello(token)
        await plain.wait_for(lambda m: m["type"] == "legal_actions")
        if not cursors:  # (a server without the cursor feature)
            await plain.close()
            return plain.last_seq, plain.last_digest, None
        sealed = await Client.open(url)
        await sealed.hello(token, features=[*FEATURES, "cursor"])
        await sealed.wait_for(lambda m: m["type"] == "legal_actions")
        place = (plain.last_seq, plain.last_digest, sealed.last_cursor)
        await asyncio.gather(plain.close(), sealed.close())
        return place

    for e in encounters:
        e.places = list(await asyncio.gather(*(one(e, t) for t in e.tokens)))


async def storm(url: str, encounters: list[Encounter], way: str, pid: int) -> dict[str, Any]:
    """Every reader reconnects at once and resumes ``way``; the server's CPU over it."""
    async def resume(token: str, place: tuple[int, str | None, str | None]) -> Client:
        client = await Client.open(url)
        if way == "since":
            await client.hello(token, since=place[0], digest=place[1])
        elif way == "cursor":
            await client.hello(token, features=[*FEATURES, "cursor"], cursor=place[2])
        else:
            await client.hello(token)
        await client.wait_for(lambda m: m["type"] == "legal_actions", timeout=60)
        return client

    await asyncio.sleep(0.5)  # let the server settle before the clock starts
    cpu0, t0 = procs.cpu_seconds(pid), time.perf_counter()
    clients = await asyncio.gather(*(resume(t, p) for e in encounters
                                     for t, p in zip(e.tokens, e.places, strict=True)))
    elapsed, cpu1 = time.perf_counter() - t0, procs.cpu_seconds(pid)
    snapshots = sum(1 for c in clients if c.snapshot is not None)
    events = sum(len(c.events()) for c in clients)
    await asyncio.gather(*(c.close() for c in clients))
    assert cpu0 is not None and cpu1 is not None
    n = len(clients)
    return {"way": way, "resumes": n, "seconds": elapsed, "cpu_ms_per_resume":
            1000 * (cpu1 - cpu0) / n, "snapshots": snapshots, "events_per_resume": events / n}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    procs.raise_nofile()
    ways = tuple(w for w in WAYS if w in args.ways.split(","))
    stack = await procs.start_stack("stablemaster", None, [],
                                    root=Path(args.root).resolve() if args.root else procs.ROOT)
    try:
        url = stack.url
        encounters = await set_up(url, args.encounters)
        rows: list[dict[str, Any]] = []
        for way in ways:  # a warm-up of each way, not counted
            await note_places(url, encounters, "cursor" in ways)
            await asyncio.gather(*(end_turns(e, args.behind) for e in encounters))
            await storm(url, encounters, way, stack.server_pid)
        for r in range(args.rounds):
            # the same places and the same log for every way: a resume changes neither
            await note_places(url, encounters, "cursor" in ways)
            await asyncio.gather(*(end_turns(e, args.behind) for e in encounters))
            for way in ways[r % len(ways):] + ways[:r % len(ways)]:
                rows.append(await storm(url, encounters, way, stack.server_pid))
                print(f"round {r + 1} {way}: {rows[-1]['cpu_ms_per_resume']:.3f} ms/resume "
                      f"({rows[-1]['resumes']} resumes, {rows[-1]['snapshots']} snapshots, "
                      f"{rows[-1]['events_per_resume']:.1f} events each)", flush=True)
        await asyncio.gather(*(e.gm.close() for e in encounters))
    finally:
        stack.stop()
        stack.cleanup()
    return {"encounters": args.encounters, "behind": args.behind, "rounds": rows,
            "root": args.root or str(procs.ROOT)}


async def failover_once(n: int, root: Path = procs.ROOT) -> dict[str, Any]:
    """One crash: ``n`` encounters on server A, A SIGKILLed, every connection resumed on B
    (both run from ``root``)."""
    stack = await procs.start_stack("stablemaster", None, [], root=root)
    port = procs.free_port()
    argv = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--redis-url", str(stack.redis_url), "--secret", "bench-secret", "--log-level",
            "WARNING"]
    second = procs._spawn("second", argv, stack.workdir, root)
    try:
        await procs.wait_port(port, second.popen)
        encounters = await set_up(stack.url, n)
        seated: list[tuple[str, Client]] = []
        for e in encounters:
            for token in e.tokens:
                reader = await Client.open(stack.url)
                await reader.hello(token)
                seated.append((token, reader))
        for _, reader in seated:
            await reader.wait_for(lambda m: m["type"] == "legal_actions")
        places = [(token, c.last_seq, c.last_digest) for token, c in seated] + [
            (e.gm_token, e.gm.last_seq, e.gm.last_digest) for e in encounters]
        assert stack.server is not None
        stack.server.popen.send_signal(signal.SIGKILL)
        stack.server.popen.wait()
        await asyncio.sleep(0.5)  # every client has seen its connection go
        url = f"ws://127.0.0.1:{port}/ws"

        async def resume(token: str, since: int, digest: str | None) -> Client:
            client = await Client.open(url)
            await client.hello(token, since=since, digest=digest)
            await client.wait_for(lambda m: m["type"] == "legal_actions", timeout=120)
            return client

        cpu0, t0 = procs.cpu_seconds(second.pid), time.perf_counter()
        clients = await asyncio.gather(*(resume(*place) for place in places))
        elapsed, cpu1 = time.perf_counter() - t0, procs.cpu_seconds(second.pid)
        assert cpu0 is not None and cpu1 is not None
        snapshots = sum(1 for c in clients if c.snapshot is not None)
        await asyncio.gather(*(c.close() for c in clients))
        return {"resumes": len(clients), "seconds": elapsed,
                "cpu_ms_per_resume": 1000 * (cpu1 - cpu0) / len(clients),
                "snapshots": snapshots}
    finally:
        second.stop(signal.SIGINT)
        stack.stop()
        stack.cleanup()


async def failover(args: argparse.Namespace) -> dict[str, Any]:
    procs.raise_nofile()
    rows = []
    for r in range(args.rounds):
        rows.append(await failover_once(
            args.encounters, Path(args.root).resolve() if args.root else procs.ROOT))
        print(f"round {r + 1}: {rows[-1]['resumes']} resumed in {rows[-1]['seconds']:.2f} s, "
              f"{rows[-1]['cpu_ms_per_resume']:.3f} ms of server CPU each, "
              f"{rows[-1]['snapshots']} snapshots", flush=True)
    return {"encounters": args.encounters, "failover": True, "rounds": rows,
            "root": args.root or str(procs.ROOT)}


def report_failover(result: dict[str, Any]) -> str:
    rows = result["rounds"]
    seconds = [r["seconds"] for r in rows]
    cpu = [r["cpu_ms_per_resume"] for r in rows]
    return "\n".join([
        f"Failover storm: {result['encounters']} encounters, {rows[0]['resumes']} connections "
        "resuming at once on a second process after the first was SIGKILLed (medians of "
        f"{len(rows)} rounds, lowest and highest in brackets)", "",
        "| connections | seconds until all resumed | server CPU ms/resume | snapshots |",
        "| --: | --: | --: | --: |",
        f"| {rows[0]['resumes']} | {statistics.median(seconds):.2f} ({min(seconds):.2f}-"
        f"{max(seconds):.2f}) | {statistics.median(cpu):.3f} ({min(cpu):.3f}-{max(cpu):.3f}) "
        f"| {sum(r['snapshots'] for r in rows)} |"])


def report(result: dict[str, Any]) -> str:
    lines = [f"Reconnect storm: {result['encounters']} encounters, "
             f"{result['encounters'] * 5} readers resuming at once, {result['behind']} turns "
             "behind (medians of the rounds, lowest and highest in brackets)", "",
             "| way | server CPU ms/resume | events replayed per resume | snapshots |",
             "| --- | --: | --: | --: |"]
    for way in WAYS:
        rows = [r for r in result["rounds"] if r["way"] == way]
        if not rows:
            continue
        cpu = [r["cpu_ms_per_resume"] for r in rows]
        lines.append(f"| {way} | {statistics.median(cpu):.3f} ({min(cpu):.3f}-{max(cpu):.3f}) "
                     f"| {statistics.median(r['events_per_resume'] for r in rows):.1f} "
                     f"| {sum(r['snapshots'] for r in rows)} of "
                     f"{sum(r['resumes'] for r in rows)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--encounters", type=int, default=50)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--behind", type=int, default=8, help="turns played while the readers "
                   "are away")
    p.add_argument("--ways", default=",".join(WAYS), help="of since, cursor, join")
    p.add_argument("--root", default=None, help="run the server from this checkout (another "
                   "version of the project, for a baseline; without the cursor feature, "
                   "--ways since,join)")
    p.add_argument("--failover", action="store_true", help="the storm of a crash: every "
                   "connection of a SIGKILLed process resumes on a second one")
    args = p.parse_args(argv)
    result = asyncio.run(failover(args) if args.failover else run(args))
    text = report_failover(result) if args.failover else report(result)
    print(text)
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    (out / f"storm-{stamp}.json").write_text(json.dumps(result, indent=1))
    (out / "storm-latest.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
