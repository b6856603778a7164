"""The ``view`` feature: the server keeps each connection's state (``encounter.patches``).

The broad property (random scenes of both rulesets, hidden combatants, reveals, deaths, a map,
physical and server dice, every kind of credential, resumes) is in ``test_redaction``: with the
feature drawn on, after every step each connection's state is the snapshot of its credential.
Here: the pieces one by one, over real websockets, and the patch itself against the views of
random in-process scenes.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import jsonpatch
import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients.client import FEATURES, Client, CommandError
from encounter.actors import Actor
from encounter.harness import Table
from encounter.patches import KEPT_PATCHES, Memo, Shown, diff, follow, show
from encounter.views import view_state
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import (
    caught_up,
    create_table,
    open_client,
    play_turns,
    until_turn_of,
    wait_current,
)

VIEW = [*FEATURES, "view"]


def expected(server: Server, client: Client) -> dict[str, Any]:
    """The snapshot's ``state`` a new connection of ``client``'s credential would get now."""
    assert client.welcome is not None
    room = server.rooms.peek(client.welcome["encounter"])
    assert room is not None
    grant = room.state.tokens[client.welcome["token_id"]]
    actor = Actor(role=grant.role, token_id=grant.token_id,
                  combatants=frozenset(grant.combatants), scopes=frozenset(grant.scopes))
    return orjson.loads(msgspec.json.encode(view_state(room.state_for(actor), actor)))  # type: ignore[no-any-return]


async def viewer(url: str, token: str, opened: list[Client], **hello: Any) -> Client:
    client = await open_client(url, opened)
    client.keep_wire = True
    await client.hello(token, features=hello.pop("features", VIEW), **hello)
    await client.wait_for(lambda m: m["type"] == "legal_actions")
    return client


async def test_the_view_brings_batch_and_a_patch_after_every_change(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    player = await viewer(url, table.tokens["twilight"], clients, features=["view"])
    assert player.welcome is not None and player.welcome["features"] == ["batch", "view"]
    assert player.state == expected(server, player)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 6)
    await caught_up(player)
    assert player.state == expected(server, player) and player.view_mismatches == 0
    views = [m for m in player.messages if m["type"] == "view"]
    assert views and all(m["patch"] for m in views)
    # each view leaves in the websocket message of the events of its change, after them
    for frame in player.wire:
        inside = [m["type"] for m in frame.get("messages", [frame])]
        if "view" in inside:
            assert frame["type"] == "batch" and inside.index("view") > 0
            assert inside[inside.index("view") - 1] == "event"
    # the position it names is the last event's before it
    for i, m in enumerate(player.messages):
        if m["type"] == "view":
            last = next(e for e in reversed(player.messages[:i]) if e["type"] == "event")
            assert m["seq"] == last["seq"]


async def test_a_hidden_turn_gives_the_table_no_patch(server: Server,
                                                      clients: list[Client]) -> None:
    """The lurker's hidden turn changes nothing a player's state holds: no view until the
    next visible turn, then one."""
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    player = await viewer(url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    await until_turn_of(table.gm, "lurker")
    await caught_up(player)
    before = len(player.messages)
    await table.gm.command("act", combatant="lurker", action="other_standard")
    await caught_up(player)
    assert player.messages[before:] == [m for m in player.messages[before:]
                                        if m["type"] == "ack"]  # (its ping's)
    await table.gm.command("act", combatant="lurker", action="end_turn")
    await caught_up(player)
    assert [m["type"] for m in player.messages[before:]].count("view") == 1
    assert player.state == expected(server, player)
    assert "lurker" not in str(player.messages)


@pytest.mark.parametrize("cursor", [False, True])
async def test_a_resume_brings_the_state_held_up_to_date_with_one_patch(
        server: Server, clients: list[Client], cursor: bool) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    features = [*VIEW, "cursor"] if cursor else VIEW
    spectator = await viewer(url, table.spectator_token, clients, features=features)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    await caught_up(spectator)
    held, seq, at = spectator.state, spectator.last_seq, spectator.last_cursor
    digest = spectator.last_digest
    await spectator.close()
    await play_turns(table.gm, {}, 5)
    back = await open_client(url, clients)
    back.state = held
    if cursor:
        await back.hello(table.spectator_token, cursor=at, features=features)
    else:
        await back.hello(table.spectator_token, since=seq, digest=digest, features=features)
    await back.wait_for(lambda m: m["type"] == "legal_actions")
    await caught_up(back)
    kinds = [m["type"] for m in back.messages]
    assert "snapshot" not in kinds and kinds.count("view") == 1
    assert kinds.index("view") > max(i for i, k in enumerate(kinds) if k == "event")
    assert back.state == expected(server, back) and back.view_mismatches == 0


async def test_a_resume_the_kept_patches_do_not_reach_gets_a_snapshot(
        server: Server, clients: list[Client]) -> None:
    """A connection without the view resumes with it: the server holds no view of it at that
    position, so the events are followed by a snapshot (``resume_gap``)."""
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    plain = await viewer(url, table.tokens["dash"], clients, features=FEATURES)
    await table.gm.command("start_encounter")
    await caught_up(plain)
    seq, digest = plain.last_seq, plain.last_digest
    await plain.close()
    await play_turns(table.gm, {}, 2)
    back = await viewer(url, table.tokens["dash"], clients, since=seq, digest=digest)
    await caught_up(back)
    snapshots = [m for m in back.messages if m["type"] == "snapshot"]
    assert [s["reason"] for s in snapshots] == ["resume_gap"]
    assert back.state == expected(server, back)


async def test_get_snapshot_answers_with_the_state_now(server: Server,
                                                       clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    player = await viewer(url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 3)
    await caught_up(player)
    player.state = {"broken": True}  # a client whose state went wrong starts again
    mark = len(player.messages)
    await player.command("get_snapshot")
    got = player.messages[mark:]
    assert [m["type"] for m in got] == ["snapshot"]
    assert got[0]["reason"] == "asked" and got[0]["seq"] == player.last_seq
    assert player.state == expected(server, player)
    # a patch that does not apply to the state held asks for a snapshot by itself
    player.state = {"broken": True}
    await play_turns(table.gm, {}, 1)
    await player.wait_for(lambda m: m["type"] == "snapshot" and m["reason"] == "asked",
                          start=mark + 1)
    await caught_up(player)
    assert player.view_mismatches == 1 and player.state == expected(server, player)


async def test_a_spectator_link_asks_for_the_view_in_its_url(server: Server,
                                                            clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=3)
    overlay = await Client.open(f"{url}?spectate={table.spectator_token}&features=view")
    clients.append(overlay)
    await overlay.wait_for(lambda m: m["type"] == "legal_actions")
    assert overlay.welcome is not None and "view" in overlay.welcome["features"]
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    await caught_up(overlay)
    assert any(m["type"] == "view" for m in overlay.messages)
    assert overlay.state == expected(server, overlay)


async def test_the_screens_turn_is_the_tables_own_when_it_sees_whoever_acts_behind_it(
        server: Server, clients: list[Client]) -> None:
    """Anonymous hidden turns (R99): the stalker, revealed during the round, takes its turn
    behind the screen all the same; the GM and the spectator then see the same combatants,
    but the GM's ``current`` is the stalker and the spectator's the screen: each patched state
    is its credential's snapshot."""
    url = ws_url(server)
    table = await create_table(url, clients, [
        {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 50},
        {"name": "Shadowy Stalker", "id": "stalker", "initiative": 0, "hidden": True},
        {"name": "Diamond Dog", "id": "dog", "initiative": -50}],
        dice_seed=3, anonymous_hidden_turns=True, screen_count=10)
    gm = await viewer(url, table.gm_token, clients)
    watcher = await viewer(url, table.spectator_token, clients)
    await gm.command("start_encounter")
    await gm.command("set_hidden", combatant="stalker", hidden=False)
    await gm.command("act", combatant="twilight", action="end_turn")
    await gm.command("act", combatant="stalker", action="other_standard", args={"note": "x"})
    for client in (gm, watcher):
        await caught_up(client)
        assert client.state == expected(server, client)
    assert gm.state is not None and watcher.state is not None
    assert (gm.state["current"], watcher.state["current"]) == ("stalker", "screen")
    assert watcher.state["turn"]["combatant"] == "screen" and "fresh" in watcher.state["phase"]
    await gm.command("act", combatant="stalker", action="end_turn")
    for client in (gm, watcher):
        await caught_up(client)
        assert client.state == expected(server, client)
        assert client.state is not None and client.state["current"] == "dog"


