"""The battle map in the encounter: placing combatants, moving them, and what the map decides
about an attack ("MLP Dramatic Systems", SPEED, MOVE ACTIONS: Move, FULL-ROUND ACTIONS: Run,
DIAGONAL MOVEMENT, DIFFICULT TERRAIN, OCCUPIED SPACE, MOVING THROUGH OCCUPIED SQUARES, LINE OF
SIGHT, COVER, CONCEALMENT, REACH, RANGED MANEUVER INTO A MELEE; rulings R9, R19-R21, R63-R68).

The geometry is ``rules.battle_map``, ``rules.movement`` and ``rules.sight``; this module reads
the encounter's state for them and records the results. An encounter without a map, or a
combatant not on it, still works: then the GM or the player states range, cover and
concealment with the attack, and a move only spends the action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from encounter.decision import find_combatant
from encounter.placing import others as _others
from encounter.placing import place, placement
from encounter.rejected import Rejected
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile
from rules import movement, sight
from rules.battle_map import MapError, check_placement
from rules.condition_track import condition_speed
from rules.defenses import effect_parts
from rules.modifiers import Modifier, total
from rules.sheet import WeaponKind
from rulesets.dramatic import resolution
from rulesets.dramatic import vitals as vt
from rulesets.dramatic.args import PathArgs

if TYPE_CHECKING:
    from encounter.boundary import Engine
    from encounter.state import EncounterState
    from rules.defenses import Status
    from rules.sheet import Sheet


# --- the GM's map -----------------------------------------------------------------------------


def set_map(d: Engine, cmd: msg.SetMap) -> None:
    d.emit(ev.MapSet(map=cmd.map))
    if cmd.map is None:
        return
    for cid in list(d.s.positions):  # those who no longer fit come off the map
        p = placement(d, cid)
        try:
            if p is not None:
                check_placement(cmd.map, p)
        except MapError:
            c = d.s.combatants[cid]
            d.emit(ev.CombatantPlaced(combatant=cid, at=None, hidden=c.hidden),
                   d.combatant_vis(cid))


def place_combatant(d: Engine, cmd: msg.PlaceCombatant) -> None:
    place(d, find_combatant(d, cmd.combatant), cmd.at)


# --- moving -----------------------------------------------------------------------------------


def may_move(state: EncounterState, cid: str) -> str | None:
    """Grab: a grabbed creature "cannot move until it breaks the grab"."""
    if state.grabs.get(cid):
        return (f"{state.combatants[cid].name} is grabbed and cannot move until it breaks the "
                "grab (STANDARD ACTIONS: Grab)")
    return None


def _move(d: Engine, c: CombatantProfile, args: PathArgs,
          run: bool) -> Callable[[], None] | None:
    me = placement(d, c.id)
    sheet = vt.sheet_of(c)
    if args.fly:
        _may_fly(d, c)
    if me is None:
        if args.path is not None:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is not on a battle map: the GM "
                           "tracks where it goes")
        if args.fly or c.id in d.s.flying:  # takes off, or lands (R83)
            flies: Literal["fly", "move"] = "fly" if args.fly else "move"
            return lambda: d.emit(ev.CombatantMoved(
                combatant=c.id, path=[], cost=0,
                budget=sheet.fly_speed if args.fly else sheet.speed, mode=flies,
                hidden=c.hidden), d.combatant_vis(c.id))
        return None
    assert d.s.battle_map is not None
    if args.path is None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.path lists the squares entered, in "
                       "order, as [x, y] pairs")
    path = [(x, y) for x, y in args.path]
    terms, speed_parts = _walking(d, c, run=run, fly=args.fly)
    try:
        check = movement.validate_run if run else movement.validate_move
        plan = check(d.s.battle_map, me, path, **terms)
    except (MapError, ValueError) as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    mode: Literal["move", "run", "crawl", "fly"] = (
        "fly" if args.fly else "run" if run else "crawl" if plan.crawl else "move")
    return lambda: d.emit(ev.CombatantMoved(
        combatant=c.id, path=list(path), cost=plan.total, budget=plan.budget,
        mode=mode, falls=plan.falls, speed_modifiers=speed_parts, hidden=c.hidden),
        d.combatant_vis(c.id))


def _walking(d: Engine, c: CombatantProfile, *, run: bool,
             fly: bool) -> tuple[dict[str, Any], list[Modifier]]:
    """What a move (``run``: a run) of ``c`` counts, as ``rules.movement`` takes it (the
    same for the move and for where it can go, R106), and the effects on its speed."""
    sheet = vt.sheet_of(c)
    load = movement.Load(armor=sheet.armor_type.value,
                         garment=sheet.garment.value,
                         heavy_load=sheet.heavy_load)
    side, vitals = c.side, d.s.vitals
    # HELPLESS CONDITION as attacks read it (``Vitals.helpless``); the dead are no obstacle
    others = [movement.Occupant(id=o, at=p, hostile=d.s.combatants[o].side != side,
                                helpless=vitals[o].helpless or not vitals[o].conscious,
                                unseen=not d.actor_sees(o))
              for o, p in _others(d, c.id)]
    o = d.s.options
    speed, speed_parts = speed_of(d.s, c.id, fly=fly)
    terms: dict[str, Any] = {
        "speed": speed, "load": load, "others": others, "prone": d.s.vitals[c.id].prone,
        "squeeze_cost_multiplier": o.squeeze_cost_multiplier, "flying": fly}
    if run:
        terms["refined_garment_runs_triple"] = o.refined_garment_runs_triple
    else:
        terms["prone_crawl_squares"] = o.prone_crawl_squares
    return terms, speed_parts


def reach(d: Engine, c: CombatantProfile, cmd: msg.GetReach) -> dict[str, Any]:
    """``get_reach``: every square ``c`` can end its move (run) on now, the cheapest path to
    each and its cost, as ``act`` would accept them (ruling R106)."""
    me = placement(d, c.id)
    if me is None or d.s.battle_map is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is not on a battle map: the GM "
                       "tracks where it goes")
    if cmd.fly:
        _may_fly(d, c)
    run = cmd.action == "run"
    terms, _ = _walking(d, c, run=run, fly=cmd.fly)
    search = movement.reach_of_run if run else movement.reach_of_move
    budget, found = search(d.s.battle_map, me, **terms)
    return {"combatant": c.id, "action": cmd.action, "fly": cmd.fly, "from": list(me.at),
            "budget": budget,
            "squares": [{"at": list(r.at), "cost": r.cost, "path": [list(s) for s in r.path]}
                        for r in found]}


def speed_of(s: EncounterState, cid: str, *, fly: bool = False) -> tuple[int, list[Modifier]]:
    """The speed a move counts now, in squares, and the effects' modifiers on it, itemised:
    SPEED (the fly speed for a flying move, R83), the effects on ``speed`` (R90, stacked as
    R92), the condition track's halving (R15)."""
    return speed_from(vt.sheet_of(s.combatants[cid]), resolution.state_status(s, cid),
                      condition_half_speed=s.options.condition_half_speed, fly=fly)


