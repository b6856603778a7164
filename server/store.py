"""The event store: each encounter's log as a Redis Stream, appended with a compare-and-set.

Keys of one encounter share the hash tag ``{enc:<id>}`` so that they live in one Redis Cluster
slot and one Lua script may touch them all:

- ``{enc:<id>}:events`` — the Stream; entry ids are ``<seq>-0``, so a reader resumes from a seq.
  Each entry holds the envelope (``e``) and its digest (``d``).
- ``{enc:<id>}:meta`` — hash: ``version`` (the last seq), ``head`` (``<seq>:<digest>`` of
  the last event, for the append's compare-and-set and the sweep) and ``bytes`` (the bytes of
  the events appended, as stored: counted from the first append of a version that keeps it).
- ``{enc:<id>}:cmds`` — hash: command dedupe key -> the first outcome (JSON).
- ``{enc:<id>}:tokens`` — hash: token id -> SHA-256 of the token secret.
- ``{enc:<id>}:snap`` — a cached snapshot of the folded state (msgpack), with its version and
  the digest of the event at that version and the state's ``format``
  (``encounter.state.STATE_FORMAT``; a snapshot of another format is rebuilt from the log).

**Digests.** Every event's digest is a keyed hash of the digest before it and of the event's
stored bytes (``LogChain``), so the digest of seq ``n`` stands for the whole log up to ``n``: a
log that went back (Redis restored from an older AOF, a lagging replica promoted) and grew again
holds different digests at the seqs it rewrote, although its seqs look the same. The append's
compare-and-set checks the digest of the log's last event as well as the version, so an append
decided against a state the log no longer has is refused; a snapshot is saved only for the
digest the log has at its version, and used only when it still does.

Appends to a single Redis are group-committed: those asked for during one turn of the event loop
(and while the previous group is in flight) go in one pipeline, one round trip for all, each
still its own atomic script with its own compare-and-set. Each command is acknowledged only
once Redis has answered for its events.

**Bounds.** An encounter holds at most ``max_events`` events and ``max_bytes`` bytes of them
(``--max-encounter-events``, ``--max-encounter-bytes``): an append past either is refused
(``full``) inside the script, so that every process counts the same. An append asked for
``bounded=False`` (the GM ending the encounter, a credential revoked, the server's renewal of
its dice) is counted but never refused.

Every append also publishes its events on the encounter's channel ``{enc:<id>}:appended``
(``channel``), inside the append script: the processes that serve the encounter are subscribed
to it (``server.fanout``). A notification carries the appending process's origin, the version
the log reached, the digest the events follow, their digests and the envelopes
(``Notice``). On a single Redis the script uses ``PUBLISH``; on a Redis Cluster ``SPUBLISH``
(Redis 7 or later), whose channel hashes to the script's slot, so that it reaches only the
shard's subscribers. Pub/sub may drop a notification: the log itself stays the truth.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import msgspec
import orjson
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, ResponseError

from encounter.fold import apply
from encounter.state import STATE_FORMAT, EncounterState, dump_state, load_state
from protocol.events import CommandsUndone, Envelope
from server.batched import Batched

#: The publish command of a single Redis, and of a Redis Cluster (sharded pub/sub, Redis 7+).
PUBLISH = "PUBLISH"
SPUBLISH = "SPUBLISH"
#: Write a snapshot once the log has grown this many events past the last one.
SNAPSHOT_EVERY = 64

_encode_env = msgspec.json.Encoder()
_decode_env = msgspec.json.Decoder(Envelope)
_decode_envs = msgspec.json.Decoder(list[Envelope])

# KEYS: events, meta, cmds   ARGV: expected version, expected head digest, dedupe key, outcome,
# channel, envelopes (a JSON list), new head digest, digests joined by ",", publish command,
# most events, most bytes (0: no bound), n, origin, bytes of the envelopes, envelope 1..n,
# digest 1..n
# The head is the digest of the stream's last entry: meta's ``head`` (``<seq>:<digest>``) when it
# is for meta's version, else (an older version appended after it, or wrote the whole log)
# read from the entry itself, so that it is whatever the log holds, whoever wrote it.
_APPEND = """
if ARGV[3] ~= '' then
  local dup = redis.call('HGET', KEYS[3], ARGV[3])
  if dup then return {'dup', dup} end
