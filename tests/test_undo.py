"""Undo by the log (ruling R108), through the protocol: the GM takes back commands by an
appended ``commands_undone``; the encounter is as it was where it goes back to for every
viewer (the state its patches built, or the snapshot it is sent, equal to a fresh snapshot of
its credential), the events taken back stay in the log and are marked in the history, a
resume across the undo is exact (with the view and without it), an undone hidden deed or act
tells the table nothing (nor an undo back to before a hidden turn, but its count), and what is
done again rolls new dice (physical ones by a new request). In-process (``encounter.harness``):
the fold of a log with undos equals the state the decider kept, on random play of both
rulesets."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from clients.client import FEATURES, Client, CommandError
from clients.dice_check import check_dice
from encounter.harness import Refused, Table
from protocol.events import DiceRolled
from server.app import Server
from tests.conftest import ServerProcess, ws_url
from tests.helpers import (
    caught_up,
    create_table,
    join,
    open_client,
    play_turns,
    until_turn_of,
    wait_current,
)
from tests.redis_procs import RedisProcess
from tests.test_faults import start_server
from tests.test_verifiable_dice import _history
from tests.test_view import VIEW, expected, viewer

FOLDS = [*FEATURES, "cursor"]  # a client without the view: it gets snapshots


def rolls(client: Client) -> list[dict[str, Any]]:
    return [m["event"]["roll"] for m in client.events() if m["event"]["kind"] == "dice_rolled"]


async def scene(server: Server, clients: list[Client], **options: Any) -> Any:
    """Twilight's turn in a fight; her player and a spectator watching with the view, a
    second player's page and a spectator without it."""
    url = ws_url(server)
    table = await create_table(url, clients, **options)
    gm = table.gm
    player = await viewer(url, table.tokens["twilight"], clients)
    watcher = await viewer(url, table.spectator_token, clients)
    folding = await viewer(url, table.tokens["dash"], clients, features=FOLDS)
    plain = await viewer(url, table.spectator_token, clients, features=FEATURES)
    await gm.command("start_encounter")
    if options.get("players_roll"):
        await server_rolls(gm)
    await until_turn_of(gm, "twilight")
    return table, gm, player, [player, watcher, folding, plain]


async def server_rolls(gm: Client) -> None:
    """The GM answers every roll asked for by a server roll until the first turn starts (the
    players' initiative, with ``players_roll``)."""
    answered: set[str] = set()

    def unanswered() -> list[dict[str, Any]]:
        return [m["event"] for m in gm.events() if m["event"]["kind"] == "roll_requested"
                and m["event"]["request"] not in answered]

    while not any(m["event"]["kind"] == "turn_started" for m in gm.events()):
        await gm.wait_for(lambda m: m["type"] == "event" and (
            m["event"]["kind"] == "turn_started" or bool(unanswered())))
        for asked in unanswered():
            answered.add(asked["request"])
            await gm.command("server_roll", request=asked["request"])


async def attack_by_hand(player: Client, *faces: list[int]) -> list[dict[str, Any]]:
    """Twilight attacks the dog with physical dice, her player answering each roll the attack
    asks for with the next of ``faces``; the ``roll_requested`` events, in order."""
    mark = len(player.messages)
    await player.command("act", combatant="twilight", action="attack",
                         args={"target": "dog"}, expect_turn=player.turn_id)
    asked: list[dict[str, Any]] = []
    for shown in faces:
        known = {a["request"] for a in asked}
        message = await player.wait_for(
            lambda m, known=known: m["type"] == "event" and m["event"]["kind"]
            == "roll_requested" and m["event"]["request"] not in known, start=mark)
        asked.append(message["event"])
        await player.command("submit_roll", request=message["event"]["request"], faces=shown)
    return asked


def dog_fatigue(client: Client) -> Any:
    assert client.state is not None
    dog = next(c for c in client.state["combatants"] if c["id"] == "dog")
    return dog["vitals"]["fatigue"]


