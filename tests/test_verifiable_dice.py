"""Verifiable server dice (ruling R101): a commitment before the first roll, every face drawn by
HMAC-SHA256 keyed by the secret and the table's entropy, the secret revealed at the end, and
``clients.dice_check`` recomputing every roll a credential was shown."""

from __future__ import annotations

import asyncio
import collections
import copy
import hashlib
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from clients.client import Client, CommandError
from clients.dice_check import DiceReport, check_dice
from encounter.harness import Refused, Table
from rules.dice import roll_keyed
from rules.verifiable_dice import commitment, encounter_secret, next_entropy, roll_key
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, open_client, play_turns, wait_current

SECRET = bytes(range(32))


def test_a_keyed_roll_is_the_same_for_the_same_key_and_place_only() -> None:
    key = roll_key(SECRET, commitment(SECRET))
    first = roll_keyed("4d6kh3+1d20+1d%", key, "table:0")
    assert first == roll_keyed("4d6kh3+1d20+1d%", key, "table:0")
    assert first.place == "table:0" and first.seed is None and not first.manual
    others = {tuple(d.face for d in roll_keyed("4d6kh3+1d20+1d%", key, f"table:{n}").dice)
              for n in range(1, 40)}
    assert len(others) == 39  # another place, other faces
    other_key = roll_key(SECRET, next_entropy(commitment(SECRET), "x"))
    assert roll_keyed("4d6kh3+1d20+1d%", other_key, "table:0").dice != first.dice


def test_keyed_faces_are_uniform() -> None:
    key = roll_key(SECRET, "chain")
    counts = collections.Counter(roll_keyed("1d6", key, f"table:{n}").total
                                 for n in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 20.5  # p = 0.001 for 5 degrees of freedom
    tens = {roll_keyed("1d%", key, f"screen:{n}").total for n in range(300)}
    assert tens == set(range(0, 100, 10))


PARTY = [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5},
         {"name": "Dog", "id": "dog", "initiative": 1},
         {"name": "Lurker", "id": "lurker", "initiative": 3, "hidden": True}]


def test_the_engine_commits_draws_takes_entropy_and_reveals() -> None:
    from encounter.actors import Actor

    table = Table(PARTY, encounter_id="enc", dice_secret=SECRET)
    assert table.state.dice_commitment == commitment(SECRET)
    ace = Actor(role="player", token_id="p", combatants=frozenset({"ace"}))
    sent = table.send("add_dice_entropy", entropy="ace's dice", by=ace)
    (added,) = sent.events("dice_entropy_added")
    assert added.by == "player" and added.chain == next_entropy(commitment(SECRET), "ace's dice")
    table.send("start_encounter")
    for _ in range(4):
        table.act(table.state.current, "end_turn")
    table.send("end_encounter")
    kinds = [e.event.__struct_config__.tag for e in table.envelopes]
    assert kinds.index("dice_committed") < kinds.index("dice_rolled")
    assert kinds[-2:] == ["dice_revealed", "encounter_ended"]  # the last roll is behind it
    report = check_dice([{"event": _plain(e.event)} for e in table.envelopes])
    assert report.honest and report.verified == 3 and report.entropy == 1, report.text()
    places = [e.event.roll.place for e in table.envelopes
              if e.event.__struct_config__.tag == "dice_rolled"]
    assert sorted(places) == ["screen:0", "table:0", "table:1"]  # the lurker's its own stream
    with pytest.raises(Refused) as refused:
        table.send("add_dice_entropy", entropy="late")
    assert refused.value.code.value == "illegal_action"


