"""``server.batched``: lookups asked while one round trip is under way go together in the next,
each caller gets its own value (or the round trip's error), and a lone lookup goes at once."""

from __future__ import annotations

import asyncio

import pytest

from server.batched import Batched
from tests.redis_procs import RedisProcess


async def test_lookups_asked_together_share_round_trips(redis_server: RedisProcess) -> None:
    from redis.asyncio import Redis

    redis = Redis.from_url(redis_server.url)
    trips: list[list[str]] = []

    async def fetch(wanted: list[str]) -> list[bytes | None]:
        trips.append(wanted)
        pipe = redis.pipeline(transaction=False)
        for key in wanted:
            pipe.get(key)
        return list(await pipe.execute())

    try:
        await redis.mset({f"batched:{i}": str(i) for i in range(0, 300, 2)})
        lookups = Batched("test", fetch)
        values = await asyncio.gather(*(lookups.get(f"batched:{i}") for i in range(300)))
        assert values == [str(i).encode() if i % 2 == 0 else None for i in range(300)]
        assert sorted(k for trip in trips for k in trip) == sorted(f"batched:{i}"
                                                                  for i in range(300))
        assert len(trips) <= 2  # the first alone at most, then all the others
        trips.clear()
        assert await lookups.get("batched:4") == b"4" and trips == [["batched:4"]]
    finally:
        await redis.aclose()


async def test_every_caller_of_a_failed_round_trip_gets_its_error() -> None:
    calls = 0

    async def fetch(wanted: list[int]) -> list[int]:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0)
        if calls == 1:
            raise ConnectionError("Redis went away")
        return [k * 10 for k in wanted]

    lookups: Batched[int, int] = Batched("test", fetch)
    first = asyncio.gather(*(lookups.get(k) for k in range(5)), return_exceptions=True)
    results = await first
    assert all(isinstance(r, ConnectionError) for r in results)
    assert await asyncio.gather(*(lookups.get(k) for k in range(3))) == [0, 10, 20]
    with pytest.raises(ConnectionError):
        calls = 0
        await lookups.get(1)


async def test_a_fetch_that_answers_for_too_few_keys_fails_each_caller() -> None:
    async def fetch(wanted: list[int]) -> list[int]:
        await asyncio.sleep(0)
        return wanted[:-1]

    lookups: Batched[int, int] = Batched("test", fetch)
    results = await asyncio.gather(*(lookups.get(k) for k in range(4)), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results), results
