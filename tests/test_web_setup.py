"""The create page in a real browser (Debian's Chromium driven by Playwright) against a real
server and Redis: the stat-block editor, drawn from the ruleset's published schema, shows every
problem of the stat blocks at once, each at its field and in words, and creates the encounter
once they are fixed (a weapon and a skill among the stats); the options set with controls (the
turn timer, who rolls, anonymous hidden turns) reach the encounter the server creates, merged
over the options' JSON; the schema the page draws from is the published one; a campaign's
encounter begins on the map drawn in its field; axe-core finds nothing serious or critical on
the page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clients.client import Client
from docgen import reference
from server.app import Server
from server.web import lookup
from tests.browser import CHROMIUM, Pages
from tests.conftest import ROOT, ws_url
from tests.test_web import live
from tests.test_web_a11y import Audit, axe_source  # noqa: F401  (axe_source: a fixture)
from tests.test_web_campaign import found

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
    await gm.click("button.yaml-tab")
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
    await gm.click("button.yaml-tab")
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


def test_the_editors_schema_is_the_published_one() -> None:
    for ruleset in ("dramatic", "action_time"):
        found = lookup(f"/schemas/stat-block.{ruleset}.json")
        assert found is not None
        assert json.loads(found[0]) == json.loads(json.dumps(reference.stat_block_schema(ruleset)))


async def test_a_stat_block_with_three_errors_shows_all_three_at_their_fields(
        server: Server, pages: Pages, artifacts: Path, axe_source: str) -> None:  # noqa: F811
    audit = Audit(axe_source, artifacts, "stat-block editor")
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/", size=(1366, 768))
    await gm.wait_for_selector(".examples input[type=radio]")
    await gm.select_option("select[name=ruleset]", "dramatic")
    card = ".sb-card[data-n='1']"
    await gm.wait_for_selector(f"{card} input[name=name]")
    await gm.fill("input[name=name]", "By form")
    # three mistakes: no name, an initiative modifier past 50, a weapon without a name
    await gm.fill(f"{card} input[name=initiative]", "99")
    await gm.click(f"{card} details.sb-stats > summary")
    await gm.click(f"{card} button.sb-add[data-list=weapons]")
    await gm.fill(f"{card} input[name='stats.weapons[0].damage']", "1d6")
    await gm.click("button.primary")
    await gm.wait_for_selector(f"{card} .sb-error")
    errors = await gm.eval_on_selector_all(
        f"{card} .sb-error", "els => els.map(e => [e.dataset.field, e.textContent, "
        "e.closest('label, fieldset').querySelector('input, select')?.name])")
    fields = sorted(f for f, _, _ in errors)
    assert fields == ["initiative", "name", "stats.weapons[0].name"], errors
    for field, text, control in errors:
        assert control == field, errors  # next to its own field
        assert "$" not in text and "[0]" not in text and "stats." not in text, text  # in words
    assert "3 problems" in await gm.inner_text(".sb-summary")
    await gm.screenshot(path=artifacts / "stat-block-errors.png", full_page=True)
    await audit(gm, "stat-block editor, three errors")
    # nothing was sent: still the create page; fixed, the encounter is created
    await gm.fill(f"{card} input[name=name]", "Twilight Sparkle")
    await gm.fill(f"{card} input[name=initiative]", "3")
    await gm.fill(f"{card} input[name='stats.weapons[0].name']", "Hoof")
    await gm.fill(f"{card} input[name='stats.skills']", "perception 4")
    await gm.select_option(f"{card} select[name=kind]", "pc")
    await gm.click("button.primary")
    await live(gm)
    await gm.wait_for_function("window.stablemaster.table.combatants.size === 1")
    made = await gm.evaluate("[...window.stablemaster.table.combatants.values()][0]")
    assert made["name"] == "Twilight Sparkle" and made["kind"] == "pc", made
    assert made["initiative_mod"] == 3, made
    assert [w["name"] for w in made["stats"]["weapons"]] == ["Hoof"], made
    assert made["stats"]["skills"] == {"perception": 4}, made
    audit.check()


async def test_a_campaign_encounter_begins_on_the_map_drawn_in_its_field(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """The campaign page's "Begin the encounter" has a battle map field (a drawing, or JSON):
    the encounter begins on that map."""
    _gm, created, _links = await found(ws_url(server), clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    page = await pages.open(f"{base}/campaign/#token={created['gm_token']}", size=(1366, 768))
    begin = "form[data-command=begin_encounter]"
    await page.wait_for_selector(f'{begin} input[name=take][value="ace"]')
    assert await page.is_visible(f"{begin} textarea[name=map]")
    await page.fill(f"{begin} input[name=name]", "The ambush")
    await page.check(f'{begin} input[name=take][value="ace"]')
    await page.fill(f"{begin} textarea[name=map]", "....#\n.....\n..~..")
    await page.click(f"{begin} button[type=submit]")
    await page.wait_for_selector("a.open-encounter")
    href = await page.get_attribute("a.open-encounter", "href")
    assert href is not None
    table = await pages.open(f"{base}{href}", size=(1366, 768))
    await live(table)
    await table.wait_for_function("window.stablemaster.table.map !== null")
    battle = await table.evaluate("window.stablemaster.table.map")
    assert (battle["width"], battle["height"]) == (5, 3), battle
    assert battle["blocked"] == [[4, 0]] and battle["difficult"] == [[2, 2]], battle


async def test_the_form_follows_the_ruleset_an_action_time_stat_block(
        server: Server, pages: Pages) -> None:
    """Another ruleset, another form: "Action Time"'s stats (its Body die, Health, Defense) from
    its own schema; without the Body die the form says so at its field."""
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/", size=(1366, 768))
    await gm.wait_for_selector(".examples input[type=radio]")
    await gm.select_option("select[name=ruleset]", "action_time")
    card = ".sb-card[data-n='1']"
    await gm.wait_for_selector(f"{card} input[name='stats.body']", state="attached")
    await gm.fill(f"{card} input[name=name]", "Applejack")
    await gm.click(f"{card} details.sb-stats > summary")
    await gm.fill(f"{card} input[name='stats.health']", "12")
    await gm.click("button.primary")
    await gm.wait_for_selector(f"{card} .sb-error[data-field='stats.body']")
    assert "body" in (await gm.inner_text(f"{card} .sb-error")).lower()
    await gm.fill(f"{card} input[name='stats.body']", "d8")
    await gm.fill(f"{card} input[name='stats.defense']", "9")
    await gm.click("button.primary")
    await live(gm)
    await gm.wait_for_function("window.stablemaster.table.combatants.size === 1")
    made = await gm.evaluate("[...window.stablemaster.table.combatants.values()][0]")
    assert made["name"] == "Applejack", made
    assert await gm.evaluate("window.stablemaster.table.ruleset") == "action_time"
