"""The features a connection negotiates in ``hello``, against a real server and Redis over real
websockets: one websocket message per command per client (``batch``: the command's events,
the new legal actions and the ack together), and legal actions as deltas against the
connection's previous list (``legal_delta``), which fold to exactly the full lists a
connection without the feature gets. Connections that ask for neither keep one message per
server message and full lists."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from clients.client import Client
from clients.view import DeltaMismatch, apply_legal_delta
from server.app import Server
from server.wire import BATCH_BYTES, batched, delta_items
from tests.conftest import ws_url
from tests.helpers import create_table, join, open_client, wait_current

Message = dict[str, Any]

# Four ponies and four dogs on a map with a wall and difficult terrain: moves, attacks and ends
# of turn change many entries of the legal actions (targets, what is left of the turn).
SKIRMISH = [
    {"name": f"{'Pony' if i % 2 == 0 else 'Dog'} {i}", "id": f"c{i}",
     "kind": "pc" if i % 2 == 0 else "npc", "initiative": 20 - i,
     "position": [i // 2 * 2, 0 if i % 2 == 0 else 7],
     "stats": {"skills": {"ranged": 6}, "fatigue_points": 10_000,
               "weapons": [{"name": "sling", "damage": "1d6", "kind": "ranged"}]}}
    for i in range(8)]
SKIRMISH_MAP = {"width": 10, "height": 10, "walls": [[[5, 2], [5, 5]]],
                "difficult": [[0, 2], [2, 2], [4, 5], [6, 6]]}


def entry_list(rng: random.Random, pool: list[bytes]) -> list[bytes]:
    return [rng.choice(pool) for _ in range(rng.randrange(0, 12))]


def test_a_delta_applied_to_the_previous_list_gives_the_new_one() -> None:
    rng = random.Random(19)
    pool = [orjson.dumps({"action": a, "combatant": c}) for a in ("move", "attack", "end_turn")
            for c in (None, "x", "y")]
    for _ in range(2000):
        before, after = entry_list(rng, pool), entry_list(rng, pool)
        items = delta_items(before, after)
        delta = {"base": 7, "actions": [orjson.loads(i) for i in items]}
        previous = [orjson.loads(e) for e in before]
        assert apply_legal_delta(previous, delta, 7) == [orjson.loads(e) for e in after]
        # every index of the previous list is named at most once
        named = [i for item in delta["actions"] if isinstance(item, list)
                 for i in range(item[0], item[0] + item[1])]
        assert len(named) == len(set(named))
    # an unchanged list is one run; a list of new entries has no run
    same = [pool[0], pool[1], pool[2]]
    assert delta_items(same, same) == [b"[0,3]"]
    assert delta_items([], same) == same


def test_a_delta_for_another_list_is_refused() -> None:
    with pytest.raises(DeltaMismatch):
        apply_legal_delta([{"action": "x"}], {"base": 3, "actions": [[0, 1]]}, 4)
    with pytest.raises(DeltaMismatch):
        apply_legal_delta([{"action": "x"}], {"base": 3, "actions": [[0, 2]]}, 3)


def test_batches_hold_what_was_queued_in_order_and_stay_bounded() -> None:
    small = [b'{"type":"ack","id":"%d"}' % i for i in range(5)]
    [one] = batched(small)
    assert [m["id"] for m in orjson.loads(one)["messages"]] == ["0", "1", "2", "3", "4"]
    assert batched(small[:1]) == small[:1]  # a lone message leaves unwrapped
    big = b'{"type":"snapshot","state":"' + b"x" * BATCH_BYTES + b'"}'
    out = batched([small[0], big, small[1], small[2]])
    assert out[0] == small[0] and out[1] == big
    assert [m["id"] for m in orjson.loads(out[2])["messages"]] == ["1", "2"]


async def test_hello_grants_the_features_it_knows(server: Server,
                                                  clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    asked = await open_client(url, clients)
    welcome = await asked.hello(table.gm_token, features=["batch", "zstd", "legal_delta"])
    assert welcome["features"] == ["batch", "legal_delta"]
    plain = await open_client(url, clients)
    assert (await plain.hello(table.gm_token, features=[]))["features"] == []


async def skirmish(server: Server, clients: list[Client]) -> tuple[str, str, str]:
    """An encounter on the map: its id, the GM token and a player's (ponies 0 and 2)."""
    creator = await open_client(ws_url(server), clients)
    await creator.hello()
    ack = await creator.command("create_encounter", name="Skirmish", combatants=SKIRMISH,
                                map=SKIRMISH_MAP, options={"dice_seed": 19})
    gm = await join(ws_url(server), ack["result"]["gm_token"], clients)
    invite = await gm.command("issue_invite", combatants=["c0", "c2"])
    return ack["result"]["encounter"], ack["result"]["gm_token"], invite["result"]["token"]


