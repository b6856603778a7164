"""Check an encounter's server dice (ruling R101, "Verifiable server dice" in docs/protocol.md):
every server roll a credential was shown is drawn again from the secret the server revealed when
the encounter ended, and the secret is checked against the commitment published before the
first roll, with the entropy the table sent mixed in as the log says.

    python -m clients.dice_check ws://127.0.0.1:8765/ws <token>
    python -m clients.dice_check --log messages.json

The first reads the encounter's whole history with the token (any credential: a player checks
the rolls it saw, the GM every roll); the second a JSON list of the messages a client received,
in order: the ``snapshot`` it joined with and the ``event`` messages after it (or ``history``
pages, or their events). The commitment is taken from the ``dice_committed`` event, or, for a
client that joined after it (a late joiner's events do not hold it), from the dice of the
first snapshot (``state.dice``: the commitment and the entropy chain as they stood then). It
prints what it checked, and which server rolls it could not because this log never showed them
(those before it begins, those between two of its rolls; the rolls behind the GM's screen,
which a player or spectator is never shown): those are counted, not held against the dice. It
exits 0 when every server roll it holds is the one the secret gives, 1 when one is not (or the
secret does not match the commitment), 2 when it cannot tell (the encounter has not ended, its
dice are not verifiable, or the log holds no commitment: a late joiner's events without its
snapshot). Dice renewed after a rewind (``dice_renewed``, ruling R117) close a segment: its
rolls are checked with the secret the renewal shows, the later ones with the new secret.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from rules.dice import DiceError, roll_keyed
from rules.verifiable_dice import commitment as commitment_of
from rules.verifiable_dice import next_entropy, roll_key

Message = dict[str, Any]


@dataclass
class DiceReport:
    """What :func:`check_dice` found: ``problems`` (empty when every roll checked holds),
    how many server rolls were ``verified``, how many were physical dice (``manual``, which
    nothing can verify) and how many server rolls carried no place (``unverifiable``: rolled
    with a fixed ``dice_seed``, or fresh after the server's secret changed). ``source`` says
    where the commitment came from (the ``dice_committed`` event, or a snapshot's dice);
    ``unseen`` the places of each stream the log's rolls skip (rolls this viewer was never
    shown: before the log begins, or in a gap); ``unanchored`` the keyed rolls that came before
    the snapshot that gave the commitment, with no chain to check them by."""

    commitment: str | None = None
    source: str | None = None
    revealed: bool = False
    #: renewals of the dice (``dice_renewed``, R117): each closes a segment of the rolls
    renewals: int = 0
    verified: int = 0
    manual: int = 0
    unverifiable: int = 0
    unanchored: int = 0
    entropy: int = 0
    seen: dict[str, set[int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def unseen(self) -> dict[str, list[int]]:
        """Per stream, the numbers below the last one seen that no roll of the log has."""
        return {stream: [n for n in range(max(numbers)) if n not in numbers]
                for stream, numbers in sorted(self.seen.items()) if numbers}

    @property
    def keyed(self) -> int:
        """The keyed rolls of the log (those with a place)."""
        return sum(len(numbers) for numbers in self.seen.values())

    @property
    def honest(self) -> bool:
        """Every server roll checked is the one the committed secret gives."""
        return self.revealed and self.commitment is not None and not self.problems

    def text(self) -> str:
        lines = [f"commitment: {self.commitment or 'none'}"
                 + (f" (from {self.source})" if self.source else ""),
                 *([f"dice renewed: {self.renewals} time(s), each segment checked on its own"]
                   if self.renewals else []),
                 f"secret revealed: {'yes' if self.revealed else 'not yet'}",
                 f"entropy taken in: {self.entropy}",
                 f"server rolls verified: {self.verified}",
                 f"physical dice (not verifiable): {self.manual}",
                 f"server rolls without a place (not verifiable): {self.unverifiable}"]
        for stream, numbers in self.unseen.items():
            lines.append(f"server rolls this log was never shown (not checked): {len(numbers)} "
                         f"of the stream {stream} ({_ranges(stream, numbers)})")
        if "screen" not in self.seen:
            lines.append("server rolls behind the GM's screen: none in this log (a player or "
                         "spectator is never shown them)")
        if self.unanchored:
            lines.append(f"server rolls before the snapshot that gave the commitment (not "
                         f"checked): {self.unanchored}")
        lines += [f"PROBLEM: {p}" for p in self.problems]
        if self.honest:
            verdict = "every server roll is the one the committed secret gives"
        elif self.problems:
            verdict = "the dice do NOT check out"
        elif self.commitment is None and self.keyed:
            verdict = ("cannot tell: this log holds no commitment (a client that joined after "
                       "it: keep the snapshot it joined with in the log, or read the history "
                       "with its token)")
        else:
            verdict = "cannot tell yet: the secret is not revealed"
        return "\n".join([*lines, verdict])


def _ranges(stream: str, numbers: list[int]) -> str:
    """``table:0 to table:4, table:9`` of ``[0, 1, 2, 3, 4, 9]``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{stream}:{a}" if a == b else f"{stream}:{a} to {stream}:{b}"
                     for a, b in runs)


