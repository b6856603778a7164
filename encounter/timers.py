"""Turn timers (ruling R102): the ``turn_seconds`` option gives each turn of a combatant the
table sees a time, kept in the log (``turn_timer_started`` names its deadline), so that every
server process knows it, and knows it again after a restart; the warning and the expiry are
commands (:class:`TimerDue`) that whichever process serves the encounter sends itself when
the time comes, each with an id made from the timer's number and stage, so that a second
firing, on another process or after a crash, is a duplicate or is refused, and changes
nothing. The GM pauses and resumes a timer."""

from __future__ import annotations

from typing import Literal

from encounter.actors import Actor
from encounter.decision import Decision
from encounter.registry import catalog
from encounter.rejected import Rejected
from encounter.state import SCREEN, EncounterState, TurnTimer
from encounter.turns import act_command, refusal
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode

#: The credential the server's own timer commands are decided as: the GM's rights (it ends
#: or delays any turn), its own token id (its command ids never meet a client's).
TIMER = Actor(role="gm", token_id="turn-timer")

Stage = Literal["warn", "expire"]


class TimerDue(msg.Command, tag="timer_due", kw_only=True):
    """The server's own command, never a client's (it is not in the protocol's messages): the
    ``number``-th timer has reached its warning or its end."""

    number: int
    stage: Stage


def command_for(timer: TurnTimer, stage: Stage) -> TimerDue:
    """The command a process sends when ``timer`` reaches ``stage``: the same on every
    process, so that the log's command ids let one of them through."""
    return TimerDue(id=f"timer-{timer.number}-{stage}", number=timer.number, stage=stage)


def next_due(state: EncounterState) -> tuple[int, Stage] | None:
    """When the running timer next needs a command (server milliseconds), and which."""
    timer = state.timer
    if timer is None or timer.deadline is None or state.ended:
        return None
    if timer.warn_at is not None:
        return timer.warn_at, "warn"
    return timer.deadline, "expire"


def _timed(state: EncounterState, cid: str | None) -> bool:
    """A turn the timer counts: a combatant's the table sees (R102: not the screen's, nor one
    taken inside it, nor a hidden combatant's: their pace is the GM's, as at a real table)."""
    if cid is None or cid == SCREEN or state.screen_turn:  # (a turn inside the screen's, R99)
        return False
    c = state.combatants.get(cid)
    return c is not None and not c.hidden


def start_for_new_turn(d: Decision, first: int) -> None:
    """After a command: a turn that started in it (among its events from ``first`` on) and is
    still running gets its timer, when the options ask for one."""
    s = d.s
    seconds, current = s.options.turn_seconds, s.current
    if seconds is None or s.ended or s.timer is not None or current is None \
            or not _timed(s, current):
        return
    if not any(isinstance(event, ev.TurnStarted) and event.combatant == current
               for event, _vis in d.events[first:]):
        return
    now = d.ctx.now_ms
    warning = s.options.turn_warning_seconds
    # A turn the table is told of after a hold counts from the time the table's record gives
    # its start, the time of the command that began the hold (R96.6, R102): its deadline
    # says nothing of the hold. A hold that took more than half the turn's time leaves it
    # half its time all the same (then the deadline shows the hold).
    start = now if d.held_since is None else min(now, d.held_since)
    deadline = max(start + seconds * 1000, now + seconds * 500)
    warn_at = deadline - warning * 1000 if 0 < warning < seconds else None
    d.emit(ev.TurnTimerStarted(number=s.timers + 1, combatant=current, seconds=seconds,
                               deadline=deadline, warn_at=warn_at))


def _running(d: Decision, number: int | None = None) -> TurnTimer:
    timer = d.s.timer
    if timer is None or (number is not None and timer.number != number):
        raise Rejected(ErrorCode.STALE, "that turn timer is no longer running")
    return timer


def timer_due(d: Decision, cmd: TimerDue) -> None:
    """The warning, or the end: what the options say the end does (R102). An end that the
    turn cannot take now (an action waiting for its dice, an interrupt) is told, not done."""
    timer = _running(d, cmd.number)
    due = timer.warn_at if cmd.stage == "warn" else timer.deadline
    if due is None or d.ctx.now_ms < due:
        raise Rejected(ErrorCode.STALE, "that turn timer is not due")
    if cmd.stage == "warn":
        d.emit(ev.TurnTimerWarned(number=timer.number, combatant=timer.combatant,
                                  deadline=timer.deadline or due))
        return
    then = d.s.options.turn_expiry
    if then != "notify":
        action = catalog(d.s.ruleset).get(then)
        refused = None if action is None else refusal(d.s, timer.combatant, action)
        why = (f"{then} is not an action of {d.ruleset.title}" if action is None
               else None if refused is None else refused.message)
        if why is None:
            d.emit(ev.TurnTimerExpired(number=timer.number, combatant=timer.combatant,
                                       then=then))
            act_command(d, msg.Act(id=cmd.id, combatant=timer.combatant, action=then))
            return
        d.emit(ev.TurnTimerExpired(number=timer.number, combatant=timer.combatant,
                                   then="notify", why=why))
        return
    d.emit(ev.TurnTimerExpired(number=timer.number, combatant=timer.combatant, then=then))


def pause(d: Decision, cmd: msg.PauseTurnTimer) -> None:
    timer = d.s.timer
    if timer is None or timer.deadline is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "no turn timer is running")
    d.emit(ev.TurnTimerPaused(number=timer.number, combatant=timer.combatant,
                              remaining=max(0, timer.deadline - d.ctx.now_ms)))


def resume(d: Decision, cmd: msg.ResumeTurnTimer) -> None:
    timer = d.s.timer
    if timer is None or timer.remaining is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "no turn timer is paused")
    deadline = d.ctx.now_ms + timer.remaining
    warning = d.s.options.turn_warning_seconds * 1000
    warned = timer.warn_at is None
    d.emit(ev.TurnTimerResumed(
        number=timer.number, combatant=timer.combatant, deadline=deadline,
        warn_at=None if warned or timer.remaining <= warning else deadline - warning))
