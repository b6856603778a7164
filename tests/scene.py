"""A scene driven by its GM, for readable rule scenarios, over either transport: in-process on
the engine's table (``encounter.harness``: no Redis, no sockets) or through the real protocol
(a websocket to an in-process server, its events in a real Redis). The same scenario runs on
both; the rule scenarios use the in-process one, and a few of them also run over the network
(``BOTH_TRANSPORTS``), as do the scenarios about what a connection receives.

Every method is a coroutine on both, so a scenario does not say which transport it runs on:
``do`` sends a command and returns the kinds of the events it caused, in order; ``refused``
returns the ``error`` an action got; ``events`` the events the GM's connection received since
it joined, as JSON; ``legal`` the GM's ``legal_actions`` now; ``view`` the state its snapshot
shows now; ``state`` the state the encounter holds; ``replays`` whether its log folds to that
state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from clients.client import Client, CommandError
from encounter.fold import fold
from encounter.harness import GM, Refused, Table, wire
from encounter.state import EncounterState
from encounter.views import view_state
from server.app import Server
from tests import act_schemas
from tests.conftest import ws_url
from tests.helpers import open_client

IN_PROCESS, NETWORK = "in_process", "network"
#: Run a test on both transports (the ``tables`` fixture, ``tests/conftest.py``: in-process
#: unless told otherwise).
BOTH_TRANSPORTS = pytest.mark.parametrize("tables", [IN_PROCESS, NETWORK], indirect=True)
#: Run a test over the network only: it looks at what a connection receives.
NETWORK_ONLY = pytest.mark.parametrize("tables", [NETWORK], indirect=True)


class Scene:
    """What a scenario may ask of a scene on either transport."""

    transport: str

    @property
    def state(self) -> EncounterState:
        raise NotImplementedError

    async def send(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        """The GM sends a command; its ``ack`` or ``error`` as the GM receives it."""
        raise NotImplementedError

    async def do(self, type_: str, /, **fields: Any) -> list[str]:
        raise NotImplementedError

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        raise NotImplementedError

    @property
    def legal(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def view(self) -> dict[str, Any]:
        """The state as the GM's snapshot shows it now."""
        raise NotImplementedError

    async def replays(self) -> bool:
        raise NotImplementedError

    async def command(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        """The ``ack`` of a command the GM sends; raises ``CommandError`` on an ``error``."""
        reply = await self.send(type_, **fields)
        if reply["type"] == "error":
            raise CommandError(reply)
        return reply

    async def act(self, who: str, action: str, /, **args: Any) -> list[str]:
        return await self.do("act", combatant=who, action=action, args=args)

    async def refused(self, who: str, action: str, /, **args: Any) -> dict[str, Any]:
        try:
            await self.act(who, action, **args)
        except CommandError as err:
            return err.reply
        raise AssertionError(f"{who} {action} {args} was not refused")

    def last(self, kind: str) -> dict[str, Any]:
        """The last event of ``kind`` the GM received."""
        return self.events(kind)[-1]

    async def turns_in_round(self) -> list[str]:
        """End turns until the round changes; who had them."""
        start, seen = self.state.round, []
        while self.state.round == start:
            current = self.state.current
            assert current is not None
            seen.append(current)
            await self.act(current, "end_turn")
        return seen


class LocalScene(Scene):
    """A scene on the engine's in-process table, seen as the GM's connection would see it
    (joined once the encounter was created)."""

    transport = IN_PROCESS

    def __init__(self, table: Table) -> None:
        self.table = table

    @property
    def state(self) -> EncounterState:
        return self.table.state

    def _checked(self, type_: str, fields: dict[str, Any], reply: dict[str, Any]) -> None:
        """An ``act`` and its answer, against the published schemas (``tests.act_schemas``),
        as every act sent over the network is."""
        if type_ == "act":
            act_schemas.observed(self.state.ruleset, {"type": type_, **fields}, reply)

    async def send(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        try:
            reply = self.table.send(type_, **fields).ack
        except Refused as refusal:
            reply = refusal.reply
        self._checked(type_, fields, reply)
        return reply

    async def do(self, type_: str, /, **fields: Any) -> list[str]:
        try:
            sent = self.table.send(type_, **fields)
        except Refused as refusal:
            self._checked(type_, fields, refusal.reply)
            raise CommandError(refusal.reply) from None
        self._checked(type_, fields, sent.ack)
        return sent.kinds

    async def refused(self, who: str, action: str, /, **args: Any) -> dict[str, Any]:
        """The refusal, and nothing appended nor changed (``Table.refused``)."""
        reply = self.table.refused_act(who, action, **args).reply
        self._checked("act", {"combatant": who, "action": action, "args": args}, reply)
        return reply

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [m["event"] for m in self.table.messages(GM, since=self.table.created)
                if kind is None or m["event"]["kind"] == kind]

    @property
    def legal(self) -> list[dict[str, Any]]:
        legal: list[dict[str, Any]] = wire(self.table.legal(GM))
        return legal

    async def view(self) -> dict[str, Any]:
        shown: dict[str, Any] = wire(view_state(self.state, GM))
        return shown

    async def replays(self) -> bool:
        return self.table.replays()


class NetScene(Scene):
    """The GM's connection to one encounter on an in-process server; ``state`` is the state
    the server holds for it."""

    transport = NETWORK

    def __init__(self, server: Server, gm: Client, encounter: str, gm_token: str) -> None:
        self.server, self.gm, self.encounter, self.gm_token = server, gm, encounter, gm_token

    @property
    def state(self) -> EncounterState:
        room = self.server.rooms.peek(self.encounter)
        assert room is not None
        return room.state

    async def send(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        try:
            return await self.gm.command(type_, **fields)
        except CommandError as err:
            return err.reply

    async def do(self, type_: str, /, **fields: Any) -> list[str]:
        before = self.gm.last_seq
        ack = await self.gm.command(type_, **fields)
        return [m["event"]["kind"] for m in self.gm.events() if before < m["seq"] <= ack["seq"]]

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [m["event"] for m in self.gm.events()
                if kind is None or m["event"]["kind"] == kind]

    @property
    def legal(self) -> list[dict[str, Any]]:
        return self.gm.legal

    async def view(self) -> dict[str, Any]:
        await self.gm.command("get_snapshot")
        assert self.gm.snapshot is not None
        state: dict[str, Any] = self.gm.snapshot["state"]
        return state

    async def replays(self) -> bool:
        """The log in Redis folds to the state the server holds."""
        return fold(self.encounter, await self.server.store.read(self.encounter, 0)) == self.state


class Tables:
    """Where scenes are created: ``create`` a scene from stat blocks, a map, a ruleset and
    options, with its GM connected; ``started`` one started, see :meth:`started`."""

    transport: str

    async def create(self, combatants: list[dict[str, Any]],
                     battle_map: dict[str, Any] | None = None, ruleset: str = "dramatic",
                     **options: Any) -> Scene:
        raise NotImplementedError

    async def started(self, combatants: list[dict[str, Any]],
                      battle_map: dict[str, Any] | None = None, **options: Any) -> Scene:
        """A scene whose player characters roll physical dice (``players_roll``), started,
        with every initiative die answered 10 (the order then follows the modifiers)."""
        scene = await self.create(combatants, battle_map, players_roll=True, **options)
        await scene.do("start_encounter")
        for request in list(scene.state.pending_rolls):
            await scene.do("submit_roll", request=request, faces=[10])
        return scene


class InProcess(Tables):
    transport = IN_PROCESS

    async def create(self, combatants: list[dict[str, Any]],
                     battle_map: dict[str, Any] | None = None, ruleset: str = "dramatic",
                     **options: Any) -> Scene:
        table = Table(combatants, ruleset=ruleset, map=battle_map, name="Scenario", **options)
        return LocalScene(table)


class Network(Tables):
    transport = NETWORK

    def __init__(self, server: Server, clients: list[Client]) -> None:
        self.server, self.clients = server, clients

    async def create(self, combatants: list[dict[str, Any]],
                     battle_map: dict[str, Any] | None = None, ruleset: str = "dramatic",
                     **options: Any) -> Scene:
        url = ws_url(self.server)
        anon = await open_client(url, self.clients)
        await anon.hello()
        ack = await anon.command("create_encounter", name="Scenario", combatants=combatants,
                                 ruleset=ruleset, options=options, map=battle_map)
        gm = await open_client(url, self.clients)
        await gm.hello(ack["result"]["gm_token"])
        await gm.wait_for(lambda m: m["type"] == "legal_actions")
        return NetScene(self.server, gm, ack["result"]["encounter"], ack["result"]["gm_token"])


Make = Callable[..., Awaitable[Scene]]
