"""Bots: take one or more seats and play them with a simple policy.

    python -m clients.bot http://127.0.0.1:8765/table/#token=sm1.… [more links or tokens]
    python -m clients.bot --url ws://127.0.0.1:8765/ws TOKEN TOKEN --pace 0.5

A bot only ever sends what the server lists in ``legal_actions``, and chooses from them and the
state the server keeps for its seat (``clients.live.Seat``). For each turn of a combatant
it plays, in this order:

1. it answers the dice it is asked for (``server_roll``), and a statement that hit one of its
   combatants (``answer_statement``): it accepts it when that combatant is friendly or helpful
   toward the speaker, else it refuses it;
2. it stands up when it is prone (``stand_up``);
3. when ``dispute`` is legal, it disputes the nearest opponent (another side) with its largest
   statement that is not spent;
4. it heals an ally at low fatigue, when an action whose name says ``heal`` is legal and lists
   that ally among its ``targets``;
5. on a battle map, when the nearest enemy is out of its reach and it has no ranged weapon, it
   moves toward it (``move`` with a path of adjacent squares, straight-line greedy, around
   blocked and occupied squares, within its ``speed``);
6. it attacks the nearest enemy (not in a social scene, ``--social``), when an action whose
   name says ``attack`` is legal with ``targets`` (nearest by the map's positions, else the
   first in initiative order), with a melee weapon of its stat block when the enemy is within
   reach, else a ranged one;
7. it ends the turn. A refused move or attack is not tried again that turn.

With a GM credential (or an integration with ``command:gm``) it plays every combatant whose
turn comes (``--seat`` narrows that), may start the scene (``--start``) and end it after some
rounds (``--end-after``). It stops when the scene ends (or after ``--rounds`` rounds). In a
social scene (``--social``) the GM bot first gives every character a statement
(``size_argument``) when nobody has one, and ends the scene once the debate is over or no
statement is left to use.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clients.client import CommandError
from clients.live import Seat, parse_link
from clients.view import ATTITUDES, LogLine, TableView, size_rank

log = logging.getLogger("stablemaster.bot")

#: The commands a bot sends for a turn, with ``expect_turn``.
TURN_COMMANDS = frozenset({"act", "submit_roll", "server_roll"})

Message = dict[str, Any]


@dataclass(frozen=True)
class Move:
    """One command a bot sends: ``type`` and its fields."""

    type: str
    fields: dict[str, Any]

    def describe(self, view: TableView) -> str:
        if self.type == "act":
            target = self.fields.get("args", {}).get("target")
            return (f"{view.name_of(self.fields['combatant'])}: {self.fields['action']}"
                    + (f" → {view.name_of(target)}" if target else ""))
        return self.type


def position(view: TableView, cid: str) -> tuple[int, int] | None:
    """Where a combatant stands on the battle map, if the server says (the state's
    ``positions``)."""
    return view.positions.get(cid)


def fatigue_left(view: TableView, cid: str) -> float | None:
    """The share of its fatigue points (Health in "Action Time") a combatant has left (1.0
    fresh, 0.0 spent), if this viewer may see them: ``vitals.fatigue`` / ``fatigue_max``."""
    vitals = view.combatants.get(cid, {}).get("vitals") or {}
    current, most = vitals.get("fatigue"), vitals.get("fatigue_max")
    if isinstance(current, int | float) and isinstance(most, int | float) and most > 0:
        return max(0.0, min(1.0, current / most))
    return None


def weapons(view: TableView, cid: str) -> list[dict[str, Any]]:
    """The weapons of a combatant's stat block (empty when this viewer may not see it)."""
    found = (view.combatants.get(cid, {}).get("stats") or {}).get("weapons") or []
    return [w for w in found if isinstance(w, dict) and isinstance(w.get("name"), str)]


def _ranged(weapon: dict[str, Any]) -> bool:
    return weapon.get("kind") in ("ranged", "thrown")


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Squares between two squares, counting a diagonal as one (who stands next to whom)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def wall_edges(m: dict[str, Any]) -> set[tuple[str, int, int]]:
    """The map's thin walls as unit edges: ``("v", x, y)`` from grid point (x, y) down one,
    ``("h", x, y)`` from (x, y) right one."""
    edges: set[tuple[str, int, int]] = set()
    for (ax, ay), (bx, by) in m.get("walls") or []:
        if ax == bx:
            edges.update(("v", ax, y) for y in range(min(ay, by), max(ay, by)))
        else:
            edges.update(("h", x, ay) for x in range(min(ax, bx), max(ax, bx)))
    return edges


