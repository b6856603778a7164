"""The reference clients against a real server and Redis: the shipped examples (stat blocks and
battle maps), the web table's HTTP routes, the terminal client driven through a
pseudo-terminal (a move, an attack with its itemised roll), the bots and a bots-only demo
encounter that moves and fights on its map."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import re
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
import yaml

from clients import cli
from clients.client import Client, CommandError
from clients.view import TableView, drawing_to_map, map_lines, social_lines
from encounter.gm import parse_statblocks_yaml
from encounter.registry import declaration
from server import web
from server.app import Server
from tests.conftest import ROOT, settings_for, ws_url
from tests.helpers import create_table, join, kinds, open_client
from tests.redis_procs import RedisProcess

DUO: list[dict[str, Any]] = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 3},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 5},
    {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": 1},
    {"name": "Lurking Dog", "id": "lurker", "kind": "npc", "initiative": 4, "hidden": True},
]


# -- example content ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", web.example_names())
async def test_each_example_is_valid_and_plays(name: str, server: Server,
                                               clients: list[Client]) -> None:
    text = web.example_text(name)
    data = yaml.safe_load(text)
    assert data["name"] and data["description"] and data["ruleset"] in ("dramatic", "action_time")
    assert name.startswith({"dramatic": "dramatic-", "action_time": "action-time-"}[
        data["ruleset"]])
    blocks = parse_statblocks_yaml(text)
    ids = [b.id for b in blocks]
    assert all(ids) and len(set(ids)) == len(ids), "every block names a unique id"
    assert sum(b.kind == "pc" for b in blocks) >= 2 and sum(b.kind == "npc" for b in blocks) >= 2
    for block in blocks:
        declaration(data["ruleset"]).rules.validate_stats(block.stats)
    # the server takes it as it is, and a round can be played
    anon = await open_client(ws_url(server), clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name=data["name"], ruleset=data["ruleset"],
                             combatants_yaml=text, map=web.example_map(data))
    gm = await join(ws_url(server), ack["result"]["gm_token"], clients)
    await gm.command("start_encounter")
    for _ in range(40):  # end turns until round 2 begins
        if any(m["event"]["kind"] == "round_started" and m["event"]["round"] == 2
               for m in gm.events()):
            break
        acting = [a["combatant"] for a in gm.legal if a["action"] == "end_turn"]
        assert acting, gm.legal
        await gm.command("act", combatant=acting[0], action="end_turn")
    round_one = {m["event"]["combatant"] for m in gm.events()
                 if m["event"]["kind"] == "turn_started" and m["event"]["round"] == 1}
    assert round_one == set(ids)


def test_every_example_is_listed_for_the_web_table() -> None:
    listed = {e["file"]: e for e in web.examples()}
    assert set(listed) == set(web.example_names()) and len(listed) >= 4
    assert {e["ruleset"] for e in listed.values()} == {"dramatic", "action_time"}


# -- HTTP routes of the web table --------------------------------------------------------------


def http_get(port: int, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


async def test_the_web_table_is_served_with_its_content_types(server: Server) -> None:
    port = server.settings.port
    get = asyncio.to_thread
    expect = {
        "/table/": ("text/html", "/table/app.js"),
        "/table": ("text/html", "/table/app.js"),
        "/table/app.js": ("text/javascript", "import"),
        "/table/conn.js": ("text/javascript", "since"),
        "/table/style.css": ("text/css", "{"),
        "/watch": ("text/html", "/table/watch.js"),
        "/table/examples.json": ("application/json", "dramatic-ponies-vs-diamond-dogs.yaml"),
        "/table/rulesets.json": ("application/json", '"title":"Action Time"'),
        "/table/examples/dramatic-ponies-vs-diamond-dogs.yaml": ("application/yaml", "combatants"),
    }
    for path, (ctype, needle) in expect.items():
        status, got, body = await get(http_get, port, path)
        assert (status, got.split(";")[0]) == (200, ctype), path
        assert needle in body, path
    for path in ("/table/nope.js", "/table/../app.py", "/table/%2e%2e/app.py", "/table/x/y.js",
                 "/table/examples/../demo.py", "/table/examples/missing.yaml", "/table/.hidden.js"):
        status, _, _ = await get(http_get, port, path)
        assert status == 404, path


# -- the terminal client, through a pseudo-terminal --------------------------------------------


class Pty:
    """A process on a pseudo-terminal, read without blocking the event loop."""

    def __init__(self, proc: asyncio.subprocess.Process, fd: int) -> None:
        self.proc, self.fd, self.out, self.mark = proc, fd, "", 0
        asyncio.get_running_loop().add_reader(fd, self._read)

    @classmethod
    async def spawn(cls, *args: str) -> Pty:
        master, slave = pty.openpty()
        proc = await asyncio.create_subprocess_exec(
            *args, stdin=slave, stdout=slave, stderr=slave, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"})
        os.close(slave)
        return cls(proc, master)

    def _read(self) -> None:
        try:
            self.out += os.read(self.fd, 65536).decode(errors="replace")
        except OSError:
            asyncio.get_running_loop().remove_reader(self.fd)

    async def expect(self, pattern: str, timeout: float = 10) -> re.Match[str]:
        """The first match of ``pattern`` after the previous match."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = re.compile(pattern).search(self.out, self.mark)
            if found:
                self.mark = found.end()
                return found
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no {pattern!r} in:\n{self.out[self.mark:]}")
            await asyncio.sleep(0.02)

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    async def close(self) -> int:
        with contextlib.suppress(ProcessLookupError):
            await asyncio.wait_for(self.proc.wait(), 10)
        asyncio.get_running_loop().remove_reader(self.fd)
        os.close(self.fd)
        return self.proc.returncode if self.proc.returncode is not None else -1


