"""Physical dice: answering roll requests, by hand or by the server ("Physical dice" in
docs/protocol.md), and what follows a roll."""

from __future__ import annotations

from typing import Any, Literal

from encounter.actors import Actor
from encounter.decision import ROLLOFF, Decision
from encounter.rejected import Rejected
from encounter.turns import end_interrupt_when_resolved
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from rules.dice import DiceError, Roll, roll_faces
from rules.verifiable_dice import commitment, next_entropy

#: The most pieces of entropy an encounter's dice take in (``add_dice_entropy``, R101).
MAX_ENTROPY_PIECES = 64


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
    context = pending.context
    if cmd.take_10:
        if cmd.faces:
            raise Rejected(ErrorCode.INVALID_PAYLOAD, "faces: none when taking 10")
        # the ruleset says which stage may take 10 (``take_10`` in its context) and why
        # another may not (``no_take_10``)
        if context is None or "take_10" not in context or "no_take_10" in context \
                or pending.dice != [20]:
            why = (context or {}).get("no_take_10") or (
                f"the {pending.purpose} roll is not a check that can take 10 (ruling R81)")
            raise Rejected(ErrorCode.ILLEGAL_ACTION, why)
        faces, context = [10], {**context, "take_10": True}
    elif not cmd.faces:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "faces: the faces of the dice thrown, in the "
                       "order of the request's dice", dice=pending.dice)
    else:
        faces = cmd.faces
    try:
        roll = roll_faces(pending.expr, faces)
    except DiceError as exc:
        raise Rejected(ErrorCode.BAD_DICE, str(exc), dice=pending.dice) from None
    assert d.actor is not None
    by: Literal["gm", "player"] = "gm" if pending.roller == "gm" or d.actor.is_gm else "player"
    d.emit(ev.DiceRolled(purpose=pending.purpose, roll=roll, by=by, combatant=pending.combatant,
                         request=pending.request, gm_request=pending.roller == "gm",
                         hidden=d.hidden(pending.combatant)), d.dice_vis(pending.combatant))
    _after_roll(d, pending.purpose, pending.combatant, roll, context)


def server_roll(d: Decision, cmd: msg.ServerRoll) -> None:
    pending = _pending(d, cmd.request)
    roll = d.server_roll(pending.expr, pending.purpose, pending.combatant, pending.request)
    _after_roll(d, pending.purpose, pending.combatant, roll, pending.context)


def add_dice_entropy(d: Decision, cmd: msg.AddDiceEntropy) -> None:
    """Entropy mixed into the server's dice (R101): from a player or the GM, while the
    encounter runs and its dice are verifiable, a bounded number of times."""
    assert d.actor is not None
    if d.actor.role not in ("gm", "player") and not d.actor.is_gm:
        raise Rejected(ErrorCode.FORBIDDEN, "only a player or the GM may add dice entropy")
    if d.s.dice_commitment is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "this encounter's dice are not verifiable "
                       "(they are fixed by its dice_seed, or it began before verifiable dice)")
    if d.s.dice_entropy >= MAX_ENTROPY_PIECES:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"the dice have taken in entropy "
                       f"{MAX_ENTROPY_PIECES} times, the most an encounter takes")
    d.emit(ev.DiceEntropyAdded(entropy=cmd.entropy, by="gm" if d.actor.is_gm else "player",
                               chain=next_entropy(d.s.dice_chain, cmd.entropy)))


#: The credential the server's own renewal of the dice is decided as (R117): its own token id
#: (its command ids never meet a client's).
DICE_RENEWAL = Actor(role="gm", token_id="dice-renewal")


class RenewDice(msg.Command, tag="renew_dice", kw_only=True):
    """The server's own command, never a client's (it is not in the protocol's messages): the
    encounter's dice secret ``revealed`` (hex) was shown while the encounter still runs, so its
    dice are drawn from a new secret, derived with ``nonce`` (R117)."""

    revealed: str
    nonce: str


def renewal(revealed: str, nonce: str) -> RenewDice:
    """The renewal of the dice whose secret ``revealed`` was shown: its id names the secret
    renewed, so that of two processes renewing it one goes through."""
    return RenewDice(id=f"dice-renewal-{commitment(bytes.fromhex(revealed))[:32]}",
                     revealed=revealed, nonce=nonce)


def renew_dice(d: Decision, cmd: RenewDice) -> None:
    """R117: the dice of a running encounter whose secret was shown are drawn from a new one,
    committed to here; the secret shown is shown again, for the rolls it drew."""
    s = d.s
    if s.dice_commitment is None or s.dice_secret is not None or d.ctx.dice_secret is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "this encounter has no verifiable dice to renew")
    try:
        shown = bytes.fromhex(cmd.revealed)
    except ValueError:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "revealed: a secret in hex") from None
    if commitment(shown) != s.dice_commitment:
        raise Rejected(ErrorCode.STALE, "the dice are no longer drawn from that secret")
    d.emit(ev.DiceRenewed(revealed=cmd.revealed, nonce=cmd.nonce,
                          commitment=commitment(d.ctx.dice_secret(s.id, cmd.nonce))))


def _after_roll(d: Decision, purpose: str, cid: str | None, roll: Roll,
                context: dict[str, Any] | None) -> None:
    if purpose == ROLLOFF and context is not None and cid is not None:  # R80
        recorded = {k: list(v) for k, v in context["rolloffs"].items()}
        recorded.setdefault(cid, []).append(roll.total)
        maybe_settle_initiative(d, recorded)
    elif context is not None:  # a stage of an action: the ruleset's (Declaration.after_roll)
        d.ruleset.after_roll(d, purpose, context, roll)
        end_interrupt_when_resolved(d)  # a readied action's last dice end its interrupt
    elif purpose == "initiative":
        maybe_settle_initiative(d)
    elif purpose == "join" and cid is not None:
        d.join_scene(cid, roll)
        end_newcomers_wait(d)


def end_newcomers_wait(d: Decision) -> None:
    """R32, R80: a round that waited for its newcomers' initiative dice
    (``Decision.round_waits_for_newcomers``) starts its first turn once the last of them is in,
    or once the last newcomer still waiting is removed."""
    if d.ruleset.joins_next_round is not None and d.s.current is None \
            and "acting" in d.s.chart and not d.round_waits_for_newcomers() and d.round_goes_on():
        d.send("next_turn", "the round cannot go on now")


def maybe_settle_initiative(d: Decision, rolloffs: dict[str, list[int]] | None = None) -> None:
    """Once every initiative roll is in, the order is settled — after the physical roll-off
    dice of a tie, asked for one at a time (R5, R80: a tied contender whose dice are physical
    throws its own roll-off die; ``rolloffs``: those thrown so far)."""
    if d.s.chart == ["rolling_initiative"] and not any(
        p.purpose in ("initiative", ROLLOFF) for p in d.s.pending_rolls.values()
    ):
        recorded = rolloffs or {}
        need = d.rolloff_needed(recorded)
        if need is not None:
            d.request_roll("1d20", ROLLOFF, need,
                           context={"action": ROLLOFF, "rolloffs": recorded})
            return
        d.rolloffs = recorded
        d.send("initiative_complete", "initiative is not complete")


