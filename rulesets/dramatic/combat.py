"""Attacks: from the declared attack to the fatigue loss, as events ("MLP Dramatic Systems",
ATTACK ROLL, DAMAGE, DAMAGE REDUCTION, STANDARD ACTIONS; rulings R9-R13, R44).

An attack is resolved in stages so that its dice may come from the server or from physical
dice (``manual_rolls`` / ``players_roll``): the attack die, then, on a hit, the damage dice.
What the attack needs between the stages travels with the roll request (``context``), so the
state stays a fold over the events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from encounter.rejected import Rejected
from protocol import events as ev
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile
from rules.attack import (
    AttackCheck,
    Concealment,
    Cover,
    RangeBand,
    Situation,
    attack_check,
    attack_outcome,
)
from rules.attack import aid_another as aid_succeeds
from rules.condition_track import BOTTOM, Track
from rules.damage import DamageFormula, damage_dealt, damage_formula
from rules.defenses import DefenseName, damage_thresholds, effect_parts
from rules.dice import Roll, dice_in, roll_faces
from rules.grab import grab_check
from rules.hazards import ram_formula
from rules.modifiers import Modifier, RuleRefusal
from rules.objects import (
    break_dc,
    break_succeeds,
    harvest_check,
    harvest_yield,
    held_object_reflex,
    object_reflex,
    structure_loss,
)
from rules.sheet import DamageReduction, DamageSource, Nature, SheetError, WeaponKind
from rulesets.dramatic import battle, resolution
from rulesets.dramatic import vitals as vt
from rulesets.dramatic.args import (
    AttackArgs,
    BreakArgs,
    Circumstances,
    GrabArgs,
    HarvestArgs,
    HelpArgs,
    RamArgs,
)

if TYPE_CHECKING:
    from encounter.boundary import Engine


def declare(d: Engine, c: CombatantProfile, args: Circumstances, *, grab: bool = False
            ) -> dict[str, Any]:
    """The attack as plain data, checked: the target, the weapon, and the circumstances the GM
    or the player states (range or distance, cover, concealment, into melee)."""
    target = args.target
    if target not in d.s.combatants or not d.may_aim(c.id, target):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.target names the combatant attacked")
    if target == c.id:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "a combatant cannot attack itself")
    if not d.s.vitals[target].alive:
        raise Rejected(ErrorCode.ILLEGAL_ACTION,
                       f"{d.s.combatants[target].name} is {d.s.vitals[target].condition[0]}")
    weapon = args.weapon if isinstance(args, AttackArgs) else "unarmed"
    ctx: dict[str, Any] = {
        "action": "grab" if grab else "attack",
        "attacker": c.id,
        "target": target,
        "weapon": weapon,
        "throw": isinstance(args, AttackArgs) and args.throw,
        "grab": grab,
        "defense": (args.defense if isinstance(args, AttackArgs) else DefenseName.REFLEX).value,
        "range": args.range.value if args.range is not None else None,
        "distance": args.distance,
        "cover": args.cover.value,
        "concealment": args.concealment.value,
        "into_melee": args.into_melee,
        "creatures_in_the_way": args.creatures_in_the_way,
        "moving": isinstance(args, AttackArgs) and args.moving,
        "held_by": _held_by(d, c, args.held_by) if isinstance(args, AttackArgs) else None,
        "engage": isinstance(args, AttackArgs) and args.engage,
    }
    try:
        sheet = vt.sheet_of(c)
        kind = sheet.weapon(weapon).kind
    except SheetError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, str(exc)) from None
    ctx.update(battle.attack_situation(d, ctx, kind, sheet.reach_squares))  # the map decides
    if ctx["concealment"] == Concealment.TOTAL.value and not args.at_square:
        # Total Concealment: "You are unable to use sight based skills checks or maneuver on
        # an opponent that has total concealment, though you can try to affect the square"
        what = "a grab" if grab else "a ram" if isinstance(args, RamArgs) else "an attack"
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{d.s.combatants[target].name} has total "
                       f"concealment from {c.name}: {what} is sight-based and cannot be aimed "
                       "at it; aim at the square it is thought to occupy (at_square), at -5 "
                       "(Total Concealment, R67.5)", field="at_square")
    check(d, ctx)  # refuses what the rules refuse (total cover, out of range) before acting
    return ctx


def _held_by(d: Engine, c: CombatantProfile, holder: str | None) -> str | None:
    if holder is not None and (holder not in d.s.combatants or not d.may_aim(c.id, holder)):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.held_by names the combatant holding the "
                       "object")
    return holder


def check(d: Engine, ctx: dict[str, Any]) -> AttackCheck:
    attacker, target = ctx["attacker"], ctx["target"]
    a_sheet = vt.sheet_of(d.s.combatants[attacker])
    t_sheet = vt.sheet_of(d.s.combatants[target])
    situation = Situation(
        defense=DefenseName(ctx["defense"]), distance=ctx["distance"],
        range_band=RangeBand(ctx["range"]) if ctx["range"] else None,
        cover=Cover(ctx["cover"]), concealment=Concealment(ctx["concealment"]),
        into_melee=ctx["into_melee"], creatures_in_the_way=ctx["creatures_in_the_way"],
        aiders=len(d.s.aid.get(attacker, [])),
        # "unaware of an attack, you lose your Dexterity bonus" (R42, R82)
        unaware=resolution.unaware_of_attacks(d.s, target))
    o = d.s.options
    try:
        if ctx["grab"]:
            return grab_check(
                a_sheet, t_sheet, grabber_status=resolution.status_of(d, attacker),
                target_status=resolution.status_of(d, target), situation=situation,
                already_grabbing=any(attacker in g and t != target
                                     for t, g in d.s.grabs.items()),
                non_dexterous_penalty=o.non_dexterous_penalty,
                prone_helpless_bonuses_stack=o.prone_helpless_bonuses_stack)
        target_defense = None
        if t_sheet.nature is not Nature.CREATURE and ctx.get("held_by"):
            # Held, Carried, or Worn Objects: 10 + size + the holder's Reflex Defense
            _, holder = resolution.defenses_of(d, ctx["held_by"])
            target_defense = held_object_reflex(t_sheet, holder.reflex)
        elif t_sheet.nature is not Nature.CREATURE:  # Destructive Harvest: unattended objects
            target_defense = object_reflex(t_sheet, moving=bool(ctx.get("moving")))
        return attack_check(
            a_sheet, t_sheet, weapon=ctx["weapon"], throw=ctx["throw"],
            target_defense=target_defense,
            attacker_status=resolution.status_of(d, attacker),
            target_status=resolution.status_of(d, target), situation=situation,
            creatures_block_line_of_sight=o.creatures_block_line_of_sight,
            prone_helpless_bonuses_stack=o.prone_helpless_bonuses_stack,
            non_dexterous_penalty=o.non_dexterous_penalty)
    except (RuleRefusal, SheetError) as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    except ValueError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, str(exc)) from None


def attack(d: Engine, c: CombatantProfile, args: AttackArgs) -> Callable[[], None]:
    """Standard action: an attack with a weapon, unarmed or natural attack (ATTACK ROLL)."""
    ctx = declare(d, c, args)
    return lambda: _roll(d, ctx, "attack", "1d20")


def grab(d: Engine, c: CombatantProfile, args: GrabArgs) -> Callable[[], None]:
    """Standard action: a grab attempt, an unarmed melee roll at -5 that deals no fatigue loss
    (STANDARD ACTIONS: Grab; R24)."""
    ctx = declare(d, c, args, grab=True)
    return lambda: _roll(d, ctx, "attack", "1d20")


def aim_attack(d: Engine, c: CombatantProfile, args: AttackArgs) -> dict[str, Any]:
    """``get_aim`` of an attack (ruling R107): what the map decides of it, by ``declare``'s
    checks (reach, line of effect, the weapon's range), nothing rolled."""
    return _aimed(d, declare(d, c, args))


def aim_grab(d: Engine, c: CombatantProfile, args: GrabArgs) -> dict[str, Any]:
    """``get_aim`` of a grab (ruling R107), by the same checks as the grab itself."""
    return _aimed(d, declare(d, c, args, grab=True))


def _aimed(d: Engine, ctx: dict[str, Any]) -> dict[str, Any]:
    """The map's facts of an attack declared: none while either stands on no map (the stated
    circumstances count then)."""
    if not battle.on_the_map(d, ctx["attacker"], ctx["target"]):
        return {}
    return {k: ctx[k] for k in ("distance", "cover", "concealment", "into_melee")}


def _roll(d: Engine, ctx: dict[str, Any], stage: str, expr: str) -> None:
    roll_stage(d, ctx, stage, expr)


#: A check that takes 10 (R81): the d20 counts 10, and no die is thrown.
TAKE_10 = roll_faces("1d20", [10])


def _check(d: Engine, ctx: dict[str, Any], stage: str) -> None:
    """The d20 of a check: 10 when it takes 10 (``ctx["take_10"]``, R81), else rolled."""
    if ctx.get("take_10"):
        d.ruleset.after_roll(d, stage, ctx, TAKE_10)
    else:
        _roll(d, ctx, stage, "1d20")


def roll_stage(d: Engine, ctx: dict[str, Any], stage: str, expr: str,
               roller: str | None = None) -> None:
    """Roll the dice of a stage of an action — the server's, or physical dice of whoever rolls
    for ``roller`` (default: the acting combatant) — and resolve the stage once they are in."""
    cid = roller or ctx["attacker"]
    if d.is_manual(cid) and dice_in(expr):  # a constant ("1") needs no dice thrown
        d.request_roll(expr, stage, cid, context=ctx)
    else:
        d.ruleset.after_roll(d, stage, ctx, d.server_roll(expr, stage, cid))


def after_roll(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> bool:
    """The dice of a stage are in: resolve it (and roll the next). ``False``: not a stage of
    combat (the social stages are ``rulesets.dramatic.social``'s)."""
    if stage == "attack":
        _resolve_attack(d, ctx, roll)
    elif stage == "damage":
        _resolve_damage(d, ctx, roll)
    elif stage in ("aid_another", "distraction"):
        _resolve_help(d, ctx, roll)
    elif stage == "ram_damage":
        _resolve_ram(d, ctx, roll)
    elif stage == "break_object":
        _resolve_break(d, ctx, roll)
    elif stage == "harvest":
        _resolve_harvest_check(d, ctx, roll)
    elif stage == "harvest_roll":
        _resolve_harvest_roll(d, ctx, roll)
    else:
        return False
    return True


def harvest(d: Engine, c: CombatantProfile, args: HarvestArgs) -> Callable[[], None]:
    """Standard action: Harvest — a Profession check (``args.skill``, e.g. ``profession_miner``)
    against 10, or the target's Reflex Defense when there is a ``args.target``; on a success the
    harvest roll (``args.weapon``'s damage, or the unarmed die) + 1 per 5 points over the DC,
    doubled after a natural 20, less DR, is the amount of ``args.resource`` gained (R54); a
    result reaching the target's damage threshold moves it a step down (R45)."""
    target = args.target
    if target is not None and (target not in d.s.combatants or not d.may_aim(c.id, target)
                               or not d.s.vitals[target].alive):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.target names what is harvested")
    try:
        vt.sheet_of(c).weapon(args.weapon)
    except SheetError:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.weapon names a weapon of the stat "
                       "block") from None
    ctx = {"action": "harvest", "attacker": c.id, "target": target, "skill": args.skill,
           "resource": args.resource, "weapon": args.weapon, "take_10": args.take_10}
    return lambda: _check(d, ctx, "harvest")


def _resolve_harvest_check(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    cid, target = ctx["attacker"], ctx["target"]
    sheet = vt.sheet_of(d.s.combatants[cid])
    modifier = sheet.skill(ctx["skill"])
    dc = 10
    if target is not None:
        dc = resolution.defenses_of(d, target)[1].reflex.total
    result = harvest_check(roll.total, modifier, dc=dc)
    hidden = d.s.combatants[cid].hidden
    d.emit(ev.CheckMade(combatant=cid, check="harvest", natural=roll.total,
                        modifiers=[Modifier(ctx["skill"], modifier, "STANDARD ACTIONS: Harvest")],
                        total=result.total, dc=dc, success=result.success,
                        section="STANDARD ACTIONS: Harvest", target=target,
                        took_10=bool(ctx.get("take_10")), hidden=hidden),
           ["gm"] if hidden else None)
    if result.success:  # the harvest roll is no check: it takes no 10
        ctx = {**{k: v for k, v in ctx.items() if k != "take_10"}, "natural": roll.total,
               "modifier": modifier, "dc": dc}
        formula = damage_formula(sheet, weapon=ctx["weapon"])
        _roll(d, ctx, "harvest_roll", formula.dice)


def _resolve_harvest_roll(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    cid, target = ctx["attacker"], ctx["target"]
    check = harvest_check(ctx["natural"], ctx["modifier"], dc=ctx["dc"])
    reductions: tuple[Any, ...] = ()
    threshold, track = None, None
    if target is not None:
        t_sheet, t_defs = resolution.defenses_of(d, target)
        reductions = t_sheet.damage_reduction
        threshold = damage_thresholds(t_sheet, t_defs,
                                      resolution.status_of(d, target)).physical.total
        track = vt.to_rules(d.s.vitals[target].physical)
    got = harvest_yield(check, roll.total, reductions=reductions, threshold=threshold,
                        track=track)
    hidden = d.s.combatants[cid].hidden
    formula = damage_formula(vt.sheet_of(d.s.combatants[cid]),
                             weapon=ctx["weapon"])
    d.emit(ev.Harvested(combatant=cid, target=target, resource=ctx["resource"],
                        dice=formula.dice, rolled=roll.total, bonus=got.bonus,
                        doubled=check.critical, reduction=got.doubled - got.result,
                        resources=got.resources, hidden=hidden), ["gm"] if hidden else None)
    if target is not None and got.threshold_reached and got.track_after is not None:
        t_sheet = vt.sheet_of(d.s.combatants[target])
        resolution.record_track(d, target, t_sheet, True, got.track_after,
                                ["the harvest reaches its damage threshold: -1 step (R45)"],
                                "harvest")


def ram(d: Engine, c: CombatantProfile, args: RamArgs) -> Callable[[], None]:
    """Standard action: Ramming (Flying Basic Maneuver; R23) — a melee attack against Reflex;
    on a hit both take the attacker's speed (less the target's when ``args.moving_away``) +
    Strength modifier + the attacker's size damage. ``args.flying``: with the fly speed; with
    the option ``ram_speed_from_distance`` the speeds are ``args.moved`` and
    ``args.target_moved``, the squares moved this turn."""
    ctx = declare(d, c, args)
    # a mover in the air after a flying move rams, or is rammed, at its fly speed (R83)
    ctx.update(action="ram", ram=True, weapon="unarmed",
               flying=args.flying or c.id in d.s.flying, moving_away=args.moving_away,
               target_flying=args.target_flying or args.target in d.s.flying,
               moved=args.moved, target_moved=args.target_moved)
    _ram_formula(d, ctx)  # refuses a flying ram without a fly speed
    if not d.s.options.ram_needs_attack_roll:
        return lambda: _roll(d, {**ctx, "critical": False}, "ram_damage",
                             _ram_formula(d, ctx).dice)
    return lambda: _roll(d, ctx, "attack", "1d20")


def _ram_formula(d: Engine, ctx: dict[str, Any]) -> DamageFormula:
    a = vt.sheet_of(d.s.combatants[ctx["attacker"]])
    t = vt.sheet_of(d.s.combatants[ctx["target"]])
    try:
        return ram_formula(a, t, flying=ctx["flying"], target_flying=ctx["target_flying"],
                           target_moving_away=ctx["moving_away"],
                           distance_moved=ctx.get("moved"),
                           target_distance_moved=ctx.get("target_moved"),
                           ram_speed_from_distance=d.s.options.ram_speed_from_distance)
    except (RuleRefusal, ValueError) as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None


def _resolve_ram(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    attacker, target = ctx["attacker"], ctx["target"]
    formula = _ram_formula(d, ctx)
    a_sheet = vt.sheet_of(d.s.combatants[attacker])
    t_sheet = vt.sheet_of(d.s.combatants[target])
    o = d.s.options
    dealt = damage_dealt(formula, roll.total, critical=bool(ctx.get("critical")),
                         reductions=t_sheet.damage_reduction,
                         dr_respects_minimum_damage=o.dr_respects_minimum_damage)
    back = damage_dealt(formula, roll.total, reductions=a_sheet.damage_reduction,
                        dr_respects_minimum_damage=o.dr_respects_minimum_damage)
    # Ramming: "Both involved suffer the damage" (R23: a natural 20 doubles the target's only)
    for who, dmg, note in ((target, dealt, "rammed"), (attacker, back, "the ram's impact")):
        record_damage(d, who, attacker, formula, roll, dmg)
        resolution.lose_fatigue(d, who, dmg.dealt, formula.source, "ram", [note])


def record_damage(d: Engine, target: str, source: str | None, formula: DamageFormula,
                   roll: Roll, dmg: Any) -> None:
    hidden = d.s.combatants[target].hidden or (source is not None
                                                and d.s.combatants[source].hidden)
    dr = dmg.reduction
    d.emit(ev.DamageDealt(
        target=target, source=source, damage=formula.source.value,
        types=list(formula.damage_types), dice=formula.dice, rolled=dmg.dice_total,
        bonuses=list(formula.parts), critical=dmg.critical,
        before_reduction=dmg.after_minimum, reduction=dmg.reduced_by,
        reduction_label=(f"DR {dr.value}" + (f"/{' or '.join(dr.bypass)}" if dr.bypass else "")
                         if dr else None),
        loss=dmg.dealt, dice_secret=source is not None and d.dice_vis(source) is not None,
        hidden=hidden), ["gm"] if hidden else None)


def break_object(d: Engine, c: CombatantProfile, args: BreakArgs) -> Callable[[], None]:
    """Standard action: Breaking an Object — a Strength check (1d20 + Strength modifier + the
    stat block's ``physical_base_bonus`` skill) against DC 15 + the object's Strength modifier
    (with its condition penalty); success breaks it (destroyed, R15)."""
    target = args.target
    if target not in d.s.combatants or target == c.id or not d.may_aim(c.id, target):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.target names the object to break")
    t = d.s.combatants[target]
    if vt.sheet_of(t).nature is Nature.CREATURE:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{t.name} is a creature, not an object "
                      "(Breaking an Object)")
    if not d.s.vitals[target].alive:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{t.name} is destroyed already")
    ctx = {"action": "break_object", "attacker": c.id, "target": target,
           "take_10": args.take_10}
    return lambda: _check(d, ctx, "break_object")


def _resolve_break(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    cid, target = ctx["attacker"], ctx["target"]
    sheet = vt.sheet_of(d.s.combatants[cid])
    obj = vt.sheet_of(d.s.combatants[target])
    section = "STANDARD ACTIONS: Breaking an Object"
    parts = [Modifier("Strength modifier", sheet.mod("str"), section),
             Modifier("Physical Base Bonus", sheet.physical_base, section),
             *resolution.status_of(d, cid).condition_modifiers()]
    dc = break_dc(obj, vt.to_rules(d.s.vitals[target].physical))
    total = roll.total + sum(p.value for p in parts)
    success = break_succeeds(dc, total)
    hidden = d.s.combatants[cid].hidden or d.s.combatants[target].hidden
    d.emit(ev.CheckMade(combatant=cid, check="break_object", natural=roll.total,
                        modifiers=parts, total=total, dc=dc.dc, success=success,
                        section=section, target=target, took_10=bool(ctx.get("take_10")),
                        hidden=hidden),
           ["gm"] if hidden else None)
    if success:
        vt.record(d, target, "broken", [f"broken by {d.public_name(cid, target)} ({section})"],
                  physical=Track(step=BOTTOM), condition_events=("wrecked",))


def _helper_ctx(d: Engine, c: CombatantProfile, args: HelpArgs,
                action: str) -> dict[str, Any]:
    target = args.target
    if target not in d.s.combatants or target == c.id or not d.may_aim(c.id, target):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.target names another combatant")
    return {"action": action, "attacker": c.id, "target": target, "skill": args.skill,
            "take_10": args.take_10}


def aid_another(d: Engine, c: CombatantProfile, args: HelpArgs) -> Callable[[], None]:
    """Standard action: aid an ally's next check — a check of the same kind against 10; on a
    success the ally gets +2 (STANDARD ACTIONS: Aid Another; R11). ``args.skill`` names the
    skill (default ``melee``: aiding an attack)."""
    if args.take_10:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, _NO_TAKE_10_TO_AID)
    ctx = {**_helper_ctx(d, c, args, "aid_another"), "no_take_10": _NO_TAKE_10_TO_AID}
    return lambda: _roll(d, ctx, "aid_another", "1d20")


_NO_TAKE_10_TO_AID = ("Aiding a Skill Check or Ability Check: \"You can't take 10 on a skill "
                      "check or ability check to aid another\" (ruling R81)")


def distraction(d: Engine, c: CombatantProfile, args: HelpArgs) -> Callable[[], None]:
    """Standard action: a check against 10; on a success the target takes -2 on its next skill
    roll (STANDARD ACTIONS: Distraction; R11)."""
    ctx = _helper_ctx(d, c, args, "distraction")
    return lambda: _check(d, ctx, "distraction")


def _resolve_help(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    cid, target, skill = ctx["attacker"], ctx["target"], ctx["skill"]
    c = d.s.combatants[cid]
    sheet = vt.sheet_of(c)
    value = sheet.skill(skill)
    parts = [Modifier(f"{skill} skill", value, "STANDARD ACTIONS: " + (
        "Aid Another (R11)" if ctx["action"] == "aid_another" else "Distraction (R11)"))]
    parts += resolution.status_of(d, cid).condition_modifiers()
    total = roll.total + sum(p.value for p in parts)
    hidden = c.hidden or d.s.combatants[target].hidden
    d.emit(ev.CheckMade(combatant=cid, check=ctx["action"], natural=roll.total, modifiers=parts,
                        total=total, dc=10, success=aid_succeeds(total), section=parts[0].section,
                        target=target, took_10=bool(ctx.get("take_10")), hidden=hidden),
           ["gm"] if hidden else None)


def _resolve_attack(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    attacker, target = ctx["attacker"], ctx["target"]
    chk = check(d, ctx)
    natural = roll.natural if roll.natural is not None else roll.total
    out = attack_outcome(chk, natural)
    outcome: Literal["hit", "critical", "miss", "automatic_miss"] = (
        "critical" if out.critical else "hit" if out.hit
        else "automatic_miss" if out.automatic == "miss" else "miss")
    hidden = d.s.combatants[attacker].hidden or d.s.combatants[target].hidden
    d.emit(ev.AttackResolved(
        round=d.s.round, attacker=attacker, target=target, action=ctx["action"],
        weapon=chk.weapon, defense=chk.defense.name.value,
        natural=natural, modifiers=list(chk.parts), total=out.total,
        defense_value=out.defense, defense_parts=list(chk.defense.parts), outcome=outcome,
        roll_secret=d.dice_vis(attacker) is not None,
        defense_secret=d.s.combatants[target].kind == "npc",
        hidden=hidden), ["gm"] if hidden else None)
    if out.hit and ctx.get("ram"):
        ctx = {**ctx, "critical": out.critical}
        _roll(d, ctx, "ram_damage", _ram_formula(d, ctx).dice)
    elif out.hit and ctx["grab"]:
        d.emit(ev.GrabChanged(grabber=attacker, target=target, held=True, hidden=hidden),
               ["gm"] if hidden else None)
    elif out.hit:
        ctx = {**ctx, "critical": out.critical}
        formula = _damage_formula(d, ctx)
        _roll(d, ctx, "damage", formula.dice)


def _damage_formula(d: Engine, ctx: dict[str, Any]) -> DamageFormula:
    """DAMAGE (R12); ``args.engage``: a flying Engage, the same damage unless the option
    ``engage_adds_half_level`` is off (Flying Basic Maneuver: Engage)."""
    sheet = vt.sheet_of(d.s.combatants[ctx["attacker"]])
    formula = damage_formula(sheet, weapon=ctx["weapon"], throw=ctx["throw"],
                             engage=bool(ctx.get("engage")),
                             engage_adds_half_level=d.s.options.engage_adds_half_level)
    extra = effect_parts(sheet, resolution.status_of(d, ctx["attacker"]), "damage")  # R90
    if not extra:
        return formula
    parts = (*formula.parts, *extra)
    return msgspec.structs.replace(formula, parts=parts, bonus=sum(p.value for p in parts))


def _reductions(d: Engine, target: str, source: DamageSource) -> tuple[DamageReduction, ...]:
    """The target's damage reductions, each changed by its effects on ``damage_reduction``;
    with none that applies, the effects' own (R90)."""
    sheet = vt.sheet_of(d.s.combatants[target])
    change = sum(p.value for p in effect_parts(sheet, resolution.status_of(d, target),
                                               "damage_reduction"))
    if not change:
        return sheet.damage_reduction
    return (*(msgspec.structs.replace(dr, value=max(0, dr.value + change))
              for dr in sheet.damage_reduction),
            DamageReduction(value=max(0, change), source=source))


def _resolve_damage(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    attacker, target = ctx["attacker"], ctx["target"]
    t_sheet = vt.sheet_of(d.s.combatants[target])
    formula = _damage_formula(d, ctx)
    dmg = damage_dealt(formula, roll.total, critical=bool(ctx.get("critical")),
                       reductions=_reductions(d, target, formula.source),
                       dr_respects_minimum_damage=d.s.options.dr_respects_minimum_damage)
    record_damage(d, target, attacker, formula, roll, dmg)
    if t_sheet.nature is not Nature.CREATURE:
        _structure_loss(d, target, dmg.dealt, formula.fierce, attacker)
        return
    by = d.public_name(attacker, target, "an unseen attacker")
    resolution.lose_fatigue(d, target, dmg.dealt, formula.source, "attack", [f"hit by {by}"])


def _structure_loss(d: Engine, target: str, loss: int, fierce: bool, attacker: str) -> None:
    """Destructive Harvest (R46): a fierce hit's loss adds up on the object; every damage
    threshold of it moves the object a step down; at the bottom it is destroyed."""
    v = d.s.vitals[target]
    sheet, defs = resolution.defenses_of(d, target)
    threshold = damage_thresholds(sheet, defs,
                                  resolution.status_of(d, target)).physical.total
    try:
        result = structure_loss(v.structure_loss, loss, threshold, vt.to_rules(v.physical),
                                fierce=fierce)
    except RuleRefusal:
        return
    by = d.public_name(attacker, target, "an unseen attacker")
    notes = [f"hit by {by}: structure loss {result.loss}"
             + ("" if fierce else " (not a fierce weapon: none)")
             + f", {result.accumulated_after} toward the threshold of {threshold} (R46)"]
    if result.steps:
        notes.append(f"{result.steps} step(s) down the track")
    vt.record(d, target, "structure_loss", notes, physical=result.track_after,
              structure_loss=result.accumulated_after,
              condition_events=("wrecked",) if result.destroyed else ())


def is_ranged(d: Engine, cid: str, weapon: str) -> bool:
    try:
        w = vt.sheet_of(d.s.combatants[cid]).weapon(weapon)
    except SheetError:
        return False
    return w.kind is WeaponKind.RANGED
