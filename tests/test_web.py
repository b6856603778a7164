"""The web table in a real browser (Debian's Chromium driven by Playwright) against a real
server and Redis: a GM and two players play a round, a spectator overlay follows every turn
within a second and never shows a hidden combatant, and a player whose websocket is killed
mid-turn reconnects and loses nothing; on a battle map a player attacks from the web table and
reads the itemised roll, moves by clicking squares while the overlay follows, and sees the GM's
override with its reason. Screenshots of each view go to test-artifacts/web/."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from clients.client import FEATURES, Client
from server.app import Server
from tests.browser import CHROMIUM, Pages
from tests.conftest import ROOT, settings_for, ws_url
from tests.helpers import (
    Table,
    caught_up,
    create_table,
    join,
    open_client,
    play_turns,
    set_out,
    until_turn_of,
    wait_current,
)
from tests.redis_procs import RedisProcess

ARTIFACTS = ROOT / "test-artifacts" / "web"

playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing (python3 dev.py test installs it)")

YAML = """\
combatants:
  - {name: Twilight Sparkle, id: twilight, kind: pc, initiative: 3, stats: {perception: 4}}
  - {name: Rainbow Dash, id: dash, kind: pc, initiative: 5}
  - {name: Diamond Dog, id: dog, kind: npc, initiative: 1}
  - {name: Lurking Dog, id: lurker, kind: npc, initiative: 4, hidden: true}
"""

# Records every text the overlay ever shows, to prove a hidden combatant never appears.
WATCH_TEXTS = """
window.__texts = [];
new MutationObserver(() => window.__texts.push(document.body ? document.body.innerText : ""))
  .observe(document, {subtree: true, childList: true, characterData: true});
