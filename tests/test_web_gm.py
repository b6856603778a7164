"""The GM console in a real browser (Debian's Chromium driven by Playwright) against a real
server and Redis: the attention strip at the top of the first screen holds a player's undo
request with its answers, and the tab title counts what waits (axe finds nothing serious in
it); a map click places a combatant once, and placing ends when the scene starts; no timer
names a turn other than the one the page shows running, across a hidden turn; ending the scene
asks first; a second Invite shows the link the character has; a map that drops placed
combatants names them first. Screenshots go to test-artifacts/web-gm/."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from server.app import Server
from tests.browser import CHROMIUM, Pages
from tests.conftest import ROOT, settings_for, ws_url
from tests.helpers import caught_up, create_table, join, until_turn_of, wait_current
from tests.redis_procs import RedisProcess
from tests.test_demo import fresh_demo, state_of, until
from tests.test_js_package import _installed
from tests.test_web_a11y import AXE, FAILING

ARTIFACTS = ROOT / "test-artifacts" / "web-gm"
LAPTOP = (1366, 768)

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")


@pytest.fixture(scope="module")
def artifacts() -> Path:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def axe() -> str:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"{' and '.join(missing)} missing: install Node.js 18 or newer"
    _installed(AXE)
    return (AXE / "node_modules" / "axe-core" / "axe.min.js").read_text()


async def live(page: Any) -> None:
    await page.wait_for_selector('#status[data-state="live"]', timeout=10_000)


# axe-core on the attention strip: each violation's rule, impact and elements.
AXE_STRIP = """async () => (await axe.run(document.querySelector('.attention'),
    { resultTypes: ["violations"] })).violations.map((v) => [v.id, v.impact,
    v.nodes.map((n) => n.target.join(' '))])"""


async def answered(asked: list[str], timeout: float = 10) -> None:
    """Until a dialog was answered (its message in ``asked``)."""
    async def wait() -> None:
        while not asked:
            await asyncio.sleep(0.02)
    await asyncio.wait_for(wait(), timeout)


async def within_first_screen(page: Any, selector: str, height: int) -> dict[str, float]:
    """The element's box once it stands, checked to be on the first screen."""
    where = page.locator(selector)
    box = None
    for _ in range(50):  # (drawn again as messages come in: read once it stands)
        await where.wait_for(state="visible")
        box = await where.bounding_box()
        if box is not None:
            break
        await asyncio.sleep(0.1)
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
    return box


async def test_an_undo_request_waits_in_the_strip_on_the_first_screen_and_in_the_title(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client], axe: str) -> None:
    """A player's request to take back an action appears at the top of the GM console at
    1366 x 768, with Accept and Refuse; the tab title counts it; Accept takes the action back
    and the item goes, the count with it. axe finds nothing serious or critical in the strip,
    light and dark."""
    url = ws_url(server)
    table = await create_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=LAPTOP)
    await live(gm)
    await gm.wait_for_selector(".attention .attention-empty:visible")
    assert not re.match(r"^\(\d+\) ", await gm.title())
    player = await join(url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "twilight")
    await player.command("act", combatant="twilight", action="fall_prone")
    await player.command("request_undo", combatant="twilight")
    item = '.attention li.undo'
    await gm.locator(f"{item} >> text=Twilight Sparkle's player asks").wait_for()
    await within_first_screen(gm, item, LAPTOP[1])
    await within_first_screen(gm, f"{item} button.grant", LAPTOP[1])
    count = int(await gm.get_attribute(".attention", "data-count") or 0)
    assert count >= 1
    await gm.wait_for_function(f"document.title.startsWith('({count}) ')")
    await gm.screenshot(path=artifacts / "gm-undo-request-1366.png")
    # axe, on the strip with its item, light and dark
    await gm.add_script_tag(content=axe)
    for scheme in ("light", "dark"):
        await gm.emulate_media(color_scheme=scheme)
        found = await gm.evaluate(AXE_STRIP)
        assert not [v for v in found if v[1] in FAILING], (scheme, found)
    await gm.emulate_media(color_scheme="light")
    await gm.click(f"{item} button.grant")
    await gm.wait_for_selector(".log .line.commands_undone")
    await gm.locator(item).wait_for(state="detached")
    await gm.wait_for_function("!/^\\(\\d+\\) /.test(document.title)"
                               " || document.title.startsWith("
                               "`(${document.querySelector('.attention').dataset.count}) `)")
    assert await gm.locator(".attention li.undo").count() == 0
    await gm.wait_for_function("window.stablemaster.table.combatants.get('twilight')"
                               ".vitals.prone === false")


