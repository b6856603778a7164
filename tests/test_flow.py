"""An encounter played end to end over real websockets against a real Redis."""

from __future__ import annotations

import asyncio

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import create_table, join, kinds

import pytest


async def test_a_round_is_played_and_everyone_sees_it(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    player = await join(url, table.tokens["twilight"], clients)
    spectator = await join(url, table.spectator_token, clients)
    start = await table.gm.command("start_encounter")
    assert start["seq"] > 0
    # six turns: everyone once, including the hidden dog that only the GM sees
    for _ in range(6):
        turn = await table.gm.wait_for(lambda m: m["type"] == "event"
                                       and m["event"]["kind"] == "turn_started"
                                       and m["seq"] > table.gm.last_seq - 1 , start=len(table.gm.messages) - 3)
        del turn
        acting = [a for a in table.gm.legal if a["action"] == "end_turn"]
        assert len(acting) == 1
        await table.gm.command("act", combatant=acting[0]["combatant"], action="end_turn")
    await table.gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "round_started"
                            and m["event"]["round"] == 2)
    await spectator.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "round_started" and m["event"]["round"] == 2)
    assert "lurker" not in str(spectator.messages)
    assert "lurker" not in str(player.messages)
    assert "lurker" in str(table.gm.messages)
    assert kinds(spectator).count("turn_started") == kinds(player).count("turn_started")


async def test_players_act_only_for_their_own_combatants_on_their_turn(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=11)
    player = await join(url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    with pytest.raises(CommandError) as err:
        await player.command("act", combatant="dash", action="end_turn")
    assert err.value.code == "forbidden"
    await asyncio.sleep(0.05)
