"""An encounter's size is bounded (``--max-encounter-events``, ``--max-encounter-bytes``): past
either bound a command gets ``encounter_full`` and appends nothing, on every process alike (Redis
counts, in the append), while the GM may still end the encounter and revoke credentials and
everyone may still read it. Real servers, real websockets, a real Redis, with low bounds."""

from __future__ import annotations

from typing import Any

import pytest

from clients.client import Client, CommandError
from server.app import Server
from server.cli import build_parser, settings_from
from server.config import Settings
from server.store import keys
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, join, open_client, started
from tests.redis_procs import RedisProcess


async def stored(srv: Server, encounter: str) -> tuple[int, int]:
    """The events the log in Redis holds, and their bytes as stored."""
    rows = await srv.redis.xrange(keys(encounter)["events"])
    return len(rows), sum(len(fields[b"e"]) for _id, fields in rows)


async def fill(gm: Client, most: int = 200) -> dict[str, Any]:
    """Notes on the scene until one is refused: the refusal."""
    for n in range(most):
        try:
            await gm.command("add_effect", name=f"A note, number {n}", until="scene")
        except CommandError as err:
            return err.reply
    raise AssertionError(f"{most} notes and no refusal")


async def test_past_the_event_bound_commands_are_refused_on_every_process(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    async with started(redis_server.url, max_encounter_events=60) as a, \
            started(redis_server.url, max_encounter_events=60) as b:
        table = await create_table(ws_url(a), clients)
        player = await join(ws_url(b), table.tokens["twilight"], clients)
        await table.gm.command("start_encounter")
        refused = await fill(table.gm)
        assert refused["code"] == "encounter_full", refused
        assert refused["details"] == {"measure": "events", "limit": 60,
                                      "held": table.gm.last_seq}
        assert "end it" in refused["message"]
        held, _ = await stored(a, table.encounter)
        assert held == table.gm.last_seq <= 60  # nothing of the refused command went in
        # a player's command on the other process: refused alike (the count is Redis's)
        await caught_up(player)
        with pytest.raises(CommandError) as again:
            await player.command("add_dice_entropy", entropy="one more")
        assert again.value.code == "encounter_full"
        assert (await stored(b, table.encounter))[0] == held
        # reading goes on: a snapshot for a newcomer, the history
        late = await join(ws_url(b), table.spectator_token, clients)
        assert late.snapshot is not None and late.snapshot["seq"] <= held
        await table.gm.command("get_history", limit=5)
        # the GM revokes a credential and ends the encounter, past the bound
        assert player.welcome is not None
        await table.gm.command("revoke_token", token_id=player.welcome["token_id"])
        ended = await table.gm.command("end_encounter", reason="the evening is over")
        assert ended["seq"] > 60
        kinds = [m["event"]["kind"] for m in table.gm.events() if m["seq"] > held]
        assert kinds[-2:] == ["dice_revealed", "encounter_ended"], kinds
        assert (await stored(a, table.encounter))[0] == ended["seq"]


async def test_past_the_byte_bound_commands_are_refused_and_bytes_are_counted(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    bound = 24_000
    async with started(redis_server.url, max_encounter_bytes=bound) as srv:
        table = await create_table(ws_url(srv), clients)
        await table.gm.command("start_encounter")
        refused = await fill(table.gm)
        assert refused["code"] == "encounter_full", refused
        details = refused["details"]
        held, size = await stored(srv, table.encounter)
        assert details == {"measure": "bytes", "limit": bound, "held": size}
        assert size <= bound and held == table.gm.last_seq
        # the count Redis keeps is the log's bytes, event for event
        meta = await srv.redis.hget(keys(table.encounter)["meta"], "bytes")
        assert int(meta) == size
        ended = await table.gm.command("end_encounter")
        held, after = await stored(srv, table.encounter)
        assert ended["seq"] == held and after > bound
        assert int(await srv.redis.hget(keys(table.encounter)["meta"], "bytes")) == after


async def test_a_create_larger_than_an_encounter_may_be_is_refused(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    async with started(redis_server.url, max_encounter_events=3) as srv:
        anon = await open_client(ws_url(srv), clients)
        await anon.hello()
        with pytest.raises(CommandError) as refused:
            await anon.command("create_encounter", name="Too many", combatants=[
                {"name": f"Dog {n}"} for n in range(5)])
        assert refused.value.code == "encounter_full"
        assert refused.value.reply["details"]["measure"] == "events"


async def test_without_bounds_nothing_is_refused(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    async with started(redis_server.url, max_encounter_events=0, max_encounter_bytes=0) as srv:
        table = await create_table(ws_url(srv), clients)
        await table.gm.command("start_encounter")
        for n in range(30):
            await table.gm.command("add_effect", name=f"A note, number {n}", until="scene")


def test_the_bounds_are_flags_and_environment_variables(
        monkeypatch: pytest.MonkeyPatch) -> None:
    names = ("STABLEMASTER_MAX_ENCOUNTER_EVENTS", "STABLEMASTER_MAX_ENCOUNTER_BYTES")
    for name in names:
        monkeypatch.delenv(name, raising=False)
    s = settings_from(build_parser().parse_args(["serve"]))
    assert (s.max_encounter_events, s.max_encounter_bytes) == (100_000, 64 * 1024 * 1024)
    assert (s.max_encounter_events, s.max_encounter_bytes) == (
        Settings().max_encounter_events, Settings().max_encounter_bytes)
    s = settings_from(build_parser().parse_args([
        "serve", "--max-encounter-events", "500", "--max-encounter-bytes", "70000"]))
    assert (s.max_encounter_events, s.max_encounter_bytes) == (500, 70_000)
    monkeypatch.setenv(names[0], "7")
    monkeypatch.setenv(names[1], "8")
    s = settings_from(build_parser().parse_args(["serve"]))
    assert (s.max_encounter_events, s.max_encounter_bytes) == (7, 8)