async def test_a_placing_mode_ends_after_one_click_and_when_the_scene_starts(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """The map says its mode; "places Diamond Dog" places it with one click, then the map
    picks moves again; a placing mode chosen and not used ends when the scene starts."""
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("set_map", map={"width": 10, "height": 6})
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=LAPTOP)
    await live(gm)
    label = gm.locator(".map-panel .map-mode")
    await label.locator("text=Map mode: moves").wait_for()
    await gm.select_option("select.click-mode", "place:dog")
    await label.locator("text=placing Diamond Dog").wait_for()
    assert await gm.get_attribute(".map-panel .mapbox", "data-mode") == "place"
    await gm.screenshot(path=artifacts / "gm-placing.png")
    await gm.click('.map .sq[data-x="4"][data-y="2"]')
    await gm.wait_for_function("JSON.stringify(window.stablemaster.table.positions.get('dog'))"
                               " === '[4,2]'")
    await label.locator("text=Map mode: moves").wait_for()
    assert await gm.input_value("select.click-mode") == "path"
    # a second click places nothing: the dog stays where it is
    await gm.click('.map .sq[data-x="6"][data-y="3"]')
    await caught_up(table.gm)
    assert not [m for m in table.gm.events() if m["event"]["kind"] == "combatant_placed"
                and m["event"].get("at") == [6, 3]]
    # chosen during the setup, placing ends with it
    await gm.select_option("select.click-mode", "place:twilight")
    await label.locator("text=placing Twilight Sparkle").wait_for()
    await table.gm.command("start_encounter")
    await label.locator("text=Map mode: moves").wait_for()
    assert await gm.input_value("select.click-mode") == "path"
    assert await gm.get_attribute(".map-panel .mapbox", "data-mode") == "path"


# Initiatives far enough apart that the d20 keeps the order: Dash, the hidden dog, Twilight.
ORDERED = [
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 40},
    {"name": "Lurking Dog", "id": "lurker", "kind": "npc", "initiative": 20, "hidden": True},
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 0},
    {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": -20},
]

