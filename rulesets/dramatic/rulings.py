"""The GM's rulings: adjudicating an action the rules do not list, falls, collisions and loads
("MLP Dramatic Systems"; overriding a value, which every ruleset has, is ``encounter.adjust``).

Each is audited: a ``gm_ruling`` event with the description and reason comes first, then the
events of what it did, which players see as they would see any other change at the table.
"""

from __future__ import annotations

from typing import Any

import msgspec

from encounter.boundary import Engine
from encounter.decision import find_combatant
from encounter.rejected import Rejected
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from rules.damage import DamageFormula, damage_dealt
from rules.dice import Roll
from rules.hazards import FallPlan, collision_formulas, fall_outcome, fall_plan
from rules.modifiers import Modifier, RuleRefusal
from rules.objects import Overweight, apply_overweight, overweight
from rules.sheet import DamageSource
from rulesets.dramatic import resolution
from rulesets.dramatic import vitals as vt
from rulesets.dramatic.combat import TAKE_10, record_damage, roll_stage


def adjudicate(d: Engine, cmd: msg.Adjudicate) -> None:
    if d.s.chart[0] not in ("scene", "setup", "rolling_initiative"):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter has ended")
    actor = find_combatant(d, cmd.combatant) if cmd.combatant else None
    target = find_combatant(d, cmd.target) if cmd.target else actor
    outcomes = (cmd.on_success, cmd.on_failure)
    if target is None and any(_does_something(o) for o in outcomes):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "name the combatant or target the outcome "
                       "applies to")
    if cmd.take_10 and cmd.dc is None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "take_10: there is no check to take 10 on "
                       "without a dc")
    hidden = bool((actor and actor.hidden) or (target and target.hidden))
    vis: ev.Visibility = ["gm"] if hidden else None
    d.emit(ev.GmRuling(combatant=actor.id if actor else None, ruling="adjudicated",
                       description=cmd.description,
                       changes=[{"field": "dc", "value": cmd.dc},
                                {"field": "modifier", "value": cmd.modifier}]
                       if cmd.dc is not None else [], hidden=hidden), vis)
    # the GM's words about a hidden actor's deed stay behind the screen: a visible target's
    # changes read as done by someone unseen (ruling R79, R97)
    words = cmd.description if not (actor and actor.hidden) or (target and target.hidden) \
        else "by someone unseen"
    if cmd.dc is None:
        _adjudicated(d, target.id if target else None, cmd.on_success, words)
        d.result = {"success": True}
        return
    cid = actor.id if actor else None
    ctx = {"action": "adjudicate", "combatant": cid, "target": target.id if target else None,
           "description": words, "dc": cmd.dc, "modifier": cmd.modifier,
           "take_10": cmd.take_10, "hidden": hidden,
           "on_success": msgspec.to_builtins(cmd.on_success),
           "on_failure": msgspec.to_builtins(cmd.on_failure)}
    manual = d.is_manual(cid) if cid is not None else d.s.options.manual_rolls
    if cmd.take_10:  # R81: the check takes 10, no die
        _adjudicated_check(d, ctx, TAKE_10)
    elif manual:  # R80: the GM's dice, or the player's of a player character
        d.request_roll("1d20", "adjudicated check", cid, context=ctx)
    else:
        _adjudicated_check(d, ctx, d.server_roll("1d20", "adjudicated check", cid))


