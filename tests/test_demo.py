"""The demo (``stablemaster serve --demo``, what ``python3 dev.py serve`` starts): the links
printed last and working, the bots' moves in their own log, a scene waiting for its first
visitor, a GM who watches without stalling it, a new scene when one ends."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from clients.client import Client, CommandError
from encounter.state import EncounterState
from server.app import Server
from server.cli import ENV
from server.demo import DEMO_KEY
from tests.conftest import ROOT, settings_for, ws_url
from tests.helpers import join
from tests.redis_procs import RedisProcess, free_port

RULE = "=" * 78
LINK = re.compile(r"^  (GM console|spectator page|player [^:]+):\s+(\S+)$")


def http_status(url: str) -> int:
    with urllib.request.urlopen(url.split("#")[0], timeout=5) as r:
        return int(r.status)


def links(block: list[str]) -> dict[str, str]:
    return {m[1]: m[2] for line in block if (m := LINK.match(line))}


async def until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {what} in {timeout:g} s")


def state_of(srv: Server, encounter: str) -> EncounterState:
    room = srv.rooms.peek(encounter)
    assert room is not None
    return room.state


async def fresh_demo(redis_url: str, ruleset: str) -> None:
    """Forget the demo encounter another test left (it would be resumed, not created)."""
    redis = Redis.from_url(redis_url)
    await redis.delete(DEMO_KEY.format(ruleset=ruleset))
    await redis.aclose()


async def test_the_links_come_last_work_and_a_new_scene_follows_the_end(
        tmp_path: Path, clients: list[Client]) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ENV.values()}
    out = tmp_path / "terminal.txt"
    demo_log = tmp_path / "data" / "demo.log"
    cmd = [sys.executable, "-m", "server", "serve", "--demo", "--demo-ruleset", "dramatic",
           "--demo-wait", "0", "--demo-pace", "0", "--port", str(port),
           "--data-dir", str(tmp_path / "data")]  # an embedded Redis
    with out.open("wb") as sink:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    try:
        def terminal() -> list[str]:
            return out.read_text().splitlines()

        await until(lambda: terminal().count(RULE) == 2, 30, "block of links")
        await asyncio.sleep(1.0)  # nothing follows it while nobody has come
        lines = terminal()
        assert lines[-1] == RULE, lines
        block = lines[lines.index(RULE):]
        assert "The bots' moves: " + str(demo_log) + ". Ctrl-C stops the server." in block
        first = links(block)
        assert {"GM console", "spectator page"} <= set(first) and len(first) == 6, block
        for url in [*first.values(), f"http://127.0.0.1:{port}/table/"]:
            assert await asyncio.to_thread(http_status, url) == 200, url
        assert not demo_log.exists() or "moves" not in demo_log.read_text()

        # a first visitor: the bots start the scene and play; their moves go to the demo's
        # log, not to the terminal
        spectate = first["spectator page"].split("spectate=")[1]
        watcher = await join(f"ws://127.0.0.1:{port}/ws", spectate, clients)
        await watcher.wait_for(lambda m: m["type"] == "event"
                               and m["event"]["kind"] == "turn_started", timeout=30)
        await until(lambda: demo_log.exists() and "stablemaster.bot" in demo_log.read_text(),
                    30, "bot move in the demo's log")
        assert terminal()[-1] == RULE, terminal()[len(lines):]

        # the GM ends the scene: a new one follows, its links printed, and they work
        gm_token = first["GM console"].split("#token=")[1]
        gm = await join(f"ws://127.0.0.1:{port}/ws", gm_token, clients)
        try:
            await gm.command("end_encounter", reason="the GM calls it a day")
        except CommandError as err:  # the bots' fight was over first: a new scene follows too
            assert "has ended" in err.reply["message"], err.reply
        await until(lambda: any(line.startswith("New scene 'Ponies vs. Diamond Dogs'")
                                for line in terminal()), 30, "new scene")
        await asyncio.sleep(0.5)
        after = terminal()[len(lines):]
        start = next(i for i, line in enumerate(after) if line.startswith("New scene"))
        second = links(after[start:])
        assert set(second) == set(first) and not set(second.values()) & set(first.values())
        for url in second.values():
            assert await asyncio.to_thread(http_status, url) == 200, url
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            await asyncio.to_thread(proc.wait, 20)


async def test_a_scene_waits_for_its_first_visitor_and_a_watching_gm_does_not_stall_it(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    await fresh_demo(redis_server.url, "dramatic")
    srv = Server(settings_for(redis_server.url, demo=True, demo_rulesets=("dramatic",),
                              demo_wait=0.0, demo_pace=0.0))
    await srv.start()
    try:
        await asyncio.wait_for(srv.demo.ready.wait(), 20)
        enc = srv.demo.encounters[0]
        await asyncio.sleep(1.5)
        room = srv.rooms.peek(enc.encounter)
        assert room is not None and room.state.round == 0 and room.state.current is None
        assert not enc.seat.view.started and not srv.demo.visited(enc)

        # the GM opens the console (the first visitor) and only watches: the bots start the
        # scene and play the NPCs
        gm = await join(ws_url(srv), enc.gm_token, clients)
        npcs = {cid for cid, c in state_of(srv, enc.encounter).combatants.items()
                if c.kind == "npc"}

        def npc_turn_ended(m: dict[str, Any]) -> bool:
            return m["type"] == "event" and m["event"]["kind"] == "turn_ended" and \
                m["event"]["combatant"] in npcs

        await gm.wait_for(npc_turn_ended, timeout=30)
        assert not srv.demo.taken(enc, next(iter(npcs)))

        # the GM's first command of the scene hands the NPCs to the GM
        await gm.command("add_effect", name="The GM steps in", until="scene")
        await until(lambda: srv.demo.taken(enc, next(iter(npcs))), 5, "GM take-over")
        mark = len(gm.messages)

        def npc_turn(m: dict[str, Any]) -> bool:
            return m["type"] == "event" and m["event"]["kind"] == "turn_started" and \
                m["event"]["combatant"] in npcs

        turn = state_of(srv, enc.encounter).current
        if turn not in npcs:
            turn = (await gm.wait_for(npc_turn, timeout=30, start=mark))["event"]["combatant"]
        seen = len(gm.messages)
        await asyncio.sleep(1.5)  # the bots leave the NPC's turn to the GM
        assert not any(npc_turn_ended(m) for m in gm.messages[seen:]), gm.messages[seen:]
        assert state_of(srv, enc.encounter).current == turn
        # the GM leaves: the bots take the NPCs back
        await gm.close()
        state = await until(lambda: state_of(srv, enc.encounter).current != turn, 20,
                            "the NPC's turn ending")
        assert state
    finally:
        await srv.stop()