def _where(message: Message, index: int) -> str:
    at = message.get("cursor", message.get("seq"))
    return f"event {index + 1}" + (f" (at {at})" if at is not None else "")


def _messages(messages: Iterable[Message]) -> Iterator[Message]:
    """The messages of a log in order, a ``batch``'s and a ``history`` page's unwrapped."""
    for m in messages:
        kind = m.get("type")
        if kind == "batch":
            yield from _messages(m.get("messages", []))
        elif kind == "history":
            yield from _messages(m.get("events", []))
        else:
            yield m


def check_dice(messages: Iterable[Message]) -> DiceReport:
    """Check the server rolls among ``messages`` (in the order received: ``event`` messages,
    or bare events; a ``snapshot`` gives the dice as they stood, ``history`` pages their
    events; the others are passed over)."""
    report = DiceReport()
    chain: str | None = None
    secret: bytes | None = None
    rolls: list[tuple[str, dict[str, Any], str]] = []
    #: the segments closed by renewals: the secret shown again, and the rolls drawn under it
    closed: list[tuple[bytes, list[tuple[str, dict[str, Any], str]]]] = []
    early: list[tuple[str, str]] = []  # before any commitment: (where, "a keyed roll"...)
    begins = False  # the log holds the encounter's first event: nothing came before it
    told: dict[Any, Any] = {}  # each position's event taken (history read after live)
    for index, message in enumerate(_messages(messages)):
        where = _where(message, index)
        if message.get("type") == "snapshot":
            dice = (message.get("state") or {}).get("dice")
            if not isinstance(dice, dict):
                continue  # not verifiable (a dice_seed)
            if report.commitment is None:
                report.commitment, report.source = dice["commitment"], f"a snapshot ({where})"
                report.entropy = dice.get("entropy", 0)
                report.unanchored += sum(1 for _, what in early if what == "a keyed roll")
                early = []
            elif dice["commitment"] != report.commitment:
                report.problems.append(f"{where}: a snapshot with another commitment")
                continue
            chain = dice["chain"]  # as it stood at the snapshot's position
            if dice.get("secret"):
                secret = bytes.fromhex(dice["secret"])
            continue
        if message.get("type", "event") != "event":
            continue
        event = message.get("event", message)
        position = message.get("cursor", message.get("seq"))
        if position is not None:
            if told.get(position) == event:
                continue  # the same event again (a history page of events received live)
            told[position] = event
        kind = event.get("kind")
        if kind == "encounter_created":
            begins = True
        elif kind == "dice_committed":
            if report.source == "the dice_committed event":
                report.problems.append(f"{where}: a second commitment")
            elif report.commitment is not None and event["commitment"] != report.commitment:
                report.problems.append(f"{where}: another commitment than the snapshot's")
            # the log from here on is the history from the start: the chain starts again
            report.commitment = chain = event["commitment"]
            report.source = "the dice_committed event"
            report.problems += [f"{w}: {what} before any commitment" for w, what in early]
            early = []
        elif kind == "dice_entropy_added":
            report.entropy += 1
            if chain is None:
                early.append((where, "entropy"))
                continue
            chain = next_entropy(chain, event["entropy"])
            if event.get("chain") != chain:
                report.problems.append(f"{where}: the entropy chain is not the one its "
                                       f"entropy gives")
        elif kind == "dice_rolled":
            roll = event["roll"]
            if roll.get("manual"):
                report.manual += 1
            elif roll.get("place") is None:
                report.unverifiable += 1
            else:
                stream, _, number = str(roll["place"]).rpartition(":")
                numbers = report.seen.setdefault(stream, set())
                if number.isdigit():
                    if int(number) in numbers:
                        report.problems.append(f"{where}: the place {roll['place']} is used "
                                               "twice")
                    numbers.add(int(number))
                if chain is None:
                    early.append((where, "a keyed roll"))
                else:
                    rolls.append((chain, roll, where))
        elif kind == "dice_renewed":
            report.renewals += 1
            shown = bytes.fromhex(event["revealed"])
            if report.commitment is None or commitment_of(shown) != report.commitment:
                report.problems.append(f"{where}: the secret the renewal shows is not the one "
                                       "committed to")
            closed.append((shown, rolls))
            rolls = []
            report.commitment = chain = event["commitment"]
        elif kind == "dice_revealed":
            secret = bytes.fromhex(event["secret"])
    if report.commitment is None and begins:
        # the whole log, from the encounter's creation: its keyed rolls had no commitment
        report.problems += [f"{w}: {what} and no commitment" for w, what in early]
    if report.commitment is None:
        return report  # nothing to check against: cannot tell
    if secret is None:
        return report
    report.revealed = True
    if commitment_of(secret) != report.commitment:
        report.problems.append("the revealed secret is not the one committed to")
        return report
    for shown, segment in closed:
        _check_rolls(report, shown, segment)
    _check_rolls(report, secret, rolls)
    return report