def moves_of(cid: str, back: bool) -> list[list[int]]:
    i = int(cid[1:])
    x, home, ahead = i // 2 * 2, 0 if i % 2 == 0 else 7, 1 if i % 2 == 0 else -1
    if back:
        return [[x, home + ahead], [x, home]]
    return [[x, home + ahead], [x, home + 2 * ahead]]


async def play(gm: Client, player: Client, turns: int,
               after: Any = None) -> None:
    """Each turn: the current combatant moves, shoots at the enemy in its column, ends its
    turn, sent by whoever controls it; ``after`` is awaited after each command."""
    moved: set[str] = set()
    for _ in range(turns):
        actor = await wait_current(gm)
        who = player if actor in ("c0", "c2") else gm
        i = int(actor[1:])
        enemy = f"c{i + 1 if i % 2 == 0 else i - 1}"
        await who.command("act", combatant=actor, action="move",
                          args={"path": moves_of(actor, actor in moved)})
        moved ^= {actor}
        if after:
            await after()
        await who.command("act", combatant=actor, action="attack",
                          args={"target": enemy, "weapon": "sling"})
        if after:
            await after()
        await who.command("act", combatant=actor, action="end_turn")
        if after:
            await after()


async def test_one_websocket_message_per_command_per_client(server: Server,
                                                            clients: list[Client]) -> None:
    url = ws_url(server)
    encounter, gm_token, player_token = await skirmish(server, clients)
    gm = await join(url, gm_token, clients)
    player = await join(url, player_token, clients)
    spectator_token = (await gm.command("issue_spectator_link"))["result"]["token"]
    spectator = await open_client(f"{url}?spectate={spectator_token}&features=batch", clients)
    old = await open_client(url, clients)
    await old.hello(gm_token, features=[])
    await spectator.wait_for(lambda m: m["type"] == "welcome")
    assert spectator.welcome is not None and spectator.welcome["features"] == ["batch"]
    everyone = (gm, player, spectator, old)
    for c in everyone:
        c.keep_wire = True
    await gm.command("start_encounter")

    counted: list[tuple[int, ...]] = []
    marks = [0, 0, 0, 0]

    async def settle() -> None:
        seq = gm.last_seq
        for c in everyone:
            await c.wait_seq(seq)
            await c.command("ping")  # all that the command caused has arrived before this ack
        counted.append(tuple(c.frames - m for c, m in zip(everyone, marks, strict=True)))
        marks[:] = [c.frames for c in everyone]

    await settle()
    counted.clear()
    await play(gm, player, 4, settle)
    assert len(counted) == 12
    for gm_n, player_n, spectator_n, old_n in counted:
        # one message for the command (events, legal actions, the sender's ack), one for the
        # ping's ack; today's framing sends each message in its own
        assert (gm_n, player_n, spectator_n) == (2, 2, 2)
        assert old_n > 3
    # the sender's message: the events, then its legal actions, then the ack naming the last
    sent = [f for f in gm.wire if f["type"] == "batch"
            and f["messages"][-1]["type"] == "ack" and f["messages"][0]["type"] == "event"]
    assert sent
    for frame in sent:
        inner = frame["messages"]
        kinds = [m["type"] for m in inner]
        events = [m for m in inner if m["type"] == "event"]
        assert kinds == ["event"] * len(events) + kinds[len(events):]
        assert set(kinds[len(events):-1]) <= {"legal_actions", "legal_actions_delta"}
        assert inner[-1]["seq"] == events[-1]["seq"]
    # the old connection never sees a batch nor a delta
    assert {f["type"] for f in old.wire}.isdisjoint({"batch", "legal_actions_delta"})
    assert encounter


