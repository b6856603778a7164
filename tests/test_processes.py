"""Several server processes on one Redis: the same events, in the same order, for everyone;
conflicting commands; a process killed mid-encounter."""

from __future__ import annotations

import asyncio

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import (
    caught_up,
    create_table,
    event_log,
    join,
    kinds,
    play_turns,
    seqs,
    wait_current,
)


async def test_clients_on_two_processes_see_the_same_events_in_the_same_order(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    a, b = ws_url(server), ws_url(server_b)
    table = await create_table(a, clients)
    player = await join(a, table.tokens["twilight"], clients)
    spectator = await join(b, table.spectator_token, clients)
    gm_b = await join(b, table.gm_token, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {"twilight": player}, 13)
    final = (await table.gm.command("ping"), table.gm.last_seq)[1]
    await gm_b.wait_seq(final)
    # the GM on A and the GM on B saw exactly the same log (since B joined)
    joined = gm_b.snapshot["seq"] if gm_b.snapshot else 0
    assert event_log(gm_b) == [e for e in event_log(table.gm) if e[0] > joined]
    assert gm_b.last_seq == final
    # a spectator on B sees a gapless subsequence, in order, never a hidden combatant
    await spectator.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                             "turn_started" and m["event"]["round"] == 3)
    spectator_log = event_log(spectator)
    assert spectator_log == sorted(set(spectator_log))
    assert set(spectator_log) <= set(event_log(table.gm))
    assert "lurker" not in str(spectator.messages)
    assert "lurker" in str(gm_b.messages)
    # the player's view: its own, public ones — the same turns as the spectator
    await caught_up(player)  # on A, like the GM: now it has every event sent before
    assert [k for k in kinds(player) if k == "turn_started"] == [
        k for k in kinds(spectator) if k == "turn_started"][: kinds(player).count("turn_started")]


async def test_conflicting_commands_from_two_processes_exactly_one_wins(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    a, b = ws_url(server), ws_url(server_b)
    for _ in range(5):
        table = await create_table(a, clients)
        gm_b = await join(b, table.gm_token, clients)
        await table.gm.command("start_encounter")
        actor = await wait_current(table.gm)
        await gm_b.wait_for(lambda m: m["type"] == "legal_actions" and any(
            x["action"] == "end_turn" for x in m["actions"]))
        # both GMs end the same turn at the same moment: only one may succeed
        results = await asyncio.gather(
            table.gm.command("act", combatant=actor, action="end_turn"),
            gm_b.command("act", combatant=actor, action="end_turn"),
            return_exceptions=True,
        )
        wins = [r for r in results if isinstance(r, dict)]
        losses = [r for r in results if isinstance(r, CommandError)]
        assert len(wins) == 1 and len(losses) == 1, results
        assert losses[0].code in ("not_your_turn", "conflict")
        ended = [m for m in table.gm.events() if m["event"]["kind"] == "turn_ended"]
        await asyncio.sleep(0.05)
        ended = [m for m in table.gm.events() if m["event"]["kind"] == "turn_ended"]
        assert len(ended) == 1


async def test_a_killed_process_loses_no_acknowledged_event(spawn: type, clients: list[Client]
                                                            ) -> None:
    proc_a = spawn()
    proc_b = spawn()
    table = await create_table(proc_a.url, clients)
    player = await join(proc_a.url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {"twilight": player}, 7)
    acked = table.gm.last_seq
    log_before = event_log(table.gm)
    proc_a.kill()  # SIGKILL: no shutdown, no flush
    await table.gm.closed
    # the other process serves the encounter with every acknowledged event
    gm = await join(proc_b.url, table.gm_token, clients, since=0)
    await gm.wait_seq(acked)
    replayed = event_log(gm)
    assert [e[0] for e in replayed] == list(range(1, len(replayed) + 1))
    assert [e for e in replayed if e[0] >= log_before[0][0]][: len(log_before)] == log_before
    # and play goes on there
    player_b = await join(proc_b.url, table.tokens["twilight"], clients)
    await play_turns(gm, {"twilight": player_b}, 3)
    assert kinds(gm).count("turn_started") >= kinds_count(log_before, "turn_started") + 3


def kinds_count(log: list[tuple[int, str]], kind: str) -> int:
    return sum(1 for _, k in log if k == kind)


async def test_a_restarted_process_serves_the_encounter_from_redis_alone(
        spawn: type, clients: list[Client]) -> None:
    proc = spawn()
    table = await create_table(proc.url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 4)
    seen = event_log(table.gm)
    assert await asyncio.to_thread(proc.terminate) == 0
    again = spawn()
    gm = await join(again.url, table.gm_token, clients, since=0)
    await gm.wait_seq(seen[-1][0])
    assert [e for e in event_log(gm) if e[0] >= seen[0][0]] == seen


async def test_the_log_replays_to_the_same_state(server: Server, clients: list[Client]) -> None:
    from encounter.fold import fold

    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 5)
    room = server.rooms.peek(table.encounter)
    assert room is not None
    log = await server.store.read(table.encounter, 0)
    assert fold(table.encounter, log) == room.state
    reloaded = await server.store.load(table.encounter)
    assert reloaded == room.state


async def test_seqs_are_gapless_for_the_gm(server: Server, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 4)
    gm_seqs = seqs(table.gm)
    assert gm_seqs == list(range(gm_seqs[0], gm_seqs[0] + len(gm_seqs)))
