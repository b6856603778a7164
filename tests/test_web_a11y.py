"""The web table's accessibility, as axe-core judges it in a real browser (Debian's Chromium
driven by Playwright, a real server and Redis): every page in the states a user sees it in —
the create page (empty, and an example chosen), the GM console while setting up, during a
fight on the shipped example's battle map with its hidden boss and the turn timer running,
during a social scene and after the end; the player page on its turn, while another acts, in
a social scene and after the end; the spectator overlay, opaque and transparent — at
1280x800 and 390x844, and in the dark colour scheme at 1280x800, has no violation axe-core
rates ``critical`` or ``serious``. axe-core comes from ``tests/a11y``'s lock file
(``npm ci``): without Node and npm this fails, it does not skip. Screenshots of each state
go to test-artifacts/web-a11y/, with violations.json: what axe found, state by state."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from server.app import Server
from tests.conftest import ROOT, ws_url
from tests.helpers import create_table, join, play_turns, set_out, until_turn_of, wait_current
from tests.test_js_package import _installed
from tests.test_web import CHROMIUM, GARDEN, PHONE, Pages, action_time_table

WIDE = (1280, 800)
# the sizes (a laptop, a phone) and colour schemes (the pages follow the browser's) audited
VIEWS = ((WIDE, "light"), (PHONE, "light"), (WIDE, "dark"))
AXE = Path(__file__).resolve().parent / "a11y"
EXAMPLE = "dramatic-ponies-vs-diamond-dogs.yaml"  # a battle map, and a boss hidden on it
HIDDEN = "boss"
FAILING = ("critical", "serious")

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

# axe-core's run over the whole page: each violation with its impact and the elements it found
# (WCAG 2.x A and AA rules, and axe's best practices).
AXE_RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html.slice(0, 160),
                                 why: (n.failureSummary || "").split("\\n").slice(1, 3).join(" ")
                                   .slice(0, 240) })),
  }));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"{' and '.join(missing)} missing: install Node.js 18 or newer"
    _installed(AXE)
    return (AXE / "node_modules" / "axe-core" / "axe.min.js").read_text()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    folder = ROOT / "test-artifacts" / "web-a11y"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


class Audit:
    """axe-core's verdicts on the pages of one test, state by state and size by size; the
    test fails on the ``critical`` and ``serious`` ones, all of them listed."""

    def __init__(self, source: str, artifacts: Path, name: str) -> None:
        self.source, self.artifacts, self.name = source, artifacts, name
        self.found: dict[str, list[dict[str, Any]]] = {}

    async def __call__(self, page: Any, state: str) -> None:
        """axe-core on ``page`` as it is now, at each size and in the dark colour scheme too
        (a screenshot of each), the page left as it was."""
        for (width, height), scheme in VIEWS:
            await page.set_viewport_size({"width": width, "height": height})
            await page.emulate_media(color_scheme=scheme)
            await page.evaluate("() => new Promise((r) => requestAnimationFrame(() => r()))")
            if not await page.evaluate("typeof window.axe === 'object'"):
                await page.add_script_tag(content=self.source)
            where = f"{state} {width}x{height}" + (f" {scheme}" if scheme != "light" else "")
            self.found[where] = await page.evaluate(AXE_RUN)
            shot = re.sub(r"[^a-z0-9]+", "-", where.lower()).strip("-")
            await page.screenshot(path=self.artifacts / f"{shot}.png", full_page=True)
            self.write()
        await page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
        await page.emulate_media(color_scheme="light")

    def write(self) -> None:
        """violations.json: what axe-core found so far, by test and state (kept after a
        failure too)."""
        counts = {where: {impact: {"rules": sum(v["impact"] == impact for v in found),
                                   "elements": sum(len(v["nodes"]) for v in found
                                                   if v["impact"] == impact)}
                          for impact in ("critical", "serious", "moderate", "minor")}
                  for where, found in self.found.items()}
        report = self.artifacts / "violations.json"
        kept = json.loads(report.read_text()) if report.exists() else {}
        kept[self.name] = {"counts": counts, "violations": self.found}
        report.write_text(json.dumps(kept, indent=1))

    def check(self) -> None:
        self.write()
        failing = [f"{where}: {v['impact']} {v['id']} ({v['help']}), {len(v['nodes'])}: "
                   + "; ".join(f"{n['target']} — {n['why']}" for n in v["nodes"][:6])
                   for where, found in self.found.items() for v in found
                   if v["impact"] in FAILING]
        assert not failing, "\n".join(failing)


async def live(page: Any) -> None:
    await page.wait_for_selector('#status[data-state="live"]', state="attached", timeout=10_000)


async def test_the_create_page_the_gm_console_in_a_fight_the_player_and_the_overlay(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client],
        axe_source: str) -> None:
    audit = Audit(axe_source, artifacts, "fight")
    url = ws_url(server)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/", size=WIDE)
    await gm.wait_for_selector(".examples input[type=radio]")
    await audit(gm, "create page")
    # the shipped ambush at the old mill (its map, its hidden boss), with a turn timer
    await gm.check(f'.examples input[value="{EXAMPLE}"]')
    await gm.wait_for_function("document.querySelector('p.file-notes').dataset.took")
    await gm.fill("textarea[name=options]", '{"turn_seconds": 300}')
    await audit(gm, "create page, an example chosen")
    await gm.click("button.primary")
    await live(gm)
    assert (await gm.evaluate("window.stablemaster.table.options"))["turn_seconds"] == 300
    await gm.wait_for_selector(".roster-panel .badge.hidden")
    await gm.wait_for_selector(".map .token")
    for pony in ("twilight", "dash"):
        await gm.click(f"button.invite[data-combatant={pony}]")
    await gm.click("button.spectator-link")
    await gm.wait_for_function("document.querySelectorAll('.links-panel input.link').length === 3")
    await audit(gm, "GM console, setting up")
    gm_token = await gm.evaluate(
        "decodeURIComponent(new URLSearchParams(location.hash.slice(1)).get('token'))")
    gm_api = await join(url, gm_token, clients)
    links = await gm.eval_on_selector_all(".links-panel input", "is => is.map(i => i.value)")
    player_link = next(link for link in links if "#token=" in link)
    player = await pages.open(player_link, size=WIDE)
    watch = await pages.open(next(link for link in links if "/watch?" in link
                                  and "transparent" not in link), size=WIDE)
    overlay = await pages.open(next(link for link in links if "transparent=1" in link),
                               size=WIDE)
    await live(player)
    mine = await player.evaluate("window.stablemaster.table.welcome.combatants[0]")

    # the fight: the timer running, a pony worn down (its bar low), the boss still hidden
    await gm.click('button[data-action="start_encounter"]')
    await gm.wait_for_function("window.stablemaster.table.round === 1")
    await gm_api.command("adjust_combatant", combatant=mine, fatigue=2, prone=True,
                         reason="a bad fall")
    await gm_api.command("add_effect", name="Shield of Leaves", combatant=mine,
                         modifiers=[{"target": "reflex_defense", "amount": 2}], until="scene")
    await gm_api.command("adjust_combatant", combatant="digger", condition="unconscious",
                         reason="knocked out")
    await player.wait_for_selector(f'.sheet[data-combatant={mine}] .fatigue[data-fatigue="2"]')
    for badge in ("prone", "effect", "consciousness"):
        await player.wait_for_selector(f"ol.order .badge.{badge}")
    seen = {"its turn": False, "another's turn": False}
    for _ in range(12):
        actor = await wait_current(gm_api)
        if actor != HIDDEN:  # (the players see the turn before the hidden boss's go on)
            state = "its turn" if actor == mine else "another's turn"
            if not seen[state]:
                seen[state] = True
                banner = "Your turn" if actor == mine else "'s turn"
                await player.wait_for_selector(f".banner >> text={banner}")
                await audit(player, f"player page, {state}")
            if all(seen.values()):
                break
        await play_turns(gm_api, {}, 1)
    assert all(seen.values()), seen
    await gm.wait_for_function(f"window.stablemaster.table.current === {actor!r}")
    await gm.wait_for_selector('.turn-timer[data-state="running"]')
    await audit(gm, "GM console, a fight")
    for page in (watch, overlay):
        await page.wait_for_selector("#map .token")
        await page.wait_for_selector("#turn:not(:empty)")
    await audit(watch, "overlay, a fight")
    await audit(overlay, "overlay (transparent), a fight")

    await gm_api.command("end_encounter", reason="the dogs fled")
    for page in (gm, player):
        await page.wait_for_selector('.dice-line[data-state="revealed"]')
    await audit(gm, "GM console, after the end")
    await audit(player, "player page, after the end")
    for page in (watch, overlay):
        await page.wait_for_selector("#round >> text=the scene is over")
    await audit(watch, "overlay, after the end")
    await audit(overlay, "overlay (transparent), after the end")
    audit.check()


async def test_the_gm_console_and_the_player_page_in_a_social_scene(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client],
        axe_source: str) -> None:
    audit = Audit(axe_source, artifacts, "social")
    url = ws_url(server)
    table = await create_table(url, clients, GARDEN)
    gm_api = table.gm
    await gm_api.command("set_social_event", rating=12, organizer="blueblood",
                         circle="canterlot high society", topic="the Grand Galloping Gala")
    await gm_api.command("size_argument", combatant="twilight", size="large",
                         text="the Princess invited us")
    await gm_api.command("size_argument", combatant="blueblood", size="medium",
                         text="commoners do not belong here")
    await gm_api.command("set_attitude", holder="blueblood", toward="twilight",
                         attitude="unfriendly")
    await gm_api.command("set_attitude", holder="jetset", toward="twilight", attitude="friendly")
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=WIDE)
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=WIDE)
    for page in (gm, player):
        await live(page)
    await gm_api.command("start_encounter")
    for page in (gm, player):
        await page.wait_for_selector(".social-panel td.attitude.unfriendly")
        await page.wait_for_selector(".social-panel table.social li[data-argument]")
    await gm.wait_for_selector('form.tool[data-command="set_social_event"]')
    await gm.wait_for_selector(".actions-panel fieldset.turn")
    await audit(gm, "GM console, a social scene")
    await audit(player, "player page, a social scene")
    audit.check()


async def test_the_gm_console_and_the_player_page_with_a_roll_pending(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client],
        axe_source: str) -> None:
    """Physical dice (``players_roll``, ``manual_rolls``): the scene begins with every
    initiative roll asked for, the player's die entry and the GM's open on their pages, and
    axe-core finds nothing critical or serious on either."""
    audit = Audit(axe_source, artifacts, "roll-pending")
    url = ws_url(server)
    table = await create_table(url, clients, players_roll=True, manual_rolls=True)
    await table.gm.command("set_map", map={"width": 8, "height": 6})
    await table.gm.command("place_combatant", combatant="twilight", at=[1, 1])
    await table.gm.command("place_combatant", combatant="dog", at=[6, 4])
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=WIDE)
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=WIDE)
    for page in (gm, player):
        await live(page)
    await table.gm.command("start_encounter")
    await player.wait_for_selector('form.roll[data-action="submit_roll"] input.face')
    await gm.wait_for_selector('form.roll[data-action="submit_roll"] input.face')
    await audit(player, "player page, a roll pending")
    await audit(gm, "GM console, a roll pending")
    audit.check()


async def test_the_player_page_and_the_overlay_at_set_up_and_on_the_players_turn(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client],
        axe_source: str) -> None:
    """Before the scene starts (the player page and the overlay, the map set out), then on the
    player's turn once the map shades where the move can go and marks whom the attack can reach
    (R106, R107), then with the turn's "More…" actions opened."""
    audit = Audit(axe_source, artifacts, "set-up-and-turn")
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await set_out(gm, {"width": 8, "height": 4, "blocked": [[4, 0], [4, 1]],
                       "difficult": [[1, 1]]},
                  {"twilight": [0, 0], "dash": [1, 0], "applejack": [0, 3],
                   "fluttershy": [2, 3], "dog": [7, 3]})
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=WIDE)
    watch = await pages.open(f"{base}/watch?spectate={table.spectator_token}", size=WIDE)
    await live(player)
    await player.wait_for_selector(".map .token")
    await watch.wait_for_selector("#map .token")
    await audit(player, "player page, setting up")
    await audit(watch, "overlay, setting up")
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    await player.wait_for_selector(".map .sq.reach")
    form = 'form.act[data-action="attack"][data-combatant="twilight"]'
    await player.wait_for_selector(f"{form} option.unreachable", state="attached")
    await player.wait_for_selector(".map .token.aim-no, .map .token.aim-ok")
    await audit(player, "player page, its turn, reach and targets marked")
    await player.click(".actions-panel details.more > summary")
    await player.wait_for_selector(".actions-panel details.more[open] .cost-group")
    await audit(player, "player page, its turn, More… opened")
    audit.check()


