"""Following an encounter's log: what a room folds, in which order, and when it reads Redis.

A room (``server.rooms.Room``) folds and delivers; its ``LogFollow`` decides what it is given.
Events reach it from the command path (with the state the decider computed) and from the
fan-out (``server.fanout``); both offer them here, and here alone:

- events already folded are skipped, so each is folded and delivered once;
- a gap in the seqs (a notification lost, or one overtaken by another) is read from the
  encounter's stream before anything after it (``catch_up``);
- events that do not chain from the room's head digest belong to another log than the room's:
  the room checks itself against Redis (``check``) and, if the log went back, reloads from it
  and sends each connection a snapshot (``rewind``, reason ``rewound``);
- an encounter that is no longer in Redis at all is lost (``lose``): its connections are told
  and closed;
- a log that went back to before the encounter's ``dice_revealed``, which the room folded, while
  the encounter runs on there: before the room reloads, its dice are renewed (ruling R117), so
  that nothing more is drawn from a secret that was shown (``renew``).

The sweep that checks every room against Redis is the fan-out's; it schedules the checks here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from redis.exceptions import RedisError

from encounter.state import EncounterState
from protocol.events import CommandsUndone, Envelope
from rules.verifiable_dice import commitment
from server import metrics
from server.store import Batch, EventStore, Loaded, Screen

log = logging.getLogger("stablemaster.follow")

#: Appends the renewal of the dice of ``encounter`` as ``loaded`` has it, whose secret
#: ``revealed`` (hex) was shown (R117): the encounter with it, or ``None`` when the log moved
#: meanwhile (read it again). ``CommandService.renew_dice`` is one.
Renew = Callable[[str, Loaded, str], Awaitable[Loaded | None]]
#: Reads of the log a renewal of the dice tries before giving up (another process renewing
#: them at the same time makes one of them read the log again, once).
RENEW_TRIES = 4


class Folding(Protocol):
    """What following the log needs of a room (``server.rooms.Room`` is one)."""

    id: str
    head: str
    state: EncounterState

    @property
    def version(self) -> int: ...

    def take(self, fresh: Sequence[Envelope], digests: Sequence[str], prev: str,
             state_after: EncounterState | None, remote: bool) -> None:
        """Fold and deliver ``fresh``, the events right after the room's version that chain
        from ``prev`` (its head)."""
        ...

    def reload(self, loaded: Loaded, screen: Screen, why: str) -> None:
        """Start again from ``loaded``, as Redis has the log now, and tell every connection."""
        ...

    def tell_lost(self, asked: tuple[object, str] | None) -> None:
        """Tell every connection the encounter is gone, and close them."""
        ...


class LogFollow:
    """Keeps one room on its encounter's log: in order, exactly once, chained."""

    def __init__(self, room: Folding, store: EventStore) -> None:
        self.room = room
        self.store = store
        self._catchup_lock = asyncio.Lock()
        self._catchup_task: asyncio.Task[None] | None = None
        self._check_task: asyncio.Task[None] | None = None
        self._check_running: asyncio.Task[None] | None = None
        self._behind = False  # a gap was seen: read from Redis again before resting
        #: times the room found the log in Redis not to be the one it held, and reloaded
        self.rewinds = 0
        #: The encounter is no longer in Redis (``lose``): its connections were told and are
        #: closing, and no command is taken for it.
        self.lost = False
        #: the dice secrets the room was shown (hex), by their commitments: a log that went
        #: back to one of them unrevealed has its dice renewed (R117)
        self.shown: dict[str, str] = {}
        #: appends a renewal of the dice (``None``: this room renews none)
        self.renew: Renew | None = None

    def offer(self, batch: Batch, state_after: EncounterState | None = None,
              remote: bool = False) -> None:
        """Fold and deliver the events of ``batch``; skip those already seen; fill a gap from
        Redis; check against Redis when they do not chain from the room's head.

        ``state_after`` is the state the decider computed for exactly these events (the command
        path), which saves folding them again.
        """
        room = self.room
        envelopes, digests = batch.envelopes, batch.digests
        version = room.version
        first = 0
        while first < len(envelopes) and envelopes[first].seq <= version:
            first += 1
        if first == len(envelopes):
            return
        if envelopes[first].seq != version + 1:
            self._behind = True
            self.schedule_catchup()
            return
        prev = batch.prev if first == 0 else digests[first - 1]
        if prev is not None and prev != room.head:
            # these events continue another log than the one this room holds
            self.schedule_check()
            return
        fresh = envelopes[first:] if first else envelopes
        fresh_digests = digests[first:] if first else digests
        if (state_after is None or state_after.version != fresh[-1].seq) and \
                any(isinstance(e.event, CommandsUndone) for e in fresh):
            # an undo is folded with the state it goes back to, read from the log (R108)
            self._behind = True
            self.schedule_catchup()
            return
        room.take(fresh, fresh_digests, prev if prev is not None else room.head, state_after,
                  remote)

    def schedule_catchup(self) -> None:
        if self._catchup_task is None or self._catchup_task.done():
            self._catchup_task = asyncio.get_running_loop().create_task(self._catch_up_later())

    def schedule_check(self) -> None:
        if self._check_task is None or self._check_task.done():
            self._check_task = asyncio.get_running_loop().create_task(self._check_later())

    async def _catch_up_later(self) -> None:
        try:
            await self.catch_up()
        except (RedisError, OSError) as exc:  # the periodic sweep tries again
            log.warning("room %s could not catch up: %s", self.room.id, exc)

    async def _check_later(self) -> None:
        try:
            await self.check()
        except (RedisError, OSError) as exc:  # the periodic sweep tries again
            log.warning("room %s could not check its log: %s", self.room.id, exc)

    async def catch_up(self) -> None:
        """Read from Redis whatever the room has not seen yet, and offer it; again if more
        arrived out of order meanwhile. Reload when the log does not continue the room's."""
        room = self.room
        async with self._catchup_lock:
            while True:
                self._behind = False
                version, head = room.version, room.head
                tail = await self.store.read_batch(room.id, version)
                if (room.version, room.head) != (version, head):
                    continue  # moved on meanwhile (by a checked append or a chained offer)
                if not self.store.continues(tail, version, head):
                    await self._rewind(f"the log in Redis does not continue seq {version}")
                    return
                if tail.envelopes:
                    after = None
                    if any(isinstance(e.event, CommandsUndone) for e in tail.envelopes):
                        after = await self.store.load_at(room.id, tail.envelopes[-1].seq)
                        if (room.version, room.head) != (version, head):
                            continue
                    self.offer(tail, after, remote=True)
                if not self._behind:
                    return

    async def check(self) -> None:
        """Compare the room with the end of the log in Redis: catch up when the log is ahead,
        reload when it is behind or holds another event at the room's seq. Callers while a
        check is under way share it (a reconnect storm brings a resume per connection, each
        checking the room first: one round trip serves them all)."""
        task = self._check_running
        if task is None or task.done():
            task = self._check_running = asyncio.get_running_loop().create_task(self._check())
            metrics.ROOM_CHECKS.labels("made").inc()
        else:
            metrics.ROOM_CHECKS.labels("shared").inc()
        await asyncio.shield(task)

    async def _check(self) -> None:
        room = self.room
        version, head = room.version, room.head
        last = await self.store.last(room.id)
        if (room.version, room.head) != (version, head) or self.lost:
            return  # moved on meanwhile through checked steps
        if last is None:  # no log: the encounter is gone, unless it is there after all
            await self.rewind("Redis holds no log for the encounter")
            return
        seq, digest = last
        if seq > version:
            await self.catch_up()
        elif seq < version or digest != head:
            await self.rewind(f"Redis's log ends at seq {seq} with another digest than this "
                              f"room's seq {version}" if seq == version else
                              f"Redis's log ends at seq {seq}, behind this room's {version}")

    async def rewind(self, why: str, asked: tuple[object, str] | None = None) -> None:
        """``_rewind`` under the catch-up lock; ``asked``: the connection and command id of the
        command that found the log not to be the room's (answered if the encounter is lost)."""
        async with self._catchup_lock:
            await self._rewind(why, asked)

    async def _rewind(self, why: str, asked: tuple[object, str] | None = None) -> None:
        """Reload from Redis and send every connection a snapshot (``rewound``): the log is not
        the one the room held, so nothing it delivered after the snapshot's seq holds."""
        if self.lost:
            return
        room = self.room
        loaded = await self.store.load_head(room.id)
        if loaded is None:  # (Redis went back to before the encounter existed)
            log.error("room %s: %s, and Redis has no log for it any more", room.id, why)
            self.lose(asked)
            return
        loaded = await self._renewed(loaded)
        screen = await self.store.load_screen(room.id, loaded)
        self.rewinds += 1
        metrics.REWINDS.inc()
        room.reload(loaded, screen, why)

    def _remember_shown(self, state: EncounterState) -> None:
        """Keep the dice secrets ``state`` shows: the one revealed at the end, and those shown
        by renewals."""
        for secret in (state.dice_secret, *state.dice_renewed):
            if secret:
                self.shown[commitment(bytes.fromhex(secret))] = secret

    async def _renewed(self, loaded: Loaded) -> Loaded:
        """``loaded``, with its dice renewed (R117) when they are still drawn from a secret
        this room was shown: Redis went back to before the ``dice_revealed`` (or the
        ``dice_renewed``) the room folded, and the encounter runs on there. The renewal is
        appended before the room reloads, so that its connections' ``rewound`` snapshot holds
        the new commitment; should another process append first (its own renewal, or a
        command), the log is read again."""
        self._remember_shown(self.room.state)
        for _ in range(RENEW_TRIES):
            state = loaded.state
            revealed = self.shown.get(state.dice_commitment or "")
            if revealed is None or state.dice_secret is not None or state.ended \
                    or self.renew is None:
                return loaded
            log.warning("room %s: the log went back to before its dice secret was shown, with "
                        "the encounter running on: renewing its dice (R117)", self.room.id)
            renewed = await self.renew(self.room.id, loaded, revealed)
            if renewed is not None:
                metrics.DICE_RENEWALS.inc()
                return renewed
            again = await self.store.load_head(self.room.id)
            if again is None:
                return loaded  # (gone: the caller finds out on its next read)
            loaded = again
        log.error("room %s: its dice could not be renewed: the log kept moving", self.room.id)
        return loaded

    def lose(self, asked: tuple[object, str] | None = None) -> None:
        """The encounter is gone from Redis: the room tells every connection
        (``encounter_lost``; the command in ``asked`` gets it as its answer) and closes them."""
        self.lost = True
        metrics.LOST.inc()
        self.room.tell_lost(asked)
