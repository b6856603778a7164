"""The web table's battle map in a real browser against a real server and Redis: the mover's
token dragged onto a shaded square moves along the server's path (and dropped elsewhere sends
nothing); the token labels and the legend are the same on the GM's map and the player's, and a
reveal changes none of them; on random maps with walls, blocked squares, difficult terrain and
other combatants, the player's page shades a square exactly when a move there is accepted;
and the player's turn panel is on the first screen of a laptop and of a phone."""

from __future__ import annotations

import itertools
import os
import random
import time
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

from clients.client import Client
from encounter import engine
from encounter.actors import Actor
from encounter.decision import Context
from encounter.state import EncounterState
from protocol import messages as msg
from rules.battle_map import BattleMap, Placement
from server.app import Server
from tests.browser import CHROMIUM, Pages
from tests.conftest import ROOT, ws_url
from tests.helpers import caught_up, create_table, set_out, until_turn_of
from tests.test_reach import accepted_ends
from tests.test_web import PHONE, live

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

LAPTOP = (1366, 768)


@pytest.fixture(scope="module")
def artifacts() -> Path:
    """Where the screenshots go: test-artifacts/web-map/."""
    out = ROOT / "test-artifacts" / "web-map"
    out.mkdir(parents=True, exist_ok=True)
    return out

#: The page's own module: what it holds of the server's ``get_reach`` answer, and its picks.
RENDER = "await import('/table/render.js')"

SHADED = """els => els.map(e => [Number(e.dataset.x), Number(e.dataset.y)])"""


def moved_events(client: Client) -> list[dict[str, Any]]:
    return [m["event"] for m in client.events() if m["event"]["kind"] == "combatant_moved"]


async def centre(page: Any, selector: str) -> tuple[float, float]:
    box = await page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def drag(page: Any, source: str, target: str) -> None:
    """Press the mouse on ``source``, move it onto ``target`` in steps, release it there."""
    await page.mouse.move(*await centre(page, source))
    await page.mouse.down()
    x, y = await centre(page, target)
    await page.mouse.move(x, y, steps=8)
    await page.mouse.up()


def square(x: int, y: int) -> str:
    return f'.map .sq[data-x="{x}"][data-y="{y}"]'


