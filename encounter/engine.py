"""The decider: a command and the current state in, events out (or a refusal).

The statechart (``statemachines.encounter_chart``) decides *when* a command is allowed; the
rules (``rules/``) decide *what* happens; this module records it as events. The server decides
*who may* send a command before calling here, except where the answer depends on the state
(whether an actor controls a combatant), which is checked here.

``decide`` works on a copy of the state and applies each event as it is emitted, so guards and
later steps of the same command see its earlier effects, and a refused command changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from encounter import adjust, gm, rolls, timers, turns, undo
from encounter.actors import Actor
from encounter.aim import aim
from encounter.decision import GM_COMMANDS, Context, Decision, Outcome
from encounter.gm import create, parse_statblocks_yaml, profile_from
from encounter.legal import legal_actions
from encounter.registry import declaration
from encounter.rejected import Rejected
from encounter.screen import at_table
from encounter.state import SCREEN, EncounterState, copy_state, turn_id
from protocol import messages as msg
from protocol.errors import ErrorCode

log = logging.getLogger("stablemaster.engine")


# --- deciding a command ------------------------------------------------------------------------


def decide(state: EncounterState, actor: Actor, cmd: msg.Command, ctx: Context) -> Outcome:
    """Decide ``cmd`` sent by ``actor`` against ``state`` (which is not modified)."""
    if state.version == 0:
        raise Rejected(ErrorCode.NOT_FOUND, "no such encounter")
    if cmd.expect_turn is not None:
        # the turn as the sender sees it: the table's turn_id does not change for a hidden
        # combatant's turn (encounter.screen)
        current = turn_id(state, table=at_table(actor))
        if cmd.expect_turn != current:
            raise Rejected(ErrorCode.STALE, "the turn this command was meant for is over: "
                           "look at the new legal actions", turn_id=current)
    if isinstance(cmd, GM_COMMANDS) and not actor.is_gm:
        raise Rejected(ErrorCode.FORBIDDEN, f"only the GM may {cmd.__struct_config__.tag}")
    d = Decision(copy_state(state), actor, ctx)
    if d.s.ended and not isinstance(cmd, msg.RevokeToken):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter has ended")
    handler = _HANDLERS.get(type(cmd)) or d.ruleset.commands.get(type(cmd))
    if handler is None:
        if isinstance(cmd, GM_COMMANDS):  # another ruleset's
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{cmd.__struct_config__.tag} is not a "
                           f"command of {d.ruleset.title}")
        raise Rejected(ErrorCode.UNKNOWN_TYPE, f"{cmd.__struct_config__.tag} is not a command")
    try:
        handler(d, cmd)
        if not isinstance(cmd, msg.Undo):  # (an undo leaves the encounter as it was then)
            d.pass_turns()
            d.begin_regular_rounds_now()
            timers.start_for_new_turn(d, 0)
        problem = inconsistency(d.s)
        if problem is not None:
            # a guard for combinations of commands the rules do not foresee: better refused
            # than stored, which would break the encounter for everyone
            log.warning("refused %s: it would leave %s inconsistent: %s",
                        cmd.__struct_config__.tag, state.id, problem)
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{cmd.__struct_config__.tag} cannot be "
                           f"carried out now: it would leave the encounter inconsistent "
                           f"({problem})")
        return d.outcome(state.version)
    except Rejected as r:
        if isinstance(cmd, msg.Act):  # what a player (or the GM) reads at the table
            raise r.as_read() from None
        raise
    finally:
        d.release()


def reach(state: EncounterState, actor: Actor, cmd: msg.GetReach, ctx: Context) -> dict[str, Any]:
    """``get_reach`` (ruling R106): where ``cmd.combatant`` can go now, from its ruleset's
    rules of movement; only for an action among ``actor``'s legal actions for it (the
    combatant named as the sender named it: a hidden one is not told apart from nobody)."""
    if state.version == 0:
        raise Rejected(ErrorCode.NOT_FOUND, "no such encounter")
    rules = declaration(state.ruleset)
    if rules.reach is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"get_reach: {rules.title} keeps no battle "
                       "map (ruling R103)")
    if not any(e.action == cmd.action and e.combatant == cmd.combatant
               for e in legal_actions(state, actor)):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{cmd.action} is not among your legal "
                       f"actions for {cmd.combatant!r} now: get_reach answers for a move that "
                       "may be taken", action=cmd.action)
    d = Decision(copy_state(state), actor, ctx)
    try:
        return rules.reach(d, state.combatants[cmd.combatant], cmd)
    finally:
        d.release()


def inconsistency(s: EncounterState) -> str | None:
    """What is wrong with ``s``, if anything: references to combatants it does not hold, a
    combatant twice in the order."""
    known = s.combatants
    if len(set(s.order)) != len(s.order):
        return "a combatant would be in the initiative order twice"
    for cid in s.order:
        if cid not in known:
            return f"{cid!r} would be in the initiative order without being in the encounter"
    if s.current is not None and s.current not in known and s.current != SCREEN:
        return f"the turn would be {s.current!r}'s, who is not in the encounter"
    if s.turn is not None and s.turn.combatant not in known and s.turn.combatant != SCREEN:
        return f"the turn would be {s.turn.combatant!r}'s, who is not in the encounter"
    for p in s.pending_rolls.values():
        if (p.roller != "gm" and p.roller not in known) or (
                p.combatant is not None and p.combatant not in known):
            return f"roll {p.request} would be for someone not in the encounter"
    return None



_HANDLERS: dict[type, Callable[[Decision, Any], None]] = {
    msg.AddCombatant: gm.add_combatant,
    msg.RemoveCombatant: gm.remove_combatant,
    msg.SetHidden: gm.set_hidden,
    msg.SetOptions: gm.set_options,
    msg.IssueInvite: gm.invite,
    msg.IssueSpectatorLink: gm.spectator,
    msg.IssueIntegrationToken: gm.integration,
    msg.RevokeToken: gm.revoke,
    msg.StartEncounter: gm.start,
    msg.SetAwareness: gm.set_awareness,
    msg.AddEffect: gm.add_effect,
    msg.EndEffect: gm.end_effect,
    msg.AdjustCombatant: adjust.adjust_combatant,
    msg.Act: turns.act_command,
    msg.SubmitRoll: rolls.submit_roll,
    msg.ServerRoll: rolls.server_roll,
    msg.AddDiceEntropy: rolls.add_dice_entropy,
    rolls.RenewDice: rolls.renew_dice,
    msg.PauseTurnTimer: timers.pause,
    msg.ResumeTurnTimer: timers.resume,
    timers.TimerDue: timers.timer_due,
    msg.EndEncounter: gm.end,
    msg.Undo: undo.undo,
    msg.RequestUndo: undo.request_undo,
    msg.RefuseUndo: undo.refuse_undo,
}

__all__ = ["Context", "Decision", "Outcome", "Rejected", "aim", "create", "decide",
           "parse_statblocks_yaml", "profile_from"]