end
local meta = redis.call('HMGET', KEYS[2], 'version', 'head', 'bytes')
local v = tonumber(meta[1] or '0')
local h = nil
if meta[2] then
  local at = string.find(meta[2], ':', 1, true)
  if at and tonumber(string.sub(meta[2], 1, at - 1)) == v then h = string.sub(meta[2], at + 1) end
elseif v == 0 then
  h = ''
end
if h == nil then
  h = ''
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  if last then
    local f = last[2]
    for i = 1, #f, 2 do
      if f[i] == 'd' then h = f[i + 1] end
    end
  end
end
if v ~= tonumber(ARGV[1]) or h ~= ARGV[2] then return {'conflict', tostring(v), h} end
local n = tonumber(ARGV[12])
local b = tonumber(meta[3] or '0')
local size = tonumber(ARGV[14])
local most_events, most_bytes = tonumber(ARGV[10]), tonumber(ARGV[11])
if most_events > 0 and v + n > most_events then
  return {'full', 'events', tostring(v), tostring(most_events)}
end
if most_bytes > 0 and b + size > most_bytes then
  return {'full', 'bytes', tostring(b), tostring(most_bytes)}
end
for i = 1, n do
  redis.call('XADD', KEYS[1], (v + i) .. '-0', 'e', ARGV[14 + i], 'd', ARGV[14 + n + i])
end
redis.call('HSET', KEYS[2], 'version', v + n, 'head', (v + n) .. ':' .. ARGV[7], 'bytes', b + size)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[3], ARGV[4]) end
redis.call(ARGV[9], ARGV[5], ARGV[13] .. '\\n' .. (v + n) .. '\\n' .. h .. '\\n' .. ARGV[8] ..
           '\\n' .. ARGV[6])
return {'ok', tostring(v + n)}
"""

# KEYS: snap, events   ARGV: version, data, digest of the event at that version, format —
# keep the newest snapshot of this format only, and only one of the log as it is
_SNAPSHOT = """
local cur = redis.call('HMGET', KEYS[1], 'version', 'format')
if cur[1] and cur[2] == ARGV[4] and tonumber(cur[1]) >= tonumber(ARGV[1]) then return 0 end
local at = redis.call('XRANGE', KEYS[2], ARGV[1] .. '-0', ARGV[1] .. '-0')[1]
if not at then return 0 end
local d = ''
for i = 1, #at[2], 2 do
  if at[2][i] == 'd' then d = at[2][i + 1] end
end
if d ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'data', ARGV[2], 'head', ARGV[3],
           'format', ARGV[4])
