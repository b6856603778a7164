"""The Python reference clients fold nothing: the terminal client (``clients.cli``) and the
bots show and choose from the state the server keeps for their seat (``view`` patches) and log
the server's words (``summaries``), so fed the server's messages with every event stripped to
its summary they show the same table and the same log.

Bots play a scene of the demo's example on its battle map (verifiable dice, a turn timer, a
GM's effect and override) against a real server and Redis over real websockets, while the
GM's and a player's credential each have two seats watching: one receiving the messages as they
come, one whose connection strips every ``event`` message (live and in ``history`` pages) to
its kind, position, time and summary. Both drop their connection mid-scene and resume; after
the end, the terminal's rendering of the table and the log lines are identical, and so are
those of a terminal started afresh (its log read back with ``get_history``).
"""

from __future__ import annotations

import asyncio
import io
from typing import Any

import yaml

from clients.bot import Bot
from clients.cli import Terminal
from clients.client import Client
from clients.live import HISTORY, Seat
from server import web
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import join, open_client

Message = dict[str, Any]
EXAMPLE = "dramatic-ponies-vs-diamond-dogs.yaml"
#: What a stripped event message keeps.
KEPT = ("type", "encounter", "seq", "digest", "cursor", "ts", "summary")


def summary_only(message: Message) -> Message:
    """An ``event`` message as its summary alone (a ``history`` page's events too)."""
    if message.get("type") == "event":
        return {**{k: v for k, v in message.items() if k in KEPT},
                "event": {"kind": message["event"]["kind"]}}
    if message.get("type") == "history":
        return {**message, "events": [summary_only(m) for m in message["events"]]}
    return message


class SummaryOnly(Client):
    """A connection that receives every event as its summary alone."""

    def _take(self, message: Message) -> None:
        super()._take(summary_only(message))


class SummarySeat(Seat):
    client_class = SummaryOnly


class Watcher:
    """A seat with a terminal that renders it (into a buffer)."""

    def __init__(self, seat: Seat) -> None:
        self.seat, self.out = seat, io.StringIO()
        self.term = Terminal(seat, self.out)
        seat.on_lines, seat.on_history = self.term.lines, self.term.history
        seat.start()

    async def settled(self) -> None:
        """Until the seat has everything of the ended scene: its last event handled."""
        await self.seat.wait_online(20)
        await self.seat.command("ping")
        await self.seat.wait_until(lambda: bool(self.seat.log) and self.seat.view.ended
                                   and self.seat.log[-1].kind == "encounter_ended", 20)

    def screen(self) -> str:
        return self.term.screen(now=0)

    def lines(self) -> list[str]:
        return [line.text for line in self.seat.log]

    def printed(self) -> list[str]:
        """What the terminal printed of the table (not the connection's status lines)."""
        return [x for x in self.out.getvalue().splitlines() if not x.startswith("* ")]


async def test_a_terminal_fed_only_summaries_shows_the_same_table_and_log(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    text = web.example_text(EXAMPLE)
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Both ways", ruleset="dramatic",
                             combatants_yaml=text, map=web.example_map(yaml.safe_load(text)),
                             options={"turn_seconds": 600})
    gm_token = ack["result"]["gm_token"]
    gm = await join(url, gm_token, clients)
    player = (await gm.command("issue_invite", combatants=["twilight"]))["result"]["token"]
    pairs = [(Watcher(Seat(url, token)), Watcher(SummarySeat(url, token)))
             for token in (gm_token, player)]
    for pair in pairs:
        for w in pair:
            await w.seat.wait_online(20)
    await gm.command("adjust_combatant", combatant="twilight", prone=True, reason="a stumble")
    bot_seat = Seat(url, gm_token).start()
    bot = Bot([bot_seat], pace=0, start=True, end_after=2)
    try:
        playing = asyncio.ensure_future(bot.run())
        await bot_seat.wait_until(lambda: bot_seat.view.round >= 1, 30)
        await gm.command("add_effect", name="Shield of Leaves", rounds=3, combatant="twilight",
                         modifiers=[{"target": "reflex_defense", "amount": 2}])
        for pair in pairs:  # every watcher drops mid-scene and resumes (cursor and state)
            for w in pair:
                await w.seat.close_connection()
        await asyncio.wait_for(playing, 90)
    finally:
        await bot_seat.stop()
    try:
        for raw, stripped in pairs:
            await raw.settled()
            await stripped.settled()
            assert raw.seat.snapshot_reason == stripped.seat.snapshot_reason
            assert raw.seat.view.state == stripped.seat.view.state
            assert raw.screen() == stripped.screen()
            assert raw.lines() == stripped.lines()
            kinds = [line.kind for line in raw.seat.log]
            assert "attack_resolved" in kinds and "turn_started" in kinds  # a fight was shown
            # the words are the server's: no line is a bare kind
            assert all(line.text != line.kind.replace("_", " ") for line in raw.seat.log)
            assert "Shield of Leaves" in raw.screen() and "Twilight Sparkle" in raw.screen()
        # a terminal started afresh shows the same log: the last events, read back
        for raw, _ in pairs:
            again = (Watcher(Seat(url, raw.seat.token)),
                     Watcher(SummarySeat(url, raw.seat.token)))
            for w in again:
                await w.settled()
            assert again[0].screen() == again[1].screen() == raw.screen()
            assert again[0].lines() == again[1].lines()
            assert again[0].lines() == raw.lines()[-HISTORY:]
            assert again[0].printed() == again[1].printed()
            assert again[0].printed()[-1].strip() == again[0].lines()[-1]
            for w in again:
                await w.seat.stop()
    finally:
        for pair in pairs:
            for w in pair:
                await w.seat.stop()


def test_the_terminal_shows_the_turn_timer_by_the_servers_clock() -> None:
    """The state's ``timer`` (R102): the seconds left until its deadline on the server's clock,
    or, paused, the time it kept."""
    seat = Seat("ws://127.0.0.1:9/ws", "unused")
    seat.view.state = {"combatants": [{"id": "ace", "name": "Ace"}], "timer": {
        "number": 1, "combatant": "ace", "deadline": 100_000, "warn_at": None,
        "remaining": None}}
    term = Terminal(seat, io.StringIO())
    assert term.timer_text(now=58_000) == "turn timer: Ace, 42 s left"
    assert term.timer_text(now=200_000) == "turn timer: Ace, 0 s left"
    assert "  turn timer: Ace, 42 s left" in term.state_lines(now=58_000)
    seat.view.state["timer"].update(deadline=None, remaining=30_000)
    assert term.timer_text() == "turn timer: Ace, paused with 30 s left"
    seat.view.state["timer"] = None
    assert term.timer_text() is None