async def test_the_pages_of_an_action_time_encounter(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client],
        axe_source: str) -> None:
    """The shipped Action Time ambush: the GM console, the player page and the overlay before
    the scene, and during the fight on the player's turn (its "More…" actions opened)."""
    audit = Audit(axe_source, artifacts, "action-time")
    url = ws_url(server)
    table = await action_time_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    pony = "fluttershy"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=WIDE)
    player = await pages.open(f"{base}/table/#token={table.tokens[pony]}", size=WIDE)
    watch = await pages.open(f"{base}/watch?spectate={table.spectator_token}", size=WIDE)
    for page in (gm, player):
        await live(page)
    await watch.wait_for_selector(f"#order li[data-combatant={pony}]")
    await audit(gm, "GM console, setting up")
    await audit(player, "player page, setting up")
    await audit(watch, "overlay, setting up")
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, pony)
    await player.wait_for_selector(".banner >> text=Your turn")
    await gm.wait_for_function(f"window.stablemaster.table.current === {pony!r}")
    await watch.wait_for_selector("#turn:not(:empty)")
    await audit(player, "player page, its turn")
    await audit(gm, "GM console, a fight")
    await audit(watch, "overlay, a fight")
    more = player.locator(".actions-panel details.more > summary")
    if await more.count():
        await more.first.click()
        await player.wait_for_selector(".actions-panel details.more[open]")
        await audit(player, "player page, its turn, More… opened")
    audit.check()
