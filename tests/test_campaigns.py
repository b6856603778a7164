"""Campaigns through the protocol (rulings R109-R114): a roster kept between encounters, the
in-game clock and its rules of time, encounters begun from the roster and written back, one
link per player for the whole campaign, and a GM link recovered."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import pytest

from clients.client import Client, CommandError
from server.app import Server
from tests.conftest import ServerProcess, ws_url
from tests.helpers import open_client, until_turn_of
from tests.redis_procs import RedisProcess
from tests.test_faults import start_server
from tests.test_read_api import get

ACE = {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50,
       "stats": {"fatigue_points": 20, "skills": {"melee": 5}}}
DOG = {"name": "Dog", "id": "dog", "kind": "npc", "initiative": -50}


class Campaign:
    def __init__(self, url: str, clients: list[Client], gm: Client, created: dict[str, Any]):
        self.url, self.clients, self.gm, self.created = url, clients, gm, created
        self.links: dict[str, str] = {}

    async def add(self, block: dict[str, Any]) -> str:
        ack = await self.gm.command("add_character", character=block)
        self.links[block["id"]] = ack["result"].get("token", "")
        return self.links[block["id"]]

    async def view(self) -> dict[str, Any]:
        start = len(self.gm.messages)
        await self.gm.command("get_campaign")
        reply = await self.gm.wait_for(lambda m: m["type"] == "campaign", start=start)
        return reply["state"]

    async def character(self, cid: str) -> dict[str, Any]:
        return next(c for c in (await self.view())["characters"] if c["id"] == cid)

    async def begin(self, name: str, characters: list[str], **fields: Any
                    ) -> tuple[str, Client]:
        ack = await self.gm.command("begin_encounter", name=name, characters=characters,
                                    npcs=[DOG], **fields)
        gm = await open_client(self.url, self.clients)
        await gm.hello(ack["result"]["gm_token"])
        return ack["result"]["encounter"], gm


async def found(url: str, clients: list[Client], ruleset: str = "dramatic") -> Campaign:
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_campaign", name="The Everfree road", ruleset=ruleset)
    assert ack["result"]["recovery_secret"] and ack["result"]["gm_token"].startswith("smc1.")
    gm = await open_client(url, clients)
    welcome = await gm.hello(ack["result"]["gm_token"])
    assert welcome["campaign"] == ack["result"]["campaign"] and welcome["role"] == "gm"
    await gm.wait_for(lambda m: m["type"] == "campaign")
    return Campaign(url, clients, gm, ack["result"])


async def lunch(gm: Client, player: Client) -> dict[str, Any]:
    """Ace winded, then on its turn a Second Lunch: the reply."""
    await gm.command("start_encounter")
    await gm.command("adjust_combatant", combatant="ace", reason="winded", fatigue=8)
    await until_turn_of(gm, "ace")
    await player.wait_until(lambda: any(a["action"] == "end_turn" for a in player.legal))
    return await player.request({"type": "act", "id": uuid.uuid4().hex, "combatant": "ace",
                                 "action": "second_lunch"})


async def test_second_lunch_once_a_day_across_encounters_and_one_link(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    camp = await found(url, clients)
    link = await camp.add(ACE)
    first, gm1 = await camp.begin("The ambush", ["ace"])
    player = await open_client(url, clients)
    welcome = await player.hello(link)
    assert welcome["encounter"] == first and welcome["campaign"] == camp.created["campaign"]
    assert welcome["combatants"] == ["ace"]
    assert (await lunch(gm1, player))["type"] == "ack"
    await gm1.command("end_encounter")
    ace = await camp.character("ace")
    assert ace["lunches"] == 1 and ace["lunch_day"] == 1 and ace["encounter"] is None
    assert ace["lunches_today"] == 1

    await camp.gm.command("advance_clock", days=1)
    assert (await camp.character("ace"))["lunches_today"] == 0  # a new day
    second, gm2 = await camp.begin("The bridge", ["ace"])
    moved = await player.wait_for(lambda m: m["type"] == "moved")
    assert moved["encounter"] == second
    await player.closed  # told to connect again
    player = await open_client(url, clients)
    welcome = await player.hello(link, cursor=None)  # the same link reaches the second one
    assert welcome["encounter"] == second
    assert (await lunch(gm2, player))["type"] == "ack"
    await gm2.command("end_encounter")
    assert (await camp.character("ace"))["lunches"] == 1  # day 2's first

    third, gm3 = await camp.begin("The camp", ["ace"])
    player = await open_client(url, clients)
    assert (await player.hello(link))["encounter"] == third
    refused = await lunch(gm3, player)
    assert refused["type"] == "error" and "already used 1 of 1 times today" in refused["message"]


async def test_a_character_is_in_one_running_encounter(
        server: Server, clients: list[Client]) -> None:
    camp = await found(ws_url(server), clients)
    await camp.add(ACE)
    first, _ = await camp.begin("The ambush", ["ace"])
    with pytest.raises(CommandError) as err:
        await camp.gm.command("begin_encounter", name="Elsewhere", characters=["ace"])
    assert err.value.code == "illegal_action" and "R113" in err.value.reply["message"]
    with pytest.raises(CommandError) as err:
        await camp.gm.command("advance_clock", hours=2)
    assert err.value.code == "illegal_action" and err.value.reply["details"]["encounter"] == first
    with pytest.raises(CommandError) as err:
        await camp.gm.command("adjust_character", character="ace", reason="x", fatigue=3)
    assert err.value.code == "illegal_action"


async def test_natural_healing_once_in_24_hours(server: Server, clients: list[Client]) -> None:
    camp = await found(ws_url(server), clients)
    await camp.add(ACE)
    await camp.gm.command("adjust_character", character="ace", reason="bruised", fatigue=5,
                          physical_step=2)
    await camp.gm.command("advance_clock", hours=8, rest=True)
    ace = await camp.character("ace")
    assert ace["fatigue"] == 20 and ace["physical"]["step"] == 0 and ace["healed_at"] == 8
    await camp.gm.command("adjust_character", character="ace", reason="a fall", fatigue=10)
    start = len(camp.gm.messages)
    await camp.gm.command("advance_clock", hours=10, rest=True)  # 10 hours after: refused
    assert (await camp.character("ace"))["fatigue"] == 10
    told = [line["text"] for line in (await camp.view())["log"]]
    assert told[-2:] == ["10 hours of rest pass: it is day 1, 18:00.",
                         "Ace does not heal naturally: FATIGUE POINTS AND DAMAGE THRESHOLD: "
                         "Natural Healing: only once in a 24-hour period (healed at hour 8, "
                         "10 hours ago; R110)."]
    view = await camp.gm.wait_for(lambda m: m["type"] == "campaign", start=start)
    assert view["seq"] > 0
    await camp.gm.command("advance_clock", hours=6)
    await camp.gm.command("advance_clock", hours=8, rest=True)  # 24 hours after: heals
    assert (await camp.character("ace"))["fatigue"] == 20
    with pytest.raises(CommandError) as err:
        await camp.gm.command("advance_clock", hours=4, rest=True)
    assert err.value.code == "invalid_payload" and "8" in err.value.reply["message"]


async def test_persistent_and_crippling_steps_carry_into_the_next_encounter(
        server: Server, clients: list[Client]) -> None:
    camp = await found(ws_url(server), clients)
    await camp.add(ACE)
    _, gm1 = await camp.begin("The ambush", ["ace"])
    await gm1.command("start_encounter")
    await gm1.command("adjust_combatant", combatant="ace", reason="a crushing blow",
                      physical_step=3, physical_persistent=2, physical_crippling=1)
    await gm1.command("end_encounter")
    ace = await camp.character("ace")
    # after the scene +1 step (R50), never below the persistent ones
    assert ace["physical"] == {"step": 2, "persistent": 2, "crippling": 1, "penalty": -2}
    await camp.gm.command("advance_clock", hours=8, rest=True)  # persistent: no healing
    assert (await camp.character("ace"))["physical"]["step"] == 2
    _, gm2 = await camp.begin("The bridge", ["ace"])
    await gm2.wait_for(lambda m: m["type"] == "snapshot")
    ace_there = next(c for c in gm2.state["combatants"] if c["id"] == "ace")
    assert ace_there["vitals"]["physical"]["crippling"] == 1
    assert ace_there["vitals"]["physical"]["persistent"] == 2


async def test_temporary_status_fades_a_point_a_week(
        server: Server, clients: list[Client]) -> None:
    camp = await found(ws_url(server), clients)
    await camp.add({**ACE, "stats": {**ACE["stats"], "social": {"reputation": 4}}})
    await camp.gm.command("adjust_character", character="ace", reason="the gala",
                          status=[{"bonus": 2, "circle": "canterlot"}])
    await camp.gm.command("advance_clock", days=6)
    assert (await camp.character("ace"))["status"][0]["bonus"] == 2
    await camp.gm.command("advance_clock", days=1)
    assert (await camp.character("ace"))["status"][0]["bonus"] == 1
    await camp.gm.command("advance_clock", weeks=3)
    assert (await camp.character("ace"))["status"] == []  # never below 0: gone


async def test_a_player_sees_their_own_character_in_full_and_no_other(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    camp = await found(url, clients)
    link = await camp.add(ACE)
    await camp.add({**ACE, "name": "Bee", "id": "bee"})
    player = await open_client(url, clients)
    welcome = await player.hello(link)
    assert welcome["campaign"] and welcome.get("encounter") is None
    view = (await player.wait_for(lambda m: m["type"] == "campaign"))["state"]
    mine, other = view["characters"]
    assert mine["id"] == "ace" and "stats" in mine and "link" not in mine
    assert other["id"] == "bee" and set(other) == {"id", "name", "kind", "life", "conscious",
                                                  "band", "encounter"}
    with pytest.raises(CommandError) as err:
        await player.command("advance_clock", hours=1)
    assert err.value.code == "forbidden"
    with pytest.raises(CommandError) as err:
        await player.command("act", combatant="ace", action="end_turn")
    assert err.value.code == "illegal_action"


async def test_a_lost_gm_link_is_recovered(server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    camp = await found(url, clients)
    anon = await open_client(url, clients)
    await anon.hello()
    with pytest.raises(CommandError) as err:
        await anon.command("recover_campaign", campaign=camp.created["campaign"],
                           recovery_secret="not-the-secret")
    assert err.value.code == "unauthenticated"
    ack = await anon.command("recover_campaign", campaign=camp.created["campaign"],
                             recovery_secret=camp.created["recovery_secret"])
    new = ack["result"]
    assert new["gm_token"] != camp.created["gm_token"]
    assert new["recovery_secret"] != camp.created["recovery_secret"]
    await camp.gm.closed  # the old GM link's connection is closed
    old = await open_client(url, clients)
    with pytest.raises(CommandError):
        await old.hello(camp.created["gm_token"])
    gm = await open_client(url, clients)
    assert (await gm.hello(new["gm_token"]))["role"] == "gm"
    with pytest.raises(CommandError):  # the old recovery secret is spent
        await anon.command("recover_campaign", campaign=camp.created["campaign"],
                           recovery_secret=camp.created["recovery_secret"])


async def test_a_write_back_lands_once(server: Server, clients: list[Client]) -> None:
    camp = await found(ws_url(server), clients)
    await camp.add(ACE)
    encounter, gm1 = await camp.begin("The ambush", ["ace"])
    await gm1.command("start_encounter")
    await gm1.command("end_encounter")
    store = server.campaigns.store
    before = await store.load(camp.created["campaign"])
    assert before is not None and before.encounters[encounter].written_back is not None
    again = await server.campaigns.write_back(camp.created["campaign"], encounter)
    assert again is not None and again.version == before.version  # nothing appended


async def test_a_begin_or_an_end_killed_in_flight_loses_nothing(
        procs: list[ServerProcess], redis_server: RedisProcess, clients: list[Client]) -> None:
    """Two processes of one deployment. The process dies (as SIGKILL leaves it) after the
    campaign recorded a begun encounter and before the encounter exists: the same
    ``begin_encounter`` sent to the other process creates it, once. An encounter's process dies
    after the encounter ended and before its results were written back: the next read of the
    campaign, on the other process, writes them. A player's link on one process is moved by a
    begin on the other."""
    healthy = start_server(procs, redis_server.url)
    doomed = start_server(procs, redis_server.url, env={"STABLEMASTER_TEST_CRASH":
                                                        "campaign_begun"})
    camp = await found(healthy.url, clients)
    link = await camp.add(ACE)
    player = await open_client(healthy.url, clients)
    await player.hello(link)
    await player.wait_for(lambda m: m["type"] == "campaign")

    on_doomed = await open_client(doomed.url, clients)
    await on_doomed.hello(camp.created["gm_token"])
    with pytest.raises((ConnectionError, TimeoutError)):
        await on_doomed.command("begin_encounter", id="begin-1", name="The ambush",
                                characters=["ace"], npcs=[DOG])
    assert doomed.proc is not None and doomed.proc.wait(10) == 70
    ack = await camp.gm.command("begin_encounter", id="begin-1", name="The ambush",
                                characters=["ace"], npcs=[DOG])
    assert ack["duplicate"]
    again = await camp.gm.command("begin_encounter", id="begin-1", name="The ambush",
                                  characters=["ace"], npcs=[DOG])
    assert again["result"]["encounter"] == ack["result"]["encounter"]
    moved = await player.wait_for(lambda m: m["type"] == "moved")
    assert moved["encounter"] == ack["result"]["encounter"]
    gm = await open_client(healthy.url, clients)
    await gm.hello(ack["result"]["gm_token"])
    snap = await gm.wait_for(lambda m: m["type"] == "snapshot")
    assert [c["id"] for c in snap["state"]["combatants"]] == ["ace", "dog"]
    assert sum(e["kind"] == "encounter_created" for e in (await history(gm))) == 1

    ending = start_server(procs, redis_server.url, env={"STABLEMASTER_TEST_CRASH":
                                                        "encounter_ended"})
    gm_there = await open_client(ending.url, clients)
    await gm_there.hello(ack["result"]["gm_token"])
    await gm_there.command("start_encounter")
    await gm_there.command("adjust_combatant", combatant="ace", reason="a bite", fatigue=9)
    with contextlib.suppress(ConnectionError, TimeoutError):  # (its ack may leave first)
        await gm_there.command("end_encounter")
    assert ending.proc is not None and ending.proc.wait(10) == 70
    ace = await camp.character("ace")  # read on the other process: written back now
    assert ace["fatigue"] == 9 and ace["encounter"] is None
    view = await camp.view()
    assert view["encounters"][0]["written_back"] is not None


async def history(client: Client) -> list[dict[str, Any]]:
    start = len(client.messages)
    await client.command("get_history", limit=500)
    page = await client.wait_for(lambda m: m["type"] == "history", start=start)
    return [m["event"] for m in page["events"]]


async def test_retries_answer_the_same_and_no_link_is_stored(
        server: Server, clients: list[Client]) -> None:
    """A retried command (the same id) answers as the first did, links and secrets included,
    without any of them in Redis: links are minted again from their ids, as an encounter's
    tokens are."""
    url = ws_url(server)
    camp = await found(url, clients)
    first = await camp.gm.command("add_character", id="add-ace", character=ACE)
    again = await camp.gm.command("add_character", id="add-ace", character=ACE)
    assert again["duplicate"] and again["result"]["token"] == first["result"]["token"]
    anon = await open_client(url, clients)
    await anon.hello()
    secret = camp.created["recovery_secret"]
    got = await anon.command("recover_campaign", id="rec-1", campaign=camp.created["campaign"],
                             recovery_secret=secret)
    retried = await anon.command("recover_campaign", id="rec-1",
                                 campaign=camp.created["campaign"], recovery_secret=secret)
    assert retried["duplicate"] and retried["result"] == got["result"]
    stored = b""
    for key in await server.redis.keys(f"{{camp:{camp.created['campaign']}}}:*"):
        if await server.redis.type(key) == b"hash":
            stored += b"".join(k + v for k, v in (await server.redis.hgetall(key)).items())
    assert b"token_id" in stored  # (the outcomes are there, without the links)
    for value in (first["result"]["token"], got["result"]["gm_token"],
                  got["result"]["recovery_secret"], secret, camp.created["gm_token"]):
        assert value.encode() not in stored
    events = b"".join(f[b"e"] for _, f in await server.redis.xrange(
        f"{{camp:{camp.created['campaign']}}}:events"))
    assert b"smc1." not in events and secret.encode() not in events


async def test_the_read_api_reads_a_campaign_link(server: Server, clients: list[Client]) -> None:
    """Over plain HTTP (the read API): a campaign link reads its view; the GM's lists the
    players' links and the encounters' GM links, which open what they say."""
    url = ws_url(server)
    camp = await found(url, clients)
    link = await camp.add(ACE)
    encounter, _ = await camp.begin("The ambush", ["ace"])
    status, body = await get(server, "/read/campaign", link)
    assert status == 200 and body["type"] == "campaign"
    assert body["state"]["mine"] == ["ace"] and "link" not in body["state"]["characters"][0]
    status, body = await get(server, "/read/links", link)
    assert status == 403 and body["code"] == "forbidden"
    status, body = await get(server, "/read/links", camp.created["gm_token"])
    assert status == 200 and [p["token"] for p in body["links"]] == [link]
    assert [e["encounter"] for e in body["encounters"]] == [encounter]
    gm = await open_client(url, clients)
    assert (await gm.hello(body["encounters"][0]["gm_token"]))["encounter"] == encounter
    status, body = await get(server, "/read/campaign", "smc1.nosuchcamp.nosuchtoken." + "x" * 30)
    assert status == 401 and body["code"] == "unauthenticated"
    status, body = await get(server, "/read/history", camp.created["gm_token"])
    assert status == 404 and "/read/campaign" in body["message"]


async def test_a_players_connection_stays_on_its_ended_encounter_until_it_connects_again(
        server: Server, clients: list[Client]) -> None:
    """As docs/campaigns.md says: once the encounter ends, a player's connection is not moved
    (no ``moved``, no close) and still reads it; the same link, connected again, reaches the
    campaign's view with the results written back."""
    url = ws_url(server)
    camp = await found(url, clients)
    link = await camp.add(ACE)
    first, gm1 = await camp.begin("The ambush", ["ace"])
    player = await open_client(url, clients)
    assert (await player.hello(link))["encounter"] == first
    await gm1.command("end_encounter")
    await player.wait_for(lambda m: m["type"] == "event"
                          and m["event"]["kind"] == "encounter_ended")
    assert (await camp.character("ace"))["encounter"] is None  # written back
    mark = len(player.messages)
    await player.command("get_snapshot")  # still answered, on the ended encounter
    snapshot = next(m for m in player.messages[mark:] if m["type"] == "snapshot")
    assert snapshot["encounter"] == first and snapshot["state"]["ended"]
    assert not [m for m in player.messages if m["type"] in ("moved", "campaign")]
    assert not player.closed.done()
    again = await open_client(url, clients)
    welcome = await again.hello(link)
    assert welcome.get("encounter") is None and welcome["campaign"] == camp.created["campaign"]
    view = await again.wait_for(lambda m: m["type"] == "campaign")
    assert view["state"]["characters"][0]["encounter"] is None
