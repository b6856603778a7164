"""Physical dice: answering roll requests, by hand or by the server ("Physical dice" in
docs/protocol.md), and what follows a roll."""

from __future__ import annotations

from typing import Any, Literal

from encounter.decision import Decision
from encounter.rejected import Rejected
from encounter.turns import end_interrupt_when_resolved
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from rules.dice import DiceError, Roll, roll_faces


def _pending(d: Decision, request: str) -> Any:
    assert d.actor is not None
    pending = d.s.pending_rolls.get(request)
    if pending is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"no pending roll {request!r}")
    if pending.roller == "gm":
        allowed = d.actor.is_gm or "roll" in d.actor.scopes
    else:
        allowed = d.actor.controls(d.s, pending.roller)
    if not allowed:
        raise Rejected(ErrorCode.FORBIDDEN, "that roll is not yours to make")
    return pending


def submit_roll(d: Decision, cmd: msg.SubmitRoll) -> None:
    pending = _pending(d, cmd.request)
    try:
        roll = roll_faces(pending.expr, cmd.faces)
    except DiceError as exc:
        raise Rejected(ErrorCode.BAD_DICE, str(exc), dice=pending.dice) from None
    assert d.actor is not None
    by: Literal["gm", "player"] = "gm" if pending.roller == "gm" or d.actor.is_gm else "player"
    d.emit(ev.DiceRolled(purpose=pending.purpose, roll=roll, by=by, combatant=pending.combatant,
                         request=pending.request, gm_request=pending.roller == "gm",
                         hidden=d.hidden(pending.combatant)), d.dice_vis(pending.combatant))
    _after_roll(d, pending.purpose, pending.combatant, roll, pending.context)


def server_roll(d: Decision, cmd: msg.ServerRoll) -> None:
    pending = _pending(d, cmd.request)
    roll = d.server_roll(pending.expr, pending.purpose, pending.combatant, pending.request)
    _after_roll(d, pending.purpose, pending.combatant, roll, pending.context)


def _after_roll(d: Decision, purpose: str, cid: str | None, roll: Roll,
                context: dict[str, Any] | None) -> None:
    if context is not None:  # a stage of an action: the ruleset's (encounter.combat for Dramatic)
        d.ruleset.after_roll(d, purpose, context, roll)
        end_interrupt_when_resolved(d)  # a readied action's last dice end its interrupt
    elif purpose == "initiative":
        maybe_settle_initiative(d)
    elif purpose == "join" and cid is not None:
        d.join_scene(cid, roll)


def maybe_settle_initiative(d: Decision) -> None:
    if d.s.chart == ["rolling_initiative"] and not any(
        p.purpose == "initiative" for p in d.s.pending_rolls.values()
    ):
        d.send("initiative_complete", "initiative is not complete")


