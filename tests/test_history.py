"""``get_history``: the events a viewer may see, read back from the log, as it received them
live (the same messages, redacted alike), paged."""

from __future__ import annotations

from typing import Any

import pytest

from clients.client import FEATURES, Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, join, play_turns, until_turn_of

CURSOR = [*FEATURES, "cursor"]


async def pages(client: Client, limit: int) -> list[dict[str, Any]]:
    """Every event of the history, asked for page by page back to the start."""
    got: list[dict[str, Any]] = []
    before: Any = None
    while True:
        mark = len(client.messages)
        fields = {"limit": limit} if before is None else {"limit": limit, "before": before}
        await client.command("get_history", **fields)
        (page,) = [m for m in client.messages[mark:] if m["type"] == "history"]
        assert len(page["events"]) <= limit
        got[:0] = page["events"]
        before = page["before"]
        if before is None:
            return got


def live(client: Client) -> list[dict[str, Any]]:
    return [m for m in client.messages if m["type"] == "event"]


async def from_the_start(url: str, token: str, features: list[str],
                         clients: list[Client]) -> list[dict[str, Any]]:
    """Every event a connection of ``token`` would have received from the first on: a
    resume from seq 0 replays them."""
    c = await Client.open(url)
    clients.append(c)
    await c.hello(token, since=0, features=features)
    await caught_up(c)
    return live(c)


@pytest.mark.parametrize("features", [FEATURES, CURSOR], ids=["seq", "cursor"])
async def test_a_late_joiner_reads_the_log_as_those_who_were_there(
        server: Server, clients: list[Client], features: list[str]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    there = []
    for token in (table.spectator_token, table.tokens["twilight"]):
        c = await Client.open(url)
        clients.append(c)
        await c.hello(token, features=features)
        there.append(c)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 14)  # into round 3, the hidden lurker's turns among them
    for old in there:
        await caught_up(old)
        late = await Client.open(url)
        clients.append(late)
        assert old.welcome is not None
        await late.hello(table.spectator_token if old.welcome["role"] == "spectator"
                         else table.tokens["twilight"], features=features)
        await caught_up(late)
        whole = await pages(late, 500)
        assert whole[-len(live(old)):] == live(old)  # what it got live, as it got it
        assert whole == await from_the_start(url, table.spectator_token if old.welcome["role"]
                                             == "spectator" else table.tokens["twilight"],
                                             features, clients)
        assert await pages(late, 7) == whole  # the same, a page at a time
        assert "lurker" not in str(whole)
        assert any(e["event"]["kind"] == "round_started" and e["event"]["round"] == 3
                   for e in whole)


async def test_the_gm_reads_everything_and_a_page_ends_before_a_position(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 6)
    await caught_up(table.gm)
    everything = await from_the_start(url, table.gm_token, list(FEATURES), clients)
    assert await pages(table.gm, 50) == everything
    middle = everything[len(everything) // 2]
    mark = len(table.gm.messages)
    await table.gm.command("get_history", before=middle["seq"], limit=3)
    (page,) = [m for m in table.gm.messages[mark:] if m["type"] == "history"]
    assert page["events"] == [e for e in everything if e["seq"] < middle["seq"]][-3:]
    assert page["before"] == page["events"][0]["seq"]


async def test_the_table_reads_nothing_behind_the_screen(server: Server,
                                                         clients: list[Client]) -> None:
    """During the lurker's hidden turn a player's history ends where the table was told."""
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    player = await join(url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "lurker")
    await table.gm.command("act", combatant="lurker", action="other_standard")
    await caught_up(player)
    whole = await pages(player, 100)
    assert whole == await from_the_start(url, table.tokens["twilight"], list(FEATURES), clients)
    assert whole[-1] == live(player)[-1] and "lurker" not in str(whole)


async def test_a_bad_position_is_refused(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    reader = await Client.open(url)
    clients.append(reader)
    await reader.hello(table.spectator_token, features=CURSOR)
    with pytest.raises(CommandError) as bad:
        await reader.command("get_history", before="A" * 22)
    assert bad.value.reply["code"] == "invalid_payload"
    for wrong in ({"limit": 0}, {"limit": 501}, {"before": 0}):
        with pytest.raises(CommandError) as refused:
            await reader.command("get_history", **wrong)
        assert refused.value.reply["code"] == "invalid_payload"
