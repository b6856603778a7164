"""Rooms: the encounters this process serves, each with its folded state and its connections.

A room folds the events of its encounter and delivers them to its connections in the same
step, so every connection sees every event it may see exactly once and in order. Which events
it is given, in which order, and when it reads Redis (a gap, a log that went back, an encounter
no longer there) is its ``LogFollow``'s (``server.follow``): the command path and the fan-out
offer events through it.

A room also keeps the digest of its last event (``head``; see ``server.store.LogChain``). When
the log in Redis turns out not to be the one the room holds (Redis came back without the end of
the log, and perhaps grew again since), the room reloads from Redis and sends each of its
connections a snapshot (reason ``rewound``) instead of answering ``conflict`` or delivering a
rewritten seq as if nothing had happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import msgspec
from redis.exceptions import RedisError

from encounter.actors import Actor
from encounter.fold import apply
from encounter.legal import allowed_chart_events, legal_actions
from encounter.patches import Memo, Shown, follow, show
from encounter.screen import at_table, behind, table_sees, ts_for, waits_for_screen
from encounter.state import EncounterState, copy_state, turn_id
from encounter.views import may_see, view_event, view_state
from encounter.words import summarize
from protocol.brief import brief_event
from protocol.errors import ErrorCode
from protocol.events import CommandsUndone, Envelope, TokenRevoked
from protocol.messages import EventMessage, LegalAction, ServerMessage, Snapshot, View
from protocol.summary import Summary
from server import metrics
from server.cursor import Cursors
from server.follow import LogFollow, Renew
from server.store import Batch, Channels, EventStore, Loaded, Screen, channel
from server.timers import Fire, TimerWatch
from server.wire import Head, LegalFrame


class Member(Protocol):
    """What a room needs of a connection it serves (``server.session.Session`` is one)."""

    actor: Actor | None
    #: negotiated ``cursor``: positions as cursors, never seqs; ``view``: patches of the state;
    #: ``summaries``: each event with its words
    cursor: bool
    view: bool
    summaries: bool
    #: ``batch_head``: what the messages of a batch repeat (``encounter``, ``ts``) left to it
    batch_head: bool

    def send(self, message: ServerMessage) -> None: ...

    def enqueue(self, frame: bytes, head: Head | None = None) -> None: ...

    def error(self, code: ErrorCode, message: str, cid: str | None = None,
              details: dict[str, Any] | None = None) -> None: ...

    def offer_legal(self, legal: LegalFrame, force: bool = False) -> None: ...

    def acknowledge(self, cid: str, seq: int | None, cursor: str | None,
                    result: dict[str, Any], duplicate: bool, held: bool = False) -> None: ...

    def hold_reply(self) -> None: ...

    def release_reply(self, frame: bytes | None) -> None: ...

    @property
    def gone(self) -> bool:
        """The connection is closed, or closing."""
        ...

    def close_soon(self, code: int, reason: str, flush: bool = True) -> None: ...

log = logging.getLogger("stablemaster.rooms")

#: The close code of a connection whose encounter is no longer in Redis (``LogFollow.lose``).
CLOSE_LOST = 4003
#: The ``event`` messages of one delivery shown unchanged, by seq, framing and time shown
#: (``Room.frames_for``).
Encoded = dict[tuple[int, bool, bool, bool, bool, bool, int], bytes]

#: Recent events kept in memory per room, to resume a reconnecting client without Redis.
RING_SIZE = 64
#: Outcomes of commands carried out by this process, to answer a retried id without Redis
#: (a retry that reaches another process finds the outcome in Redis).
RECENT_OUTCOMES = 256

_encode = msgspec.json.Encoder()


#: How many cursors a room keeps sealed (``Room.seal``).
_SEALED_KEPT = 64


def _now_ms() -> int:
    return int(time.time() * 1000)


def viewer_key(actor: Actor) -> tuple[bool, frozenset[str], frozenset[str]]:
    """Viewers with equal keys see the same events and the same legal actions."""
    return (actor.sees_all, actor.combatants, actor.scopes)


class Room:
    def __init__(self, encounter: str, loaded: Loaded, store: EventStore,
                 screen: Screen) -> None:
        self.id = encounter
        self.state = loaded.state
        #: the digest of the last event folded into ``state``
        self.head = loaded.head
        self.store = store
        self.cursors = Cursors(store.chain.key, encounter)
        # The GM's screen (``encounter.screen``): what the table has been given. ``given``:
        # the seq up to which its connections were given the log (``state.told`` once
        # delivered); ``unreleased``: the events after it, with their digests; ``told_state``:
        # the state at ``state.told`` while the table has not been told everything;
        # ``table_digest``: the digest at ``state.table_seq``; ``held_acks``: the acks of the
        # table's commands waiting for ``told`` to move. (Set by ``_set_screen``, below.)
        self.given = 0
        self.unreleased: list[tuple[Envelope, str]] = []
        self.told_state: EncounterState | None = None
        self.table_digest = ""
        self.held_acks: list[tuple[Member, str, dict[str, Any], bool]] = []
        #: what each kind of viewer (``viewer_key``) with the ``view`` feature was last shown,
        #: and the per-combatant parts of their views, shared
        self.shown: dict[Any, Shown] = {}
        self.memo = Memo()
        self._table_digest_seq = 0
        #: the words of recent events shown unchanged, by seq (``summary_of``)
        self._said: dict[int, tuple[Envelope, Summary]] = {}
        #: the cursors sealed lately, by seq and digest: a delivery names the same few
        #: positions in every viewer's events, legal actions and view
        self._sealed: dict[tuple[int, str | None], str] = {}
        self._screen_task: asyncio.Task[None] | None = None
        #: resolved (and replaced) whenever ``told`` moves, for the commands that wait for it
        self._told_moved: asyncio.Future[None] | None = None
        self.sessions: set[Member] = set()
        #: callers of ``Rooms.get`` that have not released the room yet (a connection between
        #: its ``hello`` and joining): the room is not dropped while it has any
        self.holders = 0
        #: recent events: (envelope, its digest, the digest of the event before it)
        self.ring: deque[tuple[Envelope, str, str]] = deque(maxlen=RING_SIZE)
        self.recent: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.command_lock = asyncio.Lock()
        #: what this room is given of its log, in which order, and when it reads Redis
        #: (``server.follow``): the command path and the fan-out offer events through it
        self.following = LogFollow(self, store)
        #: Closes the connections of the next credential to expire, and when (ms).
        self._expiry: asyncio.TimerHandle | None = None
        self._expiry_at: float | None = None
        #: the running turn timer's next stage, watched on this process's clock (R102)
        self.timers: TimerWatch | None = None
        self._set_screen(screen)

    @property
    def version(self) -> int:
        return self.state.version

    @property
    def lost(self) -> bool:
        """The encounter is no longer in Redis (``LogFollow.lose``): no command is taken."""
        return self.following.lost

    @property
    def rewinds(self) -> int:
        """Times this room found the log in Redis not to be the one it held, and reloaded."""
        return self.following.rewinds

    # -- folding what the log gives (``server.follow``) --------------------------------------

    def take(self, fresh: Sequence[Envelope], digests: Sequence[str], prev: str,
             state_after: EncounterState | None, remote: bool) -> None:
        """Fold and deliver ``fresh``, the events right after this room's version, chained
        from ``prev`` (its head), as ``LogFollow.offer`` found them. ``state_after`` is the
        state the decider computed for exactly these events (the command path), which saves
        folding them again."""
        if state_after is not None and state_after.version == fresh[-1].seq:
            candidate: EncounterState | None = self.state  # (the decider worked on a copy)
            self.state = state_after
        else:
            candidate = self._fold(fresh)
        self._track_screen(candidate, fresh, digests)
        chained = prev
        for envelope, digest in zip(fresh, digests, strict=True):
            self.ring.append((envelope, digest, chained))
            chained = digest
        self.head = chained
        if remote:
            now = time.time() * 1000
            for envelope in fresh:
                metrics.FANOUT_LAG.observe(max(0.0, now - envelope.ts) / 1000)
        self._deliver(fresh, digests)
        if self.timers is not None:
            self.timers.follow(self.state)

    def _fold(self, fresh: Sequence[Envelope]) -> EncounterState | None:
        """Fold ``fresh`` into the state; the state as it was at the end of the last command
        after which the table was told everything, when a later command of ``fresh`` may have
        raised the screen (it holds an event the table does not see), else ``None``."""
        candidate = None
        start = 0
        state = self.state
        for shown in self.shown.values():
            step = shown.common.step
            if step is not None and step[0] is state:
                # (the way a viewer behind took to this state: it changes in place now)
                shown.common.step = None
        if any(shown.base is state for shown in self.shown.values()) or \
                self.memo.holds(state):
            kept = copy_state(state)  # what they were shown must not change with the fold
            for shown in self.shown.values():
                if shown.base is state:
                    shown.base = kept
            self.memo.rebase(state, kept)
        for i, envelope in enumerate(fresh):
            if i == start and state.told == state.version:
                end = next((j for j in range(i, len(fresh)) if fresh[j].chart is not None),
                           len(fresh) - 1)
                if not all(table_sees(e) for e in fresh[i:end + 1]):
                    candidate = copy_state(state)
            apply(state, envelope)
            if envelope.chart is not None:
                start = i + 1
        return candidate

    def _track_screen(self, candidate: EncounterState | None, fresh: Sequence[Envelope],
                      digests: Sequence[str]) -> None:
        """Keep ``told_state`` and ``table_digest`` as the fold moved ``told``."""
        s = self.state
        if not behind(s):
            self.told_state = None
        elif self.told_state is None or self.told_state.version != s.told:
            self.told_state = candidate if candidate is not None and \
                candidate.version == s.told else None
            if self.told_state is None:  # (not seen here: a reload finds it again)
                log.warning("room %s: no state at seq %d, where the table was told last",
                            self.id, s.told)
                self.schedule_screen()
        if s.table_seq != self._table_digest_seq:
            found = {e.seq: d for e, d in self.unreleased if e.seq == s.table_seq}
            found.update((e.seq, d) for e, d in zip(fresh, digests, strict=True)
                         if e.seq == s.table_seq)
            if s.table_seq in found:
                self.table_digest = found[s.table_seq]
                self._table_digest_seq = s.table_seq

    def _set_screen(self, screen: Screen) -> None:
        """What a room loaded from Redis needs of the screen (``EventStore.load_screen``)."""
        self.given = self.state.told
        self.unreleased = list(zip(screen.unreleased.envelopes, screen.unreleased.digests,
                                   strict=True))
        self.told_state = screen.told_state
        if screen.told_state is None and behind(self.state):
            log.warning("room %s: the log does not hold the state at seq %d, where the table "
                        "was told last; the table is shown the current state", self.id,
                        self.state.told)
        self.table_digest = screen.table_digest
        self._table_digest_seq = self.state.table_seq
        self._drop_held_acks()
        self.shown.clear()  # (every connection is sent a snapshot)
        self.memo = Memo()
        self._told_has_moved()

    async def until_told(self, timeout: float = 5.0) -> None:
        """Wait until ``told`` moves (or ``timeout``: the caller looks again)."""
        if self._told_moved is None or self._told_moved.done():
            self._told_moved = asyncio.get_running_loop().create_future()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._told_moved), timeout)

    def _told_has_moved(self) -> None:
        if self._told_moved is not None and not self._told_moved.done():
            self._told_moved.set_result(None)

    def position(self, actor: Actor) -> tuple[int, str]:
        """The seq and digest of the last event ``actor`` is told of: the table's position
        for those who wait for the screen, the log's end for the others."""
        if waits_for_screen(actor):
            return self.state.table_seq, self.table_digest
        return self.version, self.head

    def seal(self, seq: int, digest: str | None) -> str:
        key = (seq, digest)
        found = self._sealed.get(key)
        if found is None:
            if len(self._sealed) >= _SEALED_KEPT:
                self._sealed.clear()
            found = self._sealed[key] = self.cursors.seal(seq, digest)
        return found

    def state_for(self, actor: Actor) -> EncounterState:
        """The state ``actor`` is shown: the one at ``told`` for the table while the GM's
        screen is up, the current one otherwise."""
        if self.told_state is not None and waits_for_screen(actor):
            return self.told_state
        return self.state

    def _drop_held_acks(self) -> None:
        """The acks held back will not leave (the room reloaded its log, or nobody is left to
        tell): the replies behind them go."""
        held, self.held_acks = self.held_acks, []
        for session, *_ in held:
            session.release_reply(None)

    def answer(self, session: Member, cid: str, result: dict[str, Any],
               duplicate: bool = False, seq: int | None = None, hold: bool = True,
               held: bool = False) -> None:
        """Acknowledge ``session``'s command ``cid``. A table connection's ack waits while the
        screen is up (it leaves with what the table is told next, after its events and legal
        actions); it names the table's position, never one behind the screen. ``seq``: the
        position a connection that sees everything is given (the log's end by default).
        The replies to the connection's later commands wait behind a held ack (``held``: this
        is one, leaving now or held again)."""
        actor = session.actor
        assert actor is not None
        if hold and waits_for_screen(actor) and behind(self.state):
            if not held:
                session.hold_reply()
            self.held_acks.append((session, cid, result, duplicate))
            return
        if waits_for_screen(actor) or seq is None:
            seq, digest = self.position(actor)
        else:
            known = self.digest_at(seq)
            if known is None:  # (a retry's first outcome, long ago) the log's end
                seq, known = self.version, self.head
            digest = known
        session.acknowledge(cid, seq, self.seal(seq, digest) if session.cursor else None,
                            result, duplicate, held)

    def remember_outcome(self, dedupe: str, outcome: dict[str, Any]) -> None:
        self.recent[dedupe] = outcome
        self.recent.move_to_end(dedupe)
        if len(self.recent) > RECENT_OUTCOMES:
            self.recent.popitem(last=False)

    def digest_at(self, seq: int) -> str | None:
        """The digest this room knows for ``seq`` (its head, or from its ring), or ``None``."""
        if seq == self.version:
            return self.head
        if not self.ring or seq < self.ring[0][0].seq - 1 or seq > self.version:
            return None
        if seq == self.ring[0][0].seq - 1:
            return self.ring[0][2]
        return self.ring[seq - self.ring[0][0].seq][1]

    def ring_after(self, seq: int) -> Batch | None:
        """The events after ``seq`` from the ring, or ``None`` when it does not reach back."""
        prev = self.digest_at(seq)
        if prev is None:
            return None
        batch = Batch(prev=prev)
        for envelope, digest, _prev in self.ring:
            if envelope.seq > seq:
                batch.envelopes.append(envelope)
                batch.digests.append(digest)
        return batch

    def schedule_screen(self) -> None:
        """Read the state at ``told`` from Redis (a room that lost it: not expected)."""
        if self._screen_task is None or self._screen_task.done():
            self._screen_task = asyncio.get_running_loop().create_task(self._load_told())

    async def _load_told(self) -> None:
        told = self.state.told
        try:
            state = await self.store.load_at(self.id, told)
        except (RedisError, OSError) as exc:
            log.warning("room %s could not read its state at seq %d: %s", self.id, told, exc)
            return
        if state is not None and self.state.told == told and behind(self.state):
            self.told_state = state

    def reload(self, loaded: Loaded, screen: Screen, why: str) -> None:
        """Start again from ``loaded`` (the log in Redis is not the one this room held, so
        nothing it delivered after the snapshot's seq holds): every connection is sent a
        snapshot (``rewound``)."""
        before = self.version
        self.state, self.head = loaded.state, loaded.head
        self._set_screen(screen)
        self.ring.clear()
        self.recent.clear()  # outcomes of commands the log may no longer hold
        log.warning("room %s: %s; reloaded at seq %d (this process had served up to %d)",
                    self.id, why, self.version, before)
        for session in list(self.sessions):
            self.resync(session, "rewound")
        if self.timers is not None:
            self.timers.follow(self.state)

    def tell_lost(self, asked: tuple[object, str] | None = None) -> None:
        """The encounter is gone from Redis: tell every connection (``encounter_lost``; the
        command in ``asked`` gets it as its answer) and close them (4003). The acks held back
        for the table will never leave."""
        self.held_acks.clear()
        for session in list(self.sessions):
            cid = asked[1] if asked is not None and asked[0] is session else None
            session.error(ErrorCode.ENCOUNTER_LOST, "this encounter is no longer in the "
                          "server's store (it was restored to a time before the encounter "
                          "existed); nothing more will happen in it", cid)
            session.close_soon(CLOSE_LOST, "the encounter is no longer in the store")

    def resync(self, session: Member, reason: str) -> None:
        """Send ``session`` a snapshot (its credential permitting) and its legal actions."""
        actor = session.actor
        assert actor is not None
        grant = self.state.tokens.get(actor.token_id)
        if grant is None or grant.revoked:  # issued by events the log no longer holds
            session.close_soon(4001, "credential no longer valid")
            return
        self.send_snapshot(session, reason)

    def send_snapshot(self, session: Member, reason: str, join: bool = True) -> None:
        """Send ``session`` its snapshot and legal actions, and add it to the room (``join``;
        else the snapshot alone, to a connection already in it)."""
        actor = session.actor
        assert actor is not None
        seq, digest = self.position(actor)
        try:
            state = self.shown_to(actor, seq).view if session.view else \
                view_state(self.state_for(actor), actor)
        except Exception as exc:
            # Defence in depth: a log with something this viewer's view cannot show (written
            # before the server checked it on the way in) must not keep it, or anyone, out.
            log.exception("snapshot of %s for %s failed", self.id, actor.token_id)
            session.error(ErrorCode.SNAPSHOT_UNAVAILABLE,
                          f"the server could not build this credential's snapshot "
                          f"({type(exc).__name__}); the encounter's events follow, and "
                          "reconnecting tries again")
        else:
            if session.cursor:
                session.send(Snapshot(encounter=self.id, reason=reason,  # type: ignore[arg-type]
                                      state=state, digest=msgspec.UNSET,
                                      cursor=self.seal(seq, digest), ts=_now_ms()))
            else:
                session.send(Snapshot(encounter=self.id, seq=seq, reason=reason,  # type: ignore[arg-type]
                                      state=state, digest=digest or None, ts=_now_ms()))
        if join:
            self.add_session(session)
            session.offer_legal(self.legal_frame(actor, cursor=session.cursor), force=True)

    # -- the view (``encounter.patches``) ----------------------------------------------------

    def shown_to(self, actor: Actor, seq: int) -> Shown:
        """What ``actor``'s kind of viewer is shown now (at ``seq``), brought up to date."""
        key = viewer_key(actor)
        state = self.state_for(actor)
        shown = self.shown.get(key)
        if shown is None:
            shown = self.shown[key] = show(state, actor, seq, self.memo)
        elif shown.base is not state:
            follow(shown, state, actor, seq)
        return shown

    def view_since(self, actor: Actor, seq: int) -> bytes | None:
        """The patch (as JSON) from ``actor``'s view at ``seq`` to its view now, or ``None``
        when the patches kept do not reach back to ``seq``."""
        shown = self.shown.get(viewer_key(actor))
        if shown is None:
            return None
        state = self.state_for(actor)
        if shown.base is not state:
            follow(shown, state, actor, self.position(actor)[0])
        return shown.after(seq)

    def view_frame(self, patch: bytes, seq: int, digest: str | None, cursor: bool,
                   lean: bool = False) -> bytes:
        """The ``view`` message of ``patch`` (a JSON Patch, as JSON), at ``seq``; ``lean``:
        without ``encounter``, which its batch says (``batch_head``)."""
        raw = msgspec.Raw(patch)
        encounter = msgspec.UNSET if lean else self.id
        if cursor:  # (with batch_head its batch says the cursor)
            return _encode.encode(View(encounter=encounter, patch=raw,  # type: ignore[arg-type]
                                       cursor=msgspec.UNSET if lean else self.seal(seq, digest)))
        return _encode.encode(View(encounter=encounter, seq=seq, patch=raw))  # type: ignore[arg-type]

    # -- connections -------------------------------------------------------------------------

    def add_session(self, session: Member) -> None:
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
        if self.timers is not None:
            self.timers.stop()
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = self._expiry_at = None

    # -- delivery ----------------------------------------------------------------------------

    def _deliver(self, envelopes: Sequence[Envelope], digests: Sequence[str]) -> None:
        """Give every connection what these events tell it: at once to those who see
        everything (and dice towers); to the table, what ``told`` now reaches, with its legal
        actions and the acks that waited for it (``encounter.screen``)."""
        state = self.state
        self.unreleased.extend(zip(envelopes, digests, strict=True))
        told: list[tuple[Envelope, str]] = []
        if state.told > self.given:
            n = 0
            while n < len(self.unreleased) and self.unreleased[n][0].seq <= state.told:
                n += 1
            told, self.unreleased = self.unreleased[:n], self.unreleased[n:]
            self.given = state.told
            self._told_has_moved()
        if not self.sessions:
            self._drop_held_acks()
            return
        groups: dict[Any, list[Member]] = {}
        for session in self.sessions:
            assert session.actor is not None
            groups.setdefault(viewer_key(session.actor), []).append(session)
        revoked = {e.event.token_id for e in envelopes if isinstance(e.event, TokenRevoked)}
        undos = [e for e in envelopes if type(e.event) is CommandsUndone]
        allowed = allowed_chart_events(state) if not state.ended else set()
        shared: dict[object, list[LegalAction]] = {}
        turns: dict[bool, str] = {}
        encoded: Encoded = {}
        #: the view messages of this delivery by patch, position and framing: the viewers who
        #: share a patch (``encounter.patches.Common``) share its message
        views_encoded: dict[tuple[int, int, bool, bool], tuple[bytes, bytes]] = {}
        delivered = 0
        # Every kind of viewer's view first, one after the other: they share the step of the
        # parts and the values they hold, which stay in the caches from one to the next (the
        # legal actions worked out between them would push them out).
        views_of: dict[Any, dict[tuple[bool, bool], bytes]] = {}
        for key, members in groups.items():
            actor = members[0].actor
            assert actor is not None
            if not (waits_for_screen(actor) and not told):
                views_of[key] = self._view_frames(actor, key, members, views_encoded)
        for key, members in groups.items():
            actor = members[0].actor
            assert actor is not None
            waits = waits_for_screen(actor)
            if waits and not told:
                continue  # behind the screen: nothing the table is told yet
            shown = ([e for e, _ in told], [d for _, d in told]) if waits else \
                (envelopes, digests)
            table = at_table(actor)
            turn = turns.get(table)
            if turn is None:
                turn = turns[table] = turn_id(state, table)
            legal = self.legal_frame(actor, allowed, shared, turn,
                                     any(m.cursor for m in members))
            frames: dict[tuple[bool, bool, bool, bool], list[tuple[bytes, int, bool]]] = {}
            views = views_of[key]
            at: tuple[int, str | None] | None = None  # the position of this kind of viewer
            for session in members:
                lean = session.batch_head
                brief = getattr(session, "lean_events", False)
                framing = (session.cursor, session.summaries, lean, brief)
                if lean and session.cursor and at is None:
                    seq_at, digest_at = self.position(actor)
                    at = (seq_at, self.seal(seq_at, digest_at))
                mine = frames.get(framing)
                if mine is None:
                    mine = frames[framing] = self._frames(
                        shown[0], shown[1], actor, encoded, session.cursor, session.summaries,
                        lean, brief, at[0] if lean and session.cursor and at else None)
                if lean:
                    # what the batch says: the ts, and the cursor of the viewer's position
                    said = at[1] if session.cursor and at else None
                    for frame, ts, bare in mine:
                        session.enqueue(frame, (ts, said if bare else None))
                else:
                    for frame, _ts, _bare in mine:
                        session.enqueue(frame)
                delivered += len(mine)
                if session.view and views:
                    session.enqueue(views[(session.cursor, lean)], None if not lean else
                                    (None, at[1] if session.cursor and at else None))
                session.offer_legal(legal)
            if undos and any(may_see(e, actor) for e in undos):
                # the encounter went back (R108): its state whole, for clients that fold
                for session in members:
                    self.send_snapshot(session, "rewound", join=False)
        if told and self.held_acks:
            held, self.held_acks = self.held_acks, []
            for session, cid, result, duplicate in held:
                if session in self.sessions:
                    self.answer(session, cid, result, duplicate, held=True)
                else:
                    session.release_reply(None)
        self.memo.settle()
        metrics.EVENTS_DELIVERED.inc(delivered)
        if revoked:
            self.close_credentials(revoked, "credential revoked")

    def _view_frames(self, actor: Actor, key: Any, members: list[Member],
                     encoded: dict[tuple[int, int, bool, bool], tuple[bytes, bytes]]
                     ) -> dict[tuple[bool, bool], bytes]:
        """The ``view`` messages of a delivery to ``members`` (of ``actor``'s kind, ``key``),
        by ``cursor`` and ``batch_head`` (none: no member has the feature, or its view did not
        change);
        ``encoded``: those of the delivery's other viewers, by patch."""
        viewing = [m for m in members if m.view]
        if not viewing:
            return {}  # (what it was shown stays, for a resume: followed then)
        shown = self.shown.get(key)
        seq, digest = self.position(actor)
        state = self.state_for(actor)
        if shown is None:  # (its members joined before it was kept: never, but safe)
            self.shown[key] = show(state, actor, seq, self.memo)
            return {}
        if not follow(shown, state, actor, seq):
            return {}
        patch = shown.latest()
        frames = {}
        for cursor, lean in {(m.cursor, m.batch_head) for m in viewing}:
            found = encoded.get((id(patch), seq, cursor, lean))
            if found is None or found[0] is not patch:
                found = encoded[(id(patch), seq, cursor, lean)] = \
                    (patch, self.view_frame(patch, seq, digest, cursor, lean))
            frames[(cursor, lean)] = found[1]
        return frames

    def seen_by(self, envelopes: Sequence[Envelope], digests: Sequence[str], actor: Actor,
                cursor: bool, summaries: bool = False) -> list[tuple[int, str, bytes]]:
        """The seq, digest and ``event`` message of each of ``envelopes`` that ``actor`` may
        see, as it may see it (for ``get_history``; ``summaries``: with its words)."""
        seen = []
        for envelope, digest in zip(envelopes, digests, strict=True):
            event = view_event(envelope, actor)
            if event is not None:
                seen.append((envelope.seq, digest,
                             self._event_frame(envelope, event, digest, cursor, summaries,
                                               ts=ts_for(envelope, actor))))
        return seen

    def frames_for(self, envelopes: Iterable[Envelope], digests: Iterable[str], actor: Actor,
                   encoded: Encoded | None = None,
                   cursor: bool = False, summaries: bool = False) -> list[bytes]:
        """The ``event`` messages of ``envelopes`` that ``actor`` may see, as it may see them
        (``cursor``: with a cursor in place of the seq and digest; ``summaries``: with the
        words of the event as it sees it). ``encoded`` keeps the messages of events shown
        unchanged (the view is the event itself) across the viewers of one delivery, so each
        is encoded once, and worded once."""
        return [frame for frame, _ts, _bare in self._frames(envelopes, digests, actor, encoded,
                                                             cursor, summaries)]

    def _frames(self, envelopes: Iterable[Envelope], digests: Iterable[str], actor: Actor,
                encoded: Encoded | None = None,
                cursor: bool = False, summaries: bool = False, lean: bool = False,
                brief: bool = False, at: int | None = None) -> list[tuple[bytes, int, bool]]:
        """``frames_for``, each message with its event's ``ts`` and whether it leaves out its
        cursor; ``lean``: without ``encounter`` and ``ts``, which the batch they go in says
        (``batch_head``), nor, for the event at seq ``at`` (the viewer's position), its
        cursor; ``brief`` (``lean_events``): each event said only as far as the view and its
        summary do not say it (``protocol.brief``)."""
        cache = encoded if encoded is not None else {}
        frames = []
        for envelope, digest in zip(envelopes, digests, strict=True):
            event = view_event(envelope, actor)
            if event is None:
                continue
            bare = envelope.seq == at
            ts = ts_for(envelope, actor)  # (the table's time of an event it was held from)
            if event is envelope.event:
                key = (envelope.seq, cursor, summaries, lean, brief, bare, ts)
                frame = cache.get(key)
                if frame is None:
                    frame = cache[key] = self._event_frame(envelope, event, digest, cursor,
                                                           summaries, lean, brief, bare, ts)
            else:
                frame = self._event_frame(envelope, event, digest, cursor, summaries, lean,
                                          brief, bare, ts)
            frames.append((frame, ts, bare))
        return frames

    def _event_frame(self, envelope: Envelope, event: Any, digest: str,
                     cursor: bool = False, summaries: bool = False, lean: bool = False,
                     brief: bool = False, bare: bool = False, ts: int | None = None) -> bytes:
        """``ts``: the time the viewer is shown (``encounter.screen.ts_for``; ``None``: the
        event's own)."""
        summary = self.summary_of(envelope, event) if summaries else None
        gone = self.state.taken_back(envelope.seq)
        encounter = msgspec.UNSET if lean else self.id
        shown_ts = msgspec.UNSET if lean else envelope.ts if ts is None else ts
        # (a brief event is the event's own JSON, less what the view and the words say; words
        # without numbers itemised, their text alone)
        said: Any = msgspec.Raw(brief_event(event)) if brief else event
        if brief and summary is not None and not summary.parts:
            summary = summary.text  # type: ignore[assignment]
        if cursor:
            return _encode.encode(EventMessage(
                encounter=encounter, ts=shown_ts, event=said, summary=summary, taken_back=gone,
                cursor=msgspec.UNSET if bare else self.seal(envelope.seq, digest)))
        return _encode.encode(EventMessage(encounter=encounter, seq=envelope.seq, ts=shown_ts,
                                           event=said, digest=digest or None, summary=summary,
                                           taken_back=gone))

    def summary_of(self, envelope: Envelope, event: Any) -> Summary:
        """The words of ``event``, ``envelope``'s event as one viewer sees it: worked out once
        per stored event shown unchanged (the connections with and without ``cursor``, and
        every viewer it is shown to unchanged, share them), and for each redacted copy of it.
        Combatants go by the names of the encounter (removed ones too)."""
        if event is not envelope.event:
            return self._summarize(event)
        found = self._said.get(envelope.seq)
        if found is not None and found[0] is envelope:
            return found[1]
        summary = self._summarize(event)
        if len(self._said) >= RING_SIZE:
            self._said.clear()
        self._said[envelope.seq] = (envelope, summary)
        return summary

    def _summarize(self, event: Any) -> Summary:
        try:
            return summarize(event, self.state.ruleset, self.state.names, self.state.effect_names)
        except Exception:  # defence in depth: words that fail must not stop delivery
            log.exception("the words of a %s event of %s failed", type(event).__name__, self.id)
            return Summary(text=str(event.__struct_config__.tag).replace("_", " "))

    def legal_frame(self, actor: Actor, allowed: set[str] | None = None,
                    shared: dict[object, list[LegalAction]] | None = None,
                    turn: str | None = None, cursor: bool = False) -> LegalFrame:
        """The ``legal_actions`` of ``actor``, with a key that changes only when the actions
        do (the message's ``seq`` alone does not make it worth sending). ``turn``: the
        ``turn_id`` ``actor`` is given, when known; ``cursor``: whether a connection it goes to
        has the ``cursor`` feature. The table's are of the state it is shown (``state_for``)."""
        state = self.state_for(actor)
        if state is not self.state:
            allowed = shared = None
        if turn is None:
            turn = turn_id(state, at_table(actor))
        seq, digest = self.position(actor)
        sealed = self.seal(seq, digest) if cursor else None
        try:
            actions = legal_actions(state, actor, allowed, shared)
            return LegalFrame(self.id, seq, turn, actions, cursor=sealed)
        except Exception:  # defence in depth: a state it cannot read must not stop delivery
            log.exception("legal actions of %s for %s failed", self.id, actor.token_id)
            return LegalFrame.failed(self.id, seq, turn, sealed)


