"""What ``get_history`` reads: an index of the events each kind of viewer may see, so that a
page reads the events it returns and no others.

For each room it serves, a process keeps which audiences may see each event of the log (its
``vis``, and whether the table is shown it: ``encounter.screen.screened_event``), and from
that, per kind of viewer (whether it sees everything, and its audiences), the seqs it may see,
in order. The index is made the first time a room's history is asked for on this process (the
log read once, a chunk at a time, with a turn of the event loop between chunks) and kept up to
date at each request with the events appended since (read once each). A page is then a slice
of the viewer's seqs, and the events read from Redis are those of the page: one ``XRANGE``
per run of consecutive seqs, all in one round trip. A room that was reloaded from another log
(``Room.rewinds``) is indexed again.
"""

from __future__ import annotations

import asyncio
import weakref
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from encounter.actors import Actor
from encounter.screen import screened_event
from protocol.events import Envelope
from server.rooms import Room
from server.store import decode_envelope, keys

#: Events read from Redis at a time to index a log.
CHUNK = 1000

Kind = tuple[bool, frozenset[str]]


def kind_of(actor: Actor) -> Kind:
    """Viewers of one kind may see the same events."""
    return (actor.sees_all, actor.audiences())


@dataclass
class Index:
    rewinds: int
    #: the last seq indexed
    upto: int = 0
    #: each event indexed: its seq, its audiences (``None``: everyone) and whether the table
    #: is kept from it
    records: list[tuple[int, frozenset[str] | None, bool]] = field(default_factory=list)
    kinds: dict[Kind, list[int]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def add(self, envelopes: list[Envelope]) -> None:
        for envelope in envelopes:
            vis = frozenset(envelope.vis) if envelope.vis is not None else None
            record = (envelope.seq, vis, screened_event(envelope.event))
            self.records.append(record)
            for kind, seqs in self.kinds.items():
                if _sees(kind, record):
                    seqs.append(envelope.seq)
            self.upto = envelope.seq

    def seqs(self, kind: Kind) -> list[int]:
        found = self.kinds.get(kind)
        if found is None:
            found = self.kinds[kind] = [r[0] for r in self.records if _sees(kind, r)]
        return found


def _sees(kind: Kind, record: tuple[int, frozenset[str] | None, bool]) -> bool:
    """``view_event`` is not ``None``: the viewer may see the event (``may_see``), and the
    table is not kept from it, or the viewer sees everything."""
    sees_all, audiences = kind
    _seq, vis, screened = record
    if vis is not None and audiences.isdisjoint(vis):
        return False
    return sees_all or not screened


_indexes: weakref.WeakKeyDictionary[Room, Index] = weakref.WeakKeyDictionary()


async def index_of(room: Room) -> Index:
    """The room's index, brought up to the room's last event."""
    index = _indexes.get(room)
    if index is None or index.rewinds != room.rewinds:
        index = _indexes[room] = Index(room.rewinds)
    async with index.lock:
        while index.upto < room.version:
            batch = await room.store.read_batch(room.id, index.upto, count=CHUNK)
            if not batch.envelopes:
                break
            index.add(batch.envelopes)
            if index.upto < room.version:
                await asyncio.sleep(0)  # (a long log is indexed a chunk per turn of the loop)
    return index


async def locate(room: Room, actor: Actor, end: int, limit: int
                 ) -> tuple[list[int], int | None]:
    """The seqs of the last ``limit`` events before seq ``end`` that ``actor`` may see, and
    the seq the page after them (older) ends before (``None``: they reach the log's start)."""
    index = await index_of(room)
    seqs = index.seqs(kind_of(actor))
    hi = bisect_left(seqs, end)
    lo = max(0, hi - limit)
    wanted = seqs[lo:hi]
    return wanted, wanted[0] if lo > 0 and wanted else None


async def read(room: Room, wanted: list[int]) -> tuple[list[Envelope], list[str]] | None:
    """The events ``wanted`` (seqs, in order) with their digests, in one round trip to Redis;
    ``None`` when the log no longer holds them as indexed (trimmed, or gone back since)."""
    runs: list[tuple[int, int]] = []
    for seq in wanted:
        if runs and runs[-1][1] == seq - 1:
            runs[-1] = (runs[-1][0], seq)
        else:
            runs.append((seq, seq))
    if not runs:
        return [], []
    events_key = keys(room.id)["events"]
    pipe = room.store.redis.pipeline(transaction=False)
    for first, last in runs:
        pipe.xrange(events_key, min=f"{first}-0", max=f"{last}-0")
    replies: list[Any] = await pipe.execute()
    envelopes: list[Envelope] = []
    digests: list[str] = []
    for rows in replies:
        for _id, fields in rows:
            envelopes.append(decode_envelope(fields[b"e"]))
            raw = fields.get(b"d")
            digests.append(raw.decode() if isinstance(raw, bytes) else str(raw or ""))
    if [e.seq for e in envelopes] != wanted:
        return None
    return envelopes, digests
