"""Turn preconditions (docs/protocol.md, "Commands, acks and retries"): every ``legal_actions``
carries ``turn_id``; a command with an ``expect_turn`` that is no longer the current turn's is
refused as ``stale`` and appends nothing, on whichever process decides it."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from clients.client import Client, CommandError
from clients.live import Seat
from encounter.state import STATE_FORMAT, dump_state, turn_id
from server.app import Server
from server.store import keys
from tests.conftest import ws_url
from tests.helpers import create_table, join, wait_current
from tests.scene import Network


async def legal_for(client: Client, actor: str) -> dict[str, Any]:
    """The newest ``legal_actions`` that offers ``actor``'s end of turn."""
    message: dict[str, Any] = await client.wait_for(
        lambda m: m["type"] == "legal_actions" and any(
            a["action"] == "end_turn" and a.get("combatant") == actor for a in m["actions"]),
        start=max((i for i, m in enumerate(client.messages) if m["type"] == "legal_actions"),
                  default=0))
    return message


async def test_two_gms_on_two_processes_end_the_same_turn_once(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    a, b = ws_url(server), ws_url(server_b)
    for _ in range(5):
        table = await create_table(a, clients)
        gm_b = await join(b, table.gm_token, clients)
        await table.gm.command("start_encounter")
        actor = await wait_current(table.gm)
        turn_a = (await legal_for(table.gm, actor))["turn_id"]
        turn_b = (await legal_for(gm_b, actor))["turn_id"]
        assert turn_a == turn_b  # the same turn has the same id on every process
        before = table.gm.last_seq
        # both GMs press "end turn" for the same turn at the same moment
        results = await asyncio.gather(
            table.gm.command("act", id="end-a", combatant=actor, action="end_turn",
                             expect_turn=turn_a),
            gm_b.command("act", id="end-b", combatant=actor, action="end_turn",
                         expect_turn=turn_b),
            return_exceptions=True)
        wins = [r for r in results if isinstance(r, dict)]
        losses = [r for r in results if isinstance(r, CommandError)]
        assert len(wins) == 1 and len(losses) == 1, results
        assert losses[0].code == "stale", losses[0].reply
        winner = table.gm if results[0] is wins[0] else gm_b
        await asyncio.sleep(0.1)  # anything else would have arrived by now
        ended = [m for m in table.gm.events()
                 if m["seq"] > before and m["event"]["kind"] == "turn_ended"]
        assert len(ended) == 1
        assert losses[0].reply["details"]["turn_id"] != turn_a
        # a retry of the winning command's id still answers with its first outcome
        again = await winner.command("act", id="end-a" if winner is table.gm else "end-b",
                                     combatant=actor, action="end_turn", expect_turn=turn_a)
        assert again["duplicate"] is True and again["seq"] == wins[0]["seq"]
        # the stale command appended nothing, and sending it again is stale again
        loser = gm_b if winner is table.gm else table.gm
        loser_id = "end-b" if winner is table.gm else "end-a"
        try:
            await loser.command("act", id=loser_id, combatant=actor, action="end_turn",
                                expect_turn=turn_a)
            raise AssertionError("a stale retry went through")
        except CommandError as err:
            assert err.code == "stale"
        assert table.gm.last_seq == wins[0]["seq"]


async def test_yesterdays_turn_id_is_stale_after_a_new_turn_started(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("start_encounter")
    first = await wait_current(table.gm)
    old = (await legal_for(table.gm, first))["turn_id"]
    await table.gm.command("act", combatant=first, action="end_turn", expect_turn=old)
    second = await wait_current(table.gm)
    assert second != first
    new = (await legal_for(table.gm, second))["turn_id"]
    assert new != old
    seq = table.gm.last_seq
    for cmd in ({"type": "act", "combatant": second, "action": "end_turn"},
                {"type": "act", "combatant": second, "action": "fall_prone"},
                {"type": "set_hidden", "combatant": "dog", "hidden": True}):
        fields = {k: v for k, v in cmd.items() if k != "type"}
        try:
            await table.gm.command(cmd["type"], expect_turn=old, **fields)
            raise AssertionError(f"{cmd} with an old turn id went through")
        except CommandError as err:
            assert err.code == "stale" and err.reply["details"] == {"turn_id": new}
    assert table.gm.last_seq == seq  # nothing appended
    # with the current id, and without any, commands go through as before
    await table.gm.command("act", combatant=second, action="end_turn", expect_turn=new)
    third = await wait_current(table.gm)
    await table.gm.command("act", combatant=third, action="end_turn")


async def test_the_turn_id_changes_only_when_a_turn_starts_is_interrupted_or_resumes(
        server: Server, clients: list[Client]) -> None:
    scene = await Network(server, clients).create([
        {"name": n.title(), "id": n, "kind": "pc", "initiative": mod}
        for n, mod in (("ace", 50), ("bee", 25), ("cub", 0))], dice_seed=10)
    ids: list[str] = []

    async def turn_id() -> str:
        await scene.gm.command("ping")  # every legal_actions of the last command is in
        legal = [m for m in scene.gm.messages if m["type"] == "legal_actions"][-1]
        ids.append(legal["turn_id"])
        return ids[-1]

    setup = await turn_id()
    await scene.do("set_options", options={"dice_seed": 10, "npc_rolls_public": True})
    assert await turn_id() == setup  # a GM command is not a turn
    await scene.do("start_encounter")
    ace = await turn_id()
    assert ace != setup
    await scene.act("ace", "ready", action="other_standard", trigger="when bee moves")
    await scene.act("ace", "move")
    assert await turn_id() == ace  # actions within the turn keep it
    await scene.act("ace", "end_turn")
    bee = await turn_id()
    await scene.act("bee", "move")
    assert await turn_id() == bee
    await scene.act("ace", "trigger_ready")
    interrupt = await turn_id()  # an interrupt is a turn of its own
    await scene.act("ace", "other_standard")
    resumed = await turn_id()  # and so is the resumed turn
    assert len({setup, ace, bee, interrupt, resumed}) == 5, ids
    assert scene.state.current == "bee"
    # the process that folds the log from Redis alone computes the same id
    loaded = await scene.server.store.load(scene.encounter)
    assert loaded is not None and loaded.turn_serial == scene.state.turn_serial


async def test_the_reference_seat_sends_the_turn_it_was_shown(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    seat = Seat(url, table.gm_token).start()
    try:
        await table.gm.command("start_encounter")
        first = await wait_current(table.gm)
        await seat.wait_until(lambda: any(a["action"] == "end_turn" and a["combatant"] == first
                                          for a in seat.legal))
        shown = seat.turn_id
        assert shown is not None
        # another GM ends the turn; the seat learns the new turn
        await table.gm.command("act", combatant=first, action="end_turn")
        await seat.wait_until(lambda: seat.turn_id != shown)
        second = await wait_current(table.gm)
        # a click made on the list the seat showed before: stale, nothing happens
        seat.turn_id = shown
        seq = table.gm.last_seq
        try:
            await seat.act(second, "end_turn")
            raise AssertionError("an act for a past turn went through")
        except CommandError as err:
            assert err.code == "stale"
        await table.gm.command("ping")
        assert table.gm.last_seq == seq
    finally:
        await seat.stop()


async def test_a_snapshot_cached_before_the_turn_id_is_rebuilt_not_misread(
        server: Server, clients: list[Client]) -> None:
    scene = await Network(server, clients).create([
        {"name": n.title(), "id": n, "kind": "pc", "initiative": mod}
        for n, mod in (("ace", 50), ("bee", 25))], dice_seed=3)
    await scene.do("start_encounter")
    await scene.turns_in_round()
    state = scene.state
    assert state.turn_serial == 3
    # a snapshot as a server before the turn id cached it: no format, no turn_serial
    old = msgspec.structs.replace(state, turn_serial=0, name="misread")
    snap = keys(scene.encounter)["snap"]
    redis = scene.server.redis
    await redis.delete(snap)
    await redis.hset(snap, mapping={"version": state.version, "data": dump_state(old)})
    head = await scene.server.store.load_head(scene.encounter)
    assert head is not None
    loaded = head.state
    assert (loaded.name, loaded.turn_serial) == ("Scenario", 3)  # folded from the log
    assert turn_id(loaded) == turn_id(state)
    # a new snapshot of the same version replaces the old format's
    await scene.server.store.save_snapshot(loaded, head.head)
    assert await redis.hget(snap, "format") == str(STATE_FORMAT).encode()
    again = await scene.server.store.load(scene.encounter)
    assert again is not None and again.turn_serial == 3 and again.name == "Scenario"
