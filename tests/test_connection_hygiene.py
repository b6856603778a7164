"""Connection hygiene: a deadline for ``hello``, a limit of connections per client address
(``X-Forwarded-For`` only from trusted proxies), and credentials that expire — refused at
``hello`` and their connections closed (4001) on every process, after a restart too."""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.request
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.client import Client, CommandError
from server import session as server_session
from server.app import Server
from server.cli import build_parser, settings_from
from server.config import DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
from tests.conftest import ws_url
from tests.helpers import create_table, join, open_client, started
from tests.redis_procs import RedisProcess


async def closed_with(ws: ClientConnection, timeout: float = 5) -> int | None:
    """Read until the server closes ``ws``; its close code."""
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(timeout):
            while True:
                await ws.recv()
    return ws.close_code


# -- the hello deadline --------------------------------------------------------------------


async def test_connections_that_never_say_hello_are_closed_after_the_deadline(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    async with started(redis_server.url, hello_timeout=0.5) as srv:
        url = ws_url(srv)
        table = await create_table(url, clients)
        idle = await asyncio.gather(*(connect(url, compression=None) for _ in range(200)))
        refused = await open_client(url, clients)  # a hello that fails is no hello
        with pytest.raises(CommandError):
            await refused.hello("sm1.nosuchencounter.nosuchtoken.AAAAAAAAAAAAAAAAAAAAAAAA")
        # a hello without a token, and nothing after it but pings: no credential in time
        tokenless = await open_client(url, clients)
        await tokenless.hello()
        await tokenless.command("ping")
        # a hello without a token, then the create it was for: the deadline is met
        creating = await open_client(url, clients)
        await creating.hello()
        await creating.command("create_encounter", name="Made in time")
        spectator = await connect(f"{url}?spectate={table.spectator_token}", compression=None)
        started_at = time.monotonic()
        codes = await asyncio.gather(*(closed_with(ws) for ws in idle))
        assert set(codes) == {server_session.CLOSE_NO_HELLO}
        assert time.monotonic() - started_at < 3
        await asyncio.wait_for(refused.closed, 3)
        assert refused.ws.close_code == server_session.CLOSE_NO_HELLO
        assert idle[0].close_reason and "hello" in idle[0].close_reason
        await asyncio.wait_for(tokenless.closed, 3)
        assert tokenless.ws.close_code == server_session.CLOSE_NO_HELLO
        assert tokenless.ws.close_reason and "create_encounter" in tokenless.ws.close_reason
        # whoever authenticated, or created, in time stays
        await asyncio.sleep(0.3)
        for client in (table.gm, creating):
            await client.command("ping")
        await spectator.send(orjson.dumps({"type": "ping", "id": "p1"}).decode())
        assert spectator.close_code is None
        await spectator.close()
        for _ in range(100):
            if len(srv.sessions) <= 3:
                break
            await asyncio.sleep(0.02)
        assert len(srv.sessions) <= 3  # the GM, the creating one and perhaps the spectator


async def test_idle_anonymous_connections_from_one_address_do_not_pile_up(
        redis_server: RedisProcess, opened: list[ClientConnection]) -> None:
    """The abuse campaign's idle sockets: a tokenless ``hello`` each, then nothing. Through a
    trusted proxy from one address, the connection limit refuses all but the first 64, and
    those are closed at the deadline."""
    async with started(redis_server.url, hello_timeout=0.5, create="open",
                       trusted_proxies=("127.0.0.1",)) as srv:
        limit = srv.settings.max_connections_per_address
        assert limit == DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
        headers = {"X-Forwarded-For": "198.51.100.77"}
        idle = []
        for _ in range(limit):
            ws = await connect(ws_url(srv), compression=None, additional_headers=headers)
            await ws.send(orjson.dumps({"type": "hello", "versions": [1]}).decode())
            idle.append(ws)
        assert orjson.loads(await idle[-1].recv())["type"] == "welcome"
        assert await refused_status(ws_url(srv), additional_headers=headers) == 429
        codes = await asyncio.gather(*(closed_with(ws) for ws in idle))
        assert set(codes) == {server_session.CLOSE_NO_HELLO}
        assert await eventually(lambda: _opens(ws_url(srv), additional_headers=headers))


def test_the_hello_deadline_is_a_flag_and_an_environment_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STABLEMASTER_HELLO_TIMEOUT", raising=False)
    assert settings_from(build_parser().parse_args(["serve"])).hello_timeout == 10
    args = build_parser().parse_args(["serve", "--hello-timeout", "2.5"])
    assert settings_from(args).hello_timeout == 2.5
    monkeypatch.setenv("STABLEMASTER_HELLO_TIMEOUT", "4")
    assert settings_from(build_parser().parse_args(["serve"])).hello_timeout == 4


# -- connections per client address -------------------------------------------------------


async def refused_status(url: str, **kwargs: Any) -> int | None:
    """The HTTP status a websocket handshake is refused with, or ``None`` when it opens (and
    is left open)."""
    try:
        ws = await connect(url, compression=None, **kwargs)
    except InvalidStatus as exc:
        return exc.response.status_code
    OPENED.append(ws)
    return None


OPENED: list[ClientConnection] = []


@pytest.fixture
async def opened() -> AsyncIterator[list[ClientConnection]]:
    yield OPENED
    await asyncio.gather(*(ws.close() for ws in OPENED), return_exceptions=True)
    OPENED.clear()


async def eventually(check: Callable[[], Any], timeout: float = 3) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value or time.monotonic() > deadline:
            return value
        await asyncio.sleep(0.02)


async def test_connections_per_address_are_limited(
        redis_server: RedisProcess, opened: list[ClientConnection]) -> None:
    # a client address, as the trusted proxy at 127.0.0.1 names it (direct connections from
    # 127.0.0.1 are local clients, which are not counted)
    forwarded = {"additional_headers": {"X-Forwarded-For": "198.51.100.3"}}
    async with started(redis_server.url, max_connections_per_address=3, create="open",
                       trusted_proxies=("127.0.0.1",)) as srv:
        url = ws_url(srv)
        assert [await refused_status(url, **forwarded) for _ in range(4)] == [
            None, None, None, 429]
        # plain HTTP is not a websocket connection
        def health() -> int:
            with urllib.request.urlopen(f"http://127.0.0.1:{srv.settings.port}/healthz",
                                        timeout=5) as r:
                return int(r.status)

        assert await asyncio.to_thread(health) == 200
        await opened.pop(0).close()
        assert await eventually(lambda: _opens(url, **forwarded))


async def _opens(url: str, **kwargs: Any) -> bool:
    return await refused_status(url, **kwargs) is None


async def test_the_connection_limit_is_on_by_default_and_local_clients_are_exempt(
        redis_server: RedisProcess, opened: list[ClientConnection]) -> None:
    """With no limit set: a client address behind the trusted proxy gets the default number
    of websockets, and its next handshake is refused (429); local clients (the benchmark,
    the bots, this suite) connect as many as they like; and a loopback peer that is no
    trusted proxy does not get to name an address in X-Forwarded-For."""
    limit = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
    async with started(redis_server.url, create="open", trusted_proxies=("127.0.0.1",)) as srv:
        url = ws_url(srv)
        forwarded = {"additional_headers": {"X-Forwarded-For": "198.51.100.9"}}
        statuses = [await refused_status(url, **forwarded) for _ in range(limit + 1)]
        assert statuses == [None] * limit + [429]
        # the same address, through the proxy, from another connection of the test
        assert await refused_status(url, **forwarded) == 429
        # local: direct from 127.0.0.1, no X-Forwarded-For
        assert [await refused_status(url) for _ in range(limit + 1)] == [None] * (limit + 1)
        # 127.0.0.5 is no trusted proxy: its X-Forwarded-For is ignored (the limited address
        # is not its to claim, nor are fresh ones), and it counts as itself
        untrusted = [await refused_status(url, local_addr=("127.0.0.5", 0),
                                          additional_headers={"X-Forwarded-For": value})
                     for value in ["198.51.100.9"] + [f"198.51.100.{i}" for i in range(20, 84)]]
        assert untrusted == [None] * limit + [429]


async def test_forwarded_for_counts_only_behind_a_trusted_proxy(
        redis_server: RedisProcess, opened: list[ClientConnection]) -> None:
    def xff(value: str) -> dict[str, Any]:
        return {"additional_headers": {"X-Forwarded-For": value}}

    async with started(redis_server.url, max_connections_per_address=2, create="open",
                       trusted_proxies=("127.0.0.0/8",)) as srv:
        url = ws_url(srv)
        statuses = [await refused_status(url, **xff("203.0.113.5")) for _ in range(3)]
        assert statuses == [None, None, 429]
        # another client behind the same proxy has its own allowance
        assert await refused_status(url, **xff("203.0.113.6")) is None
        # what a client writes itself sits left of what the proxy appends: the proxy's wins
        assert await refused_status(url, **xff("198.51.100.7, 203.0.113.5")) == 429
        assert await refused_status(url, **xff("203.0.113.5, 198.51.100.7")) is None
    for ws in opened:
        await ws.close()
    opened.clear()
    async with started(redis_server.url, max_connections_per_address=2) as srv:
        # not behind a trusted proxy: the header is the client's say-so, and is ignored
        url = ws_url(srv)
        statuses = [await refused_status(url, **xff(f"203.0.113.{i}")) for i in range(3)]
        assert statuses == [None, None, 429]


def test_the_address_limit_and_trusted_proxies_are_flags_and_environment_variables(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STABLEMASTER_MAX_CONNECTIONS_PER_ADDRESS", "STABLEMASTER_TRUSTED_PROXIES"):
        monkeypatch.delenv(name, raising=False)
    s = settings_from(build_parser().parse_args(["serve"]))
    assert (s.max_connections_per_address, s.trusted_proxies) == (
        DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, ())
    s = settings_from(build_parser().parse_args([
        "serve", "--max-connections-per-address", "50", "--trusted-proxies",
        "10.0.0.0/8, 192.168.1.10"]))
    assert (s.max_connections_per_address, s.trusted_proxies) == (50, ("10.0.0.0/8",
                                                                       "192.168.1.10"))
    monkeypatch.setenv("STABLEMASTER_MAX_CONNECTIONS_PER_ADDRESS", "7")
    monkeypatch.setenv("STABLEMASTER_TRUSTED_PROXIES", "172.30.0.0/24")
    s = settings_from(build_parser().parse_args(["serve"]))
    assert (s.max_connections_per_address, s.trusted_proxies) == (7, ("172.30.0.0/24",))
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--trusted-proxies", "not-an-address"])


# -- credentials that expire ---------------------------------------------------------------


async def test_an_expiring_credential_is_closed_with_4001_on_every_process(
        server: Server, server_b: Server, spawn: Any, clients: list[Client]) -> None:
    other = spawn()  # a real second server process on the same Redis
    table = await create_table(ws_url(server), clients)
    link = await table.gm.command("issue_spectator_link", expires_in=2, label="stream")
    token = link["result"]["token"]
    expires_at = link["result"]["expires_at"]
    assert abs(expires_at - (time.time() * 1000 + 2000)) < 1000
    watching = [await join(url, token, clients) for url in (ws_url(server), ws_url(server_b),
                                                              other.url)]
    assert all(c.snapshot is not None for c in watching)
    gm = await join(ws_url(server_b), table.gm_token, clients)
    assert gm.snapshot is not None
    grants = {t["token_id"]: t for t in gm.snapshot["state"]["tokens"]}
    assert grants[link["result"]["token_id"]]["expires_at"] == expires_at
    await asyncio.gather(*(asyncio.wait_for(c.closed, 6) for c in watching))
    closed_at = time.time() * 1000
    assert closed_at - expires_at < 1500  # each process closes them on its own clock
    for client in watching:
        assert client.ws.close_code == server_session.CLOSE_REVOKED
        assert client.ws.close_reason and "expired" in client.ws.close_reason
    for url in (ws_url(server), ws_url(server_b), other.url):
        late = await open_client(url, clients)
        with pytest.raises(CommandError) as err:
            await late.hello(token)
        assert err.value.code == "unauthenticated" and "expired" in err.value.reply["message"]
    await table.gm.command("ping")  # the GM's credential does not expire


async def test_expiry_holds_after_a_restart(spawn: Any, clients: list[Client]) -> None:
    first = spawn()
    table = await create_table(first.url, clients)
    # long enough for a process to be killed and another started on a busy machine
    invite = await table.gm.command("issue_invite", combatants=["twilight"], expires_in=12)
    integration = await table.gm.command("issue_integration_token", scopes=["view:public"],
                                         expires_in=12)
    forever = await table.gm.command("issue_invite", combatants=["dash"])
    assert "expires_at" not in forever["result"]
    first.kill()
    second = spawn()  # nothing of the first process's memory is left
    player = await join(second.url, invite["result"]["token"], clients)
    assert player.snapshot is not None
    left = invite["result"]["expires_at"] / 1000 - time.time()
    await asyncio.wait_for(player.closed, max(0.0, left) + 6)
    assert player.ws.close_code == server_session.CLOSE_REVOKED
    second.kill()
    third = spawn()
    for token in (invite["result"]["token"], integration["result"]["token"]):
        late = await open_client(third.url, clients)
        with pytest.raises(CommandError) as err:
            await late.hello(token)
        assert err.value.code == "unauthenticated"
    dash = await join(third.url, forever["result"]["token"], clients)
    assert dash.snapshot is not None


@pytest.mark.parametrize("expires_in", [0, -5, 10**12, "60", 1.5])
async def test_an_expiry_out_of_range_is_invalid(server: Server, clients: list[Client],
                                                 expires_in: Any) -> None:
    table = await create_table(ws_url(server), clients)
    for command, fields in (("issue_invite", {"combatants": ["twilight"]}),
                            ("issue_spectator_link", {}),
                            ("issue_integration_token", {"scopes": ["roll"]})):
        with pytest.raises(CommandError) as err:
            await table.gm.command(command, expires_in=expires_in, **fields)
        assert err.value.code == "invalid_payload"