async def test_a_token_dragged_to_a_shaded_square_moves_there_and_elsewhere_sends_nothing(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """The player drags her token with the mouse: over a shaded square the map shows the
    server's path and what it costs; dropped on a square the move cannot end on (beyond a wall,
    on a blocked square) nothing is sent; dropped on a shaded one, she moves there along the
    server's path."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await set_out(gm, {"width": 8, "height": 4, "blocked": [[2, 2]], "difficult": [[1, 0]],
                       "walls": [[[4, 0], [4, 4]]]},
                  {"twilight": [0, 0], "dash": [0, 3], "applejack": [1, 3], "fluttershy": [2, 3],
                   "dog": [7, 3]})
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=LAPTOP)
    await live(player)
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    await player.wait_for_selector(f"{square(0, 0)}.movable")
    reach = await player.evaluate(f"async () => ({RENDER}).reach.squares.get('3,1')")
    assert reach is not None
    # over a shaded square: the server's path, and what it costs
    await player.mouse.move(*await centre(player, square(0, 0)))
    await player.mouse.down()
    await player.mouse.move(*await centre(player, square(3, 1)), steps=6)
    hint = await player.inner_text(".drag-hint")
    assert f"{reach['cost']} of 6 squares" in hint, hint
    steps = await player.eval_on_selector_all(".map .sq.path", SHADED)
    assert sorted(map(tuple, steps)) == sorted(map(tuple, reach["path"]))
    await player.screenshot(path=artifacts / "player-drag.png")
    # over a square it cannot end on, then dropped there: nothing
    await player.mouse.move(*await centre(player, square(6, 1)), steps=6)
    assert "cannot end here" in await player.inner_text(".drag-hint")
    await player.mouse.up()
    await drag(player, square(0, 0), square(2, 2))  # (blocked)
    await caught_up(gm)
    assert moved_events(gm) == []
    assert await player.evaluate("JSON.stringify(window.stablemaster.table.positions"
                                 ".get('twilight'))") == "[0,0]"
    # dropped on a shaded square: the move along the server's path
    await drag(player, square(0, 0), square(3, 1))
    await player.wait_for_function(
        "JSON.stringify(window.stablemaster.table.positions.get('twilight')) === '[3,1]'")
    await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "combatant_moved")
    (moved,) = moved_events(gm)
    assert moved["path"] == reach["path"], moved
    assert await player.locator(".actions-panel .error:not(:empty)").count() == 0


BOSSES = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 30},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 20},
    # the same initials: the server's id for the one, a stat block's for the other (hidden)
    {"name": "Diamond Dog Brute", "kind": "npc", "initiative": 1},
    {"name": "Diamond Dog Boss", "id": "boss", "kind": "npc", "initiative": 0, "hidden": True},
    {"name": "Diamond Dog", "kind": "npc", "initiative": 0},
    # hidden, with the server's id: the slug and four random characters (R116)
    {"name": "Diamond Dog", "kind": "npc", "initiative": 0, "hidden": True},
    {"name": "Diamond Dog", "kind": "npc", "initiative": 0},
]

LABELS = """els => Object.fromEntries(els.map(e => [e.dataset.combatant, e.textContent]))"""
LEGEND = """els => Object.fromEntries(els.map(e => [e.dataset.combatant,
    e.querySelector('.token').textContent + ' ' + e.querySelector('.name').textContent]))"""


async def test_token_labels_are_the_same_for_the_gm_and_the_player_and_across_a_reveal(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """The GM's map and the player's label each token alike, and list it alike in the legend
    under the map; the hidden boss has a dashed ring on the GM's map and in its legend only,
    and nothing on the player's says there is someone more; revealed, the boss appears on the
    player's map with the label the GM saw, and no other label changes."""
    url = ws_url(server)
    table = await create_table(url, clients, BOSSES)
    gm_api = table.gm
    await gm_api.command("get_snapshot")
    assert gm_api.state is not None
    (lurker,) = [c["id"] for c in gm_api.state["combatants"] if c["hidden"] and c["id"] != "boss"]
    await set_out(gm_api, {"width": 6, "height": 3},
                  {"twilight": [0, 0], "dash": [0, 1], "diamond-dog-brute": [4, 0],
                   "boss": [5, 1], "diamond-dog": [4, 2], "diamond-dog-2": [5, 2],
                   lurker: [3, 1]})
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=LAPTOP)
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=LAPTOP)
    for page in (gm, player):
        await live(page)
    await gm.wait_for_selector(".map .token[data-combatant=boss]")
    await player.wait_for_selector(".map .token[data-combatant=diamond-dog-2]")
    on_gm = await gm.eval_on_selector_all(".map .token", LABELS)
    on_player = await player.eval_on_selector_all(".map .token", LABELS)
    assert on_gm == {"twilight": "TS", "dash": "RDa", "diamond-dog-brute": "DB", "boss": "DBo",
                     "diamond-dog": "DD", "diamond-dog-2": "DD2",
                     lurker: "DD" + lurker.removeprefix("diamond-dog-")[0]}, on_gm
    assert on_player == {k: v for k, v in on_gm.items() if k not in ("boss", lurker)}, on_player
    assert len(set(on_gm.values())) == len(on_gm)  # told apart
    # the legend under each map says whose token is whose, with the same labels
    gm_legend = await gm.eval_on_selector_all(".map-panel ul.legend li", LEGEND)
    player_legend = await player.eval_on_selector_all(".map-panel ul.legend li", LEGEND)
    assert gm_legend["boss"] == "DBo Diamond Dog Boss"
    assert player_legend == {k: v for k, v in gm_legend.items() if k not in ("boss", lurker)}
    # the GM's map and legend mark the tokens the table does not see; the player's, nothing
    assert await gm.locator(".map .token.hidden").count() == 2
    assert await gm.locator(".map .token.hidden[data-combatant=boss]").count() == 1
    assert await gm.locator(".map-panel ul.legend li[data-combatant=boss] .token.hidden"
                            ).count() == 1
    assert await player.locator(".map .token.hidden, ul.legend .token.hidden").count() == 0
    assert "Boss" not in await player.inner_text("main")
    await gm.screenshot(path=artifacts / "gm-legend.png")
    await player.screenshot(path=artifacts / "player-legend.png")
    # revealed: the boss appears with the GM's label; nothing else changes
    await gm_api.command("set_hidden", combatant="boss", hidden=False)
    await player.wait_for_selector(".map .token[data-combatant=boss]")
    await gm.wait_for_selector(".map .token[data-combatant=boss]:not(.hidden)")
    assert await player.eval_on_selector_all(".map .token", LABELS) == \
        {k: v for k, v in on_gm.items() if k != lurker}
    assert await gm.eval_on_selector_all(".map .token", LABELS) == on_gm
    assert await gm.eval_on_selector_all(".map-panel ul.legend li", LEGEND) == gm_legend
    assert await player.eval_on_selector_all(".map-panel ul.legend li", LEGEND) == \
        {k: v for k, v in gm_legend.items() if k != lurker}


