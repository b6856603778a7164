"""Rooms: the encounters this process serves, each with its folded state and its connections.

A room keeps its state current by folding every event it is offered, in seq order and exactly
once, whether the event was appended by this process (the command path) or by another (the
fan-out follower). Delivery to the room's connections happens in the same step, so every
connection sees every event it may see exactly once and in order. A gap in the offered seqs is
filled from Redis before anything after it is delivered.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
from redis.exceptions import RedisError

from encounter.actors import Actor
from encounter.fold import apply
from encounter.legal import allowed_chart_events, legal_actions
from encounter.state import EncounterState
from encounter.views import view_event
from protocol.events import Envelope, TokenRevoked
from protocol.messages import EventMessage, LegalAction
from server import metrics
from server.store import EventStore

if TYPE_CHECKING:
    from server.session import Session

log = logging.getLogger("stablemaster.rooms")

#: Recent events kept in memory per room, to resume a reconnecting client without Redis.
RING_SIZE = 64
#: Outcomes of commands carried out by this process, to answer a retried id without Redis
#: (a retry that reaches another process finds the outcome in Redis).
RECENT_OUTCOMES = 256

_encode = msgspec.json.Encoder()


def viewer_key(actor: Actor) -> tuple[bool, frozenset[str], frozenset[str]]:
    """Viewers with equal keys see the same events and the same legal actions."""
    return (actor.sees_all, actor.combatants, actor.scopes)


class Room:
    def __init__(self, encounter: str, state: EncounterState, store: EventStore) -> None:
        self.id = encounter
        self.state = state
        self.store = store
        self.sessions: set[Session] = set()
        self.ring: deque[Envelope] = deque(maxlen=RING_SIZE)
        self.recent: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.command_lock = asyncio.Lock()
        self._catchup_lock = asyncio.Lock()
        self._catchup_task: asyncio.Task[None] | None = None
        self._behind = False  # a gap was seen: read from Redis again before resting
        #: While a command of this process is being appended: the version it will reach. The
        #: activity follower leaves those events to the command, which offers them with the
        #: state it has already computed.
        self.appending_to: int | None = None
        #: Closes the connections of the next credential to expire, and when (ms).
        self._expiry: asyncio.TimerHandle | None = None
        self._expiry_at: float | None = None

    @property
    def version(self) -> int:
        return self.state.version

    # -- offering events ---------------------------------------------------------------------

    def offer(self, envelopes: Sequence[Envelope], state_after: EncounterState | None = None,
              remote: bool = False) -> None:
        """Fold and deliver ``envelopes``; skip those already seen; fill a gap from Redis.

        ``state_after`` is the state the decider computed for exactly these events (the command
        path), which saves folding them again.
        """
        fresh = [e for e in envelopes if e.seq > self.version]
        if not fresh:
            return
        if fresh[0].seq != self.version + 1:
            self._behind = True
            self.schedule_catchup()
            return
        if state_after is not None and state_after.version == fresh[-1].seq:
            self.state = state_after
        else:
            for envelope in fresh:
                apply(self.state, envelope)
        self.ring.extend(fresh)
        if remote:
            now = time.time() * 1000
            for envelope in fresh:
                metrics.FANOUT_LAG.observe(max(0.0, now - envelope.ts) / 1000)
        self._deliver(fresh)

    def remember_outcome(self, dedupe: str, outcome: dict[str, Any]) -> None:
        self.recent[dedupe] = outcome
        self.recent.move_to_end(dedupe)
        if len(self.recent) > RECENT_OUTCOMES:
            self.recent.popitem(last=False)

    def schedule_catchup(self) -> None:
        if self._catchup_task is None or self._catchup_task.done():
            self._catchup_task = asyncio.get_running_loop().create_task(self._catch_up_later())

    async def _catch_up_later(self) -> None:
        try:
            await self.catch_up()
        except (RedisError, OSError) as exc:  # the periodic sweep tries again
            log.warning("room %s could not catch up: %s", self.id, exc)

    async def catch_up(self) -> None:
        """Read from Redis whatever this room has not seen yet, and offer it; again if more
        arrived out of order meanwhile."""
        async with self._catchup_lock:
            while True:
                self._behind = False
                tail = await self.store.read(self.id, self.version)
                if tail:
                    self.offer(tail, remote=True)
                if not self._behind:
                    return

    # -- connections -------------------------------------------------------------------------

    def add_session(self, session: Session) -> None:
        """From now on ``session`` gets this room's events; when its credential expires, it is
        closed (4001)."""
        self.sessions.add(session)
        assert session.actor is not None
        grant = self.state.tokens.get(session.actor.token_id)
        if grant is not None and grant.expires_at is not None:
            self._watch_expiry(grant.expires_at)

    def close_credentials(self, token_ids: set[str], reason: str) -> None:
        """Close (4001) this room's connections of these credentials: revoked, or expired.
        Every process does this for its own connections, as it learns of it."""
        for session in list(self.sessions):
            if session.actor is not None and session.actor.token_id in token_ids:
                session.close_soon(4001, reason)

    def _watch_expiry(self, expires_at: float) -> None:
        if self._expiry_at is not None and self._expiry_at <= expires_at:
            return  # an earlier one is watched already; this one comes after it
        if self._expiry is not None:
            self._expiry.cancel()
        loop = asyncio.get_running_loop()
        delay = max(0.0, (expires_at - time.time() * 1000) / 1000)
        self._expiry_at = expires_at
        self._expiry = loop.call_later(delay, self._expire)

    def _expire(self) -> None:
        """Close the connections of every credential that has expired, and watch for the next
        one to expire (the expiry is in the credential's event, so every process does this on
        its own clock, after restarts too)."""
        self._expiry = self._expiry_at = None
        now = time.time() * 1000
        expired: set[str] = set()
        upcoming: list[int] = []
        for session in self.sessions:
            assert session.actor is not None
            grant = self.state.tokens.get(session.actor.token_id)
            if grant is None or grant.expires_at is None:
                continue
            if grant.expired(now):
                expired.add(grant.token_id)
            else:
                upcoming.append(grant.expires_at)
        if expired:
            log.info("closing connections of expired credentials %s", sorted(expired),
                     extra={"encounter": self.id})
            self.close_credentials(expired, "credential expired")
        if upcoming:
            self._watch_expiry(min(upcoming))

    def drop(self) -> None:
        """The room is no longer served here (its last connection left)."""
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = self._expiry_at = None

    # -- delivery ----------------------------------------------------------------------------

    def _deliver(self, envelopes: Sequence[Envelope]) -> None:
        if not self.sessions:
            return
        groups: dict[Any, list[Session]] = {}
        for session in self.sessions:
            assert session.actor is not None
            groups.setdefault(viewer_key(session.actor), []).append(session)
        revoked = {e.event.token_id for e in envelopes if isinstance(e.event, TokenRevoked)}
        allowed = allowed_chart_events(self.state) if not self.state.ended else set()
        shared: dict[object, list[LegalAction]] = {}
        encoded: dict[int, bytes] = {}
        delivered = 0
        for members in groups.values():
            actor = members[0].actor
            assert actor is not None
            frames = self.frames_for(envelopes, actor, encoded)
            legal = self.legal_frame(actor, allowed, shared)
            for session in members:
                for frame in frames:
                    session.enqueue(frame)
                delivered += len(frames)
                session.offer_legal(legal)
        metrics.EVENTS_DELIVERED.inc(delivered)
        if revoked:
            self.close_credentials(revoked, "credential revoked")

    def frames_for(self, envelopes: Iterable[Envelope], actor: Actor,
                   encoded: dict[int, bytes] | None = None) -> list[bytes]:
        """The ``event`` messages of ``envelopes`` that ``actor`` may see, as it may see them.
        ``encoded`` keeps the messages of events shown unchanged (the view is the event
        itself) across the viewers of one delivery, so each is encoded once."""
        cache = encoded if encoded is not None else {}
        frames = []
        for envelope in envelopes:
            event = view_event(envelope, actor)
            if event is None:
                continue
            if event is envelope.event:
                frame = cache.get(envelope.seq)
                if frame is None:
                    frame = cache[envelope.seq] = self._event_frame(envelope, event)
            else:
                frame = self._event_frame(envelope, event)
            frames.append(frame)
        return frames

    def _event_frame(self, envelope: Envelope, event: Any) -> bytes:
        return _encode.encode(EventMessage(encounter=self.id, seq=envelope.seq, ts=envelope.ts,
                                           event=event))

    def legal_frame(self, actor: Actor, allowed: set[str] | None = None,
                    shared: dict[object, list[LegalAction]] | None = None
                    ) -> tuple[bytes, bytes]:
        """The ``legal_actions`` message for ``actor``, and a key that changes only when the
        actions do (the message's ``seq`` alone does not make it worth sending)."""
        try:
            key = _encode.encode(legal_actions(self.state, actor, allowed, shared))
        except Exception:  # defence in depth: a state it cannot read must not stop delivery
            log.exception("legal actions of %s for %s failed", self.id, actor.token_id)
            key = b"[]"
        # the message around the encoded list, without encoding the list twice
        frame = b'{"type":"legal_actions","encounter":%b,"seq":%d,"actions":%b}' % (
            _encode.encode(self.id), self.version, key)
        return key, frame


class Rooms:
    """The rooms of this process, loaded on first use and dropped with their last session."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}

    def peek(self, encounter: str) -> Room | None:
        return self._rooms.get(encounter)

    def __iter__(self) -> Any:
        return iter(list(self._rooms.values()))

    def __len__(self) -> int:
        return len(self._rooms)

    async def get(self, encounter: str) -> Room | None:
        room = self._rooms.get(encounter)
        if room is not None:
            return room
        pending = self._loading.get(encounter)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[encounter] = future
        try:
            state = await self.store.load(encounter)
            room = None if state is None else Room(encounter, state, self.store)
            if room is not None:
                self._rooms[encounter] = room
                metrics.ROOMS.set(len(self._rooms))
            future.set_result(room)
            return room
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved
            raise
        finally:
            del self._loading[encounter]

    def leave(self, room: Room, session: Session) -> None:
        room.sessions.discard(session)
        if not room.sessions and self._rooms.get(room.id) is room:
            del self._rooms[room.id]
            room.drop()
            metrics.ROOMS.set(len(self._rooms))
