"""What the actions of a turn do, beyond spending the budget ("MLP Dramatic Systems", TYPES OF
ACTIONS). A resolver checks the action when it is declared (refusing it before anything is
recorded) and returns what to do once the ``action_taken`` event is in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from encounter import action_time, battle, combat, social
from encounter import vitals as vt
from encounter.rejected import Rejected
from encounter.state import EncounterState
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile
from rules import condition_track as ct
from rules import grab as grab_rules
from rules.actions import ActionSpec, Budget
from rules.dice import Roll
from rules.modifiers import RuleRefusal

if TYPE_CHECKING:
    from encounter.engine import Decision

Resolver = Callable[["Decision", CombatantProfile, msg.Act], Callable[[], None] | None]


def fall_prone(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    """SWIFT ACTIONS: Fall Prone."""
    if d.s.vitals[c.id].prone:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is prone already")
    return lambda: vt.record(d, c.id, "fall_prone", ["falls prone (SWIFT ACTIONS: Fall Prone)"],
                             prone=True)


def stand_up(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    """MOVE ACTIONS: Stand Up: "Standing up from a prone position requires a move action"."""
    if not d.s.vitals[c.id].prone:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is not prone")
    return lambda: vt.record(d, c.id, "stand_up", ["stands up (MOVE ACTIONS: Stand Up)"],
                             prone=False)


def _second_lunch(d: Decision, c: CombatantProfile, food_bonus: int) -> Callable[[], None]:
    """Second Lunch: at one-half the maximum fatigue points or less, once per day, never twice
    in one encounter; a quarter of the maximum back (plus the food's bonus)."""
    v = d.s.vitals[c.id]
    sheet = vt.sheet_of(c, d.s.ruleset)
    try:
        lunch = ct.second_lunch(sheet, v.fatigue, uses_today=int(v.second_lunch),
                                used_this_encounter=v.second_lunch, food_bonus=food_bonus)
    except RuleRefusal as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    note = (f"catches a Second Lunch: +{lunch.regained}"
            + (f" and +{lunch.food_bonus} from food" if lunch.food_bonus else "")
            + " fatigue points"
            + ("" if c.kind == "npc" else f" ({lunch.fatigue_before} -> {lunch.fatigue_after})"))
    return lambda: vt.record(d, c.id, "second_lunch", [note], fatigue=lunch.fatigue_after)


def second_lunch(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    return _second_lunch(d, c, 0)


def second_lunch_with_food(d: Decision, c: CombatantProfile,
                           cmd: msg.Act) -> Callable[[], None]:
    """FULL-ROUND ACTIONS: Catch a Second Lunch with Food: ``args.food_bonus`` is the extra
    fatigue the food gives (Goods & Services)."""
    bonus = cmd.args.get("food_bonus", 0)
    if isinstance(bonus, bool) or not isinstance(bonus, int) or not 0 <= bonus <= 1000:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.food_bonus is a whole number, 0-1000")
    return _second_lunch(d, c, bonus)


def break_grab(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    """Standard action: breaking the grab clears one grabber per character level, at least one;
    ``args.grabbers`` may say which first (STANDARD ACTIONS: Grab; R55)."""
    grabbers = d.s.grabs.get(c.id, [])
    chosen = cmd.args.get("grabbers")
    if chosen is not None and (not isinstance(chosen, list)
                               or not all(isinstance(g, str) for g in chosen)):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.grabbers lists combatant ids")
    try:
        broken = grab_rules.break_grab(grabbers, vt.sheet_of(c, d.s.ruleset).heroic_level,
                                       chosen)
    except (RuleRefusal, ValueError) as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None

    def effect() -> None:
        for grabber in broken.cleared:
            d.emit(ev.GrabChanged(grabber=grabber, target=c.id, held=False, hidden=c.hidden),
                   d.combatant_vis(c.id))
    return effect


def recover(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None] | None:
    """Recover (R18, with ``recover_in_scene``): three swift actions in the same or
    consecutive rounds regain 1 fatigue point; refused with a persistent condition (R17)."""
    v = d.s.vitals[c.id]
    try:
        after = ct.recover(vt.sheet_of(c, d.s.ruleset), v.fatigue,
                           physical=vt.to_rules(v.physical), mental=vt.to_rules(v.mental),
                           recover_in_scene=d.s.options.recover_in_scene)
    except RuleRefusal as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    held = d.s.swift_progress.get(c.id)
    carried = held is not None and held.action == "recover" and held.round >= d.s.round - 1
    if (held.spent + 1 if carried and held is not None else 1) < 3:
        return None  # the fatigue point comes with the third swift action
    return lambda: vt.record(d, c.id, "recover", ["Recover: three swift actions, +1 fatigue "
                                                  "point (R18)"], fatigue=min(after, v.fatigue_max))


def _may_argue(state: EncounterState, cid: str) -> bool:
    """Dispute and Conversation need an unspent statement of one's own, no Blocking, and a
    debate still going (R26, R27, R49)."""
    return not state.debate_over and cid not in state.blocking and any(
        a.owner == cid and a.size for a in state.arguments.values())


def _persistent(state: EncounterState, cid: str) -> bool:
    v = state.vitals[cid]
    return bool(v.physical.persistent or (v.mental is not None and v.mental.persistent))


def _lunch_possible(state: EncounterState, cid: str) -> bool:
    v = state.vitals[cid]
    return (not v.second_lunch and v.fatigue * 2 <= v.fatigue_max
            and v.mental is not None)  # creatures only: objects have no mental track


#: Actions that only some states allow, with the test (``legal_actions`` offers them only then).
DRAMATIC_AVAILABLE: dict[str, Callable[[EncounterState, str], bool]] = {
    "stand_up": lambda s, cid: s.vitals[cid].prone,
    "fall_prone": lambda s, cid: not s.vitals[cid].prone,
    "second_lunch": _lunch_possible,
    "second_lunch_with_food": _lunch_possible,
    "break_grab": lambda s, cid: bool(s.grabs.get(cid)),
    "recover": lambda s, cid: not _persistent(s, cid),
    "dispute": lambda s, cid: _may_argue(s, cid),
    "conversation": lambda s, cid: _may_argue(s, cid),
    "lie": lambda s, cid: cid not in s.blocking,
    "block": lambda s, cid: cid not in s.blocking,
    "stop_blocking": lambda s, cid: cid in s.blocking and s.current == cid,
    "low_access": lambda s, cid: s.social_event is not None and not s.debate_over,
    "move": lambda s, cid: not s.grabs.get(cid),
    "run": lambda s, cid: not s.grabs.get(cid),
}


DRAMATIC_RESOLVERS: dict[str, Resolver] = {
    "attack": combat.attack,
    "grab": combat.grab,
    "aid_another": combat.aid_another,
    "distraction": combat.distraction,
    "break_grab": break_grab,
    "ram": combat.ram,
    "break_object": combat.break_object,
    "harvest": combat.harvest,
    "dispute": social.dispute,
    "conversation": social.converse,
    "lie": social.lie,
    "block": social.block,
    "stop_blocking": social.stop_blocking,
    "low_access": social.low_access,
    "recover": recover,
    "move": battle.move,
    "run": battle.run,
    "fall_prone": fall_prone,
    "stand_up": stand_up,
    "second_lunch": second_lunch,
    "second_lunch_with_food": second_lunch_with_food,
}


#: Each ruleset's resolvers and availability tests, by ruleset name: the one place where the
#: encounter engine learns what a ruleset's actions do.
RESOLVERS: dict[str, dict[str, Resolver]] = {
    "dramatic": DRAMATIC_RESOLVERS,
    "action_time": action_time.RESOLVERS,
}
AVAILABLE: dict[str, dict[str, Callable[[EncounterState, str], bool]]] = {
    "dramatic": DRAMATIC_AVAILABLE,
    "action_time": action_time.AVAILABLE,
}


@dataclass(frozen=True)
class RulesetHooks:
    """Where a ruleset takes part in the engine's turn flow beyond its actions (the defaults
    are "MLP Dramatic Systems"): effects ending when a turn starts or a round ends, turns that
    pass by themselves, the stages of its dice, the targets its legal actions list, whether
    a readied action moves its taker in the order (R8.4; Action Time's Prepare does not, R36)
    and what follows the end of an interrupt."""

    turn_started: Callable[[Decision, str], None] | None = None
    round_ending: Callable[[Decision], None] | None = None
    turn_passes: Callable[[EncounterState, str], bool] | None = None
    after_roll: Callable[[Decision, str, dict[str, Any], Roll], None] = combat.after_roll
    targets: dict[str, Callable[[EncounterState, str], list[str]]] = field(
        default_factory=dict)
    readied_moves_order: bool = True
    #: What follows the end of an interrupt (Action Time: the next pursuit waiting, R37).
    interrupt_ended: Callable[[Decision], None] | None = None
    #: Why the turn's budget refuses an action, in the ruleset's words (default: the Dramatic
    #: budget's own reason).
    budget_refusal: Callable[[Budget, ActionSpec], str] | None = None


HOOKS: dict[str, RulesetHooks] = {
    "action_time": RulesetHooks(
        turn_started=action_time.turn_started, round_ending=action_time.round_ending,
        turn_passes=action_time.turn_passes, after_roll=action_time.after_roll,
        targets=action_time.TARGETS, readied_moves_order=False,
        interrupt_ended=action_time.next_pursuit, budget_refusal=action_time.budget_refusal),
}
_DEFAULT_HOOKS = RulesetHooks()


def hooks(ruleset: str) -> RulesetHooks:
    return HOOKS.get(ruleset, _DEFAULT_HOOKS)


def resolver(state: EncounterState, action: str) -> Resolver | None:
    return RESOLVERS.get(state.ruleset, {}).get(action)


def available(state: EncounterState, cid: str, action: str) -> bool:
    """Whether the state allows ``action`` for ``cid`` (beyond the turn's budget)."""
    test = AVAILABLE.get(state.ruleset, {}).get(action)
    return test is None or cid not in state.vitals or test(state, cid)