return 1
"""


def keys(encounter: str) -> dict[str, str]:
    tag = f"{{enc:{encounter}}}"
    return {name: f"{tag}:{name}" for name in ("events", "meta", "cmds", "tokens", "snap")}


#: The suffix of a channel that tells of appends (after an encounter's or campaign's hash tag).
APPENDED = ":appended"


def channel(encounter: str) -> str:
    """The pub/sub channel of ``encounter``'s appends: its keys' hash tag, so that on a Redis
    Cluster it lives in their slot (and the append script may publish on it)."""
    return f"{{enc:{encounter}}}{APPENDED}"


class Channels(Protocol):
    """What hears the appends of other processes on their channels
    (``server.fanout.ChannelFollower``): told which channels this process wants."""

    def watch(self, channel: str) -> None: ...

    def unwatch(self, channel: str) -> None: ...


@dataclass
class Notice:
    """An append as its channel tells it: the events, their digests and the digest they
    follow (``batch``), the version the log reached (``to``), and the process that appended
    (``origin``: that process delivers them itself, from the script's reply)."""

    origin: str
    to: int
    batch: Batch


def notice_head(data: bytes) -> tuple[str, int]:
    """The origin and the version of a notification, without reading its events (a process
    hears its own appends too, and most are skipped)."""
    origin, to, _ = data.split(b"\n", 2)
    return origin.decode(), int(to)


def parse_notice(data: bytes) -> Notice:
    """The ``Notice`` of a notification as the append script publishes it."""
    origin, to, prev, joined, payload = data.split(b"\n", 4)
    envelopes = decode_envelope_list(payload)
    digests = joined.decode().split(",") if envelopes else []
    return Notice(origin.decode(), int(to), Batch(envelopes, digests, prev=prev.decode()))


class LogChain:
    """The digests of a log: ``digest(n) = H(digest(n - 1) + bytes(n))``, with ``digest(0)``
    empty, ``H`` BLAKE2b keyed with a key derived from the server secret (so that the digest of
    an event a viewer sees in part tells nothing about the part it does not see), 9 bytes in
    URL-safe base64 (12 characters)."""

    def __init__(self, secret: bytes = b"") -> None:
        self.key = hashlib.sha256(b"stablemaster log chain\0" + secret).digest()

    def next(self, prev: str, raw: bytes) -> str:
        h = hashlib.blake2b(prev.encode(), key=self.key, digest_size=9)
        h.update(raw)
        return base64.urlsafe_b64encode(h.digest()).decode()

    def digests(self, prev: str, raws: Sequence[bytes]) -> list[str]:
        out = []
        for raw in raws:
            prev = self.next(prev, raw)
            out.append(prev)
        return out


@dataclass(slots=True)
class Batch:
    """Consecutive events of a log with their digests; ``prev`` is the digest of the event just
    before the first (``""`` before seq 1), or ``None`` when it is not known (the log does not
    reach back to it)."""

    envelopes: list[Envelope] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    prev: str | None = ""
    #: the stored bytes of the envelopes, when read from Redis
    raws: list[bytes] = field(default_factory=list)

    @property
    def head(self) -> str | None:
        return self.digests[-1] if self.digests else self.prev

    @property
    def last_seq(self) -> int | None:
        return self.envelopes[-1].seq if self.envelopes else None


@dataclass(slots=True)
class Loaded:
    state: EncounterState
    head: str


@dataclass(slots=True)
class Screen:
    """What a room loaded from Redis needs of the GM's screen (``encounter.screen``): the
    state at ``told`` while the table has not been told everything (``None`` otherwise), the
    events after ``told`` with their digests, and the digest at ``table_seq``."""

    told_state: EncounterState | None
    unreleased: Batch
    table_digest: str


@dataclass
class Appended:
    status: Literal["ok", "conflict", "duplicate", "full"]
    version: int = 0
    outcome: dict[str, Any] | None = None
    #: the log's head digest: after the append (``ok``), or the one that refused it
    head: str = ""
    #: the digests of the appended events (``ok``)
    digests: list[str] = field(default_factory=list)
    #: ``full``: the bound the append would have gone past (``events`` or ``bytes``), that
    #: bound, and how many of it the encounter holds
    measure: str = ""
    limit: int = 0
    held: int = 0


class NotDurable(Exception):
    """The append went through but Redis did not confirm it durable as the settings ask
    (``WAIT``/``WAITAOF`` timed out): the command answers ``unavailable``, and its retry finds
    the first outcome."""


@dataclass(frozen=True)
class Durability:
    """What an append waits for before it is acknowledged, besides Redis's own reply: nothing
    (``everysec`` or ``always`` with ``appendfsync always`` set on Redis), ``WAITAOF 1 0``
    (``always`` on a Redis 7.2+ without ``appendfsync always``) or ``WAIT <replicas>``."""

    command: tuple[Any, ...] = ()
    #: how many the reply must count (``WAIT``: replicas; ``WAITAOF``: the local fsync)
    needed: int = 0
    label: str = "everysec"

    def satisfied(self, reply: Any) -> bool:
        if not self.command:
            return True
        if self.command[0] == "WAITAOF":
            return int(reply[0]) >= self.needed
        return int(reply) >= self.needed


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


def _seq(entry_id: bytes) -> int:
    return int(entry_id.split(b"-", 1)[0])


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value


class GroupCommit:
    """Runs one Lua script for many callers: the calls that arrive while none is in flight, or
    while one is, leave together in one pipeline (non-transactional: each script is atomic on
    its own, and each caller gets its own reply or error).

    The pipeline goes out on a connection of its own (taken from the client's pool for good,
    so closed with the client), one write for the whole group, each command encoded
    here in one step: redis-py's pipeline spent about as much CPU again on its own objects and
    its per-argument encoding (29 against 16 microseconds per script call, in groups of 20;
    95 for a call on its own through the pool). Its errors are redis-py's, and so are its
    retries: the connection's retry policy sends the group again on a new connection after a
    connection error or a timeout (safe: a script call seen before answers ``dup``)."""

    def __init__(self, redis: Redis | RedisCluster, script: str,
                 durability: Durability | None = None) -> None:
        self.redis: Any = redis
        self.script = script
        self.sha = redis.register_script(script).sha
        #: sent after the scripts on the same connection (``WAIT``, ``WAITAOF``), when asked
        self.durability = durability or Durability()
        self._group: Batched[tuple[list[Any], list[Any]], Any] = Batched("append", self._commit)
        self._connection: Any = None  # taken on first use

    async def aclose(self) -> None:
        """Give the connection back to the client's pool."""
        conn, self._connection = self._connection, None
        if conn is not None:
            await self.redis.connection_pool.release(conn)

    async def __call__(self, keys: list[Any], args: list[Any]) -> Any:
        """The script's reply for these keys and arguments, run with the calls that arrive
        meanwhile (``server.batched``)."""
        return await self._group.get((keys, args))

    async def _commit(self, group: list[tuple[list[Any], list[Any]]]) -> list[Any]:
        """Each call's reply, or its error reply as an exception, in order."""
        replies = await self._pipeline(group)
        again = [i for i, r in enumerate(replies) if isinstance(r, NoScriptError)]
        if again:  # Redis restarted or its scripts were flushed: only those did not run
            await self.redis.script_load(self.script)
            for i, reply in zip(again, await self._pipeline([group[i] for i in again]),
                                strict=True):
                replies[i] = reply
        return replies

    async def _pipeline(self, group: list[tuple[list[Any], list[Any]]]) -> list[Any]:
        wait = self.durability
        commands = [resp_command("EVALSHA", self.sha, len(keys_), *keys_, *args)
                    for keys_, args in group]
        if wait.command:
            # WAIT and WAITAOF count what this connection wrote: it follows the scripts
            commands.append(resp_command(*wait.command))
        conn = self._connection
        if conn is None:
            conn = self._connection = await self.redis.connection_pool.get_connection()
        packed = b"".join(commands)
        replies: list[Any] = await conn.retry.call_with_retry(
            lambda: _exchange(conn, packed, len(commands)), lambda _error: conn.disconnect())
        if not wait.command:
            return replies
        *replies, confirmed = replies
        if isinstance(confirmed, Exception) or not wait.satisfied(confirmed):
            why = NotDurable(f"not confirmed by {wait.label} in time ({confirmed!r})")
            replies = [why if _wrote(r) else r for r in replies]
        return replies


async def _exchange(conn: Any, packed: bytes, count: int) -> list[Any]:
    """Send ``count`` commands packed together, and read their replies (an error reply is its
    exception, in its place)."""
    await conn.send_packed_command(packed, check_health=False)
    replies: list[Any] = []
    for _ in range(count):
        try:
            replies.append(await conn.read_response())
        except ResponseError as exc:  # read whole: the connection stays in step
            replies.append(exc)
    return replies


def resp_command(*args: str | bytes | int) -> bytes:
    """A command in the Redis protocol (RESP): an array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


def _wrote(reply: Any) -> bool:
    """Whether an append script's reply says it appended."""
    return isinstance(reply, list) and bool(reply) and reply[0] in (b"ok", "ok")


class EventStore:
    """Reads and appends encounter logs. Safe to share between tasks of one process."""

    def __init__(self, redis: Redis | RedisCluster, chain: LogChain | None = None,
                 durability: Durability | None = None,
                 max_event_bytes: int | None = None, origin: str = "",
                 max_events: int = 0, max_bytes: int = 0) -> None:
        self.redis: Any = redis  # redis-py's return types are too loose to be useful here
        #: this process, in the notifications of the appends it makes (``Notice.origin``)
        self.origin = origin
        #: No event larger than this (encoded) is appended (``EventTooLarge``).
        self.max_event_bytes = max_event_bytes
        #: The most events and bytes of events an encounter holds (0: no bound): a bounded
        #: append past them is refused (``full``).
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.cluster = isinstance(redis, RedisCluster)
        #: how the append script publishes (sharded pub/sub on a Redis Cluster)
        self.publish = SPUBLISH if self.cluster else PUBLISH
        self.chain = chain or LogChain()
        self.durability = durability or Durability()
        if self.cluster and self.durability.command:
            raise ValueError("waiting for durability is not supported on a Redis Cluster")
        self._append: Any = (redis.register_script(_APPEND) if self.cluster
                             else GroupCommit(redis, _APPEND, self.durability))
        self._snapshot = redis.register_script(_SNAPSHOT)
        #: the token lookups of concurrent ``hello``s, grouped into round trips
        self.token_lookups: Batched[tuple[str, str], bytes | None] = Batched(
            "token", self._token_digests)

    async def aclose(self) -> None:
        """Close what the store opened of its own (the append pipeline's connection)."""
        if isinstance(self._append, GroupCommit):
            await self._append.aclose()

    async def append(
        self,
        encounter: str,
        expected: int,
        envelopes: Sequence[Envelope],
        dedupe: str = "",
        outcome: dict[str, Any] | None = None,
        head: str = "",
        encoded: list[bytes] | None = None,
        delivers: bool = False,
        bounded: bool = True,
    ) -> Appended:
        """Append ``envelopes`` if the log is at version ``expected`` with the head digest
        ``head``; atomically record the command's ``outcome`` under ``dedupe``. A dedupe key
        seen before returns its outcome. ``encoded``: the envelopes as :meth:`encode` made
        them (else they are encoded here). An event over ``max_event_bytes`` raises
        :class:`EventTooLarge` and appends nothing. ``delivers``: the caller offers the events
        to this process's room itself (or catches the room up when it cannot tell whether
        they were appended), so the notification names this process as their origin and its
        follower leaves them be. ``bounded``: refused (``full``) when the encounter would hold
        more than ``max_events`` events or ``max_bytes`` bytes; unbounded, only counted."""
        k = keys(encounter)
        raw = encoded if encoded is not None else self.encode(envelopes)
        digests = self.chain.digests(head, raw)
        payload = b"[" + b",".join(raw) + b"]"
        joined = ",".join(digests)
        keys_ = [k["events"], k["meta"], k["cmds"]]
        new_head = digests[-1] if digests else head
        args: list[Any] = [expected, head, dedupe, orjson.dumps(outcome or {}),
                           channel(encounter), payload, new_head, joined, self.publish,
                           self.max_events if bounded else 0, self.max_bytes if bounded else 0,
                           len(raw), self.origin if delivers else "", sum(map(len, raw)),
                           *raw, *digests]
        reply = await self._append(keys=keys_, args=args)
        status = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
        if status == "dup":
            return Appended("duplicate", outcome=orjson.loads(reply[1]))
        if status == "conflict":
            return Appended("conflict", version=int(reply[1]), head=_text(reply[2]))
        if status == "full":
            return Appended("full", version=expected, measure=_text(reply[1]),
                            held=int(reply[2]), limit=int(reply[3]))
        version = int(reply[1])
        return Appended("ok", version=version, head=new_head, digests=digests)

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

    async def read_batch(self, encounter: str, after: int, count: int | None = None) -> Batch:
        """The events with seq > ``after`` (at most ``count``), with their digests and the
        digest of ``after`` itself as ``prev`` (``None`` when the log does not hold it)."""
        rows = await self.redis.xrange(keys(encounter)["events"], min=f"{after}-0",
                                       count=None if count is None else count + 1)
        batch = Batch(prev="" if after == 0 else None)
        for entry_id, fields in rows:
            seq = _seq(entry_id)
            if seq == after:
                batch.prev = _text(fields.get(b"d"))
                continue
            batch.envelopes.append(_decode_env.decode(fields[b"e"]))
            batch.digests.append(_text(fields.get(b"d")))
            batch.raws.append(fields[b"e"])
        return batch

    async def read_before(self, encounter: str, before: int, count: int
                          ) -> tuple[list[Envelope], list[str]]:
        """The events with seq < ``before``, at most ``count``, the latest ones, oldest first,
        with their digests."""
        if before <= 1:
            return [], []
        rows = await self.redis.xrevrange(keys(encounter)["events"], max=f"{before - 1}-0",
                                          count=count)
        rows.reverse()
        return ([_decode_env.decode(fields[b"e"]) for _id, fields in rows],
                [_text(fields.get(b"d")) for _id, fields in rows])

    def continues(self, batch: Batch, after: int, head: str) -> bool:
        """Whether ``batch`` (read after seq ``after``) continues a log whose digest at
        ``after`` is ``head``: its ``prev`` says so, or, when the log no longer holds ``after``
        (trimmed), its first event chains from ``head``. Events stored without a digest (by an
        older version) cannot be checked and pass."""
        if batch.prev is not None:
            return batch.prev == head
        if not batch.envelopes or batch.envelopes[0].seq != after + 1:
            return False
        first = batch.digests[0]
        return not first or (bool(batch.raws) and self.chain.next(head, batch.raws[0]) == first)

    async def last(self, encounter: str) -> tuple[int, str] | None:
        """The seq and digest of the log's last event (``None`` for an empty log)."""
        rows = await self.redis.xrevrange(keys(encounter)["events"], count=1)
        if not rows:
            return None
        entry_id, fields = rows[0]
        return _seq(entry_id), _text(fields.get(b"d"))

    async def first_seq(self, encounter: str) -> int | None:
        rows = await self.redis.xrange(keys(encounter)["events"], count=1)
        return _seq(rows[0][0]) if rows else None

    async def load(self, encounter: str) -> EncounterState | None:
        loaded = await self.load_head(encounter)
        return None if loaded is None else loaded.state

    async def load_head(self, encounter: str) -> Loaded | None:
        """Rebuild the encounter from Redis alone: the cached snapshot plus the events after it
        (or the whole log when there is no snapshot, when the snapshot holds another format of
        the state, or when the log no longer has the event the snapshot was taken at), with the
        digest of its last event."""
        snap = await self.redis.hgetall(keys(encounter)["snap"])
        state, tail = EncounterState(id=encounter), None
        # a snapshot of another layout of the state is rebuilt from the log, never misread
        if snap and snap.get(b"format") == str(STATE_FORMAT).encode():
            cached = load_state(snap[b"data"])
            tail = await self.read_batch(encounter, cached.version)
            if self.continues(tail, cached.version, _text(snap.get(b"head"))):
                state = cached
            else:  # the log went back past the snapshot, or was trimmed: fold it all
                tail = None
        if tail is None:
            tail = await self.read_batch(encounter, 0)
        if state.version == 0 and not tail.envelopes:
            return None
        await self._fold(encounter, state, tail.envelopes)
        loaded = Loaded(state, tail.head or "")
        if len(tail.envelopes) >= SNAPSHOT_EVERY:
            await self.save_snapshot(state, loaded.head)
        return loaded

    async def load_at(self, encounter: str, seq: int) -> EncounterState | None:
        """The encounter as it was at ``seq`` (the cached snapshot when it is not later, else
        the log from its start), or ``None`` when the log does not reach ``seq``."""
        snap = await self.redis.hgetall(keys(encounter)["snap"])
        state = EncounterState(id=encounter)
        if snap and snap.get(b"format") == str(STATE_FORMAT).encode():
            cached = load_state(snap[b"data"])
            if cached.version <= seq and self.continues(
                    await self.read_batch(encounter, cached.version, count=1),
                    cached.version, _text(snap.get(b"head"))):
                state = cached
        while state.version < seq:
            envelopes = await self.read(encounter, state.version,
                                        count=min(1024, seq - state.version))
            if not envelopes or envelopes[0].seq != state.version + 1:
                return None
            await self._fold(encounter, state, [e for e in envelopes if e.seq <= seq])
        return state if state.version == seq else None

    async def _fold(self, encounter: str, state: EncounterState,
                    envelopes: Sequence[Envelope]) -> None:
        """Fold ``envelopes`` into ``state``; an undo among them (R108) with the state it goes
        back to, read from the log."""
        pasts: dict[int, EncounterState] = {}
        for envelope in envelopes:
            event = envelope.event
            if isinstance(event, CommandsUndone) and event.back_to is not None:
                past = await self.load_at(encounter, event.back_to)
                if past is None:
                    raise ValueError(f"the log of {encounter} no longer reaches seq "
                                     f"{event.back_to}, where the undo at {envelope.seq} goes "
                                     "back to")
                pasts[event.back_to] = past
        for envelope in envelopes:
            apply(state, envelope, pasts.__getitem__)

    async def digest_of(self, encounter: str, seq: int) -> str:
        """The digest the log holds at ``seq`` (``""`` at 0, or where it has none)."""
        if seq == 0:
            return ""
        rows = await self.redis.xrange(keys(encounter)["events"], min=f"{seq}-0",
                                       max=f"{seq}-0")
        return _text(rows[0][1].get(b"d")) if rows else ""

    async def load_screen(self, encounter: str, loaded: Loaded) -> Screen:
        """The screen of ``loaded`` (``Screen``). Its ``told_state`` is ``None`` when the log
        no longer holds what it takes to rebuild it (a log trimmed by hand): the table is then
        shown the current state rather than nothing (the room says so in its log)."""
        state = loaded.state
        digest = loaded.head if state.table_seq == state.version else \
            await self.digest_of(encounter, state.table_seq)
        if state.told >= state.version:
            return Screen(None, Batch(prev=None), digest)
        after = await self.read_batch(encounter, state.told)
        while after.envelopes and after.envelopes[-1].seq > state.version:
            after.envelopes.pop()
            after.digests.pop()
            after.raws.pop()
        return Screen(await self.load_at(encounter, state.told), after, digest)

    async def save_snapshot(self, state: EncounterState, head: str = "") -> None:
        k = keys(state.id)
        await self._snapshot(keys=[k["snap"], k["events"]],
                             args=[state.version, dump_state(state), head, STATE_FORMAT])

    async def put_token(self, encounter: str, token_id: str, digest: str) -> None:
        await self.redis.hset(keys(encounter)["tokens"], token_id, digest)

    async def token_digest(self, encounter: str, token_id: str) -> str | None:
        raw = await self.token_lookups.get((encounter, token_id))
        return None if raw is None else raw.decode()

    async def _token_digests(self, wanted: list[tuple[str, str]]) -> list[bytes | None]:
        if len(wanted) == 1:
            ((encounter, token_id),) = wanted
            return [await self.redis.hget(keys(encounter)["tokens"], token_id)]
        pipe = self.redis.pipeline(transaction=False)
        for encounter, token_id in wanted:
            pipe.hget(keys(encounter)["tokens"], token_id)
        return list(await pipe.execute())

    async def delete_token(self, encounter: str, token_id: str) -> None:
        await self.redis.hdel(keys(encounter)["tokens"], token_id)

    async def ping(self) -> float:
        start = time.perf_counter()
        await self.redis.ping()
        return time.perf_counter() - start
