"""The create page's options as controls, in a real browser (Debian's Chromium driven by
Playwright) against a real server and Redis: the turn timer, who rolls and anonymous hidden
turns set with the controls reach the encounter the server creates, merged over the options'
JSON; axe-core finds nothing serious or critical on the page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.app import Server
from tests.browser import CHROMIUM, Pages
from tests.conftest import ROOT
from tests.test_web import live
from tests.test_web_a11y import Audit, axe_source  # noqa: F401  (axe_source: a fixture)

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

YAML = """\
combatants:
  - {name: Twilight Sparkle, id: twilight, kind: pc, initiative: 3}
  - {name: Diamond Dog, id: dog, kind: npc, initiative: 1}
"""


@pytest.fixture(scope="module")
def artifacts() -> Path:
    out = ROOT / "test-artifacts" / "web-setup"
    out.mkdir(parents=True, exist_ok=True)
    return out


async def test_the_options_set_with_controls_reach_the_encounter(
        server: Server, pages: Pages, artifacts: Path, axe_source: str) -> None:  # noqa: F811
    audit = Audit(axe_source, artifacts, "setup")
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/", size=(1366, 768))
    await gm.wait_for_selector(".examples input[type=radio]")
    await gm.fill("input[name=name]", "Timed ambush")
    await gm.fill("textarea[name=statblocks]", YAML)
    await gm.fill("fieldset.options-controls input[name=turn_seconds]", "90")
    await gm.select_option("fieldset.options-controls select[name=turn_expiry]", "end_turn")
    await gm.check("fieldset.options-controls input[name=anonymous_hidden_turns]")
    await gm.check("fieldset.options-controls input[name=players_roll]")
    # the JSON box for the others, the controls winning over it
    await gm.fill("textarea[name=options]", '{"turn_seconds": 300, "npc_rolls_public": true}')
    await gm.screenshot(path=artifacts / "create-options.png", full_page=True)
    await audit(gm, "create page, options set")
    await gm.click("button.primary")
    await live(gm)
    await gm.wait_for_function("window.stablemaster.table.options.turn_seconds !== undefined")
    options = await gm.evaluate("window.stablemaster.table.options")
    assert options["turn_seconds"] == 90, options
    assert options["turn_expiry"] == "end_turn", options
    assert options["anonymous_hidden_turns"] is True, options
    assert options["players_roll"] is True, options
    assert options["npc_rolls_public"] is True, options
    audit.check()


async def test_an_encounter_files_options_fill_the_controls(server: Server, pages: Pages) -> None:
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/")
    await gm.wait_for_selector(".examples input[type=radio]")
    await gm.fill("textarea[name=statblocks]",
                  "options: {turn_seconds: 45, players_roll: true}\n" + YAML)
    await gm.dispatch_event("textarea[name=statblocks]", "change")
    await gm.wait_for_function("(document.querySelector('p.file-notes').dataset.took || '')"
                               ".includes('options')")
    controls = "fieldset.options-controls"
    assert await gm.input_value(f"{controls} input[name=turn_seconds]") == "45"
    assert await gm.is_checked(f"{controls} input[name=players_roll]")
    assert not await gm.is_checked(f"{controls} input[name=anonymous_hidden_turns]")
    # unticked, it is sent as false over the file's true
    await gm.uncheck(f"{controls} input[name=players_roll]")
    await gm.click("button.primary")
    await live(gm)
    await gm.wait_for_function("window.stablemaster.table.options.turn_seconds === 45")
    assert (await gm.evaluate("window.stablemaster.table.options")).get("players_roll") is not True
