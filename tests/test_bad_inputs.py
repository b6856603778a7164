"""Every bad input gets its documented answer; the connection and the encounter survive."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import orjson
import pytest
from websockets.exceptions import ConnectionClosed

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import Table, create_table, join, open_client, wait_current


@pytest.fixture
async def table(server: Server, clients: list[Client]) -> Table:
    t = await create_table(ws_url(server), clients, dice_seed=5)
    await t.gm.command("start_encounter")
    return t


async def answer(client: Client, raw: str | bytes) -> dict[str, Any]:
    """Send a raw frame and return the next ack or error."""
    start = len(client.messages)
    await client.send_raw(raw)
    return await client.wait_for(lambda m: m["type"] in ("error", "ack"), start=start)


def cmd(type_: str, **fields: Any) -> str:
    return orjson.dumps({"type": type_, "id": fields.pop("id", uuid.uuid4().hex), **fields}
                        ).decode()


async def assert_alive(client: Client) -> None:
    reply = await client.command("ping")
    assert reply["type"] == "ack"


async def version(server: Server, encounter: str) -> int:
    return await server.store.version(encounter)


BAD_FRAMES = [
    ("malformed JSON", '{"type": "ping", "id": ', "bad_json", None),
    ("binary frame", b'{"type": "ping", "id": "b1"}', "bad_json", None),
    ("JSON that is not an object", "[1, 2, 3]", "invalid_payload", None),
    ("no type", '{"id": "n1"}', "unknown_type", "n1"),
    ("unknown type", '{"type": "fireball", "id": "u1"}', "unknown_type", "u1"),
    ("wrong field type", '{"type": "act", "id": "w1", "combatant": 7, "action": "end_turn"}',
     "invalid_payload", "w1"),
    ("missing field", '{"type": "act", "id": "m1", "action": "end_turn"}',
     "invalid_payload", "m1"),
    ("unknown field", '{"type": "ping", "id": "f1", "extra": true}', "invalid_payload", "f1"),
    ("id too long", orjson.dumps({"type": "ping", "id": "x" * 65}).decode(),
     "invalid_payload", None),
    ("over the command size limit",
     orjson.dumps({"type": "ping", "id": "big1", "pad": "x" * 70_000}).decode(), "too_large",
     "big1"),
]


@pytest.mark.parametrize(("case", "frame", "code", "echo"), BAD_FRAMES,
                         ids=[c[0] for c in BAD_FRAMES])
async def test_bad_frames_get_their_error_and_change_nothing(
        server: Server, table: Table, case: str, frame: str | bytes, code: str,
        echo: str | None) -> None:
    before = await version(server, table.encounter)
    reply = await answer(table.gm, frame)
    assert reply["type"] == "error" and reply["code"] == code, (case, reply)
    assert reply["id"] == echo
    assert reply["message"]
    await assert_alive(table.gm)
    assert await version(server, table.encounter) == before


async def test_commands_before_hello_are_unauthenticated(server: Server,
                                                         clients: list[Client]) -> None:
    client = await open_client(ws_url(server), clients)
    reply = await answer(client, cmd("start_encounter", id="s1"))
    assert reply["code"] == "unauthenticated" and reply["id"] == "s1"
    await client.hello()
    reply = await answer(client, cmd("start_encounter", id="s2"))
    assert reply["code"] == "unauthenticated"  # a tokenless hello may only create encounters


@pytest.mark.parametrize("token", ["not-a-token", "sm1.abcdefgh.ijklmnop.qrstuvwxyzqrstuvwxyz",
                                   ""])
async def test_unknown_tokens_are_refused(server: Server, clients: list[Client],
                                          token: str) -> None:
    client = await open_client(ws_url(server), clients)
    with pytest.raises(CommandError) as err:
        await client.hello(token)
    assert err.value.code == "unauthenticated"
    await client.hello()  # the connection is still usable
    await assert_alive(client)


async def test_a_forged_secret_for_a_real_token_id_is_refused(server: Server, table: Table,
                                                              clients: list[Client]) -> None:
    forged = table.gm_token.rsplit(".", 1)[0] + ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    client = await open_client(ws_url(server), clients)
    with pytest.raises(CommandError) as err:
        await client.hello(forged)
    assert err.value.code == "unauthenticated"


async def test_unsupported_protocol_version_closes_with_1002(server: Server,
                                                             clients: list[Client]) -> None:
    client = await open_client(ws_url(server), clients)
    with pytest.raises(CommandError) as err:
        await client.hello(versions=[99])
    assert err.value.code == "unsupported_version"
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1002


async def test_acting_for_another_players_combatant_is_forbidden(
        server: Server, table: Table, clients: list[Client]) -> None:
    player = await join(ws_url(server), table.tokens["twilight"], clients)
    before = await version(server, table.encounter)
    for target in ("dash", "dog"):
        reply = await answer(player, cmd("act", combatant=target, action="end_turn"))
        assert reply["code"] == "forbidden", reply
    assert await version(server, table.encounter) == before


async def test_a_player_may_not_send_gm_commands(server: Server, table: Table,
                                                 clients: list[Client]) -> None:
    player = await join(ws_url(server), table.tokens["twilight"], clients)
    for frame in (cmd("end_encounter"), cmd("issue_invite", combatants=["dash"]),
                  cmd("set_hidden", combatant="twilight", hidden=True),
                  cmd("remove_combatant", combatant="dash")):
        reply = await answer(player, frame)
        assert reply["code"] == "forbidden", reply


async def test_a_player_cannot_find_a_hidden_combatant(server: Server, table: Table,
                                                       clients: list[Client]) -> None:
    player = await join(ws_url(server), table.tokens["twilight"], clients)
    reply = await answer(player, cmd("act", combatant="lurker", action="end_turn"))
    assert reply["code"] == "not_found"


async def test_a_spectator_may_not_act(server: Server, table: Table,
                                       clients: list[Client]) -> None:
    spectator = await join(ws_url(server), table.spectator_token, clients)
    before = await version(server, table.encounter)
    for frame in (cmd("act", combatant="twilight", action="end_turn"), cmd("end_encounter")):
        reply = await answer(spectator, frame)
        assert reply["code"] == "forbidden", reply
    assert await version(server, table.encounter) == before
    await assert_alive(spectator)


async def test_acting_out_of_turn_is_not_your_turn(server: Server, table: Table) -> None:
    current = await wait_current(table.gm)
    other = next(c for c in ("twilight", "dash", "applejack", "dog") if c != current)
    reply = await answer(table.gm, cmd("act", combatant=other, action="end_turn"))
    assert reply["code"] == "not_your_turn"


async def test_an_unknown_action_is_illegal(server: Server, table: Table) -> None:
    current = await wait_current(table.gm)
    reply = await answer(table.gm, cmd("act", combatant=current, action="fly_to_the_moon"))
    assert reply["code"] == "illegal_action"
    assert "end_turn" in reply["details"]["legal"]


async def test_starting_twice_is_illegal(server: Server, table: Table) -> None:
    reply = await answer(table.gm, cmd("start_encounter"))
    assert reply["code"] == "illegal_action"


async def test_a_replayed_command_id_returns_the_first_outcome_and_appends_nothing(
        server: Server, table: Table, clients: list[Client]) -> None:
    current = await wait_current(table.gm)
    frame = cmd("act", id="turn-1", combatant=current, action="end_turn")
    first = await answer(table.gm, frame)
    assert first["type"] == "ack" and not first["duplicate"]
    after_first = await version(server, table.encounter)
    # the same id again, also from another connection with the same credential
    gm2 = await join(ws_url(server), table.gm_token, clients)
    for client in (table.gm, gm2):
        again = await answer(client, frame)
        assert again["type"] == "ack" and again["duplicate"] and again["seq"] == first["seq"]
    assert await version(server, table.encounter) == after_first


async def test_a_replayed_invite_returns_the_same_token(server: Server, table: Table) -> None:
    frame = cmd("issue_invite", id="invite-dash", combatants=["dash"])
    first, again = await answer(table.gm, frame), await answer(table.gm, frame)
    assert again["duplicate"] and again["result"]["token"] == first["result"]["token"]


async def test_a_retried_create_returns_the_same_encounter(server: Server,
                                                           clients: list[Client]) -> None:
    client = await open_client(ws_url(server), clients)
    await client.hello()
    frame = cmd("create_encounter", id=str(uuid.uuid4()), name="Retry me")
    first, again = await answer(client, frame), await answer(client, frame)
    assert again["duplicate"] and again["result"] == first["result"]
    changed = orjson.loads(frame)
    changed["name"] = "Something else"
    reply = await answer(client, orjson.dumps(changed).decode())
    assert reply["code"] == "conflict"
    short = await answer(client, cmd("create_encounter", id="short", name="x"))
    assert short["code"] == "invalid_payload"


async def test_a_revoked_token_is_refused_and_its_connections_closed(
        server: Server, server_b: Server, table: Table, clients: list[Client]) -> None:
    invite = await table.gm.command("issue_invite", combatants=["applejack"], label="AJ")
    token, token_id = invite["result"]["token"], invite["result"]["token_id"]
    on_a = await join(ws_url(server), token, clients)
    on_b = await join(ws_url(server_b), token, clients)
    await table.gm.command("revoke_token", token_id=token_id)
    for client in (on_a, on_b):
        await asyncio.wait_for(client.closed, 5)
        assert client.ws.close_code == 4001
    late = await open_client(ws_url(server_b), clients)
    with pytest.raises(CommandError) as err:
        await late.hello(token)
    assert err.value.code == "unauthenticated"


async def test_a_frame_over_the_hard_limit_closes_with_1009(server: Server,
                                                            clients: list[Client]) -> None:
    client = await open_client(ws_url(server), clients)
    await client.hello()
    with pytest.raises((ConnectionClosed, ConnectionError)):
        await client.send_raw("x" * (server.settings.max_frame_bytes + 10))
        await client.command("ping")
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1009


async def test_a_flood_is_rate_limited_then_closed_with_1008(server: Server,
                                                             clients: list[Client]) -> None:
    client = await open_client(ws_url(server), clients)
    await client.hello()
    settings = server.settings
    total = settings.command_burst + settings.flood_close_after + 50
    for i in range(total):
        try:
            await client.send_raw(cmd("ping", id=f"p{i}"))
        except ConnectionClosed:
            break
    await asyncio.wait_for(client.closed, 5)
    codes = [m.get("code") for m in client.messages if m["type"] == "error"]
    assert "rate_limited" in codes
    assert client.ws.close_code == 1008


async def test_bad_physical_dice_are_refused(server: Server, clients: list[Client]) -> None:
    t = await create_table(ws_url(server), clients, manual_rolls=True, players_roll=True)
    await t.gm.command("start_encounter")
    request = await t.gm.wait_for(lambda m: m["type"] == "event"
                                  and m["event"]["kind"] == "roll_requested"
                                  and m["event"]["roller"] == "gm")
    req = request["event"]["request"]
    for faces in ([21], [0], [1, 2]):
        reply = await answer(t.gm, cmd("submit_roll", request=req, faces=faces))
        assert reply["code"] == "bad_dice", reply
    reply = await answer(t.gm, cmd("submit_roll", request="nope", faces=[3]))
    assert reply["code"] == "not_found"


async def test_a_retry_on_another_process_returns_the_first_result(
        server: Server, server_b: Server, table: Table, clients: list[Client]) -> None:
    frame = cmd("issue_invite", id="invite-fluttershy", combatants=["fluttershy"])
    first = await answer(table.gm, frame)
    gm_b = await join(ws_url(server_b), table.gm_token, clients)
    await gm_b.wait_for(lambda m: m["type"] == "legal_actions")
    again = await answer(gm_b, frame)
    assert again["duplicate"] and again["result"] == first["result"]
    assert again["result"]["token"]


async def test_reusing_an_id_for_a_different_command_is_a_conflict(
        server: Server, table: Table) -> None:
    first = await answer(table.gm, cmd("issue_invite", id="same-id", combatants=["dash"]))
    assert first["type"] == "ack"
    before = await version(server, table.encounter)
    reply = await answer(table.gm, cmd("issue_invite", id="same-id", combatants=["applejack"]))
    assert reply["code"] == "conflict"
    assert await version(server, table.encounter) == before


async def test_the_flood_limit_counts_messages_over_the_limit_in_a_row(
        server: Server, clients: list[Client]) -> None:
    client = await open_client(ws_url(server), clients)
    await client.hello()
    settings = server.settings
    per_burst = settings.command_burst + settings.flood_close_after * 3 // 4
    for burst in range(2):  # two bursts over the limit, together more than the flood limit
        for i in range(per_burst):
            await client.send_raw(cmd("ping", id=f"b{burst}-{i}"))
        last = f"b{burst}-{per_burst - 1}"
        await client.wait_for(lambda m, last=last: m.get("id") == last)
        await asyncio.sleep(settings.command_burst / settings.commands_per_second)
    await assert_alive(client)
