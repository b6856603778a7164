"""The web table folds nothing (Debian's Chromium driven by Playwright, a real server and
Redis): a player page and a spectator overlay whose websocket Playwright rewrites, so that
every event reaches them as its kind and its summary alone (live, on resuming and in the
history), show the same order, turn, sheet and log as pages of the same credentials fed the
whole events; the turn timer counts down on the server's clock (a page whose clock is an hour
off too) and the GM pauses and resumes it; the verifiable dice are shown, a player's page adds
its entropy once, and the check the page names holds. Screenshots go to
test-artifacts/web-words/."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from clients.client import FEATURES, Client
from server.app import Server
from tests.conftest import ROOT, ws_url
from tests.helpers import caught_up, create_table, open_client, play_turns, wait_current
from tests.test_web import CHROMIUM, PHONE, YAML, Pages

WIDE = (1280, 800)


playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")


@pytest.fixture(scope="module")
def artifacts() -> Path:
    """This module's screenshots: test-artifacts/web-words/ (test_web.py's stay where they are)."""
    folder = ROOT / "test-artifacts" / "web-words"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder

# Every `event` message, and every event of a `history` page, as its kind and its summary with
# the message's position fields: nothing else of the event reaches the page.
POSITION = ("type", "encounter", "seq", "cursor", "digest", "ts", "summary")


class Stripped:
    """What the rewriting did: how many events it cut down, live and in history pages, and
    every field of an event that reached a page anyway (none)."""

    def __init__(self) -> None:
        self.live = self.history = 0
        self.leaked: list[str] = []

    def event(self, m: dict[str, Any]) -> dict[str, Any]:
        assert "summary" in m, m  # the pages ask for the summaries
        out = {k: v for k, v in m.items() if k in POSITION}
        out["event"] = {"kind": m["event"]["kind"]}
        return out

    def message(self, m: dict[str, Any]) -> dict[str, Any]:
        if m.get("type") == "batch":
            return {**m, "messages": [self.message(x) for x in m["messages"]]}
        if m.get("type") == "event":
            self.live += 1
            return self.event(m)
        if m.get("type") == "history":
            self.history += len(m["events"])
            return {**m, "events": [self.event(x) for x in m["events"]]}
        return m

    def frame(self, text: str | bytes) -> str:
        return json.dumps(self.message(json.loads(text)))


async def open_stripped(pages: Pages, url: str, stripped: Stripped, routes: list[Any]) -> Any:
    """A page whose websocket frames from the server Playwright rewrites (Stripped); each of
    its connections goes in ``routes``."""
    context = await pages.browser.new_context(viewport={"width": 1280, "height": 900})
    pages.contexts.append(context)
    page = await context.new_page()
    page.on("pageerror", lambda e: pages.errors.append(str(e)))

    def route(ws: Any) -> None:
        routes.append(ws)
        server = ws.connect_to_server()
        server.on_message(lambda frame: ws.send(stripped.frame(frame)))
        ws.on_message(lambda frame: server.send(frame))

    await page.route_web_socket(re.compile(r"/ws(\?|$)"), route)
    await page.goto(url)
    return page


async def live(page: Any) -> None:
    """Until the page's connection is live (the overlay's badge is hidden then)."""
    await page.wait_for_selector('#status[data-state="live"]', state="attached", timeout=10_000)


async def at_cursor(page: Any, reference: Client, gm: Client) -> None:
    """Until the page has what the reference connection of its credential has."""
    await gm.command("ping")
    await caught_up(reference)
    last = [m for m in reference.messages if m["type"] in ("event", "snapshot")][-1]["cursor"]
    await page.wait_for_function("c => window.stablemaster.table.cursor === c", arg=last)


PLAYER_SCREEN = """() => ({
  order: document.querySelector('.order').innerText,
  banner: (b => b.hidden ? '' : b.innerText)(document.querySelector('.banner')),
  subtitle: document.getElementById('subtitle').innerText,
  sheets: [...document.querySelectorAll('.sheet')].map(s => s.innerText),
  log: [...document.querySelectorAll('.log .line')].map(l => l.textContent),
  kept: window.stablemaster.table.log.map(l => l.text),
})"""

WATCH_SCREEN = """() => ({
  title: document.getElementById('title').innerText,
  round: document.getElementById('round').innerText,
  turn: document.getElementById('turn').innerText,
  order: document.getElementById('order').innerText,
  log: [...document.querySelectorAll('#log .line')].map(l => l.textContent),
  kept: window.stablemaster.table.log.map(l => l.text),
})"""


async def attack_and_end(gm: Client) -> None:
    """The acting combatant attacks the first target the GM's legal actions offer it (if it
    may), then ends its turn."""
    actor = await wait_current(gm)
    attack = next((a for a in gm.legal if a.get("combatant") == actor and a["action"] == "attack"
                   and a.get("targets")), None)
    if attack is not None:
        weapons = (attack.get("options") or {}).get("weapon") or []
        args: dict[str, Any] = {"target": attack["targets"][0]}
        if weapons:
            args["weapon"] = weapons[0]
        await gm.command("act", combatant=actor, action="attack", args=args)
    await play_turns(gm, {}, 1)


async def test_pages_fed_only_the_summaries_show_what_pages_fed_the_events_show(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, yaml.safe_load(YAML)["combatants"], dice_seed=11)
    gm = table.gm
    base = f"http://127.0.0.1:{server.settings.port}"
    await gm.command("start_encounter")
    for _ in range(3):  # some of the log before the pages open: they read it back (history)
        await attack_and_end(gm)
    await gm.command("adjust_combatant", combatant="twilight", fatigue=7, reason="a bad fall")
    player_url = f"{base}/table/#token={table.tokens['twilight']}"
    watch_url = f"{base}/watch?spectate={table.spectator_token}&lines=50"
    stripped = Stripped()
    player, watch = await pages.open(player_url), await pages.open(watch_url)
    routes: list[Any] = []
    player_words = await open_stripped(pages, player_url, stripped, routes)
    watch_words = await open_stripped(pages, watch_url, stripped, [])
    for page in (player, watch, player_words, watch_words):
        await live(page)
    reference = await open_client(url, clients)
    await reference.hello(table.tokens["twilight"], features=[*FEATURES, "cursor"])
    spectator = await open_client(url, clients)
    await spectator.hello(table.spectator_token, features=[*FEATURES, "cursor"])

    async def same() -> None:
        for page in (player, player_words):
            await at_cursor(page, reference, gm)
        for page in (watch, watch_words):
            await at_cursor(page, spectator, gm)
        shown = await player.evaluate(PLAYER_SCREEN)
        assert await player_words.evaluate(PLAYER_SCREEN) == shown
        assert shown["order"] and shown["log"]
        seen = await watch.evaluate(WATCH_SCREEN)
        assert await watch_words.evaluate(WATCH_SCREEN) == seen
        assert seen["order"] and seen["log"]

    await same()
    # live: attacks, damage, vitals, the turns and rounds, an effect, a ruling
    for _ in range(5):
        await attack_and_end(gm)
    await gm.command("add_effect", name="Shield of Leaves", combatant="twilight",
                     modifiers=[{"target": "reflex_defense", "amount": 2}], until="rounds",
                     rounds=2)
    await gm.command("adjust_combatant", combatant="dog", fatigue=3, reason="tired")
    await same()
    # a drop: the page resumes from its cursor, the missed events replayed (cut down as well)
    await player_words.evaluate("window.stablemaster.conn.backoff = 1000")
    await routes[-1].close()
    await player_words.wait_for_selector('#status[data-state="offline"]')
    for _ in range(2):
        await attack_and_end(gm)
    await live(player_words)
    await same()
    # a reload reads the log back from the history, cut down to the summaries too
    await player_words.reload()
    await live(player_words)
    await same()
    await gm.command("end_encounter", reason="the dogs fled")
    await same()
    assert stripped.live > 20 and stripped.history > 20
    text = "\n".join((await player_words.evaluate(PLAYER_SCREEN))["kept"])
    assert "Twilight Sparkle" in text and "Round 2 begins." in text
    assert "Lurking" not in text
    await player_words.screenshot(path=artifacts / "player-summaries-only.png", full_page=True)


async def test_the_turn_timer_counts_down_on_the_servers_clock_and_the_gm_pauses_it(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    url = ws_url(server)
    combatants = [c for c in yaml.safe_load(YAML)["combatants"] if not c.get("hidden")]
    table = await create_table(url, clients, combatants, turn_seconds=90)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=WIDE)
    # a player whose clock is an hour ahead: the countdown is the server's all the same
    ahead = "(() => { const now = Date.now; Date.now = () => now() + 3600000; })();"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", init=ahead,
                              size=WIDE)
    for page in (gm, player):
        await live(page)
        assert await page.locator(".turn-timer").is_hidden()
    await gm.click('button[data-action="start_encounter"]')
    for page in (gm, player):
        timer = page.locator('.turn-timer[data-state="running"]')
        await timer.wait_for()
        first = int(await timer.get_attribute("data-left"))
        assert 80 <= first <= 90, first
        await page.wait_for_function(
            f"Number(document.querySelector('.turn-timer').dataset.left) < {first}", timeout=3000)
        assert re.fullmatch(r".+'s turn: 1:[0-2]\d left",
                            await page.locator(".turn-timer .clock").inner_text())
    await gm.screenshot(path=artifacts / "gm-timer-1280x800.png")
    await player.screenshot(path=artifacts / "player-timer-1280x800.png")
    for page in (gm, player):
        await page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    await gm.screenshot(path=artifacts / "gm-timer-390x844.png")
    await player.screenshot(path=artifacts / "player-timer-390x844.png")
    assert await player.locator(".turn-timer button").count() == 0  # the GM's alone
    # the GM pauses: both pages hold the time left; the GM resumes it
    await gm.click(".turn-timer button.pause-turn-timer")
    for page in (gm, player):
        await page.wait_for_selector('.turn-timer[data-state="paused"]')
    held = await player.locator(".turn-timer").get_attribute("data-left")
    await asyncio.sleep(1.2)
    assert await player.locator(".turn-timer").get_attribute("data-left") == held
    assert "(paused)" in await player.locator(".turn-timer .clock").inner_text()
    assert await gm.locator(".turn-timer button.pause-turn-timer").is_hidden()
    await gm.click(".turn-timer button.resume-turn-timer")
    for page in (gm, player):
        await page.wait_for_selector('.turn-timer[data-state="running"]')
    await player.wait_for_function(
        f"Number(document.querySelector('.turn-timer').dataset.left) < {held}", timeout=3000)
    # the turn ends: the next one's timer starts from its full time
    actor = await wait_current(table.gm)
    await table.gm.command("act", combatant=actor, action="end_turn")
    await gm.wait_for_function("Number(document.querySelector('.turn-timer').dataset.left) > 85")


async def test_the_dice_line_the_players_entropy_and_the_check_it_names(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    url = ws_url(server)
    combatants = [c for c in yaml.safe_load(YAML)["combatants"] if not c.get("hidden")]
    table = await create_table(url, clients, combatants)
    await table.gm.command("get_history", limit=20)
    first_events = (await table.gm.wait_for(lambda m: m["type"] == "history"))["events"]
    committed = next(m["event"]["commitment"] for m in first_events
                     if m["event"]["kind"] == "dice_committed")
    await table.gm.command("start_encounter")
    # a scene longer than the log a page reads back at first: the line comes from the state
    for _ in range(2):  # (within the GM's limit of messages a second)
        await play_turns(table.gm, {}, 15)
        await asyncio.sleep(0.8)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    token = table.tokens["twilight"]
    player = await pages.open(f"{base}/table/#token={token}")
    for page in (gm, player):
        await live(page)
        line = page.locator('.dice-line[data-state="committed"]')
        await line.wait_for()
        assert await line.locator("code.commitment").inner_text() == f"{committed[:12]}…"
        assert "Dice: verifiable" in await line.inner_text()

    def entropies() -> list[dict[str, Any]]:
        return [m["event"] for m in table.gm.events() if m["event"]["kind"] == "dice_entropy_added"]

    await table.gm.wait_until(lambda: len(entropies()) == 1)
    first = entropies()[0]
    assert first["by"] == "player" and re.fullmatch(r"[0-9a-f]{32}", first["entropy"])
    # a reload sends none again (the page's mark for this encounter); the GM's page sends none
    await player.reload()
    await live(player)
    await player.locator('.dice-line[data-state="committed"]').wait_for()
    await table.gm.command("ping")
    await play_turns(table.gm, {}, 1)
    assert len(entropies()) == 1
    await table.gm.command("end_encounter")
    secret = (await table.gm.wait_for(lambda m: m["type"] == "event" and
                                      m["event"]["kind"] == "dice_revealed"))["event"]["secret"]
    for page in (gm, player):
        line = page.locator('.dice-line[data-state="revealed"]')
        await line.wait_for()
        assert await line.locator("code.secret").inner_text() == secret
    await player.screenshot(path=artifacts / "player-dice-revealed.png", full_page=True)
    check = (await player.locator(".dice-line code.check").inner_text()).split()
    assert check[:3] == ["python", "-m", "clients.dice_check"] and check[4] == token
    assert check[3] == url
    done = await asyncio.to_thread(subprocess.run, [sys.executable, *check[1:]], cwd=ROOT,
                                   capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
