"""The actions of "MLP Dramatic Systems", declared (``encounter.declare``): the catalog of TYPES
OF ACTIONS with each action's cost, arguments (``rulesets.dramatic.args``), precondition,
targets and resolution, and the turn's own moves of ``encounter.turns`` (:data:`CATALOG`).
A resolver checks what depends on the arguments when the action is declared (refusing it
before anything is recorded) and returns what to do once the ``action_taken`` event is in.
The ruleset's declaration (``rulesets.dramatic``) names this catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from encounter.declare import Action, Aimed, Catalog, Noted, Targets, When, everyone, in_scene
from encounter.placing import placement_in
from encounter.registry import declaration
from encounter.rejected import Rejected
from encounter.state import CONSCIOUS, LIVING, EncounterState
from encounter.turns import DELAY, END_TURN, READY, TAKE_DELAYED_TURN, TRIGGER_READY
from protocol import events as ev
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile
from rules import condition_track as ct
from rules import grab as grab_rules
from rules.actions import Kind
from rules.modifiers import RuleRefusal
from rules.sheet import Size
from rules.sight import within_reach
from rules.social.access import low_access_argument
from rules.social.guards import ensure_may_argue
from rules.social.maneuvers import SECTION as SOCIAL
from rulesets.dramatic import battle, combat, social
from rulesets.dramatic import vitals as vt
from rulesets.dramatic.args import (
    AnswerArgs,
    AttackArgs,
    BreakArgs,
    BreakGrabArgs,
    ConversationArgs,
    DisputeArgs,
    FoodArgs,
    GrabArgs,
    HarvestArgs,
    HelpArgs,
    LieArgs,
    PathArgs,
    RamArgs,
)

if TYPE_CHECKING:
    from encounter.boundary import Engine


def _name(state: EncounterState, cid: str) -> str:
    return state.combatants[cid].name


# --- resolvers ------------------------------------------------------------------------------------


def fall_prone(d: Engine, c: CombatantProfile, args: Noted) -> Callable[[], None]:
    """SWIFT ACTIONS: Fall Prone."""
    return lambda: vt.record(d, c.id, "fall_prone", ["falls prone (SWIFT ACTIONS: Fall Prone)"],
                             prone=True)


def stand_up(d: Engine, c: CombatantProfile, args: Noted) -> Callable[[], None]:
    """MOVE ACTIONS: Stand Up: "Standing up from a prone position requires a move action"."""
    return lambda: vt.record(d, c.id, "stand_up", ["stands up (MOVE ACTIONS: Stand Up)"],
                             prone=False)


def _lunch(state: EncounterState, cid: str, food_bonus: int) -> ct.SecondLunch:
    """Second Lunch: at one-half the maximum fatigue points or less, once per day, never twice
    in one encounter; a quarter of the maximum back (plus the food's bonus)."""
    v = state.vitals[cid]
    sheet = vt.sheet_of(state.combatants[cid])
    return ct.second_lunch(sheet, v.fatigue,
                           uses_today=sheet.second_lunches_today + int(v.second_lunch),
                           used_this_encounter=v.second_lunch, food_bonus=food_bonus)


def _second_lunch(d: Engine, c: CombatantProfile, food_bonus: int) -> Callable[[], None]:
    lunch = _lunch(d.s, c.id, food_bonus)  # the precondition allows it
    note = (f"catches a Second Lunch: +{lunch.regained}"
            + (f" and +{lunch.food_bonus} from food" if lunch.food_bonus else "")
            + " fatigue points"
            + ("" if c.kind == "npc" else f" ({lunch.fatigue_before} -> {lunch.fatigue_after})"))
    return lambda: vt.record(d, c.id, "second_lunch", [note], fatigue=lunch.fatigue_after)


def second_lunch(d: Engine, c: CombatantProfile, args: Noted) -> Callable[[], None]:
    return _second_lunch(d, c, 0)


def second_lunch_with_food(d: Engine, c: CombatantProfile,
                           args: FoodArgs) -> Callable[[], None]:
    """FULL-ROUND ACTIONS: Catch a Second Lunch with Food: ``args.food_bonus`` is the extra
    fatigue the food gives (Goods & Services)."""
    return _second_lunch(d, c, args.food_bonus)


def break_grab(d: Engine, c: CombatantProfile, args: BreakGrabArgs) -> Callable[[], None]:
    """Standard action: breaking the grab clears one grabber per character level, at least one;
    ``args.grabbers`` may say which first (STANDARD ACTIONS: Grab; R55)."""
    grabbers = d.s.grabs.get(c.id, [])
    try:
        broken = grab_rules.break_grab(grabbers, vt.sheet_of(c).heroic_level,
                                       args.grabbers)
    except (RuleRefusal, ValueError) as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None

    def effect() -> None:
        for grabber in broken.cleared:
            d.emit(ev.GrabChanged(grabber=grabber, target=c.id, held=False, hidden=c.hidden),
                   d.combatant_vis(c.id))
    return effect


def recover(d: Engine, c: CombatantProfile, args: Noted) -> Callable[[], None] | None:
    """Recover (R18, with ``recover_in_scene``): three swift actions in the same or
    consecutive rounds regain 1 fatigue point; refused with a persistent condition (R17)."""
    v = d.s.vitals[c.id]
    try:
        after = ct.recover(vt.sheet_of(c), v.fatigue,
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


# --- preconditions --------------------------------------------------------------------------------


def _prone(state: EncounterState, cid: str) -> str | None:
    return f"{_name(state, cid)} is prone already" if state.vitals[cid].prone else None


def _quick_draw(state: EncounterState, cid: str) -> str | None:
    """Quick Draw: "If you have the Quick Draw feat, you can draw or holster a object as a
    swift action instead of a move action" (R93: the name as the text writes it)."""
    if vt.sheet_of(state.combatants[cid]).has_feat("Quick Draw"):
        return None
    return f"{_name(state, cid)} does not have the Quick Draw feat"


def _not_prone(state: EncounterState, cid: str) -> str | None:
    return None if state.vitals[cid].prone else f"{_name(state, cid)} is not prone"


def _may_lunch(state: EncounterState, cid: str) -> str | None:
    v = state.vitals[cid]
    sheet = vt.sheet_of(state.combatants[cid])
    return ct.second_lunch_refusal(sheet, v.fatigue,
                                   uses_today=sheet.second_lunches_today + int(v.second_lunch),
                                   used_this_encounter=v.second_lunch)


def _grabbed(state: EncounterState, cid: str) -> str | None:
    if not state.grabs.get(cid):
        return f"{grab_rules.SECTION}: nobody is grabbing this creature"
    return None


def _may_recover(state: EncounterState, cid: str) -> str | None:
    """SWIFT ACTIONS: Recover "cannot [be used] if you are ia an dramatic scene" (R18); never
    with a persistent condition (R17)."""
    if not state.options.recover_in_scene:
        return "Recover cannot be used in a dramatic scene (ruling R18)"
    v = state.vitals[cid]
    if v.physical.persistent or (v.mental is not None and v.mental.persistent):
        return "Recover: not while affected by a persistent condition (ruling R17)"
    return None


def _statements(state: EncounterState, cid: str) -> list[str]:
    return sorted(a for a, arg in state.arguments.items() if arg.owner == cid and arg.size)


def _may_speak(state: EncounterState, cid: str, maneuver: str) -> str | None:
    """R49: no argument of any size while Blocking (the unconscious take no actions at all)."""
    if cid not in state.blocking:
        return None
    try:
        ensure_may_argue(vt.rules_status(state.vitals[cid]), blocking=cid in state.blocking,
                         maneuver=maneuver)
    except RuleRefusal as exc:
        return str(exc)
    return None


def _may_argue(maneuver: str) -> Callable[[EncounterState, str], str | None]:
    """Dispute and Conversation need a debate still going, no Blocking, and an unspent
    statement of one's own (R26, R27, R49)."""
    def test(state: EncounterState, cid: str) -> str | None:
        if state.debate_over:
            return (f"{SOCIAL}: the debate has ended (an attitude reached Unfriendly, ruling "
                    "R26)")
        why = _may_speak(state, cid, maneuver)
        if why is not None:
            return why
        for arg in state.arguments.values():
            if arg.owner == cid and arg.size:
                return None
        return f"{_name(state, cid)} has no statement to use (the GM sizes them: size_argument)"

    return test


def _may_lie(state: EncounterState, cid: str) -> str | None:
    return _may_speak(state, cid, "a lie")


def _may_point_out(state: EncounterState, cid: str) -> str | None:
    """R72: pointing out a low access rating needs a social event with a rating, a debate still
    going, and an access rating of one's own that reaches the Event Rating."""
    event = state.social_event
    if event is None or event.rating is None:
        return "there is no social event (set_social_event)"
    if state.debate_over:
        return f"{SOCIAL}: the debate has ended (an attitude reached Unfriendly, ruling R26)"
    mine = social.social_standing(state, cid).access
    if mine is None or mine.total < event.rating:
        total = mine.total if mine is not None else 0
        return (f"SOCIAL ACCESS RATING: only someone whose own access rating reaches the Event "
                f"Rating ({total} < {event.rating}) can use it (ruling R72)")
    return None


# --- targets --------------------------------------------------------------------------------------


def _others(state: EncounterState, cid: str, sees_all: bool) -> list[str]:
    """Anyone else still alive whom the sender sees (a hidden combatant only by the hidden:
    the GM's own business)."""
    vitals, hidden = state.vitals, vt.profile_facts(state.combatants).hidden
    if not hidden or (sees_all and cid in hidden):
        return [o for o in in_scene(state) if o != cid
                and ((v := vitals.get(o)) is None or v.condition[0] in LIVING)]  # alive
    return [o for o in in_scene(state) if o != cid and o not in hidden
            and ((v := vitals.get(o)) is None or v.condition[0] in LIVING)]


def _grabbable(state: EncounterState, cid: str) -> Callable[[str], bool] | None:
    """Grab: "only an target up to one size category larger than yourself, and only one
    target at a time"."""
    if any(cid in grabbers for grabbers in state.grabs.values()):
        return None
    facts = vt.profile_facts(state.combatants)
    largest = facts.size_ranks[cid] + 1
    if facts.largest <= largest:
        return everyone
    too_big = {t for t, rank in facts.size_ranks.items() if rank > largest}
    return lambda t: t not in too_big


def _in_reach(state: EncounterState, cid: str) -> Callable[[str], bool]:
    """REACH: on the battle map a grab or a ram reaches only those within the combatant's
    reach (``rules.sight.within_reach``), as ``act`` refuses the others; while either of them
    is not on the map, the stated circumstances count and nobody is left out."""
    rules = declaration(state.ruleset)
    me = placement_in(state, rules, cid)
    if me is None:
        return everyone
    reach = vt.sheet_of(state.combatants[cid]).reach_squares

    def reaches(target: str) -> bool:
        there = placement_in(state, rules, target)
        return there is None or within_reach(me, there, reach)

    return reaches


def _grabbable_in_reach(state: EncounterState, cid: str) -> Callable[[str], bool] | None:
    size = _grabbable(state, cid)
    if size is None:
        return None
    reach = _in_reach(state, cid)
    if size is everyone:
        return reach
    if reach is everyone:
        return size
    return lambda t: size(t) and reach(t)


def _objects(state: EncounterState, cid: str) -> Callable[[str], bool]:
    """Objects, plants and vehicles: those without a mental track (R15)."""
    return {t for t, v in state.vitals.items() if v.mental is None}.__contains__


def _conscious(state: EncounterState, cid: str) -> Callable[[str], bool]:
    """R47: no social maneuver against an unconscious target."""
    asleep = {t for t, v in state.vitals.items() if v.condition[0] != CONSCIOUS}
    return (lambda t: t not in asleep) if asleep else everyone


def _conversable(state: EncounterState, cid: str) -> Callable[[str], bool]:
    """Conversation: the target answers with a statement of its own, so it has one and is not
    Blocking (R27, R49)."""
    awake = _conscious(state, cid)
    return lambda t: awake(t) and t not in state.blocking and bool(_statements(state, t))


def _low_access(state: EncounterState, cid: str) -> Callable[[str], bool] | None:
    """R72: one whose access rating is below the Event Rating (by a Discord row)."""
    event, mine = state.social_event, social.social_standing(state, cid).access
    if event is None or event.rating is None:
        return None
    rating, mine_total = event.rating, mine.total if mine else 0

    def test(target: str) -> bool:
        theirs = social.social_standing(state, target).access
        if theirs is None:
            return False
        try:
            low_access_argument(theirs.total, mine_total, rating,
                                aura_gap_band=state.options.aura_gap_band)
        except RuleRefusal:
            return False
        return True
    return test


def _at_the_event(state: EncounterState) -> Container[str]:
    event = state.social_event
    return state.combatants if event is not None and event.rating is not None else ()


def _answering(state: EncounterState) -> Container[str]:
    answers = state.answers
    return {a.target for a in answers.values()} if answers else ()


OTHERS = Targets(_others)
#: An action aimed at a combatant who must hear it (R47).
LISTENERS = Targets(_others, _conscious)


# --- options --------------------------------------------------------------------------------------


def _weapons(state: EncounterState, cid: str) -> dict[str, list[str]]:
    """The weapons of the combatant's sheet, and ``unarmed``: by the profile (frozen, and shared
    by copies of the state), worked out once (the entry keeps it, so that its id is not reused
    while it is cached); never changed, like the entries that list them."""
    profile = state.combatants[cid]
    known = _WEAPONS.get(id(profile))
    if known is not None and known[0] is profile:
        return known[1]
    weapons = [w.name for w in vt.sheet_of(profile).weapons]
    found = {"weapon": [*weapons, "unarmed"] if "unarmed" not in weapons else weapons}
    if len(_WEAPONS) >= 4096:
        _WEAPONS.clear()
    _WEAPONS[id(profile)] = (profile, found)
    return found


_WEAPONS: dict[int, tuple[CombatantProfile, dict[str, list[str]]]] = {}


def _own_statements(state: EncounterState, cid: str) -> dict[str, list[str]]:
    return {"argument": _statements(state, cid)}


_SIZES = [s.value for s in Size]
#: Never changed, like the entries that list them.
_SIZE_OPTIONS = {"size": _SIZES}
_ANSWERS = ["accept", "accept_with_reservation", "refuse"]


# --- the catalog ----------------------------------------------------------------------------------

_STD, _MOVE, _SWIFT, _FULL, _FREE, _REACTION = (Kind.STANDARD, Kind.MOVE, Kind.SWIFT,
                                                Kind.FULL_ROUND, Kind.FREE, Kind.REACTION)

ANSWER_STATEMENT = Action(
    "answer_statement", "Answer the statement (R48)", "STATEMENTS: answering (R48)", None,
    args=AnswerArgs, resolve=social.answer, precondition=social.may_answer,
    targets=Targets(social.waiting_answers, fields=("statement",)),
    options=lambda _s, _c: {"answer": list(_ANSWERS)}, when=When.ANY_TIME, records=False,
    among=_answering)

CATALOG = Catalog("dramatic", "MLP Dramatic Systems", (
    # STANDARD ACTIONS
    Action("attack", "Attack (melee, ranged, unarmed or natural)",
           "COMBAT STATISTICS: ATTACK ROLL", _STD, AttackArgs, combat.attack, targets=OTHERS,
           options=_weapons, readyable=True, aim=combat.aim_attack),
    Action("aid_another", "Aid another", "STANDARD ACTIONS: Aid Another", _STD, HelpArgs,
           combat.aid_another, targets=OTHERS, readyable=True),
    Action("distraction", "Distract", "STANDARD ACTIONS: Distraction", _STD, HelpArgs,
           combat.distraction, targets=OTHERS, readyable=True),
    Action("grab", "Grab", "STANDARD ACTIONS: Grab", _STD, GrabArgs, combat.grab,
           targets=Targets(_others, _grabbable_in_reach), readyable=True, aim=combat.aim_grab),
    Action("break_grab", "Break a grab", "STANDARD ACTIONS: Grab", _STD, BreakGrabArgs,
           break_grab, _grabbed),
    Action("break_object", "Break an object", "STANDARD ACTIONS: Breaking an Object", _STD,
           BreakArgs, combat.break_object, targets=Targets(_others, _objects), readyable=True),
    Action("harvest", "Harvest", "STANDARD ACTIONS: Harvest", _STD, HarvestArgs,
           combat.harvest, targets=Targets(_others, optional=True), options=_weapons,
           readyable=True),
    Action("ram", "Ram", "Flying Basic Maneuver: Ramming", _STD, RamArgs, combat.ram,
           targets=Targets(_others, _in_reach), readyable=True),
    # SOCIAL SYSTEMS: Social Basic Maneuver, Creating a Lie
    Action("dispute", "Dispute", "Social Basic Maneuver: Dispute", _STD, DisputeArgs,
           social.dispute, _may_argue("Dispute"), LISTENERS, _own_statements),
    Action("conversation", "Conversation", "Social Basic Maneuver: Conversation", _STD,
           ConversationArgs, social.converse, _may_argue("Conversation"),
           Targets(_others, _conversable), _own_statements),
    Action("lie", "Tell a lie", "Creating a Lie", _STD, LieArgs, social.lie, _may_lie,
           Targets(_others, _conscious, fields=("target", "targets")),
           lambda _s, _c: _SIZE_OPTIONS),
    Action("block", "Block (withdraw from the discussion)", "Social Basic Maneuver: Blocking",
           _STD, Noted, social.block, social.may_block),
    Action("other_standard", "Another standard action (GM adjudicates)",
           "ACTIONS IN COMBAT: Standard Action", _STD, readyable=True),
    # MOVE ACTIONS
    Action("move", "Move up to your speed", "MOVE ACTIONS: Move", _MOVE, PathArgs, battle.move,
           battle.may_move, readyable=True),
    Action("draw", "Draw or holster an object", "MOVE ACTIONS: Draw or Holster Object", _MOVE,
           readyable=True),
    Action("manipulate", "Manipulate an item", "MOVE ACTIONS: Manipulate an Item", _MOVE,
           readyable=True),
    Action("retrieve", "Open a container or take out an item",
           "MOVE ACTIONS: Retrieve a Stored Item", _MOVE, readyable=True),
    Action("stand_up", "Stand up", "MOVE ACTIONS: Stand Up", _MOVE, Noted, stand_up, _not_prone,
           readyable=True),
    Action("other_move", "Another move action (GM adjudicates)",
           "ACTIONS IN COMBAT: Move Action", _MOVE, readyable=True),
    # SWIFT ACTIONS
    Action("activate_item", "Activate an item", "SWIFT ACTIONS: Activate an Item", _SWIFT),
    Action("drop_item", "Drop an item", "SWIFT ACTIONS: Drop an Item", _SWIFT),
    Action("quick_draw", "Draw or holster an object (Quick Draw)",
           "MOVE ACTIONS: Draw or Holster Object (Quick Draw)", _SWIFT, Noted,
           precondition=_quick_draw),
    Action("fall_prone", "Fall prone", "SWIFT ACTIONS: Fall Prone", _SWIFT, Noted, fall_prone,
           _prone),
    Action("second_lunch", "Catch a Second Lunch",
           "SWIFT ACTIONS: Catch a Second Lunch without Food (Second Wind)", _SWIFT, Noted,
           second_lunch, _may_lunch),
    Action("recover", "Recover (three swift actions)", "SWIFT ACTIONS: Recover", _SWIFT, Noted,
           recover, _may_recover, swifts=3),
    Action("other_swift", "Another swift action (GM adjudicates)",
           "ACTIONS IN COMBAT: Swift Action", _SWIFT),
    # FULL-ROUND ACTIONS
    Action("run", "Run", "FULL-ROUND ACTIONS: Run", _FULL, PathArgs, battle.run,
           battle.may_move),
    Action("second_lunch_with_food", "Catch a Second Lunch with food",
           "FULL-ROUND ACTIONS: Catch a Second Lunch with Food", _FULL, FoodArgs,
           second_lunch_with_food, _may_lunch),
    Action("other_full_round", "Another full-round action (GM adjudicates)",
           "ACTIONS IN COMBAT: Full-Round Action", _FULL),
    # FREE ACTIONS AND REACTIONS
    Action("low_access", "Point out a low access rating (an argument)",
           "SOCIAL ACCESS RATING (R72)", _FREE, Aimed, social.low_access, _may_point_out,
           Targets(_others, _low_access), among=_at_the_event),
    Action("stop_blocking", "Stop Blocking", "Social Basic Maneuver: Blocking (R49)", _FREE,
           Noted, social.stop_blocking, social.may_stop_blocking,
           among=lambda s: s.blocking),
    Action("free", "A free action (call out, taunt)", "Free Actions and Reactions: Free Action",
           _FREE),
    Action("reaction", "A reaction to a trigger", "Free Actions and Reactions: Reaction",
           _REACTION),
    # SPECIAL INITIATIVE ACTIONS, the turn's end, and answering a statement
    READY, DELAY, END_TURN, TRIGGER_READY, TAKE_DELAYED_TURN, ANSWER_STATEMENT,
), groups={
    "attack": ("attack", "distraction", "grab", "break_grab", "ram"),
    # breaking an object and harvesting from one are the GM's set pieces, not a fight's moves
    "items": ("break_object", "harvest", "draw", "manipulate", "retrieve", "activate_item",
              "drop_item", "quick_draw"),
    "movement": ("move", "run", "stand_up", "fall_prone"),
    "social": ("dispute", "conversation", "lie", "block", "low_access", "stop_blocking",
               "answer_statement"),
    "support": ("aid_another", "second_lunch", "second_lunch_with_food", "recover"),
})