async def settled(server: Server, everyone: list[Client]) -> None:
    """Every client has what was sent to it; those with the view hold the state of now."""
    for c in everyone:
        await caught_up(c)
    for c in everyone:
        if "view" in (c.welcome or {}).get("features", []):
            await c.wait_until(lambda c=c: c.state == expected(server, c), timeout=5)


async def test_undoing_an_attack_restores_fatigue_budget_and_turn_for_every_viewer(
        server: Server, clients: list[Client]) -> None:
    """Twilight's player hits the dog with physical dice (15 against its Reflex 10, then 4
    damage), and the GM takes the attack back: the dog's fatigue points (the GM's to see),
    her action and the turn are as they were, for every viewer."""
    table, gm, player, everyone = await scene(server, clients, players_roll=True)
    screen = await viewer(ws_url(server), table.gm_token, clients)  # the GM's, with the view
    viewing = [*everyone[:2], screen]
    everyone = [*everyone, screen]
    await settled(server, everyone)
    before = {id(c): copy.deepcopy(c.state) for c in viewing}
    before.update({id(c): expected(server, c) for c in everyone if c not in viewing})
    fatigue = dog_fatigue(screen)
    assert fatigue is not None and dog_fatigue(player) is None  # the points: the GM's (R105)
    dog = copy.deepcopy(next(c for c in player.state["combatants"] if c["id"] == "dog"))
    budget, turn = dict(player.state["turn"]["budget"]), player.turn_id
    start = gm.last_seq
    asked = await attack_by_hand(player, [15], [4])
    assert [a["purpose"] for a in asked] == ["attack", "damage"]
    await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "damage_dealt")
    await settled(server, everyone)
    hit = [m["event"] for m in gm.events() if m["event"]["kind"] == "attack_resolved"]
    assert [(h["natural"], h["outcome"]) for h in hit] == [(15, "hit")]
    assert dog_fatigue(screen) < fatigue and dog_fatigue(player) is None
    assert player.state["turn"]["budget"] != budget
    for c in viewing:
        assert c.state != before[id(c)] and c.state == expected(server, c)
    # the GM takes the attack back: three commands (the act and the two rolls)
    marks = {id(c): len(c.messages) for c in everyone}
    ack = await gm.command("undo", back_to=start, reason="the wrong target")
    assert ack["result"]["back_to"] == start and ack["result"]["taken_back"] >= 6
    undone = await gm.wait_for(lambda m: m["type"] == "event"
                               and m["event"]["kind"] == "commands_undone")
    assert undone["event"]["back_to"] == ack["result"]["back_to"]
    assert len(undone["event"]["taken_back"]) == ack["result"]["taken_back"]
    await settled(server, everyone)
    for c in everyone:  # as it was before the attack, for every kind of viewer, the GM's too
        assert c.state == before[id(c)] == expected(server, c), c.welcome
        after = c.messages[marks[id(c)]:]
        kinds = [m["event"]["kind"] if m["type"] == "event" else m["type"] for m in after]
        # the undo, then the state whole (for a client that folds; the others too)
        assert kinds.index("commands_undone") < kinds.index("snapshot"), kinds
        assert next(m for m in after if m["type"] == "snapshot")["reason"] == "rewound"
    assert dog_fatigue(screen) == fatigue
    assert player.state["turn"]["budget"] == budget
    assert next(c for c in player.state["combatants"] if c["id"] == "dog") == dog
    assert player.state["current"] == "twilight"
    mine = next(m for m in player.events() if m["event"]["kind"] == "commands_undone")
    assert mine["event"]["back_to"] is None and mine["event"]["taken_back"] == []
    assert mine["event"]["seen"] >= 4 and mine["event"]["reason"] == "the wrong target"
    # a command meant for the turn as it was before the undo is stale: the turn id moved on
    await player.wait_until(lambda: player.turn_id != turn)
    with pytest.raises(CommandError) as stale:
        await player.command("act", combatant="twilight", action="end_turn", expect_turn=turn)
    assert stale.value.code == "stale"


