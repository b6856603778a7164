"""The same encounter played against a 3-node Redis Cluster that the suite starts itself."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from clients.client import Client
from server.app import Server
from server.store import keys
from tests.conftest import settings_for, ws_url
from tests.helpers import create_table, join, play_turns
from tests.redis_procs import RedisCluster3


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