async def test_deltas_fold_to_the_full_lists(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    _encounter, gm_token, player_token = await skirmish(server, clients)
    pairs = []
    for token in (gm_token, player_token):
        delta = await open_client(url, clients)
        delta.keep_wire = True
        await delta.hello(token)
        full = await open_client(url, clients)
        full.keep_wire = True
        await full.hello(token, features=[])
        pairs.append((delta, full))
    gm, player = pairs[0][0], pairs[1][0]
    checked = 0

    async def same() -> None:
        nonlocal checked
        for delta, full in pairs:
            await delta.command("ping")
            await full.command("ping")
            assert delta.legal == full.legal
            assert delta.turn_id == full.turn_id and delta.legal_seq == full.legal_seq
            checked += 1

    await gm.command("start_encounter")
    await same()
    await play(gm, player, 6, same)
    assert checked > 30

    def legal_frames(c: Client) -> list[Message]:
        inner = [m for f in c.wire for m in (f["messages"] if f["type"] == "batch" else [f])]
        return [m for m in inner if m["type"] in ("legal_actions", "legal_actions_delta")]

    for delta, full in pairs:
        got, whole = legal_frames(delta), legal_frames(full)
        assert len(got) == len(whole)  # the same moments, the same seqs
        assert [m["seq"] for m in got] == [m["seq"] for m in whole]
        assert got[0]["type"] == "legal_actions"  # after the snapshot: the full list
        deltas = [m for m in got if m["type"] == "legal_actions_delta"]
        assert len(deltas) > len(got) // 2
        size = sum(len(orjson.dumps(m)) for m in got)
        assert size < 0.6 * sum(len(orjson.dumps(m)) for m in whole)
        assert delta.delta_mismatches == 0


async def test_the_full_list_after_a_snapshot_and_on_request(server: Server,
                                                             clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await gm.command("start_encounter")
    await gm.command("act", combatant=await wait_current(gm), action="delay")
    again = await open_client(url, clients)
    again.keep_wire = True
    await again.hello(table.gm_token)
    await again.command("ping")
    inner = [m for f in again.wire for m in (f["messages"] if f["type"] == "batch" else [f])]
    assert [m["type"] for m in inner][:3] == ["welcome", "snapshot", "legal_actions"]
    mark = len(again.wire)
    ack = await again.command("get_legal_actions")
    [frame] = again.wire[mark:]
    assert [m["type"] for m in frame["messages"]] == ["legal_actions", "ack"]
    full = frame["messages"][0]
    assert full["actions"] == gm.legal and full["seq"] == ack["seq"] == gm.last_seq
    # a resume (since) gets the full list after the missed events too
    resumed = await open_client(url, clients)
    resumed.keep_wire = True
    await resumed.hello(table.gm_token, since=gm.last_seq - 1)
    await resumed.command("ping")
    inner = [m for f in resumed.wire for m in (f["messages"] if f["type"] == "batch" else [f])]
    assert "legal_actions" in [m["type"] for m in inner]
    assert "legal_actions_delta" not in [m["type"] for m in inner]
    assert resumed.legal == gm.legal


async def test_the_seat_of_the_terminal_client_and_the_bots_asks_for_its_features(
        server: Server, clients: list[Client]) -> None:
    """``Seat`` asks for batches, deltas, cursors, the view and the summaries: its legal
    actions are the full list's, its state the one a snapshot gives."""
    from clients.live import SEAT_FEATURES, Seat

    url = ws_url(server)
    _encounter, gm_token, _player = await skirmish(server, clients)
    full = await open_client(url, clients)
    await full.hello(gm_token, features=[])
    seat = Seat(url, gm_token).start()
    try:
        await seat.wait_online()
        await seat.wait_until(lambda: seat.welcome is not None)
        assert seat.welcome is not None
        assert sorted(seat.welcome["features"]) == sorted(SEAT_FEATURES)
        await seat.command("start_encounter")
        for _ in range(3):
            actor = await wait_current(full)
            await seat.command("act", combatant=actor, action="end_turn")
            await full.command("ping")
            await seat.wait_until(lambda: seat.legal == full.legal)
        assert seat.client is not None and seat.client.frames < len(seat.client.messages)
        await full.command("get_snapshot")
        assert full.snapshot is not None and seat.view.state == full.snapshot["state"]
        assert seat.cursor is not None and seat.log and all(line.text for line in seat.log)
    finally:
        await seat.stop()


def test_the_python_seat_asks_for_what_the_javascript_package_asks_for() -> None:
    """One list of the reference clients' features: the package's ``DEFAULT_FEATURES`` (read
    from its source), the Python seat's and the benchmark's default are the same."""
    import re
    from pathlib import Path

    from bench.__main__ import build_parser
    from clients.client import REFERENCE_FEATURES
    from clients.live import SEAT_FEATURES

    source = (Path(__file__).resolve().parent.parent / "clients/js/src/client.js").read_text()
    found = re.search(r"export const DEFAULT_FEATURES = \[([^\]]*)\];", source)
    assert found is not None, "DEFAULT_FEATURES is no longer a literal list in client.js"
    js = re.findall(r'"([^"]+)"', found.group(1))
    assert tuple(js) == REFERENCE_FEATURES == SEAT_FEATURES
    assert tuple(build_parser().parse_args([]).features) == REFERENCE_FEATURES


LEAN = ["batch", "legal_delta", "cursor", "view", "summaries", "legal_changed", "batch_head",
        "legal_recall"]
WHOLE = ["batch", "legal_delta", "cursor", "view", "summaries"]


async def test_legal_changed_sends_legal_actions_only_when_they_change_and_holds_the_turn(
        server: Server, clients: list[Client]) -> None:
    """With ``legal_changed`` a waiting player is sent nothing while its options stay the same
    turn after turn; it folds to the list a connection without the feature holds, and the
    ``turn_id`` it holds stays good for ``expect_turn`` (without the feature it is stale)."""
    from clients.client import CommandError
    from tests.helpers import PARTY

    url = ws_url(server)
    party = [c for c in PARTY if not c.get("hidden")]  # (a table's ack waits for the screen)
    table = await create_table(url, clients, party, dice_seed=7)
    lean, whole = await open_client(url, clients), await open_client(url, clients)
    for client, features in ((lean, LEAN), (whole, WHOLE)):
        client.keep_wire = True
        await client.hello(table.tokens["fluttershy"], features=features)
    await table.gm.command("start_encounter")

    def legal_messages(client: Client) -> int:
        return sum(1 for f in client.wire for m in (f["messages"] if f["type"] == "batch"
                                                    else [f])
                   if m["type"].startswith("legal_actions"))

    turns: list[str | None] = []
    for _ in range(5):
        actor = await wait_current(table.gm)
        sender = whole if actor == "fluttershy" else table.gm
        await sender.command("act", combatant=actor, action="end_turn")
        await lean.command("ping")
        await whole.command("ping")
        assert lean.legal == whole.legal  # the same list, sent less often
        turns.append(whole.turn_id)
    assert legal_messages(lean) < legal_messages(whole)
    assert any(a["action"] == "free" for a in lean.legal)
    # the turn_id the lean connection holds is good; an old one of the other is stale
    ack = await lean.command("act", combatant="fluttershy", action="free",
                             args={"note": "Oh my"}, expect_turn=lean.turn_id)
    assert ack["type"] == "ack"
    old = next(t for t in turns if t != whole.turn_id)
    with pytest.raises(CommandError) as stale:
        await whole.command("act", combatant="fluttershy", action="free",
                            args={"note": "Oh my"}, expect_turn=old)
    assert stale.value.code == "stale"


async def test_batch_head_says_ts_and_cursor_once_per_batch(
        server: Server, clients: list[Client]) -> None:
    """With ``batch_head`` the events, patches and legal actions of a change leave out
    ``encounter`` (the connection's), the events their ``ts`` and the messages at the
    viewer's position their ``cursor``, which their batch says; made whole again, they are
    the messages a connection without the feature gets."""
    from tests.helpers import PARTY

    url = ws_url(server)
    table = await create_table(url, clients, PARTY)
    lean, whole = await open_client(url, clients), await open_client(url, clients)
    for client, features in ((lean, ["batch", "cursor", "view", "batch_head"]),
                             (whole, ["batch", "cursor", "view"])):
        client.keep_wire = True
        await client.hello(table.gm_token, features=features)
    assert "batch_head" in (lean.welcome or {}).get("features", [])
    await table.gm.command("start_encounter")
    for _ in range(3):
        actor = await wait_current(table.gm)
        await table.gm.command("act", combatant=actor, action="end_turn")
    await lean.command("ping")
    await whole.command("ping")
    headed = [f for f in lean.wire if f["type"] == "batch" and "ts" in f]
    assert headed and all("encounter" not in f for f in headed)
    inner = [m for f in headed for m in f["messages"]]
    assert all("encounter" not in m for m in inner if m["type"] in ("event", "view"))
    assert all("ts" not in m for m in inner if m["type"] == "event")
    assert all("cursor" not in m for m in inner if m["type"] == "view")
    assert all(f["ts"] > 0 and len(f["cursor"]) == 22 for f in headed)

    # made whole, the same messages as without the feature
    def changes(client: Client) -> list[Message]:
        return [m for m in client.messages if m["type"] in ("event", "view", "legal_actions")]

    assert changes(lean) == changes(whole)
    assert lean.received_bytes < whole.received_bytes


def test_batched_head_splits_on_ts_and_cursor_and_leaves_alone_what_says_it_all() -> None:
    from clients.client import unbatch
    from server.wire import LEAN, batched_head

    out = batched_head([b'{"type":"event","a":1}', b'{"type":"view"}',
                        b'{"type":"event","a":2}', b'{"type":"ack"}'],
                       [(5, None), (None, "c1"), (6, "c2"), None])
    assert [orjson.loads(f) for f in out] == [
        {"type": "batch", "ts": 5, "cursor": "c1",
         "messages": [{"type": "event", "a": 1}, {"type": "view"}]},
        {"type": "batch", "ts": 6, "cursor": "c2",
         "messages": [{"type": "event", "a": 2}, {"type": "ack"}]}]
    assert batched_head([b'{"type":"view"}'], [LEAN]) == [b'{"type":"view"}']
    assert batched_head([b'{"type":"ack"}'], [None]) == [b'{"type":"ack"}']
    assert unbatch(orjson.loads(out[0]), "e1") == [
        {"type": "event", "a": 1, "encounter": "e1", "ts": 5, "cursor": "c1"},
        {"type": "view", "encounter": "e1", "cursor": "c1"}]


async def test_legal_recall_names_a_turn_that_comes_back_and_folds_to_the_full_list(
        server: Server, clients: list[Client]) -> None:
    """With ``legal_recall`` the actions of a turn that comes back are named by reference to
    what the connection recalls of the combatant; the GM and a player fold, after every
    command of moves, attacks and ends of turn, to the lists of connections given them in
    full, and are sent fewer bytes of them (on this map the targets move every turn: an end
    of turn without a map is ``bench.wirebytes``'s, 4.2 KB to 0.2 KB for the GM)."""
    url = ws_url(server)
    _encounter, gm_token, player_token = await skirmish(server, clients)
    gm = await join(url, gm_token, clients)
    player = await join(url, player_token, clients)
    lean_gm, lean_player = await open_client(url, clients), await open_client(url, clients)
    whole_gm, whole_player = await open_client(url, clients), await open_client(url, clients)
    for c, token, features in ((lean_gm, gm_token, LEAN), (lean_player, player_token, LEAN),
                               (whole_gm, gm_token, WHOLE), (whole_player, player_token, WHOLE)):
        c.keep_wire = True
        await c.hello(token, features=features)
    pairs = ((lean_gm, whole_gm), (lean_player, whole_player))
    await gm.command("start_encounter")

    async def same() -> None:
        for lean, whole in pairs:
            await lean.command("ping")
            await whole.command("ping")
            assert lean.legal == whole.legal
            assert lean.delta_mismatches == 0

    await play(gm, player, 16, same)

    def legal_bytes(c: Client) -> int:
        return sum(len(orjson.dumps(m)) for f in c.wire
                   for m in (f["messages"] if f["type"] == "batch" else [f])
                   if m["type"].startswith("legal_actions"))

    referenced = [item for f in lean_gm.wire if f["type"] == "batch"
                  for m in f["messages"] if m["type"] == "legal_actions_delta"
                  for item in m["actions"] if isinstance(item, list) and len(item) == 3]
    assert referenced
    for lean, whole in pairs:
        assert legal_bytes(lean) < legal_bytes(whole)


def test_a_delta_names_recalled_entries_by_reference() -> None:
    from clients.view import recall_after
    from server.wire import recalled

    a, b, c, d = (orjson.dumps({"action": x, "combatant": "dash"}) for x in "abcd")
    items = delta_items([d], [a, b, d, c])
    out = recalled(items, {"dash": [a, b, c]})
    assert out == [b'[0,2,"dash"]', b"[0,1]", b'[2,1,"dash"]']
    turn = [orjson.loads(x) for x in (a, b, c)]
    delta = {"actions": [orjson.loads(x) for x in out]}
    assert apply_legal_delta([orjson.loads(d)], delta, None, {"dash": turn}) == \
        [orjson.loads(x) for x in (a, b, d, c)]
    with pytest.raises(DeltaMismatch):
        apply_legal_delta([], {"actions": [[2, 2, "dash"]]}, None, {"dash": turn})
    assert recall_after(turn, [orjson.loads(d)], {}) == {"dash": turn}
    assert recall_after(turn, turn, {}) == {}
