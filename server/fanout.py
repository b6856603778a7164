"""Fan-out between processes: hear the encounters this process serves, offer their events.

Each encounter has a channel, ``{enc:<id>}:appended`` (``server.store.channel``), on which the
append script publishes what it appended (``server.store.Notice``): ``PUBLISH`` on a single
Redis, ``SPUBLISH`` on a Redis Cluster (sharded pub/sub, Redis 7 or later; the channel hashes to
the encounter's slot, so a notification reaches only the shard of the encounter and the
processes subscribed there). A campaign's appends go on ``{camp:<id>}:appended``.

A process subscribes to an encounter's channel when the room opens here, and to a campaign's
while a connection of the campaign is here; it unsubscribes ``linger`` seconds after the last
one left (a table that reconnects does not churn). No process hears of tables it does not
serve.

Pub/sub drops what is published while a subscriber is away, so it is only the fast path; the
log stays the truth:

- every subscription made or made again (redis-py subscribes again, silently, after it
  reconnects; a cluster's shard subscriptions move with their slot) is confirmed by Redis, and
  the confirmation makes the room check itself against its log (``LogFollow.check``): what was
  published before the subscription took is read from the log. A confirmation this follower
  did not ask for (a reconnect, a moved slot) checks every room at once (``sweep_once``);
- a notification that does not follow the room's version or head digest makes it read the gap
  from the log, or reload (``LogFollow.offer``);
- when the pub/sub connection fails, every room is checked as soon as Redis answers again;
- and a periodic sweep compares every room's version and head digest with Redis, a slice at a
  time, which also finds a log that went back and an encounter no longer in Redis
  (``encounter_lost``).

A process's own appends: the command path offers its events to the room with the state it has
already computed, so the append names this process as their origin (``EventStore.append``,
``delivers``) and the follower leaves a notification of its own origin to the command that
holds the room's command lock. Without the lock held (the room was opened again meanwhile) it
is offered like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from server.rooms import Room, Rooms
from server.store import keys, notice_head, parse_notice

log = logging.getLogger("stablemaster.fanout")

#: The longest pause between two tries to reach Redis again, in seconds.
RETRY_AT_MOST = 0.5
#: Rooms checked in one round trip of the sweep.
SWEEP_SLICE = 50
#: Seconds a channel stays subscribed after its last connection left.
LINGER = 2.0
#: Channels subscribed or unsubscribed in one command.
CHANNELS_AT_ONCE = 200
#: How long a read of the subscription connection waits for a message, in seconds.
LISTEN = 1.0

_CHANNEL = re.compile(r"^\{(enc|camp):(.+)\}:appended$")


def _stop_if_cancelled() -> None:
    """Raise ``CancelledError`` when this task was asked to stop. The Redis client may swallow
    the ``CancelledError`` of a cancelled call (the call then simply returns), which would
    leave a loop running for good and ``stop`` waiting for it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class ShardedPubSubMissing(RuntimeError):
    """A Redis Cluster whose nodes have no sharded pub/sub (Redis before 7)."""


async def require_sharded_pubsub(redis: RedisCluster) -> None:
    """Refuse a Redis Cluster of a Redis older than 7: it has no ``SPUBLISH``, and a plain
    ``PUBLISH`` on a cluster goes to every node, which is the cost this fan-out removes."""
    await redis.initialize()  # (the nodes are known once it is)
    for node in redis.get_primaries():
        info = await redis.execute_command("INFO", "server", target_nodes=node)
        version = str(info.get("redis_version", "0"))
        if int(version.split(".")[0]) < 7:
            raise ShardedPubSubMissing(
                f"the Redis Cluster node {node.name} runs Redis {version}: a cluster needs "
                "Redis 7 or later (sharded pub/sub, SPUBLISH), on every node")


