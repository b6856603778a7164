"""Check an encounter's server dice (ruling R101, "Verifiable server dice" in docs/protocol.md):
every server roll a credential was shown is drawn again from the secret the server revealed when
the encounter ended, and the secret is checked against the commitment published before the
first roll, with the entropy the table sent mixed in as the log says.

    python -m clients.dice_check ws://127.0.0.1:8765/ws <token>
    python -m clients.dice_check --log events.json

The first reads the encounter's whole history with the token (any credential: a player checks
the rolls it saw, the GM every roll); the second a JSON list of the ``event`` messages as a
client received them (the ``history`` pages or the live messages, in order). It prints what it
checked and exits 0 when every server roll is the one the secret gives, 1 when one is not (or
the secret does not match the commitment), 2 when it cannot tell yet (the encounter has not
ended, or its dice are not verifiable).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterable
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
    with a fixed ``dice_seed``, or fresh after the server's secret changed)."""

    commitment: str | None = None
    revealed: bool = False
    #: renewals of the dice (``dice_renewed``): each closes a segment of the rolls
    renewals: int = 0
    verified: int = 0
    manual: int = 0
    unverifiable: int = 0
    entropy: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def honest(self) -> bool:
        """Every server roll checked is the one the committed secret gives."""
        return self.revealed and not self.problems

    def text(self) -> str:
        lines = [f"commitment: {self.commitment or 'none'}",
                 *([f"dice renewed: {self.renewals} time(s), each segment checked on its own"]
                   if self.renewals else []),
                 f"secret revealed: {'yes' if self.revealed else 'not yet'}",
                 f"entropy taken in: {self.entropy}",
                 f"server rolls verified: {self.verified}",
                 f"physical dice (not verifiable): {self.manual}",
                 f"server rolls without a place (not verifiable): {self.unverifiable}"]
        lines += [f"PROBLEM: {p}" for p in self.problems]
        verdict = ("every server roll is the one the committed secret gives" if self.honest
                   else "the dice do NOT check out" if self.problems
                   else "cannot tell yet: the secret is not revealed")
        return "\n".join([*lines, verdict])


def _where(message: Message, index: int) -> str:
    at = message.get("cursor", message.get("seq"))
    return f"event {index + 1}" + (f" (at {at})" if at is not None else "")


def check_dice(messages: Iterable[Message]) -> DiceReport:
    """Check the server rolls among ``messages`` (``event`` messages, in the order received)."""
    report = DiceReport()
    chain: str | None = None
    secret: bytes | None = None
    rolls: list[tuple[str, dict[str, Any], str]] = []
    #: the segments closed by renewals: the secret shown again, and the rolls drawn under it
    closed: list[tuple[bytes, list[tuple[str, dict[str, Any], str]]]] = []
    places: set[str] = set()
    for index, message in enumerate(messages):
        event = message.get("event", message)
        kind = event.get("kind")
        where = _where(message, index)
        if kind == "dice_committed":
            if report.commitment is not None:
                report.problems.append(f"{where}: a second commitment")
            report.commitment = chain = event["commitment"]
        elif kind == "dice_entropy_added":
            report.entropy += 1
            if chain is None:
                report.problems.append(f"{where}: entropy before any commitment")
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
            elif chain is None:
                report.problems.append(f"{where}: a keyed roll before any commitment")
            else:
                if roll["place"] in places:
                    report.problems.append(f"{where}: the place {roll['place']} is used twice")
                places.add(roll["place"])
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
    if secret is None:
        return report
    report.revealed = True
    if report.commitment is None or commitment_of(secret) != report.commitment:
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
    parser.add_argument("--log", help="a JSON file: the event messages, in order")
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
