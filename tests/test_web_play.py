"""The player's page at play, in a real browser (Debian's Chromium driven by Playwright) against a
real server and Redis: the last action's outcome (the server's summaries of the events the
player's command caused) next to the actions, without rule numbers; a turn that cannot be
missed (its own look, the tab's title); a readied action's prompt when another combatant's
command ends; on a phone, the map, the actions and the last outcome on the first screen with
nothing wider than the screen; a move and an attack by keyboard in at most 15 keys, the focus
kept on the control that acted; axe-core finds nothing serious or critical on those states.
Screenshots go to test-artifacts/web-play/."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from server.app import Server
from tests.browser import CHROMIUM, Pages
from tests.conftest import ROOT, ws_url
from tests.helpers import Table, caught_up, create_table, set_out, until_turn_of
from tests.test_web import PHONE, live
from tests.test_web_a11y import Audit, axe_source  # noqa: F401  (axe_source: a fixture)

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

LAPTOP = (1366, 768)
#: a foe whose name is longer than a phone's screen is wide (its name in the attack's list)
LONG = "Diamond Dog Brute, the Terror of the Old Mill Quarry"
FIGHT = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 30},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 10},
    {"name": LONG, "id": "brute", "kind": "npc", "initiative": -30},
]  # (modifiers 20 apart: Twilight, Dash and the brute act in that order, whatever the d20s)
MAP = {"width": 10, "height": 6, "blocked": [[6, 4]]}
AT = {"twilight": [1, 1], "dash": [1, 4], "brute": [4, 1]}


@pytest.fixture(scope="module")
def artifacts() -> Path:
    out = ROOT / "test-artifacts" / "web-play"
    out.mkdir(parents=True, exist_ok=True)
    return out


async def fight(server: Server, clients: list[Client]) -> Table:
    table = await create_table(ws_url(server), clients, FIGHT)
    await set_out(table.gm, MAP, AT)
    return table


def events_of(client: Client, kind: str) -> list[dict[str, Any]]:
    return [m["event"] for m in client.events() if m["event"]["kind"] == kind]


async def box_of(page: Any, selector: str) -> dict[str, float]:
    box = await page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box


async def attack_with_the_mouse(page: Any) -> None:
    form = 'form.act[data-action="attack"][data-combatant="twilight"]'
    await page.select_option(f"{form} select.target", "brute")
    await page.click(f"{form} button[type=submit]")


async def test_the_last_outcome_shows_the_attack_and_the_turn_cannot_be_missed(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client],
        axe_source: str) -> None:  # noqa: F811
    """The player's attack: the line under "Your last action" is the server's summary of it
    (the event's own words, without rule numbers); on her turn the banner has its own look and
    the tab says "Your turn"; on another's, neither."""
    audit = Audit(axe_source, artifacts, "play")
    table = await fight(server, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=LAPTOP)
    other = await pages.open(f"{base}/table/#token={table.tokens['dash']}", size=LAPTOP)
    await live(player)
    await live(other)
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "twilight")
    await player.wait_for_selector(".banner.mine >> text=Your turn")
    await player.wait_for_function("document.title === 'Your turn — Stablemaster'")
    await other.wait_for_selector(".banner.quiet >> text=Twilight Sparkle's turn")
    assert await other.title() == "Test encounter — Stablemaster"
    colour = "el => getComputedStyle(el).backgroundColor"
    mine, theirs = (await player.eval_on_selector(".banner", colour),
                    await other.eval_on_selector(".banner", colour))
    assert mine != theirs, (mine, theirs)
    assert "What your actions do" in await player.inner_text(".outcome-panel")
    assert not await player.is_checked("input.turn-call")  # the call is opt-in
    await audit(player, "player, her turn")
    await audit(other, "player, another's turn")

    # she moves beside the brute (a click, then Move under the map), then attacks
    await player.wait_for_selector('.map .sq[data-x="3"][data-y="1"].reach')
    await player.click('.map .sq[data-x="3"][data-y="1"]')
    await player.click("#map-move")
    await player.wait_for_function(
        "JSON.stringify(window.stablemaster.table.positions.get('twilight')) === '[3,1]'")
    await player.wait_for_selector(".outcome-panel li.combatant_moved")
    await attack_with_the_mouse(player)
    await table.gm.wait_for(lambda m: m["type"] == "event"
                            and m["event"]["kind"] == "attack_resolved")
    await caught_up(table.gm)
    await player.wait_for_selector(".outcome-panel li.attack_resolved")
    # the lines are the summaries of the events her attack caused, as the server sent them
    log = await player.evaluate("window.stablemaster.table.log.map(l => [l.kind, l.text])")
    attack_at = max(i for i, (kind, _) in enumerate(log) if kind == "attack_resolved")
    moved_at = max(i for i, (kind, _) in enumerate(log) if kind == "combatant_moved")
    caused = [(k, t) for k, t in log[moved_at + 1:] if k != "snapshot"]
    shown = await player.eval_on_selector_all(
        ".outcome-panel li", "els => els.map(e => [e.dataset.kind, e.textContent, e.title])")
    assert [k for k, _, _ in shown] == [k for k, _ in caused], (shown, caused)
    assert any(k == "attack_resolved" for k, _ in caused[: attack_at - moved_at])
    for (_kind, text, title), (_, server_text) in zip(shown, caused, strict=True):
        # the server's words, its rule numbers in the tooltip
        assert not re.search(r"\(R\d", text), text
        assert re.sub(r"\s*\([^()]*R\d+[^()]*\)", "", server_text) == text, (server_text, text)
        for rule in re.findall(r"R\d+", server_text):
            assert rule in title, (server_text, title)
    hit = next(t for k, t, _ in shown if k == "attack_resolved")
    assert "Twilight Sparkle" in hit and ("hit" in hit or "miss" in hit), hit
    # the log keeps the detail, without rule numbers either
    lines = await player.eval_on_selector_all(".log .line", "els => els.map(e => e.textContent)")
    for text in lines:
        assert not re.search(r"\(R\d", text), text
    await player.screenshot(path=artifacts / "player-outcome-1366.png")
    await audit(player, "player, after her attack")
    # the turn passes: the banner's look and the tab's title with it
    await table.gm.command("act", combatant="twilight", action="end_turn")
    await player.wait_for_selector(".banner.quiet >> text=Rainbow Dash's turn")
    await player.wait_for_function("document.title === 'Test encounter — Stablemaster'")
    await other.wait_for_function("document.title === 'Your turn — Stablemaster'")
    audit.check()


