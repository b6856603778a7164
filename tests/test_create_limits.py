"""Who may create encounters, and how much: a creator secret the server asks for, quotas per
client address and per creator (counted in Redis, so by every process alike), and a server
reachable from elsewhere that will not start open to all without being told to. Real servers,
real websockets, a real Redis; client addresses come from a trusted proxy's
``X-Forwarded-For`` (the tests all connect from 127.0.0.1, a local client otherwise)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from clients.client import Client, CommandError
from server.app import ConfigError, Server
from server.cli import build_parser, settings_from
from server.config import Settings
from server.creation import CreatePolicy, PolicyError
from server.demo import DEMO_KEY
from tests.conftest import ROOT, settings_for, ws_url
from tests.redis_procs import RedisCluster3, RedisProcess

#: 203.0.113.0/24 (TEST-NET-3): client addresses as a trusted proxy names them, a fresh block
#: of them per run of the suite (the quota buckets live in the suite's Redis)
_NEXT = iter(ipaddress.ip_network("203.0.113.0/24").hosts())


def new_address() -> str:
    return str(next(_NEXT))


def new_secret() -> str:
    return f"creator-{uuid.uuid4().hex}"


@contextlib.asynccontextmanager
async def started_on(redis_url: str, **overrides: Any) -> AsyncIterator[Server]:
    srv = Server(settings_for(redis_url, **overrides))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


def started(redis_server: RedisProcess,
            **overrides: Any) -> contextlib.AbstractAsyncContextManager[Server]:
    return started_on(redis_server.url, **overrides)


async def creator(srv: Server, clients: list[Client], address: str | None = None) -> Client:
    """A tokenless connection, from ``address`` (through the trusted proxy at 127.0.0.1) or,
    without one, a local client."""
    headers = {"X-Forwarded-For": address} if address else None
    client = await Client.open(ws_url(srv), additional_headers=headers)
    clients.append(client)
    await client.hello()
    return client


async def refused(client: Client, **fields: Any) -> dict[str, Any]:
    with pytest.raises(CommandError) as err:
        await client.command("create_encounter", **fields)
    reply: dict[str, Any] = err.value.reply
    return reply


async def stored(srv: Server) -> int:
    """Encounters stored so far (every create stores one)."""
    return len([key async for key in srv.redis.scan_iter(match="{enc:*}:events", count=1000)])


# -- the creator secret ----------------------------------------------------------------------


async def test_a_server_with_a_creator_secret_creates_only_with_it(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    secret = new_secret()
    async with started(redis_server, creator_secrets=(secret,)) as srv:
        anon = await creator(srv, clients)
        before = await stored(srv)
        missing = await refused(anon, name="No secret")
        assert missing["code"] == "unauthenticated"
        assert missing["details"] == {"creator_secret": "missing"}
        assert "creator_secret" in missing["message"]
        wrong = await refused(anon, name="Wrong secret", creator_secret=new_secret())
        assert wrong["code"] == "unauthenticated"
        assert wrong["details"] == {"creator_secret": "wrong"}
        assert await stored(srv) == before  # nothing was created
        cid = str(uuid.uuid4())
        ack = await anon.command("create_encounter", id=cid, name="With the secret",
                                 creator_secret=secret)
        gm = await Client.open(ws_url(srv))
        clients.append(gm)
        welcome = await gm.hello(ack["result"]["gm_token"])
        assert welcome["role"] == "gm"
        # a retry with the same id is the same create; the secret is stored nowhere
        again = await anon.command("create_encounter", id=cid, name="With the secret",
                                   creator_secret=secret)
        assert again["duplicate"] and again["result"] == ack["result"]
        for key in await srv.redis.keys("*"):
            assert secret.encode() not in ((await srv.redis.dump(key)) or b""), key


async def test_an_open_server_takes_no_secret_and_ignores_none(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    async with started(redis_server) as srv:  # loopback, no proxy: open, as before
        anon = await creator(srv, clients)
        ack = await anon.command("create_encounter", name="Open")
        assert ack["result"]["gm_token"]


# -- quotas ----------------------------------------------------------------------------------


async def test_an_address_past_its_quota_is_refused_and_creates_nothing(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    async with started(redis_server, create="open", trusted_proxies=("127.0.0.1",),
                       creates_per_address=3) as srv:
        address = new_address()
        conns = [await creator(srv, clients, address) for _ in range(2)]
        acks = [await conns[i % 2].command("create_encounter", name=f"Mine {i}")
                for i in range(3)]
        before = await stored(srv)
        over = await refused(conns[1], name="One too many")
        assert over["code"] == "quota_exceeded"
        details = over["details"]
        assert (details["quota"], details["measure"], details["limit"]) == (
            "address", "encounters", 3)
        assert details["window"] == 3600
        assert 0 < details["retry_after"] <= 1200  # a third of the window: one of three back
        assert await stored(srv) == before
        # a retry of a create that went through is answered, not counted again
        retry = await conns[0].command("create_encounter", id=acks[0]["id"], name="Mine 0")
        assert retry["duplicate"] and retry["result"] == acks[0]["result"]
        # another address has its own quota; a local client has none
        assert (await (await creator(srv, clients, new_address())).command(
            "create_encounter", name="Neighbour"))["result"]["encounter"]
        local = await creator(srv, clients)
        for i in range(5):
            await local.command("create_encounter", name=f"Local {i}")
        # a client cannot pick its address: what it writes itself sits left of the proxy's
        spoof = await creator(srv, clients, f"{new_address()}, {address}")
        assert (await refused(spoof, name="Spoofed"))["code"] == "quota_exceeded"


async def test_a_creator_past_its_quota_is_refused_on_every_process(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    alpha, beta = new_secret(), new_secret()
    settings: dict[str, Any] = {"creator_secrets": (alpha, beta), "creates_per_creator": 2}
    async with started(redis_server, **settings) as one, \
            started(redis_server, **settings) as two:
        on_one, on_two = await creator(one, clients), await creator(two, clients)
        await on_one.command("create_encounter", name="Alpha 1", creator_secret=alpha)
        await on_two.command("create_encounter", name="Alpha 2", creator_secret=alpha)
        over = await refused(on_one, name="Alpha 3", creator_secret=alpha)
        assert over["code"] == "quota_exceeded"
        assert (over["details"]["quota"], over["details"]["limit"]) == ("creator", 2)
        assert (await refused(on_two, name="Alpha 3", creator_secret=alpha))["code"] == \
            "quota_exceeded"
        # the other secret is another creator
        await on_two.command("create_encounter", name="Beta 1", creator_secret=beta)


async def test_quotas_hold_on_a_redis_cluster(redis_cluster: RedisCluster3,
                                             clients: list[Client]) -> None:
    """Both buckets of a create (its address's and its creator's) are charged by one script:
    on a Redis Cluster they share a slot."""
    secret = new_secret()
    async with started_on(redis_cluster.url, redis_cluster=True, creator_secrets=(secret,),
                          trusted_proxies=("127.0.0.1",), creates_per_address=2) as srv:
        anon = await creator(srv, clients, new_address())
        for i in range(2):
            await anon.command("create_encounter", name=f"Clustered {i}", creator_secret=secret)
        over = await refused(anon, name="Clustered 2", creator_secret=secret)
        assert (over["code"], over["details"]["quota"]) == ("quota_exceeded", "address")


async def test_bytes_are_counted_and_the_allowance_comes_back(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    """The abuse campaign's creates (60 KB of notes each) against a byte quota, over a short
    window: refused once the bytes are used up, one fits again a while later; a create larger
    than the whole allowance never fits."""
    note = "x" * 60_000
    async with started(redis_server, create="open", trusted_proxies=("127.0.0.1",),
                       creates_per_address=0, create_bytes_per_address=200_000,
                       create_window=2.0) as srv:
        anon = await creator(srv, clients, new_address())
        made = 0
        with pytest.raises(CommandError) as err:
            for _ in range(10):
                await anon.command("create_encounter", name="Notes",
                                   combatants=[{"name": "Chatty", "stats": {"note": note}}])
                made += 1
        assert made == 3  # 3 x ~60 KB fit in 200,000 bytes, a fourth does not
        details = err.value.reply["details"]
        assert (details["measure"], details["limit"]) == ("bytes", 200_000)
        await asyncio.sleep(details["retry_after"])
        await anon.command("create_encounter", name="Notes later",
                           combatants=[{"name": "Chatty", "stats": {"note": note}}])
    async with started(redis_server, create="open", trusted_proxies=("127.0.0.1",),
                       create_bytes_per_address=50_000) as srv:
        anon = await creator(srv, clients, new_address())
        too_big = await refused(anon, name="Too big",
                                combatants=[{"name": "Chatty", "stats": {"note": note}}])
        assert too_big["code"] == "quota_exceeded"
        assert too_big["details"]["retry_after"] is None
        assert "larger than the whole allowance" in too_big["message"]
        await anon.command("create_encounter", name="Small")


# -- who decides -----------------------------------------------------------------------------


def test_a_server_reachable_from_elsewhere_needs_to_be_told_who_may_create() -> None:
    for host in ("0.0.0.0", "::", "", "192.0.2.10", "stablemaster.example"):
        with pytest.raises(PolicyError, match="--creator-secret") as err:
            CreatePolicy.of(Settings(host=host))
        assert "--create open" in str(err.value)
    with pytest.raises(PolicyError, match="trusts proxies"):
        CreatePolicy.of(Settings(trusted_proxies=("172.30.0.0/24",)))
    assert CreatePolicy.of(Settings()).mode == "open"  # 127.0.0.1
    assert CreatePolicy.of(Settings(host="localhost")).mode == "open"
    assert CreatePolicy.of(Settings(host="::1")).mode == "open"
    assert CreatePolicy.of(Settings(host="0.0.0.0", create="open")).mode == "open"
    secret = new_secret()
    assert CreatePolicy.of(Settings(host="0.0.0.0", creator_secrets=(secret,))).mode == "secret"
    assert CreatePolicy.of(Settings(create="secret", creator_secrets=(secret,))).mode == "secret"
    for bad in (Settings(create="secret"), Settings(create="open", creator_secrets=(secret,)),
                Settings(creator_secrets=("short",)), Settings(create="everyone")):
        with pytest.raises(PolicyError):
            CreatePolicy.of(bad)


async def test_the_server_refuses_to_start_on_a_public_address_without_being_told(
        redis_server: RedisProcess) -> None:
    srv = Server(settings_for(redis_server.url, host="0.0.0.0"))
    with pytest.raises(ConfigError, match="who may create encounters"):
        await srv.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STABLEMASTER_")}
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "server", "serve", "--host", "0.0.0.0",
                         "--port", "0", "--redis-url", redis_server.url],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--creator-secret" in done.stderr and "--create open" in done.stderr


async def test_the_demo_creates_with_the_creator_secret(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    secret = new_secret()
    # (a demo encounter another test left would be resumed, not created: start afresh)
    redis = Redis.from_url(redis_server.url)
    await redis.delete(DEMO_KEY.format(ruleset="action_time"))
    await redis.aclose()
    srv = Server(settings_for(redis_server.url, demo=True, demo_rulesets=("action_time",),
                              demo_wait=-1.0, creator_secrets=(secret,)))
    await srv.start()
    try:
        await asyncio.wait_for(srv.demo.ready.wait(), 30)
        enc = srv.demo.encounters[0]
        gm = await Client.open(ws_url(srv))
        clients.append(gm)
        assert (await gm.hello(enc.gm_token))["role"] == "gm"
    finally:
        await srv.stop()


def test_who_may_create_and_the_quotas_are_flags_and_environment_variables(
        monkeypatch: pytest.MonkeyPatch) -> None:
    names = ("STABLEMASTER_CREATE", "STABLEMASTER_CREATOR_SECRET",
             "STABLEMASTER_CREATES_PER_ADDRESS", "STABLEMASTER_CREATE_BYTES_PER_ADDRESS",
             "STABLEMASTER_CREATES_PER_CREATOR", "STABLEMASTER_CREATE_BYTES_PER_CREATOR",
             "STABLEMASTER_CREATE_WINDOW")
    for name in names:
        monkeypatch.delenv(name, raising=False)
    s = settings_from(build_parser().parse_args(["serve"]))
    d = Settings()
    assert (s.create, s.creator_secrets, s.creates_per_address, s.create_bytes_per_address,
            s.creates_per_creator, s.create_bytes_per_creator, s.create_window) == (
        None, (), d.creates_per_address, d.create_bytes_per_address, d.creates_per_creator,
        d.create_bytes_per_creator, d.create_window)
    s = settings_from(build_parser().parse_args([
        "serve", "--create", "secret", "--creator-secret", "aaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbb",
        "--creates-per-address", "5", "--create-bytes-per-address", "1000",
        "--creates-per-creator", "7", "--create-bytes-per-creator", "2000",
        "--create-window", "60"]))
    assert (s.create, s.creator_secrets, s.creates_per_address, s.create_bytes_per_address,
            s.creates_per_creator, s.create_bytes_per_creator, s.create_window) == (
        "secret", ("aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"), 5, 1000, 7, 2000, 60.0)
    for name, value in zip(names, ("open", "cccccccccccccccc", "1", "2", "3", "4", "5.5"),
                           strict=True):
        monkeypatch.setenv(name, value)
    s = settings_from(build_parser().parse_args(["serve"]))
    assert (s.create, s.creator_secrets, s.creates_per_address, s.create_bytes_per_address,
            s.creates_per_creator, s.create_bytes_per_creator, s.create_window) == (
        "open", ("cccccccccccccccc",), 1, 2, 3, 4, 5.5)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--create", "everyone"])