class ChannelFollower:
    def __init__(self, redis: Redis | RedisCluster, listener: Redis | RedisCluster,
                 rooms: Rooms, sweep_interval: float,
                 on_campaign: Callable[[str], None] | None = None,
                 origin: str = "") -> None:
        self.redis: Any = redis  # shared: sweeps
        #: the client the subscriptions' connection comes from
        self.listener: Any = listener
        self.sharded = isinstance(listener, RedisCluster)
        self.pubsub: Any = listener.pubsub()
        self.rooms = rooms
        #: told of each campaign that changed, or may have (R113)
        self.on_campaign = on_campaign
        self.sweep_interval = sweep_interval
        #: notifications of this origin are this process's own appends (``EventStore.origin``)
        self.origin = origin
        self.linger = LINGER
        #: the channels this process wants to hear, and those it asked Redis for
        self.wanted: set[str] = set()
        self.subscribed: set[str] = set()
        #: channels subscribed whose confirmation has not come yet
        self._asked: set[str] = set()
        self._leaving: dict[str, asyncio.TimerHandle] = {}
        self._changed = asyncio.Event()
        self._listening = asyncio.Event()
        self._subscribed = asyncio.Event()  # (set by each subscription made)
        self._sweeping: asyncio.Task[None] | None = None
        self._sweep_again = False
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._listen(), name="listen"),
                      loop.create_task(self._subscriptions(), name="subscriptions"),
                      loop.create_task(self._sweep(), name="sweep")]

    async def stop(self) -> None:
        for handle in self._leaving.values():
            handle.cancel()
        self._leaving.clear()
        tasks = [*self.tasks, *([self._sweeping] if self._sweeping else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(RedisError, OSError):
            await self.pubsub.aclose()
        await self.listener.aclose()

    # -- what this process hears ------------------------------------------------------------

    def watch(self, channel: str) -> None:
        """Hear ``channel`` from now on (a room opened here, or a campaign's first
        connection came)."""
        leaving = self._leaving.pop(channel, None)
        if leaving is not None:
            leaving.cancel()
        if channel not in self.wanted:
            self.wanted.add(channel)
            self._changed.set()
        elif channel in self.subscribed and channel not in self._asked:
            # Heard all along (it lingered): a notification that came while the room was
            # loading found no room; the room checks itself as a new subscription's would.
            found = _CHANNEL.match(channel)
            if found is not None and found.group(1) == "enc":
                self._check("enc", found.group(2))

    def unwatch(self, channel: str) -> None:
        """Stop hearing ``channel`` in ``linger`` seconds, unless watched again meanwhile."""
        if channel not in self.wanted or channel in self._leaving:
            return
        self._leaving[channel] = asyncio.get_running_loop().call_later(
            self.linger, self._forget, channel)

    def _forget(self, channel: str) -> None:
        del self._leaving[channel]
        self.wanted.discard(channel)
        self._changed.set()

    async def _subscriptions(self) -> None:
        """Bring Redis's subscriptions to ``wanted``, in batches."""
        backoff = 0.05
        while True:
            _stop_if_cancelled()
            await self._changed.wait()
            self._changed.clear()
            try:
                await self._apply()
                backoff = 0.05
            except (RedisError, OSError) as exc:
                log.warning("could not change subscriptions (%s); retrying", exc)
                self._changed.set()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RETRY_AT_MOST)

    async def _apply(self) -> None:
        add = sorted(self.wanted - self.subscribed)
        drop = sorted(self.subscribed - self.wanted)
        for i in range(0, len(add), CHANNELS_AT_ONCE):
            part = add[i:i + CHANNELS_AT_ONCE]
            self._asked.update(part)
            if self.sharded:
                await self.pubsub.ssubscribe(*part)
            else:
                await self.pubsub.subscribe(*part)
            self.subscribed.update(part)
            self._listening.set()
            self._subscribed.set()
        for i in range(0, len(drop), CHANNELS_AT_ONCE):
            part = drop[i:i + CHANNELS_AT_ONCE]
            self._asked.difference_update(part)
            if self.sharded:
                await self.pubsub.sunsubscribe(*part)
            else:
                await self.pubsub.unsubscribe(*part)
            self.subscribed.difference_update(part)  # (only once sent: a failure tries again)

    # -- hearing -----------------------------------------------------------------------------

    async def _listen(self) -> None:
        backoff = 0.05
        # After a failed read, every room is checked as soon as Redis answers again: what was
        # published meanwhile is lost, and a Redis that came back may hold another log, or
        # none, for an encounter.
        unsure = False
        while True:
            _stop_if_cancelled()
            if not self._listening.is_set():
                await self._listening.wait()
            try:
                if unsure:
                    await self.sweep_once()
                    unsure = False
                if self.sharded:
                    if not self.pubsub.node_pubsub_mapping:  # (nothing heard on any shard)
                        self._subscribed.clear()
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self._subscribed.wait(), LISTEN)
                        continue
                    message = await self.pubsub.get_sharded_message(timeout=LISTEN)
                else:
                    message = await self.pubsub.get_message(timeout=LISTEN)
                backoff = 0.05
                _stop_if_cancelled()
            except (RedisError, OSError) as exc:
                if not unsure:
                    log.warning("pub/sub read failed (%s); retrying", exc)
                unsure = True
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RETRY_AT_MOST)
                continue
            if message is not None:
                try:
                    self._heard(message)
                except Exception:  # one bad notification must not stop the fan-out
                    log.exception("could not take a notification on %r", message.get("channel"))

    def _heard(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        kind = kind.decode() if isinstance(kind, bytes) else kind
        raw = message["channel"]
        name = raw.decode() if isinstance(raw, bytes) else str(raw)
        found = _CHANNEL.match(name)
        if found is None:
            return
        what, ident = found.groups()
        if kind in ("subscribe", "ssubscribe"):
            if name not in self.wanted:
                # The client library subscribed it again when it reconnected: an unsubscribe
                # written to a connection Redis had already closed is lost, and the library
                # keeps the channel until Redis confirms. Drop it again.
                self.subscribed.add(name)
                self._changed.set()
            elif name in self._asked:
                self._asked.discard(name)
                self._check(what, ident)
            else:  # subscribed again after a reconnect, or moved with its slot
                self.request_sweep()
            return
        if kind not in ("message", "smessage"):
            return
        if what == "camp":
            if self.on_campaign is not None:
                self.on_campaign(ident)
            return
        room = self.rooms.peek(ident)
        if room is None:
            return
        data = message["data"]
        origin, to = notice_head(data)  # (what is skipped is not read further)
        if to <= room.version:
            return  # seen
        if origin and origin == self.origin and room.command_lock.locked():
            return  # this process's command is delivering it
        notice = parse_notice(data)
        try:
            room.following.offer(notice.batch, remote=True)
        except Exception:
            log.exception("could not deliver the notification of %s at %d", ident, notice.to)
            room.following.schedule_catchup()

    def _check(self, what: str, ident: str) -> None:
        """A subscription took: what was published before it is read from the log."""
        if what == "camp":
            if self.on_campaign is not None:
                self.on_campaign(ident)
            return
        room = self.rooms.peek(ident)
        if room is not None:
            room.following.schedule_check()

    # -- the sweep ---------------------------------------------------------------------------

    def request_sweep(self) -> None:
        """Check every room (and campaign) now, once (again, if one is under way)."""
        if self._sweeping is not None and not self._sweeping.done():
            self._sweep_again = True
            return
        self._sweeping = asyncio.get_running_loop().create_task(self._sweep_now())

    async def _sweep_now(self) -> None:
        while True:
            self._sweep_again = False
            try:
                await self.sweep_once()
            except (RedisError, OSError) as exc:
                log.warning("sweep after a resubscription failed: %s", exc)
            if not self._sweep_again:
                return

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
                _stop_if_cancelled()

    async def sweep_once(self) -> None:
        """Check every room now (after the subscriptions' connection failed or reconnected),
        and tell the campaigns heard here that they may have changed."""
        rooms = list(self.rooms)
        for i in range(0, len(rooms), SWEEP_SLICE):
            await self.sweep_rooms(rooms[i:i + SWEEP_SLICE])
        if self.on_campaign is not None:
            for name in list(self.wanted):
                found = _CHANNEL.match(name)
                if found is not None and found.group(1) == "camp":
                    self.on_campaign(found.group(2))

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
                room.following.schedule_check()  # before it existed); the room looks, and tells
                continue
            if int(raw) > room.version:
                room.following.schedule_catchup()
            elif int(raw) < version:
                room.following.schedule_check()  # Redis is behind what this room served
            elif int(raw) == version and raw_head is not None:
                at, _, digest = raw_head.decode().partition(":")
                # (an older version's appends leave the head behind the version: not a sign)
                if at == raw.decode() and digest != head:
                    room.following.schedule_check()