async def test_on_a_phone_the_map_the_actions_and_the_last_outcome_share_the_first_screen(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """At 390 x 844, on her turn and after her attack: the map, the turn's actions and the last
    outcome are on the first screen, and the page is no wider than the screen (the foe's long
    name included)."""
    table = await fight(server, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "twilight")
    await table.gm.command("place_combatant", combatant="twilight", at=[3, 1])
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=PHONE)
    await live(player)
    turn = '.actions-panel fieldset.turn[data-combatant="twilight"]'
    await player.wait_for_selector(f"{turn} form.act[data-action=attack] select.target")
    await player.wait_for_selector(".map .token")
    # before her attack: the whole map and the attack's form on the first screen
    await player.screenshot(path=artifacts / "player-phone-turn.png")
    for part in (".outcome-panel", ".map-panel .map", f"{turn} form.act[data-action=attack]"):
        box = await box_of(player, part)
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE[1], (part, box)
    assert await player.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    await attack_with_the_mouse(player)
    await player.wait_for_selector(".outcome-panel li.attack_resolved")
    await player.evaluate("window.scrollTo(0, 0)")
    await player.screenshot(path=artifacts / "player-phone-first-screen.png")
    await player.screenshot(path=artifacts / "player-phone-whole.png", full_page=True)
    # after it: its outcome, the map and the turn's first actions
    for part in (".outcome-panel li.attack_resolved", ".map-panel .map", "#map-move"):
        box = await box_of(player, part)
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE[1], (part, box)
    for part in (f"{turn} > legend", f"{turn} .buttons.first"):
        box = await box_of(player, part)
        assert box["y"] >= 0 and box["y"] + min(box["height"], 40) <= PHONE[1], (part, box)
    width = await player.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE[0], width


