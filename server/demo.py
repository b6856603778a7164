"""``stablemaster serve --demo``: encounters to look at and join, played by bots.

The demo speaks the public protocol to its own server, like any client. For each ruleset it
asks for (``--demo-ruleset``) it creates (or, after a restart, resumes) the example encounter of
ponies against Diamond Dogs (on its battle map, for "MLP Dramatic Systems") — and, when
``demo_rulesets`` holds ``social``, the Canterlot garden party, a social scene whose event and
situations the demo sets and whose GM bot gives everyone a statement — and prints their links
in one block, last: the GM console, one per player character and the spectator page.

A scene waits for its first visitor (a connection to it other than the demo's own: a page or
a terminal client opened on one of its links), then ``--demo-wait`` seconds for people to take
seats; then the demo starts it and bots (``clients.bot``) play every seat nobody has taken: a
player character whose player is connected is that player's; the NPCs and the flow of the
scene stay the bots' while a GM only watches, and become the GM's from the GM's first move (a
command that changes the scene; handing out links does not count) for as long as that GM stays
connected. When a scene ends the demo creates the next one from
the same example and prints its links ("new scene"). The bots' moves go to ``--demo-log``
(a file, by default), so that they do not push the links off the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import textwrap
from dataclasses import dataclass, field
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
#: Events a GM's command may cause without taking the NPCs over from the bots.
NOT_PLAYING = frozenset({"token_issued", "token_revoked", "dice_entropy_added"})
#: The loggers whose lines go to ``--demo-log``: the demo's and its bots' moves.
DEMO_LOGGERS = ("stablemaster.demo", "stablemaster.bot")

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
    #: the GM credentials (token ids) that made a move: the NPCs are theirs while connected
    took_over: set[str] = field(default_factory=set)
    #: set once someone other than the demo opened a connection to this encounter
    visited: bool = False


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
        self.bots: list[Bot] = []
        #: scenes that ended and were followed by a new one
        self.scenes = 0
        self._handlers: list[logging.Handler] = []

    @property
    def base(self) -> str:
        s = self.settings
        host = "127.0.0.1" if s.host in ("0.0.0.0", "::", "") else s.host
        return (s.public_url or f"http://{host}:{s.port}").rstrip("/")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.settings.port}/ws"

    async def start(self) -> None:
        self._log_to_file()
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        await asyncio.gather(*(e.seat.stop() for e in self.encounters if e.seat),
                             return_exceptions=True)
        for name in DEMO_LOGGERS:
            logger = logging.getLogger(name)
            for handler in self._handlers:
                logger.removeHandler(handler)
            logger.propagate = True
        for handler in self._handlers:
            handler.close()
        self._handlers = []

    def _log_to_file(self) -> None:
        """Send the demo's and the bots' lines to ``settings.demo_log`` rather than the
        server's log; their warnings and errors go to both."""
        path = self.settings.demo_log
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        to_file = logging.FileHandler(path, encoding="utf-8")
        to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self._handlers = [to_file, _Louder()]
        for name in DEMO_LOGGERS:
            logger = logging.getLogger(name)
            for handler in self._handlers:
                logger.addHandler(handler)
            logger.propagate = False

    async def run(self) -> None:
        try:
            for ruleset in self.settings.demo_rulesets:
                self.encounters.append(await self._set_up(ruleset))
            print("\n".join(await self._links_block()), flush=True)
            self.ready.set()
            if self.settings.demo_wait < 0:
                return
            await asyncio.gather(*(self._scenes(i) for i in range(len(self.encounters))))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the demo stopped")

    async def _set_up(self, ruleset: str) -> DemoEncounter:
        """The running demo encounter of ``ruleset`` (created when there is none), with its
        bots' seat online."""
        enc = await self._encounter(ruleset)
        enc.seat = Seat(self.url, enc.bot_token, client_name="stablemaster-demo").start()
        await enc.seat.wait_online(30)
        return enc

    async def _scenes(self, i: int) -> None:
        """Play the ``i``-th demo encounter; when it ends, the next from the same example."""
        while True:
            enc = self.encounters[i]
            await self._play(enc)
            assert enc.seat is not None
            if not enc.seat.view.ended:  # the seat stopped for good
                log.warning("the demo encounter %s stopped: %s", enc.encounter,
                            enc.seat.fatal)
                return
            log.info("demo encounter %s ended: a new scene", enc.encounter)
            following = await self._set_up(enc.ruleset)
            self.encounters[i] = following
            self.scenes += 1
            await enc.seat.stop()
            lines = await self._links(following, heading="New scene")
            lines.append(f"  it starts {self.settings.demo_wait:g} s after someone first opens "
                         "one of these links")
            print("\n".join(lines), flush=True)

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
        secret: dict[str, Any] = {"creator_secret": secrets[0]} if secrets else {}
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

    async def _links(self, enc: DemoEncounter, heading: str = "Demo encounter") -> list[str]:
        seat = enc.seat
        assert seat is not None
        view = seat.view
        spectator = await seat.command("issue_spectator_link", id="demo-spectator",
                                       label="demo spectators")
        links = [("GM console", f"{self.base}/table/#token={enc.gm_token}"),
                 ("spectator page",
                  f"{self.base}/watch?spectate={spectator['result']['token']}")]
        for cid, c in view.combatants.items():
            if c["kind"] == "pc":
                invite = await seat.command("issue_invite", combatants=[cid], label=c["name"],
                                            id=f"demo-invite-{cid}")
                links.append((f"player {c['name']}",
                              f"{self.base}/table/#token={invite['result']['token']}"))
        width = max(len(label) for label, _ in links) + 2
        return [f"{heading} {view.name!r} ({view.ruleset}, {enc.encounter})",
                *(f"  {label + ':':<{width}}{url}" for label, url in links)]

    async def _links_block(self) -> list[str]:
        """What the server prints once the demo is ready: the links, then how the demo goes."""
        rule = "=" * 78
        lines = ["", rule]
        for enc in self.encounters:
            lines += [*await self._links(enc), ""]
        lines += [f"Your own encounter: {self.base}/table/",
                  f"A campaign:         {self.base}/campaign/ (characters kept between "
                  "encounters)",
                  "From a terminal:    python -m clients.cli '<any link above>'", ""]
        wait = self.settings.demo_wait
        if wait < 0:
            lines.append("No bots (--demo-wait is negative).")
        else:
            lines += textwrap.wrap(
                f"Each scene starts {wait:g} s after someone first opens one of its links; "
                "bots then play every seat nobody has taken. A player link you open makes "
                "that character yours. At the GM console the bots go on playing the NPCs "
                "while you watch; your first move there (an NPC's action, ending a turn, an "
                "effect: anything but handing out links) hands the NPCs and the scene to you "
                "while you stay. When a scene ends a new one starts, its links printed "
                "here.", 78)
        where = self.settings.demo_log
        lines += [f"The bots' moves: {where if where is not None else 'the server log'}. "
                  "Ctrl-C stops the server.", rule]
        return lines

    # -- bots --------------------------------------------------------------------------------

    def taken(self, enc: DemoEncounter, combatant: str | None) -> bool:
        """Whether a person holds this seat: the player of a character while connected; the
        NPCs and the flow of the scene (``combatant`` None), a GM who has sent a command,
        while connected (a GM who only watches leaves them to the bots)."""
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
            if npc and actor.is_gm and self._has_acted(enc, room, actor.token_id):
                return True
        return False

    @staticmethod
    def _has_acted(enc: DemoEncounter, room: Any, token_id: str) -> bool:
        """Whether the GM credential ``token_id`` has played a part of the scene: caused an
        event other than handing out or revoking a link (its recent events name their
        command ``<token id>:<command id>``)."""
        if token_id not in enc.took_over:
            prefix = f"{token_id}:"
            if any(e.cmd is not None and e.cmd.startswith(prefix)
                   and e.event.__struct_config__.tag not in NOT_PLAYING
                   for e, _, _ in room.ring):
                enc.took_over.add(token_id)
                log.info("demo encounter %s: the GM takes the NPCs over", enc.encounter)
        return token_id in enc.took_over

    def visited(self, enc: DemoEncounter) -> bool:
        """Whether someone other than the demo has opened a connection to the encounter."""
        if not enc.visited:
            room = self.server.rooms.peek(enc.encounter)
            own = enc.seat.welcome.get("session") if enc.seat and enc.seat.welcome else None
            enc.visited = room is not None and any(
                session.actor is not None and getattr(session, "id", None) != own
                for session in room.sessions)
        return enc.visited

    async def _play(self, enc: DemoEncounter) -> None:
        seat = enc.seat
        assert seat is not None

        async def may_play(_seat: Seat, combatant: str) -> bool:
            while self.taken(enc, combatant):
                if seat.view.ended:  # (the GM who took it over ended the scene)
                    return False
                await asyncio.sleep(0.25)
            return True

        if not seat.view.started:
            while not self.visited(enc):
                await asyncio.sleep(0.25)
            log.info("demo encounter %s: a first visitor; the scene starts in %g s",
                     enc.encounter, self.settings.demo_wait)
            await asyncio.sleep(self.settings.demo_wait)
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


class _Louder(logging.Handler):
    """Passes the warnings and errors of a logger that no longer propagates to the server's
    log (the root logger's handlers)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        for handler in logging.getLogger().handlers:
            if record.levelno >= handler.level:
                handler.handle(record)