"""
# Records every state of the connection badge.
STATUS_STATES = """
window.__states = [];
new MutationObserver(() => {
  const s = document.getElementById("status");
  if (s && window.__states[window.__states.length - 1] !== s.dataset.state)
    window.__states.push(s.dataset.state);
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-state"]});
"""


PHONE = (390, 844)

# The links the GM console issued, by label (the overlay's transparent variant for spectators).
LINKS = """items => Object.fromEntries(items.map(li => [
    li.querySelector('strong').textContent,
    li.querySelector('input.overlay')?.value || li.querySelector('input').value]))"""


@pytest.fixture(scope="module")
def artifacts() -> Path:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


async def live(page: Any) -> None:
    await page.wait_for_selector('#status[data-state="live"]', timeout=10_000)


async def current_of(page: Any) -> str | None:
    current: str | None = await page.evaluate("window.stablemaster.table.current")
    return current


async def test_a_gm_and_two_players_play_a_round_watched_by_a_spectator(
        server: Server, pages: Pages, artifacts: Path, tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{server.settings.port}"
    # The GM creates the encounter from an uploaded stat-block file.
    gm = await pages.open(f"{base}/table/")
    await gm.wait_for_selector(".examples input[type=radio]")  # the shipped examples are listed
    await gm.screenshot(path=artifacts / "new-encounter.png", full_page=True)
    statblocks = tmp_path / "party.yaml"
    statblocks.write_text(YAML)
    await gm.set_input_files("input[type=file]", str(statblocks))
    await gm.wait_for_function("document.querySelector('textarea').value.includes('Lurking')")
    await gm.fill("input[name=name]", "Browser round")
    await gm.click("button.primary")
    await gm.wait_for_selector(".roster-panel tr[data-combatant=lurker] .badge.hidden")
    await live(gm)
    # Invites and a spectator link, from the console.
    await gm.click("button.invite[data-combatant=twilight]")
    await gm.click("button.invite[data-combatant=dash]")
    await gm.click("button.spectator-link")
    await gm.wait_for_function("document.querySelectorAll('.links-panel input.link').length === 3")
    links = await gm.eval_on_selector_all(".links-panel ul.links li", LINKS)
    assert set(links) == {"Twilight Sparkle", "Rainbow Dash", "Spectators"}
    assert "transparent=1" in links["Spectators"]
    # the links come from the server: another GM tab shows the same ones
    assert "token=" in gm.url
    second = await pages.open(gm.url)
    await second.wait_for_function(
        "document.querySelectorAll('.links-panel input.link').length === 3")
    assert await second.eval_on_selector_all(".links-panel ul.links li", LINKS) == links
    await second.context.close()
    twilight = await pages.open(links["Twilight Sparkle"])
    dash = await pages.open(links["Rainbow Dash"])
    watch = await pages.open(links["Spectators"], init=WATCH_TEXTS)
    players = {"twilight": twilight, "dash": dash}
    for page in (twilight, dash):
        await live(page)
    await watch.wait_for_selector("#order li[data-combatant=dog]")
    await twilight.wait_for_selector(".sheet[data-combatant=twilight] >> text=perception")

    # Everyone is aware (no surprise round): the GM starts the scene, the server rolls.
    await gm.click('button[data-action="start_encounter"]')
    await gm.wait_for_function("window.stablemaster.table.round === 1")
    await gm.screenshot(path=artifacts / "gm-console.png", full_page=True)

    turns: list[tuple[str, float]] = []
    while True:
        actor = await current_of(gm)
        assert actor is not None
        if actor in players:
            page = players[actor]
            await page.wait_for_selector(".banner >> text=Your turn")
            await page.screenshot(path=artifacts / f"player-{actor}-turn.png", full_page=True)
            # an action with a note, then the end of the turn
            await page.fill(f'fieldset[data-combatant="{actor}"] input.note', "trots closer")
            await page.click(f'button[data-action="move"][data-combatant="{actor}"]')
            done = len([t for t in turns if t[0] in players]) + 1
            await gm.wait_for_function("window.stablemaster.table.log.filter(l => l.kind === "
                                       f"'action_taken').length === {done}")
            sender = page
        else:
            sender = gm
        before = time.monotonic()
        await sender.click(f'button[data-action="end_turn"][data-combatant="{actor}"]')
        # the turn's end and the next turn's start may arrive as separate frames
        await gm.wait_for_function(f"window.stablemaster.table.current !== {actor!r} && "
                                   "window.stablemaster.table.current != null")
        following = await current_of(gm)
        # the spectator never sees the lurker: while its turn runs, the spectator is told
        # nothing, the turn before it still showing (docs/protocol.md, "Behind the GM's screen")
        seen = following if following != "lurker" else actor
        await watch.wait_for_function(
            f"document.getElementById('turn').dataset.current === {seen!r}", timeout=1000)
        turns.append((actor, time.monotonic() - before))
        if await gm.evaluate("window.stablemaster.table.round") == 2:
            break
    assert sorted(a for a, _ in turns) == ["dash", "dog", "lurker", "twilight"]
    assert all(delay < 1.0 for _, delay in turns), turns
    await watch.screenshot(path=artifacts / "spectator.png", full_page=True)

    # the players saw every die of their initiative rolls, in full
    await twilight.wait_for_selector(".log .line.dice_rolled .roll .die")
    await twilight.screenshot(path=artifacts / "player-twilight.png", full_page=True)
    # the GM reveals nothing, ends the scene; everyone sees it end
    await gm.fill("input.reason", "the dogs fled")
    gm.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))  # (asked again)
    await gm.click('button[data-action="end_encounter"]')
    for page in (twilight, dash, watch):
        await page.wait_for_selector(".log >> text=The scene ends: the dogs fled")
    texts = await watch.evaluate("window.__texts.join('\\n')")
    assert "Diamond Dog" in texts and "Lurking" not in texts
    assert "Lurking" not in await twilight.inner_text("body")
    # a transparent overlay for streaming software
    assert await watch.evaluate("getComputedStyle(document.body).backgroundColor") == \
        "rgba(0, 0, 0, 0)"
    await watch.screenshot(path=artifacts / "spectator-ended.png", full_page=True)


async def test_a_player_whose_websocket_dies_mid_turn_loses_nothing(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, [
        {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 30},
        {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": 1},
    ])
    # a reference connection of the same player that never drops, told cursors as the page is
    reference = await open_client(url, clients)
    await reference.hello(table.tokens["twilight"], features=[*FEATURES, "cursor"])
    base = f"http://127.0.0.1:{server.settings.port}"
    page = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", init=STATUS_STATES)
    await live(page)
    await table.gm.command("start_encounter")
    await page.wait_for_selector(".banner >> text=Your turn")
    token_id = reference.welcome["token_id"] if reference.welcome else ""

    # Slow the page's next reconnect, then kill its websocket on the server side (as a
    # network failure would: no close frame).
    await page.evaluate("window.stablemaster.conn.backoff = 1500")
    killed = 0
    for session in list(server.sessions):
        if session.actor is not None and session.actor.token_id == token_id and \
                session.ws.remote_address[1] != reference.ws.local_address[1]:
            session.ws.transport.abort()
            killed += 1
    assert killed == 1
    await page.wait_for_selector('#status[data-state="offline"]', timeout=5000)
    await page.screenshot(path=artifacts / "player-offline.png", full_page=True)
    # While it is away: the GM acts for Twilight, and the player clicks an action (queued).
    await table.gm.command("act", combatant="twilight", action="draw",
                           args={"note": "the GM draws her quill"})
    await page.fill('fieldset[data-combatant="twilight"] input.note', "sent while offline")
    await page.click('button[data-action="move"][data-combatant="twilight"]')
    await live(page)
    await page.wait_for_selector(".log >> text=sent while offline")
    await page.click('button[data-action="end_turn"][data-combatant="twilight"]')
    await reference.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn_ended")
    await page.wait_for_selector(".log >> text=Twilight Sparkle ends the turn")

    states = await page.evaluate("window.__states")
    assert "offline" in states and states[-1] == "live", states
    # The page folded exactly the events the reference saw, each once: it resumed from its
    # cursor (no snapshot), and the command sent while offline took effect once. (Its log
    # begins with the events before it joined, read back when it opened: all of them, as a
    # replay from the start gives them.)
    cursors = await page.evaluate("[...new Set(window.stablemaster.table.log.map(l => l.at))]")
    kinds = await page.evaluate("window.stablemaster.table.log.map(l => l.kind)")
    expected = [m["cursor"] for m in reference.events()]
    assert cursors[-len(expected):] == expected
    whole = await open_client(ws_url(server), clients)
    await whole.hello(table.tokens["twilight"], since=0, features=[*FEATURES, "cursor"])
    await whole.command("ping")
    assert cursors == [m["cursor"] for m in whole.events()]
    assert "snapshot" not in kinds
    notes = [m["event"].get("note") for m in reference.events()
             if m["event"]["kind"] == "action_taken"]
    assert notes == ["the GM draws her quill", "sent while offline"]
    await page.screenshot(path=artifacts / "player-reconnected.png", full_page=True)


ARENA = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 30,
     "position": [0, 1],
     "stats": {"skills": {"ranged": 6}, "fatigue_points": 12,
               "weapons": [{"name": "magic bolt", "damage": "1d8", "kind": "ranged"}]}},
    {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": 1, "position": [5, 1],
     "stats": {"skills": {"melee": 4}, "fatigue_points": 40}},
    # the same initials as the Diamond Dog, hidden from the players
    {"name": "Dusky Dog", "id": "dusky", "kind": "npc", "initiative": 0, "position": [6, 2],
     "hidden": True, "stats": {"skills": {"melee": 4}, "fatigue_points": 40}},
]
ARENA_MAP = {"width": 7, "height": 3, "blocked": [[3, 0]], "difficult": [[3, 2]],
             "walls": [[[6, 0], [6, 1]]]}


async def test_a_player_attacks_and_moves_on_the_map_and_sees_the_gms_override(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    url = ws_url(server)
    creator = await open_client(url, clients)
    await creator.hello()
    ack = await creator.command("create_encounter", name="Map duel", combatants=ARENA,
                                map=ARENA_MAP)
    gm_token = ack["result"]["gm_token"]
    gm_api = await join(url, gm_token, clients)
    invite = await gm_api.command("issue_invite", combatants=["twilight"])
    spectator = await gm_api.command("issue_spectator_link")
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={gm_token}")
    player = await pages.open(f"{base}/table/#token={invite['result']['token']}")
    watch = await pages.open(f"{base}/watch?spectate={spectator['result']['token']}")
    for page in (gm, player):
        await live(page)
    for page in (gm, watch):  # an icon of their own, so a browser asks for no /favicon.ico
        assert await page.evaluate(
            "document.querySelector('link[rel=icon]').href.startsWith('data:image/svg')")
    # the map is drawn from the snapshot: squares, a blocked square, a wall, both tokens
    await watch.wait_for_selector('#map .sq[data-x="5"][data-y="1"] .token[data-combatant=dog]')
    # tokens with the same initials are told apart, by their ids (docs/clients.md, "Token
    # labels"), the same on both maps, without a hint of a hidden one
    dog, dusky = ".map .token[data-combatant=dog]", ".map .token[data-combatant=dusky]"
    await gm.wait_for_selector(dusky)
    assert [await gm.inner_text(dog), await gm.inner_text(dusky)] == ["DDo", "DD"]
    assert await player.inner_text(dog) == "DDo" and await player.locator(dusky).count() == 0
    # the GM's map marks the token the table does not see
    assert await gm.locator(f"{dusky}.hidden").count() == 1
    assert await gm.locator(f"{dog}.hidden").count() == 0
    await player.wait_for_selector('.map .sq.blocked[data-x="3"][data-y="0"]')
    await player.wait_for_selector('.map .sq.wl[data-x="6"][data-y="0"]')
    # on a laptop the actions come first and the map is under the order, beside them (not in a
    # row below them all): a square and Move on one screen
    drawn = await player.locator(".map-panel").bounding_box()
    listed = await player.locator(".actions-panel").bounding_box()
    order = await player.locator("section:has(> ol.order)").bounding_box()
    assert drawn["x"] == order["x"] and drawn["y"] > order["y"]
    assert listed["x"] + listed["width"] <= drawn["x"] and listed["y"] <= order["y"]
    # the GM's map comes right after the roster, before the long lists of actions and rulings
    gm_map = await gm.locator(".map-panel").bounding_box()
    assert gm_map["y"] < (await gm.locator(".actions-panel").bounding_box())["y"]
    await gm_api.command("start_encounter")
    await player.wait_for_selector(".banner >> text=Your turn")

    # An attack from the web table: target and weapon chosen, the server's itemised roll shown.
    attack = 'form.act[data-action="attack"][data-combatant="twilight"]'
    await player.select_option(f"{attack} select.target", "dog")
    await player.select_option(f"{attack} select.weapon", "magic bolt")
    # the weapons are the entry's options: the sheet's, and unarmed where the ruleset has it
    assert await player.eval_on_selector_all(f"{attack} select.weapon option",
                                             "os => os.map(o => o.value)") == ["magic bolt",
                                                                               "unarmed"]
    assert await player.locator(f"{attack} select.cover").count() == 0  # the map decides
    await player.click(f'{attack} button[data-action="attack"]')
    line = player.locator(".log .line.attack_resolved")
    await line.wait_for()
    text = await line.inner_text()
    assert re.search(r"Twilight Sparkle attacks Diamond Dog with magic bolt: d20 \d+ "
                     r"\+6 Ranged skill .*= \d+ against Reflex Defense[^:]*: "
                     r"(hit|miss|critical hit|automatic miss)", text), text
    await player.screenshot(path=artifacts / "player-attack.png", full_page=True)

    # The GM's list folds away the combatants that may only act out of turn; one opened stays
    # open as the list is drawn again
    dog_actions = 'fieldset[data-combatant="dog"] details.folded'
    await gm.wait_for_selector(dog_actions)
    assert await gm.locator('fieldset.turn[data-combatant="twilight"] details.folded').count() == 0
    assert not await gm.locator(dog_actions).evaluate("d => d.open")
    await gm.click(f"{dog_actions} > summary")
    assert await gm.locator(dog_actions).evaluate("d => d.open")
    await gm.locator(dog_actions).evaluate("d => { d.dataset.before = 'yes'; }")

    # A move picked by clicking squares on the map; the spectator overlay follows it.
    for x, y in ((1, 1), (2, 1), (2, 2)):
        await player.click(f'.map-panel .sq[data-x="{x}"][data-y="{y}"]')
    await player.wait_for_selector(".path-text >> text=path: (1,1) → (2,1) → (2,2)")
    before = time.monotonic()
    await player.click('button[data-action="move"][data-combatant="twilight"]')
    await watch.wait_for_selector(
        '#map .sq[data-x="2"][data-y="2"] .token[data-combatant=twilight]', timeout=2000)
    assert time.monotonic() - before < 2
    await watch.wait_for_selector(".log >> text=Twilight Sparkle moves to (2, 2)")
    await watch.screenshot(path=artifacts / "spectator-map.png", full_page=True)
    await gm.wait_for_selector(".log >> text=Twilight Sparkle moves to (2, 2)")
    # (drawn again: the element is a new one)
    assert await gm.locator(dog_actions).evaluate("d => d.open && !d.dataset.before")

    # The GM overrides her fatigue with a reason; the player sees the value and the reason.
    tool = 'form.tool[data-command="adjust_combatant"]'
    await gm.select_option(f"{tool} select[name=combatant]", "twilight")
    await gm.fill(f"{tool} input[name=reason]", "a lucky horseshoe")
    await gm.fill(f"{tool} input[name=fatigue]", "5")
    await gm.select_option(f"{tool} select[name=prone]", "true")
    await gm.click(f"{tool} button[type=submit]")
    await player.wait_for_selector('.sheet[data-combatant=twilight] .fatigue[data-fatigue="5"]')
    await player.wait_for_selector(".sheet[data-combatant=twilight] .badge.prone")
    await player.wait_for_selector(".log >> text=The GM overrides for Twilight Sparkle")
    await player.wait_for_selector(".log >> text=Reason: a lucky horseshoe")
    ruling = [m["event"] for m in gm_api.events() if m["event"]["kind"] == "gm_ruling"][-1]
    assert ruling["changes"] == [{"field": "fatigue", "value": 5},  # sent as JSON numbers
                                 {"field": "prone", "value": True}]
    await gm.screenshot(path=artifacts / "gm-override.png", full_page=True)
    await player.screenshot(path=artifacts / "player-overridden.png", full_page=True)

    # The GM adds an effect from the web table (R90); the player sees what it changes and how
    # long it lasts, and the server counts it in her Reflex Defense.
    tool = 'form.tool[data-command="add_effect"]'
    await gm.fill(f"{tool} input[name=name]", "Shield of Leaves")
    await gm.select_option(f"{tool} select[name=combatant]", "twilight")
    await gm.fill(f"{tool} input[name=modifiers]", "reflex_defense +2, attack -1")
    await gm.select_option(f"{tool} select[name=until]", "scene")
    await gm.click(f"{tool} button[type=submit]")
    await player.wait_for_selector(
        ".badge.effect >> text=Shield of Leaves: reflex defense +2, attack -1")
    await player.wait_for_selector(".sheet[data-combatant=twilight] >> text=the scene")
    # her sheet's defenses as the server now computes them, the effect itemised (R90)
    await player.wait_for_selector(
        ".sheet[data-combatant=twilight] >> text=/reflex \\d+ \\([^)]*\\+2 Shield of Leaves/")
    started = [m["event"] for m in gm_api.events() if m["event"]["kind"] == "effect_started"][-1]
    assert (started["until"], started["modifiers"]) == (
        "scene", [{"target": "reflex_defense", "amount": 2}, {"target": "attack", "amount": -1}])
    await player.screenshot(path=artifacts / "player-effect.png", full_page=True)


GARDEN = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "side": "ponies",
     "initiative": 25,
     "stats": {"cha": 14, "skills": {"persuasion": 5}, "fatigue_points": 20,
               "social": {"reputation": 6}}},
    {"name": "Prince Blueblood", "id": "blueblood", "kind": "npc", "side": "nobles",
     "initiative": 50,
     "stats": {"cha": 14, "skills": {"persuasion": 4}, "fatigue_points": 40,
               "social": {"reputation": 12}}},
    {"name": "Jet Set", "id": "jetset", "kind": "npc", "side": "nobles", "initiative": 0},
]


async def roll_pending(gm: Client, faces: list[int] | None = None) -> None:
    """Let the server roll (or enter ``faces`` for) the roll the GM is asked for."""
    entry = (await gm.wait_for(lambda m: m["type"] == "legal_actions" and any(
        a["action"] == "server_roll" for a in m["actions"]), start=len(gm.messages) - 1))
    request = next(a for a in entry["actions"] if a["action"] == "server_roll")["targets"][0]
    if faces is None:
        await gm.command("server_roll", request=request)
    else:
        await gm.command("submit_roll", request=request, faces=faces)


async def test_a_player_argues_from_the_web_table_and_sees_attitude_and_the_mental_track(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    url = ws_url(server)
    creator = await open_client(url, clients)
    await creator.hello()
    ack = await creator.command("create_encounter", name="Garden party", combatants=GARDEN,
                                options={"players_roll": True, "manual_rolls": True})
    gm_token = ack["result"]["gm_token"]
    gm_api = await join(url, gm_token, clients)
    invite = await gm_api.command("issue_invite", combatants=["twilight"])
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={gm_token}")
    player = await pages.open(f"{base}/table/#token={invite['result']['token']}")
    for page in (gm, player):
        await live(page)

    # The GM gives Twilight a statement from the console's form; Blueblood's over the API.
    tool = 'form.tool[data-command="size_argument"]'
    await gm.select_option(f"{tool} select[name=combatant]", "twilight")
    await gm.select_option(f"{tool} select[name=size]", "large")
    await gm.fill(f"{tool} input[name=text]", "the Princess invited us")
    await gm.click(f"{tool} button[type=submit]")
    await player.wait_for_selector('.social-panel tr[data-combatant=twilight] .statements '
                                   '>> text=the Princess invited us')
    theirs = await gm_api.command("size_argument", combatant="blueblood", size="medium",
                                  text="commoners do not belong here")
    await gm_api.command("set_social_event", rating=9, organizer="blueblood")
    await gm_api.command("set_social_situation", combatant="twilight", invitation=True)
    await gm_api.command("set_attitude", holder="jetset", toward="twilight",
                         attitude="friendly", reason="an old customer")
    # the page fetches the standing the server works out (a fresh snapshot) once the setting
    # up is over; it shows Twilight's Social Status then. (A command clicked while that
    # snapshot is fetched still goes through once, but its events come folded in the snapshot,
    # not as log lines.)
    await player.wait_for_selector(
        ".social-panel tr[data-combatant=twilight] td.status >> text=/^-?[0-9]+/")
    await gm_api.command("start_encounter")
    for _ in range(3):  # the initiative rolls of all three
        await roll_pending(gm_api)

    # Blueblood disputes Twilight first (the GM's physical dice): a small loss; the player
    # answers from the three buttons and refuses it
    await gm_api.command("act", combatant="blueblood", action="dispute",
                         args={"target": "twilight", "argument": theirs["result"]["argument"]})
    await roll_pending(gm_api, [18])
    await roll_pending(gm_api, [1, 1])  # 2 + Charisma 2: below her mental threshold
    answer = 'span.answer[data-combatant="twilight"]'
    await player.wait_for_selector(f"{answer} button.answer-accept")
    await player.wait_for_selector(f"{answer} button.answer-accept_with_reservation")
    await player.screenshot(path=artifacts / "player-statement.png", full_page=True)
    await player.click(f"{answer} button.answer-refuse")
    await player.wait_for_selector(".log >> text=Twilight Sparkle refuses the statement: loses 4 "
                                   "mental fatigue points")
    await player.wait_for_selector('.sheet[data-combatant=twilight] .fatigue[data-fatigue="16"]')
    await gm_api.command("act", combatant="blueblood", action="end_turn")

    # Twilight's turn: a Dispute from the web table, her statement chosen, her dice entered
    await player.wait_for_selector(".banner >> text=Your turn")
    dispute = 'form.act[data-action="dispute"][data-combatant="twilight"]'
    await player.select_option(f"{dispute} select.target", "blueblood")
    options = await player.eval_on_selector_all(f"{dispute} select.argument option",
                                                "os => os.map(o => o.textContent)")
    assert options == ["“the Princess invited us” (large) arg1"], options
    await player.click(f'{dispute} button[data-action="dispute"]')
    roll = 'form.roll[data-combatant="twilight"]'
    await player.fill(f"{roll} input.face", "15")
    await player.click(f"{roll} button")
    await player.wait_for_selector(".log .line.attack_resolved >> text=against Wits")
    await player.wait_for_selector(f'{roll} input.face >> nth=3')  # Large: 4d6
    for i in range(4):
        await player.fill(f"{roll} input.face >> nth={i}", "6")
    await player.click(f"{roll} button")
    await player.wait_for_selector(".log >> text=Twilight Sparkle's statement hits Prince "
                                   "Blueblood for 26 mental fatigue")
    await player.click('button[data-action="end_turn"][data-combatant="twilight"]')
    await gm_api.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                          "turn_started" and m["event"]["combatant"] == "jetset")
    await gm_api.command("act", combatant="jetset", action="end_turn")

    # Blueblood did not answer before his next turn: refused (R48). The player sees his mental
    # track and his attitude drop, the debate end, and never his fatigue points.
    await player.wait_for_selector(".log >> text=Prince Blueblood refuses the statement: loses 26 "
                                   "mental fatigue points")
    row = '.social-panel tr[data-combatant=blueblood]'
    await player.wait_for_selector(f"{row} td.mental >> text=/^[1-5]\\/5/")
    await player.wait_for_selector('.social-panel tr[data-holder=blueblood][data-toward=twilight]'
                                   ' td.attitude.unfriendly')
    await player.wait_for_selector('.social-panel tr[data-holder=jetset][data-toward=twilight]'
                                   ' td.attitude.friendly')
    await player.wait_for_selector(".social-panel .debate-over")
    await player.wait_for_selector('ol.order li[data-combatant=blueblood] .badge.track'
                                   ' >> text=mental')
    assert await player.locator("ol.order li[data-combatant=blueblood] .fatigue").count() == 0
    assert await player.locator("ol.order li[data-combatant=twilight] .fatigue").count() == 1
    assert "/40" not in await player.inner_text("body")  # his fatigue points stay hidden
    # the standing the server worked out after the event: status with its parts, access
    await player.wait_for_selector('.social-panel tr[data-combatant=twilight] td.access'
                                   ' >> text=/^-?\\d+$/')
    status = await player.inner_text(".social-panel tr[data-combatant=twilight] td.status")
    assert "Reputation" in status or "reputation" in status, status
    # the GM console offers the social tools the server lists, and shows the same scene
    for command in ("size_argument", "set_attitude", "set_social_event",
                    "set_social_situation"):
        await gm.wait_for_selector(f'form.tool[data-command="{command}"]')
    await gm.wait_for_selector('.social-panel tr[data-holder=blueblood] td.attitude.unfriendly')
    await player.screenshot(path=artifacts / "player-social.png", full_page=True)
    await gm.screenshot(path=artifacts / "gm-social.png", full_page=True)


STALE_PARTY = [
    # modifiers 25 apart: the order does not depend on the d20
    {"name": "Bridge Troll", "id": "troll", "kind": "npc", "initiative": 50},
    {"name": "Second Troll", "id": "troll2", "kind": "npc", "initiative": 25},
    {"name": "Starlight Glimmer", "id": "starlight", "kind": "pc", "initiative": 0},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": -25},
]


async def test_a_double_click_ends_one_turn_and_hostile_actions_need_a_chosen_target(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, STALE_PARTY)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    await live(gm)
    await table.gm.command("start_encounter")
    await gm.wait_for_function("window.stablemaster.table.current === 'troll'")
    end = 'button[data-action="end_turn"][data-combatant="{}"]'
    await gm.wait_for_selector(end.format("troll"))
    await gm.screenshot(path=artifacts / "gm-before-double-click.png", full_page=True)
    await gm.locator(end.format("troll")).scroll_into_view_if_needed()
    box = await gm.locator(end.format("troll")).bounding_box()

    # A double click, about 180 ms from the first click to the second (as a person makes one):
    # the answer to the first arrives in between and draws the next troll's "end turn" where
    # the pointer is. One turn ends.
    before = table.gm.last_seq
    await gm.dblclick(end.format("troll"), delay=90)
    await gm.wait_for_function("window.stablemaster.table.current === 'troll2'")
    await gm.wait_for_selector(f'{end.format("troll2")}:not([disabled])')
    await gm.screenshot(path=artifacts / "gm-after-double-click.png", full_page=True)
    after = await gm.locator(end.format("troll2")).bounding_box()
    assert abs(after["x"] - box["x"]) < 5 and abs(after["y"] - box["y"]) < 5  # under the pointer
    await table.gm.command("ping")
    await asyncio.sleep(0.3)
    ended = [m["event"]["combatant"] for m in table.gm.events()
             if m["seq"] > before and m["event"]["kind"] == "turn_ended"]
    assert ended == ["troll"]
    assert await current_of(gm) == "troll2"

    # Attack: no target is preselected; enemies come first, allies after them, marked.
    attack = 'form.act[data-action="attack"][data-combatant="troll2"]'
    options = await gm.eval_on_selector_all(
        f"{attack} select.target option", "os => os.map(o => [o.value, o.textContent])")
    assert options[0] == ["", "choose a target…"]
    assert sorted(options[1:3]) == [["dash", "Rainbow Dash"], ["starlight", "Starlight Glimmer"]]
    assert options[3:] == [["troll", "Bridge Troll (ally)"]]
    assert await gm.eval_on_selector(f"{attack} select.target", "s => s.value") == ""
    before = table.gm.last_seq
    await gm.click(f'{attack} button[data-action="attack"]')  # no target chosen: not sent
    assert await gm.eval_on_selector(f"{attack} select.target", "s => s.validity.valueMissing")
    await gm.screenshot(path=artifacts / "gm-attack-no-target.png", full_page=True)

    # An ally as the target asks first; declined, nothing is sent; confirmed, it is.
    dialogs: list[str] = []
    answer = {"accept": False}

    async def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        await (dialog.accept() if answer["accept"] else dialog.dismiss())

    gm.on("dialog", on_dialog)
    await gm.select_option(f"{attack} select.target", "troll")
    await gm.click(f'{attack} button[data-action="attack"]')
    await table.gm.command("ping")
    await asyncio.sleep(0.3)
    assert dialogs == ["Attack (melee, ranged, unarmed or natural): Bridge Troll is an ally "
                       "of Second Troll. Go ahead?"]
    assert not [m for m in table.gm.events() if m["seq"] > before]
    answer["accept"] = True
    await gm.select_option(f"{attack} select.target", "troll")
    await gm.click(f'{attack} button[data-action="attack"]')
    resolved = await table.gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                                       "attack_resolved")
    assert resolved["event"]["target"] == "troll" and len(dialogs) == 2
    # an enemy needs no confirmation
    await gm.wait_for_selector(f"{attack} select.target", state="detached")  # standard spent
    assert len(dialogs) == 2
    await gm.screenshot(path=artifacts / "gm-after-ally-attack.png", full_page=True)


async def test_the_form_takes_a_shipped_example_file_as_it_is_and_the_sheet_reads_ranges(
        server: Server, pages: Pages, artifacts: Path, tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/")
    await gm.wait_for_selector(".examples input[type=radio]")
    # The garden party, uploaded as shipped: its name and ruleset fill the form; what the form
    # leaves out is named.
    party = tmp_path / "party.yaml"
    party.write_text((ROOT / "server/examples/dramatic-canterlot-garden-party.yaml").read_text())
    await gm.set_input_files("input[type=file]", str(party))
    notes = gm.locator("p.file-notes")
    await notes.locator("text=Not used").wait_for()
    assert await notes.get_attribute("data-ignored") == "description,social"
    assert await gm.input_value("input[name=name]") == "The Canterlot garden party"
    # The old-mill ambush, uploaded with its options: name, map (drawn) and options are taken.
    mill = yaml.safe_load((ROOT / "server/examples/dramatic-ponies-vs-diamond-dogs.yaml")
                          .read_text())
    text = (ROOT / "server/examples/dramatic-ponies-vs-diamond-dogs.yaml").read_text()
    text = text.replace("combatants:\n", "options:\n  players_roll: true\n  dice_seed: 7\n"
                        "combatants:\n", 1)
    upload = tmp_path / "mill.yaml"
    upload.write_text(text)
    await gm.set_input_files("input[type=file]", str(upload))
    await gm.wait_for_function(
        "document.querySelector('p.file-notes').dataset.took === 'name,ruleset,map,options'")
    assert await gm.input_value("input[name=name]") == mill["name"]
    drawn = json.loads(await gm.input_value("textarea[name=map]"))
    assert (drawn["width"], drawn["height"]) == (12, 8) and [4, 1] in drawn["blocked"]
    assert json.loads(await gm.input_value("textarea[name=options]")) == {
        "players_roll": True, "dice_seed": 7}
    await gm.screenshot(path=artifacts / "new-encounter-from-a-file.png", full_page=True)
    await gm.click("button.primary")
    await live(gm)
    await gm.wait_for_selector('.map .sq.blocked[data-x="4"][data-y="1"]')
    # the options went with it: the player rolls its own dice
    snapshot = await gm.evaluate("window.stablemaster.table.options")
    assert snapshot["players_roll"] is True and snapshot["dice_seed"] == 7
    # A weapon's range bands read as bands, not as JSON.
    sheet = gm.locator('section.sheet[data-combatant="twilight"]')
    await sheet.wait_for()
    text = await sheet.inner_text()
    assert "point blank to 6, short to 12, medium to 18, long to 24 squares" in text
    assert '{"point_blank"' not in text


async def test_the_gm_console_offers_the_tools_of_the_encounters_ruleset(
        server: Server, pages: Pages, artifacts: Path) -> None:
    """The console draws its rulings from the GM's legal actions, which the ruleset's
    declaration gives: an Action Time encounter has the override but none of "MLP Dramatic
    Systems"' tools (Adjudicate, Fall, the battle map), which the server refuses there."""
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/")
    await gm.click("text=Ponies vs. Diamond Dogs (Action Time)")
    await gm.click("button.primary")
    await live(gm)
    await gm.wait_for_selector(".tools-panel >> text=Override")
    await gm.wait_for_selector("#subtitle >> text=Action Time")  # the server's title for it
    tools = await gm.inner_text(".tools-panel")
    assert "Adjudicate" not in tools and "Fall" not in tools
    # the override sets what Action Time's combatants have, in its words (Health)
    assert "Health" in tools and "physical step" not in tools and "helpless" not in tools
    # an attack's form asks for what the action takes: a charge, its weapon and no cover
    await gm.click('button[data-action="start_encounter"]')
    charge = gm.locator('form.act[data-action="charge"]').first
    await charge.wait_for()
    assert await charge.locator("select.weapon").count() == 1
    assert await charge.locator("select.cover").count() == 0
    assert await gm.is_hidden(".map-panel")
    await gm.screenshot(path=artifacts / "gm-action-time.png", full_page=True)
    # a Dramatic encounter has them all
    dramatic = await pages.open(f"{base}/table/")
    await dramatic.click("text=Timberwolves at the Everfree's edge")
    await dramatic.click("button.primary")
    await live(dramatic)
    await dramatic.wait_for_selector(".tools-panel >> text=Adjudicate")
    await dramatic.wait_for_selector("#subtitle >> text=MLP Dramatic Systems")
    assert "physical step" in await dramatic.inner_text(".tools-panel")
    assert "Fall" in await dramatic.inner_text(".tools-panel")
    assert await dramatic.is_visible(".map-panel")
    # a collision has a form of its own (its button alone was refused: it names who collides)
    collide = dramatic.locator('form.tool[data-command="collide"]')
    await collide.locator("select[name=first]").select_option("rarity")
    await collide.locator("select[name=second]").select_option("alpha")
    await collide.locator("button").click()
    await dramatic.wait_for_selector(".log >> text=Rarity: collides with Timberwolf Alpha")
    assert await collide.locator(".error").inner_text() == ""
    load = dramatic.locator('form.tool[data-command="load_object"]')
    assert await load.locator("input[name=weight]").get_attribute("required") == ""


async def test_the_new_encounter_form_offers_the_rulesets_the_server_plays(
        server: Server, pages: Pages) -> None:
    """The form's choice of ruleset is the server's list (``/table/rulesets.json``, from the
    registry), so a ruleset registered on the server is offered with its title, and the page
    names no ruleset of its own."""
    from encounter import registry

    base = f"http://127.0.0.1:{server.settings.port}"
    registry.register("kindling", "tests.toy_ruleset")
    try:
        page = await pages.open(f"{base}/table/")
        await page.wait_for_selector("select[name=ruleset] option[value=kindling]",
                                     state="attached")
        options = await page.eval_on_selector_all(
            "select[name=ruleset] option", "os => os.map(o => [o.value, o.textContent])")
    finally:
        registry.unregister("kindling")
    assert options == [["dramatic", "MLP Dramatic Systems"], ["action_time", "Action Time"],
                       ["kindling", "Kindling"]]


async def test_the_create_page_asks_for_the_creator_secret_when_the_server_needs_one(
        redis_server: RedisProcess, pages: Pages, artifacts: Path) -> None:
    """On a server that creates encounters only with its creator secret, the form asks for it
    when the server refuses the first create without it, says so when the one entered is
    wrong, and creates the encounter with the right one. An open server never asks."""
    secret = "creator-secret-entered-in-the-browser"
    srv = Server(settings_for(redis_server.url, creator_secrets=(secret,)))
    await srv.start()
    try:
        page = await pages.open(f"http://127.0.0.1:{srv.settings.port}/table/")
        await page.click("text=Ponies vs. Diamond Dogs (Action Time)")
        assert await page.is_hidden("input[name=creator_secret]")
        await page.click("button.primary")
        error = page.locator("form p.error")
        await page.wait_for_selector('form p.error[data-code="creator_secret_missing"]')
        assert "asks for its creator secret" in await error.inner_text()
        assert await page.is_visible("input[name=creator_secret]")
        assert "ask whoever runs it" in await page.inner_text("p.creator-secret")
        await page.screenshot(path=artifacts / "new-encounter-creator-secret.png",
                              full_page=True)
        await page.fill("input[name=creator_secret]", "not-the-creator-secret-at-all")
        await page.click("button.primary")
        await page.wait_for_selector('form p.error[data-code="creator_secret_wrong"]')
        assert "not this server's creator secret" in await error.inner_text()
        await page.fill("input[name=creator_secret]", secret)
        await page.click("button.primary")
        await live(page)
        await page.wait_for_selector("#subtitle >> text=Action Time")
        assert await page.evaluate("window.stablemaster.table.welcome.role") == "gm"
        # (nothing of the secret in the page's address)
        assert secret not in page.url
    finally:
        await srv.stop()


async def test_an_open_server_never_asks_for_a_creator_secret(server: Server,
                                                              pages: Pages) -> None:
    page = await pages.open(f"http://127.0.0.1:{server.settings.port}/table/")
    await page.click("text=Ponies vs. Diamond Dogs (Action Time)")
    await page.click("button.primary")
    await live(page)
    assert await page.evaluate("window.stablemaster.table.welcome.role") == "gm"


async def test_the_web_table_takes_one_message_per_command_and_folds_legal_deltas(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """The page asks for ``batch`` and ``legal_delta``; after every command its legal actions
    are the full list the server sends a connection without the features, and its fold
    (``applyLegalDelta``) gives what the Python clients' (``apply_legal_delta``) gives."""
    from clients.view import apply_legal_delta

    url = ws_url(server)
    creator = await open_client(url, clients)
    await creator.hello()
    ack = await creator.command("create_encounter", name="Map duel", combatants=ARENA,
                                map=ARENA_MAP)
    gm_token = ack["result"]["gm_token"]
    full = await open_client(url, clients)
    await full.hello(gm_token, features=["cursor"])
    delta = await open_client(url, clients)
    delta.keep_wire = True
    await delta.hello(gm_token)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={gm_token}")
    await live(gm)
    features = await gm.evaluate("window.stablemaster.table.welcome.features")
    # the package's features and presence, as the server lists them
    from clients.client import REFERENCE_FEATURES
    from protocol.messages import FEATURES

    assert features == [f for f in FEATURES if f in REFERENCE_FEATURES or f == "presence"]

    async def page_has_the_full_list() -> None:
        # (with legal_changed the page is sent legal actions only when they change: it is
        # waited for by its list, and its turn_id is one the server holds for the turn)
        await full.command("ping")
        await gm.wait_for_function(
            "l => JSON.stringify(window.stablemaster.table.legal) === l",
            arg=json.dumps(full.legal, separators=(",", ":"), ensure_ascii=False), timeout=5000)
        assert await gm.evaluate("window.stablemaster.table.legal") == full.legal

    await full.command("start_encounter")
    await page_has_the_full_list()
    for x, y in ((1, 1), (0, 1)):  # the dog and Twilight trade places of their own
        current = await wait_current(full)
        if current == "twilight":
            await full.command("act", combatant="twilight", action="move",
                               args={"path": [[x, y]]})
            await page_has_the_full_list()
        await full.command("act", combatant=current, action="end_turn")
        await page_has_the_full_list()
    await full.command("act", combatant=await wait_current(full), action="delay")
    await page_has_the_full_list()

    # the same deltas, applied by the page's fold and by the Python clients'
    inner = [m for f in delta.wire for m in (f["messages"] if f["type"] == "batch" else [f])]
    legal = [m for m in inner if m["type"] in ("legal_actions", "legal_actions_delta")]
    assert any(m["type"] == "legal_actions_delta" for m in legal)
    previous: list[dict[str, Any]] = []
    for m in legal:
        if m["type"] == "legal_actions":
            previous = m["actions"]
            continue
        ours = apply_legal_delta(previous, m)
        theirs = await gm.evaluate(
            "async ([p, d]) => (await import('/table/model.js')).applyLegalDelta(p, d)",
            [previous, m["actions"]])
        assert theirs == ours
        previous = ours
    assert previous == full.legal


# Whatever sticks out of its panel on the right (a panel that scrolls sideways holds it).
STICKING_OUT = """sel => [...document.querySelectorAll(sel)].filter(e => {
    const box = e.closest('fieldset, main > section').getBoundingClientRect();
    return e.getBoundingClientRect().right > box.right + 0.5;
}).map(e => e.textContent)"""


async def test_at_phone_size_nothing_makes_the_page_wider_than_the_screen(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """On a phone an action's long label wraps inside its panel, and the GM's roster and the
    social scene's table scroll in their panels: the page is as wide as the screen, so that
    nothing (the roster's Hide and Invite, a statement) is cut off at its edge."""
    url = ws_url(server)
    table = await create_table(url, clients, GARDEN)
    await table.gm.command("set_social_event", rating=12, organizer="blueblood",
                           circle="canterlot high society", topic="the Grand Galloping Gala")
    await table.gm.command("size_argument", combatant="twilight", size="large",
                           text="the Princess invited us")
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=PHONE)
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=PHONE)
    for page in (gm, player):
        await live(page)
    await table.gm.command("start_encounter")
    # in a debate the turn offers the social maneuvers first, attacks under "More…"
    turn = ".actions-panel fieldset.turn"
    await gm.wait_for_selector(f"{turn} details.more")
    first = await gm.eval_on_selector_all(f"{turn} .buttons.first button[data-action]",
                                          "bs => bs.map(b => b.dataset.action)")
    assert "attack" not in first and "end_turn" in first, first
    await gm.click(f"{turn} details.more > summary")
    await gm.wait_for_selector('.actions-panel button[data-action="attack"]')
    await player.wait_for_selector(".social-panel table.social li[data-argument]")
    await gm.screenshot(path=artifacts / "gm-phone.png", full_page=True)
    await player.screenshot(path=artifacts / "player-phone.png", full_page=True)
    for page in (gm, player):
        assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    label = await gm.inner_text('.actions-panel button[data-action="attack"]')
    assert label == "Attack (melee, ranged, unarmed or natural)"
    assert await gm.evaluate(STICKING_OUT, ".actions-panel button, .actions-panel select") == []
    # the roster's last column is there, in its panel
    await gm.locator('button.invite[data-combatant="twilight"]').scroll_into_view_if_needed()
    await gm.click('button.invite[data-combatant="twilight"]')
    await gm.wait_for_selector(".links-panel input.link")


async def action_time_table(url: str, clients: list[Client]) -> Table:
    """The shipped Action Time ambush, its GM, an invite per pony and a spectator link."""
    mill = yaml.safe_load((ROOT / "server/examples/action-time-ponies-vs-diamond-dogs.yaml")
                          .read_text())
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name=mill["name"], ruleset="action_time",
                             combatants=mill["combatants"])
    gm = await join(url, ack["result"]["gm_token"], clients)
    table = Table(encounter=ack["result"]["encounter"], gm_token=ack["result"]["gm_token"], gm=gm)
    for c in mill["combatants"]:
        if c["kind"] == "pc":
            invite = await gm.command("issue_invite", combatants=[c["id"]])
            table.tokens[c["id"]] = invite["result"]["token"]
    table.spectator_token = (await gm.command("issue_spectator_link"))["result"]["token"]
    return table


async def test_the_overlay_says_health_for_action_time_as_the_table_does(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """The spectator overlay reads the rulesets' words as the table's pages do: an Action Time
    combatant's Health is "Health" on the overlay too, not "fatigue"."""
    url = ws_url(server)
    table = await action_time_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    watch = await pages.open(f"{base}/watch?spectate={table.spectator_token}")
    player = await pages.open(f"{base}/table/#token={table.tokens['fluttershy']}")
    await live(player)
    await watch.wait_for_selector("#order li[data-combatant=fluttershy] .fatigue")
    await table.gm.command("adjust_combatant", combatant="fluttershy", fatigue=6,
                           reason="a fall")
    for page in (player, watch):
        await page.wait_for_selector(".log >> text=Fluttershy: GM: a fall. Now: Health 6/10.")
    # the override's own line too (it read "GM sets fatigue of Fluttershy (fatigue 6)")
    await player.wait_for_selector(
        ".log >> text=The GM overrides for Fluttershy: GM sets Health of Fluttershy")
    bar = watch.locator("#order li[data-combatant=fluttershy] .fatigue")
    assert await bar.get_attribute("title") == "Health 6/10"
    await watch.screenshot(path=artifacts / "spectator-action-time.png", full_page=True)


async def test_the_overlay_scales_to_1080p_with_a_legend_and_an_npcs_band_in_words(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """``&size=1080p`` scales the overlay to a stream's canvas (token labels 18 px); its legend
    names every token and says how each stands: an NPC's fatigue points stay behind the GM's
    screen, its band is shown in the ruleset's words (R105: "tiring", then "winded" at half),
    and a combatant out of the fight is said to be. Nothing on it says the NPC's points."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await gm.command("set_map", map={"width": 8, "height": 5})
    for cid, at in (("twilight", [1, 1]), ("dash", [2, 1]), ("dog", [5, 2])):
        await gm.command("place_combatant", combatant=cid, at=at)
    base = f"http://127.0.0.1:{server.settings.port}"
    watch = await pages.open(f"{base}/watch?spectate={table.spectator_token}"
                             "&transparent=1&size=1080p", size=(1920, 1080))
    legend = watch.locator("#legend li[data-combatant=dog]")
    await legend.locator(".how >> text=fresh").wait_for()
    size = await watch.locator(".map .token[data-combatant=twilight]").evaluate(
        "el => parseFloat(getComputedStyle(el).fontSize)")
    assert size == 18, size  # (a label of two letters, TS)
    # each square as large as the stylesheet says, with nothing shown in it but its token
    # (its words for a screen reader are not)
    grid = await watch.locator(".map").bounding_box()
    square = await watch.locator(".map .sq").first.bounding_box()
    assert grid is not None and square is not None
    assert abs(grid["height"] - 5 * square["height"]) < 2 and square["height"] <= 60, square
    # a spectator never gets the dog's points, only their band
    state = await watch.evaluate("window.stablemaster.table.combatants.get('dog').vitals")
    assert state["fatigue"] is None and state["band"] == "full"
    full = next(c for c in gm.snapshot["state"]["combatants"] if c["id"] == "dog")
    top = full["vitals"]["fatigue_max"]
    await gm.command("adjust_combatant", combatant="dog", fatigue=top - 1, reason="a graze")
    await legend.locator(".how >> text=tiring").wait_for()
    await watch.locator("#order li[data-combatant=dog] .badge.band >> text=tiring").wait_for()
    await gm.command("adjust_combatant", combatant="dog", fatigue=top // 2, reason="a blow")
    await legend.locator(".how >> text=winded").wait_for()
    await gm.command("adjust_combatant", combatant="twilight", condition="unconscious",
                     reason="a fall")
    await watch.locator("#legend li.down[data-combatant=twilight] >> text=out of the fight"
                        ).wait_for()
    assert await watch.locator(".map .token.down[data-combatant=twilight]").count() == 1
    assert str(top // 2) not in await watch.locator("#order li[data-combatant=dog]").inner_text()
    # nor does the GM's audited override say them (it did: "(fatigue points 9)")
    log = await watch.locator(".log").inner_text()
    assert "The GM overrides for Diamond Dog: GM sets fatigue of Diamond Dog. Reason: a graze" \
        in log, log
    assert f"points {top - 1}" not in log and f"points {top // 2}" not in log, log
    await watch.screenshot(path=artifacts / "spectator-1080p.png")


async def test_an_entrys_options_are_choices_in_its_form_a_stunt_and_a_prepared_action(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """The fields an entry's ``options`` name are chosen in its form: an Action Time stunt's
    kind, the action Prepare holds back and its trigger (without them the server refused the
    click: "args.stunt is required")."""
    url = ws_url(server)
    table = await action_time_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    await live(gm)
    await table.gm.command("start_encounter")
    actor = await wait_current(table.gm)
    stunt = gm.locator(f'form.act[data-action="stunt"][data-combatant="{actor}"]')
    await stunt.wait_for()
    choices = await stunt.locator("select.stunt option").evaluate_all(
        "os => os.map(o => o.value)")
    assert choices == ["", "skirmish", "knock_prone"]
    target = "brute" if actor in table.tokens else "applejack"
    await stunt.locator("select.target").select_option(target)
    await stunt.locator("select.stunt").select_option("knock_prone")
    await stunt.locator("button").click()
    name = await gm.evaluate("id => window.stablemaster.table.nameOf(id)", actor)
    await gm.wait_for_selector(f".log >> text=knocked prone by {name}")
    prepare = gm.locator(f'form.act[data-action="prepare"][data-combatant="{actor}"]')
    await prepare.locator("select.action").select_option("defend")
    await prepare.locator("input.trigger").fill("when the dogs charge")
    await prepare.locator("button").click()
    await gm.wait_for_selector(".log >> text=readies defend: when the dogs charge")
    assert await gm.locator(f'fieldset[data-combatant="{actor}"] .error').inner_text() == ""
    await gm.screenshot(path=artifacts / "gm-action-time-options.png", full_page=True)


async def test_an_action_time_stunt_is_aimed_at_an_enemy_chosen_by_the_user(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """Skirmish and Knock Prone are used on an enemy ("any enemy who uses the Skirmish or Knock
    Prone stunts", STAND FIRM): the stunt's form preselects no one (it preselected an ally)
    and lists the enemies first."""
    url = ws_url(server)
    table = await action_time_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['applejack']}")
    await live(player)
    await table.gm.command("start_encounter")
    target = player.locator('form.act[data-action="stunt"][data-combatant="applejack"] '
                            "select.target")
    await target.wait_for()
    assert await target.input_value() == ""
    options = await target.locator("option").evaluate_all("os => os.map(o => o.textContent)")
    assert options[0] == "choose a target…"
    assert sorted(options[1:3]) == ["Diamond Dog Brute", "Diamond Dog Digger"]
    assert all(o.endswith("(ally)") for o in options[3:])


async def test_an_attacks_weapon_is_first_one_the_attack_takes(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """Twilight's sheet lists her magic bolt (ranged) before her hoof: a melee attack, charge
    or all-out attack offers the hoof first (the bolt, chosen at first, was refused: "All-out
    attack needs a melee weapon"), a ranged attack the bolt; the others stay choices."""
    url = ws_url(server)
    table = await action_time_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    await live(gm)
    await table.gm.command("start_encounter")
    while (actor := await wait_current(table.gm)) != "twilight":
        await table.gm.command("act", combatant=actor, action="end_turn")
    chosen = {}
    for action in ("melee_attack", "charge", "all_out_attack", "ranged_attack"):
        weapon = gm.locator(f'form.act[data-action="{action}"][data-combatant="twilight"] '
                            "select.weapon")
        await weapon.wait_for()
        chosen[action] = (await weapon.input_value(), await weapon.locator("option").count())
    assert chosen == {"melee_attack": ("hoof", 2), "charge": ("hoof", 2),
                      "all_out_attack": ("hoof", 2), "ranged_attack": ("magic bolt", 2)}
    form = gm.locator('form.act[data-action="all_out_attack"][data-combatant="twilight"]')
    await form.locator("select.target").select_option("brute")
    await form.locator("button").click()
    await gm.wait_for_selector(".log >> text=Twilight Sparkle goes all out against "
                               "Diamond Dog Brute with hoof")


async def test_a_rulings_required_field_is_asked_for_before_anything_is_sent(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """A field a GM tool labels "(required)" (the override's reason, an effect's name) is
    required in the form: the browser asks for it and nothing is sent (the server's refusal
    was shown raw: "invalid_payload: Object missing required field `reason`")."""
    url = ws_url(server)
    table = await action_time_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    await live(gm)
    override = gm.locator('form.tool[data-command="adjust_combatant"]')
    await override.locator("select[name=combatant]").select_option("fluttershy")
    await override.locator("input[name=fatigue]").fill("7")
    await override.locator("button").click()
    reason = override.locator("input[name=reason]")
    assert await reason.evaluate("el => el.validity.valueMissing")
    await table.gm.command("ping")  # anything the page sent has been answered
    assert await override.locator(".error").inner_text() == ""
    assert "The GM overrides" not in await gm.inner_text(".log")
    await reason.fill("a fall")
    await override.locator("button").click()
    await gm.wait_for_selector(".log >> text=Fluttershy: GM: a fall. Now: Health 7/10.")
    # the form says it was done (the log has the rest)
    assert await override.locator(".done").inner_text() == \
        "Override: done for Fluttershy (see the log)"
    await table.gm.command("start_encounter")
    effect = gm.locator('form.tool[data-command="add_effect"] input[name=name]')
    await effect.wait_for()
    assert await effect.get_attribute("required") == ""


LOG_LINES = "[...document.querySelectorAll('.log .line')].map(l => l.textContent)"


async def test_a_reloaded_page_and_a_late_spectator_show_the_log_as_it_was(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """The log is read back from the server (get_history): a player who reloads mid-scene
    sees the same lines as before; a spectator who joins in round 3 sees rounds 1 and 2.
    The state the pages show is the server's (the view feature)."""
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}")
    await live(player)
    # a connection of the same credential says where the page must be once it has it all
    reference = await open_client(url, clients)
    await reference.hello(table.tokens["twilight"], features=[*FEATURES, "cursor"])

    async def caught_up_with(page: Any, client: Client) -> None:
        await table.gm.command("ping")
        await caught_up(client)
        last = [m for m in client.messages if m["type"] == "event"][-1]["cursor"]
        await page.wait_for_function("c => window.stablemaster.table.cursor === c", arg=last)

    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 4)
    await caught_up_with(player, reference)
    assert await player.evaluate("window.stablemaster.table.viewing()")
    before = await player.evaluate(LOG_LINES)
    assert len(before) > 10
    await player.reload()
    await live(player)
    await caught_up_with(player, reference)
    await player.wait_for_function(f"document.querySelectorAll('.log .line').length >= "
                                   f"{len(before)}")
    after = await player.evaluate(LOG_LINES)
    assert after == before
    await player.screenshot(path=artifacts / "player-reloaded.png", full_page=True)
    # into round 3, then a spectator opens the overlay
    def rounds() -> int:
        return max((e["event"]["round"] for e in table.gm.events()
                    if e["event"]["kind"] == "round_started"), default=0)

    while rounds() < 3:
        await play_turns(table.gm, {}, 1)
    watch = await pages.open(f"{base}/watch?spectate={table.spectator_token}")
    # (the overlay's script may not have run yet when the page has loaded)
    await watch.wait_for_function("window.stablemaster?.table?.log.some(l => l.text === "
                                  "'Round 3 begins.')")
    # (the overlay shows the last lines; its log holds them all)
    lines = await watch.evaluate("window.stablemaster.table.log.map(l => l.text)")
    assert "Round 1 begins." in lines and "Round 2 begins." in lines
    assert not any("Lurking" in line for line in lines)
    # the state the overlay shows is the spectator's snapshot, patched by the server
    spectator = await open_client(url, clients)
    await spectator.hello(table.spectator_token, features=[*FEATURES, "cursor"])
    await play_turns(table.gm, {}, 2)
    await caught_up_with(watch, spectator)
    fresh = await Client.open(url)
    clients.append(fresh)
    await fresh.hello(table.spectator_token)
    snapshot = await fresh.wait_for(lambda m: m["type"] == "snapshot")
    assert await watch.evaluate("window.stablemaster.table.state") == snapshot["state"]
    await watch.screenshot(path=artifacts / "spectator-late.png", full_page=True)
    # the same overlay as a replay link: the encounter played back, the same log and state
    shown = await watch.evaluate("window.stablemaster.table.log.map(l => l.text)")
    replayed = await pages.open(f"{base}/watch?spectate={table.spectator_token}&replay=1000")
    await replayed.wait_for_function("document.getElementById('status').dataset.state "
                                     "=== 'replayed'")
    assert await replayed.evaluate("window.stablemaster.table.log.map(l => l.text)") == shown
    assert await replayed.evaluate("window.stablemaster.table.state") == snapshot["state"]
    assert "replay over" in await replayed.inner_text("#status")
    await replayed.screenshot(path=artifacts / "spectator-replay.png", full_page=True)


async def test_one_origin_policy_for_the_websocket_and_the_schemas(
        redis_server: RedisProcess, browser: Any, clients: list[Client]) -> None:
    """A page of another origin (here another port) opens ``/ws`` and fetches an argument
    schema when the server allows its origin (``--allow-origin``), and is refused both
    otherwise; the server's own pages, and clients that are no browser page, are never
    concerned."""
    import http.server
    import threading

    class Blank(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>another site</title>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Blank)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    other = f"http://127.0.0.1:{site.server_address[1]}"
    probe = """async (base) => {
        let fetched;
        try {
          const r = await fetch(`${base}/schemas/args/command.submit_roll.json`);
          fetched = r.ok && !!(await r.json());
        } catch (e) { fetched = false; }
        const opened = await new Promise((done) => {
          const ws = new WebSocket(base.replace("http", "ws") + "/ws");
          ws.onopen = () => { ws.close(); done(true); };
          ws.onerror = () => done(false);
        });
        return { fetched, opened };
    }"""
    context = await browser.new_context()
    try:
        for allowed in ((other,), ("https://elsewhere.example",)):
            server = Server(settings_for(redis_server.url, allow_origins=allowed))
            await server.start()
            try:
                base = f"http://127.0.0.1:{server.settings.port}"
                page = await context.new_page()
                await page.goto(f"{other}/")
                got = await page.evaluate(probe, base)
                assert got == ({"fetched": True, "opened": True} if allowed == (other,)
                               else {"fetched": False, "opened": False}), (allowed, got)
                own = await context.new_page()  # the server's own page: always allowed
                await own.goto(f"{base}/table/")
                assert await own.evaluate(probe, base) == {"fetched": True, "opened": True}
                table = await open_client(ws_url(server), clients)  # no Origin: allowed
                await table.hello()
            finally:
                await server.stop()
    finally:
        await context.close()
        site.shutdown()
        site.server_close()


async def test_the_gm_console_shows_the_screens_turn_and_ends_it(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """With anonymous hidden turns (R99) the order on the GM's console and on a player's page
    holds the GM's screen on its count, marked while its turn runs; nobody acts behind it,
    so the GM ends its turn from the console, and the round goes on."""
    combatants = [c for c in yaml.safe_load(YAML)["combatants"] if not c.get("hidden")]
    table = await create_table(ws_url(server), clients, combatants,
                               anonymous_hidden_turns=True, screen_count=-100)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}")
    for page in (gm, player):
        await live(page)
    await gm.click('button[data-action="start_encounter"]')
    await gm.wait_for_function("window.stablemaster.table.round === 1")
    for page in (gm, player):  # last, on its count: after everyone's -100 cannot tie
        entry = page.locator(".order li").last
        await entry.wait_for()
        assert await entry.get_attribute("data-combatant") == "screen"
        assert "Someone behind the GM's screen" in await entry.inner_text()
        assert "-100" in await entry.inner_text()
    while (actor := await current_of(gm)) != "screen":
        assert actor is not None
        await gm.click(f'button[data-action="end_turn"][data-combatant="{actor}"]')
        await gm.wait_for_function(f"window.stablemaster.table.current !== {actor!r} && "
                                   "window.stablemaster.table.current != null")
    await player.wait_for_selector('.order li.current[data-combatant="screen"]')
    await gm.screenshot(path=artifacts / "gm-screen-turn.png", full_page=True)
    await gm.click('button[data-action="end_turn"][data-combatant="screen"]')
    await gm.wait_for_function("window.stablemaster.table.round === 2")
    await player.wait_for_function("window.stablemaster.table.round === 2")
    assert await current_of(gm) != "screen"


async def test_a_refusal_is_said_at_its_control_and_what_the_schema_refuses_is_not_sent(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """On a phone, the player's turn is on the first screen, with what is left of its budget.
    A move the rules refuse (longer than the speed) says why right under the Move button, in
    words (no error code in front); arguments the entry's schema refuses (``path=10,0`` typed
    in "more arguments": a path is a list of squares) are not sent at all, and the page says
    what is wrong, as a sentence, at the same place."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await gm.command("set_map", map={"width": 12, "height": 3})
    for cid, at in (("twilight", [0, 0]), ("dash", [0, 2]), ("applejack", [1, 2]),
                    ("fluttershy", [2, 2]), ("dog", [11, 2])):
        await gm.command("place_combatant", combatant=cid, at=at)
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}", size=PHONE)
    await live(player)
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    move = 'form[data-action="move"][data-combatant="twilight"]'
    await player.wait_for_selector(move)
    # the turn on the first screen of a phone, the budget with it
    box = await player.locator(move).bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE[1], box
    await player.wait_for_selector('.budget .slot.free[data-slot="move"]')
    events = len(gm.events())

    # too far: the server refuses, and says so under the button
    for x in range(1, 9):
        await player.click(f'.map .sq[data-x="{x}"][data-y="0"]')
    await player.click(f"{move} button[type=submit]")
    said = player.locator(f"{move} + p.error.at-control")
    await said.wait_for()
    text = await said.inner_text()
    assert text[0].isupper() and "illegal_action" not in text and "invalid_payload" not in text
    assert "speed" in text or "squares" in text, text
    where = await said.bounding_box()
    assert where is not None and 0 <= where["y"] - (box["y"] + box["height"]) < 60, (where, box)
    await player.screenshot(path=artifacts / "player-phone-refused-move.png")

    # the map zooms for a fingertip and pans in its panel: the page stays as wide as the screen
    before = await player.locator(".map .sq").first.bounding_box()
    await player.click(".map-panel button.zoom.in")
    await player.click(".map-panel button.zoom.in")
    after = await player.locator(".map .sq").first.bounding_box()
    assert before is not None and after is not None
    assert after["width"] >= 2 * before["width"] - 1 and after["width"] >= 40, (before, after)
    assert await player.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    await player.click(".map-panel button.zoom.out")
    await player.click(".map-panel button.zoom.out")

    # what the schema refuses is never sent
    await player.fill('fieldset.turn input.args', "path=10,0")
    await player.click(f"{move} button[type=submit]")
    await said.locator("text=Path must be a list").wait_for()
    assert await said.get_attribute("data-code") == "checked_here"
    await caught_up(gm)
    assert len(gm.events()) == events  # (the refused move made no event either)


async def test_the_map_shades_where_the_move_can_go_and_a_path_picked_by_keys_is_taken(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """On her turn the player's map shades exactly the squares the server's ``get_reach``
    lists (R106), each labelled with what is left after a move there; every square takes the
    focus with the arrow keys, Enter on a square the move reaches takes the server's path to
    it, and Move goes there."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await set_out(gm, {"width": 8, "height": 4, "difficult": [[1, 0], [1, 1]],
                       "walls": [[[4, 0], [4, 2]]]},
                  {"twilight": [0, 0], "dash": [0, 3], "applejack": [1, 3], "fluttershy": [2, 3],
                   "dog": [7, 3]})
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}")
    await live(player)
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    await player.wait_for_selector(".map .sq.reach")
    asker = await join(url, table.tokens["twilight"], clients)
    answer = (await asker.command("get_reach", combatant="twilight"))["result"]
    listed = {tuple(s["at"]) for s in answer["squares"]}
    shaded = await player.eval_on_selector_all(
        ".map .sq.reach", "els => els.map(e => [Number(e.dataset.x), Number(e.dataset.y)])")
    assert {tuple(s) for s in shaded} == listed and len(listed) > 5
    cost = {tuple(s["at"]): s["cost"] for s in answer["squares"]}
    label = await player.inner_text('.map .sq[data-x="2"][data-y="0"] .sr-only')
    assert label is not None and f"{6 - cost[(2, 0)]} of 6 squares left" in label, label
    assert await player.locator(".map .sq").count() == 32
    assert await player.locator(".map .sq[tabindex='0']").count() == 1

    # from her token, three squares right by the keys (across the difficult terrain), Enter
    await player.focus('.map .sq[data-x="0"][data-y="0"]')
    for _ in range(3):
        await player.keyboard.press("ArrowRight")
    assert await player.evaluate("document.activeElement.dataset.x") == "3"
    await player.keyboard.press("Enter")
    path = await player.evaluate("window.stablemaster.table && "
                                 "document.querySelector('.path-text').textContent")
    wanted = next(s for s in answer["squares"] if s["at"] == [3, 0])
    assert path == "path: " + " → ".join(f"({x},{y})" for x, y in wanted["path"]), path
    await player.click('form[data-action="move"][data-combatant="twilight"] button[type=submit]')
    await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "combatant_moved")
    await player.wait_for_function(
        "JSON.stringify(window.stablemaster.table.positions.get('twilight')) === '[3,0]'")
    await player.screenshot(path=artifacts / "player-reach.png", full_page=True)


async def test_the_targets_an_attack_can_reach_are_marked_before_the_click(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """On her turn the player's attack marks, before anything is sent, whom it can reach as
    the server's ``get_aim`` says (R107): in the target list, the foe behind the blocked
    squares says "no line of effect" and, picked, the reason under the control; on the map its
    token has a dotted ring (the map rings the foes only: the allies' entries say it)."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await set_out(gm, {"width": 8, "height": 4, "blocked": [[4, 0], [4, 1], [4, 2], [4, 3]]},
                  {"twilight": [0, 0], "dash": [1, 0], "applejack": [0, 3], "fluttershy": [2, 3],
                   "dog": [7, 3]})
    base = f"http://127.0.0.1:{server.settings.port}"
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}")
    await live(player)
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    form = 'form.act[data-action="attack"][data-combatant="twilight"]'
    await player.wait_for_selector(f'{form} option.unreachable[value="dog"]', state="attached")
    dog = await player.inner_text(f'{form} option[value="dog"]')
    assert dog.endswith("no line of effect"), dog
    assert "out of reach" in await player.inner_text(f'{form} option[value="applejack"]')
    assert await player.locator(f'{form} option[value="dash"].unreachable').count() == 0
    await player.wait_for_selector('.map .token.aim-no[data-combatant="dog"]')
    assert await player.locator('.map .token.aim-ok, .map .token.aim-no').count() == 1
    said = await player.inner_text('.map .sq[data-x="7"][data-y="3"] .aim-said')
    assert "cannot be attacked" in said and "line of effect" in said, said
    await player.select_option(f"{form} select.target", "dog")
    why = await player.inner_text(f"{form} .aim-why")
    assert "total cover" in why and "line of effect" in why, why
    await caught_up(gm)
    assert not [m for m in gm.events() if m["event"]["kind"] == "action_taken"]  # none sent
    await player.screenshot(path=artifacts / "player-aim.png", full_page=True)


async def test_a_player_asks_to_take_an_attack_back_and_the_gm_takes_it_back(
        server: Server, pages: Pages, artifacts: Path, clients: list[Client]) -> None:
    """Undo at the table (R108): the player attacks, asks the GM to take it back from its
    turn's controls, the GM's console shows the request and takes it back; both pages show the
    turn's budget whole again and the attack's lines struck through in the log (kept); the
    GM's own "Undo the last command" takes back the next one."""
    url = ws_url(server)
    table = await create_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=(1366, 768))
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}")
    for page in (gm, player):
        await live(page)
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "twilight")
    form = 'form.act[data-action="attack"][data-combatant="twilight"]'
    await player.wait_for_selector(form)
    await player.select_option(f"{form} select.target", "dog")
    await player.click(f"{form} button[type=submit]")
    ask = player.locator('button.request-undo[data-combatant="twilight"]')
    await ask.click()
    await player.locator(".undo-waiting >> text=waiting for the answer").wait_for()
    await gm.locator(".undo-request >> text=Twilight Sparkle's player asks").wait_for()
    await gm.click(".undo-request button.grant")
    for page in (gm, player):
        await page.wait_for_function(
            "(window.stablemaster.table.state.turn || {}).budget?.standard === true")
        await page.wait_for_selector(".log .line.taken-back.action_taken")
        await page.wait_for_selector(".log .line.commands_undone")
    last = await player.eval_on_selector_all(".log .line", "els => els.at(-1).dataset.kind")
    assert last == "commands_undone"  # (the log goes on from the undo: no line of its own)
    assert await player.inner_text(".undo-waiting") == ""
    assert await gm.locator(".undo-request").count() == 0
    await player.screenshot(path=artifacts / "player-undone.png", full_page=True)
    # the GM's own undo: Twilight moves, the GM takes the move back
    await player.click('form[data-action="fall_prone"] button[type=submit]')
    await gm.wait_for_function("window.stablemaster.table.combatants.get('twilight')"
                               ".vitals.prone === true")
    await gm.click(".undo button.undo-last")
    await player.wait_for_function("window.stablemaster.table.combatants.get('twilight')"
                                   ".vitals.prone === false")
    assert await gm.inner_text(".undo .error") == ""