def test_entropy_is_bounded_and_needs_verifiable_dice() -> None:
    from encounter.actors import Actor

    ace = Actor(role="player", token_id="p", combatants=frozenset({"ace"}))
    table = Table(PARTY, encounter_id="enc", dice_secret=SECRET)
    for n in range(64):
        table.send("add_dice_entropy", entropy=str(n), by=ace)
    with pytest.raises(Refused) as refused:
        table.send("add_dice_entropy", entropy="one more", by=ace)
    assert refused.value.code.value == "illegal_action" and "64" in refused.value.message
    fixed = Table(PARTY, encounter_id="enc", dice_secret=SECRET, dice_seed=7)
    assert fixed.state.dice_commitment is None
    with pytest.raises(Refused) as refused:
        fixed.send("add_dice_entropy", entropy="x", by=ace)
    assert "dice_seed" in refused.value.message
    fixed.send("start_encounter")
    rolls = [e.event.roll for e in fixed.envelopes if e.event.__struct_config__.tag
             == "dice_rolled"]
    assert rolls and all(r.place is None and r.seed is not None for r in rolls)


def _plain(event: Any) -> dict[str, Any]:
    from encounter.harness import wire

    plain: dict[str, Any] = wire(event)
    return plain


async def dice_check_log(path: Path, log: list[dict[str, Any]]) -> tuple[int, str]:
    """``python -m clients.dice_check --log`` on ``log`` written to ``path``: its exit code
    and what it printed."""
    path.write_bytes(orjson.dumps(log))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clients.dice_check", "--log", str(path),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode()

async def _history(client: Client) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    before: Any = None
    while True:
        mark = len(client.messages)
        fields: dict[str, Any] = {"limit": 200}
        if before is not None:
            fields["before"] = before
        await client.command("get_history", **fields)
        (page,) = [m for m in client.messages[mark:] if m["type"] == "history"]
        got[:0] = page["events"]
        before = page["before"]
        if before is None:
            return got


async def test_every_viewer_checks_the_rolls_it_saw_and_tampering_is_caught(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)  # no dice_seed: the server's own dice
    secret = server.dice_secret(table.encounter)
    player = await open_client(url, clients)
    await player.hello(table.tokens["twilight"], features=["batch", "cursor"])
    spectator = await open_client(url, clients)
    await spectator.hello(table.spectator_token, features=["batch", "cursor"])
    with pytest.raises(CommandError) as refused:
        await spectator.command("add_dice_entropy", entropy="from the stands")
    assert refused.value.reply["code"] == "forbidden"
    entropy = hashlib.sha256(b"twilight's own").hexdigest()
    await player.command("add_dice_entropy", entropy=entropy)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 8)
    for c in (table.gm, player, spectator):
        await caught_up(c)
        assert secret.hex() not in str(c.messages)  # nobody is told it before the end
        report = check_dice(await _history(c))
        assert not report.revealed and not report.problems and report.entropy == 1
    await table.gm.command("end_encounter")
    reports: dict[str, DiceReport] = {}
    for name, c in (("gm", table.gm), ("player", player), ("spectator", spectator)):
        log = await _history(c)
        reports[name] = report = check_dice(log)
        assert report.honest and report.verified > 0, report.text()
        assert report.commitment == commitment(secret)
        if name != "gm":  # the rolls behind the screen are not counted where the table sees
            assert "screen:" not in str(log) and "lurker" not in str(log)
    assert reports["gm"].verified > reports["spectator"].verified
    late = await open_client(url, clients)  # the snapshot says it all, for a late joiner
    await late.hello(table.spectator_token)
    assert late.snapshot is not None and late.snapshot["state"]["dice"] == {
        "commitment": commitment(secret), "chain": next_entropy(commitment(secret), entropy),
        "entropy": 1, "secret": secret.hex()}

    log = await _history(table.gm)
    rolled = next(i for i, m in enumerate(log) if m["event"]["kind"] == "dice_rolled")
    changed = copy.deepcopy(log)
    die = changed[rolled]["event"]["roll"]["dice"][0]
    die["face"] = die["face"] % die["sides"] + 1
    assert not check_dice(changed).honest
    changed = copy.deepcopy(log)
    added = next(m for m in changed if m["event"]["kind"] == "dice_entropy_added")
    added["event"]["entropy"] = "someone else's"
    assert any("entropy chain" in p for p in check_dice(changed).problems)
    added["event"]["chain"] = next_entropy(commitment(secret), "someone else's")
    assert not check_dice(changed).honest  # a consistent chain, but not the rolls' one
    changed = copy.deepcopy(log)
    revealed = next(m for m in changed if m["event"]["kind"] == "dice_revealed")
    revealed["event"]["secret"] = encounter_secret(b"another server", table.encounter).hex()
    assert "not the one committed to" in check_dice(changed).problems[0]


