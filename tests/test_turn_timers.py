"""Turn timers (ruling R102): the deadline in the log, the warning and the end sent by whichever
process serves the encounter, once, a crash of the process that started it included; the GM's
pause and resume; what the end does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.client import Client, CommandError
from encounter.harness import Refused, Table
from encounter.timers import TIMER, TimerDue
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, join, wait_current

PARTY = [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 9},
         {"name": "Lurker", "id": "lurker", "initiative": 5, "hidden": True},
         {"name": "Dog", "id": "dog", "initiative": 1}]


def due(table: Table, stage: str) -> list[str]:
    timer = table.state.timer
    assert timer is not None
    return table.command(TimerDue(id=f"timer-{timer.number}-{stage}", number=timer.number,
                                  stage=stage), by=TIMER).kinds  # type: ignore[arg-type]


def started(table: Table) -> list[str]:
    """Start the scene, and end the turns until a visible combatant's: the kinds of the last
    command's events."""
    kinds = table.do("start_encounter")
    while table.state.current == "lurker":
        assert "turn_timer_started" not in kinds  # the GM's pace, behind the screen
        kinds = table.act("lurker", "end_turn")
    return kinds


def test_a_timer_starts_with_each_visible_turn_and_warns_then_tells_its_end() -> None:
    table = Table(PARTY, dice_seed=1, turn_seconds=30, turn_warning_seconds=10)
    assert started(table)[-1] == "turn_timer_started"
    first = table.envelopes[-1].event
    assert (first.combatant, first.seconds, first.number) == (table.state.current, 30, 1)
    assert first.deadline == table.now_ms + 30_000 and first.warn_at == table.now_ms + 20_000
    with pytest.raises(Refused) as early:
        due(table, "warn")
    assert early.value.code.value == "stale"
    table.now_ms += 20_000
    assert due(table, "warn") == ["turn_timer_warned"]
    with pytest.raises(Refused):  # once
        due(table, "warn")
    table.now_ms += 10_000
    assert due(table, "expire") == ["turn_timer_expired"]  # notify: the turn goes on
    assert table.state.current == first.combatant and table.state.timer is None
    # every visible turn has one, numbered on; the hidden lurker's none
    numbers = []
    for _ in range(6):
        current = table.state.current
        assert current is not None
        kinds = table.act(current, "end_turn")
        if table.state.current == "lurker":
            assert "turn_timer_started" not in kinds and table.state.timer is None
        else:
            assert kinds[-1] == "turn_timer_started" and table.state.timer is not None
            assert table.state.timer.combatant == table.state.current
            numbers.append(table.state.timer.number)
    assert numbers == list(range(2, 2 + len(numbers))) and len(numbers) == 4
    assert table.replays()


def test_the_end_ends_or_delays_the_turn_or_says_why_it_cannot() -> None:
    table = Table(PARTY, dice_seed=1, turn_seconds=5, turn_expiry="end_turn")
    started(table)
    ending = table.state.current
    table.now_ms += 5_000
    assert due(table, "expire")[:2] == ["turn_timer_expired", "turn_ended"]
    assert table.state.current != ending
    delaying = Table(PARTY, dice_seed=1, turn_seconds=5, turn_expiry="delay")
    started(delaying)
    delayer = delaying.state.current
    delaying.now_ms += 5_000
    assert due(delaying, "expire")[:2] == ["turn_timer_expired", "turn_delayed"]
    assert delayer in delaying.state.delaying
    # an action waiting for its dice cannot be cut short: the end is told, not done
    waiting = Table(PARTY, dice_seed=1, turn_seconds=5, turn_expiry="end_turn",
                    players_roll=True)
    waiting.do("start_encounter")
    for request in list(waiting.state.pending_rolls):
        waiting.send("server_roll", request=request)
    while waiting.state.current != "ace":
        current = waiting.state.current
        assert current is not None
        waiting.act(current, "end_turn")
    waiting.act("ace", "attack", target="dog", weapon="unarmed")
    assert waiting.state.pending_rolls
    waiting.now_ms += 5_000
    assert due(waiting, "expire") == ["turn_timer_expired"]
    (expired,) = waiting.envelopes[-1:]
    assert expired.event.then == "notify" and "dice" in (expired.event.why or "")


def test_the_gm_pauses_and_resumes_with_the_time_left() -> None:
    table = Table(PARTY, dice_seed=1, turn_seconds=30, turn_warning_seconds=10)
    started(table)
    table.now_ms += 12_000
    paused = table.send("pause_turn_timer").events("turn_timer_paused")
    assert paused[0].remaining == 18_000
    with pytest.raises(Refused):
        due(table, "expire")  # a paused timer does not run out
    table.now_ms += 60_000
    (resumed,) = table.send("resume_turn_timer").events("turn_timer_resumed")
    assert resumed.deadline == table.now_ms + 18_000 and resumed.warn_at == table.now_ms + 8_000
    assert table.refused("resume_turn_timer").code.value == "illegal_action"
    from encounter.actors import Actor

    ace = Actor(role="player", token_id="p", combatants=frozenset({"ace"}))
    assert table.refused("pause_turn_timer", by=ace).code.value == "forbidden"


