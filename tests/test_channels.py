"""The fan-out's channels: a process hears only the encounters it serves, and loses nothing when
its subscriptions drop."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from clients.client import Client
from server.app import Server
from server.auth import new_id
from server.store import channel
from tests.conftest import ws_url
from tests.helpers import create_table, event_log, join, play_turns
from tests.redis_procs import RedisProcess


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def subscribers(srv: Server, names: list[str]) -> int:
    """Subscriptions to ``names`` in Redis, over all its connections."""
    counts = await srv.redis.pubsub_numsub(*names)
    return sum(int(n) for _name, n in counts)


async def test_notifications_dropped_with_the_subscription_come_from_the_log_once_in_order(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    player = await join(ws_url(server), table.tokens["twilight"], clients)
    gm_b = await join(ws_url(server_b), table.gm_token, clients)
    await table.gm.command("start_encounter")
    killed = 0
    playing = True

    async def cut() -> None:
        # every process's subscription connection dropped, again and again, while events are
        # appended: redis-py subscribes again by itself, and what was published meanwhile is
        # lost to pub/sub
        nonlocal killed
        while playing:
            killed += int(await server.redis.execute_command("CLIENT", "KILL", "TYPE", "pubsub"))
            await asyncio.sleep(0.01)

    cutter = asyncio.get_running_loop().create_task(cut())
    try:
        await play_turns(table.gm, {"twilight": player}, 12)
    finally:
        playing = False
        await cutter
    final = table.gm.last_seq
    await table.gm.command("ping")
    assert killed >= 3
    await gm_b.wait_seq(final, timeout=10)
    joined = gm_b.snapshot["seq"] if gm_b.snapshot else 0
    # once each, in order, the same log as on the process that appended
    assert event_log(gm_b) == [e for e in event_log(table.gm) if e[0] > joined]
    room = server_b.rooms.peek(table.encounter)
    assert room is not None and room.version == final


async def test_a_thousand_encounters_opened_and_closed_leave_no_subscription(
        server: Server, redis_server: RedisProcess, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    created = await server.store.read(table.encounter, 0)
    ids = [f"many{new_id(8)}" for _ in range(1000)]
    for part in range(0, len(ids), 100):
        await asyncio.gather(*(server.store.append(enc, 0, created) for enc in
                               ids[part:part + 100]))
    names = [channel(enc) for enc in ids]
    server.follower.linger = 0.2
    rooms = []
    for part in range(0, len(ids), 100):
        rooms += await asyncio.gather(*(server.rooms.get(enc) for enc in ids[part:part + 100]))
    assert all(room is not None for room in rooms)
    # every room open here is heard, once
    await until(lambda: _equals(subscribers(server, names), len(ids)), "the subscriptions")
    for room in rooms:
        assert room is not None
        server.rooms.release(room)
    assert len([r for r in server.rooms if r.id in set(ids)]) == 0
    await until(lambda: _equals(subscribers(server, names), 0), "the unsubscriptions")
    assert not set(names) & server.follower.subscribed
    listed = await server.redis.pubsub_channels("{enc:many*")
    assert listed == []


async def _equals(count: Awaitable[int], wanted: int) -> bool:
    return await count == wanted


async def test_a_room_reopened_within_the_linger_keeps_its_subscription(
        server: Server, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    name = channel(table.encounter)
    server.follower.linger = 5.0
    try:
        await until(lambda: _equals(subscribers(server, [name]), 1), "the subscription")
        await table.gm.close()
        await until(lambda: _async(server.rooms.peek(table.encounter) is None), "the room drop")
        # still heard while it lingers: a table that reconnects does not churn
        assert await subscribers(server, [name]) == 1
        gm = await join(ws_url(server), table.gm_token, clients)
        await gm.command("ping")
        await asyncio.sleep(0)
        assert name not in server.follower._leaving
    finally:
        server.follower.linger = 0.2
        with contextlib.suppress(Exception):
            await table.gm.close()


async def _async(value: bool) -> bool:
    return value


async def test_a_lost_notification_is_read_from_the_log_before_the_next_is_delivered(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    gm_b = await join(ws_url(server_b), table.gm_token, clients)
    # B hears the encounter, and has checked its room against the log since it subscribed
    follower = server_b.follower
    name = channel(table.encounter)
    opened = server_b.rooms.peek(table.encounter)
    assert opened is not None

    async def settled() -> bool:
        task = opened.following._check_task
        return name in follower.subscribed and name not in follower._asked and (
            task is None or task.done())

    await until(settled, "B's subscription and its check")
    # B's sweep out of the way: the gap alone brings the lost event
    (sweep,) = [task for task in follower.tasks if task.get_name() == "sweep"]
    sweep.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sweep
    try:
        # the first append's notification goes nowhere (as if pub/sub dropped it)
        server.store.publish = "EXISTS"
        try:
            await table.gm.command("start_encounter")
        finally:
            server.store.publish = "PUBLISH"
        lost = table.gm.last_seq
        room = server_b.rooms.peek(table.encounter)
        assert room is not None and room.version < lost
        await play_turns(table.gm, {}, 1)  # (the GM ends whichever turn runs)
        await gm_b.wait_seq(table.gm.last_seq)
        joined = gm_b.snapshot["seq"] if gm_b.snapshot else 0
        assert event_log(gm_b) == [e for e in event_log(table.gm) if e[0] > joined]
    finally:
        follower.tasks[follower.tasks.index(sweep)] = asyncio.get_running_loop().create_task(
            follower._sweep(), name="sweep")
