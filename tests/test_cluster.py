"""The same encounter played against a 3-node Redis Cluster that the suite starts itself."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from clients.client import Client
from server.app import ConfigError, Server
from server.store import channel, keys
from tests.conftest import settings_for, ws_url
from tests.helpers import create_table, event_log, join, play_turns
from tests.redis_procs import RedisCluster3, embedded_redis_server


@pytest.fixture(scope="module")
async def cluster_servers(redis_cluster: RedisCluster3) -> AsyncIterator[tuple[Server, Server]]:
    a = Server(settings_for(redis_cluster.url, redis_cluster=True))
    b = Server(settings_for(redis_cluster.nodes[1].url, redis_cluster=True))
    await a.start()
    await b.start()
    yield a, b
    await a.stop()
    await b.stop()


async def test_an_encounter_plays_on_a_redis_cluster(
        cluster_servers: tuple[Server, Server], redis_cluster: RedisCluster3,
        clients: list[Client]) -> None:
    a, b = cluster_servers
    table = await create_table(ws_url(a), clients)
    player = await join(ws_url(a), table.tokens["twilight"], clients)
    spectator = await join(ws_url(b), table.spectator_token, clients)
    gm_b = await join(ws_url(b), table.gm_token, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {"twilight": player}, 8)
    await gm_b.wait_seq(table.gm.last_seq)
    joined = gm_b.snapshot["seq"] if gm_b.snapshot else 0
    gm_log = [(m["seq"], m["event"]["kind"]) for m in table.gm.events() if m["seq"] > joined]
    assert [(m["seq"], m["event"]["kind"]) for m in gm_b.events()] == gm_log
    await spectator.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "turn_started"
                             and m["event"]["round"] == 2)
    assert "lurker" not in str(spectator.messages)
    # every key of the encounter lives in one slot of the cluster
    slots = {await a.redis.cluster_keyslot(k) for k in keys(table.encounter).values()}
    assert len(slots) == 1
    # and the log replays from the cluster alone
    reloaded = await b.store.load(table.encounter)
    room = a.rooms.peek(table.encounter)
    assert room is not None and reloaded == room.state


async def _shard_subscribers(srv: Server, name: str, node: Any) -> int:
    """Subscribers of the shard channel ``name`` on ``node`` (asked of the node itself)."""
    async with Redis(host=node.host, port=node.port) as direct:
        reply = await direct.execute_command("PUBSUB", "SHARDNUMSUB", name)
    return int(reply[1])


async def test_a_process_hears_an_encounter_on_its_shard_while_it_serves_it(
        cluster_servers: tuple[Server, Server], clients: list[Client]) -> None:
    a, b = cluster_servers
    b.follower.linger = 0.2
    table = await create_table(ws_url(a), clients)
    player = await join(ws_url(a), table.tokens["twilight"], clients)
    gm_b = await join(ws_url(b), table.gm_token, clients)
    name = channel(table.encounter)
    node = a.redis.get_node_from_key(name)
    # both processes hear it, on the shard of its slot alone (sharded pub/sub)
    await until(lambda: _shard_subscribers(a, name, node), 2)
    for other in a.redis.get_primaries():
        if other.name != node.name:
            async with Redis(host=other.host, port=other.port) as direct:
                assert not await direct.execute_command("PUBSUB", "SHARDCHANNELS", name)
    await table.gm.command("start_encounter")
    killed = 0
    playing = True

    async def cut() -> None:
        nonlocal killed
        while playing:
            killed += int(await a.redis.execute_command("CLIENT", "KILL", "TYPE", "pubsub",
                                                        target_nodes=node))
            await asyncio.sleep(0.01)

    cutter = asyncio.get_running_loop().create_task(cut())
    try:
        await play_turns(table.gm, {"twilight": player}, 10)
    finally:
        playing = False
        await cutter
    assert killed >= 2
    await gm_b.wait_seq(table.gm.last_seq)
    joined = gm_b.snapshot["seq"] if gm_b.snapshot else 0
    assert event_log(gm_b) == [e for e in event_log(table.gm) if e[0] > joined]
    # B's last connection of the encounter leaves: B stops hearing it, A still does
    await gm_b.close()
    await until(lambda: _shard_subscribers(a, name, node), 1)


async def until(count: Callable[[], Awaitable[int]], wanted: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while (now := await count()) != wanted:
        assert time.monotonic() < deadline, f"subscribers never reached {wanted} ({now})"
        await asyncio.sleep(0.05)


async def test_a_cluster_without_sharded_pubsub_is_refused_at_start(workdir: Path) -> None:
    old = RedisCluster3(workdir / "cluster-6.2", binary=embedded_redis_server()).start()
    try:
        srv = Server(settings_for(old.url, redis_cluster=True))
        with pytest.raises(ConfigError, match=r"Redis 7 or later"):
            await srv.start()
    finally:
        old.stop()
