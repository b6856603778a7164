"""``stablemaster serve --demo``: encounters to look at and join, played by bots.

The demo speaks the public protocol to its own server, like any client. For each ruleset it
asks for (``--demo-ruleset``) it creates (or, after a restart, resumes) the example encounter of
ponies against Diamond Dogs (on its battle map, for "MLP Dramatic Systems") — and, when
``demo_rulesets`` holds ``social``, the Canterlot garden party, a social scene whose event and
situations the demo sets and whose GM bot gives everyone a statement — and prints its links:
the GM console, one per player character and the spectator page. After
``--demo-wait`` seconds it starts the scene, unless a person is at the GM console, and bots
(``clients.bot``) play every seat nobody has taken: a player character whose player is not
connected, the NPCs while no GM is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
import yaml

from clients.bot import Bot
from clients.client import Client, CommandError
from clients.live import Seat
from server import auth, web
from server.config import Settings
from server.rooms import Rooms

log = logging.getLogger("stablemaster.demo")

DEMO_KEY = "stablemaster:demo:{ruleset}"
#: The demo's encounters: a ruleset (or ``social``) and its example.
EXAMPLES = {"dramatic": "dramatic-ponies-vs-diamond-dogs.yaml",
            "action_time": "action-time-ponies-vs-diamond-dogs.yaml",
            "social": "dramatic-canterlot-garden-party.yaml"}


@dataclass
class DemoEncounter:
    ruleset: str
    encounter: str
    gm_token: str
    bot_token: str
    bot_token_id: str
    seat: Seat | None = None


class Host(Protocol):
    """What the demo needs of its server (``server.app.Server`` is one)."""

    settings: Settings
    redis: Any
    rooms: Rooms
    tokens: auth.Tokens


class Demo:
    def __init__(self, server: Host) -> None:
        self.server = server
        self.settings = server.settings
        self.task: asyncio.Task[None] | None = None
        self.encounters: list[DemoEncounter] = []
        self.ready = asyncio.Event()  # set once every demo encounter is set up
        self.started_at = time.monotonic()
        self.bots: list[Bot] = []

    @property
    def base(self) -> str:
        s = self.settings
        host = "127.0.0.1" if s.host in ("0.0.0.0", "::", "") else s.host
        return (s.public_url or f"http://{host}:{s.port}").rstrip("/")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.settings.port}/ws"

    async def start(self) -> None:
        self.started_at = time.monotonic()
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        await asyncio.gather(*(e.seat.stop() for e in self.encounters if e.seat),
                             return_exceptions=True)

    async def run(self) -> None:
        try:
            for ruleset in self.settings.demo_rulesets:
                enc = await self._encounter(ruleset)
                enc.seat = Seat(self.url, enc.bot_token, client_name="stablemaster-demo").start()
                await enc.seat.wait_online(30)
                await self._print_links(enc)
                self.encounters.append(enc)
            self.ready.set()
            if self.settings.demo_wait < 0:
                return
            await asyncio.gather(*(self._play(enc) for enc in self.encounters))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the demo stopped")

    async def _encounter(self, ruleset: str) -> DemoEncounter:
        """The running demo encounter of ``ruleset``, created when there is none."""
        redis, key = self.server.redis, DEMO_KEY.format(ruleset=ruleset)
        saved = await redis.get(key)
        if saved:
            data = orjson.loads(saved)
            room = await self.server.rooms.get(data["encounter"])
            ended = room is None or room.state.ended
            if room is not None:
                self.server.rooms.release(room)  # (its bots connect to it like anyone)
            if not ended:
                mint, eid = self.server.tokens.mint, data["encounter"]
                return DemoEncounter(ruleset, eid, mint(eid, data["gm"]), mint(eid, data["bot"]),
                                     data["bot"])
        example = next(e for e in web.examples() if e["file"] == EXAMPLES[ruleset])
        # (with the operator's first creator secret, when creating needs one)
        secrets = self.settings.creator_secrets
        secret = {"creator_secret": secrets[0]} if secrets else {}
        async with Client.connect(self.url) as anon:
            await anon.hello()
            ack = await anon.command("create_encounter", name=example["name"],
                                     ruleset=example["ruleset"],
                                     combatants_yaml=web.example_text(example["file"]),
                                     map=example["map"], **secret)
        result = ack["result"]
        async with Client.connect(self.url) as gm:
            await gm.hello(result["gm_token"])
            bots = await gm.command("issue_integration_token", scopes=["view:gm", "command:gm"],
                                    label="demo bots", id="demo-bots")
            setup, _ = web.example_social(self._example_data(ruleset))
            for i, (command, fields) in enumerate(setup):  # the event and the situations
                await gm.command(command, id=f"demo-social-{i}", **fields)
        enc = DemoEncounter(ruleset, result["encounter"], result["gm_token"],
                            bots["result"]["token"], bots["result"]["token_id"])
        await redis.set(key, orjson.dumps({"encounter": enc.encounter, "gm": result["token_id"],
                                           "bot": enc.bot_token_id}))
        return enc

    @staticmethod
    def _example_data(key: str) -> dict[str, Any]:
        loaded: dict[str, Any] = yaml.safe_load(web.example_text(EXAMPLES[key]))
        return loaded

    async def _print_links(self, enc: DemoEncounter) -> None:
        seat = enc.seat
        assert seat is not None
        view = seat.view
        spectator = await seat.command("issue_spectator_link", id="demo-spectator",
                                       label="demo spectators")
        lines = [f"Demo encounter {view.name!r} ({view.ruleset}, {enc.encounter})",
                 f"  GM console:     {self.base}/table/#token={enc.gm_token}",
                 f"  spectator page: {self.base}/watch?spectate={spectator['result']['token']}"]
        for cid, c in view.combatants.items():
            if c["kind"] == "pc":
                invite = await seat.command("issue_invite", combatants=[cid], label=c["name"],
                                            id=f"demo-invite-{cid}")
                lines.append(f"  player {c['name'] + ':':<19} "
                             f"{self.base}/table/#token={invite['result']['token']}")
        wait = self.settings.demo_wait
        lines.append("  terminal:       python -m clients.cli '<any link above>'")
        lines.append(f"  bots play every seat nobody has taken after {wait:g} s" if wait >= 0
                     else "  no bots (--demo-wait is negative)")
        print("\n".join(lines), flush=True)

    # -- bots --------------------------------------------------------------------------------

    def taken(self, enc: DemoEncounter, combatant: str | None) -> bool:
        """Whether a person holds this seat: the player of a character, the GM for NPCs and
        the flow of the scene (``combatant`` None)."""
        room = self.server.rooms.peek(enc.encounter)
        if room is None:
            return False
        npc = combatant is None or room.state.combatants.get(combatant) is None or \
            room.state.combatants[combatant].kind == "npc"
        for session in room.sessions:
            actor = session.actor
            if actor is None or actor.token_id == enc.bot_token_id:
                continue
            if combatant is not None and combatant in actor.combatants:
                return True
            if npc and actor.is_gm:
                return True
        return False

    async def _waited(self) -> None:
        left = self.started_at + self.settings.demo_wait - time.monotonic()
        if left > 0:
            await asyncio.sleep(left)

    async def _play(self, enc: DemoEncounter) -> None:
        seat = enc.seat
        assert seat is not None

        async def may_play(_seat: Seat, combatant: str) -> bool:
            await self._waited()
            while self.taken(enc, combatant):
                await asyncio.sleep(0.25)
            return True

        await self._waited()
        while not seat.view.started and not seat.view.ended:
            if not self.taken(enc, None) and any(a["action"] == "start_encounter"
                                                 for a in seat.legal):
                try:
                    await seat.command("start_encounter")
                except CommandError as err:
                    log.debug("demo: %s", err)
            with contextlib.suppress(TimeoutError):
                await seat.wait_change(seat.generation, timeout=0.5)
        _, statements = web.example_social(self._example_data(enc.ruleset))
        bot = Bot([seat], pace=self.settings.demo_pace, may_play=may_play,
                  social=bool(statements), statements=statements)
        self.bots.append(bot)
        await bot.run()
        log.info("demo encounter %s ended", enc.encounter)
