"""Replays (``hello.replay``): an encounter, running or ended, played back from its log for one
credential, redacted for it as it was live.

What a replay sends is worked out once per encounter and kind of viewer (``Reel``): the log is
read from Redis a chunk at a time and folded from its first event into a state of the reel's
own (the live room is not touched), and each command's messages are kept (the room's own
redaction and framing: ``Room.frames_for``), with the patch of the view after them, worked
out from what changed (``encounter.patches.follow``), never from the whole state again. Every
replay of that kind of viewer plays the same reel, and one that comes when the reel is built
costs only what it sends. Building yields to the event loop every ``YIELD_EVERY`` events, so a
long log holds no table up.

A replay starts at the beginning of the round asked for (round 0: just after the encounter's
first event, ``encounter_created``): the connection gets a ``snapshot`` (reason ``replay``) of
the state as this credential saw it there, then each event after it as it received it live,
paced by the events' times divided by the speed asked for. A connection with the ``view``
feature gets, after the events of each command, the patch that brings the state it holds to
the credential's view then. The table (every credential without ``view:gm``) is shown the log
only as far as it was told it, and its view is the state as it was told it
(``encounter.screen``), as it was live. ``replay_ended`` closes the replay. A replay whose
credential is revoked or expires is closed (4001), as a live connection is.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
import orjson

from encounter.actors import Actor
from encounter.fold import apply
from encounter.patches import Memo, Op, Shown, diff, follow, show
from encounter.screen import table_sees, ts_for, waits_for_screen
from encounter.state import EncounterState, copy_state
from encounter.views import may_see, view_state
from protocol import events as ev
from protocol.events import CommandsUndone, Envelope
from protocol.messages import Replay, ReplayEnded, Snapshot
from server.rooms import Room, viewer_key
from server.store import EventStore

log = logging.getLogger("stablemaster.replay")

#: Events read from Redis at a time.
CHUNK = 500
#: Events folded into a reel between two turns of the event loop.
YIELD_EVERY = 32
#: Reels kept per room (the least recently played goes first).
REELS_PER_ROOM = 8
#: The longest a replay sleeps without looking at its credential (s).
LOOK_EVERY = 1.0
#: The close code of a replay whose credential is revoked or expired (as a live connection's).
CLOSE_REVOKED = 4001

_encode = msgspec.json.Encoder()
#: each room's reels, by kind of viewer and framing (they go with the room)
_reels: weakref.WeakKeyDictionary[Room, OrderedDict[Any, Reel]] = weakref.WeakKeyDictionary()


class Watcher(Protocol):
    """The connection a replay plays to (``server.session.Session`` is one)."""

    cursor: bool
    view: bool
    summaries: bool

    def enqueue(self, frame: bytes) -> None: ...

    async def wait_sent(self) -> bool: ...

    def close_soon(self, code: int, reason: str, flush: bool = True) -> None: ...


@dataclass(slots=True)
class Step:
    """The messages of one command as the reel's viewer got them: its events (seq, message)
    and what followed them (the view's patch, or after an undo the snapshot), at ``ts``."""

    ts: int
    frames: list[tuple[int, bytes]]
    after: bytes | None
    #: ``after`` is a snapshot: the view starts again from it
    rewound: bool = False


@dataclass(slots=True)
class Start:
    """Where a replay of a round may start: just before the event ``seq`` (the round's
    ``round_started``; round 0: the event after ``encounter_created``), with the snapshot there
    (the view, its position and digest), the first step it plays, and the patch of that
    step's view from the snapshot's (``first``: ``None`` until that step is built)."""

    round: int
    seq: int
    view: dict[str, Any]
    at: int
    digest: str
    step: int
    first: tuple[int, bytes | None] | None = None


@dataclass
class Reel:
    """What a replay of one encounter sends to one kind of viewer, with one framing: built
    once, a chunk at a time as replays need it, and shared by every replay of that kind."""

    #: (a weak proxy: the room's reels go with the room, ``_reels``; a replay holds its room)
    room: Room
    actor: Actor
    cursor: bool
    view: bool
    summaries: bool
    steps: list[Step] = field(default_factory=list)
    starts: list[Start] = field(default_factory=list)
    #: events folded so far (the seq of the last one)
    after: int = 0
    #: the log had nothing after ``after`` when last read
    at_end: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    state: EncounterState = field(init=False)
    told: EncounterState = field(init=False)
    digest: str = ""
    #: the table's position (its last event seen at or before ``told``, and that event's
    #: digest), as the live room gives it (``Room.position``), and the last event the table
    #: sees, by seq, with their digests
    told_at: int = 0
    told_digest: str = ""
    _public: dict[int, str] = field(default_factory=dict)
    pending: list[tuple[Envelope, str]] = field(default_factory=list)
    shown: Shown | None = None
    memo: Memo = field(default_factory=Memo)
    #: the starts whose first step is not built yet
    _open: list[Start] = field(default_factory=list)
    #: the view at the last start (``_start_view``)
    _starts_shown: Shown | None = None
    #: events folded since the reel was made (it yields to the loop every ``YIELD_EVERY``)
    _folds: int = 0

    def __post_init__(self) -> None:
        self.state = EncounterState(id=self.room.id)
        self.told = self.state
        self.table = waits_for_screen(self.actor)

    @property
    def _target(self) -> EncounterState:
        return self.told if self.table else self.state

    def _position(self) -> tuple[int, str]:
        if self.table:
            return self.told_at, self.told_digest
        return self.state.version, self.digest

    async def grow(self, seen: int) -> bool:
        """Build the next chunk of the reel, unless another replay did since the caller saw
        it at ``seen`` (``after``); ``False``: the log has nothing more."""
        async with self.lock:
            if self.after != seen:
                return True
            batch = await self.room.store.read_batch(self.room.id, self.after, count=CHUNK)
            if not batch.envelopes:
                self.at_end = True
                return False
            self.at_end = False
            last = batch.envelopes[-1]
            for envelope, digest in zip(batch.envelopes, batch.digests, strict=True):
                await self._fold(envelope, digest, envelope is last)
                self._folds += 1
                if self._folds % YIELD_EVERY == 0:
                    await asyncio.sleep(0)  # (bounded work per turn of the loop)
            return True

    async def _fold(self, envelope: Envelope, envelope_digest: str, last: bool) -> None:
        state = self.state
        event = envelope.event
        if state.version > 0 and (not self.starts or isinstance(event, ev.RoundStarted)):
            view = self._start_view()
            at, digest = self._position()
            start = Start(round=event.round if isinstance(event, ev.RoundStarted) else 0,
                          seq=envelope.seq, view=view, at=at, digest=digest,
                          step=len(self.steps))
            self.starts.append(start)
            self._open.append(start)
        shown = self.shown
        if shown is not None:
            step = shown.common.step
            if step is not None and step[0] is state:
                shown.common.step = None  # (the way to this state: it changes in place now)
        if shown is not None and (shown.base is state or self.memo.holds(state)):
            kept = copy_state(state)  # what was shown must not change with the fold
            if shown.base is state:
                shown.base = kept
            self.memo.rebase(state, kept)
        if isinstance(event, CommandsUndone) and event.back_to is not None:
            # (R108: the fold goes back to the state of then)
            pasts = {event.back_to: await _past(self.room.store, self.room.id, envelope)}
            apply(state, envelope, pasts.__getitem__)
        else:
            apply(state, envelope)
        self.after, self.digest = envelope.seq, envelope_digest
        if self.table and table_sees(envelope):
            self._public[envelope.seq] = envelope_digest
        if self.table and state.told == state.version:
            # (the position told is the table's last event, not the command's last, which may
            # be one behind the screen: a hidden act inside the screen's turn, R99)
            self.told = copy_state(state)
            self.told_at = state.table_seq
            self.told_digest = self._public.get(state.table_seq, "")
        if self.shown is None and self.view:
            at, _ = self._position()
            self.shown = show(self._target, self.actor, at, self.memo)
        self.pending.append((envelope, envelope_digest))
        if envelope.chart is None and not last:
            return  # (the command goes on: its events leave together)
        self._step(envelope)

    def _step(self, envelope: Envelope) -> None:
        """The messages of the command that ``envelope`` ends, as far as the viewer is told."""
        room, actor, state = self.room, self.actor, self.state
        end = state.told if self.table else state.version
        shown = [(e, d) for e, d in self.pending if e.seq <= end]
        self.pending = [(e, d) for e, d in self.pending if e.seq > end]
        frames: list[tuple[int, bytes]] = []
        for e, d in shown:
            made = room.frames_for([e], [d], actor, cursor=self.cursor,
                                   summaries=self.summaries)
            if made:
                frames.append((e.seq, made[0]))
        if not frames:
            return
        at, digest = self._position()
        target = self._target
        after: bytes | None = None
        rewound = False
        if isinstance(envelope.event, CommandsUndone) and may_see(envelope, actor):
            # as live: the state, whole (R108)
            after = _snapshot(room, _view(target, actor), at, digest, self.cursor)
            rewound = True
            if self.view:
                self.shown = show(target, actor, at, self.memo)
        elif self.view and self.shown is not None:
            ops = follow(self.shown, target, actor, at)
            if ops:
                after = room.view_frame(self.shown.latest(), at, digest, self.cursor)
        self.memo.settle()
        index = len(self.steps)
        # (the table's time of the command: one it was held from carries the time of the
        # command that began the hold, as it did live, R96.6)
        self.steps.append(Step(ts_for(envelope, actor), frames, after, rewound))
        if self._open:
            still = []
            for start in self._open:
                if not any(seq >= start.seq for seq, _ in frames):
                    still.append(start)
                    continue
                first: bytes | None = after
                if self.view and not rewound and self.shown is not None:
                    patch: list[Op] = []
                    diff("", orjson.loads(_encode.encode(start.view)),
                         orjson.loads(_encode.encode(self.shown.view)), patch)
                    first = room.view_frame(orjson.dumps(patch), at, digest, self.cursor) \
                        if patch else None
                start.first = (index, first)
            self._open = still

    def _start_view(self) -> dict[str, Any]:
        """The view where a replay may start, worked out from the one at the start before
        (``follow``), on a copy of the state there (the fold goes on in place)."""
        target = self._target
        at, _ = self._position()
        # (the table's is a copy already, which nothing folds into)
        here = target if self.table and target is not self.state else copy_state(target)
        if self._starts_shown is None:
            self._starts_shown = show(here, self.actor, at, Memo())
        else:
            follow(self._starts_shown, here, self.actor, at)
            self._starts_shown.memo.settle()
        view: dict[str, Any] = orjson.loads(_encode.encode(self._starts_shown.view))
        return view

    def start_for(self, from_round: int) -> Start | None:
        for start in self.starts:
            if from_round == 0 or (start.round >= from_round and start.round > 0):
                return start
        return None

    def end_snapshot(self) -> bytes:
        """The snapshot of the state as the log ends (a round asked for that never began)."""
        at, digest = self._position()
        return _snapshot(self.room, _view(self._target, self.actor), at, digest, self.cursor)


def reel_for(room: Room, actor: Actor, watcher: Watcher) -> Reel:
    """The room's reel for ``actor``'s kind of viewer and ``watcher``'s framing."""
    reels = _reels.get(room)
    if reels is None:
        reels = _reels[room] = OrderedDict()
    # (a rewind, or an undo that takes back what a reel's messages showed: another reel)
    key = (viewer_key(actor), watcher.cursor, watcher.view, watcher.summaries, room.rewinds,
           len(room.state.undone))
    reel = reels.get(key)
    if reel is None:
        reel = reels[key] = Reel(weakref.proxy(room), actor, watcher.cursor, watcher.view,
                                 watcher.summaries)
        while len(reels) > REELS_PER_ROOM:
            reels.popitem(last=False)
    reels.move_to_end(key)
    return reel


def credential_ended(room: Room, actor: Actor) -> str | None:
    """Why ``actor``'s credential no longer opens the encounter (as the live room knows it),
    or ``None``."""
    grant = room.state.tokens.get(actor.token_id)
    if grant is None or grant.revoked:
        return "credential revoked"
    if grant.expired(time.time() * 1000):
        return "credential expired"
    return None


async def play(watcher: Watcher, room: Room, actor: Actor, replay: Replay) -> None:
    """Play ``room``'s log to ``watcher`` for ``actor``, then ``replay_ended``."""
    reel = reel_for(room, actor, watcher)
    start: Start | None = None
    while start is None:
        start = reel.start_for(replay.from_round)
        if start is None and not await reel.grow(reel.after):
            # the round asked for never began: the state as the log ends
            watcher.enqueue(reel.end_snapshot())
            watcher.enqueue(_encode.encode(ReplayEnded(encounter=room.id, events=0)))
            return
    watcher.enqueue(_snapshot(room, start.view, start.at, start.digest, watcher.cursor))
    sent = 0
    last_ts: int | None = None
    index = start.step
    while True:
        while index < len(reel.steps):
            step = reel.steps[index]
            frames = step.frames
            after = step.after
            if start is not None:
                if start.first is None or index < start.first[0]:
                    index += 1
                    continue  # (nothing of it from the start on)
                frames = [(s, f) for s, f in frames if s >= start.seq]
                if not step.rewound:
                    after = start.first[1]
                start = None
            if last_ts is not None:
                pause = max(0.0, (step.ts - last_ts) / 1000 / replay.speed)
                if not await _sleep(min(pause, replay.max_pause), watcher, room, actor):
                    return
            last_ts = step.ts
            for _, frame in frames:
                watcher.enqueue(frame)
            sent += len(frames)
            if after is not None and (watcher.view or step.rewound):
                watcher.enqueue(after)
            index += 1
            if not await watcher.wait_sent():
                return  # the connection is gone
            ended = credential_ended(room, actor)
            if ended is not None:
                watcher.close_soon(CLOSE_REVOKED, ended)
                return
        if not await reel.grow(reel.after):
            break
    watcher.enqueue(_encode.encode(ReplayEnded(encounter=room.id, events=sent)))


async def _sleep(seconds: float, watcher: Watcher, room: Room, actor: Actor) -> bool:
    """Sleep ``seconds``, looking at the credential every ``LOOK_EVERY``; ``False`` when it
    ended meanwhile (the watcher is closed)."""
    until = time.monotonic() + seconds
    while True:
        left = until - time.monotonic()
        await asyncio.sleep(max(0.0, min(left, LOOK_EVERY)))
        ended = credential_ended(room, actor)
        if ended is not None:
            watcher.close_soon(CLOSE_REVOKED, ended)
            return False
        if left <= LOOK_EVERY:
            return True


async def _past(store: EventStore, encounter: str, envelope: Envelope) -> EncounterState:
    """The state an undo goes back to, from the log."""
    assert isinstance(envelope.event, CommandsUndone) and envelope.event.back_to is not None
    past = await store.load_at(encounter, envelope.event.back_to)
    if past is None:
        raise ValueError(f"the log no longer reaches seq {envelope.event.back_to}, where the "
                         f"undo at {envelope.seq} goes back to")
    return past


def _view(state: EncounterState, actor: Actor) -> dict[str, Any]:
    """``actor``'s view of ``state``, as plain JSON data (a copy of its own)."""
    view: dict[str, Any] = orjson.loads(_encode.encode(view_state(state, actor)))
    return view


def _snapshot(room: Room, state: dict[str, Any], seq: int, digest: str,
              cursor: bool) -> bytes:
    if cursor:
        return _encode.encode(Snapshot(encounter=room.id, reason="replay", state=state,
                                       digest=msgspec.UNSET, cursor=room.seal(seq, digest)))
    return _encode.encode(Snapshot(encounter=room.id, seq=seq, reason="replay", state=state,
                                   digest=digest or None))


def forget_reels() -> None:
    """Drop every reel kept (the next replay of each kind works its reel out again)."""
    _reels.clear()
