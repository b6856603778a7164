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
import pytest
from websockets.asyncio.client import connect

from clients.client import FEATURES, Client, CommandError
from server import replay as server_replay
from server.app import Server
from tests import helpers
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, play_turns
from tests.redis_procs import RedisProcess

VIEW = [*FEATURES, "cursor", "view", "summaries"]


@contextlib.asynccontextmanager
async def started(redis_server: RedisProcess, **overrides: Any) -> AsyncIterator[Server]:
    """A server of its own, which takes commands and reads as fast as a test sends them."""
    overrides.setdefault("commands_per_second", 100_000.0)
    overrides.setdefault("command_burst", 100_000)
    overrides.setdefault("read_event_burst", 10**9)  # (the budgets have a test of their own)
    async with helpers.started(redis_server.url, **overrides) as srv:
        yield srv


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


# -- budgets -------------------------------------------------------------------------------


async def http(srv: Server, path: str, token: str | None = None,
               forwarded: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One GET over a plain socket (from behind the trusted proxy when ``forwarded`` names
    the client): its status, headers and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.settings.port)
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if token is not None:
        head += f"Authorization: Bearer {token}\r\n"
    if forwarded is not None:
        head += f"X-Forwarded-For: {forwarded}\r\n"
    writer.write((head + "\r\n").encode())
    top = await reader.readuntil(b"\r\n\r\n")
    lines = top.decode().split("\r\n")
    headers = {k.lower(): v for k, _, v in (line.partition(": ") for line in lines[1:] if line)}
    if int(lines[0].split()[1]) == 200 and "text/event-stream" in headers.get(
            "content-type", ""):
        writer.close()  # (a stream: its head is enough)
        return 200, headers, b""
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    writer.close()
    return int(lines[0].split()[1]), headers, body


async def hello_replay(url: str, token: str, **headers: str) -> dict[str, Any]:
    """The answer to a replay's ``hello``: its ``welcome``, or the error refusing it."""
    async with connect(url, additional_headers=headers or None) as ws:
        await ws.send(orjson.dumps({"type": "hello", "versions": [1], "token": token,
                                    "replay": {"speed": 1000, "max_pause": 0}}).decode())
        while True:
            message: dict[str, Any] = orjson.loads(await ws.recv())
            if message["type"] in ("welcome", "error"):
                return message


