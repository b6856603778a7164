"""The recipes of ``docs/integrations.md``, run as written against a real server."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

from clients.client import Client
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import PARTY, create_table, play_turns

DOC = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"


def recipe(name: str) -> str:
    """The code block that follows ``<!-- recipe: name -->`` in the doc."""
    match = re.search(rf"<!-- recipe: {re.escape(name)} -->\n```[a-z]*\n(.*?)```",
                      DOC.read_text(), re.S)
    assert match, f"no recipe {name!r} in {DOC.name}"
    return match.group(1)


def python_recipe(name: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(recipe(name), f"{DOC.name}: {name}", "exec"), namespace)
    return namespace


def base(server: Server) -> str:
    return f"http://127.0.0.1:{server.settings.port}"


async def test_the_chat_bot_says_whose_turn_it_is_and_nothing_hidden(
        server: Server, clients: list[Client]) -> None:
    turn_status = python_recipe("chat bot")["turn_status"]
    table = await create_table(ws_url(server), clients, dice_seed=4)
    line = await asyncio.to_thread(turn_status, base(server), table.spectator_token)
    assert line == "Test encounter: not started yet."
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    line = await asyncio.to_thread(turn_status, base(server), table.spectator_token)
    assert line.startswith("Test encounter, round 1: ") and "'s turn. Last: " in line
    assert "Lurking" not in line and "lurker" not in line
    names = {c["name"] for c in PARTY if not c.get("hidden")} | {
        "someone behind the GM's screen"}
    assert any(f": {n}'s turn." in line for n in names), line


async def test_the_dice_tower_answers_the_gms_rolls_with_its_dice(
        server: Server, clients: list[Client]) -> None:
    dice_tower = python_recipe("dice tower")["dice_tower"]
    url = ws_url(server)
    table = await create_table(url, clients, manual_rolls=True)
    tower_token = (await table.gm.command("issue_integration_token",
                                          scopes=["roll"]))["result"]["token"]
    thrown: list[tuple[int, int]] = []
    rng = random.Random(11)

    def throw(sides: int) -> int:
        face = rng.randint(1, sides)
        thrown.append((sides, face))
        return face

    # the scene starts first: the initiative rolls wait for the tower, which finds them in
    # its snapshot, and answers what is asked later as it comes
    await table.gm.command("start_encounter")
    tower = asyncio.create_task(dice_tower(url, tower_token, throw))
    await table.gm.wait_until(lambda: any(
        m["type"] == "event" and m["event"]["kind"] == "turn_started"
        for m in table.gm.messages), timeout=10)
    await play_turns(table.gm, {}, 3)
    await table.gm.command("end_encounter")
    answered = await asyncio.wait_for(tower, 10)
    assert answered >= 1 and thrown
    rolled = [m["event"] for m in table.gm.events()
              if m["event"]["kind"] == "dice_rolled" and m["event"]["by"] == "gm"]
    assert len(rolled) == answered
    assert [(d["sides"], d["face"]) for e in rolled for d in e["roll"]["dice"]] == thrown


async def test_the_status_page_follows_the_stream_and_comes_back_after_a_drop(
        server: Server, clients: list[Client], pages: Any) -> None:
    table = await create_table(ws_url(server), clients, dice_seed=6)
    await table.gm.command("start_encounter")
    page = await pages.open(base(server) + "/healthz")
    await page.add_script_tag(content=recipe("status page"))
    await page.evaluate("""(token) => { window.lines = [];
        follow(location.origin, token, (m) => window.lines.push(m.summary.text)); }""",
                        table.spectator_token)
    async with asyncio.timeout(5):
        while not server.read_api.streams:  # (the page has its ticket, and its stream)
            await asyncio.sleep(0.05)
    await play_turns(table.gm, {}, 2)
    await page.wait_for_function("window.lines.length >= 2")
    for stream in list(server.read_api.streams):
        stream.transport.abort()
    await play_turns(table.gm, {}, 2)
    await page.wait_for_function("window.lines.length >= 4", timeout=10_000)
    lines = await page.evaluate("window.lines")
    assert all(isinstance(t, str) and t for t in lines)
    assert len(lines) == len(set(enumerate(lines)))
    assert not any("Lurking" in t for t in lines)


async def test_the_overlay_link_of_the_recipe_opens_the_overlay(
        server: Server, clients: list[Client], pages: Any) -> None:
    table = await create_table(ws_url(server), clients)
    link = recipe("overlay link").strip().replace("http://127.0.0.1:8765", base(server))
    page = await pages.open(link.replace("<spectator token>", table.spectator_token))
    await page.wait_for_selector("#order li[data-combatant=dog]")
    assert await page.locator("#order li[data-combatant=lurker]").count() == 0
