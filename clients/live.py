"""A seat at the table: one credential's connection that reconnects by itself.

:class:`Seat` asks for the ``batch``, ``legal_delta``, ``cursor``, ``view`` and ``summaries``
features (``SEAT_FEATURES``) and holds what the server keeps for it: the state (the snapshot's,
with every ``view`` patch applied by :class:`~clients.client.Client`; a patch that does not
apply fetches a fresh snapshot), read through a :class:`~clients.view.TableView`, the latest
``legal_actions``, and the log: each event's ``summary`` as a :class:`~clients.view.LogLine`,
filled from ``get_history`` (the last ``HISTORY`` events) when it joins or resumes, so a
restarted client shows the log it had. When the connection drops it reconnects (with a
backoff) and says ``hello`` with the last ``cursor`` it holds (``since`` and ``digest``
without the ``cursor`` feature) and the state it holds, so it gets exactly the events it
missed and one patch, or a snapshot when the server's log is no longer the one it saw. A
command whose answer did not come is sent again with the same id on the next connection, so it
happens once. Used by the terminal client and by the bots.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
import urllib.request
import uuid
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from websockets.exceptions import WebSocketException

from clients.client import REFERENCE_FEATURES, Client, CommandError
from clients.view import LogLine, TableView, log_line

log = logging.getLogger("stablemaster.seat")

Message = dict[str, Any]

#: What a seat asks for in ``hello``: the reference clients' features.
SEAT_FEATURES: tuple[str, ...] = REFERENCE_FEATURES
#: The events after which the ``turn_id`` changes (``legal_changed``: no legal actions say so
#: unless they change too).
TURN_EVENTS = frozenset({"turn_started", "readied_action_triggered", "interrupt_ended",
                         "round_started"})
#: How many of the last events a seat reads back (``get_history``) when it joins or resumes.
HISTORY = 200
#: How many log lines a seat keeps.
LOG_LINES = 500

#: Close codes after which reconnecting with the same credential cannot help.
FINAL_CLOSE_CODES = {1002: "protocol version refused", 4001: "credential revoked",
                     4003: "the encounter no longer exists"}


def parse_link(link: str) -> tuple[str, str | None]:
    """The websocket URL and token of a table link (``http://host:port/table/#token=…``), a
    spectator link (``…/watch?spectate=…``) or a plain ``ws://host:port/ws`` URL."""
    parts = urlsplit(link)
    query = {**parse_qs(parts.query), **parse_qs(parts.fragment)}
    tokens = query.get("token") or query.get("spectate") or []
    token = tokens[0] if tokens else None
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}/ws", token


def rulesets_url(ws_url: str) -> str:
    """The server's list of its rulesets (``/table/rulesets.json``), beside its websocket URL."""
    parts = urlsplit(ws_url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, "/table/rulesets.json", "", ""))


async def vitals_labels(ws_url: str) -> dict[str, str]:
    """Each ruleset's word for fatigue points, as the server lists them ({} when it cannot be
    asked: the views then say "fatigue")."""
    def get() -> Any:
        with urllib.request.urlopen(rulesets_url(ws_url), timeout=5) as reply:
            return json.loads(reply.read())

    try:
        listed = (await asyncio.to_thread(get))["rulesets"]
        return {r["name"]: r["vitals"] for r in listed if isinstance(r.get("vitals"), str)}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


