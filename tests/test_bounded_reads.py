"""Every read costs what it returns: a replay is worked out once per encounter and kind of
viewer, and costs the server in proportion to the log; a history page reads what it returns;
replays and pages count against a budget per credential and per address; SSE streams count
in the connection limit per address; a replay ends with its credential."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson
from websockets.asyncio.client import connect

from clients.client import FEATURES, Client
from server import replay as server_replay
from server.app import Server
from tests.conftest import settings_for, ws_url
from tests.helpers import caught_up, create_table, play_turns
from tests.redis_procs import RedisProcess

VIEW = [*FEATURES, "cursor", "view", "summaries"]


@contextlib.asynccontextmanager
async def started(redis_server: RedisProcess, **overrides: Any) -> AsyncIterator[Server]:
    """A server of its own, which takes commands as fast as a test sends them."""
    overrides.setdefault("commands_per_second", 100_000.0)
    overrides.setdefault("command_burst", 100_000)
    srv = Server(settings_for(redis_server.url, **overrides))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


async def grown(url: str, clients: list[Client], events: int, every: int = 12) -> Any:
    """An encounter of at least ``events`` events, turns ended one after the other, and a
    new combatant every ``every`` turns: its state grows with the log, as a long night's
    does when the GM sends in wave after wave."""
    table = await create_table(url, clients, dice_seed=5)
    await table.gm.command("start_encounter")
    turns = 0
    while table.gm.last_seq < events:
        await play_turns(table.gm, {}, 1)
        turns += 1
        if turns % every == 0:
            await table.gm.command("add_combatant", combatant={
                "name": f"Diamond Dog {turns}", "kind": "npc", "initiative": 1})
    await caught_up(table.gm)
    return table


async def replay_raw(url: str, token: str, **replay: Any) -> list[bytes]:
    """A replay read off a plain websocket (no client folding it: what is measured is the
    server): every message up to ``replay_ended``, or up to the close."""
    got: list[bytes] = []
    async with connect(url, max_size=None) as ws:
        await ws.send(orjson.dumps({"type": "hello", "versions": [1], "token": token,
                                    "features": VIEW,
                                    "replay": {"speed": 1000, "max_pause": 0, **replay}}
                                   ).decode())
        with contextlib.suppress(Exception):
            async with asyncio.timeout(120):
                while True:
                    raw = await ws.recv(decode=False)
                    got.append(raw)
                    if b'"type":"replay_ended"' in raw:
                        break
    return got


def forget_reels() -> None:
    """The next replay of each kind works its reel out from nothing."""
    getattr(server_replay, "forget_reels", lambda: None)()


def messages(frames: list[bytes]) -> list[Any]:
    """The messages of a replay after ``welcome``, out of their batches."""
    out: list[Any] = []
    for frame in frames:
        message = orjson.loads(frame)
        if message["type"] == "batch":
            out += message["messages"]
        elif message["type"] != "welcome":
            out.append(message)
    return out


async def replay_cpu(url: str, token: str) -> float:
    """The CPU this process (the server, and the raw socket reading it) spent on one replay
    worked out from nothing: the least of three."""
    spent = []
    for _ in range(3):
        forget_reels()
        before = time.process_time()
        got = await replay_raw(url, token)
        spent.append(time.process_time() - before)
        assert b"replay_ended" in got[-1]
    return min(spent)


async def test_a_replay_costs_the_server_in_proportion_to_the_log(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    """The CPU of a GM replay of 2,000 events is at most 5 times that of 500 (the replays
    used to work out the whole view again after every command: as the state grew with the
    log, each step cost more, and the whole grew with its square)."""
    async with started(redis_server) as srv:
        url = ws_url(srv)
        short = await grown(url, clients, 500)
        long = await grown(url, clients, 2000)
        for c in clients:
            await c.close()
        small = await replay_cpu(url, short.gm_token)
        large = await replay_cpu(url, long.gm_token)
        assert large <= 5 * small, (small, large)


async def test_replays_of_one_kind_of_viewer_are_worked_out_once(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    """Ten replays opened at once with one spectator link cost the server little more than
    one: the reel is built once, and each replay only sends it."""
    async with started(redis_server) as srv:
        url = ws_url(srv)
        table = await grown(url, clients, 1000)
        forget_reels()
        before = time.process_time()
        one = await replay_raw(url, table.spectator_token)
        alone = time.process_time() - before
        forget_reels()
        before = time.process_time()
        ten = await asyncio.gather(*(replay_raw(url, table.spectator_token)
                                     for _ in range(10)))
        together = time.process_time() - before
        assert all(messages(got) == messages(one) for got in ten)  # the same, to the byte
        assert together <= 4 * alone, (alone, together)


async def redis_sent(srv: Server) -> int:
    """The bytes Redis has sent its clients so far."""
    return int((await srv.redis.info("stats"))["total_net_output_bytes"])


async def test_a_history_page_reads_the_events_it_returns(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    """A spectator's page of 100 events, with 3,000 events it may not see among them in the
    log, has Redis send little more than the page (it used to read up to 5,000 events, those
    it may not see among them, to find the 100 it may)."""
    async with started(redis_server) as srv:
        url = ws_url(srv)
        table = await create_table(url, clients, dice_seed=5)
        await table.gm.command("start_encounter")
        await play_turns(table.gm, {}, 30)
        sends = [table.gm.send_command("issue_spectator_link", label=f"overlay {i}")
                 for i in range(3000)]  # (each event of it the GM's alone)
        await asyncio.gather(*await asyncio.gather(*sends))
        await play_turns(table.gm, {}, 30)
        await caught_up(table.gm)
        reader = await Client.open(url)
        clients.append(reader)
        await reader.hello(table.spectator_token, features=["cursor"])
        await reader.command("get_history", limit=100)  # (the first indexes the log)
        before = await redis_sent(srv)
        mark = len(reader.messages)
        await reader.command("get_history", limit=100)
        sent = await redis_sent(srv) - before
        (page,) = [m for m in reader.messages[mark:] if m["type"] == "history"]
        assert len(page["events"]) == 100
        assert len(orjson.dumps(page["events"])) * 3 + 20_000 > sent, sent
        older = page["before"]
        mark = len(reader.messages)
        before = await redis_sent(srv)
        await reader.command("get_history", limit=100, before=older)
        sent = await redis_sent(srv) - before
        (page,) = [m for m in reader.messages[mark:] if m["type"] == "history"]
        assert 0 < len(page["events"]) <= 100
        assert len(orjson.dumps(page["events"])) * 3 + 20_000 > sent, sent