@pytest.fixture
async def ptys() -> AsyncIterator[list[Pty]]:
    started: list[Pty] = []
    yield started
    for p in started:
        if p.proc.returncode is None:
            p.proc.kill()
            await p.close()


async def test_a_player_plays_a_turn_from_the_terminal(server: Server, clients: list[Client],
                                                       ptys: list[Pty]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, DUO)
    term = await Pty.spawn(sys.executable, "-m", "clients.cli", "--url", url,
                           table.tokens["twilight"])
    ptys.append(term)
    await term.expect(r"Joined 'Test encounter' \(dramatic\) as player of Twilight Sparkle")
    await table.gm.command("start_encounter")
    while True:  # the GM plays the others until it is Twilight's turn
        acting = [a["combatant"] for a in table.gm.legal if a["action"] == "end_turn"]
        if acting == ["twilight"]:
            break
        await table.gm.command("act", combatant=acting[0], action="end_turn")
    # the server's words for each event, the dice in full: expression, each die, total, as
    # the server rolled them (told to the player once a turn it sees begins, when the hidden
    # lurker's came first), and the numbers itemised under the line
    await term.expect(r"Twilight Sparkle rolls initiative: 1d20\+3 \[d20: \d+\] = \d+\.")
    await term.expect(r"\(d20 \d+ · total \d+\)")
    await term.expect(r"Initiative: ")
    await term.expect(r"Twilight Sparkle — turn, round 1:")
    listing = await term.expect(r"(\d+)\) move: Move up to your speed")
    term.send(f"{listing.group(1)} trots to the window")  # by number, with a note
    await term.expect(r"  Twilight Sparkle: move: trots to the window")
    await term.expect(r"ok: move")
    term.send("attack dog")  # the target by name; the server picks the unarmed attack
    await term.expect(r"  Twilight Sparkle attacks Diamond Dog with unarmed: d20 \d+ .*= \d+ "
                      r"against Reflex Defense.*: (hit|miss|critical hit|automatic miss)")
    await term.expect(r"\(d20 \d+ · .* · total \d+\)")  # the roll itemised
    await term.expect(r"ok: attack")
    term.send("s")
    await term.expect(r"Twilight Sparkle\s+party\s+<- acting \[fatigue 10/10\]")
    term.send("end_turn")  # by name
    # when the hidden lurker's turn comes next, the player is told the end of its turn with
    # what follows it: the GM ends the lurker's turn meanwhile
    await table.gm.wait_until(lambda: not any(
        a["action"] == "end_turn" and a["combatant"] == "twilight" for a in table.gm.legal))
    if [a["combatant"] for a in table.gm.legal if a["action"] == "end_turn"] == ["lurker"]:
        await table.gm.command("act", combatant="lurker", action="end_turn")
    await term.expect(r"  Twilight Sparkle ends the turn\.")
    term.send("end_turn")
    await term.expect(r"\? no action 'end_turn' now")
    term.send("quit")
    assert await term.close() == 0
    kinds = [(m["event"]["kind"], m["event"].get("combatant")) for m in table.gm.events()]
    assert ("action_taken", "twilight") in kinds and ("turn_ended", "twilight") in kinds


