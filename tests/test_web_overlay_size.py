"""The spectator overlay sized for a stream's canvas (``&size=1080p``, ``&size=4k``) fits it:
nothing reaches past the viewport, and the log takes the height left, its newest line shown
whole at the bottom (a real server and Redis, Debian's Chromium driven by Playwright)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from clients.client import Client
from server.app import Server
from tests.browser import CHROMIUM, Pages
from tests.conftest import ws_url
from tests.helpers import create_table, play_turns, set_out

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

#: How the overlay stands in its viewport: how far the page reaches, and the log's lines.
MEASURE = """() => {
  const log = document.getElementById("log").getBoundingClientRect();
  const lines = [...document.querySelectorAll("#log .line")];
  const last = lines.length ? lines[lines.length - 1].getBoundingClientRect() : null;
  return { width: innerWidth, height: innerHeight,
           scrollWidth: document.documentElement.scrollWidth,
           scrollHeight: document.documentElement.scrollHeight,
           bodyBottom: document.body.getBoundingClientRect().bottom,
           overlayBottom: document.getElementById("overlay").getBoundingClientRect().bottom,
           log: { top: log.top, bottom: log.bottom },
           last: last && { top: last.top, bottom: last.bottom },
           newest: lines.length ? Number(lines[lines.length - 1].dataset.n) : null,
           count: lines.length,
           newestKept: Math.max(...window.stablemaster.table.log.map((l) => l.n)) };
}"""


@pytest.mark.parametrize(("size", "viewport"), [("1080p", (1920, 1080)), ("4k", (3840, 2160))])
async def test_the_sized_overlay_fits_its_canvas_and_shows_the_newest_log_line_whole(
        server: Server, pages: Pages, clients: list[Client], size: str,
        viewport: tuple[int, int]) -> None:
    table = await create_table(ws_url(server), clients)
    gm = table.gm
    # a tall map and a long log: together more than the canvas holds
    await set_out(gm, {"width": 12, "height": 10, "blocked": [[4, 1], [4, 2]]},
                  {"twilight": [1, 1], "dash": [1, 3], "applejack": [1, 5], "fluttershy": [0, 7],
                   "dog": [10, 4]})
    await gm.command("start_encounter")
    await play_turns(gm, {}, 8)
    base = f"http://127.0.0.1:{server.settings.port}"
    watch = await pages.open(f"{base}/watch?spectate={table.spectator_token}&size={size}"
                             "&lines=20", size=viewport)
    await watch.wait_for_selector("#legend li")
    await watch.wait_for_function("document.querySelectorAll('#log .line').length > 1")
    await play_turns(gm, {}, 1)  # a line while watching, too
    await watch.wait_for_function(
        "Number([...document.querySelectorAll('#log .line')].pop().dataset.n) === "
        "Math.max(...window.stablemaster.table.log.map((l) => l.n))")
    m: dict[str, Any] = await watch.evaluate(MEASURE)
    assert m["scrollHeight"] <= m["height"] and m["scrollWidth"] <= m["width"], m
    assert m["overlayBottom"] <= m["height"] + 0.5, m
    assert m["newest"] == m["newestKept"], m
    last, log = m["last"], m["log"]
    assert log["top"] <= last["top"] and last["bottom"] <= log["bottom"] + 0.5, m
    assert last["bottom"] <= m["height"], m
    assert 1 < m["count"] < 20, m  # the log kept what fits, not all 20 lines
    # the map is drawn whole above it (once it stands: the last turn may draw it again)
    await watch.wait_for_function(
        "(() => { const g = document.querySelector('#map .map');"
        " return g !== null && g.getBoundingClientRect().height > 0; })()")
    board = await watch.locator("#board").bounding_box()
    grid = await watch.locator("#map .map").bounding_box()
    assert board is not None and grid is not None
    assert grid["y"] + grid["height"] <= board["y"] + board["height"] + 1, (grid, board)