async def test_a_resume_across_an_undo_replays_what_was_taken_back_marked(
        server: Server, clients: list[Client]) -> None:
    """A connection that left before the attack resumes after its undo, with the view and
    without it: the attack's events come marked ``taken_back: true``, then the undo, then the
    ``rewound`` snapshot; the state it ends with is a fresh snapshot's."""
    table, gm, player, everyone = await scene(server, clients)
    await settled(server, everyone)
    since, digest = player.last_seq, player.last_digest
    mark = len(player.messages)
    await player.command("act", combatant="twilight", action="attack",
                         args={"target": "dog"}, expect_turn=player.turn_id)
    await caught_up(player)
    await gm.command("undo")
    await player.wait_for(lambda m: m["type"] == "snapshot" and m["reason"] == "rewound",
                          start=mark)
    live = [m for m in player.messages[mark:] if m["type"] == "event"]
    assert [m["event"]["kind"] for m in live][-1] == "commands_undone"
    url = ws_url(server)
    for features in (VIEW, list(FEATURES)):
        back = await open_client(url, clients)
        await back.hello(table.tokens["twilight"], since=since, digest=digest,
                         features=features)
        await back.wait_for(lambda m: m["type"] == "snapshot" and m["reason"] == "rewound")
        await caught_up(back)
        replayed = back.events()
        assert [(m["seq"], m["event"]) for m in replayed] \
            == [(m["seq"], m["event"]) for m in live], features
        assert [bool(m.get("taken_back")) for m in replayed] \
            == [True] * (len(live) - 1) + [False], features
        kinds = [m["event"]["kind"] if m["type"] == "event" else m["type"]
                 for m in back.messages]
        assert kinds.index("commands_undone") < kinds.index("snapshot"), kinds
        assert back.state == expected(server, back), features


async def test_the_history_keeps_what_was_taken_back_marked_and_a_resume_is_exact(
        server: Server, clients: list[Client]) -> None:
    table, gm, player, everyone = await scene(server, clients)
    await settled(server, everyone)
    seen_before = len(player.events())
    await player.command("act", combatant="twilight", action="attack",
                         args={"target": "dog"}, expect_turn=player.turn_id)
    await caught_up(player)
    seen = len(player.events())
    since, digest = player.last_seq, player.last_digest
    await player.close()
    await gm.command("undo")
    # back: the events it missed (none were shown to it) and the state as it is now
    url = ws_url(server)
    back = await open_client(url, clients)
    await back.hello(table.tokens["twilight"], since=since, digest=digest, features=VIEW)
    await back.wait_for(lambda m: m["type"] == "legal_actions")
    await caught_up(back)
    assert back.state == expected(server, back)
    assert any(m["type"] == "snapshot" and m["reason"] == "rewound" for m in back.messages)
    assert [m["event"]["kind"] for m in back.events()] == ["commands_undone"]
    # the history: the attack's events marked, as many as it was shown; the undo after them
    await back.command("get_history", limit=50)
    history = next(m for m in reversed(back.messages) if m["type"] == "history")["events"]
    kinds = [(m["event"]["kind"], bool(m.get("taken_back"))) for m in history]
    assert kinds[-1] == ("commands_undone", False)
    gone = [k for k, marked in kinds if marked]
    attack = [m["event"]["kind"] for m in player.events()[seen_before:seen]]
    assert gone == attack and "action_taken" in gone
    assert [k for k, marked in kinds[:-1] if not marked][-1] == "turn_started"