def test_the_terminal_reads_squares_and_draws_the_map() -> None:
    assert cli._value("2,1;3,1") == [[2, 1], [3, 1]] == cli._value("[[2,1],[3,1]]")
    assert cli._value("7") == 7 and cli._value("magic bolt") == "magic bolt"
    view = TableView({"map": {"width": 3, "height": 2, "blocked": [[1, 0]],
                              "difficult": [[2, 1]]}, "positions": {"dog": [0, 1]},
                      "combatants": [{"id": "dog", "name": "Diamond Dog"}]})
    assert map_lines(view) == ["   012", " 0 .#.", " 1 D.~", "   D Diamond Dog (0,1)"]
    assert drawing_to_map(".#.\nD.~") == {"width": 3, "height": 2, "blocked": [[1, 0]],
                                          "difficult": [[2, 1]]}


def test_the_terminal_reads_social_arguments_and_shows_the_scene() -> None:
    args, bare = cli._split(["targets=bree,dog", "size=small", "white=true", "rating=null",
                             "we", "never", "met"])
    assert args == {"targets": ["bree", "dog"], "size": "small", "white": True, "rating": None}
    assert bare == ["we", "never", "met"]
    view = TableView({"combatants": [{"id": "ace", "name": "Ace",
                                      "vitals": {"mental": {"step": 1}}},
                                     {"id": "bree", "name": "Bree"}],
                      "arguments": {"arg1": {"owner": "ace", "size": "large",
                                             "text": "hear me"}},
                      "attitudes": {"bree": {"ace": "unfriendly"}}, "blocking": ["bree"],
                      "debate_over": True})
    lines = social_lines(view)
    assert "  Ace: mental 1/5, statements: [arg1] large 'hear me'" in lines
    assert "  Bree: mental 0/5, blocking" in lines
    assert "  Bree → Ace: unfriendly" in lines and "the debate is over" in lines


async def test_the_gm_starts_and_ends_the_scene_from_the_terminal(
        server: Server, clients: list[Client], ptys: list[Pty]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, DUO)
    link = f"http://127.0.0.1:{server.settings.port}/table/#token={table.gm_token}"
    term = await Pty.spawn(sys.executable, "-m", "clients.cli", link)
    ptys.append(term)
    await term.expect(r"as gm\. Type 'help'")
    await term.expect(r"Lurking Dog .*hidden")  # the GM sees the hidden combatant
    term.send("start_encounter")
    await term.expect(r"Lurking Dog rolls initiative: 1d20\+4 \[d20: \d+\] = \d+\.")
    await term.expect(r"ok: start_encounter")
    term.send("reveal lurker")
    await term.expect(r"Lurking Dog is revealed!")
    term.send("end_encounter the dogs fled")
    await term.expect(r"The scene ends: the dogs fled")
    term.send("check dice")  # the secret is revealed at the end: every roll checks out
    await term.expect(r"every server roll is the one the committed secret gives")
    term.send("q")
    assert await term.close() == 0


async def test_the_terminal_says_what_the_ruleset_calls_fatigue_points(
        server: Server, clients: list[Client], ptys: list[Pty]) -> None:
    """An Action Time combatant's Health reads "Health" in the terminal, as on the web table's
    pages: the client asks the server for its rulesets' words (``/table/rulesets.json``); the
    log's lines are the server's words, in the ruleset's terms too."""
    url = ws_url(server)
    example = yaml.safe_load((ROOT / "server/examples/action-time-ponies-vs-diamond-dogs.yaml")
                             .read_text(encoding="utf-8"))
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Mill", ruleset="action_time",
                             combatants=example["combatants"])
    gm = await join(url, ack["result"]["gm_token"], clients)
    link = f"http://127.0.0.1:{server.settings.port}/table/#token={ack['result']['gm_token']}"
    term = await Pty.spawn(sys.executable, "-m", "clients.cli", link)
    ptys.append(term)
    await term.expect(r"as gm\. Type 'help'")
    await term.expect(r"Fluttershy .*\[Health 10/10")
    await gm.command("adjust_combatant", combatant="fluttershy", fatigue=6, reason="a fall")
    await term.expect(r"Fluttershy: GM: a fall\. Now: Health 6/10")  # the server's words
    term.send("s")  # the state's vitals, in the terminal's
    await term.expect(r"Fluttershy .*\[Health 6/10")
    term.send("q")
    assert await term.close() == 0


# -- bots ------------------------------------------------------------------------------------