# -- random maps: a square is shaded exactly when a move there is accepted --------------------

SPEED = 3  # a budget of 3 squares: every path within it is tried below


def random_scene(seed: int) -> tuple[dict[str, Any], dict[str, list[int]]]:
    """A small random map (walls, blocked squares, difficult terrain, low objects) and where
    Twilight and a few others (allies and foes) stand."""
    rnd = random.Random(seed)
    width, height = rnd.randint(5, 7), rnd.randint(4, 5)
    squares = [(x, y) for x in range(width) for y in range(height)]
    rnd.shuffle(squares)
    start, rest = squares[0], squares[1:]
    layers: dict[str, list[list[int]]] = {"blocked": [], "difficult": [], "low": []}
    for s in rest[: rnd.randint(len(rest) // 5, len(rest) // 2)]:
        layers[rnd.choice(list(layers))].append(list(s))
    walls = []
    for _ in range(rnd.randint(1, 3)):
        if rnd.random() < 0.5:  # a vertical wall on the line x, one to two squares long
            x, y = rnd.randint(1, width - 1), rnd.randint(0, height - 2)
            walls.append([[x, y], [x, y + rnd.randint(1, 2)]])
        else:
            x, y = rnd.randint(0, width - 2), rnd.randint(1, height - 1)
            walls.append([[x, y], [x + rnd.randint(1, 2), y]])
    walls = [w for w in walls if w[1][0] <= width and w[1][1] <= height]
    blocked = {tuple(s) for s in layers["blocked"]}
    free = [s for s in rest if s not in blocked]
    at = {"twilight": list(start)}
    for cid in rnd.sample(["dash", "applejack", "dog", "dog2"], rnd.randint(2, 4)):
        if free:
            at[cid] = list(free.pop())
    return {"width": width, "height": height, "walls": walls, **layers}, at


SKIRMISH = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 30,
     "stats": {"speed": SPEED}},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 1},
    {"name": "Applejack", "id": "applejack", "kind": "pc", "initiative": 1},
    {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": 0},
    {"name": "Diamond Dog", "id": "dog2", "kind": "npc", "initiative": 0},
]

_decode = msgspec.json.Decoder(msg.AnyClientMessage)


def mover_checker(state: EncounterState, actor: Actor) -> Any:
    """``check(path)`` for ``accepted_ends``: the move along ``path`` decided by the encounter's
    own decider on ``state`` (the server's, unchanged: the decider works on a copy), as the
    player's credential sends it; raises ``ValueError`` when it is refused."""
    ids = (f"x{n}" for n in itertools.count())

    class Plan:
        def __init__(self, end: tuple[int, int]) -> None:
            self.end, self.total = end, 0

    def check(path: list[tuple[int, int]]) -> Plan:
        cmd = _decode.decode(orjson.dumps({
            "type": "act", "id": next(ids), "combatant": "twilight", "action": "move",
            "args": {"path": [list(s) for s in path]}}))
        ctx = Context(now_ms=int(time.time() * 1000), new_id=lambda: next(ids))
        try:
            out = engine.decide(state, actor, cmd, ctx)  # type: ignore[arg-type]
        except engine.Rejected as refused:
            raise ValueError(refused.message) from None
        x, y = out.state.positions["twilight"]
        return Plan((x, y))

    return check