async def test_an_undone_hidden_deed_tells_the_table_nothing(
        server: Server, clients: list[Client]) -> None:
    """The GM adds a hidden combatant and takes it back: the table gets no event, no
    snapshot, no patch and the same legal actions; the GM's log has both."""
    _table, gm, _player, everyone = await scene(server, clients)
    await settled(server, everyone)
    marks = {id(c): len(c.messages) for c in everyone}
    await gm.command("add_combatant", combatant={
        "name": "Shade", "id": "shade", "kind": "npc", "hidden": True,
        "stats": {"fatigue_points": 8}})
    await gm.command("undo", reason="not yet")
    await settled(server, everyone)
    # then something they see (not the end of the turn: a hidden turn may come next)
    await gm.command("adjust_combatant", combatant="dash", prone=True, reason="slips")
    for c in everyone:
        await c.wait_for(lambda m: m["type"] == "event"
                         and m["event"]["kind"] == "gm_ruling", start=marks[id(c)])
        told = c.messages[marks[id(c)]:]
        assert not [m for m in told if m["type"] == "snapshot"], c.welcome
        assert not [m for m in told if m["type"] == "event" and m["event"]["kind"]
                    in ("commands_undone", "combatant_added")]
        assert "shade" not in str(told).lower()
    assert [m["event"]["kind"] for m in gm.events()[-5:]].count("commands_undone") == 1


async def test_an_undone_hidden_act_tells_the_table_nothing(
        server: Server, clients: list[Client]) -> None:
    """The hidden Lurking Dog acts twice out of turn (free actions, the GM's to see), and the
    GM takes both back at once (``back_to`` two commands back): the players and spectators
    get no ``commands_undone``, no snapshot and no change; the GM's view is as it was."""
    table, gm, _player, everyone = await scene(server, clients)
    screen = await viewer(ws_url(server), table.gm_token, clients)
    await settled(server, [*everyone, screen])
    marks = {id(c): len(c.messages) for c in everyone}
    states = {id(c): copy.deepcopy(c.state) for c in everyone}
    before, start = copy.deepcopy(screen.state), gm.last_seq
    for note in ("creeps closer", "bares its teeth"):
        await gm.command("act", combatant="lurker", action="free", args={"note": note})
    await settled(server, [*everyone, screen])
    acted = [m["event"] for m in gm.events() if m["event"]["kind"] == "action_taken"]
    assert [(a["combatant"], a["hidden"]) for a in acted[-2:]] == [("lurker", True)] * 2
    ack = await gm.command("undo", back_to=start, reason="too soon")
    assert ack["result"] == {"back_to": start, "taken_back": 2}
    undone = await gm.wait_for(lambda m: m["type"] == "event"
                               and m["event"]["kind"] == "commands_undone")
    assert undone["event"]["seen"] == 0 and len(undone["event"]["taken_back"]) == 2
    await settled(server, [*everyone, screen])
    assert screen.state == before == expected(server, screen)
    # then something they see (not the end of the turn: a hidden turn may come next)
    await gm.command("adjust_combatant", combatant="dash", prone=True, reason="slips")
    for c in everyone:
        ruling = await c.wait_for(lambda m: m["type"] == "event"
                                  and m["event"]["kind"] == "gm_ruling", start=marks[id(c)])
        told = c.messages[marks[id(c)]:c.messages.index(ruling)]
        assert [m["type"] for m in told if m["type"] not in ("pong", "ack")] == [], told
        assert "lurk" not in str(c.messages[marks[id(c)]:]).lower()
        assert "creeps" not in str(c.messages[marks[id(c)]:]).lower()
        if "view" in (c.welcome or {}).get("features", []):
            assert c.state != states[id(c)]  # the ruling, and nothing else:
            assert c.state == expected(server, c)


