"""The campaign page (/campaign/) and the web table with a campaign link, in a real browser
(Debian's Chromium driven by Playwright) against a real server and Redis: a GM makes a
campaign on the page, keeps its recovery secret (which recovers the GM link afterwards), adds
a character, is refused a short rest in words under the clock's form, rests the party
through a night and begins an encounter, every step read on the page from what the server
sent; a player who opens the table with its campaign link before any encounter waits, and
lands by itself in each encounter the GM begins (the old encounter's log gone); axe-core finds
nothing critical or serious on the campaign page and the waiting screen, at 1280x800 and
390x844 (and dark), and the phone never scrolls sideways. Screenshots go to
test-artifacts/web-campaign/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from server.app import Server
from tests.conftest import ROOT, ws_url
from tests.helpers import join, open_client
from tests.test_web import CHROMIUM, PHONE, Pages
from tests.test_web_a11y import WIDE, Audit, axe_source  # noqa: F401 (axe_source: a fixture)

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

ACE = {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50,
       "stats": {"fatigue_points": 20, "skills": {"melee": 5}}}
BEE = {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 1,
       "stats": {"fatigue_points": 14}}
DOG = {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": -50}

CREATE = "form[data-command=create_campaign]"
ADD = "form[data-command=add_character]"
ADJUST = "form[data-command=adjust_character]"
CLOCK = "form[data-command=advance_clock]"
BEGIN = "form[data-command=begin_encounter]"
RECOVER = "form[data-command=recover_campaign]"

TIMES = "\N{MULTIPLICATION SIGN}"  # the items are counted as "3 <times> rope"

# The page's horizontal overflow: how far it scrolls sideways (0: not at all).
SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.fixture(scope="module")
def artifacts() -> Path:
    folder = ROOT / "test-artifacts" / "web-campaign"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


async def live(page: Any) -> None:
    await page.wait_for_selector('#status[data-state="live"]', state="attached", timeout=10_000)


async def row(page: Any, character: str, field: str) -> str:
    """A value of a character's card on the page, as shown."""
    text: str = await page.inner_text(
        f'article.character[data-character="{character}"] tr[data-field="{field}"] td')
    return text.strip()


async def wait_row(page: Any, character: str, field: str, text: str) -> None:
    await page.wait_for_function(
        """([selector, t]) => {
          const td = document.querySelector(selector);
          return td && td.innerText.includes(t);
        }""", arg=[f'article.character[data-character="{character}"] tr[data-field="{field}"] td',
                   text], timeout=10_000)


async def make_campaign(page: Any, name: str) -> dict[str, str]:
    """On the page without a link: a new campaign; the id, secret and GM link it shows once."""
    await page.wait_for_selector(CREATE)
    await page.fill(f"{CREATE} input[name=name]", name)
    await page.select_option(f"{CREATE} select[name=ruleset]", "dramatic")
    await page.click(f"{CREATE} button[type=submit]")
    await page.wait_for_selector(".kept input.recovery-secret")
    shown = {key: await page.input_value(f".kept input.{key}")
             for key in ("campaign-id", "recovery-secret", "gm-link")}
    return shown


