"""Join an encounter from a terminal, as its GM or as a player.

    python -m clients.cli 'http://127.0.0.1:8765/table/#token=sm1.…'
    python -m clients.cli --url ws://127.0.0.1:8765/ws sm1.…
    python -m clients.cli 'http://127.0.0.1:8765/table/#token=smc1.…'   (a campaign link)

With a player's campaign link it waits, showing the campaign's clock and its characters,
until the GM begins an encounter with them, and follows them from encounter to encounter.
It prints the log as it happens (the server's words for each event, and the numbers of a roll
itemised), the initiative order and whose turn it is (from the state the server keeps for it),
and the actions the server says you may take now, numbered. Take one by its number or its
name; type ``help`` for the rest. It reconnects by itself and resumes where it left off, with
the log it had.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shlex
import sys
import threading
from collections.abc import Sequence
from typing import Any, TextIO

from clients.client import CommandError
from clients.dice_check import check_dice, read_history
from clients.live import Seat, parse_link
from clients.view import (
    LogLine,
    drawing_to_map,
    map_lines,
    parts_text,
    signed,
    social_lines,
    vitals_text,
)

Message = dict[str, Any]

HELP = """\
Commands:
  <number> or <action> [target] [key=value ...] [note ...]
                      take an action from the list (e.g. "3", "end_turn", "attack dog",
                      "attack dog weapon='magic bolt' cover=improved", "move path=2,1;3,1",
                      "ready action=move trigger='the dog moves'"); a roll takes its faces
                      ("submit_roll 14"), end_encounter a reason; path=x,y;x,y… lists the
                      squares entered, in order
                      social: "dispute bree argument=arg1", "conversation bree argument=arg1
                      against=arg2", "lie targets=bree,dog size=small white=true text='…'",
                      "block", "stop_blocking", "answer_statement refuse" (accept,
                      accept_with_reservation; statement=ID when several wait)
  a, actions          list the actions you may take now, with their labels
  s, state            the round, whose turn it is, the order with fatigue and conditions,
                      your sheet, the social scene (event, standing, statements, attitudes)
  m, map              the battle map (# blocked, ~ difficult, = low, : fog, % darkness,
                      ^ pit, letters: combatants)
  log [N]             the last N log lines (20)
  check dice          once the scene has ended: check every server roll you were shown
                      against the secret the server revealed (python -m clients.dice_check)
  GM only: reveal ID, hide ID, aware ID yes|no, invite ID [ID ...], spectate,
           adjust ID key=value … REASON   (fatigue=7 physical_step=1 prone=true
                                           condition=unconscious …)
           adjudicate ID [key=value …] DESCRIPTION  (target=ID modifier=2 dc=15
                      success.fatigue_loss=4 failure.prone=true …)
           place ID x,y | place ID off, fall ID METERS, setmap FILE (JSON or a drawing)
           size_argument combatant=ID size=medium text='…', set_attitude holder=ID toward=ID
           attitude=friendly, rule_doubt statement=ID unfounded=true,
           set_social_event rating=12 organizer=ID vips=ID,ID circle='…',
           set_social_situation combatant=ID invitation=true familiarity=stranger …
           raw {"type": …}  (any protocol command as JSON; the id is added)
  help, quit"""


#: Arguments that take a list of combatants: ``targets=bree,dog``.
LISTS = frozenset({"targets", "vips", "combatants"})


def _value(text: str) -> Any:
    if text.lower() in ("null", "none"):
        return None
    if text.lstrip("-").isdigit():
        return int(text)
    squares = _squares(text)
    if squares is not None:
        return squares
    return {"true": True, "false": False}.get(text.lower(), text)


def _squares(text: str) -> list[list[int]] | None:
    """``2,1;3,1`` (or ``2,1 3,1``, ``[[2,1],[3,1]]``) as ``[[2, 1], [3, 1]]``; None when
    the text is not a list of squares."""
    if text.startswith("["):
        try:
            data = json.loads(text)
        except ValueError:
            return None
        ok = isinstance(data, list) and all(
            isinstance(sq, list) and len(sq) == 2 and all(isinstance(v, int) for v in sq)
            for sq in data)
        return data if ok else None
    out = []
    for part in text.replace(";", " ").split():
        x, comma, y = part.partition(",")
        if not comma or not x.strip().isdigit() or not y.strip().isdigit():
            return None
        out.append([int(x), int(y)])
    return out or None


#: Event kinds whose summary's numbers the terminal itemises under the line.
ROLLS = frozenset({"dice_rolled", "attack_resolved", "damage_dealt", "check_made", "lie_told"})
#: How many lines of the log read back on joining the terminal prints.
HISTORY_SHOWN = 20


class Terminal:
    def __init__(self, seat: Seat, out: TextIO) -> None:
        self.seat, self.out = seat, out
        self.shown_generation = -1
        self.current_seen: str | None = None

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    # -- output ------------------------------------------------------------------------------

    def lines(self, seat: Seat, lines: list[LogLine]) -> None:
        for line in lines:
            self.say(f"  {line.text}")
            if line.parts and line.kind in ROLLS:
                self.say(f"      ({parts_text(line.parts)})")
        current = seat.view.current
        if current != self.current_seen:
            self.current_seen = current
            if current in seat.controls:
                self.say(f"\a* your turn ({seat.view.name_of(current)})")

    def history(self, seat: Seat, lines: list[LogLine]) -> None:
        """The log read back on joining: its last lines."""
        shown = lines[-HISTORY_SHOWN:]
        self.say(f"— the log: {len(shown)} of {len(seat.log)} lines ('log N' for more) —")
        self.lines(seat, shown)

    def status(self, seat: Seat, text: str) -> None:
        self.say(f"* {text}")

    def campaign(self, seat: Seat, state: Message) -> None:
        """A campaign link outside encounters (R113): the clock and its own characters."""
        clock = state["clock"]
        self.say(f"Campaign {state['name']!r}, day {clock['day']}, {clock['time']:02d}:00")
        for c in state["characters"]:
            if c["id"] not in state["mine"] and state["role"] != "gm":
                continue
            tracks = "; ".join(
                f"{name} step {t['step']} ({t['persistent']} persistent, {t['crippling']} "
                "crippling)" for name in ("physical", "mental")
                if (t := c.get(name)) and t["step"])
            where = f"in {c['encounter']}" if c.get("encounter") else "between encounters"
            self.say(f"  {c['name']}: {c['life']}, {c.get('fatigue')}/{c.get('fatigue_max')} "
                     f"fatigue, Second Lunches today {c.get('lunches', 0)}"
                     + (f", {tracks}" if tracks else "") + f", {where}")
        if state["role"] != "gm":
            self.say("Waiting for the GM to begin an encounter: you join it by yourself.")

    def entry_text(self, entry: Message) -> str:
        view = self.seat.view
        name = entry["action"]
        text = name + (f": {entry['label']}" if entry.get("label") else "")
        targets = entry.get("targets")
        if name == "answer_statement":
            waiting = [(t, view.answers.get(t, {})) for t in targets or []]
            return text + " → " + ", ".join(
                f"[{t}] {view.name_of(a.get('speaker'))}'s statement ({a.get('loss')})"
                for t, a in waiting)
        if targets and name not in ("submit_roll", "server_roll"):
            text += " → " + ", ".join(f"{view.name_of(t)} [{t}]" for t in targets)
        if name in ("dispute", "conversation") and entry.get("combatant"):
            own = view.statements_of(entry["combatant"], unspent=True)
            text += "; statements: " + (", ".join(f"[{a}] {v['size']}" for a, v in own)
                                        or "none")
        return text

    def action_lines(self) -> list[str]:
        """The legal actions, numbered, under the combatant they are for."""
        view = self.seat.view
        out = []
        heading = None
        for i, entry in enumerate(self.seat.legal, 1):
            cid = entry.get("combatant")
            who = "Game master" if cid is None else view.name_of(cid)
            if cid is not None and cid == view.current:
                who += f" — turn, round {view.round}"
            if who != heading:
                heading = who
                out.append(f"{who}:")
            out.append(f"  {i:>2}) {self.entry_text(entry)}")
        return out

    def show_actions(self, full: bool = False) -> None:
        self.shown_generation = self.seat.generation
        if not self.seat.legal:
            if full:
                self.say("No actions for you now.")
            return
        timer = self.timer_text()
        for text in ([timer] if timer else []) + self.action_lines():
            self.say(text)

    def timer_text(self, now: float | None = None) -> str | None:
        """The running turn timer (the state's ``timer``): whose turn, the seconds left by the
        server's clock (``now``, ms since the epoch; default: the seat's estimate of it)."""
        timer = self.seat.view.timer
        if timer is None:
            return None
        who = self.seat.view.name_of(timer.get("combatant"))
        if timer.get("deadline") is None:
            left = (timer.get("remaining") or 0) / 1000
            return f"turn timer: {who}, paused with {left:.0f} s left"
        clock = self.seat.server_now() if now is None else now
        left = max(0.0, (timer["deadline"] - clock) / 1000)
        return f"turn timer: {who}, {left:.0f} s left"

    def state_lines(self, now: float | None = None) -> list[str]:
        """The table as text: the scene, the order with what this viewer sees of everyone's
        vitals, the turn timer, the sheets of its combatants, the effects, the social scene."""
        view = self.seat.view
        phase = "ended" if view.ended else (f"round {view.round}" if view.started else "setup")
        out = [f"{view.name} ({view.ruleset}) — {phase}"
               + (f": {view.end_reason}" if view.ended and view.end_reason else "")]
        order = view.order or [c for c in view.combatants]
        for cid in order:
            c = view.combatants.get(cid, {})
            marks = []
            if cid == view.current:
                marks.append("<- acting")
            if c.get("hidden"):
                marks.append("hidden")
            if cid in view.flat_footed:
                marks.append("flat-footed")
            if cid in view.delaying:
                marks.append("delaying")
            if view.grabs.get(cid):
                marks.append("grabbed by " + ", ".join(view.name_of(g) for g in view.grabs[cid]))
            vitals = vitals_text(c.get("vitals") or {}, view.vitals_label)
            if vitals:
                marks.append(f"[{vitals}]")
            init = view.initiative.get(cid, {}).get("total")
            out.append(f"  {'' if init is None else init:>3} {view.name_of(cid):<22} "
                       f"{c.get('side', ''):<8} {' '.join(marks)}".rstrip())
        timer = self.timer_text(now)
        if timer:
            out.append(f"  {timer}")
        for cid in self.seat.controls:
            stats = view.combatants.get(cid, {}).get("stats") or {}
            if stats:
                out.append(f"  {view.name_of(cid)}: " + ", ".join(f"{k} {v}" for k, v in
                                                              stats.items()))
        for effect in view.effects.values():
            on = f" on {view.name_of(effect['combatant'])}" if effect.get("combatant") else ""
            changes = [f"{str(m.get('target')).replace('_', ' ')} {_amount(m.get('amount'))}"
                       for m in effect.get("modifiers") or []]
            until = f"until round {effect.get('ends_round')}" if effect.get("until") == "rounds" \
                else "until " + str(effect.get("until", "ended")).replace("_", " ")
            out.append(f"  effect: {effect['name']}{on} ({'; '.join([*changes, until])})")
        out += [f"  {text}" for text in social_lines(view)]
        return out

    def show_state(self) -> None:
        for text in self.state_lines():
            self.say(text)

    def screen(self, now: float | None = None) -> str:
        """Everything the terminal shows of the table now (the state, the map, the actions),
        as one text."""
        return "\n".join([*self.state_lines(now), *map_lines(self.seat.view),
                          *self.action_lines()])

    # -- input -------------------------------------------------------------------------------

    def find(self, word: str) -> Message | None:
        legal = self.seat.legal
        if word.isdigit():
            n = int(word)
            return legal[n - 1] if 1 <= n <= len(legal) else None
        named = [a for a in legal if a["action"] == word]
        current = [a for a in named if a.get("combatant") == self.seat.view.current]
        found = current or named
        return found[0] if found else None

    def target(self, word: str, targets: list[str]) -> str | None:
        view = self.seat.view
        lowered = word.lower()
        for t in targets:
            if t.lower() == lowered or view.name_of(t).lower() == lowered:
                return t
        for t in targets:
            if view.name_of(t).lower().startswith(lowered):
                return t
        return None

    async def handle(self, line: str) -> bool:
        """Carry out one typed line; false to quit."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            self.say(f"? {exc}")
            return True
        if not words:
            return True
        head, rest = words[0], words[1:]
        try:
            return await self._handle(head, rest, line)
        except CommandError as err:
            self.say(f"! {err.code}: {err.reply.get('message')}")
        except (TimeoutError, ConnectionError) as exc:
            self.say(f"! no answer ({exc or 'offline'}); try again")
        return True

    async def _handle(self, head: str, rest: list[str], line: str) -> bool:
        seat = self.seat
        if head in ("q", "quit", "exit"):
            return False
        if head in ("help", "?", "h"):
            self.say(HELP)
        elif head in ("a", "actions"):
            self.show_actions(full=True)
        elif head in ("s", "state"):
            self.show_state()
        elif head in ("m", "map"):
            lines = map_lines(seat.view)
            for text in lines or ["No battle map."]:
                self.say(text)
        elif head == "adjust" and len(rest) >= 2:
            args, bare = _split(rest[1:])
            await seat.command("adjust_combatant", combatant=rest[0],
                               reason=" ".join(bare)[:200] or "GM override", **args)
            self.say("ok")
        elif head == "adjudicate" and rest:
            args, bare = _split(rest[1:])
            outcomes: dict[str, dict[str, Any]] = {}
            for key in [k for k in args if "." in k]:
                which, _, name = key.partition(".")
                outcomes.setdefault(f"on_{which}", {})[name] = args.pop(key)
            args.update(outcomes)
            await seat.command("adjudicate", combatant=rest[0],
                               description=" ".join(bare)[:200] or "GM ruling", **args)
            self.say("ok")
        elif head == "place" and len(rest) == 2:
            at = None if rest[1] == "off" else (_squares(rest[1]) or [[-1, -1]])[0]
            await seat.command("place_combatant", combatant=rest[0], at=at)
            self.say("ok")
        elif head == "fall" and len(rest) == 2:
            await seat.command("fall", combatant=rest[0], meters=float(rest[1]))
            self.say("ok")
        elif head == "setmap" and rest:
            await seat.command("set_map", map=read_map(rest[0]))
            self.say("ok")
        elif head == "log":
            n = int(rest[0]) if rest and rest[0].isdigit() else 20
            for line_ in seat.log[-n:]:
                self.say(f"  {line_.text}")
        elif head == "check" and rest[:1] == ["dice"]:
            await self.check_dice()
        elif head in ("reveal", "hide") and rest:
            await seat.command("set_hidden", combatant=rest[0], hidden=head == "hide")
            self.say("ok")
        elif head == "aware" and len(rest) == 2:
            await seat.command("set_awareness", combatant=rest[0],
                               aware=rest[1].lower() in ("yes", "y", "true", "1"))
            self.say("ok")
        elif head == "invite" and rest:
            ack = await seat.command("issue_invite", combatants=rest)
            self.say(f"player token for {', '.join(rest)}: {ack['result']['token']}")
        elif head == "spectate":
            ack = await seat.command("issue_spectator_link")
            self.say(f"spectator token: {ack['result']['token']}")
        elif head == "raw":
            data = json.loads(line.split(None, 1)[1])
            ack = await seat.command(data.pop("type"), **data)
            self.say(json.dumps(ack["result"]))
        else:
            entry = self.find(head)
            if entry is None:
                self.say(f"? no action {head!r} now; 'a' lists them, 'help' says more")
                return True
            await self.take(entry, rest)
        return True

    async def check_dice(self) -> None:
        """Check the server's dice against the secret revealed at the end (R101), with the
        whole log this credential may see (``clients.dice_check``)."""
        if not self.seat.view.ended:
            self.say("? the server reveals the secret of its dice when the scene ends: "
                     "check them then")
            return
        report = check_dice(await read_history(self.seat.url, self.seat.token))
        for text in report.text().splitlines():
            self.say(f"  {text}")

    async def take(self, entry: Message, words: list[str]) -> None:
        seat, name = self.seat, entry["action"]
        args, bare = _split(words)
        targets = entry.get("targets") or []
        if name == "submit_roll":
            faces = [int(w) for w in bare if w.lstrip("-").isdigit()]
            await seat.command("submit_roll", request=targets[0], faces=faces,
                               **seat.turn_fields())
        elif name == "server_roll":
            await seat.command("server_roll", request=targets[0], **seat.turn_fields())
        elif name == "start_encounter":
            await seat.command("start_encounter")
        elif name == "end_encounter":
            await seat.command("end_encounter", reason=" ".join(bare)[:80] or None)
        elif entry.get("combatant") is None:
            ack = await seat.command(name, **args)  # another GM command the server offers
            if ack.get("result"):
                self.say(f"ok: {name} {json.dumps(ack['result'])}")
                return
        elif name == "answer_statement":
            # its targets are the statements waiting for an answer, not combatants
            if bare and "answer" not in args:
                args["answer"] = bare.pop(0)
            if "statement" not in args and targets:
                args["statement"] = targets[0]
            if bare:
                args["note"] = " ".join(bare)[:200]
            await seat.act(entry["combatant"], name, **args)
        else:
            if targets and bare and "target" not in args:
                chosen = self.target(bare[0], targets)
                if chosen is not None:
                    args["target"] = chosen
                    bare = bare[1:]
            if targets and "target" not in args and "targets" not in args \
                    and not entry.get("optional_target"):
                self.say(f"? {name} needs a target: " +
                         ", ".join(f"{seat.view.name_of(t)} [{t}]" for t in targets))
                return
            if bare:
                args["note"] = " ".join(bare)[:200]
            await seat.act(entry["combatant"], name, **args)
        self.say(f"ok: {name}")


