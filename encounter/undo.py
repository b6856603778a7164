"""Undo by the log (ruling R108): the GM takes back the last commands by an appended event,
``commands_undone``; the events taken back stay in the log, and the fold leaves them out
(``encounter.fold.restore``: the encounter as it was where the undo goes back to, but for the
credentials and the server's dice, which roll on, so that what is done again rolls again).

A player asks to undo its combatant's last action (``request_undo``); the GM grants it
(``undo`` with ``request``) or refuses it (``refuse_undo``).

What an undo goes back to comes from the log, which the decider does not hold: the server
(or the harness) gives it in the context (``Context.rewind``), for the seq that
:func:`undo_target` names. Pure; no I/O.
"""

from __future__ import annotations

from encounter.decision import Decision, find_combatant
from encounter.fold import restore
from encounter.rejected import Rejected
from encounter.screen import behind, table_sees
from encounter.state import EncounterState
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode


def undo_target(s: EncounterState, cmd: msg.Undo) -> int:
    """The seq ``cmd`` goes back to (a seq at which a command ended, before the last one), or
    the reason it may not."""
    if s.ended:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter has ended")
    if behind(s):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "a hidden combatant's turn is running that "
                       "the table has not been told of: take it back once it is over, back to "
                       "before it (ruling R108)")
    if cmd.request is not None:
        asked = s.undo_requests.get(cmd.request)
        if asked is None:
            raise Rejected(ErrorCode.NOT_FOUND, f"no request to undo {cmd.request!r} is "
                           "waiting", request=cmd.request)
        if cmd.back_to not in (None, asked.back_to):
            raise Rejected(ErrorCode.INVALID_PAYLOAD, "back_to: a request goes back to where "
                           "it asked; leave back_to out", field="back_to")
        if len(s.commands) < 2 or s.commands[-2] != asked.back_to:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter moved on since the "
                           "request: the action asked about is no longer the last command")
        return asked.back_to
    if len(s.commands) < 2:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "there is no command to take back")
    if cmd.back_to is None:
        return s.commands[-2]
    if cmd.back_to not in s.commands[:-1]:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "back_to: the seq at which a command ended, "
                       "before the last one (the last 200 commands at most, the encounter's "
                       "creation not among them)", field="back_to",
                       ends=s.commands[-21:-1])
    return cmd.back_to


def undo(d: Decision, cmd: msg.Undo) -> None:
    s = d.s
    target = undo_target(s, cmd)
    rewound = d.ctx.rewind(target) if d.ctx.rewind is not None else None
    if rewound is None or rewound.state.version != target:
        raise Rejected(ErrorCode.UNAVAILABLE, f"the log back to seq {target} could not be "
                       "read; retry with the same id")
    past = rewound.state
    if behind(past):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"at seq {target} a hidden combatant's turn "
                       "was running that the table had not been told of: go back to before "
                       "it (ruling R108)")
    gone = [e for e in rewound.after if not s.taken_back(e.seq)]
    seen = sum(1 for e in gone if table_sees(e))
    requested_by = s.undo_requests[cmd.request].combatant if cmd.request is not None else None
    vis: ev.Visibility = None
    if not seen:  # only those who were shown some of it hear of it
        audiences = {"gm", *(a for e in gone for a in e.vis or ())}
        if requested_by is not None:
            audiences.add(f"c:{requested_by}")
        vis = sorted(audiences)
    event = ev.CommandsUndone(back_to=target, taken_back=[e.seq for e in gone], seen=seen,
                              reason=cmd.reason, requested_by=requested_by)
    seq = s.version + 1
    d.emit(event, vis, change=lambda: restore(d.s, past, seq))
    d.result = {"back_to": target, "taken_back": len(gone)}


def request_undo(d: Decision, cmd: msg.RequestUndo) -> None:
    s = d.s
    c = find_combatant(d, cmd.combatant)
    if d.actor is None or not d.actor.controls(s, c.id):
        raise Rejected(ErrorCode.FORBIDDEN, f"you do not control {c.name}")
    why = request_refusal(s, c.id)
    if why is not None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, why)
    d.emit(ev.UndoRequested(request=d.ctx.new_id(), combatant=c.id, back_to=s.commands[-2],
                            reason=cmd.reason), ["gm", f"c:{c.id}"])


def request_refusal(s: EncounterState, cid: str) -> str | None:
    """Why ``cid``'s player may not ask to undo now, or ``None``."""
    name = s.combatants[cid].name if cid in s.combatants else cid
    if s.ended:
        return "the encounter has ended"
    if s.last_acted != cid or len(s.commands) < 2:
        return f"the last command is not {name}'s action: only that may be asked back"
    if any(r.combatant == cid for r in s.undo_requests.values()):
        return f"the GM has not answered the request to undo {name}'s action yet"
    return None


def refuse_undo(d: Decision, cmd: msg.RefuseUndo) -> None:
    asked = d.s.undo_requests.get(cmd.request)
    if asked is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"no request to undo {cmd.request!r} is waiting",
                       request=cmd.request)
    d.emit(ev.UndoRefused(request=asked.request, combatant=asked.combatant, reason=cmd.reason),
           ["gm", f"c:{asked.combatant}"])
