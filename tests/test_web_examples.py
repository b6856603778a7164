"""Every shipped example plays to its end in a browser (Debian's Chromium driven by Playwright,
a real server and Redis), through the pages' controls as a GM and players would: the GM picks
the example on the create page (with a `dice_seed`, so that every run plays the same), opens
the console, reveals whoever hides, invites each player character and opens its player page;
then each turn's combatant attacks an enemy from its page (in the social scene: disputes, and
the one hit answers), moving first on a battle map when no enemy is in reach, and ends its
turn, until one side is out of the fight (or, in the social scene, the debate is over, R26).
Nothing ends the scene by itself then (ruling R104): the GM ends it from the console.

An "Action Time" example offers no battle map on the create page, and its pages show no map
controls and never say "fatigue" (Health, R29). Screenshots go to test-artifacts/web-examples/.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest
import yaml

from server.app import Server
from server.web import example_names, example_social, example_text
from tests.conftest import ROOT
from tests.test_web import CHROMIUM, LINKS, Pages

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

#: The attacks a turn takes, the first offered ("Action Time": Melee Attack; "MLP Dramatic
#: Systems": an attack with the weapon first on the sheet).
ATTACKS = ("melee_attack", "attack")
#: The most turns an example may take to reach its end (each ends well before).
MOST_TURNS = 150


@pytest.fixture(scope="module")
def artifacts() -> Path:
    folder = ROOT / "test-artifacts" / "web-examples"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


# What the test reads of the GM console's table (state only from the server's view).
STATE = """() => { const t = window.stablemaster.table; return {
  current: t.current, round: t.round, ended: t.ended, started: t.started,
  debate_over: t.debateOver, out_of_fight: t.state ? (t.state.out_of_fight || []) : [],
  map: t.map, positions: Object.fromEntries(t.positions), sending: t.sending,
  combatants: [...t.combatants.values()].map((c) => ({id: c.id, side: c.side, kind: c.kind,
    hidden: !!c.hidden, condition: (c.vitals || {}).condition || []})) }; }"""
LEGAL = "() => window.stablemaster.table.legal"


def out_of_fight(c: dict[str, Any], states: list[str]) -> bool:
    """Out of the fight as the snapshot says: not conscious, or a conscious state the ruleset
    counts out (R29's 0 Health in Action Time)."""
    condition = c["condition"]
    return bool(condition) and (condition[0] != "active"
                                or any(x in states for x in condition[1:]))


def beaten_side(state: dict[str, Any]) -> str | None:
    sides: dict[str, list[bool]] = {}
    for c in state["combatants"]:
        sides.setdefault(c["side"], []).append(out_of_fight(c, state["out_of_fight"]))
    return next((side for side, out in sides.items() if all(out)), None)


async def idle(page: Any) -> None:
    """The page sent nothing that is not answered yet."""
    await page.wait_for_function("window.stablemaster.table.sending === 0", timeout=10_000)


async def no_error(page: Any) -> None:
    errors = [e for e in await page.eval_on_selector_all(
        ".actions-panel .error", "els => els.map(e => e.textContent)") if e]
    assert not errors, errors


async def fill_tool(page: Any, command: str, fields: dict[str, Any]) -> None:
    """The GM's Rulings form of ``command``, filled with ``fields`` and sent."""
    form = page.locator(f'form.tool[data-command="{command}"]')
    for name, value in fields.items():
        field = form.locator(f'[name="{name}"]')
        if await field.evaluate("el => el.tagName") == "SELECT":
            values = [str(v).lower() if isinstance(v, bool) else str(v)
                      for v in (value if isinstance(value, list) else [value])]
            await field.select_option(values)
        else:
            await field.fill(str(value))
    await form.locator("button[type=submit]").click()
    await form.locator("p.done >> text=done").wait_for(timeout=10_000)


def wall_between(walls: list[Any], a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether a thin wall along a grid line separates two squares side by side."""
    (x1, y1), (x2, y2) = a, b
    for (p, q) in walls:
        (px, py), (qx, qy) = p, q
        if px == qx and y1 == y2 and abs(x1 - x2) == 1 and px == max(x1, x2) \
                and min(py, qy) <= y1 < max(py, qy):
            return True
        if py == qy and x1 == x2 and abs(y1 - y2) == 1 and py == max(y1, y2) \
                and min(px, qx) <= x1 < max(px, qx):
            return True
    return False


def path_toward(state: dict[str, Any], mover: str, foes: list[str],
                steps: int) -> list[tuple[int, int]]:
    """Squares side by side (no diagonals) from ``mover``'s toward a square beside one of
    ``foes``, through open floor only (no blocked, difficult, low or pit square, no wall, nobody
    else's square), at most ``steps`` of them; empty when it stands beside one already."""
    m = state["map"]
    closed = {tuple(sq) for key in ("blocked", "difficult", "low", "pits")
              for sq in m.get(key) or []}
    taken = {tuple(p) for cid, p in state["positions"].items() if cid != mover}
    start = tuple(state["positions"][mover])
    goals = {(x + dx, y + dy) for x, y in (tuple(state["positions"][f]) for f in foes)
             for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    before: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        sq = queue.popleft()
        if sq in goals:
            path = []
            while before[sq] is not None:
                path.append(sq)
                sq = before[sq]  # type: ignore[assignment]
            return path[::-1][:steps]
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nxt = (sq[0] + dx, sq[1] + dy)
            if not (0 <= nxt[0] < m["width"] and 0 <= nxt[1] < m["height"]) or nxt in before \
                    or nxt in closed or nxt in taken or wall_between(m.get("walls") or [], sq, nxt):
                continue
            before[nxt] = sq
            queue.append(nxt)
    return []


def beside(state: dict[str, Any], a: str, b: str) -> bool:
    (ax, ay), (bx, by) = state["positions"][a], state["positions"][b]
    return max(abs(ax - bx), abs(ay - by)) == 1


class Play:
    """One shipped example at the web table: its GM console and its players' pages."""

    def __init__(self, gm: Any, players: dict[str, Any], data: dict[str, Any]) -> None:
        self.gm, self.players = gm, players
        self.turns = 0
        sheets = {c["id"]: c.get("stats") or {} for c in data["combatants"]}
        #: the speed in squares on a map ("MLP Dramatic Systems", SPEED: 6 by default)
        self.speed = {cid: int(stats.get("speed", 6)) for cid, stats in sheets.items()}
        #: those whose first weapon is a ranged one: they attack from where they stand
        self.ranged = {cid for cid, stats in sheets.items()
                       if (stats.get("weapons") or [{}])[0].get("kind") == "ranged"}

    def page_of(self, cid: str) -> Any:
        return self.players.get(cid, self.gm)

    async def state(self) -> dict[str, Any]:
        state: dict[str, Any] = await self.gm.evaluate(STATE)
        return state

    async def answer_dice(self) -> bool:
        """A die some page is asked for: the server rolls it ("Let the server roll")."""
        for page in (self.gm, *self.players.values()):
            button = page.locator('button[data-action="server_roll"]')
            if await button.count():
                await button.first.click()
                await idle(page)
                return True
        return False

    async def answer_statements(self) -> bool:
        """A statement that hit a combatant: its page refuses it (R48)."""
        for page in (*self.players.values(), self.gm):
            refuse = page.locator("button.answer-refuse")
            if await refuse.count():
                await refuse.first.click()
                await idle(page)
                await no_error(page)
                return True
        return False

    async def turn(self, state: dict[str, Any], social: bool) -> None:
        """The current combatant's turn, from its page: a move toward an enemy when the map
        puts none in reach, an attack (or a Dispute) on an enemy still in the fight, its end."""
        cid = state["current"]
        page = self.page_of(cid)
        end = page.locator(f'button[data-action="end_turn"][data-combatant="{cid}"]')
        await end.wait_for(timeout=10_000)
        me = next(c for c in state["combatants"] if c["id"] == cid)
        standing = {c["id"] for c in state["combatants"]
                    if c["side"] != me["side"] and not out_of_fight(c, state["out_of_fight"])}
        legal = [a for a in await page.evaluate(LEGAL) if a.get("combatant") == cid]
        names = [a["action"] for a in legal]
        kinds = ("dispute",) if social else ATTACKS
        attack = next((a for k in kinds for a in legal if a["action"] == k), None)
        if not out_of_fight(me, state["out_of_fight"]) and attack is not None:
            foes = [t for t in attack.get("targets") or [] if t in standing]
            form = page.locator(f'form[data-action="{attack["action"]}"][data-combatant="{cid}"]')
            on_map = bool(state["map"]) and cid in state["positions"] and not social
            if on_map:
                foes = [f for f in foes if f in state["positions"]]
            # from where it stands: a ranged attack on the first foe in its line of effect,
            # or a melee attack on one beside it
            aimed = foes if not on_map or cid in self.ranged \
                else [f for f in foes if beside(state, cid, f)]
            done = await self.attack(page, form, aimed, strict=not on_map)
            if not done and on_map and "move" in names:
                # nobody in reach: it moves toward a foe and attacks one beside it (R64)
                await self.move(page, state, cid, foes)
                state = await self.state()
                await self.attack(page, form, [f for f in foes if beside(state, cid, f)],
                                  strict=True)
        await self.settle()
        if (await self.state())["current"] == cid and await end.count():
            await end.click()
            await idle(page)
        self.turns += 1

    async def attack(self, page: Any, form: Any, foes: list[str], strict: bool) -> bool:
        """The attack form sent at the first of ``foes`` the server lets it reach; refused
        (cover, reach) only on a map, unless ``strict``."""
        if not await form.count():
            return False
        for foe in foes:
            await form.locator("select.target").select_option(foe)
            await form.locator("button[type=submit]").click()
            await idle(page)
            errors = [e for e in await page.eval_on_selector_all(
                ".actions-panel .error", "els => els.map(e => e.textContent)") if e]
            if not errors:
                return True
            assert not strict and all("cover" in e or "reach" in e for e in errors), errors
        return False

    async def move(self, page: Any, state: dict[str, Any], cid: str, foes: list[str]) -> None:
        path = path_toward(state, cid, foes, self.speed[cid])
        if not path:
            return
        for x, y in path:
            await page.click(f'.map .sq[data-x="{x}"][data-y="{y}"]')
        await page.click(f'form[data-action="move"][data-combatant="{cid}"] button[type=submit]')
        await idle(page)
        await no_error(page)
        await self.gm.wait_for_function(
            f"JSON.stringify(window.stablemaster.table.positions.get({cid!r})) === "
            f"{json.dumps(json.dumps(list(path[-1])).replace(' ', ''))}", timeout=10_000)

    async def settle(self) -> None:
        """Dice asked for and statements waiting for an answer, until none is left."""
        for _ in range(20):
            if not (await self.answer_dice() or await self.answer_statements()):
                return


async def create_from_the_page(pages: Pages, base: str, file: str, seed: int) -> Any:
    """The GM picks the example on the create page, with a dice seed, and creates it."""
    gm = await pages.open(f"{base}/table/")
    await gm.click(f'.examples input[value="{file}"]')
    await gm.wait_for_function(
        "document.querySelector('textarea[name=statblocks]').value.includes('combatants')")
    options = await gm.input_value("textarea[name=options]")
    merged = {**(json.loads(options) if options.strip() else {}), "dice_seed": seed}
    await gm.fill("textarea[name=options]", json.dumps(merged))
    return gm


@pytest.mark.timeout(360)  # the longest takes 55 turns: 46 s on a quiet machine, 2.6x on CI's
@pytest.mark.parametrize("file", example_names())
async def test_a_shipped_example_plays_to_its_end_at_the_web_table(
        server: Server, pages: Pages, artifacts: Path, file: str) -> None:
    started = time.monotonic()
    base = f"http://127.0.0.1:{server.settings.port}"
    data = yaml.safe_load(example_text(file))
    action_time = data["ruleset"] == "action_time"
    social = bool(data.get("social"))
    gm = await create_from_the_page(pages, base, file, seed=7)
    map_field = gm.locator("textarea[name=map]")
    # the create page offers a map only where the ruleset keeps one (R103)
    assert await map_field.is_visible() is (not action_time)
    if data.get("map"):
        assert json.loads(await map_field.input_value())["width"] > 0
    await gm.screenshot(path=artifacts / f"{file}-create.png", full_page=True)
    await gm.click("button.primary")
    await gm.wait_for_selector('#status[data-state="live"]', timeout=10_000)
    await gm.wait_for_selector(".roster-panel tr[data-combatant]")
    # no map controls in Action Time (the console's map panel); the GM may set one elsewhere
    assert await gm.locator(".map-panel").is_visible() is (not action_time)

    # who hides among the crowd is revealed, and each pony gets its player's page
    for c in data["combatants"]:
        if c.get("hidden"):
            await gm.click(f'button.reveal[data-combatant="{c["id"]}"]')
            await gm.wait_for_selector(f'button.hide[data-combatant="{c["id"]}"]')
    pcs = [c["id"] for c in data["combatants"] if c.get("kind") == "pc"]
    for cid in pcs:
        await gm.click(f'button.invite[data-combatant="{cid}"]')
    await gm.wait_for_function(
        f"document.querySelectorAll('.links-panel input.link').length === {len(pcs)}")
    await gm.click("button.spectator-link")
    await gm.wait_for_function("document.querySelectorAll('.links-panel input.overlay')"
                               ".length === 1")
    links = await gm.eval_on_selector_all(".links-panel ul.links li", LINKS)
    names = {c["id"]: c["name"] for c in data["combatants"]}
    players = {cid: await pages.open(links[names[cid]]) for cid in pcs}
    watch = await pages.open(links["Spectators"])
    for page in players.values():
        await page.wait_for_selector('#status[data-state="live"]', timeout=10_000)
        assert await page.locator(".map-panel").is_visible() is bool(data.get("map"))

    if social:  # the GM's set-up of the scene, from the Rulings panel's forms
        setup, statements = example_social(data)
        for command, fields in setup:
            await fill_tool(gm, command, {k: v for k, v in fields.items() if v is not None})
        for cid, (size, text) in statements.items():
            await fill_tool(gm, "size_argument", {"combatant": cid, "size": size, "text": text})

    play = Play(gm, players, data)
    await gm.click('button[data-action="start_encounter"]')
    await gm.wait_for_function("window.stablemaster.table.current !== null", timeout=10_000)
    await gm.screenshot(path=artifacts / f"{file}-started.png", full_page=True)
    while True:
        await play.settle()
        state = await play.state()
        if (social and state["debate_over"]) or (not social and beaten_side(state)):
            break
        assert play.turns < MOST_TURNS, f"{file}: no end after {play.turns} turns"
        if action_time:
            await no_fatigue_words(gm, *players.values(), watch)
        await play.turn(state, social)
        await gm.wait_for_function("window.stablemaster.table.sending === 0")

    # one side is out of the fight (or the debate is over, R26): the GM ends the scene (R104)
    state = await play.state()
    beaten = beaten_side(state)
    assert social or beaten is not None
    assert not state["ended"]  # the rules end nothing by themselves (R104)
    reason = "the debate is over" if social else f"the {beaten} side is out of the fight"
    await gm.fill("input.reason", reason)
    gm.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))  # (asked again)
    await gm.click('button[data-action="end_encounter"]')
    for page in (gm, *players.values(), watch):
        await page.wait_for_selector(f".log >> text=The scene ends: {reason}", timeout=10_000)
    for page in players.values():
        await page.wait_for_selector(".banner >> text=The scene is over.")
    if action_time:
        await no_fatigue_words(gm, *players.values(), watch)
        for page in (gm, *players.values()):
            assert "Health" in await page.inner_text("body")
    for n, page in enumerate((gm, *players.values(), watch)):
        await page.screenshot(path=artifacts / f"{file}-ended-{n}.png", full_page=True)
    (artifacts / f"{file}-took.json").write_text(json.dumps(
        {"seconds": round(time.monotonic() - started, 1), "turns": play.turns,
         "round": state["round"], "beaten": beaten}))


async def no_fatigue_words(*pages: Any) -> None:
    """An "Action Time" page says Health, never fatigue (R29; its words)."""
    for page in pages:
        text = (await page.inner_text("body")).lower()
        assert "fatigue" not in text, [line for line in text.splitlines() if "fatigue" in line]


async def test_an_action_time_file_with_a_map_is_created_without_it(
        server: Server, pages: Pages, tmp_path: Path) -> None:
    """An encounter file of Action Time with a battle map: the form says it leaves the map out
    (R103) and creates the encounter without it; switching the ruleset to "MLP Dramatic
    Systems" offers the map field again."""
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/")
    await gm.wait_for_selector(".examples input[type=radio]")
    text = example_text("action-time-changeling-scouts.yaml").replace(
        "combatants:\n", "map:\n  drawing: |\n    ....\n    .#..\ncombatants:\n", 1)
    upload = tmp_path / "market.yaml"
    upload.write_text(text)
    await gm.set_input_files("input[type=file]", str(upload))
    notes = gm.locator("p.file-notes")
    await notes.locator("text=Not used").wait_for()
    assert "map" in (await notes.get_attribute("data-ignored") or "").split(",")
    assert "Action Time has no battle map, ruling R103" in await notes.inner_text()
    assert not await gm.locator("textarea[name=map]").is_visible()
    await gm.select_option("select[name=ruleset]", "dramatic")
    assert await gm.locator("textarea[name=map]").is_visible()
    await gm.select_option("select[name=ruleset]", "action_time")
    await gm.click("button.primary")
    await gm.wait_for_selector('#status[data-state="live"]', timeout=10_000)
    await gm.wait_for_selector(".roster-panel tr[data-combatant=starlight]")
    assert await gm.evaluate("window.stablemaster.table.map") is None
    assert not await gm.locator(".map-panel").is_visible()