async def test_bots_play_every_seat_until_the_gm_bot_ends_the_scene(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, DUO)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clients.bot", "--url", url, "--pace", "0", "--start",
        "--end-after", "3", table.gm_token, table.tokens["twilight"], table.tokens["dash"],
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, out.decode()
    assert "bot finished" in out.decode()
    end = await table.gm.wait_for(lambda m: m["type"] == "event"
                                  and m["event"]["kind"] == "encounter_ended")
    # three whole rounds, unless the bots beat the dog first (the GM bot then ends the scene)
    last = max(m["event"]["round"] for m in table.gm.events()
               if m["event"]["kind"] == "round_started")
    rounds = range(1, 4) if "3 rounds" in (end["event"]["reason"] or "") else range(1, last)
    assert_turns_taken(table.gm, {"twilight", "dash", "dog", "lurker"}, rounds)


def assert_turns_taken(gm: Client, combatants: set[str], rounds: range) -> None:
    """Every combatant had its turn in each of these rounds, unless it was out of the fight
    (unconscious or dead) in that round, and each turn that started ended (the scene ended
    after them)."""
    events = [m["event"] for m in gm.events()]
    started: dict[int, list[str]] = {}
    out: dict[int, set[str]] = {}  # round -> combatants out of the fight at some time in it
    down: set[str] = set()
    round_ = 0
    for e in events:
        if e["kind"] == "round_started":
            round_ = e["round"]
            out.setdefault(round_, set()).update(down)
        elif e["kind"] == "turn_started":
            started.setdefault(e["round"], []).append(e["combatant"])
        elif e["kind"] == "vitals_changed":
            if e["condition"][0] == "active":
                down.discard(e["combatant"])
            else:
                down.add(e["combatant"])
                out.setdefault(round_, set()).add(e["combatant"])
    for r in rounds:
        expected = combatants - out.get(r, set())
        assert set(started.get(r, [])) >= expected, (r, started, out)
        assert len(started.get(r, [])) == len(set(started.get(r, []))), (r, started)
    opened: str | None = None
    for e in events[[e["kind"] for e in events].index("turn_started"):]:
        if e["kind"] == "turn_started":
            assert opened is None
            opened = e["combatant"]
        elif e["kind"] == "turn_ended":
            assert opened == e["combatant"]
            opened = None
    assert events[-1]["kind"] == "encounter_ended"


async def _next_scene(srv: Server) -> None:
    while srv.demo.scenes < 1:
        await asyncio.sleep(0.1)