def _check_rolls(report: DiceReport, secret: bytes,
                 rolls: list[tuple[str, dict[str, Any], str]]) -> None:
    """Draw each of ``rolls`` (the chain it was drawn at, the roll, where it is) again from
    ``secret``, and compare."""
    for chain_then, roll, where in rolls:
        try:
            again = roll_keyed(roll["expr"], roll_key(secret, chain_then), roll["place"])
        except DiceError as exc:
            report.problems.append(f"{where}: {roll['expr']!r} cannot be rolled: {exc}")
            continue
        faces = [[d["sides"], d["face"], d.get("kept", True)] for d in roll["dice"]]
        if faces != [[d.sides, d.face, d.kept] for d in again.dice] \
                or roll["total"] != again.total:
            report.problems.append(
                f"{where}: {roll['expr']} at {roll['place']} shows {roll['text']!r}, the "
                f"secret gives {again.text!r}")
        else:
            report.verified += 1


async def read_history(url: str, token: str) -> list[Message]:
    """Every event the credential may see, read back by ``get_history`` pages."""
    from clients.client import Client  # the websocket client, only for this way of reading

    client = await Client.open(url)
    try:
        await client.hello(token, features=["batch", "cursor"])
        got: list[Message] = []
        before: Any = None
        while True:
            mark = len(client.messages)
            fields: dict[str, Any] = {"limit": 500}
            if before is not None:
                fields["before"] = before
            await client.command("get_history", **fields)
            (page,) = [m for m in client.messages[mark:] if m["type"] == "history"]
            got[:0] = page["events"]
            before = page["before"]
            if before is None:
                return got
    finally:
        await client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients.dice_check",
                                     description="Check an encounter's server dice against "
                                                 "the secret revealed at its end.")
    parser.add_argument("url", nargs="?", help="the server's websocket URL (ws://.../ws)")
    parser.add_argument("token", nargs="?", help="a credential of the encounter")
    parser.add_argument("--log", help="a JSON file: the messages a client received, in order "
                        "(the snapshot it joined with, then the event messages)")
    args = parser.parse_args(argv)
    if args.log:
        with open(args.log, "rb") as f:
            messages = orjson.loads(f.read())
    elif args.url and args.token:
        messages = asyncio.run(read_history(args.url, args.token))
    else:
        parser.error("give the server's URL and a token, or --log")
    report = check_dice(messages)
    print(report.text())
    return 0 if report.honest else 1 if report.problems else 2


if __name__ == "__main__":
    sys.exit(main())
