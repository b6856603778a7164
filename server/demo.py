"""``stablemaster serve --demo``: a demo encounter to look at, played by a simple GM bot.

The demo speaks the public protocol to its own server, like any client: it creates (or, after
a restart, resumes) an encounter of ponies against Diamond Dogs, prints the links for the GM,
each player and the spectator page, starts the scene, and ends each turn after a short wait
unless a connected player or GM ended it first.
"""

from __future__ import annotations

import asyncio
import logging
from importlib import resources

import orjson

from clients.client import Client, CommandError
from server.app import Server

log = logging.getLogger("stablemaster.demo")

DEMO_KEY = "stablemaster:demo"
NPC_DELAY = 2.0
PC_DELAY = 8.0


def example(name: str) -> str:
    return resources.files("server").joinpath("examples", name).read_text()


class Demo:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.task: asyncio.Task[None] | None = None

    @property
    def base(self) -> str:
        s = self.server.settings
        return (s.public_url or f"http://{s.host}:{s.port}").rstrip("/")

    async def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def run(self) -> None:
        url = f"ws://127.0.0.1:{self.server.settings.port}/ws"
        try:
            gm_token = await self._encounter(url)
            while True:
                try:
                    await self._play(url, gm_token)
                except (ConnectionError, OSError) as exc:
                    log.info("demo bot reconnecting (%s)", exc)
                    await asyncio.sleep(1)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the demo stopped")

    async def _encounter(self, url: str) -> str:
        """The running demo encounter's GM token, creating the encounter when there is none."""
        redis = self.server.redis
        saved = await redis.get(DEMO_KEY)
        if saved:
            data = orjson.loads(saved)
            room = await self.server.rooms.get(data["encounter"])
            if room is not None and not room.state.ended:
                return self.server.tokens.mint(data["encounter"], data["token_id"])
        anon = await Client.open(url)
        try:
            await anon.hello()
            ack = await anon.command(
                "create_encounter", name="Ponies vs. Diamond Dogs", ruleset="dramatic",
                combatants_yaml=example("demo-dramatic.yaml"))
        finally:
            await anon.close()
        result = ack["result"]
        await redis.set(DEMO_KEY, orjson.dumps({"encounter": result["encounter"],
                                                "token_id": result["token_id"]}))
        return str(result["gm_token"])

    async def _play(self, url: str, gm_token: str) -> None:
        gm = await Client.open(url)
        try:
            await gm.hello(gm_token)
            await gm.wait_for(lambda m: m["type"] == "legal_actions")
            await self._print_links(gm, gm_token)
            if any(a["action"] == "start_encounter" for a in gm.legal):
                await gm.command("start_encounter")
            while True:
                acting = [a for a in gm.legal if a["action"] == "end_turn"]
                if not acting:
                    await gm.wait_for(lambda m: m["type"] == "legal_actions",
                                      start=len(gm.messages), timeout=3600)
                    continue
                combatant = acting[0]["combatant"]
                npc = self._kind(gm, combatant) == "npc"
                if npc and any(a["action"] == "move" for a in gm.legal):
                    try:  # the dogs close in before their turn ends
                        await gm.command("act", combatant=combatant, action="move",
                                         args={"note": "closes in"})
                    except CommandError as err:
                        log.debug("demo bot: %s", err)
                mark = len(gm.messages)
                try:
                    await gm.wait_for(lambda m: m["type"] == "legal_actions", start=mark,
                                      timeout=NPC_DELAY if npc else PC_DELAY)
                    continue  # someone else moved things on
                except TimeoutError:
                    pass
                try:
                    await gm.command("act", combatant=combatant, action="end_turn")
                except CommandError as err:
                    log.debug("demo bot: %s", err)
        finally:
            await gm.close()

    def _kind(self, gm: Client, combatant: str) -> str:
        snapshot = gm.snapshot["state"] if gm.snapshot else {"combatants": []}
        for c in snapshot["combatants"]:
            if c["id"] == combatant:
                return str(c["kind"])
        return "npc"  # added after the snapshot: the demo only adds dogs

    async def _print_links(self, gm: Client, gm_token: str) -> None:
        state = gm.snapshot["state"] if gm.snapshot else {}
        links = [f"Demo encounter {state.get('name')!r} ({state.get('id')})",
                 f"  spectator page:  {self.base}/watch?spectate={await self._spectator(gm)}",
                 f"  GM token:        {gm_token}"]
        for c in state.get("combatants", []):
            if c["kind"] == "pc":
                invite = await gm.command("issue_invite", combatants=[c["id"]],
                                          id=f"demo-invite-{c['id']}")
                links.append(f"  player {c['name']:<18} token: {invite['result']['token']}")
        links.append("  (connect a client to /ws and send hello with a token; "
                     "the GM bot ends turns nobody takes)")
        for line in links:
            log.info(line)

    async def _spectator(self, gm: Client) -> str:
        ack = await gm.command("issue_spectator_link", id="demo-spectator", label="demo")
        return str(ack["result"]["token"])
