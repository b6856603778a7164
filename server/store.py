"""The event store: each encounter's log as a Redis Stream, appended with a compare-and-set.

Keys of one encounter share the hash tag ``{enc:<id>}`` so that they live in one Redis Cluster
slot and one Lua script may touch them all:

- ``{enc:<id>}:events`` — the Stream; entry ids are ``<seq>-0``, so a reader resumes from a seq.
- ``{enc:<id>}:meta`` — hash: ``version`` (the last seq).
- ``{enc:<id>}:cmds`` — hash: command dedupe key -> the first outcome (JSON).
- ``{enc:<id>}:tokens`` — hash: token id -> SHA-256 of the token secret.
- ``{enc:<id>}:snap`` — a cached snapshot of the folded state (msgpack), with its version.

Appends to a single Redis are group-committed: those asked for during one turn of the event loop
(and while the previous group is in flight) go in one pipeline, one round trip for all, each
still its own atomic script with its own compare-and-set. Each command is acknowledged only
once Redis has answered for its events.

Every append also lands in ``stablemaster:activity``, a Stream that every server process
follows to learn which encounters changed (``server.fanout``): inside the append script on a
single Redis, right after it on a Redis Cluster (where the activity key is in another slot).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
import orjson
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, ResponseError

from encounter.fold import apply
from encounter.state import EncounterState, dump_state, load_state
from protocol.events import Envelope

ACTIVITY_KEY = "stablemaster:activity"
#: Approximate length the activity stream is trimmed to (it is a wake-up log, not the truth).
ACTIVITY_MAXLEN = 100_000
#: Write a snapshot once the log has grown this many events past the last one.
SNAPSHOT_EVERY = 64

_encode_env = msgspec.json.Encoder()
_decode_env = msgspec.json.Decoder(Envelope)
_decode_envs = msgspec.json.Decoder(list[Envelope])

# KEYS: events, meta, cmds[, activity]   ARGV: expected, dedupe key, outcome, encounter id,
# activity payload, n, envelope 1..n
_APPEND = """
if ARGV[2] ~= '' then
  local dup = redis.call('HGET', KEYS[3], ARGV[2])
  if dup then return {'dup', dup} end
end
local v = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if v ~= tonumber(ARGV[1]) then return {'conflict', tostring(v)} end
local n = tonumber(ARGV[6])
for i = 1, n do
  redis.call('XADD', KEYS[1], (v + i) .. '-0', 'e', ARGV[6 + i])
end
redis.call('HSET', KEYS[2], 'version', v + n)
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
if KEYS[4] then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[7 + n], '*', 'enc', ARGV[4], 'to', v + n,
             'p', ARGV[5])
end
return {'ok', tostring(v + n)}
"""

# KEYS: snap   ARGV: version, data — keep the newest snapshot only
_SNAPSHOT = """
local cur = redis.call('HGET', KEYS[1], 'version')
if cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'data', ARGV[2])
return 1
"""


def keys(encounter: str) -> dict[str, str]:
    tag = f"{{enc:{encounter}}}"
    return {name: f"{tag}:{name}" for name in ("events", "meta", "cmds", "tokens", "snap")}


@dataclass
class Appended:
    status: Literal["ok", "conflict", "duplicate"]
    version: int = 0
    outcome: dict[str, Any] | None = None


class EventTooLarge(ValueError):
    """An event over the store's size limit: nothing of its command is appended."""

    def __init__(self, kind: str, size: int, limit: int) -> None:
        super().__init__(f"the {kind} event would take {size} bytes, over the limit of {limit} "
                         "bytes per event; nothing was changed")
        self.kind, self.size, self.limit = kind, size, limit


