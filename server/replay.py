"""Replays (``hello.replay``): an encounter, running or ended, played back from its log for one
credential, redacted for it as it was live.

The log is read from Redis a chunk at a time and folded from its first event into a state of
the replay's own (the live room is not touched). Up to the start (the beginning of the round
asked for; round 0: just after the encounter's first event, ``encounter_created``) nothing is
sent; then the connection gets a ``snapshot`` (reason ``replay``) of the state as this
credential saw it there, and each event after it as it received it live (the room's own
redaction and framing: ``Room.frames_for``), paced by the events' times divided by the speed
asked for. A connection with the ``view`` feature gets, after the events of each command, the
patch that brings the state it holds to the credential's view then. The table (every
credential without ``view:gm``) is shown the log only as far as it was told it, and its view
is the state as it was told it (``encounter.screen``), as it was live. ``replay_ended`` closes
the replay.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

import msgspec
import orjson

from encounter.actors import Actor
from encounter.fold import apply
from encounter.patches import Op, diff
from encounter.screen import waits_for_screen
from encounter.state import EncounterState, copy_state
from encounter.views import may_see, view_state
from protocol import events as ev
from protocol.events import CommandsUndone, Envelope
from protocol.messages import Replay, ReplayEnded, Snapshot
from server.rooms import Room
from server.store import EventStore

log = logging.getLogger("stablemaster.replay")

#: Events read from Redis at a time.
CHUNK = 500

_encode = msgspec.json.Encoder()


class Watcher(Protocol):
    """The connection a replay plays to (``server.session.Session`` is one)."""

    cursor: bool
    view: bool
    summaries: bool

    def enqueue(self, frame: bytes) -> None: ...

    async def wait_sent(self) -> bool: ...


def _starts(envelope: Any, from_round: int) -> bool:
    """Whether the replay starts just before ``envelope``: the round asked for begins (0: the
    encounter's story does, after its first event, ``encounter_created``)."""
    if from_round == 0:
        return True
    event = envelope.event
    return isinstance(event, ev.RoundStarted) and event.round >= from_round


async def play(watcher: Watcher, room: Room, actor: Actor, replay: Replay) -> None:
    """Play ``room``'s log to ``watcher`` for ``actor``, then ``replay_ended``."""
    store = room.store
    table = waits_for_screen(actor)
    state = EncounterState(id=room.id)
    told = state  # the state as the table was last told it
    started = False
    sent = 0
    shown: dict[str, Any] | None = None
    last_ts: int | None = None
    digest = told_digest = ""
    after = 0
    while True:
        batch = await store.read_batch(room.id, after, count=CHUNK)
        if not batch.envelopes:
            break
        pending: list[tuple[Any, str]] = []
        for envelope, envelope_digest in zip(batch.envelopes, batch.digests, strict=True):
            if not started and state.version > 0 and _starts(envelope, replay.from_round):
                started = True
                shown = _view(told if table else state, actor)
                watcher.enqueue(_snapshot(room, shown, told.version if table else state.version,
                                          told_digest if table else digest, watcher.cursor))
            event = envelope.event
            undone = isinstance(event, CommandsUndone)
            if isinstance(event, CommandsUndone) and event.back_to is not None:
                # (R108: the fold goes back to the state of then)
                pasts = {event.back_to: await _past(store, room.id, envelope)}
                apply(state, envelope, pasts.__getitem__)
            else:
                apply(state, envelope)
            after, digest = envelope.seq, envelope_digest
            if table and state.told == state.version:
                told, told_digest = copy_state(state), digest
            if not started:
                continue
            pending.append((envelope, envelope_digest))
            if envelope.chart is None and envelope is not batch.envelopes[-1]:
                continue  # (the command goes on: its events leave together)
            end = state.told if table else state.version
            frames = room.frames_for([e for e, _ in pending if e.seq <= end],
                                     [d for e, d in pending if e.seq <= end], actor,
                                     cursor=watcher.cursor, summaries=watcher.summaries)
            pending = [(e, d) for e, d in pending if e.seq > end]
            if not frames:
                continue
            first_ts = envelope.ts
            if last_ts is not None:
                pause = max(0.0, (first_ts - last_ts) / 1000 / replay.speed)
                await asyncio.sleep(min(pause, replay.max_pause))
            last_ts = first_ts
            for frame in frames:
                watcher.enqueue(frame)
            sent += len(frames)
            if undone and may_see(envelope, actor):  # as live: the state, whole (R108)
                shown = _view(told if table else state, actor)
                watcher.enqueue(_snapshot(room, shown, told.version if table else state.version,
                                          told_digest if table else digest, watcher.cursor))
            elif watcher.view and shown is not None:
                now = _view(told if table else state, actor)
                ops: list[Op] = []
                diff("", shown, now, ops)
                if ops:
                    watcher.enqueue(room.view_frame(orjson.dumps(ops), end,
                                                    told_digest if table else digest,
                                                    watcher.cursor))
                shown = now
            if not await watcher.wait_sent():
                return  # the connection is gone
    if not started:  # the round asked for never began: the state as the log ends
        watcher.enqueue(_snapshot(room, _view(told if table else state, actor),
                                  told.version if table else state.version,
                                  told_digest if table else digest, watcher.cursor))
    watcher.enqueue(_encode.encode(ReplayEnded(encounter=room.id, events=sent)))


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
