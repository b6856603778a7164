"""A small asyncio client for the Stablemaster protocol.

    async with Client.connect("ws://127.0.0.1:8765/ws") as c:
        await c.hello(token)
        ack = await c.command("act", combatant="twilight", action="end_turn")

``command`` waits for the ``ack`` or ``error`` naming its id; ``error`` raises
:class:`CommandError`. Its ``timeout`` (10 s; ``None``: as long as it takes) bounds the wait
only: a command that timed out may have gone through (the ack of a command that hands the turn
to a combatant behind the GM's screen waits for the GM), and sent again with the same ``id`` it
answers with its outcome (``duplicate``), so it never happens twice; :meth:`send_command`
does not wait at all. Every other message (events, snapshots, legal actions) is kept in
``messages`` and can be awaited: :meth:`wait_for` looks at every message kept from ``start``
(0: the first), :meth:`wait_next` at those that arrive after the call only (the next
``legal_actions``, not one of a turn already over).

``hello`` asks for the ``batch`` and ``legal_delta`` features (``FEATURES``; pass
``features=[]`` for one websocket message per server message and full lists): a ``batch`` is
unwrapped into ``messages`` in order, and a ``legal_actions_delta`` is applied to the list held
and kept as the ``legal_actions`` message it stands for (the same fields, ``actions`` in
full). ``frames`` counts the websocket messages received, ``received_bytes`` their bytes, and
``wire`` (when ``keep_wire`` is set) keeps them as they came. ``last_seq`` is the highest event seq
received and ``last_digest`` its digest, for resuming (``hello(token, since=c.last_seq,
digest=c.last_digest)``). With the ``cursor`` feature (``features=[*FEATURES, "cursor"]``)
there are no seqs: ``last_cursor`` is the cursor of the last event, snapshot, legal actions or
ack received, for resuming (``hello(token, cursor=c.last_cursor)``), and ``cursors`` lists
every cursor received, in order.

With the ``view`` feature (``features=[*FEATURES, "view"]``) ``state`` is the encounter as
this connection may see it, kept by the server: the last snapshot's ``state`` with every
``view`` patch since applied (RFC 6902, with ``jsonpatch``); a patch that does not apply
counts in ``view_mismatches`` and asks for a fresh snapshot (``get_snapshot``). To resume, hand
the new connection the state held (``state=old.state``) with the cursor.

``Client.observers`` are called with ``(client, command, reply)`` once each command has its
answer, whichever client sent it: for logging, or to check commands (the test suite checks
every ``act`` it sends against the published JSON Schemas).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import uuid
from collections.abc import Callable
from types import TracebackType
from typing import Any, ClassVar

import jsonpatch
import orjson
from websockets.asyncio.client import ClientConnection, connect

from clients.view import DeltaMismatch, apply_legal_delta, recall_after

Message = dict[str, Any]

#: What ``hello`` asks for unless told otherwise: one websocket message per command, legal
#: actions as deltas.
FEATURES: tuple[str, ...] = ("batch", "legal_delta")
#: What the reference clients ask for: the JavaScript package's ``DEFAULT_FEATURES``
#: (``clients/js/src/client.js``, held equal by ``tests/test_features.py``), a seat of the
#: terminal client and the bots (``clients.live``), and the benchmark's clients by default.
REFERENCE_FEATURES: tuple[str, ...] = ("batch", "legal_delta", "cursor", "view", "summaries",
                                       "legal_changed", "batch_head", "legal_recall",
                                       "lean_events")


#: The messages that may leave out ``encounter`` (and a batch may say the ``cursor`` of).
_HEADED = frozenset({"event", "view", "legal_actions", "legal_actions_delta"})


def whole_message(m: Message, frame: Message, encounter: str | None) -> Message:
    """``m`` whole (``batch_head``): what its batch (``frame``; ``m`` itself when it came
    alone) says for it, an event's ``ts`` and the ``cursor`` of a message without a position
    of its own, the connection's ``encounter`` (its welcome's), and an ack's defaults
    (``result`` empty, ``duplicate`` false) put back where it leaves them out. The JavaScript
    package's ``wholeMessage`` does the same."""
    kind = m.get("type")
    in_batch = frame is not m
    out = m
    if encounter is not None and kind in _HEADED and "encounter" not in m:
        out = {**out, "encounter": encounter}
    if in_batch and kind == "event" and "ts" not in m and frame.get("ts") is not None:
        out = {**out, "ts": frame["ts"]}
    if in_batch and frame.get("cursor") is not None and (kind in _HEADED or kind == "ack") \
            and "cursor" not in m and "seq" not in m:
        out = {**out, "cursor": frame["cursor"]}
    if kind == "event" and isinstance(m.get("summary"), str):
        out = {**out, "summary": {"text": m["summary"]}}  # (lean_events: its text alone)
    if kind == "ack" and ("result" not in m or "duplicate" not in m):
        out = {"result": {}, "duplicate": False, **out}  # (the defaults, left out)
    return out


