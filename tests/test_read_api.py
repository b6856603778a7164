"""The read API (``server.read_api``): an encounter over plain HTTP, redacted as over the
websocket, and a Server-Sent Events stream that resumes from ``Last-Event-ID``."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson

from clients.client import Client
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, play_turns

CURSOR = ["batch", "cursor", "summaries", "view"]


def base(server: Server) -> str:
    return f"http://127.0.0.1:{server.settings.port}"


async def get(server: Server, path: str, token: str | None = None
              ) -> tuple[int, dict[str, Any]]:
    """One GET, over a plain socket: its status and JSON body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.settings.port)
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if token is not None:
        head += f"Authorization: Bearer {token}\r\n"
    writer.write((head + "\r\n").encode())
    raw = await reader.read()
    writer.close()
    top, _, body = raw.partition(b"\r\n\r\n")
    return int(top.split()[1]), orjson.loads(body)


class Stream:
    """An SSE stream read off a plain socket: its messages as (event, id, data)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.messages: list[tuple[str, str | None, dict[str, Any]]] = []

    @classmethod
    async def open(cls, server: Server, path: str, last_id: str | None = None
                   ) -> tuple[int, Stream]:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.settings.port)
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if last_id is not None:
            head += f"Last-Event-ID: {last_id}\r\n"
        writer.write((head + "\r\n").encode())
        top = await reader.readuntil(b"\r\n\r\n")
        status = int(top.split()[1])
        if status != 200:  # (refused: nothing to read)
            writer.close()
            await writer.wait_closed()
        return status, cls(reader, writer)

    async def until(self, done: Any, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not done(self.messages):
                block = await self.reader.readuntil(b"\n\n")
                fields: dict[str, str] = {}
                for line in block.decode().splitlines():
                    if line.startswith(":") or not line:
                        continue
                    name, _, value = line.partition(": ")
                    fields[name] = value
                if "data" in fields:
                    self.messages.append((fields.get("event", "message"), fields.get("id"),
                                          orjson.loads(fields["data"])))

    def events(self) -> list[dict[str, Any]]:
        return [d for kind, _, d in self.messages if kind == "event"]

    def close(self) -> None:
        self.writer.close()


async def test_the_view_history_and_links_of_a_credential_as_the_websocket_gives_them(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=5)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 3)
    player = table.tokens["twilight"]
    status, view = await get(server, "/read/view", player)
    assert status == 200 and view["type"] == "snapshot"
    ids = {c["id"] for c in view["state"]["combatants"]}
    assert "lurker" not in ids and "twilight" in ids  # hidden from a player, as live
    ws = await Client.open(url)
    clients.append(ws)
    await ws.hello(player, features=CURSOR)
    await caught_up(ws)
    (snap,) = [m for m in ws.messages if m["type"] == "snapshot"]
    assert view["state"] == snap["state"] and view["cursor"] == snap["cursor"]
    # the history: the same events, redacted alike, with their words
    status, history = await get(server, "/read/history?limit=500", player)
    assert status == 200 and history["type"] == "history" and history["before"] is None
    mark = len(ws.messages)
    await ws.command("get_history", limit=500)
    (page,) = [m for m in ws.messages[mark:] if m["type"] == "history"]
    assert history["events"] == page["events"] and page["events"]
    assert all("summary" in e for e in history["events"])
    assert b"lurker" not in orjson.dumps(history).lower()
    status, paged = await get(server, "/read/history?limit=2", player)
    assert len(paged["events"]) == 2 and isinstance(paged["before"], str)
    status, older = await get(server, f"/read/history?limit=2&before={paged['before']}", player)
    assert older["events"] == history["events"][-4:-2]
    # links: the GM's, the same from any tab; nobody else's
    status, links = await get(server, "/read/links", table.gm_token)
    assert status == 200
    tokens = {e["token"] for e in links["links"]}
    assert {table.gm_token, player, table.spectator_token} <= tokens
    spectator = next(e for e in links["links"] if e["role"] == "spectator")
    assert spectator["watch"] == f"/watch?spectate={table.spectator_token}"
    assert (await get(server, "/read/links", table.gm_token))[1] == links
    status, refused = await get(server, "/read/links", player)
    assert status == 403 and refused["code"] == "forbidden"


async def test_bad_requests_are_refused_with_reasons(server: Server,
                                                     clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    assert (await get(server, "/read/view"))[0] == 401
    status, body = await get(server, "/read/view", "sm1.nope.nope.nope")
    assert status == 401 and body["message"]
    status, body = await get(server, "/read/history?limit=0", table.gm_token)
    assert status == 400 and "limit" in body["message"]
    status, body = await get(server, "/read/history?before=xyz", table.gm_token)
    assert status == 400 and "before" in body["message"]
    status, body = await get(server, "/read/nothing", table.gm_token)
    assert status == 404 and "/read/view" in body["message"]
    # a stream is opened by ticket only (the credential stays out of URLs)
    status, _ = await Stream.open(server, f"/read/stream?token={table.gm_token}")
    assert status == 401


async def test_an_expired_or_forged_ticket_opens_nothing(server: Server,
                                                         clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    status, ticket = await get(server, "/read/tickets", table.spectator_token)
    assert status == 200 and ticket["expires_in"] == server.settings.read_ticket_seconds
    assert ticket["expires_at"] > time.time() * 1000
    assert (await get(server, f"/read/view?ticket={ticket['ticket']}"))[0] == 200
    old, _ = server.read_api.tickets.mint(table.encounter, ticket["ticket"].split(".")[2],
                                          int(time.time() * 1000) - 120_000)
    status, body = await get(server, f"/read/view?ticket={old}")
    assert status == 401 and "expired" in body["message"]
    status, _ = await Stream.open(server, f"/read/stream?ticket={old}")
    assert status == 401
    forged = ticket["ticket"][:-4] + ("AAAA" if not ticket["ticket"].endswith("AAAA") else "BBBB")
    status, body = await get(server, f"/read/view?ticket={forged}")
    assert status == 401 and "not a read ticket" in body["message"]
    # a revoked credential's ticket opens nothing either
    await table.gm.command("revoke_token", token_id=ticket["ticket"].split(".")[2])
    assert (await get(server, f"/read/view?ticket={ticket['ticket']}"))[0] == 401


async def test_a_ticket_reads_but_mints_no_ticket_and_lists_no_credentials(
        server: Server, clients: list[Client]) -> None:
    """Tickets read; credentials act: a GM's ticket (which rides in URLs) neither answers the
    credentials of /read/links nor mints a ticket, however it is sent."""
    table = await create_table(ws_url(server), clients)
    status, ticket = await get(server, "/read/tickets", table.gm_token)
    assert status == 200
    gm_ticket = ticket["ticket"]
    assert (await get(server, f"/read/view?ticket={gm_ticket}"))[0] == 200
    for path in ("/read/links", "/read/tickets"):
        status, body = await get(server, f"{path}?ticket={gm_ticket}")
        assert status == 401 and body["code"] == "unauthenticated", (path, body)
        assert "credential itself" in body["message"]
        assert table.gm_token not in orjson.dumps(body).decode()
        # nor with the credential beside it, nor as a bearer
        status, body = await get(server, f"{path}?ticket={gm_ticket}", table.gm_token)
        assert status == 401, (path, body)
        status, body = await get(server, path, gm_ticket)
        assert status == 401 and "ticket" not in body and "links" not in body, (path, body)
    # the credential still does both
    assert (await get(server, "/read/links", table.gm_token))[0] == 200
    assert (await get(server, "/read/tickets", table.gm_token))[0] == 200


async def test_a_stream_outlives_its_ticket_until_its_credential_ends(
        server: Server, clients: list[Client]) -> None:
    """The one rule for streams (read-api.md): a stream opened with a good ticket lives until
    its credential is revoked or expires, however short the ticket."""
    table = await create_table(ws_url(server), clients, dice_seed=7)
    link = await table.gm.command("issue_spectator_link", expires_in=6, label="overlay")
    token_id = link["result"]["token_id"]
    seconds = server.read_api.tickets.seconds
    # a ticket with two seconds left
    short, expires = server.read_api.tickets.mint(
        table.encounter, token_id, int(time.time() * 1000 - seconds * 1000 + 2000))
    status, stream = await Stream.open(server, f"/read/stream?ticket={short}")
    assert status == 200
    await stream.until(lambda m: any(k == "snapshot" for k, _, _ in m))
    while time.time() * 1000 <= expires:
        await asyncio.sleep(0.05)
    assert (await get(server, f"/read/view?ticket={short}"))[0] == 401  # the ticket is done
    await table.gm.command("start_encounter")
    await stream.until(lambda m: any(k == "event" for k, _, _ in m))  # the stream is not
    await stream.until(lambda m: any(k == "closed" for k, _, _ in m), timeout=10.0)
    (closed,) = [d for k, _, d in stream.messages if k == "closed"]
    assert time.time() * 1000 >= link["result"]["expires_at"]
    assert "expired" in closed["reason"]
    stream.close()


async def test_a_dropped_stream_resumes_from_its_last_event_id_without_gap_or_duplicate(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=7)
    _, ticket = await get(server, "/read/tickets", table.tokens["dash"])
    status, stream = await Stream.open(server, ticket["stream"])
    assert status == 200
    await stream.until(lambda m: any(k == "snapshot" for k, _, _ in m))
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    await stream.until(lambda m: len([1 for k, _, _ in m if k == "event"]) >= 3)
    last = [i for k, i, _ in stream.messages if k in ("event", "view") and i][-1]
    before = stream.events()
    stream.close()  # dropped
    await play_turns(table.gm, {}, 3)
    status, resumed = await Stream.open(server, ticket["stream"], last_id=last)
    assert status == 200
    _, history = await get(server, "/read/history?limit=500", table.tokens["dash"])
    want = history["events"]
    cursors = [e["cursor"] for e in want]
    first = cursors.index(before[0]["cursor"])  # the first event after the snapshot
    await resumed.until(lambda m: len(before) + len(
        [1 for k, _, _ in m if k == "event"]) >= len(want) - first)
    resumed.close()
    assert not [1 for k, _, _ in resumed.messages if k == "snapshot"]
    got = before + resumed.events()
    assert [e["cursor"] for e in got] == cursors[first:]  # no gap, no duplicate
    assert resumed.events() and len(got) >= 6
    assert b"lurker" not in orjson.dumps(resumed.messages).lower()


async def test_a_revoked_credential_ends_its_stream(server: Server,
                                                    clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    _, ticket = await get(server, "/read/tickets", table.tokens["dash"])
    _, stream = await Stream.open(server, ticket["stream"])
    await stream.until(lambda m: any(k == "snapshot" for k, _, _ in m))
    await table.gm.command("revoke_token", token_id=ticket["ticket"].split(".")[2])
    await stream.until(lambda m: any(k == "closed" for k, _, _ in m))
    stream.close()
    assert (await Stream.open(server, ticket["stream"]))[0] == 401


async def test_an_eventsource_in_chromium_resumes_after_a_drop(
        server: Server, clients: list[Client], pages: Any) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=9)
    await table.gm.command("start_encounter")
    _, ticket = await get(server, "/read/tickets", table.spectator_token)
    page = await pages.open(base(server) + "/healthz")
    await page.evaluate("""(src) => {
        window.got = []; window.opens = 0;
        const es = new EventSource(src);
        es.onopen = () => { window.opens += 1; };
        es.addEventListener("event", (m) => window.got.push(JSON.parse(m.data).cursor));
    }""", ticket["stream"])
    await page.wait_for_function("window.opens === 1")
    await play_turns(table.gm, {}, 2)
    await page.wait_for_function("window.got.length >= 2")
    for stream in list(server.read_api.streams):
        stream.transport.abort()  # the connection drops, as a network would drop it
    await play_turns(table.gm, {}, 3)
    await page.wait_for_function("window.opens === 2", timeout=10_000)
    _, history = await get(server, "/read/history?limit=500", table.spectator_token)
    want = [e["cursor"] for e in history["events"]]
    first = want.index(await page.evaluate("window.got[0]"))  # the first after the snapshot
    await page.wait_for_function(f"window.got.length >= {len(want) - first}", timeout=10_000)
    got = await page.evaluate("window.got")
    assert got == want[first:] and len(got) >= 5  # no gap, no duplicate
