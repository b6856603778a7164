"""The event store's group commit (``server.store.GroupCommit``) against a real Redis: appends
asked for together go in one round trip, yet each keeps its own compare-and-set, its own
dedupe and its own answer."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from protocol import events as ev
from protocol.events import Envelope
from server.store import EventStore
from tests.redis_procs import RedisProcess

_ids = itertools.count()


def envelopes(first_seq: int, n: int = 2) -> list[Envelope]:
    return [Envelope(seq=first_seq + i, ts=1, event=ev.RoundStarted(round=first_seq + i))
            for i in range(n)]


@pytest.fixture
async def store(redis_server: RedisProcess) -> AsyncIterator[EventStore]:
    redis = Redis.from_url(redis_server.url)
    yield EventStore(redis)
    await redis.aclose()


async def test_appends_asked_for_together_each_get_their_own_answer(store: EventStore) -> None:
    run = next(_ids)
    encounters = [f"gc{run}-{i}" for i in range(30)]
    first = await asyncio.gather(*(store.append(e, 0, envelopes(1), f"c{e}") for e in encounters))
    assert [a.status for a in first] == ["ok"] * 30 and {a.version for a in first} == {2}
    heads = {e: a.head for e, a in zip(encounters, first, strict=True)}
    # at once: a fresh append, a stale one (conflict) and a retried command id (duplicate)
    # for every encounter
    results = await asyncio.gather(*(
        call for e in encounters for call in (
            store.append(e, 2, envelopes(3), f"d{e}", head=heads[e]),
            store.append(e, 0, envelopes(1), f"x{e}"),
            store.append(e, 0, envelopes(1), f"c{e}", {"seq": 2}),
        )))
    statuses = [r.status for r in results]
    assert statuses == ["ok", "conflict", "duplicate"] * 30, statuses
    for e in encounters:
        assert [x.seq for x in await store.read(e, 0)] == [1, 2, 3, 4]


async def test_an_append_after_redis_forgot_its_scripts_still_lands(store: EventStore) -> None:
    encounter = f"gc{next(_ids)}-flushed"
    first = await store.append(encounter, 0, envelopes(1), "a")
    assert first.status == "ok"
    await store.redis.script_flush()
    both = await asyncio.gather(store.append(encounter, 2, envelopes(3), "b", head=first.head),
                                store.append(f"{encounter}-other", 0, envelopes(1), "c"))
    assert [a.status for a in both] == ["ok", "ok"]
    assert (await store.append(encounter, 4, envelopes(5, 1), "d",
                               head=both[0].head)).status == "ok"
    assert [x.seq for x in await store.read(encounter, 0)] == [1, 2, 3, 4, 5]


async def test_the_compare_and_set_checks_the_head_digest_too(store: EventStore) -> None:
    encounter = f"gc{next(_ids)}-head"
    first = await store.append(encounter, 0, envelopes(1), "a")
    # the right version with another head: another log than the one the caller holds
    other = await store.append(encounter, 2, envelopes(3), "b", head="not-the-head")
    assert other.status == "conflict" and (other.version, other.head) == (2, first.head)
    ok = await store.append(encounter, 2, envelopes(3), "b", head=first.head)
    assert ok.status == "ok" and ok.digests[-1] == ok.head
    batch = await store.read_batch(encounter, 2)
    assert batch.prev == first.head and batch.digests == ok.digests
    assert await store.last(encounter) == (4, ok.head)
    # each digest chains from the one before it
    assert store.chain.digests(first.head, batch.raws) == ok.digests


async def test_a_snapshot_is_kept_and_used_only_for_the_log_it_was_taken_of(
        store: EventStore) -> None:
    from encounter.state import EncounterState
    from server.store import keys

    encounter = f"gc{next(_ids)}-snap"
    first = await store.append(encounter, 0, envelopes(1), "a")
    state = EncounterState(id=encounter, version=2)
    await store.save_snapshot(state, "another-head")  # not the log's digest at seq 2: refused
    assert not await store.redis.exists(keys(encounter)["snap"])
    await store.save_snapshot(state, first.head)
    assert await store.redis.hget(keys(encounter)["snap"], "head") == first.head.encode()
    # the log is rewritten at seq 2 (as a restore and a new writer would leave it): the
    # snapshot no longer describes it, and loading folds the log instead
    k = keys(encounter)
    [(entry_id, fields)] = await store.redis.xrange(k["events"], count=1)
    await store.redis.delete(k["events"])
    await store.redis.xadd(k["events"], fields, id=entry_id)
    await store.redis.hset(k["meta"], "version", 1)
    rewritten = [Envelope(seq=2, ts=2, event=ev.RoundStarted(round=7))]
    again = await store.append(encounter, 1, rewritten, "c",
                               head=(await store.read_batch(encounter, 0)).digests[0])
    assert again.status == "ok" and again.head != first.head
    loaded = await store.load_head(encounter)
    assert loaded is not None and loaded.head == again.head and loaded.state.round == 7
