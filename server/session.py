"""One websocket connection: handshake, authentication, reading commands, a bounded send queue.

A connection belongs to at most one encounter, as the credential it said ``hello`` with. It
reads messages one at a time; every command gets exactly one ``ack`` or ``error``. Outgoing
messages go through a queue bounded in messages and in bytes: everything queued for a
connection during one turn of the event loop leaves in one write to its socket (``Outbox``),
and while the socket does not take more (its write buffer is over the limit) the queue waits.
A slow or stalled client whose queue fills is closed (1013) instead of slowing anyone else. A
resume's replay waits for the queue to empty before it queues its next chunk
(``Session.wait_sent``), so it never fills the queue however long it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import msgspec
import orjson
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import OPEN

from encounter.actors import Actor
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.version import SUPPORTED_VERSIONS
from rules.choices import command_refusal
from server import __version__, metrics, replay
from server.addresses import CountedConnection
from server.auth import new_id
from server.budgets import ReadBudget
from server.campaigns import Campaigns, Seat
from server.campaigns import is_link as is_campaign_link
from server.commands import budget_refusal
from server.config import Settings
from server.cursor import CURSOR_LENGTH, CursorError
from server.rooms import Room, Rooms
from server.wire import Head, LegalFrame, Recall, batched, batched_head

log = logging.getLogger("stablemaster.session")

_decode = msgspec.json.Decoder(msg.AnyClientMessage)
_encode = msgspec.json.Encoder()
#: An empty recall (``legal_recall``), shared.
_NOTHING: Recall = {}

# Close codes (RFC 6455 and the application range).
CLOSE_PROTOCOL_ERROR = 1002
CLOSE_POLICY = 1008
CLOSE_RESTART = 1012
CLOSE_TRY_LATER = 1013
CLOSE_REVOKED = 4001
CLOSE_NO_HELLO = 4002


def _text_frame_header(length: int) -> bytes:
    """The header of a final, unmasked text frame of ``length`` bytes (RFC 6455, 5.2)."""
    if length < 126:
        return _SHORT_HEADERS[length]
    if length < 65536:
        return b"\x81\x7e" + length.to_bytes(2, "big")
    return b"\x81\x7f" + length.to_bytes(8, "big")


_SHORT_HEADERS = [bytes((0x81, n)) for n in range(126)]


class Outbox:
    """The connections with queued frames, flushed once the current turn of the event loop is
    done: an ``ack`` and the events of the same command share one write to each socket, and
    no task wakes up per connection."""

    def __init__(self) -> None:
        self._dirty: list[Session] = []

    def mark(self, session: Session) -> None:
        if not self._dirty:
            asyncio.get_running_loop().call_soon(self.flush)
        self._dirty.append(session)

    def flush(self) -> None:
        dirty, self._dirty = self._dirty, []
        for session in dirty:
            try:
                session.flush()
            except Exception:  # one broken socket must not keep frames from the others
                log.exception("flushing connection %s failed", session.id)


class CommandHandler(Protocol):
    async def handle(self, session: Session, cmd: msg.Command) -> None: ...


class Hub(Protocol):
    """What a connection needs of the server it is on (``server.app.Server`` is one)."""

    settings: Settings
    outbox: Outbox
    rooms: Rooms
    limits: msg.Limits
    campaigns: Campaigns
    read_budget: ReadBudget

    @property
    def commands(self) -> CommandHandler: ...

    async def authenticate(self, token: str) -> tuple[Room, Actor] | str: ...

    async def attach(self, session: Session, room: Room, since: int | None,
                     digest: str | None = None) -> None: ...


class Session:
    def __init__(self, server: Hub, ws: ServerConnection) -> None:
        self.server = server
        self.ws = ws
        self.id = new_id(16)
        #: told who is connected (``server.presence``), with the ``presence`` feature
        self.presence = False
        self.actor: Actor | None = None
        self.room: Room | None = None
        #: its place in a campaign, when it came by a campaign link (R113)
        self.campaign_seat: Seat | None = None
        self.protocol: int | None = None
        self._queue: deque[bytes] = deque()
        #: with ``batch_head``: what each queued message leaves to its batch to say
        #: (``server.wire.Head``; ``None``: nothing)
        self._heads: deque[Head | None] = deque()
        self._queued_bytes = 0
        self._sent = asyncio.Event()  # set whenever the queue empties
        self._marked = False
        self._draining: asyncio.Task[None] | None = None
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self._last_legal: bytes | None = None
        #: the replies (acks, errors) waiting behind an ack the GM's screen holds back
        #: (``None``: that ack's place), so that replies leave in the order of the commands
        self._replies: deque[bytes | None] = deque()
        #: with ``legal_delta``: the entries of the last legal actions sent, and their seq
        self._last_entries: list[bytes] | None = None
        self._legal_seq = 0
        self._legal_cursor: str | None = None
        #: with ``legal_recall``: the groups of the last list sent, and what it recalls
        self.legal_recall = False
        self._last_groups: Recall = _NOTHING
        self._recall: Recall = _NOTHING
        #: negotiated in ``hello``: one websocket message for everything queued at once
        #: (``batch``), legal actions as deltas (``legal_delta``), positions as cursors
        #: (``cursor``), the state kept in step by patches (``view``), events with their
        #: words (``summaries``)
        self.batch = False
        self.legal_delta = False
        #: ``legal_changed``: legal actions only when they change; ``batch_head``: what the
        #: messages of a batch repeat said once by the batch
        self.legal_changed = False
        self.batch_head = False
        #: the ``turn_id`` of the last legal actions sent: with ``legal_changed``, a command's
        #: ``expect_turn`` naming it stands for the current turn (``CommandService.execute``)
        self.legal_turn: str | None = None
        #: ``lean_events`` (with ``view`` and ``summaries``): events say only what the view
        #: and the summary do not
        self.lean_events = False
        self.cursor = False
        self.view = False
        self.summaries = False
        #: a replay (``hello.replay``): it watches the log played back, never the live room
        self.replaying = False
        self._replay: asyncio.Task[None] | None = None
        #: A ``welcome`` was sent: the connection said ``hello`` in time.
        self.welcomed = False
        #: The hello deadline is met: the connection authenticated, or (having said ``hello``
        #: without a token) created an encounter.
        self.settled = False
        #: whom the connection counts as, for the create quotas (``None``: a local client)
        self.address: str | None = None
        client = ws.client if isinstance(ws, CountedConnection) else None
        if client is not None and not client.local:
            self.address = client.address
        s = server.settings
        self._tokens = float(s.command_burst)
        self._refill_at = time.monotonic()
        self._over_limit = 0

    # -- sending -----------------------------------------------------------------------------

    def enqueue(self, frame: bytes, head: Head | None = None) -> None:
        """Queue ``frame``; ``head`` (with ``batch_head``): what it leaves to its batch to say
        (``server.wire.batched_head``), ``None`` for a whole message."""
        if self._closing:
            return  # nothing new after the decision to close (queued frames still go out)
        s = self.server.settings
        if len(self._queue) >= s.max_queued_messages or (
                self._queue and self._queued_bytes + len(frame) > s.max_queued_bytes):
            metrics.SLOW_CLIENTS.inc()
            log.warning("closing stalled connection %s (%d queued, %d bytes)", self.id,
                        len(self._queue), self._queued_bytes)
            self.close_soon(CLOSE_TRY_LATER, "too slow: send queue full; resume with since",
                            flush=False)
            return
        self._queue.append(frame)
        self._heads.append(head if self.batch_head else None)
        self._queued_bytes += len(frame)
        self._sent.clear()
        if not self._marked:
            self._marked = True
            self.server.outbox.mark(self)

    def send(self, message: msg.ServerMessage) -> None:
        frame = _encode.encode(message)
        if self._replies and isinstance(message, msg.Ack | msg.Error):
            # after the ack the screen holds back; as bounded as the send queue
            if len(self._replies) >= self.server.settings.max_queued_messages:
                self.close_soon(CLOSE_POLICY, "too many commands waiting for an answer that "
                                "waits for the GM")
                return
            self._replies.append(frame)
        else:
            self.enqueue(frame)

    def hold_reply(self) -> None:
        """An ack waits for the GM's screen (``Room.answer``): the replies to the commands
        after it wait behind it."""
        self._replies.append(None)

    def release_reply(self, frame: bytes | None) -> None:
        """The first ack held back leaves (``frame``; ``None``: it never will, the room
        was rewound), and the replies behind it up to the next one held back."""
        replies = self._replies
        for i, reply in enumerate(replies):
            if reply is None:
                if frame is None:
                    del replies[i]
                else:
                    replies[i] = frame
                break
        while replies and replies[0] is not None:
            self.enqueue(replies.popleft())  # type: ignore[arg-type]

    def offer_legal(self, legal: LegalFrame, force: bool = False) -> None:
        """Send the legal actions when they differ from what this connection last got: in
        full, or (with ``legal_delta``) as a delta against what it last got; in full when
        ``force`` is set (after a snapshot, a resume, ``get_legal_actions``)."""
        key = legal.listed if self.legal_changed else legal.key
        if not force and key == self._last_legal:
            return
        self._last_legal = key
        self.legal_turn = legal.turn
        lean = self.batch_head
        head = (None, legal.cursor if self.cursor else None) if lean else None
        full = legal.full(self.cursor, lean)
        if not self.legal_delta:
            self.enqueue(full, head)
            return
        previous = self._last_entries
        recall = self._recall if self.legal_recall else None
        if force or previous is None:
            frame = full
        elif self.cursor:
            frame = legal.delta(previous, 0, self._legal_cursor or "", lean, recall)
        else:
            frame = legal.delta(previous, self._legal_seq, lean=lean, recall=recall)
        if self.legal_recall:
            # a full list starts the recall afresh; a delta recalls what it replaced
            self._recall = _NOTHING if frame is full else \
                legal.recall_after(self._last_groups, self._recall)
            self._last_groups = legal.groups
        self._last_entries, self._legal_seq = legal.entries, legal.seq
        self._legal_cursor = legal.cursor
        self.enqueue(frame, head)

    @property
    def gone(self) -> bool:
        return self._closing or self.ws.protocol.state is not OPEN

    def acknowledge(self, cid: str, seq: int | None, cursor: str | None,
                    result: dict[str, Any], duplicate: bool, held: bool = False) -> None:
        """The ``ack`` of command ``cid``, naming ``seq`` (or, with the ``cursor`` feature,
        ``cursor``); ``held``: the ack the screen held back (``hold_reply``)."""
        if self.cursor and self.batch_head and not held and not self._replies \
                and cursor is not None and self._heads and self._heads[-1] is not None \
                and self._heads[-1][1] == cursor:
            # (the batch it goes in says the cursor; an empty result and duplicate false, the
            # defaults, go without saying)
            self.enqueue(b'{"type":"ack","id":%b%b%b}' % (
                _encode.encode(cid), b',"result":%b' % _encode.encode(result) if result else b"",
                b',"duplicate":true' if duplicate else b""), (None, cursor))
            return
        if self.cursor:
            ack = msg.Ack(id=cid, seq=msgspec.UNSET, cursor=cursor, result=result,
                          duplicate=duplicate)
        else:
            ack = msg.Ack(id=cid, seq=seq, result=result, duplicate=duplicate)
        if held:
            self.release_reply(_encode.encode(ack))
        else:
            self.send(ack)

    def error(self, code: ErrorCode, message: str, cid: str | None = None,
              details: dict[str, Any] | None = None) -> None:
        self.send(msg.Error(id=cid, code=code, message=message, details=details))

    def flush(self) -> None:
        """Write every queued frame in one write to the socket, unless its write buffer is over
        the limit: then wait for it to drain first (the queue stays bounded meanwhile)."""
        self._marked = False
        ws = self.ws
        if not self._queue or self._draining is not None:
            return
        if ws.protocol.state is not OPEN:
            self._clear()  # closing: nobody will read these
            return
        if ws.paused:
            self._draining = asyncio.get_running_loop().create_task(self._drain())
            return
        protocol = ws.protocol
        queued: Sequence[bytes] = \
            batched_head(self._queue, self._heads) if self.batch_head \
            else batched(self._queue) if self.batch else self._queue
        if protocol.extensions or not all(protocol.writes):
            # an extension would transform the frames, or websockets has an end-of-stream
            # marker waiting: let it frame and write (rare; not with this server's settings)
            for frame in queued:
                protocol.send_text(frame)
            self._clear()
            ws.send_data()
            return
        # Unfragmented, unmasked text frames (RFC 6455, 5.2) are a header and the payload: frame
        # them here and write everything queued (after anything websockets itself has queued,
        # such as a pong) in one write, without a frame object per message and connection.
        parts = protocol.writes
        for payload in queued:
            parts.append(_text_frame_header(len(payload)))
            parts.append(payload)
        self._clear()
        ws.transport.write(b"".join(parts))
        parts.clear()

    def _clear(self) -> None:
        self._queue.clear()
        self._heads.clear()
        self._queued_bytes = 0
        self._sent.set()

    async def _drain(self) -> None:
        try:
            await self.ws.drain()
        except Exception:  # the connection is gone; its reader ends the session
            self._clear()
            return
        finally:
            self._draining = None
        self.flush()

    async def wait_sent(self) -> bool:
        """Wait until everything queued so far has been handed to the socket; ``False`` when
        the connection closes (or is closing) first."""
        while self._queue:
            if self._closing or self.ws.protocol.state is not OPEN:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._sent.wait(), 1.0)
        return not self._closing and self.ws.protocol.state is OPEN

    def close_soon(self, code: int, reason: str, flush: bool = True) -> None:
        """Close the connection; first send what is queued unless ``flush`` is false."""
        if self._closing:
            return
        self._closing = True
        if not flush:
            self._clear()
        self._close_task = asyncio.get_running_loop().create_task(
            self._close_after_flush(code, reason))

    async def _close_after_flush(self, code: int, reason: str) -> None:
        for _ in range(100):
            if not self._queue:
                break
            await asyncio.sleep(0.01)
        await self.ws.close(code, reason)

    async def goodbye(self, reason: str) -> None:
        """Tell the client to reconnect elsewhere, flush, and close with 1012."""
        self.send(msg.Goodbye(reason=reason, reconnect=True))
        self._closing = True
        await self._close_after_flush(CLOSE_RESTART, reason)

    # -- receiving ---------------------------------------------------------------------------

    def _rate_ok(self) -> bool:
        s = self.server.settings
        now = time.monotonic()
        refill = (now - self._refill_at) * s.commands_per_second
        self._tokens = min(s.command_burst, self._tokens + refill)
        self._refill_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    def _hello_overdue(self) -> None:
        if not self.settled:
            metrics.HELLO_TIMEOUTS.inc()
            self.close_soon(CLOSE_NO_HELLO, "no hello in time" if not self.welcomed
                            else "no token nor create_encounter in time")

    def created(self) -> None:
        """A ``create_encounter`` of this connection was answered with its encounter: the
        hello deadline is met."""
        self.settled = True

    async def run(self) -> None:
        metrics.CONNECTIONS.inc()
        timeout = self.server.settings.hello_timeout
        deadline = (asyncio.get_running_loop().call_later(timeout, self._hello_overdue)
                    if timeout > 0 else None)
        try:
            spectate, since, digest, cursor, bad, features = _query_token(self.ws)
            replaying, bad_replay = _query_replay(self.ws)
            bad = bad or bad_replay
            if spectate is not None and bad:
                self.error(ErrorCode.INVALID_PAYLOAD, bad + "; no hello was said for this link")
            elif spectate is not None:
                await self.hello(msg.Hello(versions=list(SUPPORTED_VERSIONS), token=spectate,
                                           since=since, digest=digest, cursor=cursor,
                                           features=features, replay=replaying),
                                 spectator_url=True)
            async for raw in self.ws:
                if self._closing:
                    continue  # drain, so that the client's close frame gets through
                try:
                    await self.receive(raw)
                except Exception:
                    log.exception("message handling failed")
                    self.error(ErrorCode.INTERNAL, "the server failed; nothing was changed",
                               _peek_id(raw))
        except ConnectionClosed:
            pass
        finally:
            if deadline is not None:
                deadline.cancel()
            if self._close_task is not None:
                with contextlib.suppress(ConnectionClosed):
                    await self._close_task  # lets what is queued go out first
            metrics.CONNECTIONS.dec()
            if self._replay is not None:
                self._replay.cancel()
            if self.room is not None:
                self.server.rooms.leave(self.room, self)
            if self.campaign_seat is not None:
                self.server.campaigns.leave(self)
            if self._draining is not None:
                self._draining.cancel()

    async def receive(self, raw: str | bytes) -> None:
        s = self.server.settings
        if self._rate_ok():
            self._over_limit = 0
        else:
            self._over_limit += 1
            if self._over_limit > s.flood_close_after:
                self.close_soon(CLOSE_POLICY, "message flood")
                return
            self.error(ErrorCode.RATE_LIMITED,
                       f"more than {s.commands_per_second:g} messages per second", _peek_id(raw))
            return
        if isinstance(raw, bytes):
            self.error(ErrorCode.BAD_JSON, "binary frames are not accepted; send JSON as text")
            return
        if len(raw) > s.max_command_bytes or (
                4 * len(raw) > s.max_command_bytes and len(raw.encode()) > s.max_command_bytes):
            self.error(ErrorCode.TOO_LARGE, f"message over {s.max_command_bytes} bytes",
                       _peek_id(raw))
            return
        if nested_deeper(raw, s.max_json_depth):
            self.error(ErrorCode.INVALID_PAYLOAD, f"objects and arrays nested more than "
                       f"{s.max_json_depth} levels deep", _peek_id(raw))
            return
        try:
            message = _decode.decode(raw)
        except RecursionError:  # not reached within the depth limit; a guard all the same
            self.error(ErrorCode.INVALID_PAYLOAD, "objects and arrays nested too deep")
            return
        except msgspec.ValidationError as exc:
            code, text = _classify(raw, exc)
            self.error(code, text, _peek_id(raw))
            return
        except msgspec.DecodeError as exc:
            self.error(ErrorCode.BAD_JSON, f"not valid JSON: {exc}")
            return
        if isinstance(message, msg.Hello):
            await self.hello(message)
            return
        assert isinstance(message, msg.Command)
        if self.protocol is None:
            self.error(ErrorCode.UNAUTHENTICATED, "send hello first", message.id)
            return
        if self.replaying and not isinstance(message, msg.Ping):
            self.error(ErrorCode.FORBIDDEN, "a replay connection only watches: open another "
                       "connection (without replay) to send commands", message.id)
            return
        await self.server.commands.handle(self, message)

    async def hello(self, hello: msg.Hello, spectator_url: bool = False) -> None:
        if self.actor is not None:
            self.error(ErrorCode.INVALID_PAYLOAD, "already authenticated; open a new connection "
                       "for another credential")
            return
        common = set(hello.versions) & set(SUPPORTED_VERSIONS)
        if not common:
            self.error(ErrorCode.UNSUPPORTED_VERSION,
                       f"this server speaks protocol {list(SUPPORTED_VERSIONS)}")
            self.close_soon(CLOSE_PROTOCOL_ERROR, "unsupported protocol version")
            return
        self.protocol = max(common)
        limits = self.server.limits
        if hello.cursor is not None and (hello.since is not None or hello.digest is not None):
            self.error(ErrorCode.INVALID_PAYLOAD, "resume from a cursor or from since and "
                       "digest, not both")
            return
        if hello.replay is not None and (hello.since is not None or hello.cursor is not None
                                         or hello.token is None):
            self.error(ErrorCode.INVALID_PAYLOAD, "replay: a replay starts from a round, not "
                       "from since or a cursor, and needs a token")
            return
        asked = set(hello.features)
        if "view" in asked or "batch_head" in asked:
            asked.add("batch")  # the events and the patch of one change arrive together
        if "legal_recall" in asked:
            asked.add("legal_delta")  # (the references are items of a delta)
        if not {"view", "summaries"} <= asked:
            asked.discard("lean_events")  # (the view and the words say the rest)
        features = [f for f in msg.FEATURES if f in asked]
        self.batch, self.legal_delta = "batch" in features, "legal_delta" in features
        self.cursor, self.view = "cursor" in features, "view" in features
        self.summaries = "summaries" in features
        self.presence = "presence" in features
        self.legal_changed = "legal_changed" in features
        self.lean_events = "lean_events" in features
        self.legal_recall = "legal_recall" in features
        self.batch_head = "batch_head" in features
        if hello.token is None:
            self.welcomed = True
            self.send(msg.Welcome(protocol=self.protocol, server=__version__, session=self.id,
                                  limits=limits, features=features))
            return
        if is_campaign_link(hello.token):
            await self._campaign_hello(hello, features, spectator_url)
            return
        authed = await self.server.authenticate(hello.token)
        if isinstance(authed, str):
            self.error(ErrorCode.UNAUTHENTICATED, authed)
            return
        await self._join(hello, features, authed, spectator_url)

    async def _campaign_hello(self, hello: msg.Hello, features: list[str],
                              spectator_url: bool) -> None:
        """A campaign link (R113): the GM's watches the campaign; a player's joins the
        encounter its character is in, or watches its part of the campaign until one
        begins."""
        assert hello.token is not None and self.protocol is not None
        if spectator_url or hello.replay is not None:
            self.error(ErrorCode.FORBIDDEN, "a campaign link neither rides in a URL nor "
                       "replays: use an encounter's link")
            return
        campaigns = self.server.campaigns
        found = await campaigns.authenticate(hello.token)
        if isinstance(found, str):
            self.error(ErrorCode.UNAUTHENTICATED, found)
            return
        state, seat = found
        self.campaign_seat = seat
        state = await campaigns.follow(self, seat, state)
        token = campaigns.encounter_token(state, seat) if seat.role == "player" else None
        if token is not None:
            authed = await self.server.authenticate(token)
            if not isinstance(authed, str):
                await self._join(hello, features, authed, False, seat)
                return
            seat.encounter = None  # (its encounter is gone from the store)
        self.welcomed = self.settled = True
        self.send(msg.Welcome(
            protocol=self.protocol, server=__version__, session=self.id, role=seat.role,
            token_id=seat.token_id, limits=self.server.limits, features=features,
            campaign=seat.campaign, characters=sorted(seat.characters)))
        self.send(campaigns.view(state, seat))

    async def _join(self, hello: msg.Hello, features: list[str], authed: tuple[Room, Actor],
                    spectator_url: bool, seat: Seat | None = None) -> None:
        assert self.protocol is not None
        room, actor = authed
        try:
            if spectator_url and actor.role != "spectator":
                self.error(ErrorCode.FORBIDDEN, "only spectator tokens may ride in a URL")
                return
            if hello.replay is not None:  # (a replay reads the log: the budget of reads)
                refused = self.server.read_budget.charge(f"{room.id}:{actor.token_id}",
                                                         self.address, room.version)
                if refused is not None:
                    refusal = budget_refusal(refused, "history pages")
                    self.error(refusal.code, refusal.message, details=refusal.details)
                    return
            since, digest = hello.since, hello.digest
            if hello.cursor is not None:
                try:
                    since, digest = room.cursors.open(hello.cursor)
                except CursorError as exc:
                    if seat is None:
                        self.error(ErrorCode.INVALID_PAYLOAD, f"hello.cursor: {exc}: resume "
                                   "from a cursor this encounter gave, or say hello without "
                                   "one")
                        return
                    # a campaign link moved on to another encounter: a fresh start there
                    since, digest = None, None
            if seat is not None and since is not None and digest is None:
                since = None  # (a seq of another encounter would be taken for this one's)
            self.actor = actor
            self.room = room
            self.welcomed = self.settled = True
            self.send(msg.Welcome(
                protocol=self.protocol, server=__version__, session=self.id, role=actor.role,
                encounter=room.id, token_id=actor.token_id, combatants=sorted(actor.combatants),
                scopes=sorted(actor.scopes),  # type: ignore[arg-type]
                limits=self.server.limits,
                features=features,
                campaign=msgspec.UNSET if seat is None else seat.campaign,
                characters=msgspec.UNSET if seat is None else sorted(seat.characters),
            ))
            if hello.replay is not None:  # it watches the log, not the live encounter
                self.replaying = True
                room.holders += 1  # (followed while it plays: a revoke or expiry closes it)
                self._replay = asyncio.get_running_loop().create_task(
                    self._play(room, actor, hello.replay))
                return
            await self.server.attach(self, room, since, digest)
        finally:
            # joined (or given up): the room goes with its last connection from now on
            self.server.rooms.release(room)

    async def _play(self, room: Room, actor: Actor, asked: msg.Replay) -> None:
        """A replay (``server.replay``), the room held for it while it plays."""
        try:
            await replay.play(self, room, actor, asked)
        finally:
            self.server.rooms.release(room)


#: ``since`` in a URL: ASCII digits only (``str.isdigit`` also takes "²" and "٣"), and few
#: enough of them for a seq.
_SINCE = re.compile(r"[0-9]{1,18}")
_CURSOR = re.compile(rf"[A-Za-z0-9_-]{{{CURSOR_LENGTH}}}")


def _query_token(ws: ServerConnection) -> tuple[
        str | None, int | None, str | None, str | None, str | None, list[str]]:
    """A spectator token (with ``since``, ``digest`` or ``cursor``, and ``features``) from the
    URL, ``/ws?spectate=<token>&since=<seq>&digest=<digest>&features=batch,legal_delta`` or
    ``/ws?spectate=<token>&cursor=<cursor>&features=cursor``, and what is wrong with them, if
    anything (a ``since`` that is not a seq, a ``cursor`` that is not one)."""
    request = ws.request
    if request is None:
        return None, None, None, None, None, []
    query = parse_qs(urlsplit(request.path).query)
    token = query.get("spectate", [None])[0]
    since = query.get("since", [None])[0]
    raw_digest = query.get("digest", [""])[0]
    digest = raw_digest if 0 < len(raw_digest) <= 40 else None
    cursor = query.get("cursor", [None])[0]
    features = [f for f in query.get("features", [""])[0][:200].split(",") if f in msg.FEATURES]
    if cursor is not None:
        if since is not None or digest is not None:
            return token, None, None, None, "resume from a cursor or from since and digest, " \
                "not both", features
        if not _CURSOR.fullmatch(cursor):
            return token, None, None, None, f"cursor in the URL must be {CURSOR_LENGTH} " \
                "characters of URL-safe base64, as the server gave it", features
        return token, None, None, cursor, None, features
    if since is None:
        return token, None, digest, None, None, features
    if _SINCE.fullmatch(since):
        return token, int(since), digest, None, None, features
    return token, None, digest, None, "since in the URL must be a seq: ASCII digits 0-9, at " \
        "most 18 of them", features


def _query_replay(ws: ServerConnection) -> tuple[msg.Replay | None, str | None]:
    """A replay asked for in a spectator link (``&replay=<speed>&from_round=<round>``), and
    what is wrong with it, if anything."""
    request = ws.request
    query = parse_qs(urlsplit(request.path).query) if request is not None else {}
    speed, from_round = query.get("replay", [None])[0], query.get("from_round", [None])[0]
    if speed is None:
        return None, None if from_round is None else "from_round in the URL needs replay"
    try:
        return msgspec.convert({"speed": float(speed), "from_round": int(from_round or 0)},
                               msg.Replay), None
    except (ValueError, msgspec.ValidationError) as exc:
        return None, f"replay in the URL: a speed (above 0, at most 1000) and from_round a " \
            f"round (0 or more): {exc}"


# A JSON string (escapes included) or one bracket: what the depth of a message depends on.
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def nested_deeper(raw: str, limit: int) -> bool:
    """Whether the JSON text ``raw`` nests objects and arrays more than ``limit`` levels deep
    (checked before decoding, which would recurse that deep). Messages with few brackets, as
    most are, are let through on a count of them."""
    if raw.count("{") + raw.count("[") <= limit:
        return False
    depth = 0
    for m in _STRUCTURE.finditer(raw):
        c = m.group()
        if c == "{" or c == "[":
            depth += 1
            if depth > limit:
                return True
        elif c == "}" or c == "]":
            depth -= 1
    return False


def _peek_id(raw: str | bytes) -> str | None:
    """The ``id`` of a message that failed validation, if it can be read, for the error."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            data = json.loads(raw)  # (a number past a double, say)
        except (ValueError, RecursionError):
            return None
    if isinstance(data, dict) and isinstance(data.get("id"), str) and len(data["id"]) <= 64:
        return str(data["id"])
    return None


_CLIENT_CLASSES = {str(c.__struct_config__.tag): c for c in msg.AnyClientMessage.__args__}


def _classify(raw: str | bytes, exc: msgspec.ValidationError) -> tuple[ErrorCode, str]:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:  # (orjson refuses a number past a double, 1e999)
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            data = None
    if not isinstance(data, dict):
        return ErrorCode.INVALID_PAYLOAD, "a message is a JSON object"
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in msg.CLIENT_TYPES:
        shown = repr(kind) if isinstance(kind, str | None) else f"of JSON type {_json_type(kind)}"
        return ErrorCode.UNKNOWN_TYPE, f"unknown message type {shown[:80]}"
    return ErrorCode.INVALID_PAYLOAD, command_refusal(str(exc), _CLIENT_CLASSES[kind], kind)




def _json_type(value: object) -> str:
    return {dict: "object", list: "array", bool: "boolean", int: "number",
            float: "number"}.get(type(value), type(value).__name__)
