"""Replays (``hello.replay``): the log played back for a credential, redacted as it was live,
from a round, at a speed; the view kept by its patches; a watcher only."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from clients.client import FEATURES, Client, CommandError
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, open_client, play_turns
from tests.test_history import pages

VIEW = [*FEATURES, "cursor", "view", "summaries"]


def _events(client: Client, after: int = 0) -> list[dict[str, Any]]:
    return [m for m in client.messages[after:] if m["type"] == "event"]


async def _replay(url: str, token: str, clients: list[Client], **replay: Any) -> Client:
    watcher = await open_client(url, clients)
    await watcher.hello(token, features=VIEW, replay=replay)
    await watcher.wait_for(lambda m: m["type"] == "replay_ended", timeout=30)
    return watcher


@pytest.mark.parametrize("who", ["spectator", "player"])
async def test_a_replay_shows_what_was_seen_live(server: Server, clients: list[Client],
                                               who: str) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=6)  # a hidden lurker among them
    token = table.spectator_token if who == "spectator" else table.tokens["twilight"]
    live = await open_client(url, clients)
    await live.hello(token, features=VIEW)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 12)
    await caught_up(live)
    watcher = await _replay(url, token, clients, speed=1000)
    (snapshot,) = [m for m in watcher.messages if m["type"] == "snapshot"]
    assert snapshot["reason"] == "replay" and snapshot["state"]["phase"] == ["setup"]
    assert snapshot["state"]["combatants"] == []  # as the encounter was just created
    # every event, as it came live (the same redaction, words and cursors), in order: those
    # after the creation as the history has them, and those after the start as it got them
    story = [m for m in await pages(live, 500) if m["event"]["kind"] != "encounter_created"]
    assert _events(watcher) == story
    assert _events(watcher)[-len(_events(live)):] == _events(live)
    assert "lurker" not in str(watcher.messages)
    assert watcher.state == live.state and watcher.view_mismatches == 0
    assert watcher.messages[-1] == {"type": "replay_ended", "encounter": table.encounter,
                                    "events": len(story)}


async def test_a_replay_starts_from_a_round_and_keeps_the_pace(server: Server,
                                                               clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=7)
    gm_live = table.gm
    await gm_live.command("start_encounter")
    await play_turns(gm_live, {}, 10)
    await caught_up(gm_live)
    watcher = await _replay(url, table.gm_token, clients, speed=1000, from_round=2)
    events = _events(watcher)
    assert events[0]["event"] == {"kind": "round_started", "round": 2, "surprise": False}
    (snapshot,) = [m for m in watcher.messages if m["type"] == "snapshot"]
    assert snapshot["state"]["round"] == 1
    fresh = await open_client(url, clients)
    await fresh.hello(table.gm_token, features=VIEW)
    await caught_up(fresh)
    assert watcher.state == fresh.state  # the snapshot and the patches after it



async def test_a_replay_keeps_the_pace_it_is_asked_for(server: Server,
                                                       clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=10)
    await table.gm.command("start_encounter")
    for _ in range(4):
        await play_turns(table.gm, {}, 1)
        await asyncio.sleep(0.4)
    await caught_up(table.gm)
    events = _events(await _replay(url, table.gm_token, clients, speed=1000))
    span = (events[-1]["ts"] - events[0]["ts"]) / 1000
    assert span >= 1.2
    started = time.monotonic()
    paced = await _replay(url, table.gm_token, clients, speed=2)  # half the time it took
    took = time.monotonic() - started
    assert span / 2 * 0.8 <= took <= span / 2 + 2, (took, span)
    assert _events(paced) == events
    started = time.monotonic()
    await _replay(url, table.gm_token, clients, speed=1, max_pause=0.05)  # pauses cut short
    assert time.monotonic() - started < span / 2


async def test_a_replay_only_watches(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=8)
    watcher = await _replay(url, table.gm_token, clients, speed=1000)
    await watcher.command("ping")
    with pytest.raises(CommandError) as refused:
        await watcher.command("start_encounter")
    assert refused.value.reply["code"] == "forbidden"
    # the round asked for never came: the state as the log ends
    (snapshot,) = [m for m in watcher.messages if m["type"] == "snapshot"]
    assert snapshot["state"]["phase"] == ["setup"]
    bad = await open_client(url, clients)
    with pytest.raises(CommandError) as refused:
        await bad.hello(table.gm_token, since=0, replay={"speed": 2})
    assert refused.value.reply["code"] == "invalid_payload"


async def test_a_spectator_link_can_be_a_replay_link(server: Server,
                                                     clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=9)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 4)
    link = f"{url}?spectate={table.spectator_token}&replay=500&from_round=1" \
           "&features=batch,view,summaries"
    watcher = await open_client(link, clients)
    await watcher.wait_for(lambda m: m["type"] == "replay_ended", timeout=30)
    assert next(m for m in watcher.messages if m["type"] == "snapshot")["reason"] == "replay"
    assert all("summary" in m for m in _events(watcher))
    wrong = await open_client(f"{url}?spectate={table.spectator_token}&replay=fast", clients)
    error = await wrong.wait_for(lambda m: m["type"] == "error")
    assert error["code"] == "invalid_payload" and "replay" in error["message"]