async def same_log(*servers: Server, encounter: str, timeout: float = 5.0) -> None:
    """Until every server's room holds the same log (the events of one reach the others
    through Redis)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        rooms = [s.rooms.peek(encounter) for s in servers]
        heads = {(r.version, r.head) for r in rooms if r is not None}
        if len(heads) == 1 and None not in rooms:
            return
        assert loop.time() < deadline, heads
        await asyncio.sleep(0.01)


async def test_views_across_two_processes_whose_commands_race(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    """Two processes end the same turn at once, again and again: one append loses each time,
    the winner's events reach the loser's room from the other process, and every viewer on
    both processes holds its snapshot's state, patched, after each race. The spectators leave
    for the last two races and come back by a resume: the room folded the other process's
    events into its state in place, and the step their kind of view had kept to that state
    object must not stand for what it holds now (one patch, from where they were, to now)."""
    a, b = ws_url(server), ws_url(server_b)
    table = await create_table(a, clients, dice_seed=5)
    gm_b = await viewer(b, table.gm_token, clients)
    watchers = [(await viewer(a, table.tokens["twilight"], clients), server),
                (await viewer(b, table.tokens["twilight"], clients), server_b),
                (await viewer(a, table.spectator_token, clients), server),
                (await viewer(b, table.spectator_token, clients), server_b),
                (await viewer(a, table.gm_token, clients), server), (gm_b, server_b)]
    await table.gm.command("start_encounter")
    lost = 0
    for race in range(8):
        if race == 6:  # the spectators go, to come back two races later
            gone = [(c.state, c.last_seq, c.last_digest) for c, _on in watchers[2:4]]
            for c, _on in watchers[2:4]:
                await c.close()
            watchers[2:4] = []
        actor = await wait_current(table.gm)
        await gm_b.wait_for(lambda m, actor=actor: m["type"] == "legal_actions" and any(
            x["action"] == "end_turn" and x.get("combatant") == actor for x in m["actions"]))
        results = await asyncio.gather(
            table.gm.command("act", combatant=actor, action="end_turn"),
            gm_b.command("act", combatant=actor, action="end_turn"), return_exceptions=True)
        lost += sum(isinstance(r, CommandError) for r in results)
        await table.gm.command("ping")
        await same_log(server, server_b, encounter=table.encounter)
        for client, _on in watchers:
            await caught_up(client)
        for client, on in watchers:
            assert client.state == expected(on, client)
            assert client.view_mismatches == 0
    assert lost == 8
    for (held, seq, digest), url, on in zip(gone, (a, b), (server, server_b), strict=True):
        back = await open_client(url, clients)
        back.state = held
        await back.hello(table.spectator_token, since=seq, digest=digest, features=VIEW)
        await back.wait_for(lambda m: m["type"] == "legal_actions")
        await caught_up(back)
        kinds = [m["type"] for m in back.messages]
        assert "snapshot" not in kinds and kinds.count("view") == 1
        assert back.state == expected(on, back) and back.view_mismatches == 0


# --- the patch, in process ------------------------------------------------------------------

EXAMPLES = ["dramatic-ponies-vs-diamond-dogs.yaml", "action-time-ponies-vs-diamond-dogs.yaml",
            "dramatic-canterlot-garden-party.yaml", "dramatic-everfree-timberwolves.yaml"]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(example=st.sampled_from(EXAMPLES), seed=st.integers(1, 10_000),
       screen=st.none() | st.integers(-10, 30), shared=st.booleans())
def test_patches_build_each_viewers_view_in_random_play(example: str, seed: int,
                                                        screen: int | None,
                                                        shared: bool) -> None:
    """Random legal actions (with the arguments their lists offer), reveals and hidings,
    with anonymous hidden turns (R99: ``screen``, the screen's count) or without: after each
    command every viewer's view, patched, is ``view_state``; no patch replaces the root or a
    whole combatant. ``shared``: the viewers share one memo, as a room's do, half of them are
    shown their view a few commands after the others (as connections join)."""
    anonymous = {} if screen is None else {"anonymous_hidden_turns": True,
                                           "screen_count": screen}
    t = Table.from_example(example, dice_seed=seed, **anonymous)
    gm = t.actor(next(iter(t.state.tokens)))
    pcs = [c.id for c in t.state.combatants.values() if c.kind == "pc"]
    viewers = [gm, t.invite(pcs[0]), t.spectator(), t.integration("roll"), t.invite(pcs[-1]),
               t.spectator(), t.integration("command:players"), t.actor(gm.token_id)]
    t.do("start_encounter")
    memo = Memo() if shared else None
    shown: list[Shown | None] = [None] * len(viewers)
    held: list[Any] = [None] * len(viewers)
    rng = random.Random(seed)
    for n in range(40):
        for i, v in enumerate(viewers):
            if shown[i] is None and (not shared or n == 5 or i < len(viewers) // 2):
                shown[i] = s = show(t.state, v, t.state.version, memo)
                held[i] = orjson.loads(orjson.dumps(s.view))
        try:
            command(t, gm, rng)
        except Exception:  # refused: nothing changed
            continue
        for i, v in enumerate(viewers):
            s = shown[i]
            if s is None:
                continue
            ops = follow(s, t.state, v, t.state.version)
            for op in ops:
                assert op["path"] and not (op["op"] == "replace"
                                           and op["path"].count("/") == 2
                                           and op["path"].startswith("/combatants/")), op
            held[i] = jsonpatch.apply_patch(held[i], orjson.loads(orjson.dumps(ops)))
            assert held[i] == orjson.loads(msgspec.json.encode(view_state(t.state, v)))
        if memo is not None:
            memo.settle()


def command(t: Table, gm: Actor, rng: random.Random) -> None:
    s = t.state
    for request in list(s.pending_rolls):
        t.do("server_roll", request=request)
        return
    if rng.random() < 0.1:
        npcs = [c for c in s.combatants.values() if c.kind == "npc"]
        if npcs:
            c = rng.choice(npcs)
            t.do("set_hidden", combatant=c.id, hidden=not c.hidden)
            return
    acts = [a for a in t.legal(gm) if a.combatant is not None]
    if not acts or rng.random() < 0.3:
        if s.current is not None:
            t.act(s.current, "end_turn")
        return
    a = rng.choice(acts)
    args: dict[str, Any] = {}
    if a.targets:
        args["target"] = rng.choice(a.targets)
    for option, values in (a.options or {}).items():
        if values:
            args[option] = rng.choice(values)
    t.act(a.combatant, a.action, **args)


def test_a_patch_is_as_small_as_the_change() -> None:
    ops: list[dict[str, Any]] = []
    old = {"a": 1, "combatants": [{"id": "x", "v": {"f": 1, "g": 2}}, {"id": "y", "v": 1}],
           "effects": [{"id": "e1"}, {"id": "e2"}], "order": ["x", "y"],
           "phase": ["scene", "acting", "fresh"]}
    new = {"a": 1, "combatants": [{"id": "x", "v": {"f": 3, "g": 2}}, {"id": "y", "v": 1},
                                  {"id": "z", "v": 0}],
           "effects": [{"id": "e2"}], "order": ["y", "x"],
           "phase": ["scene", "acting", "underway"], "b/c~": None}
    diff("", old, new, ops)
    assert ops == [
        {"op": "replace", "path": "/combatants/0/v/f", "value": 3},
        {"op": "add", "path": "/combatants/2", "value": {"id": "z", "v": 0}},
        {"op": "remove", "path": "/effects/0"},
        {"op": "replace", "path": "/order", "value": ["y", "x"]},
        {"op": "replace", "path": "/phase/2", "value": "underway"},
        {"op": "add", "path": "/b~1c~0", "value": None},
    ]
    assert jsonpatch.apply_patch(old, ops) == new


def test_the_patches_kept_reach_back_a_bounded_way() -> None:
    t = Table.from_example(EXAMPLES[0], dice_seed=1)
    gm = t.actor(next(iter(t.state.tokens)))
    t.do("start_encounter")
    shown = show(t.state, gm, t.state.version)
    first = shown.at
    for _ in range(KEPT_PATCHES + 5):
        t.act(t.state.current, "end_turn")
        follow(shown, t.state, gm, t.state.version)
    assert shown.after(first) is None  # no longer kept
    assert shown.after(shown.at) == b"[]"
    assert shown.after(shown.since) is not None


@pytest.mark.parametrize(("fatigue", "top", "band"), [
    (10, 10, "full"), (9, 10, "above_half"), (6, 10, "above_half"), (5, 10, "half_or_less"),
    (1, 10, "half_or_less"), (0, 10, "none"), (3, 5, "above_half"), (2, 5, "half_or_less"),
    (0, 0, None), (None, None, None)])
def test_the_band_of_fatigue_points(fatigue: int | None, top: int | None,
                                    band: str | None) -> None:
    """R105: one-half or less is the line of Second Lunch; 0 is the line of defenselessness."""
    from rules.condition_track import fatigue_band

    assert fatigue_band(fatigue, top) == band


async def test_an_npcs_points_stay_behind_the_screen_its_band_does_not(
        server: Server, clients: list[Client]) -> None:
    """R105 over the wire: a player's view of the GM's NPC has its band and not its points,
    patched only when a band is crossed; the GM's override reaches the player without the
    values it set (``gm_ruling.changes``), the GM with them."""
    url = ws_url(server)
    table = await create_table(url, clients)
    player = await viewer(url, table.tokens["twilight"], clients)
    gm = await viewer(url, table.gm_token, clients)

    def dog(client: Client) -> dict[str, Any]:
        assert client.state is not None
        return next(c for c in client.state["combatants"] if c["id"] == "dog")["vitals"]  # type: ignore[no-any-return]

    top = dog(gm)["fatigue_max"]
    assert top >= 4 and dog(player) | {"fatigue": top, "fatigue_max": top} == dog(gm)
    assert dog(player)["fatigue"] is None and dog(player)["band"] == "full"
    await table.gm.command("adjust_combatant", combatant="dog", fatigue=top - 1, reason="graze")
    await caught_up(player)
    await caught_up(gm)
    assert dog(player)["band"] == "above_half" and dog(player)["fatigue"] is None
    assert player.state == expected(server, player) and gm.state == expected(server, gm)
    patches = sum(1 for f in player.wire for m in f.get("messages", [f]) if m["type"] == "view")
    await table.gm.command("adjust_combatant", combatant="dog", fatigue=top - 2, reason="graze")
    await caught_up(player)
    # the same band: the player's view did not change, and no patch came
    assert sum(1 for f in player.wire for m in f.get("messages", [f])
               if m["type"] == "view") == patches
    rulings = [m["event"] for m in player.events() if m["event"]["kind"] == "gm_ruling"]
    assert rulings and all(r["changes"] == [] and r["fatigue_secret"] for r in rulings)
    told = [m["event"] for m in gm.events() if m["event"]["kind"] == "gm_ruling"]
    assert told[-1]["changes"] == [{"field": "fatigue", "value": top - 2}]


# --- what the numbers read of the vitals ------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(fatigue=st.integers(-3, 40), other=st.integers(-3, 40), prone=st.booleans(),
       step=st.integers(0, 5), unconscious=st.booleans())
def test_vitals_that_read_alike_give_the_same_numbers(fatigue: int, other: int, prone: bool,
                                                      step: int, unconscious: bool) -> None:
    """``numbers_read_of`` (Dramatic's ``combatant_view_reads``) keeps of the vitals what the
    numbers read: two vitals it gives the same for give the same numbers, worked out afresh."""
    from encounter.state import Track, copy_state
    from rulesets.dramatic import views as dv

    t = Table.from_example("dramatic-ponies-vs-diamond-dogs.yaml")
    cid = next(c.id for c in t.state.combatants.values() if c.kind == "pc")
    a = msgspec.structs.replace(
        t.state.vitals[cid], fatigue=fatigue, prone=prone, physical=Track(step=step),
        condition=("unconscious", "fit") if unconscious else ("active", "fit"))
    b = msgspec.structs.replace(a, fatigue=other)
    numbers = []
    for v in (a, b):
        s = copy_state(t.state)
        s.vitals[cid] = v
        dv._NUMBERS.clear()
        numbers.append(dv.numbers_of(s, cid))
    if dv.numbers_read_of(a) == dv.numbers_read_of(b):
        assert numbers[0] == numbers[1]


def test_a_loss_of_fatigue_points_leaves_the_numbers_a_step_down_the_track_changes_them(
        ) -> None:
    """The GM holds every combatant's numbers: fatigue points lost above 0 leave the target's
    numbers the same object, with no operation on them; a step down the physical condition
    track (its penalty on the defenses, R15) changes them, and the patch says so. Every view
    is ``view_state``'s."""
    from encounter.state import Track, copy_state

    t = Table.from_example("dramatic-ponies-vs-diamond-dogs.yaml")
    gm = t.actor(next(iter(t.state.tokens)))
    t.do("start_encounter")
    memo = Memo()
    shown = show(t.state, gm, t.state.version, memo)
    held = orjson.loads(orjson.dumps(shown.view))
    cid = next(c.id for c in t.state.combatants.values() if c.kind == "npc")
    before = shown.own["numbers"][cid]
    for change, changes in (({"fatigue": 3}, False), ({"fatigue": 2}, False),
                            ({"physical": Track(step=2)}, True)):
        state = copy_state(t.state)
        state.vitals[cid] = msgspec.structs.replace(state.vitals[cid], **change)
        state.version += 1
        ops = follow(shown, state, gm, state.version)
        assert any(op["path"].startswith(f"/numbers/{cid}/") for op in ops) is changes, ops
        assert (shown.own["numbers"][cid] is before) is not changes
        held = jsonpatch.apply_patch(held, orjson.loads(orjson.dumps(ops)))
        assert held == orjson.loads(msgspec.json.encode(view_state(state, gm)))
        memo.settle()
        t.state = state
