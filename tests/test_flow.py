"""An encounter played end to end over real websockets against a real Redis."""

from __future__ import annotations

import pytest

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, join, play_turns, wait_current


async def test_a_round_is_played_and_everyone_sees_it(server: Server,
                                                      clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    player = await join(url, table.tokens["twilight"], clients)
    spectator = await join(url, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    # six turns: everyone once, including the hidden dog that only the GM sees
    await play_turns(table.gm, {"twilight": player}, 6)
    await table.gm.wait_for(lambda m: m["type"] == "event"
                            and m["event"]["kind"] == "round_started"
                            and m["event"]["round"] == 2)
    if await wait_current(table.gm) == "lurker":
        # round 2 begins with the hidden dog's turn: the table is told of round 2 (and of the
        # end of round 1's last turn) once it is over
        await play_turns(table.gm, {}, 1)
    for viewer in (spectator, player):
        await viewer.wait_for(lambda m: m["type"] == "event"
                              and m["event"]["kind"] == "round_started"
                              and m["event"]["round"] == 2)
    await table.gm.command("ping")
    await caught_up(player)  # each has now received everything sent before
    await spectator.command("ping")
    assert "lurker" not in str(spectator.messages)
    assert "lurker" not in str(player.messages)
    assert "lurker" in str(table.gm.messages)
    turns = [m["event"]["combatant"] for m in table.gm.events()
             if m["event"]["kind"] == "turn_started"]
    assert len(turns) in (7, 8)
    public_turns = [t for t in turns if t != "lurker"]  # the lurker's turns are not shown
    for viewer in (spectator, player):
        assert [m["event"]["combatant"] for m in viewer.events()
                if m["event"]["kind"] == "turn_started"] == public_turns


async def test_players_get_their_legal_actions_on_their_turn(server: Server,
                                                             clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=11)
    player = await join(url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    for _ in range(7):
        if await wait_current(table.gm) == "twilight":
            break
        await play_turns(table.gm, {}, 1)
    await player.wait_for(lambda m: m["type"] == "legal_actions" and any(
        a["action"] == "end_turn" for a in m["actions"]))
    names = {a["action"] for a in player.legal}
    assert {"end_turn", "delay", "ready", "move", "aid_another", "run", "fall_prone", "free",
            "reaction"} <= names
    assert {a["combatant"] for a in player.legal} == {"twilight"}
    with pytest.raises(CommandError) as err:
        await player.command("act", combatant="dash", action="end_turn")
    assert err.value.code == "forbidden"
    await player.command("act", combatant="twilight", action="end_turn")
    await player.wait_for(lambda m: m["type"] == "legal_actions" and not any(
        a["action"] == "end_turn" for a in m["actions"]))
    assert {a["action"] for a in player.legal} == {"free", "reaction"}  # out of turn