def encode_envelopes(envelopes: Sequence[Envelope], limit: int | None = None) -> list[bytes]:
    """The envelopes as stored; :class:`EventTooLarge` when one is over ``limit`` bytes."""
    raw = [_encode_env.encode(e) for e in envelopes]
    if limit is not None:
        for envelope, data in zip(envelopes, raw, strict=True):
            if len(data) > limit:
                raise EventTooLarge(str(envelope.event.__struct_config__.tag), len(data), limit)
    return raw


def decode_envelope(data: bytes) -> Envelope:
    return _decode_env.decode(data)


def decode_envelope_list(data: bytes) -> list[Envelope]:
    return _decode_envs.decode(data)


class GroupCommit:
    """Runs one Lua script for many callers: the calls that arrive while none is in flight, or
    while one is, leave together in one pipeline (non-transactional: each script is atomic on
    its own, and each caller gets its own reply or error)."""

    def __init__(self, redis: Redis | RedisCluster, script: str) -> None:
        self.redis: Any = redis
        self.script = script
        self.sha = redis.register_script(script).sha
        self._waiting: list[tuple[list[Any], list[Any], asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None

    async def __call__(self, keys: list[Any], args: list[Any]) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._waiting.append((keys, args, future))
        if self._committer is None:
            # its first step runs once this turn of the event loop is done: whoever asks to
            # append meanwhile joins the group
            self._committer = loop.create_task(self._run())
        return await future

    async def _run(self) -> None:
        try:
            while self._waiting:
                group, self._waiting = self._waiting, []
                await self._commit(group)
        finally:
            self._committer = None
            for _keys, _args, future in self._waiting:  # only when cancelled (shutdown)
                if not future.done():
                    future.cancel()
            self._waiting = []

    async def _commit(self, group: list[tuple[list[Any], list[Any], asyncio.Future[Any]]]) -> None:
        try:
            replies = await self._pipeline(group)
            again = [i for i, r in enumerate(replies) if isinstance(r, NoScriptError)]
            if again:  # Redis restarted or its scripts were flushed: only those did not run
                await self.redis.script_load(self.script)
                for i, reply in zip(again, await self._pipeline([group[i] for i in again]),
                                    strict=True):
                    replies[i] = reply
        except asyncio.CancelledError:  # shutting down
            for _keys, _args, future in group:
                future.cancel()
            raise
        except Exception as exc:
            for _keys, _args, future in group:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_keys, _args, future), reply in zip(group, replies, strict=True):
            if future.done():
                continue  # its caller is gone; the append happened all the same
            if isinstance(reply, Exception):
                future.set_exception(reply)
            else:
                future.set_result(reply)

    async def _pipeline(self, group: list[tuple[list[Any], list[Any], asyncio.Future[Any]]]
                        ) -> list[Any]:
        if len(group) == 1:  # a pipeline of one costs more than the call itself
            keys_, args, _future = group[0]
            try:
                return [await self.redis.execute_command(
                    "EVALSHA", self.sha, len(keys_), *keys_, *args)]
            except ResponseError as exc:
                return [exc]
        pipe = self.redis.pipeline(transaction=False)
        for keys_, args, _future in group:
            pipe.execute_command("EVALSHA", self.sha, len(keys_), *keys_, *args)
        return list(await pipe.execute(raise_on_error=False))


class EventStore:
    """Reads and appends encounter logs. Safe to share between tasks of one process."""

    def __init__(self, redis: Redis | RedisCluster, max_event_bytes: int | None = None) -> None:
        self.redis: Any = redis  # redis-py's return types are too loose to be useful here
        #: No event larger than this (encoded) is appended (``EventTooLarge``).
        self.max_event_bytes = max_event_bytes
        self.cluster = isinstance(redis, RedisCluster)
        self._append: Any = (redis.register_script(_APPEND) if self.cluster
                             else GroupCommit(redis, _APPEND))
        self._snapshot = redis.register_script(_SNAPSHOT)

    async def append(
        self,
        encounter: str,
        expected: int,
        envelopes: Sequence[Envelope],
        dedupe: str = "",
        outcome: dict[str, Any] | None = None,
        encoded: list[bytes] | None = None,
    ) -> Appended:
        """Append ``envelopes`` if the log is at version ``expected``; atomically record the
        command's ``outcome`` under ``dedupe``. A dedupe key seen before returns its outcome.
        ``encoded``: the envelopes as :meth:`encode` made them (else they are encoded here).
        An event over ``max_event_bytes`` raises :class:`EventTooLarge` and appends nothing."""
        k = keys(encounter)
        raw = encoded if encoded is not None else self.encode(envelopes)
        payload = b"[" + b",".join(raw) + b"]"
        keys_ = [k["events"], k["meta"], k["cmds"]]
        if not self.cluster:
            keys_.append(ACTIVITY_KEY)
        args: list[Any] = [expected, dedupe, orjson.dumps(outcome or {}), encounter, payload,
                           len(raw), *raw, ACTIVITY_MAXLEN]
        status, value = await self._append(keys=keys_, args=args)
        status = status.decode() if isinstance(status, bytes) else status
        if status == "dup":
            return Appended("duplicate", outcome=orjson.loads(value))
        if status == "conflict":
            return Appended("conflict", version=int(value))
        version = int(value)
        if self.cluster:
            await self.redis.xadd(ACTIVITY_KEY, {"enc": encounter, "to": version, "p": payload},
                                  maxlen=ACTIVITY_MAXLEN, approximate=True)
        return Appended("ok", version=version)

    def encode(self, envelopes: Sequence[Envelope]) -> list[bytes]:
        """The envelopes as they would be stored; :class:`EventTooLarge` when one is over
        ``max_event_bytes``."""
        return encode_envelopes(envelopes, self.max_event_bytes)

    async def dedupe_lookup(self, encounter: str, dedupe: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(keys(encounter)["cmds"], dedupe)
        return None if raw is None else orjson.loads(raw)

    async def version(self, encounter: str) -> int:
        raw = await self.redis.hget(keys(encounter)["meta"], "version")
        return int(raw or 0)

    async def read(self, encounter: str, after: int, count: int | None = None) -> list[Envelope]:
        """The events with seq > ``after``, in order."""
        rows = await self.redis.xrange(keys(encounter)["events"], min=f"({after}-0", count=count)
        return [_decode_env.decode(fields[b"e"]) for _id, fields in rows]

    async def first_seq(self, encounter: str) -> int | None:
        rows = await self.redis.xrange(keys(encounter)["events"], count=1)
        return int(rows[0][0].split(b"-")[0]) if rows else None

    async def load(self, encounter: str) -> EncounterState | None:
        """Rebuild the encounter from Redis alone: the cached snapshot plus the events after it
        (or the whole log when there is no snapshot)."""
        snap = await self.redis.hgetall(keys(encounter)["snap"])
        state = load_state(snap[b"data"]) if snap else EncounterState(id=encounter)
        tail = await self.read(encounter, state.version)
        if state.version == 0 and not tail:
            return None
        for envelope in tail:
            apply(state, envelope)
        if len(tail) >= SNAPSHOT_EVERY:
            await self.save_snapshot(state)
        return state

    async def save_snapshot(self, state: EncounterState) -> None:
        await self._snapshot(keys=[keys(state.id)["snap"]], args=[state.version, dump_state(state)])

    async def put_token(self, encounter: str, token_id: str, digest: str) -> None:
        await self.redis.hset(keys(encounter)["tokens"], token_id, digest)

    async def token_digest(self, encounter: str, token_id: str) -> str | None:
        raw = await self.redis.hget(keys(encounter)["tokens"], token_id)
        return None if raw is None else raw.decode()

    async def delete_token(self, encounter: str, token_id: str) -> None:
        await self.redis.hdel(keys(encounter)["tokens"], token_id)

    async def ping(self) -> float:
        start = time.perf_counter()
        await self.redis.ping()
        return time.perf_counter() - start