class Seat:
    #: The connection it opens (a test may give a seat one that changes what it receives).
    client_class: type[Client] = Client

    def __init__(self, url: str, token: str, *, client_name: str = "stablemaster-python",
                 features: Sequence[str] = SEAT_FEATURES,
                 on_lines: Callable[[Seat, list[LogLine]], None] | None = None,
                 on_status: Callable[[Seat, str], None] | None = None,
                 on_history: Callable[[Seat, list[LogLine]], None] | None = None) -> None:
        self.url, self.token, self.client_name = url, token, client_name
        self.features = tuple(features)
        #: the state the server keeps for this credential, read-only
        self.view = TableView()
        #: the log: each event's summary, the last ``HISTORY`` read back on joining, then live
        self.log: list[LogLine] = []
        self.legal: list[Message] = []
        #: The ``turn_id`` of the last ``legal_actions``: sent as ``expect_turn`` with turn
        #: actions, so that one meant for a turn that has passed is refused (``stale``).
        self.turn_id: str | None = None
        self.welcome: Message | None = None
        #: counts legal_actions frames (and, with ``legal_changed``, the turns that begin,
        #: are interrupted or resume: when ``turn_id`` would change)
        self.generation = 0
        self.fatal: str | None = None  # why the seat stopped for good
        self.client: Client | None = None
        #: the position held, to resume from: the last cursor (with the ``cursor`` feature),
        #: or the last seq and its digest
        self.cursor: str | None = None
        self.seq = 0
        self.digest: str | None = None
        #: why the last snapshot came (``join``, ``resume_gap``, ``resume_ahead``, ``rewound``,
        #: ``asked``)
        self.snapshot_reason: str | None = None
        self.on_lines, self.on_status, self.on_history = on_lines, on_status, on_history
        self._online = asyncio.Event()
        self._changed = asyncio.Condition()
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:8]
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        #: the lines that came live since ``get_history`` was sent (None: no page awaited)
        self._since_asked: list[LogLine] | None = None
        #: the server's clock minus this machine's, in ms (from the events' ``ts``)
        self._offset: float | None = None
        #: a campaign link's (R113): the campaign as it sees it (the ``state`` of the last
        #: ``campaign`` message), shown while its character is in no encounter
        self.campaign: Message | None = None
        self.on_campaign: Callable[[Seat, Message], None] | None = None
        self._moved = False

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Seat:
        self._task = asyncio.get_running_loop().create_task(self.run())
        return self

    async def stop(self) -> None:
        self._stopping = True
        if self.client is not None:
            await self.client.close()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    @property
    def online(self) -> bool:
        return self._online.is_set()

    @property
    def role(self) -> str | None:
        return self.welcome.get("role") if self.welcome else None

    @property
    def controls(self) -> list[str]:
        return list(self.welcome.get("combatants", [])) if self.welcome else []

    def server_now(self) -> float:
        """The server's clock now, in ms since the epoch: this machine's, corrected by the
        ``ts`` of the events received (an event is never received before the server wrote
        it, so the largest difference seen is the closest)."""
        return time.time() * 1000 + (self._offset or 0.0)

    async def wait_online(self, timeout: float = 10) -> None:
        await asyncio.wait_for(self._online.wait(), timeout)
        if self.fatal:
            raise ConnectionError(self.fatal)

    async def run(self) -> None:
        backoff = 0.2
        if not self.view.vitals_labels:
            self.view.vitals_labels = await vitals_labels(self.url)
        try:
            while not self._stopping:
                try:
                    client = await self.client_class.open(self.url)
                except (OSError, WebSocketException, TimeoutError) as exc:
                    self._status(f"offline: {exc}; retrying in {backoff:.1f} s")
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
                await self._session(client)
                if self.fatal or self._stopping:
                    break
                self._status(f"offline; reconnecting in {backoff:.1f} s")
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
        finally:
            self._online.set()  # wake waiters: fatal says why
            async with self._changed:
                self._changed.notify_all()

    def _resume_fields(self) -> dict[str, Any]:
        """Where to resume from (nothing: join afresh, with a snapshot)."""
        if not self.view.state:
            return {}
        if "cursor" in self.features:
            return {"cursor": self.cursor} if self.cursor else {}
        return {"since": self.seq, "digest": self.digest} if self.seq else {}

    async def _session(self, client: Client) -> None:
        resume = self._resume_fields()
        if resume:  # the position held, and the state held there (patched on)
            client.last_cursor, client.last_seq, client.last_digest = (
                self.cursor, self.seq, self.digest)
            if "view" in self.features:
                client.state = self.view.state
        try:
            await client.hello(self.token, features=self.features, **resume)
        except CommandError as err:
            self.fatal = f"{err.code}: {err.reply.get('message')}"
            self._status(f"refused: {self.fatal}")
            await client.close()
            return
        except (ConnectionError, TimeoutError, WebSocketException):
            await client.close()
            return
        self.client = client
        self._offset = None
        self._since_asked = None
        await self._ask_history(client)
        self._online.set()
        self._status("live")
        index = 0
        try:
            while True:
                message = await client.wait_for(lambda _m: True, timeout=None, start=index)
                index += 1
                await self._handle(message)
        except (ConnectionError, WebSocketException):
            pass
        finally:
            self._online.clear()
            self.client = None
            code = client.ws.close_code
            if code in FINAL_CLOSE_CODES:
                self.fatal = FINAL_CLOSE_CODES[code]
                self._status(f"closed: {self.fatal}")
            await client.close()

    async def _ask_history(self, client: Client) -> None:
        """Read back the last events (the ``history`` page lands among the messages); the lines
        that come meanwhile are kept apart, to be put after it."""
        if self._since_asked is not None:
            return
        self._since_asked = []

        def answered(future: asyncio.Future[Message]) -> None:
            if future.cancelled() or future.exception() or future.result()["type"] == "error":
                self._since_asked = None  # no page comes: the log stays as it is

        with contextlib.suppress(ConnectionError, WebSocketException):
            future = await client.send_command("get_history", limit=HISTORY)
            future.add_done_callback(answered)

    def _hold(self, client: Client) -> None:
        """Take the state and the position the connection holds (its messages are read ahead
        of the one handled: the state and the position are of the same moment)."""
        if client.state is not None:
            self.view.state = client.state
        self.cursor = client.last_cursor or self.cursor
        self.seq, self.digest = client.last_seq, client.last_digest

    async def _handle(self, message: Message) -> None:
        client = self.client
        if client is not None:
            self._hold(client)
        kind = message.get("type")
        if kind == "welcome":
            self.welcome = message
        elif kind == "snapshot":
            self.snapshot_reason = message.get("reason")
            if self._moved:
                self._moved = False
                self._status(f"joined {self.view.name!r}")
            if self.snapshot_reason in ("rewound", "resume_ahead"):
                self._status("the server went back to an earlier point of the encounter: "
                             "what came after it is undone")
            if self.snapshot_reason in ("rewound", "resume_ahead", "resume_gap") \
                    and client is not None:
                await self._ask_history(client)
        elif kind == "event":
            if message["event"].get("kind") in TURN_EVENTS and \
                    "legal_changed" in (self.welcome or {}).get("features", ()):
                # (legal actions come only when they change: a new turn is a change all the
                # same for whoever waits for one, as a bot does after a refused move)
                self.generation += 1
            if isinstance(message.get("ts"), int):
                offset = message["ts"] - time.time() * 1000
                self._offset = offset if self._offset is None else max(self._offset, offset)
            line = log_line(message)
            self._add([line])
            if self._since_asked is not None:
                self._since_asked.append(line)
            if self.on_lines:
                self.on_lines(self, [line])
        elif kind == "history" and self._since_asked is not None:
            self._history([log_line(m) for m in message.get("events") or []])
        elif kind == "legal_actions":
            self.legal = message["actions"]
            self.turn_id = message.get("turn_id")
            self.generation += 1
        elif kind == "goodbye":
            self._status(f"server says goodbye: {message.get('reason')}")
        elif kind == "campaign":
            self.campaign = message["state"]
            if self.on_campaign:
                self.on_campaign(self, message["state"])
        elif kind == "moved":  # a campaign link: its character is in another encounter now
            self._status("the GM began another encounter: joining it")
            self._moved = True
            self.view = TableView(vitals_labels=self.view.vitals_labels)
            self.log, self.legal, self.turn_id = [], [], None
            self.cursor, self.seq, self.digest = None, 0, None
        async with self._changed:
            self._changed.notify_all()

    def _add(self, lines: list[LogLine]) -> None:
        self.log += lines
        del self.log[:-LOG_LINES]

    def _history(self, lines: list[LogLine]) -> None:
        """The log is the server's page, then what came live after it was asked for."""
        known = {line.at for line in self.log}
        paged = {line.at for line in lines}
        later = [line for line in self._since_asked or [] if line.at not in paged]
        self._since_asked = None
        self.log = []
        self._add([*lines, *later])
        new = [line for line in lines if line.at not in known]
        if new and self.on_history:
            self.on_history(self, new)

    def _status(self, text: str) -> None:
        log.debug("%s", text)
        if self.on_status:
            self.on_status(self, text)

    # -- waiting and commands ----------------------------------------------------------------

    async def wait_change(self, generation: int, timeout: float | None = None) -> None:
        """Until a ``legal_actions`` frame newer than ``generation`` arrives (or, with
        ``legal_changed``, a turn begins, is interrupted or resumes), the encounter ends (a seat
        whose legal actions stay empty gets no new frame for it), or the seat stops."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(
                lambda: self.generation != generation or self.fatal is not None
                or self.view.ended or (self._task is not None and self._task.done())),
                timeout)

    async def wait_until(self, predicate: Callable[[], bool], timeout: float | None = 10) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout)

    async def command(self, type_: str, *, id: str | None = None, timeout: float = 30,
                      **fields: Any) -> Message:
        """Send a command and return its ``ack`` (``CommandError`` for an ``error``). Sent again
        with the same id after a reconnect, so it takes effect once."""
        cid = id or (str(uuid.uuid4()) if type_ == "create_encounter"
                     else f"{self._prefix}-{next(self._ids)}")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"{type_} {cid}: no answer")
            await self.wait_online(left)
            client = self.client
            if client is None:
                await asyncio.sleep(0.05)
                continue
            try:
                reply = await client.request({"type": type_, "id": cid, **fields},
                                             timeout=min(left, 10))
            except (ConnectionError, TimeoutError, WebSocketException):
                await asyncio.sleep(0.05)
                continue
            if reply["type"] == "error":
                raise CommandError(reply)
            return reply

    async def act(self, combatant: str, action: str, **args: Any) -> Message:
        """Take a turn action, for the turn of the last ``legal_actions`` (``stale`` if the
        turn has moved on since)."""
        return await self.command("act", combatant=combatant, action=action, args=args,
                                  **self.turn_fields())

    def turn_fields(self) -> dict[str, Any]:
        """``expect_turn`` for a command meant for the current turn (empty until known)."""
        return {} if self.turn_id is None else {"expect_turn": self.turn_id}

    async def close_connection(self) -> None:
        """Drop the current connection (the seat reconnects and resumes)."""
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.ws.close()
