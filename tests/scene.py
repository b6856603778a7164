"""A scene driven by its GM through the real protocol, for readable rule scenarios."""

from __future__ import annotations

from typing import Any

from clients.client import Client, CommandError
from encounter.fold import fold
from encounter.state import EncounterState
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import open_client


class Scene:
    """The GM's connection to one encounter on an in-process server; ``state`` is the state
    the server holds for it, ``do`` sends a command and returns the kinds of the events it
    caused, in order."""

    def __init__(self, server: Server, gm: Client, encounter: str, gm_token: str) -> None:
        self.server, self.gm, self.encounter, self.gm_token = server, gm, encounter, gm_token

    @classmethod
    async def create(cls, server: Server, clients: list[Client], combatants: list[dict[str, Any]],
                     battle_map: dict[str, Any] | None = None, ruleset: str = "dramatic",
                     **options: Any) -> Scene:
        url = ws_url(server)
        anon = await open_client(url, clients)
        await anon.hello()
        ack = await anon.command("create_encounter", name="Scenario", combatants=combatants,
                                 ruleset=ruleset, options=options, map=battle_map)
        gm = await open_client(url, clients)
        await gm.hello(ack["result"]["gm_token"])
        await gm.wait_for(lambda m: m["type"] == "legal_actions")
        return cls(server, gm, ack["result"]["encounter"], ack["result"]["gm_token"])

    @classmethod
    async def started(cls, server: Server, clients: list[Client],
                      combatants: list[dict[str, Any]], battle_map: dict[str, Any] | None = None,
                      **options: Any) -> Scene:
        """A scene whose player characters roll physical dice (``players_roll``), started, with
        every initiative die answered 10 (the order then follows the modifiers)."""
        scene = await cls.create(server, clients, combatants, battle_map, players_roll=True,
                                 **options)
        await scene.do("start_encounter")
        for request in list(scene.state.pending_rolls):
            await scene.do("submit_roll", request=request, faces=[10])
        return scene

    @property
    def state(self) -> EncounterState:
        room = self.server.rooms.peek(self.encounter)
        assert room is not None
        return room.state

    async def do(self, type_: str, /, **fields: Any) -> list[str]:
        before = self.gm.last_seq
        ack = await self.gm.command(type_, **fields)
        return [m["event"]["kind"] for m in self.gm.events() if before < m["seq"] <= ack["seq"]]

    async def act(self, who: str, action: str, /, **args: Any) -> list[str]:
        return await self.do("act", combatant=who, action=action, args=args)

    async def refused(self, who: str, action: str, /, **args: Any) -> dict[str, Any]:
        try:
            await self.act(who, action, **args)
        except CommandError as err:
            return err.reply
        raise AssertionError(f"{who} {action} {args} was not refused")

    async def turns_in_round(self) -> list[str]:
        """End turns until the round changes; who had them."""
        start, seen = self.state.round, []
        while self.state.round == start:
            current = self.state.current
            assert current is not None
            seen.append(current)
            await self.act(current, "end_turn")
        return seen

    async def replays(self) -> bool:
        """The log in Redis folds to the state the server holds."""
        return fold(self.encounter, await self.server.store.read(self.encounter, 0)) == self.state
