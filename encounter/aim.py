"""``get_aim`` (ruling R107): what the battle map says of each target of an action before it is
taken, by the checks the action itself makes (its declaration's ``aim``), so that a client
marks the targets in reach and line of effect without a second implementation of the rules.

Only for an action among the sender's legal actions for the combatant now, and only of the
targets its entry lists (a hidden combatant the sender does not see is never among them).
Nothing is recorded and nothing is rolled. Pure; no I/O.
"""

from __future__ import annotations

from typing import Any

from encounter.actors import Actor
from encounter.decision import Context, Decision
from encounter.declare import convert_args
from encounter.legal import legal_actions
from encounter.registry import catalog
from encounter.rejected import Rejected
from encounter.state import EncounterState, copy_state
from protocol import messages as msg
from protocol.errors import ErrorCode


def aim(state: EncounterState, actor: Actor, cmd: msg.GetAim, ctx: Context) -> dict[str, Any]:
    """The answer to ``cmd``: ``combatant``, ``action`` and one entry per listed target,
    ``ok`` with the map's facts, or not ``ok`` with ``why`` (the sentence ``act`` would
    answer)."""
    if state.version == 0:
        raise Rejected(ErrorCode.NOT_FOUND, "no such encounter")
    entry = next((e for e in legal_actions(state, actor)
                  if e.action == cmd.action and e.combatant == cmd.combatant), None)
    if entry is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{cmd.action} is not among your legal "
                       f"actions for {cmd.combatant!r} now: get_aim answers for an action "
                       "that may be taken", action=cmd.action)
    action = catalog(state.ruleset).get(cmd.action)
    if action is None or action.aim is None or action.targets is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"get_aim: {cmd.action} is not aimed by the "
                       "battle map (ruling R107)", action=cmd.action)
    field = action.targets.fields[0]
    if field in cmd.args:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"get_aim: args.{field} is left out: every "
                       "target the entry lists is answered for", field=f"args.{field}")
    d = Decision(copy_state(state), actor, ctx)
    c = state.combatants[cmd.combatant]
    answers: list[dict[str, Any]] = []
    try:
        for target in entry.targets or ():
            args = convert_args(action, {**cmd.args, field: target})
            try:
                answers.append({"target": target, "ok": True, **action.aim(d, c, args)})
            except Rejected as r:
                if r.code is not ErrorCode.ILLEGAL_ACTION:
                    raise  # the arguments, not the target: the same for every target
                answers.append({"target": target, "ok": False, "why": r.as_read().message})
    finally:
        d.release()
    return {"combatant": cmd.combatant, "action": cmd.action, "targets": answers}