async def test_the_check_script_reads_the_history_with_a_token(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 3)

    async def script(token: str) -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "clients.dice_check", url, token,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
        return proc.returncode or 0, out.decode()

    code, out = await script(table.tokens["twilight"])
    assert code == 2 and "not revealed" in out, out
    await table.gm.command("end_encounter")
    code, out = await script(table.tokens["twilight"])
    assert code == 0 and "every server roll is the one the committed secret gives" in out, out


async def test_the_check_script_reads_a_saved_log_and_exits_1_when_it_is_tampered_with(
        server: Server, clients: list[Client], tmp_path: Path) -> None:
    """``--log events.json``: the event messages a client kept, in order (here the player's
    history pages); exit 2 before the end, 0 as they came, 1 once a die is changed."""
    url = ws_url(server)
    table = await create_table(url, clients)
    player = await open_client(url, clients)
    await player.hello(table.tokens["twilight"], features=["batch", "cursor"])
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 4)

    async def script(log: list[dict[str, Any]]) -> tuple[int, str]:
        return await dice_check_log(tmp_path / "events.json", log)

    await caught_up(player)
    code, out = await script(await _history(player))
    assert code == 2 and "not revealed" in out, out
    await table.gm.command("end_encounter")
    await player.wait_for(lambda m: m["type"] == "event"
                          and m["event"]["kind"] == "dice_revealed")
    kept = await _history(player)
    assert sum(1 for m in kept if m["event"]["kind"] == "dice_rolled") > 0
    code, out = await script(kept)
    assert code == 0 and "server rolls verified: 0" not in out, out
    assert "every server roll is the one the committed secret gives" in out, out
    changed = copy.deepcopy(kept)
    roll = next(m for m in changed if m["event"]["kind"] == "dice_rolled"
                and m["event"]["roll"]["place"])["event"]["roll"]
    roll["dice"][0]["face"] = roll["dice"][0]["face"] % roll["dice"][0]["sides"] + 1
    code, out = await script(changed)
    assert code == 1 and "PROBLEM:" in out and "do NOT check out" in out, out


# -- a rewind past the reveal (R117) ------------------------------------------------------------


async def _restore(srv: Server, encounter: str, saved: dict[bytes, bytes]) -> None:
    """Put the encounter's keys back as they were saved (``DUMP``): what a Redis restored from
    an older copy holds of it."""
    from server.store import keys

    pipe = srv.redis.pipeline(transaction=True)
    pipe.delete(*keys(encounter).values())
    for key, dumped in saved.items():
        pipe.restore(key, 0, dumped, replace=True)
    await pipe.execute()


async def _rolled(client: Client, after: int) -> list[dict[str, Any]]:
    return [m for m in await _history(client) if m["seq"] > after]