async def test_on_random_maps_a_square_is_shaded_exactly_when_the_move_there_is_accepted(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """On six seeded random maps the player's page shades (read from its DOM) exactly the
    squares some path within the budget reaches with a move the encounter's decider accepts
    (every path, square by square: ``tests.test_reach.accepted_ends``), on the state the
    server holds; and for each shaded square the path the page picks for it is accepted and
    ends there."""
    url = ws_url(server)
    base = f"http://127.0.0.1:{server.settings.port}"
    player = None
    for seed in range(6):
        battle_map, at = random_scene(seed)
        table = await create_table(url, clients, SKIRMISH)
        await set_out(table.gm, battle_map, at)
        await table.gm.command("start_encounter")
        await until_turn_of(table.gm, "twilight")
        link = f"{base}/table/#token={table.tokens['twilight']}"
        if player is not None:
            await player.context.close()
        player = await pages.open(link, size=LAPTOP)
        await live(player)
        # the server's reach came, and the page has drawn it: the shaded squares are its squares
        await player.wait_for_function(f"""async () => {{
            const m = {RENDER};
            if (m.reach.combatant !== 'twilight') return false;
            const keys = new Set(m.reach.squares.keys());
            const shaded = [...document.querySelectorAll('.map .sq.reach')];
            return !!document.querySelector('.map .sq') && shaded.length === keys.size
                && shaded.every((e) => keys.has(`${{e.dataset.x}},${{e.dataset.y}}`));
        }}""")
        shaded = {tuple(s) for s in await player.eval_on_selector_all(".map .sq.reach", SHADED)}
        # the page's path for each shaded square: what a click (or Enter) on it picks
        picked = await player.evaluate(f"""async (squares) => {{
            const m = {RENDER};
            const table = window.stablemaster.table;
            return squares.map(([x, y]) => {{
                m.setPath('twilight', []);
                m.pickSquare(table, x, y);
                return [[x, y], m.picking.path];
            }});
        }}""", sorted(shaded))
        room = server.rooms.peek(table.encounter)
        assert room is not None
        state = room.state
        grant = next(t for t, g in state.tokens.items()
                     if g.role == "player" and "twilight" in g.combatants)
        actor = Actor(role="player", token_id=grant, combatants=frozenset({"twilight"}))
        check = mover_checker(state, actor)
        mover = Placement(x=at["twilight"][0], y=at["twilight"][1])
        accepted = accepted_ends(BattleMap(width=1, height=1), mover, SPEED, check)
        assert shaded == set(accepted), (seed, battle_map, at, sorted(shaded), sorted(accepted))
        for end, path in picked:
            assert check([tuple(s) for s in path]).end == tuple(end), (seed, end, path)
        await player.screenshot(path=artifacts / f"player-random-map-{seed}.png")


# -- the player's turn panel on the first screen ---------------------------------------------

async def test_the_players_whole_turn_panel_is_on_the_first_screen_of_a_laptop_and_a_phone(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """On her turn, at 1366 x 768 the player's page shows without scrolling whose turn it is,
    what is left of its budget, the first actions and "More…"; at 390 x 844, where the map comes
    first (tests/test_web_play.py), whose turn it is, the budget and the first actions' start;
    in a fight the social maneuvers are under "More…", not among the first actions."""
    url = ws_url(server)
    table = await create_table(url, clients)
    await set_out(table.gm, {"width": 12, "height": 8, "blocked": [[3, 3]]},
                  {"twilight": [1, 1], "dash": [1, 2], "dog": [8, 5]})
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "twilight")
    base = f"http://127.0.0.1:{server.settings.port}"
    for size in (LAPTOP, PHONE):
        player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=size)
        await live(player)
        turn = ".actions-panel fieldset.turn[data-combatant=twilight]"
        await player.wait_for_selector(f"{turn} details.more")
        await player.wait_for_selector(".banner >> text=Your turn")
        for part in (".banner", f"{turn} > legend", f"{turn} .budget", f"{turn} .buttons.first",
                     f"{turn} details.more > summary"):
            box = await player.locator(part).bounding_box()
            assert box is not None, part
            if size == PHONE and part.endswith("summary"):
                continue  # (on a phone, "More…" scrolls, under the first actions)
            # on a phone, the first actions' first row
            phone_first = size == PHONE and part.endswith(".buttons.first")
            height = min(box["height"], 40) if phone_first else box["height"]
            assert box["y"] >= 0 and box["y"] + height <= size[1], (size, part, box)
        await player.screenshot(path=artifacts / f"player-turn-{size[0]}x{size[1]}.png")
        # in a fight: the social maneuvers folded under "More…"
        first = await player.eval_on_selector_all(f"{turn} .buttons.first [data-action]",
                                                  "els => els.map(e => e.dataset.action)")
        more = await player.eval_on_selector_all(f"{turn} details.more [data-action]",
                                                 "els => els.map(e => e.dataset.action)")
        assert "attack" in first and "move" in first and "end_turn" in first, first
        social = {"dispute", "conversation", "lie"}
        assert not social & set(first), first
        assert social & set(more), more
