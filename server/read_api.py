"""The read API: an encounter over plain HTTP, for tools that cannot hold a websocket.

Every request is authorised by a credential of the encounter (``Authorization: Bearer
<token>``) or by a read ticket, and answered as that credential sees it, redacted exactly as
over the websocket (the same room, the same messages, with the ``cursor`` and ``summaries``
features):

- ``GET /read/tickets`` (the credential itself, never a ticket): a read ticket, ``{"ticket",
  "expires_at", "expires_in"}``. A ticket reads what its credential reads for
  ``read_ticket_seconds`` (60 by default) without being it, so that it can ride in a URL (an
  ``EventSource`` cannot send headers, and URLs reach proxy logs): it is sealed by the server
  secret, so every process takes it, and it opens nothing once expired or once its credential
  is revoked. Tickets read; credentials act: a ticket mints no ticket and lists no links, so
  nothing that saw one can make it last or turn it into the credential. A stream opened with
  a ticket that was good lives until its credential is revoked or expires (or the server
  stops), and is closed then.
- ``GET /read/view``: the ``snapshot`` message of the credential's view.
- ``GET /read/history?before=<cursor>&limit=<n>``: the ``history`` message (``get_history``).
- ``GET /read/links`` (a GM credential itself, never a ticket): the encounter's credentials
  that are not revoked, each with its token and its links (``/table/#token=…``,
  ``/watch?spectate=…``). It is the one place that lists them, so any GM tab can show them
  again.
- ``GET /read/stream?ticket=<ticket>``: a Server-Sent Events stream of the messages a
  websocket with the ``cursor``, ``summaries`` and ``view`` features would get (``snapshot``,
  ``event``, ``view``, ``error``; the SSE ``event`` field is the message's ``type``, its
  ``data`` the message), each with the cursor it brings the reader to as its SSE ``id``.
  A reconnecting ``EventSource`` sends the last one as ``Last-Event-ID`` (or a new stream
  gives it as ``&cursor=``): the stream resumes after it with no gap and no duplicate, or, when
  the log went back since (a Redis restored from an older save), starts with a ``snapshot``
  whose ``reason`` says so, never rewriting what the reader holds in silence. The stream ends
  with a ``closed`` message (``{"code", "reason"}``) when the credential is revoked or
  expires, or the server shuts down; a comment line every 15 s keeps proxies from closing it.

The HTTP side of this server is served through the websockets library's handshake hook
(``process_request``), which answers a request with one whole response. A stream cannot be
one, so :func:`take_over` takes the TCP connection from the library once the request is read:
the library's own response and close go to a :class:`_Detached` transport, and the stream
writes to the socket itself.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import logging
import math
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

import msgspec
import orjson
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request

from encounter.actors import Actor
from encounter.rejected import Rejected
from protocol import messages as msg
from protocol.errors import ErrorCode
from server import metrics
from server.budgets import Buckets
from server.cursor import CursorError
from server.rooms import LegalFrame, Room

log = logging.getLogger("stablemaster.read")

#: The requests a read ticket does not open: what they answer is a credential, or a way to
#: outlive the ticket (a ticket reads; the credential acts).
CREDENTIAL_ONLY = frozenset({"/read/tickets", "/read/links"})

#: How long a read ticket opens streams and reads, by default (``--read-ticket-seconds``).
TICKET_SECONDS = 60
#: A comment line this often keeps a quiet stream open through proxies.
KEEPALIVE_SECONDS = 15.0
#: What an ``EventSource`` waits before reconnecting (the stream's ``retry``), in ms.
RETRY_MS = 1000
#: A stream whose socket holds more than this unsent is too slow: it is closed, and resumes.
MAX_UNSENT = 1 << 20

Responder = Callable[[HTTPStatus, bytes, str], Any]


class Tickets:
    """Seals and opens read tickets: ``smr1.<encounter>.<token id>.<expiry ms>.<mac>``."""

    def __init__(self, server_secret: bytes, seconds: float = TICKET_SECONDS) -> None:
        self._key = hashlib.blake2b(b"read tickets", key=server_secret[:64],
                                    person=b"sm read").digest()
        self.seconds = seconds

    def _mac(self, body: str) -> str:
        mac = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:24]).decode()

    def mint(self, encounter: str, token_id: str, now_ms: int) -> tuple[str, int]:
        """A ticket for this credential and the time (ms) it expires."""
        expires = now_ms + int(self.seconds * 1000)
        body = f"smr1.{encounter}.{token_id}.{expires}"
        return f"{body}.{self._mac(body)}", expires

    def open(self, ticket: str, now_ms: int) -> tuple[str, str] | str:
        """``(encounter, token id)`` of a ticket that is still good, else why not."""
        parts = ticket.split(".")
        if len(parts) != 5 or parts[0] != "smr1" or not parts[3].isascii() \
                or not parts[3].isdigit():
            return "malformed read ticket"
        body = ".".join(parts[:4])
        if not hmac.compare_digest(parts[4], self._mac(body)):
            return "not a read ticket of this server"
        if int(parts[3]) <= now_ms:
            return "this read ticket has expired: get a new one with GET /read/tickets"
        return parts[1], parts[2]


class Collector:
    """A room member that keeps the frames it is given (one answer to one HTTP request)."""

    cursor = True
    batch_head = False
    summaries = True
    view = True
    gone = False

    def __init__(self, room: Room, actor: Actor) -> None:
        self.room: Room | None = room
        self.actor: Actor | None = actor
        self.address: str | None = None
        self.frames: list[bytes] = []

    def enqueue(self, frame: bytes, head: Any = None) -> None:
        self.frames.append(frame)

    def send(self, message: msg.ServerMessage) -> None:
        self.enqueue(msgspec.json.encode(message))

    def error(self, code: ErrorCode, message: str, cid: str | None = None,
              details: dict[str, Any] | None = None) -> None:
        self.send(msg.Error(id=cid, code=code, message=message, details=details))

    def offer_legal(self, legal: LegalFrame, force: bool = False) -> None:
        pass  # a reader acts on nothing

    def acknowledge(self, cid: str, seq: int | None, cursor: str | None,
                    result: dict[str, Any], duplicate: bool, held: bool = False) -> None:
        pass

    def hold_reply(self) -> None:
        pass

    def release_reply(self, frame: bytes | None) -> None:
        pass

    def close_soon(self, code: int, reason: str, flush: bool = True) -> None:
        pass

    def created(self) -> None:
        pass


class _Detached(asyncio.Transport):
    """Where the websockets library writes, and what it closes, once a stream has taken its
    connection over: nowhere."""

    def __init__(self, real: asyncio.BaseTransport) -> None:
        super().__init__()
        self._real = real
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def writelines(self, list_of_data: Any) -> None:
        pass

    def can_write_eof(self) -> bool:
        return False

    def close(self) -> None:
        self._closing = True

    def abort(self) -> None:
        self._closing = True

    def is_closing(self) -> bool:
        return self._closing

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._real.get_extra_info(name, default)

    def get_write_buffer_size(self) -> int:
        return 0

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class _Closed(asyncio.Protocol):
    """The protocol of a taken-over socket: whatever the reader sends is ignored; losing the
    connection ends its stream."""

    def __init__(self, lost: Callable[[], None]) -> None:
        self._lost = lost

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost()


def take_over(connection: ServerConnection, lost: Callable[[], None]) -> asyncio.Transport:
    """The socket of ``connection``, taken from the websockets library (see the module's
    docstring); ``lost`` is called when the peer goes away."""
    real = connection.transport
    assert isinstance(real, asyncio.Transport)
    connection.transport = _Detached(real)
    real.set_protocol(_Closed(lost))
    return real


class EventStream(Collector):
    """A room member that writes what it is given as Server-Sent Events to a socket."""

    def __init__(self, room: Room, actor: Actor, connection: ServerConnection,
                 on_end: Callable[[EventStream], None]) -> None:
        super().__init__(room, actor)
        self._on_end = on_end
        self.transport = take_over(connection, self._lost)
        self._keepalive: asyncio.Task[None] | None = None
        #: gives its place in its address's connections back (``ReadApi._stream``)
        self.release: Callable[[], None] | None = None

    def start(self, headers: list[tuple[str, str]]) -> None:
        head = ["HTTP/1.1 200 OK", "Content-Type: text/event-stream; charset=utf-8",
                "Cache-Control: no-store", "Connection: close", "X-Accel-Buffering: no",
                "Referrer-Policy: no-referrer"]
        head += [f"{k}: {v}" for k, v in headers]
        self.transport.write(("\r\n".join(head) + "\r\n\r\n").encode()
                             + f"retry: {RETRY_MS}\n\n".encode())
        self._keepalive = asyncio.get_running_loop().create_task(self._keep_alive())

    async def _keep_alive(self) -> None:
        while not self.gone:
            await asyncio.sleep(KEEPALIVE_SECONDS)
            if not self.gone:
                self.transport.write(b": keep-alive\n\n")

    def enqueue(self, frame: bytes, head: Any = None) -> None:
        if self.gone:
            return
        if self.transport.get_write_buffer_size() > MAX_UNSENT:
            self.close_soon(1013, "too slow: resume with Last-Event-ID")
            return
        message = orjson.loads(frame)
        kind = str(message.get("type", "message"))
        if kind == "legal_actions":
            return
        line = b"event: " + kind.encode() + b"\n"
        cursor = message.get("cursor")
        if isinstance(cursor, str):
            line += b"id: " + cursor.encode() + b"\n"
        self.transport.write(line + b"data: " + frame + b"\n\n")

    async def wait_sent(self) -> bool:
        """(``attach``, between chunks of a resume) wait while the socket holds a lot."""
        while not self.gone and self.transport.get_write_buffer_size() > MAX_UNSENT // 4:
            await asyncio.sleep(0.05)
        return not self.gone

    def close_soon(self, code: int, reason: str, flush: bool = True) -> None:
        if self.gone:
            return
        self.transport.write(b"event: closed\ndata: "
                             + orjson.dumps({"code": code, "reason": reason}) + b"\n\n")
        self.transport.close()
        self._end()

    def _lost(self) -> None:
        self._end()

    def _end(self) -> None:
        if self.gone:
            return
        self.gone = True
        if self._keepalive is not None:
            self._keepalive.cancel()
        self._on_end(self)


class ReadApi:
    """The ``/read/`` requests of one server process (see the module's docstring)."""

    def __init__(self, hub: Any, tickets: Tickets) -> None:
        self.hub = hub
        self.tickets = tickets
        self.streams: set[EventStream] = set()
        s = hub.settings
        #: the requests of each credential and address, counted as a websocket's messages
        self.requests = Buckets(s.commands_per_second, s.command_burst)

    async def respond(self, connection: ServerConnection, request: Request,
                      respond: Responder, cors: list[tuple[str, str]]) -> Any:
        url = urlsplit(request.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        path = url.path
        route: dict[str, Callable[..., Awaitable[Any]]] = {
            "/read/tickets": self._ticket, "/read/view": self._view,
            "/read/history": self._history, "/read/links": self._links,
            "/read/stream": self._stream,
            "/read/campaign": self._view,  # (a campaign link's: answered by _campaign, below)
        }
        handler = route.get(path)
        if handler is None:
            return _problem(respond, HTTPStatus.NOT_FOUND, "not_found",
                            f"no {path}: the read API has {', '.join(sorted(route))}")
        if getattr(request, "method", "GET") != "GET":
            return _problem(respond, HTTPStatus.METHOD_NOT_ALLOWED, "invalid_payload",
                            "the read API is asked with GET")
        client = self.hub.addresses.client(connection.remote_address,
                                           request.headers.get_all("X-Forwarded-For"))
        address = None if client.local else client.address
        if address is not None and not self._request_fits(f"address {address}"):
            return _too_many(respond, "address", self.requests.wait(
                f"address {address}", 1, time.monotonic()))
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer smc1.") or path == "/read/campaign":
            return await self._campaign(path, header[len("Bearer "):].strip(), respond)
        if path in CREDENTIAL_ONLY and "ticket" in query:
            return _problem(respond, HTTPStatus.UNAUTHORIZED, "unauthenticated",
                            f"{path} is asked with the credential itself ('Authorization: "
                            "Bearer <token>'): a read ticket reads, it mints no ticket and "
                            "lists no links")
        authed = await self._authorise(request, query, ticket_only=path == "/read/stream")
        if isinstance(authed, tuple) and len(authed) == 2 and isinstance(authed[0], HTTPStatus):
            return _problem(respond, authed[0], "unauthenticated", authed[1])
        room, actor = authed
        try:
            credential = f"credential {room.id}:{actor.token_id}"
            if not self._request_fits(credential):
                return _too_many(respond, "credential",
                                 self.requests.wait(credential, 1, time.monotonic()))
            return await handler(room, actor, query, respond, connection=connection,
                                 request=request, cors=cors, client=client, address=address)
        finally:
            self.hub.rooms.release(room)

    def _request_fits(self, key: str) -> bool:
        """Count one request against ``key``'s bucket, unless it is empty."""
        now = time.monotonic()
        if self.requests.wait(key, 1, now) > 0:
            return False
        self.requests.take(key, 1, now)
        return True

    async def _authorise(self, request: Request, query: dict[str, str], ticket_only: bool
                         ) -> tuple[Room, Actor] | tuple[HTTPStatus, str]:
        header = request.headers.get("Authorization", "")
        ticket = query.get("ticket")
        if ticket is not None:
            opened = self.tickets.open(ticket, _now_ms())
            if isinstance(opened, str):
                return HTTPStatus.UNAUTHORIZED, opened
            encounter, token_id = opened
            return await self._grant(encounter, token_id)
        if ticket_only:
            return HTTPStatus.UNAUTHORIZED, ("a stream is opened with ?ticket= (GET "
                                             "/read/tickets with the credential first)")
        if not header.startswith("Bearer "):
            return HTTPStatus.UNAUTHORIZED, ("send the credential as 'Authorization: Bearer "
                                             "<token>', or a read ticket as ?ticket=")
        authed = await self.hub.authenticate(header[len("Bearer "):].strip())
        if isinstance(authed, str):
            return HTTPStatus.UNAUTHORIZED, authed
        room, actor = authed
        return room, actor

    async def _grant(self, encounter: str, token_id: str
                     ) -> tuple[Room, Actor] | tuple[HTTPStatus, str]:
        room = await self.hub.rooms.get(encounter)
        if room is None:
            return HTTPStatus.UNAUTHORIZED, "unknown encounter"
        grant = room.state.tokens.get(token_id)
        if grant is None or grant.revoked or grant.expired(time.time() * 1000):
            self.hub.rooms.release(room)
            return HTTPStatus.UNAUTHORIZED, "the ticket's credential is revoked or expired"
        return room, Actor(role=grant.role, token_id=token_id,
                           combatants=frozenset(grant.combatants),
                           scopes=frozenset(grant.scopes))

    async def _campaign(self, path: str, link: str, respond: Responder) -> Any:
        """A campaign link (R113): ``/read/campaign``, the ``campaign`` message of its view;
        ``/read/links``, the GM's: each player's link and each encounter's GM link."""
        if path not in ("/read/campaign", "/read/links"):
            return _problem(respond, HTTPStatus.NOT_FOUND, "not_found", f"no {path} for a "
                            "campaign link: it reads /read/campaign and /read/links")
        if not link.startswith("smc1."):
            return _problem(respond, HTTPStatus.UNAUTHORIZED, "unauthenticated",
                            "send a campaign link as 'Authorization: Bearer smc1.…'")
        campaigns = self.hub.campaigns
        found = await campaigns.authenticate(link)
        if isinstance(found, str):
            return _problem(respond, HTTPStatus.UNAUTHORIZED, "unauthenticated", found)
        state, seat = found
        if path == "/read/campaign":
            return respond(HTTPStatus.OK, msgspec.json.encode(campaigns.view(state, seat)),
                           "application/json")
        if seat.role != "gm":
            return _problem(respond, HTTPStatus.FORBIDDEN, "forbidden",
                            "only the campaign's GM link lists its links")
        return _json(respond, campaigns.links_of(state))

    async def _ticket(self, room: Room, actor: Actor, query: dict[str, str],
                      respond: Responder, **_: Any) -> Any:
        ticket, expires = self.tickets.mint(room.id, actor.token_id, _now_ms())
        return _json(respond, {"ticket": ticket, "expires_at": expires,
                               "expires_in": self.tickets.seconds,
                               "stream": f"/read/stream?ticket={ticket}"})

    async def _view(self, room: Room, actor: Actor, query: dict[str, str],
                    respond: Responder, **_: Any) -> Any:
        reader = Collector(room, actor)
        room.send_snapshot(reader, "asked", join=False)
        frame = reader.frames[-1]
        status = HTTPStatus.OK if b'"type":"snapshot"' in frame else \
            HTTPStatus.SERVICE_UNAVAILABLE
        return respond(status, frame, "application/json")

    async def _history(self, room: Room, actor: Actor, query: dict[str, str],
                       respond: Responder, *, address: str | None = None, **_: Any) -> Any:
        try:
            limit = int(query.get("limit", "100"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 500:
            return _problem(respond, HTTPStatus.BAD_REQUEST, "invalid_payload",
                            "limit is a whole number from 1 to 500")
        reader = Collector(room, actor)
        reader.address = address
        try:
            await self.hub.commands.history(reader, msg.GetHistory(
                id="read", before=query.get("before"), limit=limit))
        except Rejected as exc:  # a bad cursor, or past the budget of reads
            if exc.code == ErrorCode.RATE_LIMITED:
                details = exc.details or {}
                return _too_many(respond, str(details.get("budget")),
                                 float(details.get("retry_after", 1)), exc.message)
            return _problem(respond, HTTPStatus.BAD_REQUEST, "invalid_payload", exc.message)
        return respond(HTTPStatus.OK, reader.frames[-1], "application/json")

    async def _links(self, room: Room, actor: Actor, query: dict[str, str],
                     respond: Responder, **_: Any) -> Any:
        if actor.role != "gm":
            return _problem(respond, HTTPStatus.FORBIDDEN, "forbidden",
                            "only a GM credential lists the encounter's links")
        now = time.time() * 1000
        links = []
        for grant in room.state.tokens.values():
            if grant.revoked or grant.expired(now):
                continue
            token = self.hub.tokens.mint(room.id, grant.token_id)
            entry: dict[str, Any] = {
                "token_id": grant.token_id, "role": grant.role, "label": grant.label,
                "combatants": sorted(grant.combatants), "scopes": sorted(grant.scopes),
                "expires_at": grant.expires_at, "token": token,
                "table": f"/table/#token={token}"}
            if grant.role == "spectator":
                entry["watch"] = f"/watch?spectate={token}"
            links.append(entry)
        links.sort(key=lambda e: (e["role"] != "gm", e["role"], e["token_id"]))
        return _json(respond, {"encounter": room.id, "links": links})

    async def _stream(self, room: Room, actor: Actor, query: dict[str, str],
                      respond: Responder, *, connection: ServerConnection, request: Request,
                      cors: list[tuple[str, str]], address: str | None = None,
                      **_: Any) -> Any:
        cursor = request.headers.get("Last-Event-ID") or query.get("cursor")
        since: int | None = None
        digest: str | None = None
        if cursor:
            try:
                since, digest = room.cursors.open(cursor)
            except CursorError as exc:
                return _problem(respond, HTTPStatus.BAD_REQUEST, "invalid_payload",
                                f"Last-Event-ID / cursor: {exc}")
        addresses = self.hub.addresses
        counted = address is not None and bool(addresses.limit)
        if counted and not addresses.acquire(address):
            # (a stream is a connection: it counts in the address's, as a websocket does)
            metrics.CONNECTIONS_REFUSED.labels("address_limit").inc()
            return _problem(respond, HTTPStatus.TOO_MANY_REQUESTS, "rate_limited",
                            "too many connections from this address")
        stream = EventStream(room, actor, connection, self._ended)
        if counted:
            stream.release = functools.partial(addresses.release, address)
        self.streams.add(stream)
        stream.start(cors)
        try:
            await self.hub.attach(stream, room, since, digest)
        except Exception:
            log.exception("read stream of %s failed", room.id)
            stream.close_soon(1011, "the server could not follow this encounter")
        if stream.gone:  # (gone while it was attached: out of the room again)
            self.hub.rooms.leave(room, stream)
        # what the websockets library answers goes nowhere (the socket is the stream's)
        return respond(HTTPStatus.OK, b"", "text/plain")

    def _ended(self, stream: EventStream) -> None:
        self.streams.discard(stream)
        release, stream.release = stream.release, None
        if release is not None:
            release()
        if stream.room is not None:
            self.hub.rooms.leave(stream.room, stream)

    def close_all(self, reason: str) -> None:
        for stream in list(self.streams):
            stream.close_soon(1001, reason)


def _too_many(respond: Responder, budget: str, wait: float,
              message: str | None = None) -> Any:
    """429, with ``Retry-After`` and ``retry_after``: the seconds until it would fit."""
    retry = max(1, math.ceil(wait))
    text = message or f"too many requests of this {budget}: retry in {retry} s"
    response = respond(HTTPStatus.TOO_MANY_REQUESTS, orjson.dumps(
        {"code": "rate_limited", "message": text, "budget": budget, "retry_after": retry}),
        "application/json")
    response.headers["Retry-After"] = str(retry)
    return response


def _json(respond: Responder, body: Any) -> Any:
    return respond(HTTPStatus.OK, orjson.dumps(body), "application/json")


def _problem(respond: Responder, status: HTTPStatus, code: str, message: str) -> Any:
    return respond(status, orjson.dumps({"code": code, "message": message}),
                   "application/json")


def _now_ms() -> int:
    return int(time.time() * 1000)

