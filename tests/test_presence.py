"""Who is connected (the ``presence`` feature; ``server.presence``), over real websockets and
across two server processes on one Redis: a GM on one process sees a player who joins on the
other, with the credential's label, and sees it leave; a player is told which characters are
played, never a token id or a label; a connection without the feature gets no ``presence``."""

from __future__ import annotations

import asyncio
from typing import Any

from clients.client import FEATURES, Client
from server.app import Server
from tests.conftest import ServerProcess, ws_url
from tests.helpers import create_table, open_client
from tests.redis_procs import RedisProcess
from tests.test_faults import start_server


def latest(client: Client) -> list[dict[str, Any]] | None:
    found = [m for m in client.messages if m["type"] == "presence"]
    return found[-1]["seats"] if found else None


async def until(client: Client, test: Any, timeout: float = 10) -> list[dict[str, Any]]:
    async with asyncio.timeout(timeout):
        while True:
            seats = latest(client)
            if seats is not None and test(seats):
                return seats
            await asyncio.sleep(0.05)


async def test_a_gm_sees_a_player_join_on_another_process_and_leave(
        server: Server, redis_server: RedisProcess, procs: list[ServerProcess],
        clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    other = start_server(procs, redis_server.url)
    gm = await open_client(url, clients)
    await gm.hello(table.gm_token, features=[*FEATURES, "presence"])
    assert "presence" in (gm.welcome or {})["features"]
    seats = await until(gm, lambda s: any(x["role"] == "gm" for x in s))
    assert not any(x["role"] == "player" for x in seats)

    # Twilight's player joins on the other process
    twilight = await Client.open(other.url)
    await twilight.hello(table.tokens["twilight"], features=[*FEATURES, "presence"])
    try:
        seats = await until(gm, lambda s: any(x.get("combatants") == ["twilight"] for x in s))
        mine = next(x for x in seats if x.get("combatants") == ["twilight"])
        assert mine["role"] == "player" and mine["connections"] == 1 and mine["token_id"]
        # the player hears of the characters played, nothing more
        told = await until(twilight, lambda s: any(x.get("combatants") == ["twilight"] for x in s))
        assert all(set(x) <= {"role", "combatants", "connections"} for x in told), told
        assert all(x["role"] == "player" for x in told)
    finally:
        await twilight.close()
    await until(gm, lambda s: not any(x.get("combatants") == ["twilight"] for x in s))

    # without the feature, no presence
    quiet = await open_client(url, clients)
    await quiet.hello(table.gm_token)
    await asyncio.sleep(2.5)
    assert latest(quiet) is None


async def test_renewals_are_spread_over_the_ticks_and_none_lapses(
        redis_server: RedisProcess) -> None:
    """A process serving 100 encounters renews their members a tick's share at a time (at
    most 10 encounters a tick, with renewals due every 10 ticks), never all at once, and no
    member's time runs out meanwhile; a member who leaves is gone at once."""
    from redis.asyncio import Redis

    from server.presence import LAPSE_SECONDS, RENEW_SECONDS, PresenceWatch, presence_key

    redis = Redis.from_url(redis_server.url)
    now = [1_000_000.0]
    watch = PresenceWatch(redis, rooms=None, interval=1.0)  # type: ignore[arg-type]
    watch.clock = lambda: now[0]
    encounters = [f"spread-{i}" for i in range(100)]
    local = {eid: {f"t{eid}|c1", f"t{eid}|c2"} for eid in encounters}

    async def zadds() -> int:
        stats = await redis.info("commandstats")
        return int(stats.get("cmdstat_zadd", {}).get("calls", 0))

    try:
        before = await zadds()
        await watch._write(local)  # every encounter is new: written at once
        assert await zadds() - before == 100
        per_tick = []
        for _ in range(int(RENEW_SECONDS * 4)):
            now[0] += 1.0
            before = await zadds()
            await watch._write(local)
            per_tick.append(await zadds() - before)
            for eid in encounters[::9]:
                alive = await redis.zrangebyscore(presence_key(eid), int(now[0] * 1000), "+inf")
                assert len(alive) == 2, (eid, now[0])
        assert max(per_tick) <= 10, per_tick
        assert sum(per_tick) >= 100 * 3, per_tick  # each renewed about every 10 ticks
        assert max(watch.renewed.values()) - min(watch.renewed.values()) < LAPSE_SECONDS
        gone = {**local, encounters[0]: {f"t{encounters[0]}|c1"}}
        await watch._write(gone)
        assert await redis.zrange(presence_key(encounters[0]), 0, -1) == \
            [f"t{encounters[0]}|c1".encode()]
    finally:
        await redis.delete(*(presence_key(eid) for eid in encounters))
        await redis.aclose()
