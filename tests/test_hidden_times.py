"""The times the table is told say nothing of a hidden turn (ruling R96.6): the events a
hidden turn held from the table carry, for it, the time of the command that began the hold,
so that the end of a visible turn and the start of the next share a time whether or not a
hidden combatant acted between them, live and in everything recorded (``get_history``,
replays, ``/read/history``, the SSE stream), and a turn timer's deadline counts from that
time too. With anonymous hidden turns (R99) a replay gives the view the cursors the live
connection got.

Each scene is played twice over real websockets against a real server and Redis: once with a
hidden Lurker that acts while the table waits (the server's clock moved on meanwhile, as the
GM's time behind the screen), once without it. The server decides commands by a clock of the
test's (``CommandService.clock``): the wall clock, but never one millisecond for two commands,
so that the pattern of which events share a time is the same on every run; the absolute times
differ between the scenes and are compared as that pattern.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from clients.client import FEATURES, Client
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import Clock, create_table, open_client
from tests.test_history import pages
from tests.test_read_api import Stream, get

VIEW = [*FEATURES, "cursor", "view", "summaries"]

#: Ace, then the hidden Lurker (or, with anonymous hidden turns, the GM's screen on count 30,
#: the Lurker inside its turn), then Bea and the dog: no two initiatives can tie.
ROSTER = [
    {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
    {"name": "Lurker", "id": "lurker", "initiative": 25, "hidden": True},
    {"name": "Bea", "id": "bea", "kind": "pc", "initiative": 0},
    {"name": "Dog", "id": "dog", "initiative": -25},
]
#: The keys whose values are opaque strings, named by their first appearance when comparing.
OPAQUE_KEYS = {"encounter", "cursor", "base_cursor", "turn_id", "request", "effect",
               "session", "token_id", "id", "before"}
#: The times of day left out (a snapshot's ``ts`` is when it was sent; the others are the
#: credentials').
DROPPED_TIMES = {"created_ts", "expires_at"}
#: How long the GM takes behind the screen, for each thing the Lurker does (seconds).
GM_TIME = 0.7


@pytest.fixture
def clock(server: Server) -> Iterator[Clock]:
    made = Clock()
    server.commands.clock = made
    yield made
    server.commands.clock = time.time


@dataclass
class Seen:
    """What one reader (the player of Ace, or the spectator) got, by way."""

    live: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    replay: list[dict[str, Any]] = field(default_factory=list)
    read_history: list[dict[str, Any]] = field(default_factory=list)
    stream: list[Any] = field(default_factory=list)


@dataclass
class Scene:
    gm: Client
    encounter: str
    tokens: dict[str, str]
    seats: dict[str, Client]
    pings: set[str] = field(default_factory=set)

    async def settle(self) -> None:
        for client in [self.gm, *self.seats.values()]:
            if not client.unanswered:
                self.pings.add((await client.command("ping"))["id"])


async def open_seat(url: str, token: str, opened: list[Client],
                    features: list[str] = VIEW) -> Client:
    client = await open_client(url, opened)
    await client.hello(token, features=features)
    await client.wait_for(lambda m: m["type"] == "legal_actions")
    return client


async def current(scene: Scene, server: Server) -> str | None:
    room = server.rooms.peek(scene.encounter)
    assert room is not None
    return room.state.current


async def play(server: Server, clients: list[Client], clock: Clock, hidden: bool,
               anonymous: bool, rounds: int = 2) -> dict[str, Seen]:
    """The scene (with the hidden Lurker, or without it), and what each reader got of it."""
    url = ws_url(server)
    roster = [c for c in ROSTER if hidden or not c.get("hidden")]
    options: dict[str, Any] = {"dice_seed": 5}
    if anonymous:
        options.update(anonymous_hidden_turns=True, screen_count=30)
    table = await create_table(url, clients, roster, **options)
    # (the spectator twice: once with batch_head, whose batches say the events' ts)
    tokens = {"ace": table.tokens["ace"], "spectator": table.spectator_token,
              "lean": table.spectator_token}
    seats = {name: await open_seat(url, token, clients,
                                   [*VIEW, "batch_head"] if name == "lean" else VIEW)
             for name, token in tokens.items()}
    scene = Scene(table.gm, table.encounter, tokens, seats)
    streams = {}
    for name, token in tokens.items():
        _, ticket = await get(server, "/read/tickets", token)
        status, streams[name] = await Stream.open(server, ticket["stream"])
        assert status == 200
    gm, ace = table.gm, seats["ace"]
    room = server.rooms.peek(scene.encounter)
    assert room is not None
    await gm.command("start_encounter")
    for _ in range(rounds):
        await scene.settle()
        assert await current(scene, server) == "ace"
        ended = await ace.send_command("act", combatant="ace", action="end_turn",
                                       expect_turn=ace.turn_id)
        if hidden or anonymous:
            await gm.wait_until(lambda: room.state.current in ("lurker", "screen"))
        await scene.settle()
        if hidden:  # the GM plays the Lurker's turn while the table waits
            clock.skip(GM_TIME)
            legal = {a["action"] for a in gm.legal if a.get("combatant") == "lurker"}
            assert legal & {"other_standard", "other_major"}, (legal, gm.legal)
            action = next(a for a in ("other_standard", "other_major") if a in legal)
            await gm.command("act", combatant="lurker", action=action,
                             args={"note": "creeps along the rafters"})
            clock.skip(GM_TIME)
            await gm.command("act", combatant="lurker", action="end_turn")
        elif anonymous:  # nobody behind the screen: the GM ends its turn
            await gm.command("act", combatant="screen", action="end_turn")
        assert (await ended)["type"] == "ack"
        for cid in ("bea", "dog"):
            assert await current(scene, server) == cid
            await gm.command("act", combatant=cid, action="end_turn")
    await gm.command("end_encounter", reason="the scene is over")
    await scene.settle()
    seen: dict[str, Seen] = {}
    for name, token in tokens.items():
        got = Seen(live=[m for m in seats[name].messages
                         if not (m["type"] == "ack" and m.get("id") in scene.pings)])
        reader = await open_client(url, clients)
        await reader.hello(token, features=VIEW)
        got.history = await pages(reader, 500)
        _, page = await get(server, "/read/history?limit=500", token)
        got.read_history = page["events"]
        watcher = await open_client(url, clients)
        await watcher.hello(token, features=VIEW, replay={"speed": 1000})
        await watcher.wait_for(lambda m: m["type"] == "replay_ended", timeout=30)
        got.replay = watcher.messages
        stream = streams[name]
        await stream.until(lambda m: any(k == "event" and d["event"]["kind"] == "encounter_ended"
                                         for k, _, d in m))
        stream.close()
        got.stream = [{"sse": kind, "id": sse_id, "data": data}
                      for kind, sse_id, data in stream.messages]
        seen[name] = got
    return seen


def normalized(messages: list[Any]) -> list[Any]:
    """The messages with each opaque string named by its first appearance (``$0``...), each
    event's time by the first appearance of that time (``@0``...: which events share a time),
    a deadline as the time from its event's, and the other times of day left out."""
    names: dict[str, str] = {}
    times: dict[int, str] = {}

    def walk(value: Any, key: str | None = None, ts: int | None = None) -> Any:
        if isinstance(value, dict):
            event_ts = value.get("ts") if value.get("type") == "event" else ts
            out = {}
            for k, v in value.items():
                if k in DROPPED_TIMES or (k == "ts" and value.get("type") != "event"):
                    continue
                if k == "ts":
                    out[k] = times.setdefault(v, f"@{len(times)}")
                elif k in ("deadline", "warn_at") and isinstance(v, int) \
                        and event_ts is not None:
                    out[k] = v - event_ts
                else:
                    out[k] = walk(v, k, event_ts)
            return out
        if isinstance(value, list):
            return [walk(v, key, ts) for v in value]
        if isinstance(value, str) and (key in OPAQUE_KEYS or value in names):
            return names.setdefault(value, f"${len(names)}")
        return value

    return [walk(m) for m in messages]


