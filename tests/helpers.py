"""Helpers to set a table: an encounter with a GM, players and spectators, over websockets."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from clients.client import Client, CommandError
from server.app import Server

PARTY: list[dict[str, Any]] = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 3},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 5},
    {"name": "Applejack", "id": "applejack", "kind": "pc", "initiative": 2},
    {"name": "Fluttershy", "id": "fluttershy", "kind": "pc", "initiative": 1},
    {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": 1},
    {"name": "Lurking Dog", "id": "lurker", "kind": "npc", "initiative": 4, "hidden": True},
]


@dataclass
class Table:
    encounter: str
    gm_token: str
    gm: Client
    tokens: dict[str, str] = field(default_factory=dict)  # combatant -> player token
    spectator_token: str = ""


async def open_client(url: str, opened: list[Client] | None = None) -> Client:
    client = await Client.open(url)
    if opened is not None:
        opened.append(client)
    return client


async def create_table(url: str, opened: list[Client], combatants: list[dict[str, Any]] | None
                       = None, **options: Any) -> Table:
    """Create an encounter, connect its GM, and issue an invite per PC and a spectator link."""
    anon = await open_client(url, opened)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Test encounter",
                             combatants=combatants if combatants is not None else PARTY,
                             options=options)
    encounter, gm_token = ack["result"]["encounter"], ack["result"]["gm_token"]
    gm = await open_client(url, opened)
    await gm.hello(gm_token)
    table = Table(encounter=encounter, gm_token=gm_token, gm=gm)
    for c in combatants if combatants is not None else PARTY:
        if c.get("kind") == "pc":
            invite = await gm.command("issue_invite", combatants=[c["id"]])
            table.tokens[c["id"]] = invite["result"]["token"]
    spectator = await gm.command("issue_spectator_link")
    table.spectator_token = spectator["result"]["token"]
    return table


async def join(url: str, token: str, opened: list[Client], since: int | None = None,
               digest: str | None = None) -> Client:
    client = await open_client(url, opened)
    await client.hello(token, since=since, digest=digest)
    return client


def kinds(client: Client) -> list[str]:
    return [m["event"]["kind"] for m in client.events()]


def event_log(client: Client) -> list[tuple[int, str]]:
    """(seq, kind) of every event the client received, in order."""
    return [(m["seq"], m["event"]["kind"]) for m in client.events()]


def seqs(client: Client) -> list[int]:
    return [m["seq"] for m in client.events()]


async def send_seen(gm: Client, sender: Client, type_: str, /, **fields: Any
                    ) -> dict[str, Any] | None:
    """Send a command from ``sender`` and wait until it is done: its answer came (and the GM,
    who sees every event, has the events the answer names), or the GM got events it caused.
    ``None`` when it is done but not answered:
    the ack of a table connection waits while the turn is behind the GM's screen (and every
    answer after it: a sender still waiting for one gets this one after it, whatever it is)."""
    before = gm.last_seq
    answer = await sender.send_command(type_, **fields)
    moved = asyncio.ensure_future(gm.wait_until(lambda: gm.last_seq > before))
    try:
        await asyncio.wait({answer, moved}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
    finally:
        moved.cancel()
    if answer.done():
        reply = answer.result()
        if reply["type"] == "ack" and isinstance(reply.get("seq"), int) and sender is not gm:
            # (an answer on another connection may come before the GM's connection brings
            # the events it names: done is when the GM has them too)
            await gm.wait_seq(reply["seq"])
        return reply
    if gm.last_seq > before:
        return None
    raise TimeoutError(f"{type_} {fields}: neither answered nor done")


async def set_out(gm: Client, battle_map: dict[str, Any], at: dict[str, list[int]]) -> None:
    """The GM sets the battle map and places each combatant on it."""
    await gm.command("set_map", map=battle_map)
    for cid, square in at.items():
        await gm.command("place_combatant", combatant=cid, at=square)


async def caught_up(client: Client) -> None:
    """Until everything sent to ``client`` so far has arrived: its ping is answered after it.
    A connection waiting for an answer (an ack the GM's screen holds, ``encounter.screen``)
    would get its ping's answer only after that one: then a websocket ping, whose pong the
    server writes after everything it wrote before, and a few turns of the loop for the
    client's reader to take what came before it."""
    if not client.unanswered:
        await client.command("ping")
        return
    await (await client.ws.ping())
    for _ in range(10):
        await asyncio.sleep(0)


async def until_turn_of(gm: Client, cid: str, turns: int = 12) -> None:
    """End turns (the GM's, for whoever acts) until ``cid``'s turn runs, at most ``turns``."""
    for _ in range(turns):
        if (await wait_current(gm)) == cid:
            return
        await play_turns(gm, {}, 1)
    assert await wait_current(gm) == cid, f"no turn of {cid} in {turns} turns"


async def play_turns(gm: Client, players: dict[str, Client], n: int) -> None:
    """End ``n`` turns, each sent by whoever controls the current combatant. A player's ack
    is not waited for (it waits while the next turn is behind the GM's screen): the GM's
    view, which sees every event, says when the turn has passed."""
    for _ in range(n):
        actor = await wait_current(gm)
        sender = players.get(actor, gm)
        reply = await send_seen(gm, sender, "act", combatant=actor, action="end_turn")
        if reply is not None and reply["type"] == "error":
            raise CommandError(reply)
        await gm.wait_until(lambda: gm.legal_seq == gm.last_seq)  # its view is current


async def wait_current(gm: Client, timeout: float = 5) -> str:
    """The combatant whose turn it is now, as the GM's latest ``legal_actions`` says."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        acting = [a["combatant"] for a in gm.legal if a["action"] == "end_turn"]
        if acting:
            return str(acting[0])
        await asyncio.sleep(0.005)
    raise TimeoutError(f"no turn in {gm.legal}")


class Clock:
    """A server's clock for tests that compare times (``CommandService.clock``): the wall
    clock, moved on by ``skip`` (the GM's time behind the screen, say), never giving one
    millisecond twice, so that which events share a time is the same on every run."""

    def __init__(self) -> None:
        self.ahead = 0.0
        self.last = 0.0

    def __call__(self) -> float:
        self.last = max(time.time() + self.ahead, self.last + 0.002)
        return self.last

    def skip(self, seconds: float) -> None:
        self.ahead += seconds


@contextlib.asynccontextmanager
async def started(redis_url: str, **overrides: Any) -> AsyncIterator[Server]:
    """A server of the test's own on ``redis_url``, its settings those of the suite's servers
    (``tests.conftest.settings_for``) with ``overrides``."""
    from tests.conftest import settings_for  # (conftest imports this module)

    srv = Server(settings_for(redis_url, **overrides))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()
