"""Hidden turns give nothing away: what a player or spectator receives is the same whether or
not hidden combatants exist (``encounter.screen``, docs/protocol.md "Behind the GM's screen").

Each random scene is played twice over real websockets against a real server and Redis: once
with hidden NPCs that do what no visible combatant can see (end their turn, delay, take an
action the GM adjudicates, roll behind the screen, with the server's dice or physical ones),
once without them, the visible combatants doing the same things in both. Every player and the
spectator ask for the ``cursor`` feature; what each receives, message by message (acks,
legal actions, snapshots and their positions included), must be the same in both scenes once
the opaque strings (ids, turn ids, cursors) are named by their first appearance and each
event's time by the first appearance of that time: the absolute times differ between the
scenes, but which events share a time must not (R96.6; the server decides commands by a clock
that never gives two of them one millisecond, ``tests.helpers.Clock``). Then every cursor a
reader was given is resumed from, on a server that has never seen the encounter, and must
give exactly what followed it. Drawn with each scene: anonymous hidden turns (R99), the hidden
NPCs acting inside the turn of the GM's screen on a count of the scene's, which the table sees
in both scenes.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from clients.client import FEATURES, Client, CommandError
from encounter.actors import Actor
from encounter.harness import Refused, Table
from encounter.state import SCREEN, EncounterState
from server.app import Server
from server.cursor import CursorError, Cursors
from tests.conftest import settings_for, ws_url
from tests.helpers import Clock, open_client, send_seen
from tests.redis_procs import RedisProcess

CURSOR_FEATURES = [*FEATURES, "cursor"]

#: Initiative modifiers 20 apart, so that no two combatants' d20 + modifier can tie: a tie
#: with a hidden combatant would need a roll-off, which the scene without it does not roll.
VISIBLE_MODS = {"ace": 30, "dog": -10, "bea": -30}
HIDDEN_SLOTS = {"first": 50, "after_ace": 10, "last": -50}

DRAMATIC = {
    "ace": {"name": "Ace", "kind": "pc",
            "stats": {"dex": 14, "fatigue_points": 9, "skills": {"melee": 4},
                      "weapons": [{"name": "hoof", "damage": "1d6", "kind": "unarmed"}]}},
    "bea": {"name": "Bea", "kind": "pc",
            "stats": {"str": 14, "fatigue_points": 10, "skills": {"melee": 3},
                      "weapons": [{"name": "buck", "damage": "1d8", "kind": "unarmed"}]}},
    "dog": {"name": "Dog", "kind": "npc",
            "stats": {"str": 14, "fatigue_points": 12, "skills": {"melee": 2},
                      "weapons": [{"name": "claws", "damage": "1d6", "kind": "natural"}]}},
    "hidden": {"stats": {"dex": 14, "fatigue_points": 8, "skills": {"melee": 6},
                         "weapons": [{"name": "fangs", "damage": "1d8", "kind": "natural"}]}},
}
ACTION_TIME = {
    "ace": {"name": "Ace", "kind": "pc",
            "stats": {"body": "d8", "mind": "d6", "health": 10, "defense": 4,
                      "weapons": [{"name": "hoof", "damage": "d6"}]}},
    "bea": {"name": "Bea", "kind": "pc",
            "stats": {"body": "d6", "mind": "d8", "health": 10, "defense": 4,
                      "weapons": [{"name": "hoof", "damage": "d4"}]}},
    "dog": {"name": "Dog", "kind": "npc",
            "stats": {"body": "d8", "mind": "d4", "health": 12, "defense": 4,
                      "weapons": [{"name": "claws", "damage": "d6"}]}},
    "hidden": {"stats": {"body": "d10", "mind": "d6", "health": 8, "defense": 5,
                         "weapons": [{"name": "fangs", "damage": "d8"}]}},
}

#: The Body dice of Action Time's hidden NPCs (the dog's is a d8).
AT_HIDDEN_BODY = ["d10", "d12", "d6"]

#: The battle map of the scenes on one, and where everyone starts on it.
FIELD = {"width": 10, "height": 6}
VISIBLE_SQUARES = [[0, 0], [3, 0], [0, 5]]
HIDDEN_SQUARES = [[9, 5], [9, 3], [9, 1]]

#: What visible combatants do: actions whose outcome depends on nobody hidden. (Not
#: ``delay``: a delayer takes the count of the combatant it follows, R7.2, which may be a hidden
#: one's; docs/protocol.md names it among what the screen does not hide.)
VISIBLE_ACTIONS = {"end_turn", "attack", "melee_attack", "other_standard", "other_move",
                   "other_swift", "other_major", "other_minor", "fall_prone", "stand_up",
                   "defend", "free"}
#: What hidden combatants do on their turns, none of it seen by anyone at the table.
HIDDEN_ACTIONS = ["end_turn", "end_turn", "other_standard", "other_major", "other_move",
                  "delay", "adjudicate", "move"]
#: The keys whose values are opaque strings (named by first appearance when comparing), and
#: the times of day left out (but an event's ``ts``, compared as the pattern of which events
#: share a time; a snapshot's is when it was sent).
OPAQUE_KEYS = {"encounter", "cursor", "base_cursor", "turn_id", "request", "effect",
               "session", "token_id", "id"}
TIME_KEYS = {"ts", "created_ts", "expires_at"}


@dataclass
class World:
    url: str
    server: Server
    encounter: str
    gm: Client
    hidden: list[str]
    tokens: dict[str, str] = field(default_factory=dict)  # seat -> token
    seats: dict[str, Client] = field(default_factory=dict)  # "ace", "bea", "spectator"
    pings: set[str] = field(default_factory=set)

    @property
    def state(self) -> EncounterState:
        room = self.server.rooms.peek(self.encounter)
        assert room is not None
        return room.state

    def seat_for(self, cid: str) -> Client:
        return self.seats.get(cid, self.gm)

    async def settle(self) -> None:
        """Everything the server has sent to anyone so far has arrived (a ping is answered
        after it, on each connection; the pings' acks are not compared). A connection still
        waiting for an answer is not asked: its ping would wait behind that answer."""
        for client in [self.gm, *self.seats.values()]:
            if client.unanswered:
                continue
            ack = await client.command("ping")
            self.pings.add(ack["id"])


@dataclass
class Scene:
    """One scene, as both worlds play it: the visible combatants' choices come from ``rng``
    (the same in both), the hidden combatants' and their dice from ``hidden_rng``."""

    ruleset: str
    physical: bool
    seed: int
    slots: list[str]
    steps: int
    #: on a battle map ("MLP Dramatic Systems"), where the hidden combatants move out of sight
    battle_map: bool = False
    #: with anonymous hidden turns (R99): the hidden combatants act in the screen's turn, on
    #: this count (``None``: the option off)
    screen_count: int | None = None


async def set_up(server: Server, scene: Scene, with_hidden: bool,
                 opened: list[Client]) -> World:
    url = ws_url(server)
    blocks = DRAMATIC if scene.ruleset == "dramatic" else ACTION_TIME
    roster = [{"id": cid, "initiative": mod, **blocks[cid]} for cid, mod in VISIBLE_MODS.items()]
    on_map = scene.battle_map and scene.ruleset == "dramatic"
    if on_map:
        roster = [{**b, "position": at} for b, at in zip(roster, VISIBLE_SQUARES, strict=True)]
    hidden = []
    if with_hidden:
        for i, slot in enumerate(scene.slots):
            cid = f"lurker{i}"
            hidden.append(cid)
            block = {"id": cid, "name": f"Lurker {i}", "kind": "npc", "hidden": True,
                     "initiative": HIDDEN_SLOTS[slot], **blocks["hidden"],
                     **({"position": HIDDEN_SQUARES[i]} if on_map else {})}
            if scene.ruleset == "action_time":
                # Action Time's initiative is a Body test without a modifier: ties are broken
                # by players first, then the higher Body die (R31), so each hidden NPC has one
                # of its own (none like the dog's), and no tie needs a roll-off
                block["stats"] = {**block["stats"], "body": AT_HIDDEN_BODY[i]}
            roster.append(block)
    anon = await open_client(url, opened)
    await anon.hello()
    options: dict[str, Any] = {"dice_seed": scene.seed, "players_roll": scene.physical,
                               "manual_rolls": scene.physical}
    if scene.screen_count is not None:
        options.update(anonymous_hidden_turns=True, screen_count=scene.screen_count)
    ack = await anon.command("create_encounter", name="Behind the screen",
                             ruleset=scene.ruleset, combatants=roster, options=options,
                             **({"map": FIELD} if on_map else {}))
    gm = await open_client(url, opened)
    await gm.hello(ack["result"]["gm_token"])
    world = World(url, server, ack["result"]["encounter"], gm, hidden)
    for cid in ("ace", "bea"):
        invite = await gm.command("issue_invite", combatants=[cid])
        world.tokens[cid] = invite["result"]["token"]
    link = await gm.command("issue_spectator_link")
    world.tokens["spectator"] = link["result"]["token"]
    for name, token in world.tokens.items():
        client = await open_seat(url, token, opened, spectator=name == "spectator")
        world.seats[name] = client
    await world.settle()
    await gm.command("start_encounter")
    return world


async def open_seat(url: str, token: str, opened: list[Client], spectator: bool = False,
                    cursor: str | None = None) -> Client:
    """A reader with the ``cursor`` feature; a spectator by its link (the server says hello
    for it), a player by ``hello``."""
    if spectator:
        query = f"?spectate={token}&features={','.join(CURSOR_FEATURES)}"
        if cursor is not None:
            query += f"&cursor={cursor}"
        client = await Client.open(url + query)
        client.keep_wire = True
        opened.append(client)
        await client.wait_for(lambda m: m["type"] == "legal_actions")
        return client
    client = await Client.open(url)
    client.keep_wire = True
    opened.append(client)
    await client.hello(token, features=CURSOR_FEATURES, cursor=cursor)
    await client.wait_for(lambda m: m["type"] == "legal_actions")
    return client


# --- playing --------------------------------------------------------------------------------


async def play(world: World, scene: Scene) -> None:
    rng, hidden_rng = random.Random(scene.seed), random.Random(~scene.seed)
    acted = 0  # the visible combatants' actions: as many in both scenes
    for _ in range(20 * scene.steps):
        if acted == scene.steps:
            break
        await world.settle()
        state = world.state
        if state.ended:
            return
        if state.pending_rolls:
            await answer_rolls(world, state, rng, hidden_rng)
            continue
        current = state.current
        if current is None:
            return  # (nobody can act: not in these scenes)
        if current == SCREEN:  # nobody takes a turn behind the screen: the GM ends it (R99)
            await world.gm.command("act", combatant=SCREEN, action="end_turn")
            continue
        if current in world.hidden:
            await hidden_turn(world, current, hidden_rng)
            continue
        acted += 1
        await visible_turn(world, current, rng, force_end=acted % 4 == 0)
    # the GM ends the scene on a visible turn (ended during a hidden one, the table would be
    # told the end of the last visible turn with it: the scene without it has another turn)
    for _ in range(10):
        await world.settle()
        state = world.state
        if state.ended or state.current not in [*world.hidden, SCREEN] or state.pending_rolls:
            break
        await world.gm.command("act", combatant=state.current, action="end_turn")
    if not world.state.ended and not world.state.pending_rolls:
        await world.gm.command("end_encounter", reason="the scene is over")


async def answer_rolls(world: World, state: EncounterState, rng: random.Random,
                       hidden_rng: random.Random) -> None:
    """The GM rolls behind the screen first (a hidden combatant's dice), then everyone rolls
    what the table sees, in the order asked."""
    pending = list(state.pending_rolls.values())
    behind = [p for p in pending if p.combatant in world.hidden]
    if behind:
        p = behind[0]
        faces = [hidden_rng.randint(1, sides) for sides in p.dice]
        await world.gm.command("submit_roll", request=p.request, faces=faces)
        return
    p = pending[0]
    sender = world.seats.get(p.roller, world.gm)
    faces = [rng.randint(1, sides) for sides in p.dice]
    reply = await send_seen(world.gm, sender, "submit_roll", request=p.request, faces=faces)
    assert reply is None or reply["type"] == "ack", reply


async def visible_turn(world: World, cid: str, rng: random.Random, force_end: bool) -> None:
    sender = world.seat_for(cid)
    options = [a for a in world.gm.legal if a.get("combatant") == cid
               and a["action"] in VISIBLE_ACTIONS]
    names = sorted({a["action"] for a in options})
    name = "end_turn" if force_end or "end_turn" not in names or rng.random() < 0.4 \
        else rng.choice(names)
    if name not in names:
        return
    entry = next(a for a in options if a["action"] == name)
    args: dict[str, Any] = {}
    if entry.get("targets"):
        args["target"] = rng.choice(sorted(entry["targets"]))
    for option, values in sorted((entry.get("options") or {}).items()):
        if values:
            args[option] = rng.choice(values)
    if name.startswith("other_") or name == "free":
        args["note"] = "something the GM rules on"
    fields: dict[str, Any] = {"combatant": cid, "action": name, "args": args}
    if sender.turn_id is not None:
        fields["expect_turn"] = sender.turn_id  # the turn as the sender sees it
    await send_seen(world.gm, sender, "act", **fields)  # (a refusal too is the same in both)


async def hidden_turn(world: World, cid: str, rng: random.Random) -> None:
    """The GM does something for a hidden combatant that no one at the table sees."""
    legal = {a["action"] for a in world.gm.legal if a.get("combatant") == cid}
    name = rng.choice(HIDDEN_ACTIONS)
    gm = world.gm
    if name == "adjudicate" and "adjudicate" in {a["action"] for a in gm.legal}:
        await gm.command("adjudicate", combatant=cid, description="listens at the door",
                         modifier=rng.randint(-2, 4), dc=12)
    elif name == "move" and "move" in legal and cid in world.state.positions:
        x, y = world.state.positions[cid]  # a step away, out of sight of the table
        step = [min(9, max(5, x + rng.choice([-1, 0, 1]))),
                min(5, max(0, y + rng.choice([-1, 1])))]
        try:
            await gm.command("act", combatant=cid, action="move", args={"path": [step]})
        except CommandError:  # (a square it may not enter: the GM ends its turn instead)
            await gm.command("act", combatant=cid, action="end_turn")
    elif name in legal and name not in ("end_turn", "move"):
        args = {"note": "behind the screen"} if name.startswith("other_") else {}
        await gm.command("act", combatant=cid, action=name, args=args)
    else:
        await gm.command("act", combatant=cid, action="end_turn")


# --- comparing ------------------------------------------------------------------------------


def received(world: World, seat: str) -> list[dict[str, Any]]:
    """Every message the seat got, batches unwrapped, but the acks of the test's pings."""
    return [m for m in received_by(world.seats[seat])
            if not (m.get("type") == "ack" and m.get("id") in world.pings)]


def normalized(messages: list[dict[str, Any]]) -> list[Any]:
    """The messages with each opaque string named by its first appearance (``$0``, ``$1``...),
    wherever it appears, each event's time by the first appearance of that time (``@0``...),
    and the other times of day left out."""
    names: dict[str, str] = {}
    times: dict[int, str] = {}

    def collect(value: Any, key: str | None = None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                collect(v, k)
        elif isinstance(value, list):
            for v in value:
                collect(v, key)
        elif isinstance(value, str) and key in OPAQUE_KEYS:
            names.setdefault(value, f"${len(names)}")

    def rename(value: Any) -> Any:
        if isinstance(value, dict):
            timed = value.get("type") == "event" and isinstance(value.get("ts"), int)
            return {k: times.setdefault(v, f"@{len(times)}") if timed and k == "ts"
                    else rename(v) for k, v in value.items()
                    if k not in TIME_KEYS or (timed and k == "ts")}
        if isinstance(value, list):
            return [rename(v) for v in value]
        if isinstance(value, str):
            return names.get(value, value)
        return value

    for m in messages:
        collect(m)
    return [rename(m) for m in messages]


def positions_named(messages: list[dict[str, Any]]) -> list[str]:
    """Messages that name a log position as a seq or a digest (a reader with the ``cursor``
    feature is never told one)."""
    return [str(m)[:300] for m in messages
            if m.get("type") in ("event", "snapshot", "legal_actions", "legal_actions_delta",
                                 "ack") and ({"seq", "digest", "base"} & set(m))]


def first_difference(a: list[Any], b: list[Any]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return (f"message {i}:\n with hidden:    {str(x)[:900]}\n"
                    f" without hidden: {str(y)[:900]}")
    longer = a if len(a) > len(b) else b
    more = str(longer[min(len(a), len(b))])[:600]
    return f"lengths {len(a)} and {len(b)}; the longer goes on with {more}"


# --- resuming -------------------------------------------------------------------------------


def events_after(messages: list[dict[str, Any]], cursor: str) -> list[dict[str, Any]] | None:
    """The events a reader received after the message that gave it ``cursor``."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("cursor") == cursor:
            return [m for m in messages[i + 1:] if m["type"] == "event"]
    return None


async def resumes_exactly(world: World, fresh: Server, rng: random.Random,
                          opened: list[Client]) -> list[str]:
    """Resume each seat from cursors it was given, on ``fresh``, a server that has never
    served the encounter: the events that come are exactly those the seat got after it."""
    problems = []
    url = ws_url(fresh)
    for seat, client in world.seats.items():
        live = received(world, seat)
        cursors = list(dict.fromkeys(client.cursors))
        for cursor in [*rng.sample(cursors, min(4, len(cursors))), cursors[-1]]:
            expected = events_after(live, cursor)
            assert expected is not None
            back = await open_seat(url, world.tokens[seat], opened, seat == "spectator",
                                   cursor)
            got = [m for m in received_by(back) if m["type"] in ("event", "snapshot")]
            if got != expected:
                problems.append(f"{seat} from {cursor}: {len(got)} messages, expected "
                                f"{len(expected)}: {first_difference(got, expected)}")
            await back.close()
    return problems


async def replays_as_live(world: World, opened: list[Client]) -> list[str]:
    """A replay gives each seat the events it got live, as it got them: the same redaction,
    cursors and times (R115, R96.6)."""
    problems = []
    for seat, token in world.tokens.items():
        live = [m for m in received(world, seat) if m["type"] == "event"]
        watcher = await Client.open(world.url)
        watcher.keep_wire = True
        opened.append(watcher)
        await watcher.hello(token, features=CURSOR_FEATURES, replay={"speed": 1000})
        await watcher.wait_for(lambda m: m["type"] == "replay_ended", timeout=60)
        replayed = [m for m in received_by(watcher) if m["type"] == "event"][-len(live):]
        if replayed != live:
            problems.append(f"{seat}'s replay: {first_difference(replayed, live)}")
        await watcher.close()
    return problems


def received_by(client: Client) -> list[dict[str, Any]]:
    """Every message ``client`` got, batches unwrapped (it keeps its wire)."""
    return [m for frame in client.wire
            for m in (frame["messages"] if frame.get("type") == "batch" else [frame])]


# --- the test -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def screen_servers(redis_server: RedisProcess) -> AsyncIterator[tuple[Server, Server]]:
    """A server whose rate limit lets the scripted GM go as fast as it likes, and another
    that serves only resumes (with nothing of the encounter in memory)."""
    made = []
    for _ in range(2):
        srv = Server(settings_for(redis_server.url, commands_per_second=10_000.0,
                                  command_burst=10_000))
        srv.commands.clock = Clock()  # (one command, one time: which events share one)
        await srv.start()
        made.append(srv)
    yield made[0], made[1]
    for srv in made:
        await srv.stop()


SCENES = st.builds(
    Scene,
    ruleset=st.sampled_from(["dramatic", "action_time"]),
    physical=st.booleans(),
    seed=st.integers(1, 2**31),
    slots=st.lists(st.sampled_from(sorted(HIDDEN_SLOTS)), min_size=1, max_size=3, unique=True),
    steps=st.integers(12, 40),
    battle_map=st.booleans(),
    screen_count=st.none() | st.integers(-60, 60),
)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(scene=SCENES)
# anonymous hidden turns in both rulesets, with physical dice and with the server's (R99)
@example(scene=Scene("dramatic", True, 7, ["first", "after_ace", "last"], 30, True, 12))
@example(scene=Scene("action_time", False, 11, ["after_ace", "last"], 30, False, 0))
@example(scene=Scene("action_time", True, 5, ["first"], 24, False, -40))
async def test_a_hidden_combatant_changes_nothing_the_table_receives(
        screen_servers: tuple[Server, Server], scene: Scene) -> None:
    server, fresh = screen_servers
    opened: list[Client] = []
    try:
        worlds = []
        for with_hidden in (True, False):
            world = await set_up(server, scene, with_hidden, opened)
            await play(world, scene)
            await world.settle()
            worlds.append(world)
        hidden, open_ = worlds
        assert any(e["event"]["kind"] == "turn_started" and e["event"]["combatant"]
                   in hidden.hidden for e in hidden.gm.events()), "no hidden turn was played"
        if scene.screen_count is not None:  # the table saw the screen's turns (R99)
            assert all(any(e["event"]["kind"] == "turn_started"
                           and e["event"]["combatant"] == SCREEN for e in seat.events())
                       for seat in hidden.seats.values())
        for seat in hidden.seats:
            # every delta applied to the list held (its base_cursor the one of that list)
            assert hidden.seats[seat].delta_mismatches == open_.seats[seat].delta_mismatches == 0
            a, b = received(hidden, seat), received(open_, seat)
            assert not positions_named(a), positions_named(a)[:3]
            mine, theirs = normalized(a), normalized(b)
            assert mine == theirs, f"{seat}: {first_difference(mine, theirs)}"
        problems = await resumes_exactly(hidden, fresh, random.Random(scene.seed), opened)
        assert not problems, "\n".join(problems[:5])
        problems = await replays_as_live(hidden, opened)
        assert not problems, "\n".join(problems[:5])
    finally:
        await asyncio.gather(*(c.close() for c in opened), return_exceptions=True)


# --- the pieces, one by one -------------------------------------------------------------------

AMBUSH = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 50},
    {"name": "Shadowy Stalker", "id": "stalker", "initiative": 25, "hidden": True},
    {"name": "Diamond Dog", "id": "dog", "initiative": -25},
]


async def ambush(server: Server, opened: list[Client], **options: Any
                 ) -> tuple[World, Client]:
    """Twilight's turn, the hidden stalker's next; a player for Twilight with the cursor
    feature and a dice tower (``roll``)."""
    url = ws_url(server)
    anon = await open_client(url, opened)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Ambush", combatants=AMBUSH,
                             options={"dice_seed": 5, **options})
    gm = await open_client(url, opened)
    await gm.hello(ack["result"]["gm_token"])
    world = World(url, server, ack["result"]["encounter"], gm, ["stalker"])
    invite = await gm.command("issue_invite", combatants=["twilight"])
    world.tokens["twilight"] = invite["result"]["token"]
    world.seats["twilight"] = await open_seat(url, world.tokens["twilight"], opened)
    tower = await gm.command("issue_integration_token", scopes=["roll"])
    dice_tower = await open_client(url, opened)
    await dice_tower.hello(tower["result"]["token"])
    await gm.command("start_encounter")
    for request in list(world.state.pending_rolls):  # (with manual_rolls: the GM's dice)
        await gm.command("server_roll", request=request)
    await world.settle()
    assert world.state.current == "twilight"
    return world, dice_tower


async def into_the_stalkers_turn(server: Server, opened: list[Client]
                                 ) -> tuple[World, Client, int, asyncio.Future[Any]]:
    """The ambush, Twilight's player ending its turn into the stalker's hidden one: the
    world, the player, how many messages it had before, and the ack it waits for."""
    world, _ = await ambush(server, opened)
    player = world.seats["twilight"]
    before = len(received(world, "twilight"))
    ended = await player.send_command("act", combatant="twilight", action="end_turn",
                                      expect_turn=player.turn_id)
    await world.gm.wait_until(lambda: world.state.current == "stalker")
    return world, player, before, ended


async def test_the_ack_that_leads_into_a_hidden_turn_waits_for_what_follows(
        server: Server, clients: list[Client]) -> None:
    """Twilight's player ends its turn; the stalker's hidden turn begins: the player gets
    nothing (no turn_ended, no legal actions, no ack) until the next visible turn, then all of
    it at once, the ack last, naming the position of the turn that began."""
    world, _, before, ended = await into_the_stalkers_turn(server, clients)
    await world.settle()
    assert received(world, "twilight")[before:] == [] and not ended.done()
    await world.gm.command("act", combatant="stalker", action="end_turn")
    ack = await ended
    got = received(world, "twilight")[before:]
    assert [m["type"] for m in got] == ["event", "event", "legal_actions_delta", "ack"]
    assert [m["event"]["kind"] for m in got[:2]] == ["turn_ended", "turn_started"]
    assert got[1]["event"]["combatant"] == "dog"
    assert ack["cursor"] == got[1]["cursor"] == got[2]["cursor"] and "seq" not in ack


async def test_replies_behind_a_held_ack_leave_after_it_in_order(
        server: Server, clients: list[Client]) -> None:
    """While the ack of "end turn" waits for the stalker's hidden turn, the replies to the
    player's next frames (one that is not JSON, a ping) wait behind it, since a reply that
    overtook it would give the stalker away; they leave after it, in order."""
    world, player, before, ended = await into_the_stalkers_turn(server, clients)
    await player.send_raw("{not json")
    ping = await player.send_command("ping")
    await world.gm.command("ping")
    await world.settle()
    assert received(world, "twilight")[before:] == [] and not ping.done()
    await world.gm.command("act", combatant="stalker", action="end_turn")
    await ended
    await ping
    got = [m["type"] for m in received(world, "twilight")[before:]]
    assert got == ["event", "event", "legal_actions_delta", "ack", "error", "ack"]


async def test_a_double_click_into_a_hidden_turn_is_stale_as_without_it(
        server: Server, clients: list[Client]) -> None:
    """The second click of "end turn" names Twilight's turn, which the stalker's hidden turn
    followed: it is decided once the table is told what follows, and is ``stale`` with the
    dog's turn in its details, as it would be with no stalker."""
    world, _ = await ambush(server, clients)
    player = world.seats["twilight"]
    turn = player.turn_id
    first = await player.send_command("act", combatant="twilight", action="end_turn",
                                      expect_turn=turn)
    second = await player.send_command("act", combatant="twilight", action="end_turn",
                                       expect_turn=turn)
    await world.gm.wait_until(lambda: world.state.current == "stalker")
    await world.gm.command("ping")
    assert not first.done() and not second.done()
    # (the connection's later messages wait behind the second click, a ping too: they are
    # answered in order once it is decided)
    ping = await player.send_command("ping")
    await world.gm.command("act", combatant="stalker", action="end_turn")
    ack, stale = await first, await second
    await ping
    assert ack["type"] == "ack" and stale["code"] == "stale"
    assert stale["details"]["turn_id"] == player.turn_id != turn
    got = [m["type"] for m in received(world, "twilight")][-6:]
    assert got == ["event", "event", "legal_actions_delta", "ack", "error", "ack"]


async def test_a_player_acting_during_a_hidden_turn_is_told_at_once(
        server: Server, clients: list[Client]) -> None:
    """What the table sees, done while the screen is up, is told at once: a player's free
    action during the stalker's turn (sent without ``expect_turn``: it is meant for whatever
    turn runs) brings the end of Twilight's turn with it."""
    world, _ = await ambush(server, clients)
    player = world.seats["twilight"]
    turn = player.turn_id
    ended = await player.send_command("act", combatant="twilight", action="end_turn",
                                      expect_turn=turn)
    await world.gm.wait_until(lambda: world.state.current == "stalker")
    ack = await player.command("act", combatant="twilight", action="free",
                               args={"note": "whispers"})
    assert (await ended)["type"] == "ack"
    kinds = [m["event"]["kind"] for m in player.events()]
    assert kinds[-2:] == ["turn_ended", "action_taken"]
    assert ack["cursor"] == player.last_cursor and player.turn_id == turn
    assert "stalker" not in str(received(world, "twilight"))


async def test_a_hidden_turn_changes_no_turn_id_a_dice_tower_holds(
        server: Server, clients: list[Client]) -> None:
    """A dice tower is not held back (it enters the GM's dice behind the screen), but the
    turn ids it is given are the table's: the stalker's turn changes none."""
    world, tower = await ambush(server, clients, manual_rolls=True)
    turn = tower.turn_id
    await world.gm.command("act", combatant="twilight", action="end_turn")
    await world.gm.command("adjudicate", combatant="stalker", description="listens", dc=12)
    await tower.wait_until(lambda: any(a["action"] == "submit_roll" for a in tower.legal))
    assert world.state.current == "stalker" and tower.turn_id == turn
    (request,) = world.state.pending_rolls
    await tower.command("server_roll", request=request)
    await world.gm.command("act", combatant="stalker", action="end_turn")
    assert world.state.current == "dog"


async def test_a_snapshot_taken_during_a_hidden_turn_shows_the_last_visible_one(
        server: Server, clients: list[Client]) -> None:
    """A reader who joins (or loads the room anew) while the stalker's turn runs is shown
    the encounter as the table was last told it: Twilight's turn, at its cursor."""
    world, _ = await ambush(server, clients)
    player = world.seats["twilight"]
    await player.send_command("act", combatant="twilight", action="end_turn")
    await world.gm.wait_until(lambda: world.state.current == "stalker")
    late = await open_seat(world.url, world.tokens["twilight"], clients)
    assert late.snapshot is not None
    assert late.snapshot["state"]["current"] == "twilight"
    assert late.snapshot["cursor"] == player.last_cursor
    assert late.legal == player.legal and late.turn_id == player.turn_id


async def test_a_cursor_that_is_not_one_is_refused(server: Server,
                                                   clients: list[Client]) -> None:
    world, _ = await ambush(server, clients)
    token = world.tokens["twilight"]
    cursor = world.seats["twilight"].last_cursor
    assert cursor is not None
    for bad, why in [("A" * 22, "not a cursor of this encounter"),
                     ("A" * 21, "a cursor is 22 characters")]:
        client = await open_client(world.url, clients)
        with pytest.raises(CommandError) as err:
            await client.hello(token, features=CURSOR_FEATURES, cursor=bad)
        assert err.value.code == "invalid_payload" and why in err.value.reply["message"]
    both = await open_client(world.url, clients)
    with pytest.raises(CommandError) as err:
        await both.hello(token, since=3, cursor=cursor)
    assert "not both" in err.value.reply["message"]
    link = await open_client(world.url + f"?spectate=x&cursor={cursor[:-1]}!", clients)
    refused = await link.wait_for(lambda m: m["type"] == "error")
    assert refused["code"] == "invalid_payload" and "cursor in the URL" in refused["message"]
    # another encounter's cursor names nothing here
    other, _ = await ambush(server, clients)
    stranger = await open_client(world.url, clients)
    with pytest.raises(CommandError):
        await stranger.hello(other.tokens["twilight"], cursor=cursor)


async def test_a_protocol_1_reader_is_never_told_a_seq_behind_the_screen(
        server: Server, clients: list[Client]) -> None:
    """Without the cursor feature the seqs count the log (gaps are normal), but the acks and
    legal actions name only seqs of events the reader received."""
    world, _ = await ambush(server, clients)
    plain = await open_client(world.url, clients)
    plain.keep_wire = True
    await plain.hello(world.tokens["twilight"])
    await plain.wait_for(lambda m: m["type"] == "legal_actions")
    ended = await plain.send_command("act", combatant="twilight", action="end_turn")
    await world.gm.wait_until(lambda: world.state.current == "stalker")
    await world.gm.command("act", combatant="stalker", action="end_turn")
    ack = await ended
    seen = {m["seq"] for m in plain.events()}
    assert ack["seq"] in seen and plain.legal_seq in seen


def test_a_cursor_names_its_place_and_nothing_else() -> None:
    """Sealed and opened again: the seq and digest; another encounter's key opens none of
    them; cursors of neighbouring seqs share nothing a reader could count by."""
    here, there = Cursors(b"k" * 32, "enc-a"), Cursors(b"k" * 32, "enc-b")
    sealed = [here.seal(seq, f"digest{seq:06d}") for seq in range(1, 200)]
    assert [here.open(c) for c in sealed] == [(s, f"digest{s:06d}") for s in range(1, 200)]
    assert here.open(here.seal(0, "")) == (0, "")
    assert len(set(sealed)) == len(sealed) and {len(c) for c in sealed} == {22}
    refused = 0
    for c in sealed:
        try:
            there.open(c)
        except CursorError:
            refused += 1
    assert refused == len(sealed)
    # neighbours differ everywhere, not in a counting digit
    same = sum(a == b for x, y in itertools.pairwise(sealed)
               for a, b in zip(x, y, strict=True))
    assert same / (21 * len(sealed)) < 0.1


async def test_a_reader_held_behind_the_screen_resumes_on_a_process_started_after_a_kill(
        spawn: Any, clients: list[Client]) -> None:
    """The stalker's hidden turn runs; the server process is SIGKILLed; another one, which has
    never seen the encounter, loads it with the screen up: the player who resumes from its
    cursor there is told nothing new (its legal actions are those of Twilight's turn, which it
    was last told of), and once the GM ends the hidden turn it gets the end of Twilight's turn
    and the dog's, exactly once; its end of turn, sent again with its id, is answered as the
    duplicate it is."""
    first = spawn()
    anon = await open_client(first.url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Ambush", combatants=AMBUSH,
                             options={"dice_seed": 5})
    gm_token = ack["result"]["gm_token"]
    gm = await open_client(first.url, clients)
    await gm.hello(gm_token)
    invite = await gm.command("issue_invite", combatants=["twilight"])
    token = invite["result"]["token"]
    player = await open_seat(first.url, token, clients)
    await gm.command("start_encounter")
    await player.wait_until(lambda: player.turn_id is not None and any(
        a["action"] == "end_turn" for a in player.legal))
    held = player.legal
    await player.send_command("act", id="p-end", combatant="twilight", action="end_turn",
                              expect_turn=player.turn_id)
    await gm.wait_until(lambda: any(a["action"] == "end_turn" and a["combatant"] == "stalker"
                                    for a in gm.legal))
    await gm.command("ping")
    cursor, turn = player.last_cursor, player.turn_id
    assert cursor is not None
    first.kill()

    second = spawn()
    back = await open_seat(second.url, token, clients, cursor=cursor)
    assert back.snapshot is None and back.events() == []
    assert back.legal == held and back.turn_id == turn
    retry = await back.send_command("act", id="p-end", combatant="twilight",
                                    action="end_turn", expect_turn=turn)
    gm2 = await open_client(second.url, clients)
    await gm2.hello(gm_token, since=gm.last_seq, digest=gm.last_digest)
    await gm2.wait_for(lambda m: m["type"] == "legal_actions")
    await gm2.command("act", combatant="stalker", action="end_turn")
    answer = await retry
    assert answer["type"] == "ack" and answer["duplicate"] is True
    kinds = [(m["event"]["kind"], m["event"].get("combatant")) for m in back.events()]
    assert kinds == [("turn_ended", "twilight"), ("turn_started", "dog")]
    assert "stalker" not in str(received_by(back))


# --- anonymous hidden turns: the screen's turn (R99) ------------------------------------------

SCREENED = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 50},
    {"name": "Shadowy Stalker", "id": "stalker", "initiative": 25, "hidden": True},
    {"name": "Lurker", "id": "lurker", "initiative": 0, "hidden": True},
    {"name": "Diamond Dog", "id": "dog", "initiative": -25},
]


def screened(count: int = 10, hidden: bool = True, **options: Any) -> Table:
    """Twilight (about 60), the screen on ``count``, the dog (about -15); the stalker and
    the lurker (hidden, about 35 and 10) act in the screen's turn. Started: Twilight's turn."""
    roster = SCREENED if hidden else [c for c in SCREENED if not c.get("hidden")]
    t = Table(roster, dice_seed=5, anonymous_hidden_turns=True, screen_count=count, **options)
    t.do("start_encounter")
    assert t.state.current == "twilight"
    return t


def turns_seen(t: Table, viewer: Actor, since: int = 0) -> list[tuple[str, str | None]]:
    return [(m["event"]["kind"], m["event"].get("combatant")) for m in t.messages(viewer, since)
            if m["event"]["kind"] in ("turn_started", "turn_ended", "screen_moved")]


def test_the_screen_stands_on_the_count_the_gm_chose_and_moves_from_the_next_round() -> None:
    """The screen's place is its count, after the combatants on it: 20 puts it between
    Twilight and the dog; moved to -40 by ``set_options`` during round 1, everyone is told
    (``screen_moved``) and it moves as round 2 begins. The GM's order lists who acts in its
    turn right after it; the table's does not."""
    t = screened(count=20)
    spectator, player = t.spectator(), t.invite("twilight")
    assert t.view()["order"] == ["twilight", "screen", "stalker", "lurker", "dog"]
    for viewer in (spectator, player):
        view = t.view(viewer)
        assert view["order"] == ["twilight", "screen", "dog"]
        assert view["options"]["anonymous_hidden_turns"] is True
        assert view["options"]["screen_count"] == 20
        assert "screen" not in [e["combatant"] for e in view["initiative"]]
    seq = t.state.version
    options = {**msgspec.to_builtins(t.state.options), "screen_count": -40}
    t.do("set_options", options=options)
    assert [m["event"] for m in t.messages(spectator, seq)] == [
        {"kind": "screen_moved", "count": -40, "round": 2}]
    assert t.view(spectator)["order"] == ["twilight", "screen", "dog"]  # (this round: 20)
    for cid in ("twilight", "stalker", "lurker", "dog"):
        t.act(cid, "end_turn")
    assert t.state.round == 2 and t.view(spectator)["order"] == ["twilight", "dog", "screen"]
    # nor may it be moved into a count the wire cannot carry, nor turned off once started
    t.refused("set_options", options={**options, "screen_count": 5000})
    off = t.refused("set_options", options={**options, "anonymous_hidden_turns": False})
    assert off.code == "illegal_action" and "before start_encounter" in off.message
    assert t.replays()


def test_the_table_sees_the_screens_turn_whether_or_not_anyone_acts_behind_it() -> None:
    """The same turns for the table with the stalker and the lurker as with nobody behind the
    screen: Twilight's end, the screen's turn, the dog's; the table's ``current`` and ``turn``
    are the screen's while it runs, its budget untouched by what the stalker does."""
    seen = []
    for hidden in (True, False):
        t = screened(hidden=hidden)
        spectator = t.spectator()
        start = t.state.version
        t.act("twilight", "end_turn")
        assert t.view(spectator)["current"] == "screen"
        turn = t.view(spectator)["turn"]
        if hidden:
            assert t.state.current == "stalker" and t.view()["current"] == "stalker"
            t.act("stalker", "other_standard", note="sharpens its claws")
            assert t.view(spectator)["turn"] == turn
            assert "fresh" in t.view(spectator)["phase"] and "fresh" not in t.view()["phase"]
            t.act("stalker", "end_turn")
            t.act("lurker", "end_turn")
        else:
            t.act("screen", "end_turn")
        assert t.state.current == "dog" and not t.state.screen_turn
        seen.append(turns_seen(t, spectator, start))
        assert "stalker" not in str(t.messages(spectator)) and t.replays()
    assert seen[0] == seen[1] == [("turn_ended", "twilight"), ("turn_started", "screen"),
                                  ("turn_ended", "screen"), ("turn_started", "dog")]


def test_the_gm_ends_an_empty_screens_turn_and_only_then() -> None:
    """Nobody hidden: the screen's turn is the GM's to end, from its legal actions; a player
    may not, and while someone takes a turn behind it the GM ends theirs instead."""
    t = screened(hidden=False)
    player = t.invite("twilight")
    t.act("twilight", "end_turn")
    offered = [(a.action, a.combatant) for a in t.legal() if a.combatant == "screen"]
    assert offered == [("end_turn", "screen")]
    assert all(a.combatant != "screen" for a in t.legal(player))
    assert t.refused_act("screen", "end_turn", by=player).code == "forbidden"
    assert t.refused_act("screen", "attack").code == "illegal_action"
    assert t.act("screen", "end_turn") == ["turn_ended", "turn_started"]
    assert t.refused_act("screen", "end_turn").code == "not_your_turn"
    busy = screened()
    busy.act("twilight", "end_turn")
    refusal = busy.refused_act("screen", "end_turn")
    assert refusal.code == "not_your_turn" and "behind it" in refusal.message
    assert all(a.combatant != "screen" for a in busy.legal())


def test_no_combatant_takes_the_screens_id() -> None:
    """With the option, ``screen`` is the screen's: refused as an id, passed over as a name's
    slug, and the option refused while a combatant holds it; without it, nothing changes."""
    try:
        Table([{"name": "A screen", "id": "screen"}], anonymous_hidden_turns=True)
    except Refused as refusal:
        assert refusal.code == "invalid_payload" and "GM's screen" in refusal.message
    else:
        raise AssertionError("a combatant took the id screen")
    named = Table([{"name": "Screen"}], anonymous_hidden_turns=True)
    assert list(named.state.combatants) == ["screen-2"]
    plain = Table([{"name": "Screen"}])
    assert list(plain.state.combatants) == ["screen"]
    on = {**msgspec.to_builtins(plain.state.options), "anonymous_hidden_turns": True}
    assert plain.refused("set_options", options=on).code == "conflict"
    plain.do("remove_combatant", combatant="screen")
    plain.do("set_options", options=on)
    plain.do("add_combatant", combatant={"name": "Screen"})
    assert list(plain.state.combatants) == ["screen-2"]


def test_a_revealed_combatant_keeps_its_place_behind_the_screen_until_the_next_round() -> None:
    """The lurker is revealed during the stalker's turn: the table sees it from then on (its
    deeds too), but it takes this round's turn inside the screen's, as it would have; from
    the next round it acts on its own count, and the screen's turn holds the stalker alone."""
    t = screened(count=20)
    spectator = t.spectator()
    t.act("twilight", "end_turn")
    t.do("set_hidden", combatant="lurker", hidden=False)
    t.act("stalker", "end_turn")
    assert t.state.current == "lurker" and t.view(spectator)["current"] == "screen"
    start = t.state.version
    t.act("lurker", "other_standard", note="growls")
    t.act("lurker", "end_turn")
    kinds = [m["event"]["kind"] for m in t.messages(spectator, start)]
    assert kinds == ["action_taken", "turn_ended", "turn_started"]  # its deed; the screen's end
    assert t.view(spectator)["order"] == ["twilight", "screen", "lurker", "dog"]
    t.act("dog", "end_turn")
    t.act("twilight", "end_turn")
    assert t.state.current == "stalker"
    t.act("stalker", "end_turn")
    assert t.state.current == "lurker" and not t.state.screen_turn
    assert turns_seen(t, spectator)[-2:] == [("turn_ended", "screen"), ("turn_started", "lurker")]
    assert t.replays()


def test_a_hidden_delayer_acts_later_inside_the_screens_turn() -> None:
    """The stalker delays: the lurker acts, then the stalker, at the end of the screen's turn
    (R7.5 among those behind it); or, asking to act now during the lurker's turn, right after
    it. The table sees one turn of the screen either way."""
    for now in (False, True):
        t = screened()
        spectator = t.spectator()
        start = t.state.version
        t.act("twilight", "end_turn")
        t.act("stalker", "delay")
        assert t.state.current == "lurker" and t.state.screen_turn
        if now:
            t.act("stalker", "take_delayed_turn")
        t.act("lurker", "end_turn")
        assert t.state.current == "stalker" and t.state.screen_turn
        t.act("stalker", "end_turn")
        assert t.state.current == "dog"
        assert turns_seen(t, spectator, start) == [
            ("turn_ended", "twilight"), ("turn_started", "screen"),
            ("turn_ended", "screen"), ("turn_started", "dog")]
        assert "stalker" not in str(t.messages(spectator)) and t.replays()


def test_a_players_readied_action_interrupts_the_screens_turn_as_it_would_an_empty_one(
        ) -> None:
    """Twilight's readied action goes off during the stalker's turn: the table is told that it
    interrupts the screen's turn, and Twilight moves to act just ahead of the screen (R8.4),
    as with nobody behind it."""
    seen = []
    for hidden in (True, False):
        t = screened(hidden=hidden)
        spectator = t.spectator()
        t.act("twilight", "ready", action="other_standard", trigger="when something moves")
        t.act("twilight", "end_turn")
        start = t.state.version
        t.act("twilight", "trigger_ready")
        t.act("twilight", "other_standard", note="fires at the shadows")
        events = [m["event"] for m in t.messages(spectator, start)]
        assert events[0]["kind"] == "readied_action_triggered"
        assert events[0]["interrupting"] == "screen"
        seen.append(events)
        assert t.view(spectator)["order"] == ["twilight", "screen", "dog"] and t.replays()
    assert seen[0] == seen[1]


def test_a_hidden_readier_that_acted_before_the_screens_turn_has_no_turn_in_it() -> None:
    """R8.5, R99.4: the stalker readies during the screen's turn of round 1; in round 2 the GM
    triggers it during Twilight's turn. "You do not get your regular action in that round":
    the screen's turn of round 2 holds the lurker alone, as without the option the stalker's
    turn is passed over (before, the screen's turn gave it a regular turn all the same). From
    round 3 it acts behind the screen again."""
    turns = []
    for anonymous in (True, False):
        t = Table(SCREENED, dice_seed=5, anonymous_hidden_turns=anonymous, screen_count=10)
        t.do("start_encounter")
        t.act("twilight", "end_turn")
        t.act("stalker", "ready", action="other_standard", trigger="when Twilight moves")
        t.act("stalker", "end_turn")
        t.act("lurker", "end_turn")
        t.act("dog", "end_turn")
        assert t.state.round == 2 and t.state.current == "twilight"
        t.act("stalker", "trigger_ready")
        t.act("stalker", "other_standard", note="leaps from the dark")
        assert t.state.current == "twilight" and t.state.turn is not None \
            and t.state.turn.interrupted_by is None
        seen = []
        while t.state.round == 2:
            seen.append(t.state.current)
            t.act(t.state.current or "", "end_turn")
        turns.append(seen)
        assert t.replays()
        if anonymous:  # round 3: Twilight, then the screen's turn, the stalker first in it
            assert t.state.current == "twilight"
            t.act("twilight", "end_turn")
            assert t.state.current == "stalker" and t.state.screen_turn
        else:  # round 3: the stalker on Twilight's count, just ahead of it (R8.4)
            assert t.state.current == "stalker"
    assert turns == [["twilight", "lurker", "dog"], ["twilight", "lurker", "dog"]]


def test_without_the_option_nothing_names_the_screen() -> None:
    """Off by default: the hidden combatants act on their own counts and the table is held
    (R96); no view, event or option names a screen."""
    t = Table(SCREENED, dice_seed=5)
    t.do("start_encounter")
    spectator = t.spectator()
    t.act("twilight", "end_turn")
    assert t.state.current == "stalker"
    assert t.view(spectator)["current"] is None
    assert "screen" not in str(t.view(spectator))
    assert "screen" not in t.view()["order"]  # (the GM's options list it: off)
    assert set(t.view(spectator)["options"]) == {"players_roll", "npc_rolls_public"}
    for cid in ("stalker", "lurker", "dog", "twilight"):
        t.act(cid, "end_turn")
    assert "screen" not in str(t.messages(t.spectator()))
    assert all(m["event"].get("combatant") != "screen" for m in t.messages())


async def test_the_end_of_a_turn_into_the_screens_turn_is_told_at_once(
        server: Server, clients: list[Client]) -> None:
    """Over the wire, with anonymous hidden turns: Twilight's player ends its turn into the
    screen's, where the stalker acts; the player is not held (R96 is for hidden turns
    outside it): the end of its turn, the screen's turn, its legal actions and its ack come
    at once, with a new turn id; the screen's end and the dog's turn when the stalker's and
    the lurker's turns are over."""
    url = ws_url(server)
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Behind the screen", combatants=SCREENED,
                             options={"dice_seed": 5, "anonymous_hidden_turns": True,
                                      "screen_count": 10})
    gm = await open_client(url, clients)
    await gm.hello(ack["result"]["gm_token"])
    world = World(url, server, ack["result"]["encounter"], gm, ["stalker", "lurker"])
    invite = await gm.command("issue_invite", combatants=["twilight"])
    world.tokens["twilight"] = invite["result"]["token"]
    world.seats["twilight"] = player = await open_seat(url, world.tokens["twilight"], clients)
    await gm.command("start_encounter")
    await world.settle()
    turn, before = player.turn_id, len(received(world, "twilight"))
    answer = await player.command("act", combatant="twilight", action="end_turn",
                                  expect_turn=turn)
    got = received(world, "twilight")[before:]
    assert [m["type"] for m in got] == ["event", "event", "legal_actions_delta", "ack"]
    assert [(m["event"]["kind"], m["event"]["combatant"]) for m in got[:2]] == [
        ("turn_ended", "twilight"), ("turn_started", "screen")]
    assert answer["cursor"] == got[1]["cursor"] and player.turn_id != turn
    assert world.state.current == "stalker"
    await gm.command("act", combatant="stalker", action="end_turn")
    await gm.command("act", combatant="lurker", action="end_turn")
    await world.settle()
    kinds = [(m["event"]["kind"], m["event"].get("combatant")) for m in player.events()][-2:]
    assert kinds == [("turn_ended", "screen"), ("turn_started", "dog")]
    assert "stalker" not in str(received(world, "twilight"))