def _adjudicated_check(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    """The die of an adjudicated check is in: the check, then what its outcome does."""
    cid, hidden = ctx["combatant"], ctx["hidden"]
    total = roll.total + ctx["modifier"]
    success = total >= ctx["dc"]
    d.emit(ev.CheckMade(combatant=cid or "", check="adjudicated", natural=roll.total,
                        modifiers=[Modifier("GM's modifier", ctx["modifier"],
                                            "adjudicated by the GM")],
                        total=total, dc=ctx["dc"], success=success,
                        section="adjudicated by the GM", took_10=ctx["take_10"],
                        hidden=hidden), ["gm"] if hidden else None)
    outcome = msgspec.convert(ctx["on_success" if success else "on_failure"],
                              msg.AdjudicatedOutcome)
    _adjudicated(d, ctx["target"], outcome, ctx["description"])
    d.result = {"success": success}


def _adjudicated(d: Engine, target: str | None, outcome: msg.AdjudicatedOutcome,
                 description: str) -> None:
    if target is not None and _does_something(outcome):
        _apply_outcome(d, target, outcome, description)


def after_roll(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> bool:
    """The dice of the GM's hazards and checks are in (R80): ``False`` for another stage."""
    action = ctx.get("action")
    if action == "adjudicate":
        _adjudicated_check(d, ctx, roll)
    elif action == "fall":
        _fall_rolled(d, stage, ctx, roll)
    elif action == "collide":
        _collision_rolled(d, ctx, roll)
    elif action == "constitution_check":
        resolution.constitution_check_rolled(d, ctx["combatant"], roll)
    else:
        return False
    return True


def _does_something(o: msg.AdjudicatedOutcome) -> bool:
    return bool(o.fatigue_loss or o.steps or o.heal or o.prone is not None)


def _apply_outcome(d: Engine, cid: str, o: msg.AdjudicatedOutcome, why: str) -> None:
    v = d.s.vitals[cid]
    if not v.alive:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{d.s.combatants[cid].name} is "
                       f"{v.condition[0]}")
    note = f"GM: {why}"
    if o.fatigue_loss:
        resolution.lose_fatigue(d, cid, o.fatigue_loss, DamageSource(o.loss_kind),
                                "adjudicated", [note])
    if o.steps:
        resolution.move_down(d, cid, o.steps, DamageSource(o.loss_kind), o.persistent, note)
    if o.heal:
        resolution.heal(d, cid, o.heal, "adjudicated", note)
    if o.prone is not None and d.s.vitals[cid].alive:
        vt.record(d, cid, "adjudicated", [note], prone=o.prone)


def fall(d: Engine, cmd: msg.Fall) -> None:
    """Flying: Falling Damage (R22): a trained faller's Acrobatics check (DC
    ``falling_acrobatics_dc``; success: the fall counts shorter) — an untrained one makes none
    (R84) — then 1d20+20 against Fortitude Defense — full damage (1d6 per whole 3 m, at most
    20d6) or half; a fall that counts under 3 m has no damage to halve, and no falling roll
    (R98) — and it lands prone unless the Acrobatics check succeeded and it took no damage.
    The dice are the faller's: physical ones are asked for, stage by stage (R80)."""
    c = find_combatant(d, cmd.combatant)
    v = d.s.vitals[c.id]
    if not v.alive:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is {v.condition[0]}")
    sheet = vt.sheet_of(c)
    d.emit(ev.GmRuling(combatant=c.id, ruling="adjudicated",
                       description=f"{c.name} falls {cmd.meters:g} m", hidden=c.hidden),
           d.combatant_vis(c.id))
    if c.id in d.s.flying:  # it falls out of the air (R83): no longer flying
        d.emit(ev.CombatantMoved(combatant=c.id, path=[], cost=0, budget=0, mode="move",
                                 hidden=c.hidden), d.combatant_vis(c.id))
    ctx: dict[str, Any] = {"action": "fall", "attacker": c.id, "meters": cmd.meters,
                           "acrobatics_total": None}
    if "acrobatics" in sheet.trained:
        roll_stage(d, ctx, "acrobatics", "1d20")
    else:
        _falling_roll(d, ctx)


def _falling_roll(d: Engine, ctx: dict[str, Any]) -> None:
    """The falling roll, when there is damage for it to decide (R22); a fall that counts
    under 3 m lands at once, without damage (R98)."""
    plan = _fall_plan(d, ctx)
    if plan.dice:
        roll_stage(d, ctx, "falling", "1d20")
        return
    cid = ctx["attacker"]
    if plan.acrobatics is not True and d.s.vitals[cid].alive and not d.s.vitals[cid].prone:
        vt.record(d, cid, "fall", [f"falls {ctx['meters']:g} m: under 3 m, no damage (R98)",
                                   "lands prone (Falling Damage)"], prone=True)
    d.result = {"loss": 0}


def _fall_plan(d: Engine, ctx: dict[str, Any]) -> FallPlan:
    o = d.s.options
    sheet = vt.sheet_of(d.s.combatants[ctx["attacker"]])
    return fall_plan(ctx["meters"], trained_acrobatics="acrobatics" in sheet.trained,
                     acrobatics_total=ctx["acrobatics_total"],
                     falling_acrobatics_dc=o.falling_acrobatics_dc,
                     falling_acrobatics_reduction_m=o.falling_acrobatics_reduction_m)


def _fall_rolled(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    """A stage of a fall: the Acrobatics check, the falling roll, the falling damage."""
    cid = ctx["attacker"]
    c = d.s.combatants[cid]
    vis = d.combatant_vis(cid)
    section = "Flying: Falling Damage (R22)"
    if stage == "acrobatics":
        skill = vt.sheet_of(c).skill("acrobatics")
        total = roll.total + skill
        dc = d.s.options.falling_acrobatics_dc
        d.emit(ev.CheckMade(combatant=cid, check="acrobatics", natural=roll.total,
                            modifiers=[Modifier("Acrobatics", skill, section)],
                            total=total, dc=dc, success=total >= dc,
                            section=section, hidden=c.hidden), vis)
        _falling_roll(d, {**ctx, "acrobatics_total": total})
        return
    plan = _fall_plan(d, ctx)
    if stage == "falling":
        roll_stage(d, {**ctx, "natural": roll.total}, "falling damage", plan.dice)
        return
    dice_total = roll.total
    sheet, defs = resolution.defenses_of(d, cid)
    fortitude = defs.fortitude.total
    result = fall_outcome(plan, ctx["natural"], dice_total, fortitude,
                          reductions=sheet.damage_reduction)
    d.emit(ev.AttackResolved(
        round=d.s.round, attacker=cid, target=cid, action="fall", defense="fortitude",
        natural=ctx["natural"], modifiers=[Modifier("falling", plan.attack_bonus, section)],
        total=result.attack_total, defense_value=fortitude,
        defense_parts=list(defs.fortitude.parts),
        outcome="hit" if result.full else "miss", hidden=c.hidden), vis)
    d.emit(ev.DamageDealt(
        target=cid, dice=plan.dice or "0", rolled=dice_total, halved=not result.full,
        before_reduction=result.damage, reduction=result.damage - result.dealt,
        reduction_label=f"DR {result.reduction.value}" if result.reduction else None,
        loss=result.dealt, hidden=c.hidden), vis)
    if result.dealt:
        resolution.lose_fatigue(d, cid, result.dealt, DamageSource.PHYSICAL, "fall",
                                [f"falls {ctx['meters']:g} m"])
    if result.prone and d.s.vitals[cid].alive and not d.s.vitals[cid].prone:
        vt.record(d, cid, "fall", ["lands prone (Falling Damage)"], prone=True)
    d.result = {"loss": result.dealt}


def collide(d: Engine, cmd: msg.Collide) -> None:
    """Flying Basic Maneuver: Collision (R23): each side takes both speeds + the other's
    Strength modifier + the other's size damage, each less its own DR; a flying side's speed is
    its fly speed (R83). The size damage is the other side's dice: physical ones are asked for,
    one side after the other (R80)."""
    a, b = find_combatant(d, cmd.first), find_combatant(d, cmd.second)
    if a.id == b.id:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "a collision needs two combatants")
    for c in (a, b):
        if not d.s.vitals[c.id].alive:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is {d.s.vitals[c.id].condition[0]}")
    ctx = {"action": "collide", "first": a.id, "second": b.id,
           "first_flying": cmd.first_flying or a.id in d.s.flying,
           "second_flying": cmd.second_flying or b.id in d.s.flying, "side": 0}
    formulas = _collision(d, ctx)  # refuses a flying side without a fly speed
    hidden = a.hidden or b.hidden
    d.emit(ev.GmRuling(ruling="adjudicated", description=f"{a.name} and {b.name} collide",
                       hidden=hidden), ["gm"] if hidden else None)
    roll_stage(d, ctx, "collision damage", formulas[0].dice, roller=b.id)


def _collision(d: Engine, ctx: dict[str, Any]) -> tuple[DamageFormula, DamageFormula]:
    a_sheet = vt.sheet_of(d.s.combatants[ctx["first"]])
    b_sheet = vt.sheet_of(d.s.combatants[ctx["second"]])
    try:
        return collision_formulas(a_sheet, b_sheet, a_flying=ctx["first_flying"],
                                  b_flying=ctx["second_flying"])
    except (RuleRefusal, ValueError) as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None


def _collision_rolled(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    """One side's collision damage is in: it takes it; then the other side's dice."""
    side = ctx["side"]
    victim, other = (ctx["first"], ctx["second"]) if side == 0 else (ctx["second"], ctx["first"])
    formula = _collision(d, ctx)[side]
    sheet = vt.sheet_of(d.s.combatants[victim])
    dmg = damage_dealt(formula, roll.total, reductions=sheet.damage_reduction,
                       dr_respects_minimum_damage=d.s.options.dr_respects_minimum_damage)
    record_damage(d, victim, other, formula, roll, dmg)
    if d.s.vitals[victim].alive:
        resolution.lose_fatigue(d, victim, dmg.dealt, formula.source, "collision",
                                [f"collides with {d.public_name(other, victim)}"])
    if side == 0:
        roll_stage(d, {**ctx, "side": 1}, "collision damage", _collision(d, ctx)[1].dice,
                   roller=ctx["first"])


def load_object(d: Engine, cmd: msg.LoadObject) -> None:
    """Breaking an Object → Strength: an object beyond its heavy load moves -1 step at once and
    each round on the same initiative count; beyond twice its heavy load it is disabled, which
    for an object is destroyed (R15)."""
    c = find_combatant(d, cmd.combatant)
    sheet = vt.sheet_of(c)
    if sheet.nature.value == "creature":
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is a creature, not an object")
    if sheet.load_limit is None and cmd.weight:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name}'s stat block gives no load_limit")
    count = d.s.turn_count() if d.s.current in d.s.initiative or d.s.screen_turn else 0
    d.emit(ev.ObjectLoaded(combatant=c.id, weight=cmd.weight, round=d.s.round, count=count,
                           hidden=c.hidden), d.combatant_vis(c.id))
    if cmd.weight:
        strain(d, c.id)


def strain(d: Engine, cid: str) -> None:
    """One application of an object's load (Breaking an Object → Strength)."""
    load = d.s.loads.get(cid)
    v = d.s.vitals[cid]
    if load is None or not v.alive:
        return
    c = d.s.combatants[cid]
    sheet = vt.sheet_of(c)
    effect = overweight(sheet, load.weight)
    if effect is Overweight.NONE:
        return
    track = apply_overweight(sheet, load.weight, vt.to_rules(v.physical))
    note = ("beyond twice its heavy load: disabled, destroyed (Strength, R15)"
            if effect is Overweight.DISABLED else "beyond its heavy load: -1 step (Strength)")
    vt.record(d, cid, "overweight", [note], physical=track,
              condition_events=("wrecked",) if track.at_bottom else ())