async def test_undo_back_several_commands_to_before_a_hidden_turn(
        server: Server, clients: list[Client]) -> None:
    """Turns pass until the hidden Lurking Dog's turn, which the GM plays (it falls prone) and
    ends; the GM goes back several commands, to before the turn that led into the hidden one
    (back into the hidden turn is refused). The table's ``seen`` counts the events it was
    shown of what was taken back, and nothing of the hidden turn reaches it."""
    table, gm, _player, everyone = await scene(server, clients)
    screen = await viewer(ws_url(server), table.gm_token, clients)
    watching = [*everyone, screen]
    await settled(server, watching)
    marks: dict[int, int] = {}
    states: dict[int, Any] = {}
    start = gm.last_seq
    for _ in range(12):
        if await wait_current(gm) == "lurker":
            break
        start = gm.last_seq
        marks = {id(c): len(c.messages) for c in watching}
        states = {id(c): copy.deepcopy(c.state) for c in watching}
        await play_turns(gm, {}, 1)
        await settled(server, watching)
    assert await wait_current(gm) == "lurker"
    inside = gm.last_seq  # the hidden turn has started: the table has not been told
    await gm.command("act", combatant="lurker", action="fall_prone")
    with pytest.raises(CommandError) as refused:
        await gm.command("undo")
    assert refused.value.code == "illegal_action"
    await play_turns(gm, {}, 1)
    await settled(server, watching)
    with pytest.raises(CommandError) as refused:  # back into the hidden turn
        await gm.command("undo", back_to=inside)
    assert refused.value.code == "illegal_action"
    shown = {id(c): [m for m in c.messages[marks[id(c)]:] if m["type"] == "event"]
             for c in everyone}
    ack = await gm.command("undo", back_to=start)
    assert ack["result"]["back_to"] == start and ack["result"]["taken_back"] >= 6
    await settled(server, watching)
    for c in watching:
        assert c.state == expected(server, c), c.welcome
        if "view" in (c.welcome or {}).get("features", []):
            assert c.state == states[id(c)], c.welcome
    for c in everyone:
        after = c.messages[marks[id(c)]:]
        undone = [m["event"] for m in after if m["type"] == "event"
                  and m["event"]["kind"] == "commands_undone"]
        assert len(undone) == 1 and undone[0]["back_to"] is None
        assert undone[0]["seen"] == len(shown[id(c)]) > 0, shown[id(c)]
        assert "lurk" not in str(after).lower(), c.welcome
        assert [m["reason"] for m in after if m["type"] == "snapshot"] == ["rewound"]


async def test_an_undone_attack_by_physical_dice_asks_for_new_dice_when_done_again(
        server: Server, clients: list[Client]) -> None:
    """The attack's physical dice were rolled and it is taken back: done again, it asks for
    new dice by a new request; the old request is answered no more, and no face shown before
    is used."""
    _table, gm, player, everyone = await scene(server, clients, players_roll=True)
    await settled(server, everyone)
    start = gm.last_seq
    first = await attack_by_hand(player, [15], [4])
    await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "damage_dealt")
    await gm.command("undo", back_to=start)
    await settled(server, everyone)
    assert player.state["pending_rolls"] == []
    old = {a["request"] for a in first}
    mark, gm_mark = len(player.messages), len(gm.messages)
    await player.command("act", combatant="twilight", action="attack",
                         args={"target": "dog"}, expect_turn=player.turn_id)
    asked = await player.wait_for(lambda m: m["type"] == "event"
                                  and m["event"]["kind"] == "roll_requested", start=mark)
    request = asked["event"]["request"]
    assert request not in old and asked["event"]["purpose"] == "attack"
    await settled(server, everyone)
    assert [p["request"] for p in player.state["pending_rolls"]] == [request]
    # nothing is rolled until the player answers: not the faces of before
    assert not [m for m in gm.messages[gm_mark:] if m["type"] == "event"
                and m["event"]["kind"] in ("dice_rolled", "attack_resolved")]
    for taken in old:
        with pytest.raises(CommandError) as refused:
            await player.command("submit_roll", request=taken, faces=[15])
        assert refused.value.code in ("not_found", "illegal_action", "invalid_payload")
    await player.command("submit_roll", request=request, faces=[3])
    resolved = await gm.wait_for(lambda m: m["type"] == "event"
                                 and m["event"]["kind"] == "attack_resolved", start=gm_mark)
    assert (resolved["event"]["natural"], resolved["event"]["outcome"]) == (3, "miss")
    again = [r for r in (m["event"]["roll"] for m in gm.messages[gm_mark:]
                         if m["type"] == "event" and m["event"]["kind"] == "dice_rolled")]
    assert [(r["manual"], [d["face"] for d in r["dice"]]) for r in again] == [(True, [3])]


