"""Credentials with scopes, stat blocks in YAML, physical dice over the protocol, the end."""

from __future__ import annotations

from typing import Any

import pytest

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import create_table, join, open_client, play_turns, send_seen, wait_current

YAML = """
combatants:
  - {name: Pinkie Pie, id: pinkie, kind: pc, initiative: 2}
  - name: Timberwolf
    initiative: 1
    stats: {note: made of sticks}
"""


async def integration(table_gm: Client, *scopes: str) -> str:
    ack = await table_gm.command("issue_integration_token", scopes=list(scopes), label="VTT")
    return str(ack["result"]["token"])


async def test_integration_scopes(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=21)
    viewer = await join(url, await integration(table.gm, "view:public"), clients)
    seer = await join(url, await integration(table.gm, "view:gm"), clients)
    pcs = await join(url, await integration(table.gm, "view:public", "command:players"), clients)
    assert viewer.welcome is not None and viewer.welcome["role"] == "integration"
    await table.gm.command("start_encounter")
    await pcs.command("ping")
    await seer.command("ping")
    assert "lurker" in str(seer.messages) and "lurker" not in str(viewer.messages)
    with pytest.raises(CommandError) as err:
        await viewer.command("act", combatant="twilight", action="end_turn")
    assert err.value.code == "forbidden"
    with pytest.raises(CommandError) as err:
        await pcs.command("end_encounter")
    assert err.value.code == "forbidden"
    # command:players may act for any player character on its turn, not for NPCs
    for _ in range(8):
        current = await wait_current(table.gm)
        if current in table.tokens:
            # (its ack may wait, when the lurker's hidden turn comes next)
            reply = await send_seen(table.gm, pcs, "act", combatant=current, action="end_turn")
            assert reply is None or reply["type"] == "ack", reply
            break
        with pytest.raises(CommandError) as err:
            await pcs.command("act", combatant=current, action="end_turn")
        # an NPC it may see is not its to move; a hidden one it cannot even find
        assert err.value.code == ("not_found" if current == "lurker" else "forbidden")
        await play_turns(table.gm, {}, 1)
    else:
        pytest.fail("no player character's turn came up")


async def test_stat_blocks_in_yaml(server: Server, clients: list[Client]) -> None:
    client = await open_client(ws_url(server), clients)
    await client.hello()
    ack = await client.command("create_encounter", name="Everfree", combatants_yaml=YAML,
                               combatants=[{"name": "Zecora", "kind": "pc"}])
    gm = await join(ws_url(server), ack["result"]["gm_token"], clients)
    await gm.wait_for(lambda m: m["type"] == "snapshot")
    assert gm.snapshot is not None
    combatants = {c["id"]: c for c in gm.snapshot["state"]["combatants"]}
    assert set(combatants) == {"zecora", "pinkie", "timberwolf"}
    assert combatants["timberwolf"]["stats"] == {"note": "made of sticks"}
    assert combatants["pinkie"]["side"] == "party" and combatants["timberwolf"]["side"] == "enemies"
    for bad in ("combatants: [{name: }", "just a string", "- {kind: pc}"):
        with pytest.raises(CommandError) as err:
            await client.command("create_encounter", name="Bad", combatants_yaml=bad)
        assert err.value.code == "invalid_payload"


async def test_physical_dice_through_the_protocol(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, manual_rolls=True, players_roll=True)
    twilight = await join(url, table.tokens["twilight"], clients)
    spectator = await join(url, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    mine = await twilight.wait_for(lambda m: m["type"] == "legal_actions" and m["actions"])
    actions = mine["actions"]
    assert [a["action"] for a in actions] == ["submit_roll", "server_roll"]
    request = actions[0]["targets"][0]
    await twilight.command("submit_roll", request=request, faces=[18])
    # the GM answers the rest: its own by hand, the other players' by a server roll, and so
    # any roll-off a tie asks for (R5, R80), until the first turn starts
    answered = {request}

    def unanswered() -> list[dict[str, Any]]:
        return [m["event"] for m in table.gm.events() if m["event"]["kind"] == "roll_requested"
                and m["event"]["request"] not in answered]

    while not any(m["event"]["kind"] == "turn_started" for m in table.gm.events()):
        await table.gm.wait_for(lambda m: m["type"] == "event" and (
            m["event"]["kind"] == "turn_started" or bool(unanswered())))
        for p in unanswered():
            answered.add(p["request"])
            if p["roller"] == "gm":
                await table.gm.command("submit_roll", request=p["request"], faces=[10])
            else:
                await table.gm.command("server_roll", request=p["request"])
    await spectator.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "turn_started")
    rolls = [m["event"] for m in spectator.events() if m["event"]["kind"] == "dice_rolled"]
    twilight_roll = next(r for r in rolls if r["combatant"] == "twilight")
    assert twilight_roll["by"] == "player" and twilight_roll["roll"]["manual"]
    assert twilight_roll["roll"]["total"] == 21  # 18 + Initiative 3
    assert all(r["roll"]["manual"] == (r["by"] != "server") for r in rolls)
    # the NPCs' dice stay behind the GM's screen
    assert {r["combatant"] for r in rolls} == {"twilight", "dash", "applejack", "fluttershy"}