async def test_a_gm_makes_a_campaign_adds_a_character_rests_and_begins_an_encounter(
        server: Server, pages: Pages, artifacts: Path) -> None:
    base = f"http://127.0.0.1:{server.settings.port}"
    page = await pages.open(f"{base}/campaign/", size=WIDE)
    shown = await make_campaign(page, "The Everfree road")
    secret, campaign = shown["recovery-secret"], shown["campaign-id"]
    assert secret.startswith("smr-") and campaign
    assert f"{base}/campaign/#token=smc1.{campaign}." in shown["gm-link"]
    note = await page.inner_text(".kept .keep-note")
    assert "Keep the recovery secret" in note and "shown this once" in note
    await page.screenshot(path=artifacts / "created.png", full_page=True)
    # the campaign opens once the GM says the secret is kept
    assert await page.is_disabled("button.open-campaign")
    await page.check(".kept input[name=kept]")
    await page.click("button.open-campaign")
    await live(page)
    await page.wait_for_selector('.clock-now[data-hour="0"]')
    assert await page.inner_text(".clock-now") == "Day 1, 00:00"
    assert await page.inner_text("#title") == "The Everfree road"
    assert "?" not in page.url and "#token=smc1." in page.url  # the link rides in the fragment
    assert secret not in await page.content()  # shown once: gone with the page that showed it

    # a character, from the form; its id from its name
    await page.fill(f"{ADD} input[name=name]", "Ace")
    assert await page.input_value(f"{ADD} input[name=id]") == "ace"
    await page.select_option(f"{ADD} select[name=kind]", "pc")
    await page.fill(f"{ADD} input[name=initiative]", "50")
    await page.fill(f"{ADD} textarea[name=stats]",
                    '{"fatigue_points": 20, "skills": {"melee": 5}}')
    await page.click(f"{ADD} button[type=submit]")
    await page.wait_for_selector('article.character[data-character="ace"]')
    await wait_row(page, "ace", "fatigue", "20/20")
    assert await row(page, "ace", "physical track") == "normal"
    assert await row(page, "ace", "encounter") == "none"
    link = await page.input_value('article.character[data-character="ace"] .player-link input')
    assert link.startswith(f"{base}/table/#token=smc1.{campaign}.")
    assert "player's link is on the card" in await page.inner_text(f"{ADD} p.done")
    # the same id again: the server's refusal, in words, under the form that sent it
    await page.fill(f"{ADD} input[name=name]", "Ace")
    await page.click(f"{ADD} button[type=submit]")
    await page.wait_for_selector(f'{ADD} p.error[data-code="conflict"]')
    assert "already" in await page.inner_text(f"{ADD} p.error")

    # bruised: fatigue 5 of 20 and two steps down the physical track
    await page.select_option(f"{ADJUST} select[name=character]", "ace")
    await page.fill(f"{ADJUST} input[name=reason]", "a fall on the road")
    await page.fill(f"{ADJUST} input[name=fatigue]", "5")
    await page.fill(f"{ADJUST} input[name=physical_step]", "2")
    await page.fill(f"{ADJUST} textarea[name=status]", "+2 canterlot")
    await page.fill(f"{ADJUST} textarea[name=items]", f"3 {TIMES} rope")
    await page.click(f"{ADJUST} button[type=submit]")
    await wait_row(page, "ace", "fatigue", "5/20")
    assert (await row(page, "ace", "physical track")).startswith("step 2/5")
    assert (await row(page, "ace", "temporary status")).startswith("+2 in canterlot")
    assert await row(page, "ace", "items") == f"rope {TIMES} 3"
    assert await page.get_attribute(f"{ADJUST} input[name=fatigue]", "placeholder") == \
        "now 5/20"

    # four hours is too short a rest: refused, the clock where it was
    await page.fill(f"{CLOCK} input[name=hours]", "4")
    await page.check(f"{CLOCK} input[name=rest]")
    await page.click(f"{CLOCK} button[type=submit]")
    await page.wait_for_selector(f'{CLOCK} p.error[data-code="invalid_payload"]')
    assert "8" in await page.inner_text(f"{CLOCK} p.error")
    assert await page.inner_text(".clock-now") == "Day 1, 00:00"
    # a night's rest: Natural Healing (R110)
    await page.fill(f"{CLOCK} input[name=hours]", "8")
    await page.click(f"{CLOCK} button[type=submit]")
    await page.wait_for_selector('.clock-now[data-hour="8"]')
    assert await page.inner_text(".clock-now") == "Day 1, 08:00"
    assert await page.inner_text(f"{CLOCK} p.error") == ""
    await wait_row(page, "ace", "fatigue", "20/20")
    assert await row(page, "ace", "physical track") == "normal"
    assert await row(page, "ace", "natural healing") == "last on day 1, 08:00"
    assert not await page.is_checked(f"{CLOCK} input[name=rest]")
    # another night eight hours later: refused, and the log says why, in the server's words
    await page.fill(f"{CLOCK} input[name=hours]", "8")
    await page.check(f"{CLOCK} input[name=rest]")
    await page.click(f"{CLOCK} button[type=submit]")
    await page.wait_for_selector('.clock-now[data-hour="16"]')
    await page.wait_for_selector("ol.campaign-log li:has-text('does not heal naturally')")
    newest = await page.inner_text("ol.campaign-log li >> nth=0")
    assert newest.startswith("day 1, 16:00: Ace does not heal naturally") and \
        "only once in a 24-hour period" in newest, newest

    # an encounter of the roster, with a dog besides
    await page.fill(f"{BEGIN} input[name=name]", "The ambush")
    await page.check(f'{BEGIN} input[name=take][value="ace"]')
    await page.fill(f"{BEGIN} textarea[name=npcs]",
                    '[{"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": -50}]')
    await page.click(f"{BEGIN} button[type=submit]")
    await page.wait_for_selector("ul.encounters li.running")
    assert "The ambush" in await page.inner_text("ul.encounters li.running")
    await wait_row(page, "ace", "encounter", "The ambush")
    assert await page.is_disabled(f'{BEGIN} input[name=take][value="ace"]')
    href = await page.get_attribute("ul.encounters li.running a.open-encounter", "href")
    assert href is not None and href.startswith("/table/#token=sm1.")
    await page.screenshot(path=artifacts / "campaign.png", full_page=True)
    # the clock is the scene's while it runs: refused, in words
    await page.fill(f"{CLOCK} input[name=hours]", "1")
    await page.click(f"{CLOCK} button[type=submit]")
    await page.wait_for_selector(f'{CLOCK} p.error[data-code="illegal_action"]')

    # the link opens the encounter in the web table, as its GM, with the character in it
    table = await pages.open(f"{base}{href}", size=WIDE)
    await live(table)
    await table.wait_for_function("window.stablemaster.table.name === 'The ambush'")
    assert await table.evaluate("window.stablemaster.table.welcome.role") == "gm"
    await table.wait_for_selector('.roster-panel tr[data-combatant="ace"]')

    # the campaign's GM link opened in the web table goes to the campaign page
    astray = await pages.open(f"{base}/table/#{shown['gm-link'].split('#', 1)[1]}", size=WIDE)
    await astray.wait_for_url(f"{base}/campaign/#token=*")
    await astray.wait_for_selector('article.character[data-character="ace"]')

    # the kept secret recovers the GM link; the old one stops working on the page
    other = await pages.open(f"{base}/campaign/", size=WIDE)
    await other.fill(f"{RECOVER} input[name=campaign]", campaign)
    await other.fill(f"{RECOVER} input[name=recovery_secret]", "smr-not-the-secret")
    await other.click(f"{RECOVER} button[type=submit]")
    await other.wait_for_selector(f'{RECOVER} p.error[data-code="unauthenticated"]')
    await other.fill(f"{RECOVER} input[name=recovery_secret]", secret)
    await other.click(f"{RECOVER} button[type=submit]")
    await other.wait_for_selector(".recover-panel .kept input.gm-link")
    new_secret = await other.input_value(".recover-panel .kept input.recovery-secret")
    assert new_secret.startswith("smr-") and new_secret != secret
    assert await other.input_value(".recover-panel .kept input.gm-link") != shown["gm-link"]
    await page.wait_for_selector('#status[data-state="closed"]')
    await other.check(".recover-panel .kept input[name=kept]")
    await other.click(".recover-panel button.open-campaign")
    await live(other)
    await other.wait_for_selector('article.character[data-character="ace"]')
    assert await other.inner_text(".clock-now") == "Day 1, 16:00"