async def test_a_player_asks_to_undo_its_last_action_and_the_gm_grants_or_refuses(
        server: Server, clients: list[Client]) -> None:
    _table, gm, player, everyone = await scene(server, clients)
    dash = everyone[2]
    await player.command("act", combatant="twilight", action="attack",
                         args={"target": "dog"}, expect_turn=player.turn_id)
    await player.wait_until(lambda: any(e["action"] == "request_undo" for e in player.legal))
    assert not any(e["action"] == "request_undo" for e in dash.legal)
    with pytest.raises(CommandError) as refused:  # not Dash's player's to ask
        await dash.command("request_undo", combatant="dash")
    assert refused.value.code in ("illegal_action", "forbidden")
    await player.command("request_undo", combatant="twilight", reason="meant the other dog")
    asked = await gm.wait_for(lambda m: m["type"] == "event"
                              and m["event"]["kind"] == "undo_requested")
    request = asked["event"]["request"]
    await settled(server, everyone)
    assert [r["request"] for r in player.state["undo_requests"]] == [request]
    assert everyone[1].state["undo_requests"] == []  # a spectator is not told
    assert not [m for m in dash.events() if m["event"]["kind"] == "undo_requested"]
    # refused: the action stays
    await gm.command("refuse_undo", request=request, reason="it stands")
    await settled(server, everyone)
    assert player.state["undo_requests"] == []
    assert any(m["event"]["kind"] == "undo_refused" for m in player.events())
    # asked again and granted: the attack is taken back
    await player.command("request_undo", combatant="twilight")
    asked = await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"]
                              == "undo_requested" and m["event"]["request"] != request)
    ack = await gm.command("undo", request=asked["event"]["request"])
    assert ack["result"]["taken_back"] >= 2
    await settled(server, everyone)
    assert player.state["turn"]["budget"]["standard"] is True
    assert player.state["undo_requests"] == []
    undone = next(m for m in player.events() if m["event"]["kind"] == "commands_undone")
    assert undone["event"]["requested_by"] == "twilight"
    with pytest.raises(CommandError):  # nothing of hers to ask back now
        await player.command("request_undo", combatant="twilight")