async def test_the_gm_console_shows_who_is_connected_to_each_seat(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """The roster says of each player character whether its player is connected (the
    ``presence`` feature): not before the player's page opens, connected while it is open,
    not once it is closed."""
    url = ws_url(server)
    table = await create_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    await live(gm)
    badge = gm.locator('.roster-panel .badge.presence[data-combatant="twilight"]')
    await badge.locator("text=not connected").wait_for()
    player = await pages.open(f"{base}/table/#token={table.tokens['twilight']}")
    await live(player)
    await gm.locator('.roster-panel .badge.presence.online[data-combatant="twilight"]'
                     ).wait_for(timeout=10_000)
    assert "connected" in await badge.inner_text()
    assert await gm.locator('.roster-panel .badge.presence.online[data-combatant="dash"]'
                            ).count() == 0
    await player.context.close()
    await badge.locator("text=not connected").wait_for(timeout=10_000)


async def test_the_roster_changes_fatigue_points_and_puts_an_npc_out_of_the_fight(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """The roster's quick changes: the minus button takes a fatigue point off (an audited
    override, its reason the GM's quick change), the plus button gives it back, and an NPC
    goes out of the fight (unconscious) and back, each as the server records it."""
    url = ws_url(server)
    table = await create_table(url, clients)
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    await live(gm)
    row = '.roster-panel tr[data-combatant="dog"]'
    points = gm.locator(f"{row} .points")
    await points.wait_for()
    top = int((await points.inner_text()).split("/")[1])
    await gm.click(f"{row} button.minus")
    await gm.locator(f"{row} .points >> text={top - 1}/{top}").wait_for()
    await gm.wait_for_selector(".log >> text=Reason: the GM's quick change: fatigue -1")
    await gm.click(f"{row} button.plus")
    await gm.locator(f"{row} .points >> text={top}/{top}").wait_for()
    await gm.click(f"{row} button.down")
    await gm.wait_for_selector(f"{row} button.up")
    condition = await gm.evaluate(
        "window.stablemaster.table.combatants.get('dog').vitals.condition")
    assert condition[0] == "unconscious"
    await gm.click(f"{row} button.up")
    await gm.wait_for_selector(f"{row} button.down")
    assert await gm.locator(".roster-panel .error").inner_text() == ""


async def test_the_gm_consoles_main_loop_is_on_one_laptop_screen_once_the_scene_runs(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """Setting up, the roster comes first; once the scene runs, the initiative, the current
    turn's controls and the map are side by side on one 1366 x 768 screen."""
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("set_map", map={"width": 12, "height": 8})
    await table.gm.command("place_combatant", combatant="dog", at=[5, 2])
    base = f"http://127.0.0.1:{server.settings.port}"
    gm = await pages.open(f"{base}/table/#token={table.gm_token}", size=(1366, 768))
    await live(gm)
    await gm.wait_for_selector(".roster-panel tr[data-combatant]")
    roster = await gm.locator(".roster-panel").bounding_box()
    order = await gm.locator(".order-panel").bounding_box()
    assert roster is not None and order is not None and roster["y"] < order["y"]
    await table.gm.command("start_encounter")
    turn = await wait_current(table.gm)
    end = gm.locator(f'fieldset.turn button[data-action="end_turn"][data-combatant="{turn}"]')
    await end.wait_for()
    for where in (gm.locator(".order-panel ol.order li.current"), gm.locator(".map-panel .map"),
                  end):
        box = None
        for _ in range(50):  # (drawn again as the turn's messages come in: read once it stands)
            await where.wait_for(state="visible")
            box = await where.bounding_box()
            if box is not None:
                break
            await asyncio.sleep(0.1)
        assert box is not None and box["y"] + box["height"] <= 768, box
    assert await gm.locator(".roster-panel").bounding_box() != roster  # (moved after them)
    # in a fight the social scene's forms wait folded under Rulings; the GM may open them
    social = gm.locator('.tools-panel details.social-tools form.tool[data-command="set_attitude"]')
    assert await social.count() == 1 and not await social.is_visible()
    assert await gm.locator('.tools-panel > div form.tool[data-command="adjudicate"]').is_visible()
    await gm.click(".tools-panel details.social-tools summary")
    await social.wait_for()


async def test_the_gm_console_offers_a_replay_link_and_a_table_link_keeps_the_replay(
        server: Server, pages: Pages, clients: list[Client]) -> None:
    """Beside the spectators' overlay link, the GM console offers a replay link (the overlay
    playing the encounter back, 4 times as fast); a spectator link to the table page with
    ``replay`` and ``from_round`` opens the overlay as that replay, not the live one."""
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    base = f"http://127.0.0.1:{server.settings.port}"
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 6)  # into round 2
    gm = await pages.open(f"{base}/table/#token={table.gm_token}")
    await live(gm)
    replay = gm.locator(".links-panel ul.links li input.replay")
    await replay.wait_for()
    link = await replay.input_value()
    assert link == f"{base}/watch?spectate={table.spectator_token}&replay=4"
    assert await gm.locator(".links-panel ul.links li input.replay").count() == 1
    watch = await pages.open(link)
    await watch.wait_for_function("document.getElementById('status').dataset.state "
                                  "=== 'replayed'", timeout=20_000)
    lines = await watch.evaluate("window.stablemaster.table.log.map(l => l.text)")
    assert "Round 1 begins." in lines and "Round 2 begins." in lines
    # by the table page: the overlay, the replay and its round kept
    page = await pages.open(f"{base}/table/?spectate={table.spectator_token}"
                            "&replay=1000&from_round=2")
    await page.wait_for_url("**/watch?**")
    assert page.url == (f"{base}/watch?spectate={table.spectator_token}"
                        "&replay=1000&from_round=2")
    await page.wait_for_function("document.getElementById('status').dataset.state "
                                 "=== 'replayed'")
    lines = await page.evaluate("window.stablemaster.table.log.map(l => l.text)")
    assert "Round 2 begins." in lines and "Round 1 begins." not in lines