# Every moment the player's page changes: the timer's words (when shown), whose turn the
# page shows, and the banner's words.
RECORD_TURNS = """
window.__turns = [];
new MutationObserver(() => {
  const t = window.stablemaster && window.stablemaster.table;
  if (!t) return;
  const timer = document.querySelector('.turn-timer');
  const banner = document.querySelector('.banner');
  window.__turns.push({
    timer: timer && !timer.hidden && timer.offsetParent !== null ? timer.innerText : null,
    current: t.current === null ? null : t.nameOf(t.current),
    banner: banner && !banner.hidden ? banner.innerText : null,
  });
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""


async def test_no_timer_names_another_turn_than_the_one_shown_across_a_hidden_turn(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """With a turn timer of 6 s: Rainbow Dash's time runs out, the GM ends her turn, the
    hidden Lurking Dog acts, then Twilight's turn comes. On the player's page no timer ever
    names a turn other than the one its order and banner show running (none while the hidden
    dog acts); on the GM's console the strip holds the turn running out, the timer line is not
    shown during the hidden turn, and the warning colour shows before the time is up."""
    url = ws_url(server)
    table = await create_table(url, clients, ORDERED, turn_seconds=6)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=LAPTOP)
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}",
                              init=RECORD_TURNS, size=LAPTOP)
    for page in (gm, player):
        await live(page)
    await table.gm.command("start_encounter")
    assert await wait_current(table.gm) == "dash"
    # the warning colour before the time is up, then the end
    # the warning colour before the time is up (the last 10 s; the options give no warning
    # for a turn this short), then the server's end of it
    await player.wait_for_selector('.turn-timer[data-state="warned"]')
    warned = await player.inner_text(".turn-timer .clock")
    assert warned.startswith("Rainbow Dash's turn: 0:0"), warned
    # the GM's strip has it too, with Pause (a turn's last 10 s wait for the GM)
    await gm.wait_for_selector('.attention li.timer:has-text("Rainbow Dash\'s turn")'
                               ' button.pause')
    await table.gm.wait_until(lambda: any(m["event"]["kind"] == "turn_timer_expired"
                                          for m in table.gm.events()))
    await table.gm.command("act", combatant="dash", action="end_turn")
    assert await wait_current(table.gm) == "lurker"
    await gm.wait_for_function("window.stablemaster.table.current === 'lurker'")
    assert not await gm.locator(".order-panel .turn-timer").is_visible()
    await gm.screenshot(path=artifacts / "gm-hidden-turn.png")
    await player.screenshot(path=artifacts / "player-hidden-turn.png")
    await table.gm.command("act", combatant="lurker", action="end_turn")
    assert await wait_current(table.gm) == "twilight"
    await player.locator(".turn-timer >> text=Twilight Sparkle's turn").wait_for()
    turns: list[dict[str, Any]] = await player.evaluate("window.__turns")
    shown = [t for t in turns if t["timer"] is not None]
    assert any("Rainbow Dash" in t["timer"] for t in shown)
    stale = [t for t in shown if t["current"] is None
             or not t["timer"].startswith(f"{t['current']}'s turn")]
    assert not stale, stale[:5]
    assert not [t for t in turns if t["banner"] and t["current"]
                and t["current"] not in t["banner"]]


async def test_ending_the_scene_asks_first(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """"End the scene" asks first: a no sends nothing, a yes ends it."""
    url = ws_url(server)
    table = await create_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=LAPTOP)
    await live(gm)
    await table.gm.command("start_encounter")
    end = '.actions-panel button[data-action="end_encounter"]'
    await gm.wait_for_selector(end)
    asked: list[str] = []

    async def refuse(dialog: Any) -> None:
        asked.append(dialog.message)
        await dialog.dismiss()

    gm.once("dialog", refuse)
    await gm.click(end)
    await answered(asked)
    assert "End the scene" in asked[0]
    await caught_up(table.gm)
    assert not [m for m in table.gm.events() if m["event"]["kind"] == "encounter_ended"]
    assert not await gm.evaluate("window.stablemaster.table.ended")
    gm.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
    await gm.click(end)
    await gm.wait_for_function("window.stablemaster.table.ended === true")


async def test_a_second_invite_shows_the_link_and_a_map_that_drops_combatants_names_them(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """Invite for a character with a link shows that link, and makes no second credential;
    the spectator links say what each is; a map on which placed combatants no longer fit
    names them before it is set, and a no sends nothing."""
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("set_map", map={"width": 10, "height": 6})
    await table.gm.command("place_combatant", combatant="dog", at=[8, 4])
    await table.gm.command("place_combatant", combatant="twilight", at=[1, 1])
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=LAPTOP)
    await live(gm)
    await gm.wait_for_selector(".links-panel li input.link")
    tokens = await gm.evaluate("window.stablemaster.table.tokens.size")
    await gm.click('button.invite[data-combatant="twilight"]')
    await gm.locator(".links-panel .link-note >> text=Twilight Sparkle already has a link"
                     ).wait_for()
    await gm.wait_for_selector(".links-panel li.shown")
    assert "Twilight Sparkle" in await gm.inner_text(".links-panel li.shown strong")
    await caught_up(table.gm)
    assert await gm.evaluate("window.stablemaster.table.tokens.size") == tokens
    kinds = await gm.eval_on_selector_all(".links-panel .link-kind .kind",
                                          "els => els.map((e) => e.textContent)")
    assert any("live" in k for k in kinds) and any("transparent" in k for k in kinds) \
        and any("Replay" in k for k in kinds), kinds
    await gm.screenshot(path=artifacts / "gm-links.png", full_page=True)
    # a 6 x 3 map: the dog at (8, 4) no longer fits, Twilight does
    asked: list[str] = []

    async def refuse(dialog: Any) -> None:
        asked.append(dialog.message)
        await dialog.dismiss()

    gm.once("dialog", refuse)
    await gm.click(".map-panel details.set-map summary")
    await gm.fill(".map-panel textarea.map-json", "......\n......\n......")
    await gm.click(".map-panel button.set-map")
    await answered(asked)
    assert "Diamond Dog" in asked[0] and "Twilight" not in asked[0], asked
    await caught_up(table.gm)
    assert await gm.evaluate("window.stablemaster.table.map.width") == 10


WIDE = (1920, 1080)
# Where the GM console's panels are: each one's box by its class.
PANELS = """() => Object.fromEntries([...document.querySelectorAll('main > section')].map((s) => {
    const r = s.getBoundingClientRect();
    return [s.className.split(' ').filter((c) => c !== 'wide')[0] || 'log',
            [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)]];
}))"""


async def test_at_1920_the_console_uses_the_width_the_map_large_with_the_log_beside_it(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """At 1920 x 1080, once the scene runs: the panels reach across the screen, the map is
    drawn larger than at 1366 and whole (nothing of it clipped in its panel), and the log is
    beside the map on the first screen."""
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("set_map", map={"width": 16, "height": 10})
    await table.gm.command("place_combatant", combatant="dog", at=[12, 7])
    await table.gm.command("start_encounter")
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=WIDE)
    await live(gm)
    await gm.wait_for_selector(".map-panel .map .sq")
    await gm.wait_for_selector(".log .line")
    await gm.screenshot(path=artifacts / "gm-1920.png")
    panels = await gm.evaluate(PANELS)
    print(panels)
    assert max(right for _, _, right, _ in panels.values()) >= WIDE[0] - 40, panels
    sizes = await gm.evaluate("""() => { const b = document.querySelector('.map-panel .mapbox');
        const m = b.querySelector('.map');
        return [b.scrollWidth, b.clientWidth, b.scrollHeight, b.clientHeight,
                m.getBoundingClientRect().width]; }""")
    assert sizes[0] <= sizes[1] and sizes[2] <= sizes[3], sizes  # not clipped
    drawn = sizes[4]
    await within_first_screen(gm, ".log-panel .log", WIDE[1])
    log, mapped = panels["log-panel"], panels["map-panel"]
    assert log[0] >= mapped[2] or log[2] <= mapped[0], (log, mapped)  # beside it
    await gm.set_viewport_size({"width": LAPTOP[0], "height": LAPTOP[1]})
    await gm.wait_for_function(f"document.querySelector('.map-panel .map')"
                               f".getBoundingClientRect().width < {drawn}")


async def test_the_demos_takeover_is_shown_and_the_npcs_can_be_handed_back(
        redis_server: RedisProcess, pages: Pages, artifacts: Path) -> None:
    """In the demo, while the GM only watches, the strip says nothing of the NPCs (the bots
    play them); the GM's first move (an effect) hands them to the GM, and the strip says so;
    "Hand them back" disconnects the console, and the bots play them again."""
    await fresh_demo(redis_server.url, "dramatic")
    srv = Server(settings_for(redis_server.url, demo=True, demo_rulesets=("dramatic",),
                              demo_wait=0.0, demo_pace=0.5))
    await srv.start()
    try:
        await asyncio.wait_for(srv.demo.ready.wait(), 20)
        enc = srv.demo.encounters[0]
        base = f"http://127.0.0.1:{srv.settings.port}"
        gm = await pages.open(f"{base}/table/#token={enc.gm_token}", size=LAPTOP)
        try:
            await live(gm)
            await gm.wait_for_function("window.stablemaster.table.started")
        finally:
            await gm.screenshot(path=artifacts / "gm-demo.png")
        npc = next(cid for cid, c in state_of(srv, enc.encounter).combatants.items()
                   if c.kind == "npc")
        assert not srv.demo.taken(enc, npc)
        assert await gm.locator(".attention li.takeover").count() == 0
        tool = 'form.tool[data-command="add_effect"]'
        await gm.fill(f"{tool} input[name=name]", "The GM steps in")
        await gm.select_option(f"{tool} select[name=until]", "scene")
        await gm.click(f"{tool} button[type=submit]")
        item = gm.locator(".attention li.takeover")
        await item.locator("text=The demo's bots stopped playing the NPCs").wait_for()
        await until(lambda: srv.demo.taken(enc, npc), 5, "GM take-over")
        await within_first_screen(gm, ".attention li.takeover button.hand-back", LAPTOP[1])
        await gm.screenshot(path=artifacts / "gm-takeover.png")
        await gm.click(".attention li.takeover button.hand-back")
        await gm.locator(".attention li.takeover >> text=You handed the NPCs back").wait_for()
        await until(lambda: not srv.demo.taken(enc, npc), 40, "the bots playing again")
    finally:
        await srv.stop()


async def test_a_player_who_joins_or_leaves_is_said_in_the_strip_until_dismissed(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """From the presence messages: a player's page opening is "joined" in the strip (counted
    in the title), OK dismisses it; the page closing is "left"."""
    url = ws_url(server)
    table = await create_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=LAPTOP)
    await live(gm)
    await gm.locator('.roster-panel .badge.presence[data-combatant="twilight"]'
                     ' >> text=not connected').wait_for()
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}")
    await live(player)
    joined = gm.locator(".attention li.presence >> text=Twilight Sparkle's player joined.")
    await joined.wait_for(timeout=10_000)
    await gm.wait_for_function("document.title.startsWith('(1) ')")
    await gm.click(".attention li.presence button.dismiss")
    await joined.wait_for(state="detached")
    await gm.wait_for_function("!document.title.startsWith('(')")
    await player.context.close()
    await gm.locator(".attention li.presence >> text=Twilight Sparkle's player left."
                     ).wait_for(timeout=10_000)
