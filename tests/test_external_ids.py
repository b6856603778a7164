"""A virtual tabletop's own ids for a combatant (``external_ids``), kept by the server and
returned with the combatant, redacted as it is; against a real server over websockets."""

from __future__ import annotations

import pytest

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import create_table, join, open_client


async def test_a_vtts_ids_ride_with_the_combatant_to_whoever_sees_it(
        server: Server, clients: list[Client]) -> None:
    """``external_ids`` in a stat block (Foundry's mixed-case ids) come back with the
    combatant in every snapshot that shows it and in ``combatant_revealed``; a hidden one's
    reach the table only once it is revealed; a bad name or id is refused."""
    url = ws_url(server)
    foundry = {"foundry_actor": "Kx8eQmV3tLp2Wn9a", "foundry_token": "Zz01AbCdEfGh34Ij"}
    roster = [{"name": "Twilight Sparkle", "id": "twilight", "kind": "pc",
               "external_ids": foundry},
              {"name": "Lurking Dog", "id": "lurker", "hidden": True,
               "external_ids": {"foundry_actor": "LurkLurkLurk0001"}}]
    table = await create_table(url, clients, combatants=roster)
    player = await join(url, table.tokens["twilight"], clients)
    await player.wait_for(lambda m: m["type"] == "snapshot")
    for viewer in (table.gm, player):
        await viewer.wait_for(lambda m: m["type"] == "snapshot")
        assert viewer.snapshot is not None
        seen = {c["id"]: c["external_ids"] for c in viewer.snapshot["state"]["combatants"]}
        assert seen["twilight"] == foundry
        assert ("lurker" in seen) == (viewer is table.gm)
    assert "LurkLurkLurk0001" not in str(player.messages)
    await table.gm.command("set_hidden", combatant="lurker", hidden=False)
    revealed = await player.wait_for(lambda m: m["type"] == "event"
                                     and m["event"]["kind"] == "combatant_revealed")
    assert revealed["event"]["combatant"]["external_ids"] == {"foundry_actor": "LurkLurkLurk0001"}
    anon = await open_client(url, clients)
    await anon.hello()
    for bad in ({"Foundry": "x"}, {"foundry_actor": "has space"}, {"foundry_actor": ""}):
        with pytest.raises(CommandError) as refused:
            await anon.command("create_encounter", name="bad ids",
                               combatants=[{"name": "A", "external_ids": bad}])
        assert refused.value.code == "invalid_payload"