async def test_undo_refuses_what_it_cannot_take_back(server: Server,
                                                     clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    player = await join(url, table.tokens["twilight"], clients)
    with pytest.raises(CommandError) as refused:
        await player.command("undo")
    assert refused.value.code == "forbidden"
    with pytest.raises(CommandError) as refused:  # an id that is not where a command ended
        await gm.command("undo", back_to=3)
    assert refused.value.code == "invalid_payload"
    with pytest.raises(CommandError) as refused:
        await gm.command("undo", request="nobody-asked")
    assert refused.value.code == "not_found"
    await gm.command("end_encounter")
    with pytest.raises(CommandError) as refused:
        await gm.command("undo")
    assert refused.value.code == "illegal_action"


@pytest.mark.parametrize("seed", range(12))
def test_the_fold_of_a_log_with_undos_is_the_state_kept(seed: int) -> None:
    """Random play with undos of one or several commands back (in-process): after every
    step the log folds to the decider's state, each viewer's view is what it was before the
    commands taken back, and no server roll's place is drawn twice."""
    rng = random.Random(seed)
    example = rng.choice(["dramatic-ponies-vs-diamond-dogs.yaml",
                          "action-time-ponies-vs-diamond-dogs.yaml"])
    t = Table.from_example(example, dice_secret=b"s" * 32)
    views: dict[int, dict[str, Any]] = {t.state.version: t.view()}
    t.do("start_encounter")
    views[t.state.version] = t.view()
    undos = 0
    for _ in range(40):
        if rng.random() < 0.25 and len(t.state.commands) > 2:
            back = rng.choice(t.state.commands[-4:-1])
            try:
                t.do("undo", back_to=back)
            except Refused as refused:  # a hidden turn the table has not been told of
                assert "hidden combatant's turn" in refused.message
                continue
            undos += 1
            assert t.view() | {"dice": None} == views[back] | {"dice": None}
        else:
            legal = [e for e in t.legal() if e.action in ("end_turn", "attack", "melee_attack",
                                                          "move", "delay")]
            entry = rng.choice(legal) if legal else None
            if entry is None or entry.combatant is None:
                break
            args: dict[str, Any] = {}
            if entry.targets:
                args["target"] = rng.choice(entry.targets)
            try:
                t.act(entry.combatant, entry.action, **args)
            except Refused:
                continue
            while t.state.pending_rolls:
                views[t.state.version] = t.view()
                t.do("server_roll", request=next(iter(t.state.pending_rolls)))
        views[t.state.version] = t.view()
        assert t.replays()
    assert undos
    places = [e.event.roll.place for e in t.envelopes
              if isinstance(e.event, DiceRolled) and e.event.roll.place]
    assert len(places) == len(set(places))


async def test_another_process_serves_the_undo_to_its_connections(
        server: Server, redis_server: RedisProcess, procs: list[ServerProcess],
        clients: list[Client]) -> None:
    """The GM takes back an attack on one process; a player with the view on another process
    (which folds the undo from the log, R108) holds the state a fresh snapshot gives, and a
    spectator joining there afterwards gets the same."""
    url = ws_url(server)
    table = await create_table(url, clients)
    other = start_server(procs, redis_server.url)
    gm = table.gm
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    there = await Client.open(other.url)
    try:
        await there.hello(table.tokens["twilight"], features=VIEW)
        await there.wait_for(lambda m: m["type"] == "legal_actions")
        before = copy.deepcopy(there.state)
        await there.command("act", combatant="twilight", action="attack",
                            args={"target": "dog"}, expect_turn=there.turn_id)
        await there.wait_until(lambda: there.state != before)
        await gm.command("undo")
        await there.wait_for(lambda m: m["type"] == "snapshot" and m["reason"] == "rewound")
        await caught_up(there)
        assert there.state == before and there.view_mismatches == 0
        late = await Client.open(other.url)
        try:
            await late.hello(table.tokens["twilight"], features=VIEW)
            await late.wait_for(lambda m: m["type"] == "snapshot")
            assert late.state == there.state
        finally:
            await late.close()
    finally:
        await there.close()


async def test_the_dice_check_and_a_replay_hold_across_undos(
        server: Server, clients: list[Client]) -> None:
    """With undos in the log: once the encounter ends, the dice check accepts every server
    roll each credential was shown (those taken back too: their places are never drawn
    again), and a spectator's replay ends on the state a spectator holds live."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    spectator = await viewer(url, table.spectator_token, clients)
    player = await viewer(url, table.tokens["twilight"], clients)
    await gm.command("start_encounter")
    await until_turn_of(gm, "twilight")
    for _ in range(2):  # an attack, taken back; then again, and the end of the turn
        await player.command("act", combatant="twilight", action="attack",
                             args={"target": "dog"}, expect_turn=player.turn_id)
        await caught_up(player)
        await gm.command("undo")
        await caught_up(player)
    await player.command("act", combatant="twilight", action="attack",
                         args={"target": "dog"}, expect_turn=player.turn_id)
    await play_turns(gm, {}, 4)
    await gm.command("end_encounter")
    for c in (gm, player, spectator):
        await caught_up(c)
        log = await _history(c)
        assert sum(1 for m in log if m.get("taken_back")) >= 4
        report = check_dice(log)
        assert report.honest and report.verified > 0, report.text()
    assert spectator.state == expected(server, spectator)
    watcher = await open_client(url, clients)
    await watcher.hello(table.spectator_token, features=VIEW, replay={"speed": 1000})
    await watcher.wait_for(lambda m: m["type"] == "replay_ended", timeout=30)
    assert watcher.state == spectator.state and watcher.view_mismatches == 0