def first_difference(a: list[Any], b: list[Any]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"message {i}:\n with hidden:    {str(x)[:900]}\n without hidden: {str(y)[:900]}"
    return f"lengths {len(a)} and {len(b)}"


def shown(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events and views among ``messages``."""
    return [m for m in messages if m["type"] in ("event", "view")]


@pytest.mark.parametrize("anonymous", [False, True], ids=["held", "anonymous"])
async def test_a_hidden_turn_shows_in_no_time_the_table_is_told(
        server: Server, clients: list[Client], clock: Clock, anonymous: bool) -> None:
    """With or without the Lurker acting out of sight, the table gets the same messages, whose
    times share the same pattern, live and in its history, its replays, ``/read/history`` and
    the SSE stream; the end of Ace's turn and the start of the next share a time."""
    with_lurker = await play(server, clients, clock, hidden=True, anonymous=anonymous)
    without = await play(server, clients, clock, hidden=False, anonymous=anonymous)
    lean, spectator = with_lurker["lean"].live, with_lurker["spectator"].live
    assert [m["ts"] for m in lean if m["type"] == "event"] == \
        [m["ts"] for m in spectator if m["type"] == "event"]
    for seat in ("ace", "spectator", "lean"):
        a, b = with_lurker[seat], without[seat]
        for way in ("live", "history", "replay", "read_history", "stream"):
            mine, theirs = normalized(getattr(a, way)), normalized(getattr(b, way))
            assert mine == theirs, f"{seat}, {way}: {first_difference(mine, theirs)}"
        assert "lurker" not in str(a.live + a.replay + a.stream).lower()
        # the hold began with Ace's end of turn: what followed it shares its time
        events = [m for m in a.live if m["type"] == "event"]
        held = [(m, after) for m, after in itertools.pairwise(events)
                if m["event"]["kind"] == "turn_ended" and m["event"]["combatant"] == "ace"
                and after["event"]["kind"] == "turn_started"]
        assert len(held) == 2 and all(m["ts"] == after["ts"] for m, after in held)
        # a replay gives the events and views as they came live, times and cursors alike
        live, replayed = shown(a.live), shown(a.replay)
        assert replayed[-len(live):] == live, first_difference(replayed[-len(live):], live)
        # and the history has the times of the live events
        assert [e["ts"] for e in a.history[-len(events):]] == [e["ts"] for e in events]


@pytest.mark.parametrize("hidden", [True, False], ids=["lurker", "none"])
async def test_a_turn_timer_that_runs_out_into_a_hidden_turn_shows_no_gap(
        server: Server, clients: list[Client], clock: Clock, hidden: bool) -> None:
    """Ace's turn timer runs out and ends the turn; the hidden Lurker's turn follows, the GM
    taking its time; then Bea's turn and its timer. What the table is told of Bea's deadline
    counts from the time it is given for the end of Ace's turn (R96.6, R102), as it is
    without the Lurker."""
    url = ws_url(server)
    roster = [c for c in ROSTER if hidden or not c.get("hidden")]
    table = await create_table(url, clients, roster, dice_seed=5, turn_seconds=1,
                               turn_expiry="end_turn")
    player = await open_seat(url, table.tokens["ace"], clients)
    gm = table.gm
    room = server.rooms.peek(table.encounter)
    assert room is not None
    await gm.command("start_encounter")
    await gm.wait_until(lambda: room.state.current not in (None, "ace"), timeout=5)
    if hidden:
        assert room.state.current == "lurker"
        clock.skip(0.3)
        await gm.command("act", combatant="lurker", action="end_turn")
    await player.wait_for(lambda m: m["type"] == "event"
                          and m["event"]["kind"] == "turn_timer_started"
                          and m["event"]["combatant"] == "bea")
    await player.wait_until(lambda: player.state is not None and player.state.get("timer")
                            is not None and player.state["timer"]["combatant"] == "bea")
    timer = player.state["timer"] if player.state else None
    await gm.command("end_encounter", reason="the scene is over")
    events = [m for m in player.messages if m["type"] == "event"]
    expired = next(m for m in events if m["event"]["kind"] == "turn_timer_expired")
    first = next(m for m in events if m["event"]["kind"] == "turn_timer_started")
    bea = next(m for m in events if m["event"]["kind"] == "turn_timer_started"
               and m["event"]["combatant"] == "bea")
    ace_ended = next(m for m in events if m["event"]["kind"] == "turn_ended")
    assert expired["ts"] >= first["event"]["deadline"]
    assert expired["ts"] == ace_ended["ts"] == bea["ts"]
    assert bea["event"]["deadline"] - expired["ts"] == 1000
    # the view the player holds names the same deadline
    assert timer is not None and timer["deadline"] == bea["event"]["deadline"]
