"""Who is connected to each credential of an encounter, across every process that serves it
(the ``presence`` feature of ``hello.features``).

Each process writes its own connections to the encounter's sorted set in Redis,
``{enc:<id>}:presence``: a member ``<token id>|<connection id>`` per websocket connection, its
score the time (ms) until which it counts. A process adds and removes its connections as they
join and leave (looked at every ``PresenceWatch.interval`` seconds) and renews them every
``RENEW_SECONDS``; a process that dies stops renewing, and its connections stop counting
``LAPSE_SECONDS`` later. The renewals are spread over the ticks, each encounter's on its own
schedule and at most a tick's share of the encounters in each tick, so that a process serving
many tables never writes all of them at once (a write of every encounter's members in one
pipeline held up the commands of every table while it was encoded). Every room with a
connection that asked for the feature reads the set as often, and sends those connections a
``presence`` message whenever what it says changed: to a GM credential every credential with
its connections (token id, role, label, combatants); to anyone else the player credentials
connected, by the combatants they play that it sees (no token id, no label).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from typing import Any

import msgspec
from redis.exceptions import RedisError

from encounter.actors import Actor
from protocol import messages as msg
from server.rooms import Room, Rooms

log = logging.getLogger("stablemaster.presence")

#: How long a connection counts after it was last renewed, in seconds.
LAPSE_SECONDS = 30.0
#: How often a process renews its connections, in seconds.
RENEW_SECONDS = 10.0


def presence_key(encounter: str) -> str:
    return f"{{enc:{encounter}}}:presence"


def seats_for(viewer: Actor, counts: Counter[str], room: Room) -> list[msg.PresenceSeat]:
    """What ``viewer`` is told of who is connected: every credential, to a GM; the players'
    credentials, by the combatants it sees that they play, to anyone else."""
    state = room.state
    seats: list[msg.PresenceSeat] = []
    for token_id, n in sorted(counts.items()):
        grant = state.tokens.get(token_id)
        if grant is None or grant.revoked:
            continue
        if viewer.is_gm or viewer.sees_all:
            seats.append(msg.PresenceSeat(token_id=token_id, role=grant.role, label=grant.label,
                                          combatants=sorted(grant.combatants), connections=n))
        elif grant.role == "player":
            seen = [c for c in sorted(grant.combatants) if c in state.combatants
                    and not state.combatants[c].hidden]
            if seen:
                seats.append(msg.PresenceSeat(role="player", combatants=seen, connections=n))
    return seats


class PresenceWatch:
    def __init__(self, redis: Any, rooms: Rooms, interval: float = 1.0) -> None:
        self.redis, self.rooms, self.interval = redis, rooms, interval
        #: per encounter: the members this process wrote
        self.written: dict[str, set[str]] = {}
        #: per connection (by id): the last presence it was sent
        self.told: dict[str, bytes] = {}
        #: per encounter: when this process last renewed its members there
        self.renewed: dict[str, float] = {}
        self.clock = time.time
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        with contextlib.suppress(RedisError, OSError):
            await self._write({})  # this process's connections count no more

    async def _run(self) -> None:
        while True:
            try:
                await self.once()
            except (RedisError, OSError) as exc:
                log.warning("presence: Redis unavailable: %s", exc)
            await asyncio.sleep(self.interval)

    async def once(self) -> None:
        """Write what changed of this process's connections, then tell who asked."""
        local: dict[str, set[str]] = {}
        watched: list[tuple[Room, list[Any]]] = []
        alive: set[str] = set()
        for room in list(self.rooms):  # (one pass over every connection: this runs each tick)
            members: set[str] = set()
            watchers: list[Any] = []
            for s in room.sessions:
                sid = getattr(s, "id", None)
                if sid is None:
                    continue
                alive.add(sid)
                if s.actor is not None and hasattr(s, "presence"):
                    members.add(f"{s.actor.token_id}|{sid}")
                    if s.presence:
                        watchers.append(s)
            if members:
                local[room.id] = members
            if watchers:
                watched.append((room, watchers))
        await self._write(local)
        if watched:  # one round trip for all of them
            now = int(time.time() * 1000)
            pipe = self.redis.pipeline(transaction=False)
            for room, _ in watched:
                pipe.zrangebyscore(presence_key(room.id), now, "+inf")
            for (room, watchers), found in zip(watched, await pipe.execute(), strict=True):
                self._tell(room, watchers, found)
        for gone in set(self.told) - alive:
            del self.told[gone]

    def _renewing(self, local: dict[str, set[str]], now: float) -> set[str]:
        """The encounters whose members are renewed this tick: those due (renewed
        ``RENEW_SECONDS`` ago or more), the longest due first, at most a tick's share of them
        all (the lapse leaves room for a late renewal)."""
        due = [(at, eid) for eid in local
               if now - (at := self.renewed.get(eid, now)) >= RENEW_SECONDS]
        if not due:
            return set()
        ticks = max(1, round(RENEW_SECONDS / self.interval))
        share = -(-len(local) // ticks)  # (rounded up)
        due.sort()
        return {eid for _at, eid in due[:share]}

    async def _write(self, local: dict[str, set[str]]) -> None:
        now = self.clock()
        renewing = self._renewing(local, now)
        until = int((now + LAPSE_SECONDS) * 1000)
        pipe = self.redis.pipeline(transaction=False)
        writes = 0
        for eid in set(self.written) | set(local):
            before, after = self.written.get(eid, set()), local.get(eid, set())
            if not after:
                self.renewed.pop(eid, None)
            elif eid in renewing or not before:
                self.renewed[eid] = now  # (all its members written now)
            added = after if eid in renewing else after - before
            if added:
                pipe.zadd(presence_key(eid), {m: until for m in added})
                pipe.expire(presence_key(eid), int(LAPSE_SECONDS * 2))
                writes += 2
            if before - after:
                pipe.zrem(presence_key(eid), *(before - after))
                writes += 1
        if writes:
            await pipe.execute()
        self.written = local

    def _tell(self, room: Room, watchers: list[Any], members: list[Any]) -> None:
        counts: Counter[str] = Counter(
            (m.decode() if isinstance(m, bytes) else str(m)).split("|", 1)[0] for m in members)
        for session in watchers:
            message = msg.Presence(encounter=room.id,
                                   seats=seats_for(session.actor, counts, room))
            frame = msgspec.json.encode(message)
            if self.told.get(session.id) != frame:
                self.told[session.id] = frame
                session.send(message)