async def test_a_rewind_past_the_reveal_renews_the_dice(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    """The encounter ends (its secret revealed, seen by rooms on two processes), then Redis goes
    back to before the end: the rooms renew the dice before they tell anyone (one renewal in
    the log, whichever process got there first), the ``rewound`` snapshots carry the new
    commitment and the secret shown, every later roll is drawn from the new secret and none
    from the one shown, and the dice check verifies both segments once the encounter ends."""
    from server.store import keys

    a, b = ws_url(server), ws_url(server_b)
    table = await create_table(a, clients)
    player = await open_client(b, clients)
    await player.hello(table.tokens["twilight"], features=["batch", "cursor"])
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    await caught_up(player)
    saved = {}
    for key in keys(table.encounter).values():
        dumped = await server.redis.dump(key)
        if dumped is not None:
            saved[key.encode()] = dumped
    kept = table.gm.last_seq
    await table.gm.command("end_encounter")
    revealed = await player.wait_for(lambda m: m["type"] == "event"
                                     and m["event"]["kind"] == "dice_revealed")
    shown = bytes.fromhex(revealed["event"]["secret"])
    assert commitment(shown) == commitment(server.dice_secret(table.encounter))
    mark_gm, mark_player = len(table.gm.messages), len(player.messages)

    await _restore(server, table.encounter, saved)  # back to before the reveal
    for client, mark in ((table.gm, mark_gm), (player, mark_player)):
        snap = await client.wait_for(lambda m: m["type"] == "snapshot"
                                     and m["reason"] == "rewound", start=mark, timeout=10)
        dice = snap["state"]["dice"]
        assert dice["commitment"] != commitment(shown) and dice["secret"] is None
        assert dice["renewed"] == [shown.hex()] and dice["chain"] == dice["commitment"]
    renewals = [m for m in await _rolled(table.gm, kept) if m["event"]["kind"] == "dice_renewed"]
    assert len(renewals) == 1  # (both rooms renewed: one went in, the other read it)
    renewed = renewals[0]["event"]
    assert renewed["revealed"] == shown.hex()
    fresh = server.dice_secret(table.encounter, renewed["nonce"])
    assert renewed["commitment"] == commitment(fresh)
    assert fresh == server_b.dice_secret(table.encounter, renewed["nonce"])
    for srv in (server, server_b):
        room = srv.rooms.peek(table.encounter)
        assert room is not None and room.state.dice_commitment == commitment(fresh)

    # play on: a piece of entropy, newcomers rolling initiative, and the end again
    await player.command("add_dice_entropy", entropy="after the restore")
    for n in range(5):
        await table.gm.command("add_combatant", combatant={"name": f"Late Dog {n}"})
    after = renewals[0]["seq"]
    rolls = [m["event"]["roll"] for m in await _rolled(table.gm, after)
             if m["event"]["kind"] == "dice_rolled" and m["event"]["roll"].get("place")]
    assert len(rolls) >= 5
    chain = next_entropy(commitment(fresh), "after the restore")
    old_chain = next_entropy(commitment(shown), "after the restore")
    for roll in rolls:
        drawn = roll_keyed(roll["expr"], roll_key(fresh, chain), roll["place"])
        assert [d["face"] for d in roll["dice"]] == [d.face for d in drawn.dice], roll
    # what the secret shown would have given (with the entropy chain before the renewal or
    # after it): not these rolls
    for key in (roll_key(shown, old_chain), roll_key(shown, chain)):
        known = [[d.face for d in roll_keyed(r["expr"], key, r["place"]).dice] for r in rolls]
        assert known != [[d["face"] for d in r["dice"]] for r in rolls]

    await table.gm.command("end_encounter")
    for client in (table.gm, player):
        await caught_up(client)
        report = check_dice(await _history(client))
        assert report.honest and report.renewals == 1, report.text()
        assert report.commitment == commitment(fresh)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clients.dice_check", a, table.tokens["twilight"],
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, out.decode()
    assert "dice renewed: 1" in out.decode(), out.decode()


async def test_a_late_joiners_log_checks_out_by_its_snapshots_commitment(
        server: Server, clients: list[Client], tmp_path: Path) -> None:
    """A spectator that joins after the first rolls, and after entropy was taken in, never
    receives ``dice_committed``: the commitment, and the chain as it stood, are in the snapshot
    it joined with. Its log (every message it received, in order: the snapshot, then the
    events) checks out, exit 0, saying which rolls it never saw; its events alone cannot tell,
    exit 2 (not a false alarm); one face changed, exit 1."""
    url = ws_url(server)
    table = await create_table(url, clients)
    gm = table.gm
    await gm.command("add_dice_entropy", entropy="the table's")
    await gm.command("start_encounter")
    await play_turns(gm, {}, 4)
    before = [m for m in await _history(gm) if m["event"]["kind"] == "dice_rolled"
              and m["event"]["roll"].get("place", "").startswith("table:")]
    assert before, "no server roll before the late joiner"
    late = await open_client(url, clients)
    await late.hello(table.spectator_token, features=["batch", "cursor"])
    await gm.command("add_dice_entropy", entropy="more, after the join")
    for _ in range(4):  # each combatant attacks, then ends its turn: server rolls it sees
        actor = await wait_current(gm)
        attack = next((e for e in gm.legal if e["action"] == "attack"
                       and e["combatant"] == actor and e.get("targets")), None)
        if attack is not None:
            await gm.command("act", combatant=actor, action="attack",
                             args={"target": attack["targets"][0]})
        await play_turns(gm, {}, 1)
    await gm.command("end_encounter")
    await late.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "dice_revealed")
    received = list(late.messages)
    events = [m for m in received if m["type"] == "event"]
    assert not any(m["event"]["kind"] == "dice_committed" for m in events)
    assert any(m["event"]["kind"] == "dice_entropy_added" for m in events)
    assert sum(1 for m in events if m["event"]["kind"] == "dice_rolled") > 0

    async def script(log: list[dict[str, Any]]) -> tuple[int, str]:
        return await dice_check_log(tmp_path / "messages.json", log)

    code, out = await script(received)
    assert code == 0, out
    assert "every server roll is the one the committed secret gives" in out, out
    assert "(from a snapshot" in out and "server rolls verified: 0" not in out, out
    report = check_dice(received)
    assert report.verified == sum(1 for m in events if m["event"]["kind"] == "dice_rolled"
                                  and m["event"]["roll"].get("place")), report.text()
    # the rolls before the join: counted as never shown, not held against the dice
    assert report.unseen["table"][:len(before)] == list(range(len(before))), report.text()
    assert f"server rolls this log was never shown (not checked): {len(report.unseen['table'])}" \
        " of the stream table (table:0 to " in out, out

    code, out = await script(events)  # the events alone hold no commitment
    assert code == 2 and "holds no commitment" in out and "PROBLEM" not in out, out

    changed = copy.deepcopy(received)
    roll = next(m for m in changed if m["type"] == "event"
                and m["event"]["kind"] == "dice_rolled"
                and m["event"]["roll"].get("place"))["event"]["roll"]
    roll["dice"][0]["face"] = roll["dice"][0]["face"] % roll["dice"][0]["sides"] + 1
    code, out = await script(changed)
    assert code == 1 and "PROBLEM:" in out and "do NOT check out" in out, out

    # the same viewer's history (read with its token) from the start: the commitment there
    whole = await _history(late)
    report = check_dice(whole)
    assert report.honest and report.source == "the dice_committed event", report.text()
    # more than the live log: the rolls before the join too (an NPC's the table is not shown
    # stay unseen: the spectator's history skips them as its live log did)
    assert report.verified > check_dice(received).verified, report.text()
    assert set(report.unseen["table"]) < set(check_dice(received).unseen["table"])
    assert check_dice([*received, *whole]).honest  # a log and the history read after it
    mixed = copy.deepcopy([*received, *whole])  # the history's copy of a live roll changed
    live = {m.get("cursor") for m in received if m["type"] == "event"}
    roll = next(m for m in mixed[len(received):] if m["event"]["kind"] == "dice_rolled"
                and m["event"]["roll"].get("place") and m["cursor"] in live)["event"]["roll"]
    roll["dice"][0]["face"] = roll["dice"][0]["face"] % roll["dice"][0]["sides"] + 1
    assert not check_dice(mixed).honest