async def found(url: str, clients: list[Client]) -> tuple[Client, dict[str, Any], dict[str, str]]:
    """A campaign made over the protocol: its GM's connection, create_campaign's result and
    the player links of Ace and Bee."""
    anon = await open_client(url, clients)
    await anon.hello()
    created = (await anon.command("create_campaign", name="The Everfree road",
                                  ruleset="dramatic"))["result"]
    gm = await open_client(url, clients)
    await gm.hello(created["gm_token"])
    links = {}
    for block in (ACE, BEE):
        links[block["id"]] = (await gm.command("add_character", character=block))["result"][
            "token"]
    return gm, created, links


async def test_a_player_waits_with_the_campaign_link_and_lands_in_each_encounter(
        server: Server, pages: Pages, clients: list[Client], artifacts: Path) -> None:
    url = ws_url(server)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm, _, links = await found(url, clients)
    await gm.command("adjust_character", character="ace", reason="a long march", fatigue=12)
    # a player's campaign link opened on the campaign page goes to the web table
    player = await pages.open(f"{base}/campaign/#token={links['ace']}", size=PHONE)
    await player.wait_for_url(f"{base}/table/#token=*")
    await live(player)
    await player.wait_for_selector("main > .waiting")
    assert "Waiting for the GM to begin an encounter" in \
        await player.inner_text("main > .waiting")
    await player.wait_for_selector('article.character[data-character="ace"]')
    await wait_row(player, "ace", "fatigue", "12/20")  # its own character, in full
    assert await player.query_selector('article.character[data-character="bee"]') is None
    assert await player.evaluate(SIDEWAYS) <= 0
    await player.screenshot(path=artifacts / "waiting-phone.png", full_page=True)

    # the GM begins an encounter with Ace: the page lands in it by itself
    ack = await gm.command("begin_encounter", name="The ambush", characters=["ace"],
                           npcs=[DOG])
    first = ack["result"]["encounter"]
    await player.wait_for_function(
        f"window.stablemaster.table.welcome?.encounter === {first!r}", timeout=10_000)
    await player.wait_for_function("window.stablemaster.table.name === 'The ambush'")
    await live(player)
    await player.wait_for_selector('.sheet[data-combatant="ace"]', state="attached")
    await player.wait_for_selector('.sheet[data-combatant="ace"] .fatigue[data-fatigue="12"]',
                                   state="attached")
    assert await player.query_selector("main > .waiting") is None
    assert await player.inner_text("#title") == "The ambush"
    assert await player.evaluate("window.stablemaster.table.welcome.combatants") == ["ace"]

    # a line of this encounter's log, then its end; the next encounter starts a fresh page
    enc_gm = await open_client(url, clients)
    await enc_gm.hello(ack["result"]["gm_token"])
    await enc_gm.command("start_encounter")
    await enc_gm.command("adjust_combatant", combatant="ace", reason="tripped on a root",
                         fatigue=9)
    await player.wait_for_function(
        "window.stablemaster.table.log.some((l) => l.text.includes('tripped on a root'))")
    await enc_gm.command("end_encounter", reason="the dog ran off")
    await player.wait_for_function("window.stablemaster.table.ended === true")
    second = (await gm.command("begin_encounter", name="The bridge", characters=["ace"],
                               npcs=[DOG]))["result"]["encounter"]
    await player.wait_for_function(
        f"window.stablemaster.table.welcome?.encounter === {second!r}", timeout=10_000)
    await player.wait_for_function("window.stablemaster.table.name === 'The bridge'")
    await live(player)
    await player.wait_for_selector('.sheet[data-combatant="ace"]', state="attached")
    log = await player.evaluate("window.stablemaster.table.log.map((l) => l.text)")
    assert not any("tripped on a root" in line for line in log), log
    assert await player.evaluate("window.stablemaster.table.ended") is False
    assert await player.inner_text("#title") == "The bridge"
    assert await player.evaluate(SIDEWAYS) <= 0