def unbatch(frame: Message, encounter: str | None = None) -> list[Message]:
    """The messages of a websocket message, each whole (:func:`whole_message`)."""
    if frame.get("type") == "batch":
        return [whole_message(m, frame, encounter) for m in frame["messages"]]
    return [whole_message(frame, frame, encounter)]


class CommandError(Exception):
    def __init__(self, reply: Message) -> None:
        super().__init__(f"{reply.get('code')}: {reply.get('message')}")
        self.reply = reply
        self.code: str = reply.get("code", "")


class Client:
    #: Called with (client, command, reply) after each command's ``ack`` or ``error``.
    observers: ClassVar[list[Callable[[Client, Message, Message], None]]] = []
    #: keep every websocket message received, as it came, in ``wire``
    keep_wire = False

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[Message] = []
        self.welcome: Message | None = None
        self.last_seq: int = 0
        self.last_digest: str | None = None
        self.snapshot: Message | None = None
        self.legal: list[Message] = []
        self.turn_id: str | None = None  # of the last ``legal_actions``, for ``expect_turn``
        self.legal_seq: int | None = None  # of the last ``legal_actions`` (or delta)
        #: with the ``cursor`` feature: the last cursor received, every one in order, and the
        #: cursor of the last ``legal_actions`` (or delta)
        self.last_cursor: str | None = None
        self.cursors: list[str] = []
        self.legal_cursor: str | None = None
        #: with ``legal_recall``: what the connection recalls of each combatant's entries
        self.recall: dict[str, list[Message]] = {}
        #: websocket messages received, their bytes, and (with ``keep_wire``) the messages
        self.frames = 0
        self.received_bytes = 0
        self.wire: list[Message] = []
        #: deltas that did not apply to the list held (the full list was asked for again)
        self.delta_mismatches = 0
        #: with the ``view`` feature: the state held, and the patches that did not apply to it
        self.state: dict[str, Any] | None = None
        self.view_mismatches = 0
        self._ids = itertools.count(1)
        # Command ids are scoped to a credential, which several connections may share.
        self._prefix = uuid.uuid4().hex[:8]
        self._waiting: dict[str, asyncio.Future[Message]] = {}
        self._changed = asyncio.Condition()
        self._refetch: asyncio.Task[None] | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.closed = asyncio.get_running_loop().create_future()

    @classmethod
    async def open(cls, url: str, **kwargs: Any) -> Client:
        ws = await connect(url, compression=None, max_size=2**22, **kwargs)
        return cls(ws)

    @classmethod
    def connect(cls, url: str, **kwargs: Any) -> _Connecting:
        return _Connecting(url, kwargs)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.frames += 1
                self.received_bytes += len(raw)
                frame = orjson.loads(raw)
                if self.keep_wire:
                    self.wire.append(frame)
                inner = frame["messages"] if frame.get("type") == "batch" else [frame]
                for message in inner:
                    # (the welcome may come first in the batch)
                    self._take(whole_message(message, frame,
                                             (self.welcome or {}).get("encounter")))
                async with self._changed:
                    self._changed.notify_all()
        except Exception as exc:  # connection closed: wake everyone waiting
            if not self.closed.done():
                self.closed.set_result(exc)
        finally:
            if not self.closed.done():
                self.closed.set_result(None)
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ConnectionError("connection closed"))
            async with self._changed:
                self._changed.notify_all()

    def _take(self, message: Message) -> None:
        kind = message.get("type")
        cursor = message.get("cursor")
        if isinstance(cursor, str):
            self.last_cursor = cursor
            self.cursors.append(cursor)
        if kind in ("ack", "error") and message.get("id") in self._waiting:
            waiting = self._waiting.pop(message["id"])
            if not waiting.done():  # (one given up on, by a timeout, is kept as it came)
                waiting.set_result(message)
                return
        if kind == "event":
            if message.get("seq", 0) > self.last_seq:
                self.last_seq, self.last_digest = message["seq"], message.get("digest")
        elif kind == "view":
            try:
                if self.state is None:
                    raise jsonpatch.JsonPatchException("no state to patch")
                jsonpatch.apply_patch(self.state, message["patch"], in_place=True)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
                self.view_mismatches += 1
                self._refetch = asyncio.get_running_loop().create_task(self._ask_snapshot())
        elif kind == "snapshot":
            self.snapshot = message
            self.state = orjson.loads(orjson.dumps(message["state"]))
            if "seq" in message:
                self.last_seq, self.last_digest = message["seq"], message.get("digest")
        elif kind == "legal_actions_delta":
            try:
                actions = apply_legal_delta(
                    self.legal, message,
                    self.legal_cursor if "base_cursor" in message else self.legal_seq,
                    self.recall)
            except DeltaMismatch:
                self.delta_mismatches += 1
                self._refetch = asyncio.get_running_loop().create_task(self._ask_full_list())
                return
            self.recall = recall_after(self.legal, actions, self.recall)
            position = {"cursor": cursor} if "cursor" in message else {"seq": message["seq"]}
            message = {"type": "legal_actions", "encounter": message["encounter"], **position,
                       "turn_id": message["turn_id"], "actions": actions}
            kind = "legal_actions"
        elif kind == "legal_actions":
            self.recall = {}  # (a full list recalls nothing)
        if kind == "legal_actions":
            self.legal = message["actions"]
            self.turn_id = message.get("turn_id")
            self.legal_seq = message.get("seq")
            self.legal_cursor = message.get("cursor")
        elif kind == "welcome":
            self.welcome = message
        self.messages.append(message)

    async def _ask_snapshot(self) -> None:
        message = {"type": "get_snapshot", "id": f"{self._prefix}-snapshot-{next(self._ids)}"}
        with contextlib.suppress(Exception):
            await self.ws.send(orjson.dumps(message).decode())

    async def _ask_full_list(self) -> None:
        message = {"type": "get_legal_actions", "id": f"{self._prefix}-legal-{next(self._ids)}"}
        # (closed: the next hello starts again from a full list)
        with contextlib.suppress(Exception):
            await self.ws.send(orjson.dumps(message).decode())

    @property
    def unanswered(self) -> int:
        """Commands sent whose ``ack`` or ``error`` has not come yet."""
        return len(self._waiting)

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def request(self, message: Message, timeout: float | None = 10) -> Message:
        """Send a message with an ``id`` and return the ``ack`` or ``error`` naming it, within
        ``timeout`` seconds (``None``: however long it takes); ``TimeoutError`` says only that
        the answer has not come (a late one is kept in ``messages``)."""
        fields = {k: v for k, v in message.items() if k not in ("type", "id")}
        future = await self.send_command(message["type"], id=message["id"], **fields)
        try:
            reply = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            if self._waiting.get(message["id"]) is future:
                del self._waiting[message["id"]]
            raise
        for observe in self.observers:
            observe(self, message, reply)
        return reply

    async def send_command(self, type_: str, *, id: str | None = None,
                           **fields: Any) -> asyncio.Future[Message]:
        """Send a command and return the future of its ``ack`` or ``error``, without waiting
        for it: an ack may wait for the GM (a command that hands the turn to a combatant
        behind the GM's screen is acknowledged when the table is told what follows)."""
        cid = id or f"{self._prefix}-{next(self._ids)}"
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        # (an answer that never comes fails with the connection: nobody need be told)
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._waiting[cid] = future
        await self.ws.send(orjson.dumps({"type": type_, "id": cid, **fields}).decode())
        return future

    async def command(self, type_: str, *, id: str | None = None, timeout: float | None = 10,
                      **fields: Any) -> Message:
        """Send a command and return its ``ack`` (``error``: :class:`CommandError`), waiting at
        most ``timeout`` seconds (``None``: however long it takes). Send a command that
        timed out again with the same ``id`` to learn its outcome."""
        cid = id or (str(uuid.uuid4()) if type_ in ("create_encounter", "create_campaign")
                     else f"{self._prefix}-{next(self._ids)}")
        reply = await self.request({"type": type_, "id": cid, **fields}, timeout)
        if reply["type"] == "error":
            raise CommandError(reply)
        return reply

    async def hello(self, token: str | None = None, since: int | None = None,
                    versions: list[int] | None = None, digest: str | None = None,
                    features: list[str] | tuple[str, ...] = FEATURES,
                    cursor: str | None = None,
                    replay: dict[str, Any] | None = None) -> Message:
        """Say hello; ``since`` and ``digest`` (the seq and digest of the last event or
        snapshot applied), or ``cursor`` (the last cursor received), resume; ``features`` are
        asked for (see the module); ``replay`` (``speed``, ``from_round``) watches the
        encounter played back instead."""
        message: Message = {"type": "hello", "versions": versions or [1]}
        if replay is not None:
            message["replay"] = replay
        if features:
            message["features"] = list(features)
        if token is not None:
            message["token"] = token
        if since is not None:
            message["since"] = since
            if digest is not None:
                message["digest"] = digest
        if cursor is not None:
            message["cursor"] = cursor
        start = len(self.messages)
        await self.ws.send(orjson.dumps(message).decode())
        reply = await self.wait_for(lambda m: m["type"] in ("welcome", "error"), start=start)
        if reply["type"] == "error":
            raise CommandError(reply)
        return reply

    async def wait_for(self, predicate: Callable[[Message], bool], timeout: float | None = 10,
                       start: int = 0, wire: bool = False) -> Message:
        """The first message from index ``start`` on that matches ``predicate`` (of ``wire``,
        the websocket messages as they came, when ``wire`` is set)."""
        source = self.wire if wire else self.messages

        async def scan() -> Message:
            index = start
            async with self._changed:
                while True:
                    while index < len(source):
                        if predicate(source[index]):
                            return source[index]
                        index += 1
                    if self.closed.done():
                        raise ConnectionError("connection closed")
                    await self._changed.wait()
        return await asyncio.wait_for(scan(), timeout)

    async def wait_next(self, predicate: Callable[[Message], bool],
                        timeout: float | None = 10) -> Message:
        """The first message arriving after this call that matches ``predicate``: none of
        those already kept (``wait_for(predicate, start=len(messages))``)."""
        return await self.wait_for(predicate, timeout, start=len(self.messages))

    async def wait_until(self, predicate: Callable[[], bool], timeout: float = 10) -> None:
        """Wait until ``predicate()`` holds, checked whenever a message arrives."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout)

    async def wait_seq(self, seq: int, timeout: float = 10) -> None:
        """Wait until events (or a snapshot) up to ``seq`` have arrived."""
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: self.last_seq >= seq or self.closed.done()),
                timeout)

    def events(self) -> list[Message]:
        return [m for m in self.messages if m["type"] == "event"]


class _Connecting:
    def __init__(self, url: str, kwargs: dict[str, Any]) -> None:
        self.url, self.kwargs = url, kwargs
        self.client: Client | None = None

    async def __aenter__(self) -> Client:
        self.client = await Client.open(self.url, **self.kwargs)
        return self.client

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self.client is not None:
            await self.client.close()