def _amount(value: Any) -> str:
    return signed(value) if isinstance(value, int) and not isinstance(value, bool) \
        else str(value)


def _split(words: list[str]) -> tuple[dict[str, Any], list[str]]:
    """``key=value`` arguments (numbers, true/false and squares converted) and the other
    words."""
    args: dict[str, Any] = {}
    bare: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in LISTS:
            args[key] = [v for v in value.replace(";", ",").split(",") if v]
        elif eq and key.replace(".", "_").isidentifier():
            args[key] = _value(value)
        else:
            bare.append(word)
    return args, bare


def read_map(path: str) -> dict[str, Any]:
    """A battle map file for ``set_map``: JSON, or a drawing in the format of
    ``BattleMap.from_ascii`` (the server checks either)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        data: dict[str, Any] = json.loads(text)
        return data
    return drawing_to_map(text)


def read_lines(queue: asyncio.Queue[str | None], stream: TextIO) -> None:
    """Feed typed lines to the queue from a daemon thread (it must not hold up the exit)."""
    loop = asyncio.get_running_loop()

    def pump() -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed: we are exiting
            for line in iter(stream.readline, ""):
                loop.call_soon_threadsafe(queue.put_nowait, line)
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="stdin", daemon=True).start()


async def main_async(args: argparse.Namespace) -> int:
    if "://" in args.link:
        url, token = parse_link(args.link)
        url = args.url or url
    else:
        url, token = args.url, args.link
    if not url or not token:
        print("give a table link, or --url and a token", file=sys.stderr)
        return 2
    out = sys.stdout
    seat = Seat(url, token, client_name="stablemaster-cli")
    term = Terminal(seat, out)
    seat.on_lines, seat.on_status, seat.on_history = term.lines, term.status, term.history
    seat.on_campaign = term.campaign
    seat.start()
    try:
        await seat.wait_online(30)
        await seat.wait_until(lambda: bool(seat.view.state) or seat.campaign is not None
                              or seat.fatal is not None, 30)
        if seat.fatal:
            raise ConnectionError(seat.fatal)
    except (ConnectionError, TimeoutError) as exc:
        print(f"cannot join: {exc or seat.fatal}", file=sys.stderr)
        await seat.stop()
        return 1
    if not seat.view.state:  # a campaign link, its character in no encounter yet
        await seat.wait_until(lambda: bool(seat.view.state) or seat.fatal is not None, None)
        if seat.fatal:
            print(f"disconnected: {seat.fatal}", file=sys.stderr)
            await seat.stop()
            return 1
    who = seat.role or "?"
    if seat.controls:
        who += " of " + ", ".join(seat.view.name_of(c) for c in seat.controls)
    term.say(f"Joined {seat.view.name!r} ({seat.view.ruleset}) as {who}. "
             "Type 'help' for commands.")
    term.show_state()
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    read_lines(queue, sys.stdin)
    try:
        while seat.fatal is None:
            if term.shown_generation != seat.generation:
                term.show_actions()
            get = asyncio.ensure_future(queue.get())
            change = asyncio.ensure_future(seat.wait_change(seat.generation))
            done, _ = await asyncio.wait({get, change}, return_when=asyncio.FIRST_COMPLETED)
            change.cancel()
            if get not in done:
                get.cancel()
                continue
            line = get.result()
            if line is None or not await term.handle(line):
                break
    finally:
        await seat.stop()
    if seat.fatal:
        print(f"disconnected: {seat.fatal}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients.cli",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("link", help="a table link (…/table/#token=…) or, with --url, a token")
    parser.add_argument("--url", help="websocket URL, e.g. ws://127.0.0.1:8765/ws")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(main_async(args))
    return 130


if __name__ == "__main__":
    raise SystemExit(main())