async def test_the_campaign_page_and_the_waiting_screen_pass_axe(
        server: Server, pages: Pages, clients: list[Client], artifacts: Path,
        axe_source: str) -> None:  # noqa: F811 (the fixture imported above)
    audit = Audit(axe_source, artifacts, "campaign")
    url = ws_url(server)
    base = f"http://127.0.0.1:{server.settings.port}"
    page = await pages.open(f"{base}/campaign/", size=WIDE)
    await page.wait_for_selector(CREATE)
    await audit(page, "campaign page, no link")
    await make_campaign(page, "An audited campaign")
    await audit(page, "campaign page, the secret shown")

    gm, created, links = await found(url, clients)
    await gm.command("adjust_character", character="ace", reason="the gala",
                     status=[{"bonus": 2, "circle": "canterlot"}],
                     items=[{"name": "rope", "count": 3}], physical_step=1)
    await gm.command("add_character", character=DOG)
    await gm.command("begin_encounter", name="The ambush", characters=["bee"])
    # another encounter, played and written back (its badge says so)
    begun = await gm.command("begin_encounter", name="The skirmish", characters=["ace"])
    first = await join(url, begun["result"]["gm_token"], clients)
    await first.command("end_encounter")
    gm_page = await pages.open(f"{base}/campaign/#token={created['gm_token']}", size=WIDE)
    await live(gm_page)
    await gm_page.wait_for_selector("ul.encounters li.running")
    await gm_page.wait_for_selector("ul.encounters li.written-back .badge.done", timeout=20_000)
    await gm_page.wait_for_selector('article.character[data-character="dog"]')
    # a refusal shown under its form, as the GM would see it
    await gm_page.fill(f"{CLOCK} input[name=hours]", "2")
    await gm_page.click(f"{CLOCK} button[type=submit]")
    await gm_page.wait_for_selector(f"{CLOCK} p.error:not(:empty)")
    await audit(gm_page, "campaign page, a roster and an encounter")
    for size in (WIDE, PHONE):
        await gm_page.set_viewport_size({"width": size[0], "height": size[1]})
        assert await gm_page.evaluate(SIDEWAYS) <= 0, f"the page scrolls sideways at {size}"
    await gm_page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    await page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    assert await page.evaluate(SIDEWAYS) <= 0

    player = await pages.open(f"{base}/table/#token={links['ace']}", size=WIDE)
    await live(player)
    await player.wait_for_selector('main > .waiting')
    await player.wait_for_selector('article.character[data-character="ace"]')
    await audit(player, "table, a campaign link waiting")
    audit.check()