async def test_ending_the_encounter(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    spectator = await join(url, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    await table.gm.command("end_encounter", reason="The dogs flee.")
    ended = await spectator.wait_for(lambda m: m["type"] == "event"
                                     and m["event"]["kind"] == "encounter_ended")
    assert ended["event"]["reason"] == "The dogs flee."
    with pytest.raises(CommandError) as err:
        await table.gm.command("start_encounter")
    assert err.value.code == "illegal_action"
    late = await join(url, table.spectator_token, clients)
    await late.wait_for(lambda m: m["type"] == "snapshot")
    assert late.snapshot is not None and late.snapshot["state"]["ended"]
    assert late.snapshot["state"]["phase"] == ["ended"]


async def test_revealing_a_hidden_combatant_live(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    spectator = await join(url, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    await table.gm.command("set_hidden", combatant="lurker", hidden=False)
    shown = await spectator.wait_for(lambda m: m["type"] == "event"
                                     and m["event"]["kind"] == "combatant_revealed")
    assert shown["event"]["combatant"]["name"] == "Lurking Dog"
    assert shown["event"]["combatant"]["stats"] == {}


async def test_a_dice_tower_integration_sees_and_answers_the_gms_rolls(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, manual_rolls=True)
    tower = await join(url, await integration(table.gm, "roll"), clients)
    spectator = await join(url, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    requests = []
    while len(requests) < 2:  # the two visible NPCs' initiative (the lurker's is the GM's too)
        await tower.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "roll_requested", start=0)
        requests = [m["event"] for m in tower.events() if m["event"]["kind"] == "roll_requested"]
    assert {r["roller"] for r in requests} == {"gm"}
    assert all(r["dice"] == [20] for r in requests)
    legal = {(a["action"], a["targets"][0]) for a in tower.legal}
    for r in requests:
        assert ("submit_roll", r["request"]) in legal and ("server_roll", r["request"]) in legal
        await tower.command("submit_roll", request=r["request"], faces=[12])
    await spectator.command("ping")
    assert not [m for m in spectator.events() if m["event"]["kind"] == "roll_requested"
                and m["event"]["roller"] == "gm"]
    late = await join(url, table.spectator_token, clients)
    await late.wait_for(lambda m: m["type"] == "snapshot")
    assert late.snapshot is not None
    assert all(p["roller"] != "gm" for p in late.snapshot["state"]["pending_rolls"])


async def test_a_joiner_s_position_counts_only_combatants_the_viewer_sees(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    spectator = await join(url, table.spectator_token, clients)
    await table.gm.command("start_encounter")
    await table.gm.command("add_combatant", combatant={"name": "Straggler", "id": "straggler",
                                                       "initiative": -50})
    seen = await spectator.wait_for(lambda m: m["type"] == "event"
                                    and m["event"]["kind"] == "combatant_joined")
    gm_seen = await table.gm.wait_for(lambda m: m["type"] == "event"
                                      and m["event"]["kind"] == "combatant_joined")
    assert gm_seen["event"]["position"] == 6  # last, after six combatants
    assert seen["event"]["position"] == 5  # last of the five the spectator sees


async def test_a_spectator_reads_and_does_nothing_else(
        server: Server, clients: list[Client]) -> None:
    """What protocol.md's table of roles says a spectator may: ``ping`` and the reads
    (``get_snapshot``, ``get_history``, ``get_legal_actions``, an empty list); ``get_reach``
    and ``get_aim`` refused as an action it may not take; any other command ``forbidden``."""
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    await table.gm.command("start_encounter")
    spectator = await join(url, table.spectator_token, clients)
    await spectator.command("ping")
    mark = len(spectator.messages)
    await spectator.command("get_snapshot")
    await spectator.command("get_history", limit=10)
    await spectator.command("get_legal_actions")
    told = {m["type"]: m for m in spectator.messages[mark:]}
    assert {"snapshot", "history", "legal_actions"} <= set(told), list(told)
    assert told["history"]["events"] and told["legal_actions"]["actions"] == []
    current = await wait_current(table.gm)
    for command, fields in (("get_reach", {"combatant": current}),
                            ("get_aim", {"combatant": current, "action": "attack"})):
        with pytest.raises(CommandError) as refused:
            await spectator.command(command, **fields)
        assert refused.value.code == "illegal_action", (command, refused.value.reply)
    for command, fields in (("set_hidden", {"combatant": "dog", "hidden": True}),
                            ("act", {"combatant": current, "action": "end_turn"}),
                            ("issue_invite", {"combatants": ["dash"]})):
        with pytest.raises(CommandError) as refused:
            await spectator.command(command, **fields)
        assert refused.value.code == "forbidden", (command, refused.value.reply)