def speed_from(sheet: Sheet, status: Status, *, condition_half_speed: bool,
               fly: bool = False) -> tuple[int, list[Modifier]]:
    """:func:`speed_of` from what it reads: the sheet, the combatant's status (its tracks'
    steps and the effects it holds) and the option."""
    step = max(status.physical.step, status.mental.step)
    parts = effect_parts(sheet, status, "speed")
    base = (sheet.fly_speed if fly else sheet.speed) + total(parts)
    return (condition_speed(max(0, base), step,
                            condition_half_speed=condition_half_speed), parts)


def _may_fly(d: Engine, c: CombatantProfile) -> None:
    """SPEED: "A creature with a fly speed is capable of flight, but not if it is carrying a
    heavy load" (ENCUMBRANCE AND SPEED; R83); nor while prone (it stands up first)."""
    sheet = vt.sheet_of(c)
    if sheet.fly_speed == 0:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} has no fly speed (SPEED: Fly)")
    if sheet.heavy_load:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} carries a heavy load and cannot "
                       "fly (ENCUMBRANCE AND SPEED; ruling R83)")
    if d.s.vitals[c.id].prone:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is prone: it stands up before it "
                       "flies (ruling R83)")


def move(d: Engine, c: CombatantProfile, args: PathArgs) -> Callable[[], None] | None:
    """Move action: up to the combatant's speed (``args.path``: the squares entered)."""
    return _move(d, c, args, run=False)


def run(d: Engine, c: CombatantProfile, args: PathArgs) -> Callable[[], None] | None:
    """Full-round action: Run, 4 times the speed (3 times in heavy armor) in a straight line
    (R21, R68)."""
    return _move(d, c, args, run=True)


# --- what the map says about an attack ---------------------------------------------------------


def on_the_map(d: Engine, attacker: str, target: str) -> bool:
    """Whether the map decides an attack of ``attacker`` on ``target``: both stand on it."""
    return (d.s.battle_map is not None and placement(d, attacker) is not None
            and placement(d, target) is not None)


def attack_situation(d: Engine, ctx: dict[str, Any], weapon_kind: WeaponKind,
                     reach: int) -> dict[str, Any]:
    """The map's answers for an attack between two placed combatants: distance, cover,
    concealment, into melee; refused when a melee target is out of reach or nothing reaches
    it. Nothing changes when either is not on the map (the stated circumstances count)."""
    attacker, target = ctx["attacker"], ctx["target"]
    if not on_the_map(d, attacker, target):
        return {}
    a, t = placement(d, attacker), placement(d, target)
    assert a is not None and t is not None and d.s.battle_map is not None
    around = _others(d, attacker, target)
    others = [p for _o, p in around]
    o = d.s.options
    seen = sight.view(d.s.battle_map, a, t, others,
                      creatures_block_line_of_sight=o.creatures_block_line_of_sight)
    name, other = d.s.combatants[attacker].name, d.s.combatants[target].name
    if not seen.line_of_effect:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{other} has total cover from {name}: no "
                      "line of effect (COVER: Total Cover)")
    # "With a ranged or Athletics roll ... you can throw or shoot at any target within your
    # line of sight" (STANDARD ACTIONS): a thrown weapon is thrown, a melee weapon with `throw`
    ranged = weapon_kind in (WeaponKind.RANGED, WeaponKind.THROWN) or ctx["throw"]
    if not ranged and not sight.within_reach(a, t, reach):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{other} is out of {name}'s reach ({reach} "
                      f"square{'s' if reach != 1 else ''}, REACH)")
    concealment = seen.concealment.value
    if not seen.line_of_sight:
        concealment = "total"  # line of effect without sight (Total Concealment)
    return {
        "distance": seen.distance if ranged else None,
        "range": None,
        "cover": seen.cover.value,
        "concealment": concealment,
        "into_melee": ranged and sight.in_melee(
            t, [p for o, p in around if d.s.vitals[o].conscious]),
        "creatures_in_the_way": False,
    }
