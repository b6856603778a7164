"""A seat at the table: one credential's connection that reconnects by itself.

:class:`Seat` keeps a :class:`~clients.view.TableView` of what it received and the latest
``legal_actions``. When the connection drops it reconnects (with a backoff) and says ``hello``
with ``since`` set to the last seq it saw (and that event's ``digest``), so it gets exactly
the events it missed, or a snapshot when the server's log is no longer the one it saw. A command
whose answer did not come is sent again with the same id on the next connection, so it happens
once. Used by the terminal client and by the bots.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from websockets.exceptions import WebSocketException

from clients.client import Client, CommandError
from clients.view import LogLine, TableView

log = logging.getLogger("stablemaster.seat")

Message = dict[str, Any]

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
    def __init__(self, url: str, token: str, *, client_name: str = "stablemaster-python",
                 on_lines: Callable[[Seat, list[LogLine]], None] | None = None,
                 on_status: Callable[[Seat, str], None] | None = None) -> None:
        self.url, self.token, self.client_name = url, token, client_name
        self.view = TableView()
        self.legal: list[Message] = []
        #: The ``turn_id`` of the last ``legal_actions``: sent as ``expect_turn`` with turn
        #: actions, so that one meant for a turn that has passed is refused (``stale``).
        self.turn_id: str | None = None
        self.welcome: Message | None = None
        self.generation = 0  # counts legal_actions frames
        self.fatal: str | None = None  # why the seat stopped for good
        self.client: Client | None = None
        self.on_lines, self.on_status = on_lines, on_status
        self._online = asyncio.Event()
        self._changed = asyncio.Condition()
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:8]
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._fresh = False  # reconnect without since, for a new snapshot

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
                    client = await Client.open(self.url)
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

    async def _session(self, client: Client) -> None:
        since = None if self._fresh or self.view.seq == 0 else self.view.seq
        self._fresh = False
        try:
            await client.hello(self.token, since=since, digest=self.view.digest)
        except CommandError as err:
            self.fatal = f"{err.code}: {err.reply.get('message')}"
            self._status(f"refused: {self.fatal}")
            await client.close()
            return
        except (ConnectionError, TimeoutError, WebSocketException):
            await client.close()
            return
        self.client = client
        self._online.set()
        self._status("live")
        index = 0
        try:
            while True:
                message = await client.wait_for(lambda _m: True, timeout=None, start=index)
                index += 1
                await self._handle(message)
                if self.view.needs_snapshot:
                    self._fresh = True
                    await client.close()
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

    async def _handle(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "welcome":
            self.welcome = message
        elif kind in ("snapshot", "event"):
            lines = self.view.apply(message)
            if lines and self.on_lines:
                self.on_lines(self, lines)
        elif kind == "legal_actions":
            self.legal = message["actions"]
            self.turn_id = message.get("turn_id")
            self.generation += 1
        elif kind == "goodbye":
            self._status(f"server says goodbye: {message.get('reason')}")
        async with self._changed:
            self._changed.notify_all()

    def _status(self, text: str) -> None:
        log.debug("%s", text)
        if self.on_status:
            self.on_status(self, text)

    # -- waiting and commands ----------------------------------------------------------------

    async def wait_change(self, generation: int, timeout: float | None = None) -> None:
        """Until a ``legal_actions`` frame newer than ``generation`` arrives (or the seat
        stops)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(
                lambda: self.generation != generation or self.fatal is not None
                or (self._task is not None and self._task.done())), timeout)

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