def test_the_screen_s_turn_and_the_turns_inside_it_have_no_timer() -> None:
    table = Table(PARTY, dice_seed=1, turn_seconds=30, anonymous_hidden_turns=True,
                  screen_count=3)
    table.do("start_encounter")
    turns = []
    for _ in range(10):
        current = table.state.current
        assert current is not None
        turns.append((current, table.state.screen_turn, table.state.timer is not None))
        if current != "screen" and not table.state.screen_turn \
                and table.state.combatants["lurker"].hidden:
            # revealed before its turn behind the screen this round: it takes it there (R99)
            table.send("set_hidden", combatant="lurker", hidden=False)
        table.act(current, "end_turn")
    inside = [t for t in turns if t[0] == "screen" or t[1]]
    outside = [t for t in turns if t not in inside]
    assert ("lurker", True, False) in inside and all(not timed for *_, timed in inside)
    assert all(timed for *_, timed in outside) and {c for c, *_ in outside} == {
        "ace", "dog", "lurker"}  # from the next round on its own count, timed


def test_a_ruleset_without_delay_refuses_it_as_the_end() -> None:
    with pytest.raises(Refused) as refused:
        Table([{"name": "Ace", "id": "ace", "kind": "pc", "stats": {"body": "d8"}}],
              ruleset="action_time", turn_seconds=5, turn_expiry="delay")
    assert refused.value.details["field"] == "options.turn_expiry"


#: A scene without hidden combatants: every turn is timed.
OPEN = [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 2},
        {"name": "Dog", "id": "dog", "initiative": 1}]


def _expired(client: Client) -> list[dict[str, Any]]:
    return [m["event"] for m in client.events() if m["event"]["kind"] == "turn_timer_expired"]


async def test_two_processes_serving_the_encounter_end_each_turn_once(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients, OPEN, dice_seed=2, turn_seconds=1,
                               turn_expiry="end_turn")
    gm_b = await join(ws_url(server_b), table.gm_token, clients)
    spectator = await join(ws_url(server_b), table.spectator_token, clients)
    await table.gm.command("start_encounter")
    for c in (table.gm, gm_b, spectator):
        await c.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                         "turn_timer_expired" and m["event"]["number"] >= 3, timeout=15)
    numbers = [e["number"] for e in _expired(gm_b)]
    assert numbers == sorted(set(numbers)) and len(numbers) >= 3  # each once, in order
    assert [e["then"] for e in _expired(spectator)][:3] == ["end_turn"] * 3
    started = [m for m in spectator.events() if m["event"]["kind"] == "turn_timer_started"]
    # counted down from the deadline, on the server's clock: the message's ts is that clock
    assert all(abs(m["event"]["deadline"] - m["ts"] - 1000) < 50 for m in started)
    await table.gm.command("end_encounter")


async def test_a_timer_whose_process_was_killed_ends_once_on_the_other(
        spawn: type, clients: list[Client]) -> None:
    proc_a, proc_b = spawn(), spawn()
    table = await create_table(proc_a.url, clients, OPEN, dice_seed=3, turn_seconds=3,
                               turn_expiry="end_turn")
    await table.gm.command("start_encounter")
    first = await wait_current(table.gm)
    proc_a.kill()  # SIGKILL, before the deadline: the process that started the timer is gone
    await table.gm.closed
    gm = await join(proc_b.url, table.gm_token, clients, since=0)
    await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn_ended"
                      and m["event"]["combatant"] == first, timeout=15)
    await asyncio.sleep(0.5)
    await caught_up(gm)
    assert [e["number"] for e in _expired(gm)] == [1]
    with pytest.raises(CommandError) as refused:
        await gm.command("resume_turn_timer")
    assert refused.value.reply["code"] == "illegal_action"
    await gm.command("end_encounter")


async def test_the_view_keeps_the_timer_as_the_snapshot_has_it(
        server: Server, clients: list[Client]) -> None:
    from tests.test_view import expected, viewer

    url = ws_url(server)
    table = await create_table(url, clients, OPEN, dice_seed=4, turn_seconds=2,
                               turn_warning_seconds=1)
    spectator = await viewer(url, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    await spectator.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "turn_timer_started")
    await caught_up(spectator)
    assert spectator.state["timer"]["number"] == 1
    assert spectator.state == expected(server, spectator)
    await spectator.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "turn_timer_warned", timeout=5)
    await table.gm.command("pause_turn_timer")
    await caught_up(spectator)
    assert spectator.state == expected(server, spectator)
    assert spectator.state["timer"]["deadline"] is None
    assert 0 < spectator.state["timer"]["remaining"] <= 1000
    await table.gm.command("resume_turn_timer")
    await spectator.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "turn_timer_expired", timeout=5)
    await caught_up(spectator)
    assert spectator.state["timer"] is None and spectator.state == expected(server, spectator)
    assert spectator.view_mismatches == 0