async def test_a_move_and_an_attack_by_keyboard_take_at_most_15_keys_with_the_focus_kept(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """From the page's start: the skip link to the map, the arrow keys to a square, Enter, Move
    (Tab from the map), then the actions' first target, a foe chosen and Enter: 15 keys or
    fewer, and after each command the focus is on the control that sent it."""
    table = await fight(server, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=LAPTOP)
    await live(player)
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "twilight")
    await player.wait_for_selector('.map .sq[data-x="3"][data-y="1"].reach')
    await player.wait_for_selector('form.act[data-action="attack"] select.target')
    keys: list[str] = []

    async def press(key: str) -> None:
        keys.append(key)
        await player.keyboard.press(key)

    focused = ("() => { const e = document.activeElement;"
               " return e ? [e.tagName, e.className, e.id] : null; }")
    await press("Tab")
    assert "to-map" in (await player.evaluate(focused))[1]
    await press("Enter")
    await player.wait_for_function("document.activeElement.matches('.map .sq')")
    await press("ArrowRight")
    await press("ArrowRight")
    await press("Enter")  # the server's path to (3, 1)
    await player.wait_for_function(
        "(document.querySelector('.path-text')?.textContent || '').includes('(3,1)')")
    await press("Tab")
    assert (await player.evaluate(focused))[2] == "map-move"
    await press("Enter")
    await player.wait_for_function(
        "JSON.stringify(window.stablemaster.table.positions.get('twilight')) === '[3,1]'")
    await player.wait_for_selector(".outcome-panel li.combatant_moved")
    # the focus stays on the control that acted, once the actions are drawn anew
    await player.wait_for_function(
        "document.activeElement && document.activeElement.id === 'map-move'")
    await press("Tab")
    assert "to-actions" in (await player.evaluate(focused))[1]
    await press("Enter")
    target = "form.act[data-action=attack] select.target"
    await player.wait_for_function(f"document.activeElement.matches({target!r})")
    await press("ArrowDown")
    assert await player.eval_on_selector(target, "s => s.value") == "brute"
    await press("Enter")
    await player.wait_for_selector(".outcome-panel li.attack_resolved")
    await table.gm.wait_for(lambda m: m["type"] == "event"
                            and m["event"]["kind"] == "attack_resolved")
    assert len(keys) <= 15, keys
    # the attack is spent (its form gone): the focus on the turn's first control, not on the page
    await player.wait_for_function(
        "!window.stablemaster.table.legal.some(a => a.action === 'attack'"
        " && a.combatant === 'twilight')")
    await player.wait_for_function(
        "document.activeElement !== document.body && !document.activeElement.disabled && "
        "document.activeElement.matches('fieldset.turn[data-combatant=twilight] .buttons.first *')")
    await player.screenshot(path=artifacts / "player-keyboard.png")
    assert len(events_of(table.gm, "attack_resolved")) == 1
    assert len(events_of(table.gm, "combatant_moved")) == 1


async def test_a_readied_action_is_offered_when_another_combatants_command_ends(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client],
        axe_source: str) -> None:  # noqa: F811
    """Twilight readies an attack; each time another combatant's command ends, her page asks
    "Take the readied action now?"; dismissed, it comes back at the next one; taken, the
    readied action interrupts the turn."""
    table = await fight(server, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=LAPTOP)
    await live(player)
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "twilight")
    await table.gm.command("act", combatant="twilight", action="ready",
                           args={"action": "attack", "trigger": "when the brute moves"})
    await player.wait_for_function("!!window.stablemaster.table.readied.twilight")
    if await player.evaluate("window.stablemaster.table.current") == "twilight":
        await table.gm.command("act", combatant="twilight", action="end_turn")
    await player.wait_for_function("window.stablemaster.table.current !== 'twilight' && "
                                   "window.stablemaster.table.legal.some(a => "
                                   "a.action === 'trigger_ready')")
    await caught_up(table.gm)
    if await player.locator(".readied-prompt").is_visible():  # (the GM's end of her turn)
        await player.click(".readied-prompt button.dismiss-readied")
    assert await player.locator(".readied-prompt").is_hidden()
    # the one acting moves (the GM's command for it): asked
    other = await player.evaluate("window.stablemaster.table.current")
    x, y = AT[other]
    await table.gm.command("act", combatant=other, action="move", args={"path": [[x + 1, y]]})
    await player.wait_for_selector(".readied-prompt:not([hidden])")
    text = await player.inner_text(".readied-prompt")
    assert "Take the readied action now?" in text and "when the brute moves" in text, text
    await player.screenshot(path=artifacts / "player-readied.png")
    audit = Audit(axe_source, artifacts, "readied")
    await audit(player, "player, the readied action's prompt")
    audit.check()
    await player.click(".readied-prompt button.dismiss-readied")
    assert await player.locator(".readied-prompt").is_hidden()
    # the next command of another ends: asked again; taken, the readied action interrupts
    await table.gm.command("act", combatant=other, action="end_turn")
    await player.wait_for_selector(".readied-prompt:not([hidden])")
    await player.click(".readied-prompt button.take-readied")
    await table.gm.wait_for(lambda m: m["type"] == "event"
                            and m["event"]["kind"] == "readied_action_triggered")
    await player.wait_for_selector(".outcome-panel li.readied_action_triggered")
    assert await player.locator(".readied-prompt").is_hidden()
