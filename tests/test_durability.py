"""The durability setting: what an append waits for before its command is acknowledged
(``--durability everysec|always|replicas``), against real redis-servers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.client import Client, CommandError
from server.app import ConfigError, Server
from server.cli import build_parser, settings_from
from server.embedded_redis import EmbeddedRedis
from tests.conftest import settings_for, ws_url
from tests.helpers import PARTY, create_table, open_client
from tests.redis_procs import RedisProcess


@pytest.fixture
def lone_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    proc = RedisProcess(tmp_path / "lone").start()
    yield proc
    proc.stop()


def test_the_flags_and_their_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    s = settings_from(build_parser().parse_args(["serve"]))
    assert (s.durability, s.wait_replicas, s.wait_timeout) == ("everysec", 1, 1.0)
    s = settings_from(build_parser().parse_args(
        ["serve", "--durability", "replicas", "--wait-replicas", "2", "--wait-timeout", "0.5"]))
    assert (s.durability, s.wait_replicas, s.wait_timeout) == ("replicas", 2, 0.5)
    monkeypatch.setenv("STABLEMASTER_DURABILITY", "always")
    assert settings_from(build_parser().parse_args(["serve"])).durability == "always"


def test_the_embedded_redis_fsyncs_always_when_asked(tmp_path: Path) -> None:
    assert "everysec" in EmbeddedRedis(tmp_path).command()
    command = EmbeddedRedis(tmp_path, appendfsync="always").command()
    assert command[command.index("--appendfsync") + 1] == "always"


async def test_always_on_a_redis_that_cannot_promise_it_refuses_to_start(
        lone_redis: RedisProcess) -> None:
    """Redis 6 has no WAITAOF: with appendfsync everysec there is no way to know an append
    reached the disk, so the server says so at start instead of acknowledging anyway."""
    server = Server(settings_for(lone_redis.url, durability="always"))
    info = await _redis_info(lone_redis)
    if info >= (7, 2):
        pytest.skip("this Redis has WAITAOF")
    with pytest.raises(ConfigError, match="appendfsync always"):
        await server.start()
    await server.redis.aclose()


async def test_always_on_a_redis_with_appendfsync_always(lone_redis: RedisProcess,
                                                         clients: list[Client]) -> None:
    from redis.asyncio import Redis

    redis = Redis.from_url(lone_redis.url)
    await redis.config_set("appendfsync", "always")
    await redis.aclose()
    server = Server(settings_for(lone_redis.url, durability="always"))
    await server.start()
    try:
        assert server.store.durability.label == "Redis's appendfsync always"
        table = await create_table(ws_url(server), clients)
        ack = await table.gm.command("start_encounter")
        assert ack["seq"] > 0
    finally:
        await server.stop()


async def _with_replica(master: RedisProcess, where: Path) -> RedisProcess:
    """A replica of ``master``, its link up."""
    from redis.asyncio import Redis

    replica = RedisProcess(where, None, "--replicaof", "127.0.0.1", str(master.port)).start()
    r = Redis.from_url(replica.url)
    for _ in range(100):
        if (await r.info("replication")).get("master_link_status") == "up":
            break
        await asyncio.sleep(0.05)
    await r.aclose()
    return replica


async def test_replicas_without_a_replica_refuses_to_start(lone_redis: RedisProcess) -> None:
    """Every command would answer ``unavailable`` (after applying it): said at start."""
    server = Server(settings_for(lone_redis.url, durability="replicas", wait_replicas=1))
    with pytest.raises(ConfigError, match="has 0 connected"):
        await server.start()
    await server.redis.aclose()


async def test_replicas_when_the_replica_is_lost_answers_unavailable_and_the_retry_its_outcome(
        lone_redis: RedisProcess, tmp_path: Path, clients: list[Client]) -> None:
    replica = await _with_replica(lone_redis, tmp_path / "replica")
    server = Server(settings_for(lone_redis.url, durability="replicas", wait_replicas=1,
                                 wait_timeout=0.1))
    await server.start()
    replica.stop()
    try:
        anon = await open_client(ws_url(server), clients)
        await anon.hello()
        create = {"type": "create_encounter", "id": "c5d1b6c2-7b0a-4f51-9d67-2c50c8f0e001",
                  "name": "Unreplicated", "combatants": PARTY[:2]}
        reply = await anon.request(create)
        assert reply["type"] == "error" and reply["code"] == "unavailable"
        again = await anon.request(create)  # the encounter exists all the same
        assert again["type"] == "ack" and again["duplicate"]
        gm = await open_client(ws_url(server), clients)
        await gm.hello(again["result"]["gm_token"])
        with pytest.raises(CommandError) as refused:
            await gm.command("start_encounter", id="start-1")
        assert refused.value.code == "unavailable"
        retried = await gm.command("start_encounter", id="start-1")
        assert retried["duplicate"]
    finally:
        await server.stop()


async def test_replicas_with_a_replica_acknowledges(lone_redis: RedisProcess, tmp_path: Path,
                                                    clients: list[Client]) -> None:
    replica = await _with_replica(lone_redis, tmp_path / "replica")
    try:
        server = Server(settings_for(lone_redis.url, durability="replicas", wait_replicas=1,
                                     wait_timeout=2.0))
        await server.start()
        try:
            table = await create_table(ws_url(server), clients)
            ack = await table.gm.command("start_encounter")
            assert ack["seq"] > 0 and not ack["duplicate"]
        finally:
            await server.stop()
    finally:
        replica.stop()


async def _redis_info(redis: RedisProcess) -> tuple[int, ...]:
    from redis.asyncio import Redis

    r = Redis.from_url(redis.url)
    try:
        version = (await r.info("server"))["redis_version"]
    finally:
        await r.aclose()
    return tuple(int(x) for x in str(version).split(".")[:2])