def _crosses(walls: set[tuple[str, int, int]], a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether a thin wall runs between two orthogonally adjacent squares."""
    if a[1] == b[1]:
        return ("v", max(a[0], b[0]), a[1]) in walls
    return ("h", a[0], max(a[1], b[1])) in walls


def path_toward(view: TableView, me: str, there: tuple[int, int], speed: int,
                reach: int = 1) -> list[list[int]]:
    """Squares to enter, one orthogonal step at a time, to come within ``reach`` of
    ``there``: the longer gap first, around blocked and occupied squares, difficult terrain
    counted twice, at most ``speed``. Empty when no step helps. The server judges the path."""
    m = view.battle_map
    here = position(view, me)
    if m is None or here is None:
        return []
    blocked = {tuple(sq) for sq in m.get("blocked") or []}
    walls = wall_edges(m)
    difficult = {tuple(sq) for sq in m.get("difficult") or []}
    taken = {at for cid, at in view.positions.items() if cid != me}
    path: list[list[int]] = []
    spent = 0
    while distance(here, there) > reach:
        dx, dy = there[0] - here[0], there[1] - here[1]
        steps = [(_sign(dx), 0), (0, _sign(dy))]
        if abs(dy) > abs(dx):
            steps.reverse()
        for sx, sy in steps:
            nxt = (here[0] + sx, here[1] + sy)
            if (sx, sy) == (0, 0) or nxt in blocked or nxt in taken or _crosses(walls, here, nxt) \
                    or not (0 <= nxt[0] < m["width"] and 0 <= nxt[1] < m["height"]):
                continue
            cost = 2 if nxt in difficult else 1
            if spent + cost > speed:
                continue
            spent += cost
            here = nxt
            path.append([nxt[0], nxt[1]])
            break
        else:
            break
    return path


@dataclass
class Policy:
    """Attack the nearest enemy, heal an ally at low fatigue, end the turn."""

    heal_below: float = 0.34
    #: combatants this bot plays (None: every one its credential controls)
    seats: set[str] | None = None
    #: actions tried per (round, combatant) turn: each at most once a turn
    done: dict[tuple[int, str], set[str]] = field(default_factory=dict)
    #: a social scene: argue, never start a fight
    social: bool = False
    #: statements answered (or refused to be answered) already
    answered: set[str] = field(default_factory=set)

    def mine(self, entry: Message, others: frozenset[str] = frozenset()) -> bool:
        cid = entry.get("combatant")
        return cid is not None and cid not in others and (self.seats is None or cid in self.seats)

    def choose(self, view: TableView, legal: list[Message],
               others: frozenset[str] = frozenset()) -> Move | None:
        """The next move, or None; ``others`` are combatants another seat plays."""
        entries = [a for a in legal if self.mine(a, others)]
        for a in entries:
            if a["action"] == "server_roll" and a.get("targets"):
                return Move("server_roll", {"request": a["targets"][0]})
        for a in entries:
            waiting = [t for t in a.get("targets") or [] if t not in self.answered]
            if a["action"] == "answer_statement" and waiting:
                return self._answer(view, a["combatant"], waiting[0])
        turn = [a for a in entries if a["action"] == "end_turn"]
        if not turn:
            return None
        me = turn[0]["combatant"]
        done = self.done.get((view.round, me), set())
        mine = [a for a in entries if a["combatant"] == me and a["action"] not in done]
        if any(a["action"] == "stand_up" for a in mine):
            return Move("act", {"combatant": me, "action": "stand_up"})
        if not any("attack" in d or "heal" in d or d == "dispute" for d in done):
            dispute = self._dispute(view, me, mine)
            if dispute is not None:
                return dispute
            heal = self._heal(view, me, mine)
            if heal is not None:
                return heal
            attack = None if self.social else \
                self._attack(view, me, mine, may_move="move" not in done)
            if attack is not None:
                return attack
        return Move("act", {"combatant": me, "action": "end_turn"})

    def _answer(self, view: TableView, me: str, statement: str) -> Move:
        """Accept a statement from someone this combatant is friendly (or better) toward,
        refuse the others."""
        speaker = view.answers.get(statement, {}).get("speaker")
        liked = speaker is not None and \
            ATTITUDES.index(view.attitude(me, speaker)) >= ATTITUDES.index("friendly")
        return Move("act", {"combatant": me, "action": "answer_statement",
                            "args": {"statement": statement,
                                     "answer": "accept" if liked else "refuse"}})

    def _dispute(self, view: TableView, me: str, mine: list[Message]) -> Move | None:
        """Dispute the nearest opponent with the largest statement left."""
        entry = next((a for a in mine if a["action"] == "dispute" and a.get("targets")), None)
        own = view.statements_of(me, unspent=True)
        if entry is None or not own:
            return None
        opponents = [t for t in entry["targets"]
                     if self._side(view, t) != self._side(view, me)]
        if not opponents:
            return None
        here = position(view, me)

        def rank(t: str) -> tuple[bool, float, int]:
            there = position(view, t)
            vitals = view.combatants.get(t, {}).get("vitals") or {}
            down = (vitals.get("condition") or ["active"])[0] != "active"
            far = float(distance(here, there)) if here and there else float("inf")
            return (down, far, view.order.index(t) if t in view.order else len(view.order))

        biggest = max(own, key=lambda x: size_rank(x[1].get("size")))[0]
        return Move("act", {"combatant": me, "action": "dispute",
                            "args": {"target": min(opponents, key=rank),
                                     "argument": biggest}})

    def taken(self, view: TableView, move: Move) -> None:
        if move.type == "act" and move.fields["action"] == "answer_statement":
            self.answered.add(move.fields["args"]["statement"])
        elif move.type == "act" and move.fields["action"] != "end_turn":
            key = (view.round, move.fields["combatant"])
            self.done.setdefault(key, set()).add(move.fields["action"])

    def _side(self, view: TableView, cid: str) -> str | None:
        side = view.combatants.get(cid, {}).get("side")
        return str(side) if side is not None else None

    def _attack(self, view: TableView, me: str, mine: list[Message],
                may_move: bool = True) -> Move | None:
        for a in mine:
            if "attack" not in a["action"] or not a.get("targets"):
                continue
            enemies = [t for t in a["targets"] if t != me and
                       self._side(view, t) != self._side(view, me)]
            if not enemies:
                continue
            here = position(view, me)

            def rank(t: str, here: tuple[int, int] | None = here) -> tuple[bool, float, int]:
                there = position(view, t)
                order = view.order.index(t) if t in view.order else len(view.order)
                vitals = view.combatants.get(t, {}).get("vitals") or {}
                down = (vitals.get("condition") or ["active"])[0] != "active"  # fight the up
                if here is None or there is None:
                    return (down, float("inf"), order)
                return (down, distance(here, there), order)

            target = min(enemies, key=rank)
            args: dict[str, Any] = {"target": target}
            there = position(view, target)
            arms = weapons(view, me)
            stats = view.combatants.get(me, {}).get("stats") or {}
            reach: int = stats["reach"] if isinstance(stats.get("reach"), int) else 1
            near = here is None or there is None or distance(here, there) <= reach
            melee = [w for w in arms if not _ranged(w)]
            ranged = [w for w in arms if _ranged(w)]
            if "weapon" not in (a.get("options") or {}):
                pass  # the action names no weapon (Action Time's): the server picks it
            elif near and melee:
                args["weapon"] = melee[0]["name"]
            elif not near and ranged:
                args["weapon"] = ranged[0]["name"]
                if ranged[0].get("kind") == "thrown":
                    args["throw"] = True
            elif not near:
                moves = [m for m in mine if m["action"] == "move"]
                speed: int = stats["speed"] if isinstance(stats.get("speed"), int) else 6
                path = path_toward(view, me, there, speed, reach) \
                    if moves and may_move and there is not None else []
                if path:
                    return Move("act", {"combatant": me, "action": "move",
                                        "args": {"path": path}})
                return None  # out of reach, nothing to throw: wait for the enemy
            return Move("act", {"combatant": me, "action": a["action"], "args": args})
        return None

    def _heal(self, view: TableView, me: str, mine: list[Message]) -> Move | None:
        for a in mine:
            if "heal" not in a["action"] or not a.get("targets"):
                continue
            allies = [(left, t) for t in a["targets"]
                      if self._side(view, t) == self._side(view, me)
                      and (left := fatigue_left(view, t)) is not None and left <= self.heal_below]
            if allies:
                target = min(allies)[1]
                return Move("act", {"combatant": me, "action": a["action"],
                                    "args": {"target": target}})
        return None


def beaten_side(view: TableView) -> str | None:
    """A side none of whose combatants can fight on (unconscious, dead or destroyed), when
    another side still can: the scene is decided."""
    standing: dict[str, bool] = {}
    for c in view.combatants.values():
        if c.get("hidden"):
            continue
        vitals = c.get("vitals") or {}
        condition = vitals.get("condition") or ["active"]
        # conscious, and in no state the ruleset counts out of the fight (the snapshot's
        # ``out_of_fight``: Action Time's 0 Health, R29)
        up = condition[0] == "active" and view.out_of_fight.isdisjoint(condition[1:])
        side = str(c.get("side"))
        standing[side] = standing.get(side, False) or up
    if len(standing) < 2 or sum(standing.values()) != 1:
        return None
    return next(side for side, up in standing.items() if not up)


#: Asked before each move: may the bot play this combatant now? (The demo waits for people.)
MayPlay = Callable[[Seat, str], Awaitable[bool]]


class Bot:
    """Plays the seats it is given until their scenes end."""

    def __init__(self, seats: Sequence[Seat], *, pace: float = 0.5, policy: Policy | None = None,
                 start: bool = False, end_after: int | None = None, rounds: int | None = None,
                 may_play: MayPlay | None = None, social: bool = False,
                 statements: dict[str, tuple[str, str]] | None = None) -> None:
        self.seats = list(seats)
        self.pace = pace
        self.policy = policy or Policy(social=social)
        self.start, self.end_after, self.rounds = start, end_after, rounds
        self.may_play = may_play
        self.moves = 0
        #: a social scene; the statement (size, text) the GM bot gives each character
        #: (default: a medium one)
        self.social = social
        self.statements = statements or {}
        self._to_size: list[str] | None = None

    async def run(self) -> None:
        await asyncio.gather(*(seat.wait_online(30) for seat in self.seats))
        await asyncio.gather(*(self.play(seat) for seat in self.seats))

    def finished(self, seat: Seat) -> bool:
        return seat.view.ended or seat.fatal is not None or (
            self.rounds is not None and seat.view.round > self.rounds)

    def _flow(self, seat: Seat) -> Move | None:
        names = {a["action"] for a in seat.legal if a.get("combatant") is None}
        sized = self._size_arguments(seat, names)
        if sized is not None:
            return sized
        if self.start and "start_encounter" in names:
            return Move("start_encounter", {})
        if self.end_after is not None and "end_encounter" in names \
                and seat.view.round > self.end_after:
            return Move("end_encounter", {"reason": f"the bots played {self.end_after} rounds"})
        beaten = beaten_side(seat.view)
        if "end_encounter" in names and seat.view.started and beaten is not None:
            return Move("end_encounter", {"reason": f"the {beaten} are out of the fight"})
        view = seat.view
        if self.social and "end_encounter" in names and view.started and not view.answers:
            if view.debate_over:
                return Move("end_encounter", {"reason": "the debate is over"})
            if view.arguments and not any(a.get("size") for a in view.arguments.values()):
                return Move("end_encounter", {"reason": "every statement is spent"})
        return None

    def _size_arguments(self, seat: Seat, names: set[str]) -> Move | None:
        """A social scene's GM bot: when nobody has a statement, one for every character
        (``size_argument``), one command at a time."""
        if not self.social or "size_argument" not in names:
            return None
        view = seat.view
        if self._to_size is None:
            self._to_size = [] if view.arguments else \
                [cid for cid, c in view.combatants.items() if not c.get("hidden")]
        while self._to_size:
            cid = self._to_size[0]
            if cid in view.combatants and not view.statements_of(cid):
                size, text = self.statements.get(
                    cid, ("medium", f"{view.name_of(cid)} has a point"))
                return Move("size_argument", {"combatant": cid, "size": size, "text": text})
            self._to_size.pop(0)
        return None

    async def play(self, seat: Seat) -> None:
        await seat.wait_online(30)
        # a GM seat leaves the combatants of the bot's player seats to them
        others = frozenset(c for s in self.seats if s is not seat and s.role == "player"
                           for c in s.controls) if seat.role != "player" else frozenset()
        while not self.finished(seat):
            generation, turn = seat.generation, seat.turn_fields()
            move = self._flow(seat) or self.policy.choose(seat.view, seat.legal, others)
            if move is None or not await self._ready(seat, move, generation):
                if generation == seat.generation:
                    await seat.wait_change(generation)
                continue
            try:
                # a move for a turn is meant for the turn it was chosen in (``stale`` after)
                for_turn = turn if move.type in TURN_COMMANDS else {}
                await seat.command(move.type, **move.fields, **for_turn)
                if move.type == "size_argument" and self._to_size:
                    self._to_size.remove(move.fields["combatant"])
                self.policy.taken(seat.view, move)
                self.moves += 1
                log.info("[%s] %s", seat.view.name, move.describe(seat.view))
            except CommandError as err:
                if err.code == "rate_limited":  # too fast for the server: the same move again
                    await asyncio.sleep(0.5)
                    continue
                log.info("[%s] %s refused: %s", seat.view.name, move.describe(seat.view), err)
                if move.type == "size_argument" and self._to_size:
                    self._to_size.remove(move.fields["combatant"])
                self.policy.taken(seat.view, move)  # not again this turn: end it instead
                retry = move.type == "act" and move.fields.get("action") != "end_turn"
                if generation == seat.generation and not retry:
                    await seat.wait_change(generation)
            except TimeoutError:
                continue

    async def _ready(self, seat: Seat, move: Move, generation: int) -> bool:
        """Wait the pace (and the demo's say); false when the legal actions changed meanwhile."""
        async def wait() -> bool:
            if self.pace > 0:
                await asyncio.sleep(self.pace)
            combatant = move.fields.get("combatant")
            if self.may_play is not None and combatant is not None:
                return await self.may_play(seat, combatant)
            return True

        waiting = asyncio.ensure_future(wait())
        changed = asyncio.ensure_future(seat.wait_change(generation))
        done, _ = await asyncio.wait({waiting, changed}, return_when=asyncio.FIRST_COMPLETED)
        for task in (waiting, changed):
            if task not in done:
                task.cancel()
                # (asyncio.wait, not ``await task``: a cancellation of this bot while it waits
                # must stop it, not be taken for the one of ``task``)
                await asyncio.wait({task})
        if waiting in done and seat.generation == generation:
            return bool(waiting.result())
        return False


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m clients.bot", description=__doc__.split("\n\n")[0],
                                epilog="Each seat is a table link (…/table/#token=…) or, with "
                                "--url, a bare token.")
    p.add_argument("seats", nargs="+", help="table links or tokens, one per seat")
    p.add_argument("--url", help="websocket URL (ws://host:port/ws) for bare tokens")
    p.add_argument("--pace", type=float, default=0.5, help="seconds between moves (0.5)")
    p.add_argument("--seat", action="append", dest="only", metavar="COMBATANT",
                   help="play only these combatants (repeatable; default: all it controls)")
    p.add_argument("--start", action="store_true", help="start the scene when it may (GM)")
    p.add_argument("--end-after", type=int, metavar="N",
                   help="end the scene once N rounds are played (GM)")
    p.add_argument("--rounds", type=int, metavar="N", help="stop after round N")
    p.add_argument("--social", action="store_true",
                   help="a social scene: argue instead of fighting; the GM bot gives everyone "
                   "a statement when nobody has one and ends the scene when the debate is over")
    p.add_argument("--heal-below", type=float, default=0.34,
                   help="heal an ally with at most this share of its fatigue track left (0.34)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    return p


async def main_async(args: argparse.Namespace) -> int:
    def say(seat: Seat, lines: list[LogLine]) -> None:
        for line in lines:
            log.debug("[%s] %s", seat.view.name, line.text)

    seats = []
    for item in args.seats:
        url, token = parse_link(item) if "://" in item else (args.url, item)
        if not url or not token:
            print(f"no websocket URL or token in {item!r} (give --url for bare tokens)",
                  file=sys.stderr)
            return 2
        seats.append(Seat(url, token, client_name="stablemaster-bot", on_lines=say).start())
    policy = Policy(heal_below=args.heal_below, seats=set(args.only) if args.only else None,
                    social=args.social)
    bot = Bot(seats, pace=args.pace, policy=policy, start=args.start, end_after=args.end_after,
              rounds=args.rounds, social=args.social)
    try:
        await bot.run()
    finally:
        await asyncio.gather(*(s.stop() for s in seats))
    failed = [s.fatal for s in seats if s.fatal]
    for reason in failed:
        print(f"seat stopped: {reason}", file=sys.stderr)
    print(f"bot finished after {bot.moves} moves", flush=True)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(main_async(args))
    return 130


if __name__ == "__main__":
    raise SystemExit(main())
