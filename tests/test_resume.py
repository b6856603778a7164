"""Dropped connections resume from their last seq: no gap, no duplicate, redacted alike."""

from __future__ import annotations

import asyncio
import time

import orjson
import pytest

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import settings_for, ws_url
from tests.helpers import caught_up, create_table, join, open_client, play_turns, wait_current
from tests.helpers import event_log as logged
from tests.redis_procs import RedisProcess


async def test_a_reconnecting_player_gets_exactly_what_it_missed(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    a, b = ws_url(server), ws_url(server_b)
    table = await create_table(a, clients)
    watcher = await join(a, table.tokens["twilight"], clients)  # stays connected throughout
    player = await join(a, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 3)
    await watcher.command("ping")  # same process: it now has everything sent before
    await caught_up(player)
    before = logged(player)
    last, digest = player.last_seq, player.last_digest
    await player.close()
    await play_turns(table.gm, {"twilight": watcher}, 5)  # happens while the player is away
    back = await join(b, table.tokens["twilight"], clients, since=last, digest=digest)  # on B
    await play_turns(table.gm, {"twilight": back}, 2)
    await watcher.command("ping")
    await back.wait_seq(watcher.last_seq)  # a seq the player sees: it reaches B as well
    assert back.snapshot is None  # resumed with events, not a snapshot
    resumed = before + logged(back)
    # exactly the events the uninterrupted watcher saw: no gap, no duplicate
    assert resumed == logged(watcher)
    assert len({s for s, _ in resumed}) == len(resumed)


async def test_a_gm_resuming_from_zero_replays_the_whole_log(server: Server,
                                                             clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    replay = await join(url, table.gm_token, clients, since=0)
    await replay.wait_seq(table.gm.last_seq)
    seqs = [s for s, _ in logged(replay)]
    assert seqs == list(range(1, table.gm.last_seq + 1))


async def test_resume_further_back_than_the_log_reaches_gets_a_snapshot(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 3)
    # an operator trimmed the stream's oldest entries (e.g. archived them)
    from server.store import keys

    await server.redis.xtrim(keys(table.encounter)["events"], minid=f"{table.gm.last_seq - 2}-0")
    other = await join(ws_url(server), table.gm_token, clients, since=1)
    await other.wait_for(lambda m: m["type"] in ("snapshot", "event"))
    assert other.snapshot is not None and other.snapshot["reason"] == "resume_gap"
    assert other.snapshot["seq"] == table.gm.last_seq


async def test_resume_from_the_future_gets_a_snapshot(server: Server, clients: list[Client]
                                                      ) -> None:
    table = await create_table(ws_url(server), clients)
    client = await join(ws_url(server), table.gm_token, clients, since=10_000)
    await client.wait_for(lambda m: m["type"] in ("snapshot", "event"))
    assert client.snapshot is not None and client.snapshot["reason"] == "resume_ahead"


async def test_a_spectator_resuming_sees_no_hidden_combatant(server: Server,
                                                             clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    spectator = await join(url, table.spectator_token, clients, since=0)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 6)
    again = await join(url, table.spectator_token, clients, since=0)
    await again.wait_for(lambda m: m["type"] == "legal_actions")  # sent after the replay
    assert "lurker" not in str(spectator.messages)
    assert "lurker" not in str(again.messages)
    assert logged(again) and logged(again) == [e for e in logged(spectator)
                                               if e[0] <= again.last_seq]


async def test_a_resume_whose_digest_is_not_the_logs_gets_a_rewound_snapshot(
        server: Server, clients: list[Client]) -> None:
    """A resume with the log's digest at ``since`` gets the events; with another, a
    ``rewound`` snapshot; with none, an ``unverified`` one (the server cannot tell whether the
    log it would replay is the one the client saw), except from the very start."""
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    seq, digest = table.gm.last_seq, table.gm.last_digest
    assert digest is not None
    unsure = await join(url, table.gm_token, clients, since=seq - 1)
    await unsure.wait_for(lambda m: m["type"] == "legal_actions")
    assert unsure.snapshot is not None and unsure.snapshot["reason"] == "unverified"
    assert unsure.snapshot["seq"] == seq and not unsure.events()
    start = await join(url, table.gm_token, clients, since=0)
    await start.wait_for(lambda m: m["type"] == "legal_actions")
    assert start.snapshot is None and start.events()[-1]["seq"] == seq
    good = await open_client(url, clients)
    await good.hello(table.gm_token, since=seq, digest=digest)
    await good.wait_for(lambda m: m["type"] == "legal_actions")
    assert good.snapshot is None
    bad = await open_client(url, clients)
    await bad.hello(table.gm_token, since=seq, digest="AAAAAAAAAAAA")
    await bad.wait_for(lambda m: m["type"] == "snapshot")
    assert bad.snapshot is not None and bad.snapshot["reason"] == "rewound"
    assert (bad.snapshot["seq"], bad.snapshot["digest"]) == (seq, digest)


async def test_a_room_whose_log_went_back_reloads_and_tells_its_connections(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    """The log in Redis is cut back to an earlier seq (what a restore from an older AOF
    leaves): both processes' rooms reload, their connections get a ``rewound`` snapshot, and
    commands go through again instead of answering ``conflict``."""
    from server.store import keys

    a, b = ws_url(server), ws_url(server_b)
    table = await create_table(a, clients)
    watcher = await join(b, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    kept = table.gm.last_seq
    await play_turns(table.gm, {}, 4)
    await watcher.wait_until(lambda: watcher.last_seq > kept)  # it has seen what goes
    k = keys(table.encounter)
    rows = await server.redis.xrange(k["events"], max=f"{kept}-0")
    pipe = server.redis.pipeline(transaction=True)
    pipe.delete(k["events"], k["snap"])
    for entry_id, fields in rows:
        pipe.xadd(k["events"], fields, id=entry_id)
    pipe.hset(k["meta"], mapping={"version": kept,
                                  "head": f"{kept}:{rows[-1][1][b'd'].decode()}"})
    await pipe.execute()
    # at once, before the sweep comes by: a resume from the old end, on a process whose room
    # still holds it, finds the log behind
    ahead = await join(a, table.gm_token, clients, since=table.gm.last_seq)
    await ahead.wait_for(lambda m: m["type"] == "snapshot")
    assert ahead.snapshot is not None and ahead.snapshot["reason"] == "resume_ahead"
    assert ahead.snapshot["seq"] == kept
    for client in (table.gm, watcher):
        snap = await client.wait_for(lambda m: m["type"] == "snapshot"
                                     and m["reason"] == "rewound", timeout=10)
        # the GM's at the log's end; the spectator's at the last event the table is told of
        # there (the end may be behind the GM's screen)
        room = (server if client is table.gm else server_b).rooms.peek(table.encounter)
        assert room is not None and room.version == kept
        assert snap["seq"] == (kept if client is table.gm else room.state.table_seq)
    actor = await wait_current(table.gm)
    ack = await table.gm.command("act", combatant=actor, action="end_turn")
    assert ack["seq"] > kept
    # the spectator is told once a turn it sees begins (the lurker's waits behind the screen)
    await play_turns(table.gm, {}, 2)
    await watcher.wait_seq(kept + 1)


async def test_a_resume_while_the_rooms_last_connection_leaves_still_gets_new_events(
        server: Server, clients: list[Client]) -> None:
    """A client resumes (its replay reads Redis) while the only other connection to the
    encounter closes: the room must stay this process's, or the resumed connection is left
    in a room that nobody follows and misses every later event (commands of a connection
    that comes afterwards go to a room loaded anew)."""
    url = ws_url(server)
    table = await create_table(url, clients, [{"name": f"Dog {i}"} for i in range(200)])
    await table.gm.command("start_encounter")  # several hundred events: the replay reads Redis
    last = await table.gm.command("ping")
    assert table.gm.last_seq > 300, last
    room = server.rooms.peek(table.encounter)
    assert room is not None and len(room.sessions) == 1
    (leaving,) = room.sessions
    back = await open_client(url, clients)
    await back.send_raw(orjson.dumps({"type": "hello", "versions": [1],
                                      "token": table.gm_token, "since": 0}).decode())

    def resuming() -> bool:  # authenticated, its replay not done: not in the room yet
        return any(s.room is room and s not in room.sessions for s in list(server.sessions))

    async with asyncio.timeout(5):
        while not resuming():
            await asyncio.sleep(0)
    await table.gm.close()  # meanwhile the room's only connection leaves
    async with asyncio.timeout(5):
        while leaving in room.sessions:
            await asyncio.sleep(0)
    await back.wait_seq(room.version)
    gm = await join(url, table.gm_token, clients)
    ack = await gm.command("add_effect", name="a late note", until="scene")
    await back.wait_seq(ack["seq"], timeout=5)  # the resumed connection gets it too
    assert back.last_seq == ack["seq"]
    assert server.rooms.peek(table.encounter) is room


async def test_a_refused_hello_leaves_no_room_behind(server: Server,
                                                     clients: list[Client]) -> None:
    """A token refused after its encounter was loaded (expired; a GM token in a spectator
    URL) does not keep the encounter loaded on this process for good."""
    url = ws_url(server)
    table = await create_table(url, clients)
    invite = await table.gm.command("issue_invite", combatants=["twilight"], expires_in=1)
    await table.gm.close()
    async with asyncio.timeout(5):
        while server.rooms.peek(table.encounter) is not None:
            await asyncio.sleep(0.01)
    watcher = await open_client(f"{url}?spectate={table.gm_token}", clients)
    refused = await watcher.wait_for(lambda m: m["type"] == "error")
    assert refused["code"] == "forbidden"
    await watcher.close()
    assert server.rooms.peek(table.encounter) is None
    await asyncio.sleep(1.1)  # the invite expires
    player = await open_client(url, clients)
    with pytest.raises(CommandError) as refused_hello:
        await player.hello(invite["result"]["token"])
    assert refused_hello.value.code == "unauthenticated"
    assert server.rooms.peek(table.encounter) is None
    back = await join(url, table.gm_token, clients)  # the encounter loads again when joined
    assert server.rooms.peek(table.encounter) is not None
    await back.command("ping")


async def test_an_encounter_gone_from_redis_is_told_and_a_command_for_it_answered(
        redis_server: RedisProcess, server_b: Server, clients: list[Client]) -> None:
    """The encounter's keys vanish from Redis (what a restore to before it existed leaves):
    a command for it is answered ``encounter_lost`` (not ``unavailable``), on a process whose
    sweep would not come by for an hour; every connection of it, there and on another
    process, is told ``encounter_lost`` unasked and closed with 4003; its tokens name nothing
    any more."""
    from server.store import keys

    slow = Server(settings_for(redis_server.url, sweep_interval=3600.0))
    await slow.start()
    try:
        a, b = ws_url(slow), ws_url(server_b)
        table = await create_table(a, clients)
        player = await join(b, table.tokens["twilight"], clients)
        watcher = await join(a, table.spectator_token, clients)
        await table.gm.command("start_encounter")
        await asyncio.gather(player.command("ping"), watcher.command("ping"))  # in their rooms
        await slow.redis.delete(*keys(table.encounter).values())
        with pytest.raises(CommandError) as refused:
            await table.gm.command("set_options", options={"npc_rolls_public": True})
        assert refused.value.code == "encounter_lost"
        told = time.monotonic()
        for client in (table.gm, player, watcher):
            if client is not table.gm:  # (the GM's is its command's answer)
                error = await client.wait_for(lambda m: m["type"] == "error"
                                              and m["code"] == "encounter_lost", timeout=5)
                assert "no longer" in error["message"] and error["id"] is None
            await asyncio.wait_for(client.closed, 5)
            assert client.ws.close_code == 4003
        # the other process found it with its sweep (every 0.5 s here)
        assert time.monotonic() - told < 3
        again = await open_client(a, clients)
        with pytest.raises(CommandError) as unknown:
            await again.hello(table.gm_token)
        assert unknown.value.code == "unauthenticated"
    finally:
        await slow.stop()