class Rooms:
    """The rooms of this process, loaded on first use and dropped once no connection is in it
    or about to join it."""

    def __init__(self, store: EventStore, fire_timer: Fire | None = None,
                 renew_dice: Renew | None = None) -> None:
        self.store = store
        #: carries out a turn timer's command (R102); ``None``: this process fires none
        self.fire_timer = fire_timer
        #: appends a renewal of an encounter's dice (R117); ``None``: this process renews none
        self.renew_dice = renew_dice
        #: hears the encounters whose rooms are open here (``server.fanout``)
        self.channels: Channels | None = None
        self._rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}

    def peek(self, encounter: str) -> Room | None:
        return self._rooms.get(encounter)

    def __iter__(self) -> Any:
        return iter(list(self._rooms.values()))

    def __len__(self) -> int:
        return len(self._rooms)

    async def get(self, encounter: str) -> Room | None:
        """The room of ``encounter`` (loaded from Redis if need be), held for the caller until
        it calls :meth:`release`: a connection that resumes joins its room only after the
        replay, and the room must still be this process's then (a room dropped meanwhile,
        when its last other connection left, is followed by nobody: its connections would
        miss the events of every other room object and process)."""
        while True:
            room = self._rooms.get(encounter)
            if room is not None:
                room.holders += 1
                return room
            pending = self._loading.get(encounter)
            if pending is None:
                break
            if await asyncio.shield(pending) is None:
                return None
            # loaded, and perhaps released and dropped since: look again
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[encounter] = future
        try:
            loaded = await self.store.load_head(encounter)
            room = None if loaded is None else \
                Room(encounter, loaded, self.store, await self.store.load_screen(encounter, loaded))
            if room is not None:
                self._rooms[encounter] = room
                room.holders += 1
                if self.channels is not None:
                    self.channels.watch(channel(encounter))
                room.following.renew = self.renew_dice
                if self.fire_timer is not None:
                    room.timers = TimerWatch(room, self.fire_timer)
                    room.timers.follow(room.state)
                metrics.ROOMS.set(len(self._rooms))
            future.set_result(room)
            return room
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved
            raise
        finally:
            del self._loading[encounter]

    def release(self, room: Room) -> None:
        """The caller of :meth:`get` is done with ``room`` (its connection joined it, or will
        not); dropped when nobody is in it."""
        room.holders -= 1
        self._drop_if_unused(room)

    def leave(self, room: Room, session: Member) -> None:
        room.sessions.discard(session)
        self._drop_if_unused(room)

    def _drop_if_unused(self, room: Room) -> None:
        if not room.sessions and not room.holders and self._rooms.get(room.id) is room:
            del self._rooms[room.id]
            room.drop()
            if self.channels is not None:
                self.channels.unwatch(channel(room.id))
            metrics.ROOMS.set(len(self._rooms))