async def test_replays_and_history_pages_count_against_a_budget(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    """A credential may read 1,000 events at once (this server's budget), then 100 a second:
    the fourth replay of a log of about 300 events is refused (``rate_limited``, with the
    seconds to wait), a history page too, while another credential reads on; from one client
    address (behind the proxy), four credentials' worth, whoever reads."""
    async with started(redis_server, read_event_burst=1000, read_events_per_second=100,
                       trusted_proxies=("127.0.0.1",), create="open") as srv:
        url = ws_url(srv)
        table = await grown(url, clients, 300, every=1000)
        welcomes = [await hello_replay(url, table.spectator_token) for _ in range(3)]
        assert [m["type"] for m in welcomes] == ["welcome"] * 3
        refused = await hello_replay(url, table.spectator_token)
        assert refused["code"] == "rate_limited", refused
        assert refused["details"]["budget"] == "credential"
        assert refused["details"]["retry_after"] >= 1
        reader = await Client.open(url)
        clients.append(reader)
        await reader.hello(table.spectator_token)
        with pytest.raises(CommandError) as page:
            await reader.command("get_history", limit=500)
        assert page.value.reply["code"] == "rate_limited"
        assert page.value.reply["details"]["retry_after"] >= 1
        status, headers, body = await http(srv, "/read/history?limit=500",
                                           table.spectator_token)
        assert status == 429 and int(headers["retry-after"]) >= 1
        assert orjson.loads(body)["code"] == "rate_limited"
        # another credential has a budget of its own
        assert (await hello_replay(url, table.gm_token))["type"] == "welcome"
        # the budget comes back: the refused replay goes through once the time it was
        # told has passed
        wait = refused["details"]["retry_after"]
        started_at = time.monotonic()
        while (await hello_replay(url, table.spectator_token))["type"] != "welcome":
            assert time.monotonic() - started_at < wait + 2
            await asyncio.sleep(0.2)
        # one address: four credentials' worth in all (13 replays of 300 events fit in
        # 4,000, the fourteenth does not), whichever credential reads
        links = [(await table.gm.command("issue_spectator_link"))["result"]["token"]
                 for _ in range(5)]
        answers = [await hello_replay(url, links[i % 5], **{"X-Forwarded-For": "203.0.113.8"})
                   for i in range(15)]
        kinds = [m.get("code", m["type"]) for m in answers]
        assert kinds[:13] == ["welcome"] * 13 and "rate_limited" in kinds[13:], kinds
        assert next(m["details"]["budget"] for m in answers if m["type"] == "error") == "address"


async def test_the_read_api_has_the_rate_limit_of_the_websocket(
        redis_server: RedisProcess, server: Server, clients: list[Client]) -> None:
    """``/read/*`` requests count as a websocket's messages do: past the burst, 429 with
    ``Retry-After``, per credential and per address."""
    table = await create_table(ws_url(server), clients)  # (another process's worth)
    async with started(redis_server, commands_per_second=1, command_burst=5,
                       trusted_proxies=("127.0.0.1",), create="open") as srv:
        statuses = [(await http(srv, "/read/view", table.spectator_token))[0]
                    for _ in range(6)]
        assert statuses == [200] * 5 + [429]
        status, headers, _ = await http(srv, "/read/view", table.spectator_token)
        assert status == 429 and int(headers["retry-after"]) >= 1
        assert (await http(srv, "/read/view", table.gm_token))[0] == 200  # its own
        address = [(await http(srv, "/read/view", table.gm_token, "198.51.100.20"))[0]
                   for _ in range(6)]
        assert address.count(429) >= 1  # (the GM's credential, or the address, ran out)
        assert (await http(srv, "/read/view", None, "198.51.100.21"))[0] == 401
        statuses = [(await http(srv, "/read/view", None, "198.51.100.22"))[0]
                    for _ in range(6)]
        assert statuses == [401] * 5 + [429]  # (counted before anything is looked up)


async def test_sse_streams_count_in_the_connection_limit_of_their_address(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    """Streams from one address (behind the trusted proxy) stop at the address's limit,
    with 429, websockets and streams together; one that ends gives its place back; local
    clients are not counted."""
    async with started(redis_server, max_connections_per_address=3,
                       trusted_proxies=("127.0.0.1",), create="open") as srv:
        url = ws_url(srv)
        table = await create_table(url, clients)
        _, _, body = await http(srv, "/read/tickets", table.spectator_token)
        stream = orjson.loads(body)["stream"]
        held = []
        for _ in range(2):
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.settings.port)
            writer.write(f"GET {stream} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: "
                         "198.51.100.30\r\n\r\n".encode())
            assert b" 200 " in await reader.readuntil(b"\r\n\r\n")
            held.append(writer)
        ws = await connect(url, additional_headers={"X-Forwarded-For": "198.51.100.30"})
        assert (await http(srv, stream, None, "198.51.100.30"))[0] == 429
        await ws.close()
        held.pop().close()

        async def place() -> bool:
            return (await http(srv, stream, None, "198.51.100.30"))[0] == 200

        deadline = time.monotonic() + 5
        while not await place():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        # local streams are not counted
        assert [(await http(srv, stream))[0] for _ in range(5)] == [200] * 5
        for writer in held:
            writer.close()


# -- a replay ends with its credential -------------------------------------------------------


async def test_a_replay_ends_when_its_credential_is_revoked_or_expires(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=4)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 6)
    revoked = (await table.gm.command("issue_spectator_link"))["result"]
    expiring = (await table.gm.command("issue_spectator_link", expires_in=2))["result"]
    codes = {}
    playing = asyncio.Event()

    async def watch(token: str) -> int | None:
        # a replay slowed down so far that it would go on for hours
        async with connect(url) as ws:
            await ws.send(orjson.dumps({"type": "hello", "versions": [1], "token": token,
                                        "replay": {"speed": 0.001, "max_pause": 600}}
                                       ).decode())
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):
                    while True:
                        if b'"type":"event"' in await ws.recv(decode=False):
                            playing.set()  # (under way: it waits in its first pause)
            return ws.close_code

    watching = [asyncio.ensure_future(watch(revoked["token"])),
                asyncio.ensure_future(watch(expiring["token"]))]
    await playing.wait()
    await table.gm.command("revoke_token", token_id=revoked["token_id"])
    codes["revoked"], codes["expired"] = await asyncio.gather(*watching)
    assert codes == {"revoked": 4001, "expired": 4001}


async def test_sixty_replays_of_one_link_do_not_hold_up_another_table(
        spawn: Any, clients: list[Client]) -> None:
    """A real server process, a log of 3,000 events, and 60 replays opened at once with its
    spectator link (the overlay link a GM hands out): the replays its budget lets through are
    worked out once and paced, the others are refused at once, and another table's commands
    go on being answered meanwhile (they used to wait up to 34 s). How long they wait is
    measured by ``python -m bench.reads``, on pinned cores, not here."""
    proc = spawn(None, "--commands-per-second", "100000", "--command-burst", "100000")
    table = await grown(proc.url, clients, 3000, every=1000)
    other = await create_table(proc.url, clients, dice_seed=6)
    await other.gm.command("start_encounter")
    answers: list[dict[str, Any]] = []

    async def watch() -> None:
        got = await replay_raw(proc.url, table.spectator_token)
        answers.append(orjson.loads(got[0]) if got else {"type": "none"})

    watching = [asyncio.ensure_future(watch()) for _ in range(60)]
    answered = 0
    while not all(w.done() for w in watching) or answered < 50:
        await other.gm.command("ping")  # (answered, within the client's 10 s)
        answered += 1
    await asyncio.gather(*watching)
    welcomed = [a for a in answers if a["type"] == "welcome"]
    refused = [a for a in answers if a.get("code") == "rate_limited"]
    assert len(welcomed) + len(refused) == 60 and 1 <= len(welcomed) <= 4, answers[:3]
