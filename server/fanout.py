"""Fan-out between processes: follow the activity Stream, offer new events to local rooms.

Every append lands in ``stablemaster:activity`` with the encounter id and the appended
envelopes. Each process reads it with ``XREAD BLOCK`` from the last id it saw, so a process
that lost its Redis connection resumes where it stopped (unlike pub/sub, which drops what was
published meanwhile). Entries for encounters without local connections are skipped. A room
that sees a gap in seqs reads the missing events from the encounter's own Stream, and a
periodic sweep compares every local room's version (and head digest) with Redis, which also
covers activity entries trimmed away during a long disconnection, a log in Redis that went
back (the room then checks the log itself, and reloads), and an encounter that is no longer in
Redis at all (its connections are told, ``encounter_lost``, and closed). The sweep goes
through the rooms a slice at a time, spread over its interval; after the activity stream could
not be read, every room is checked as soon as Redis answers again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from server.rooms import Room, Rooms
from server.store import ACTIVITY_KEY, Batch, decode_envelope_list, keys

log = logging.getLogger("stablemaster.fanout")

BLOCK_MS = 2000
#: The longest pause between two tries to reach Redis again, in seconds.
RETRY_AT_MOST = 0.5
#: Rooms checked in one round trip of the sweep.
SWEEP_SLICE = 50


def _stop_if_cancelled() -> None:
    """Raise ``CancelledError`` when this task was asked to stop. The Redis client may swallow
    the ``CancelledError`` of a cancelled call (the call then simply returns), which would
    leave a loop running for good and ``stop`` waiting for it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class ActivityFollower:
    def __init__(self, redis: Redis | RedisCluster, blocking: Redis | RedisCluster, rooms: Rooms,
                 sweep_interval: float,
                 on_campaign: Callable[[str], None] | None = None) -> None:
        self.redis: Any = redis  # shared: sweeps
        self.blocking: Any = blocking  # its own connection, for XREAD BLOCK
        self.rooms = rooms
        #: told of each campaign that changed (an entry ``campaign:<id>``, R113)
        self.on_campaign = on_campaign
        self.sweep_interval = sweep_interval
        self.last_id = "$"
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        # Start from the current end of the activity stream; rooms load their state from Redis
        # when they open, so nothing before this point is needed.
        info = await self.redis.xinfo_stream(ACTIVITY_KEY) if await self.redis.exists(
            ACTIVITY_KEY) else None
        self.last_id = info["last-generated-id"].decode() if info else "0-0"
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._follow()), loop.create_task(self._sweep())]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    @staticmethod
    def _honour_cancel() -> None:
        """redis-py can swallow a cancellation that arrives as a reply does (its pipeline
        waits under a timeout): a task asked to stop stops all the same."""
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise asyncio.CancelledError

    async def _follow(self) -> None:
        backoff = 0.05
        # After a failed read, every room is checked as soon as Redis answers again (before
        # reading on): what the activity stream said meanwhile is lost, and a Redis that came
        # back may hold another log, or none, for an encounter.
        unsure = False
        while True:
            _stop_if_cancelled()
            try:
                if unsure:
                    await self.sweep_once()
                    unsure = False
                reply = await self.blocking.xread({ACTIVITY_KEY: self.last_id}, count=500,
                                                  block=BLOCK_MS)
                backoff = 0.05
                self._honour_cancel()
            except (RedisError, OSError) as exc:
                if not unsure:
                    log.warning("activity stream read failed (%s); retrying", exc)
                unsure = True
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RETRY_AT_MOST)
                continue
            for _stream, entries in reply or ():
                for entry_id, fields in entries:
                    self.last_id = entry_id.decode()
                    name = fields[b"enc"].decode()
                    if name.startswith("campaign:"):
                        if self.on_campaign is not None:
                            self.on_campaign(name.removeprefix("campaign:"))
                        continue
                    room = self.rooms.peek(name)
                    if room is None:
                        continue
                    to = int(fields[b"to"])
                    if to <= room.version or (room.appending_to is not None
                                              and to <= room.appending_to):
                        continue  # seen, or this process's own command is delivering it
                    try:
                        room.offer(activity_batch(fields), remote=True)
                    except Exception:  # one bad entry must not stop the fan-out
                        log.exception("could not deliver activity %s", self.last_id)
                        room.schedule_catchup()

    async def _sweep(self) -> None:
        """Every room is checked once per ``sweep_interval``, a slice at a time, so that a
        process with many rooms never stalls on one big round trip."""
        while True:
            _stop_if_cancelled()
            rooms = list(self.rooms)
            slices = [rooms[i:i + SWEEP_SLICE] for i in range(0, len(rooms), SWEEP_SLICE)]
            pause = self.sweep_interval / max(1, len(slices))
            if not slices:
                await asyncio.sleep(pause)
            for part in slices:
                await asyncio.sleep(pause)
                _stop_if_cancelled()
                try:
                    await self.sweep_rooms(part)
                except (RedisError, OSError) as exc:
                    log.warning("sweep failed: %s", exc)
                self._honour_cancel()

    async def sweep_once(self) -> None:
        """Check every room now (after the activity stream could not be read)."""
        rooms = list(self.rooms)
        for i in range(0, len(rooms), SWEEP_SLICE):
            await self.sweep_rooms(rooms[i:i + SWEEP_SLICE])

    async def sweep_rooms(self, rooms: list[Room]) -> None:
        if not rooms:
            return
        pipe = self.redis.pipeline(transaction=False)  # one round trip for the slice
        for room in rooms:
            pipe.hmget(keys(room.id)["meta"], "version", "head")
        # what each room held when Redis was asked (it may move on during the round trip)
        held = [(room.version, room.head) for room in rooms]
        replies = await pipe.execute()
        for room, (version, head), (raw, raw_head) in zip(rooms, held, replies, strict=True):
            if raw is None:  # no meta: the encounter may be gone from Redis (restored to
                room.schedule_check()  # before it existed); the room looks, and tells
                continue
            if int(raw) > room.version:
                room.schedule_catchup()
            elif int(raw) < version:
                room.schedule_check()  # Redis is behind what this room served
            elif int(raw) == version and raw_head is not None:
                at, _, digest = raw_head.decode().partition(":")
                # (an older version's appends leave the head behind the version: not a sign)
                if at == raw.decode() and digest != head:
                    room.schedule_check()


def activity_batch(fields: dict[bytes, bytes]) -> Batch:
    """The events of an activity entry, with their digests and the digest they follow (entries
    written by an older version carry neither: they are taken as they are)."""
    envelopes = decode_envelope_list(fields[b"p"])
    joined = fields.get(b"d")
    if joined is None:
        return Batch(envelopes, [""] * len(envelopes), prev=None)
    digests = joined.decode().split(",") if envelopes else []
    return Batch(envelopes, digests, prev=fields.get(b"h0", b"").decode())