async def test_a_bots_only_demo_encounter_plays_until_the_gm_ends_it(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    srv = Server(settings_for(redis_server.url, demo=True, demo_rulesets=("dramatic",),
                              demo_wait=0.0, demo_pace=0.0))
    await srv.start()
    try:
        await asyncio.wait_for(srv.demo.ready.wait(), 20)
        enc = srv.demo.encounters[0]
        watcher = await join(ws_url(srv), enc.bot_token, clients)  # sees all, takes no seat
        def new_round(m: dict[str, Any]) -> bool:
            return m["type"] == "event" and m["event"]["kind"] == "round_started"

        def ended(m: dict[str, Any]) -> bool:
            return m["type"] == "event" and m["event"]["kind"] == "encounter_ended"

        first = (await watcher.wait_for(new_round, timeout=30))["event"]["round"]
        # three rounds, unless the bots decide the fight first (the GM bot then ends it)
        last = await watcher.wait_for(
            lambda m: ended(m) or (new_round(m) and m["event"]["round"] == first + 3),
            timeout=30)
        if not ended(last):
            gm = await join(ws_url(srv), enc.gm_token, clients)
            with contextlib.suppress(CommandError):  # unless the bots have just ended it
                await gm.command("end_encounter", reason="the GM calls it a day")
        end = (await watcher.wait_for(ended))["event"]
        state = srv.rooms.peek(enc.encounter).state  # type: ignore[union-attr]
        if end["reason"] != "the GM calls it a day":  # one side is out of the fight
            assert end["reason"].endswith("are out of the fight")
            # who was up when the GM bot ended it (the end itself may wake some, R16)
            up = {cid: True for cid in state.combatants}
            for m in watcher.events():
                e = m["event"]
                if e["kind"] == "vitals_changed" and e["cause"] not in (
                        "constitution_check", "end_of_scene"):
                    up[e["combatant"]] = e["condition"][0] == "active"
            sides = {c.side for c in state.combatants.values() if not c.hidden and up[c.id]}
            assert len(sides) == 1, sides
        # the bots took every turn of the rounds the watcher saw whole, moving on the map
        # toward the enemy and fighting
        assert_turns_taken(watcher, set(state.combatants), range(first, state.round))
        seen = kinds(watcher)
        assert "combatant_moved" in seen and "attack_resolved" in seen, seen
        # the bots stopped; the demo set up a new scene, which waits for its first visitor
        await asyncio.wait_for(_next_scene(srv), 10)
        following = srv.demo.encounters[0]
        assert following.encounter != enc.encounter and not following.seat.view.started
    finally:
        await srv.stop()


async def test_a_player_follows_a_campaign_from_the_terminal(
        server: Server, clients: list[Client], ptys: list[Pty]) -> None:
    """A player's campaign link (R113): the terminal waits between encounters, showing the
    clock and its character, joins the encounter the GM begins by itself, and the next one."""
    url = ws_url(server)
    anon = await open_client(url, clients)
    await anon.hello()
    made = await anon.command("create_campaign", name="Everfree road")
    gm = await join(url, made["result"]["gm_token"], clients)
    added = await gm.command("add_character", character={
        "name": "Ace", "id": "ace", "kind": "pc", "stats": {"fatigue_points": 12}})
    await gm.command("adjust_character", character="ace", reason="a bruise", fatigue=7)
    link = f"http://127.0.0.1:{server.settings.port}/table/#token={added['result']['token']}"
    term = await Pty.spawn(sys.executable, "-m", "clients.cli", link)
    ptys.append(term)
    await term.expect(r"Campaign 'Everfree road', day 1, 00:00")
    await term.expect(r"Ace: alive, 7/12 fatigue, Second Lunches today 0, between encounters")
    await term.expect(r"Waiting for the GM to begin an encounter")
    begun = await gm.command("begin_encounter", name="The ambush", characters=["ace"],
                             npcs=[{"name": "Dog", "id": "dog", "kind": "npc"}])
    await term.expect(r"Joined 'The ambush' \(dramatic\) as player of Ace")
    await term.expect(r"Ace .*\[fatigue 7/12")  # as the campaign left it
    encounter_gm = await join(url, begun["result"]["gm_token"], clients)
    await encounter_gm.command("end_encounter")
    await gm.command("begin_encounter", name="The bridge", characters=["ace"])
    await term.expect(r"the GM began another encounter: joining it")
    await term.expect(r"joined 'The bridge'")
    term.send("s")
    await term.expect(r"Ace .*\[fatigue 7/12")
    term.send("q")
    assert await term.close() == 0


async def test_a_commands_wait_is_a_parameter_and_a_late_answer_is_kept(
        server: Server, clients: list[Client]) -> None:
    """``command(timeout=)``: a player's end of turn before a hidden combatant's is held until
    the GM ends that turn; given up on after its timeout, it went through all the same: its
    late ack is kept in ``messages`` (the client reads on), and sent again with the same id it
    answers ``duplicate``. ``wait_next`` takes the next ``legal_actions``, not one held."""
    url = ws_url(server)
    table = await create_table(url, clients, combatants=[
        {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 50},
        {"name": "Lurking Dog", "id": "lurker", "kind": "npc", "initiative": 0, "hidden": True},
        {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": -50}])
    gm = table.gm
    await gm.command("start_encounter")
    player = await join(url, table.tokens["dash"], clients)
    await player.wait_until(lambda: any(a["action"] == "end_turn" and a["combatant"] == "dash"
                                        for a in player.legal))
    held = [m for m in player.messages if m["type"] == "legal_actions"]
    assert held and await player.wait_for(lambda m: m["type"] == "legal_actions") is held[0]
    upcoming = asyncio.create_task(
        player.wait_next(lambda m: m["type"] == "legal_actions", timeout=60))
    with pytest.raises(TimeoutError):
        await player.command("act", id="dash-ends-its-turn", combatant="dash",
                             action="end_turn", timeout=0.5)
    assert player.unanswered == 0 and not upcoming.done()
    await gm.wait_until(lambda: any(a["action"] == "end_turn" and a["combatant"] == "lurker"
                                    for a in gm.legal))
    await gm.command("act", combatant="lurker", action="end_turn")
    late = await player.wait_for(lambda m: m["type"] == "ack"
                                 and m.get("id") == "dash-ends-its-turn", timeout=30)
    assert late["duplicate"] is False
    fresh = await upcoming
    assert all(fresh is not m for m in held)
    again = await player.command("act", id="dash-ends-its-turn", combatant="dash",
                                 action="end_turn", timeout=None)
    assert again["duplicate"] is True
    await player.command("ping")  # it reads on
    assert not player.closed.done()
