"""Helpers to set a table: an encounter with a GM, players and spectators, over websockets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients.client import Client

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


async def join(url: str, token: str, opened: list[Client], since: int | None = None) -> Client:
    client = await open_client(url, opened)
    await client.hello(token, since=since)
    return client


def kinds(client: Client) -> list[str]:
    return [m["event"]["kind"] for m in client.events()]


def seqs(client: Client) -> list[int]:
    return [m["seq"] for m in client.events()]


def last_turn(client: Client) -> str | None:
    turns = [m["event"]["combatant"] for m in client.events()
             if m["event"]["kind"] == "turn_started"]
    return turns[-1] if turns else None


async def current_turn(gm: Client) -> str:
    """The combatant whose turn it is, from the GM's legal actions."""
    msg = await gm.wait_for(lambda m: m["type"] == "legal_actions" and any(
        a["action"] == "end_turn" for a in m["actions"]), start=0)
    del msg
    acts = [a for a in gm.legal if a["action"] == "end_turn"]
    assert acts, gm.legal
    return str(acts[0]["combatant"])
