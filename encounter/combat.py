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

from encounter import battle, resolution
from encounter import vitals as vt
from protocol import events as ev
from protocol import messages as msg
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
from rules.damage import damage_dealt, damage_formula
from rules.defenses import DefenseName
from rules.dice import Roll
from rules.grab import grab_check
from rules.modifiers import Modifier, RuleRefusal
from rules.sheet import SheetError, WeaponKind

if TYPE_CHECKING:
    from encounter.engine import Decision


def _reject(code: ErrorCode, message: str) -> Exception:
    from encounter.engine import Rejected

    return Rejected(code, message)


def _choice(args: dict[str, Any], name: str, enum: Any, default: Any) -> Any:
    value = args.get(name, default)
    try:
        return enum(value)
    except ValueError:
        raise _reject(ErrorCode.INVALID_PAYLOAD, f"args.{name} is one of "
                      f"{', '.join(e.value for e in enum)}") from None


def declare(d: Decision, c: CombatantProfile, cmd: msg.Act, *, grab: bool = False
            ) -> dict[str, Any]:
    """The attack as plain data, checked: the target, the weapon, and the circumstances the GM
    or the player states (range or distance, cover, concealment, into melee)."""
    args = cmd.args
    target = args.get("target")
    if not isinstance(target, str) or target not in d.s.combatants or (
            d.s.combatants[target].hidden and not c.hidden):
        raise _reject(ErrorCode.INVALID_PAYLOAD, "args.target names the combatant attacked")
    if target == c.id:
        raise _reject(ErrorCode.ILLEGAL_ACTION, "a combatant cannot attack itself")
    if not d.s.vitals[target].alive:
        raise _reject(ErrorCode.ILLEGAL_ACTION,
                      f"{d.s.combatants[target].name} is {d.s.vitals[target].condition[0]}")
    weapon = args.get("weapon", "unarmed")
    if not isinstance(weapon, str):
        raise _reject(ErrorCode.INVALID_PAYLOAD, "args.weapon names a weapon of the stat block")
    distance = args.get("distance")
    if distance is not None and (isinstance(distance, bool) or not isinstance(distance, int)
                                 or distance < 0):
        raise _reject(ErrorCode.INVALID_PAYLOAD, "args.distance is a whole number of squares")
    for flag in ("throw", "into_melee", "creatures_in_the_way"):
        if not isinstance(args.get(flag, False), bool):
            raise _reject(ErrorCode.INVALID_PAYLOAD, f"args.{flag} is true or false")
    ctx: dict[str, Any] = {
        "action": "grab" if grab else "attack",
        "attacker": c.id,
        "target": target,
        "weapon": weapon,
        "throw": bool(args.get("throw", False)),
        "grab": grab,
        "defense": _choice(args, "defense", DefenseName, "reflex").value,
        "range": _choice(args, "range", RangeBand, None).value if "range" in args else None,
        "distance": distance,
        "cover": _choice(args, "cover", Cover, "none").value,
        "concealment": _choice(args, "concealment", Concealment, "none").value,
        "into_melee": bool(args.get("into_melee", False)),
        "creatures_in_the_way": bool(args.get("creatures_in_the_way", False)),
    }
    try:
        sheet = vt.sheet_of(c, d.s.ruleset)
        kind = sheet.weapon(weapon).kind
    except SheetError as exc:
        raise _reject(ErrorCode.INVALID_PAYLOAD, str(exc)) from None
    ctx.update(battle.attack_situation(d, ctx, kind, sheet.reach_squares))  # the map decides
    check(d, ctx)  # refuses what the rules refuse (total cover, out of range) before acting
    return ctx


def check(d: Decision, ctx: dict[str, Any]) -> AttackCheck:
    attacker, target = ctx["attacker"], ctx["target"]
    a_sheet = vt.sheet_of(d.s.combatants[attacker], d.s.ruleset)
    t_sheet = vt.sheet_of(d.s.combatants[target], d.s.ruleset)
    situation = Situation(
        defense=DefenseName(ctx["defense"]), distance=ctx["distance"],
        range_band=RangeBand(ctx["range"]) if ctx["range"] else None,
        cover=Cover(ctx["cover"]), concealment=Concealment(ctx["concealment"]),
        into_melee=ctx["into_melee"], creatures_in_the_way=ctx["creatures_in_the_way"],
        aiders=len(d.s.aid.get(attacker, [])),
        unaware=not d.s.combatants[target].aware and d.s.surprise)
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
        return attack_check(
            a_sheet, t_sheet, weapon=ctx["weapon"], throw=ctx["throw"],
            attacker_status=resolution.status_of(d, attacker),
            target_status=resolution.status_of(d, target), situation=situation,
            creatures_block_line_of_sight=o.creatures_block_line_of_sight,
            prone_helpless_bonuses_stack=o.prone_helpless_bonuses_stack,
            non_dexterous_penalty=o.non_dexterous_penalty)
    except (RuleRefusal, SheetError) as exc:
        raise _reject(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    except ValueError as exc:
        raise _reject(ErrorCode.INVALID_PAYLOAD, str(exc)) from None


def attack(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    """Standard action: an attack with a weapon, unarmed or natural attack (ATTACK ROLL)."""
    ctx = declare(d, c, cmd)
    return lambda: _roll(d, ctx, "attack", "1d20")


def grab(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    """Standard action: a grab attempt, an unarmed melee roll at -5 that deals no fatigue loss
    (STANDARD ACTIONS: Grab; R24)."""
    ctx = declare(d, c, cmd, grab=True)
    return lambda: _roll(d, ctx, "attack", "1d20")


def _roll(d: Decision, ctx: dict[str, Any], stage: str, expr: str) -> None:
    cid = ctx["attacker"]
    if d.is_manual(cid):
        d.request_roll(expr, stage, cid, context=ctx)
    else:
        after_roll(d, stage, ctx, d.server_roll(expr, stage, cid))


def after_roll(d: Decision, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    """The dice of a stage are in: resolve it (and roll the next)."""
    if stage == "attack":
        _resolve_attack(d, ctx, roll)
    elif stage == "damage":
        _resolve_damage(d, ctx, roll)
    elif stage in ("aid_another", "distraction"):
        _resolve_help(d, ctx, roll)


def _helper_ctx(d: Decision, c: CombatantProfile, cmd: msg.Act, action: str) -> dict[str, Any]:
    target = cmd.args.get("target")
    if not isinstance(target, str) or target not in d.s.combatants or target == c.id or (
            d.s.combatants[target].hidden and not c.hidden):
        raise _reject(ErrorCode.INVALID_PAYLOAD, "args.target names another combatant")
    skill = cmd.args.get("skill", "melee")
    if not isinstance(skill, str) or not 1 <= len(skill) <= 40:
        raise _reject(ErrorCode.INVALID_PAYLOAD, "args.skill names the skill of the check")
    return {"action": action, "attacker": c.id, "target": target, "skill": skill}


def aid_another(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    """Standard action: aid an ally's next check — a check of the same kind against 10; on a
    success the ally gets +2 (STANDARD ACTIONS: Aid Another; R11). ``args.skill`` names the
    skill (default ``melee``: aiding an attack)."""
    ctx = _helper_ctx(d, c, cmd, "aid_another")
    return lambda: _roll(d, ctx, "aid_another", "1d20")


def distraction(d: Decision, c: CombatantProfile, cmd: msg.Act) -> Callable[[], None]:
    """Standard action: a check against 10; on a success the target takes -2 on its next skill
    roll (STANDARD ACTIONS: Distraction; R11)."""
    ctx = _helper_ctx(d, c, cmd, "distraction")
    return lambda: _roll(d, ctx, "distraction", "1d20")


def _resolve_help(d: Decision, ctx: dict[str, Any], roll: Roll) -> None:
    cid, target, skill = ctx["attacker"], ctx["target"], ctx["skill"]
    c = d.s.combatants[cid]
    sheet = vt.sheet_of(c, d.s.ruleset)
    value = sheet.skill(skill)
    parts = [Modifier(f"{skill} skill", value, "STANDARD ACTIONS: " + (
        "Aid Another (R11)" if ctx["action"] == "aid_another" else "Distraction (R11)"))]
    parts += resolution.status_of(d, cid).condition_modifiers()
    total = roll.total + sum(p.value for p in parts)
    hidden = c.hidden or d.s.combatants[target].hidden
    d.emit(ev.CheckMade(combatant=cid, check=ctx["action"], natural=roll.total, modifiers=parts,
                        total=total, dc=10, success=aid_succeeds(total), section=parts[0].section,
                        target=target, hidden=hidden), ["gm"] if hidden else None)


def _resolve_attack(d: Decision, ctx: dict[str, Any], roll: Roll) -> None:
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
    if out.hit and ctx["grab"]:
        d.emit(ev.GrabChanged(grabber=attacker, target=target, held=True, hidden=hidden),
               ["gm"] if hidden else None)
    elif out.hit:
        ctx = {**ctx, "critical": out.critical}
        formula = damage_formula(vt.sheet_of(d.s.combatants[attacker], d.s.ruleset),
                                 weapon=ctx["weapon"], throw=ctx["throw"])
        _roll(d, ctx, "damage", formula.dice)


def _resolve_damage(d: Decision, ctx: dict[str, Any], roll: Roll) -> None:
    attacker, target = ctx["attacker"], ctx["target"]
    a_sheet = vt.sheet_of(d.s.combatants[attacker], d.s.ruleset)
    t_sheet = vt.sheet_of(d.s.combatants[target], d.s.ruleset)
    formula = damage_formula(a_sheet, weapon=ctx["weapon"], throw=ctx["throw"])
    dmg = damage_dealt(formula, roll.total, critical=bool(ctx.get("critical")),
                       reductions=t_sheet.damage_reduction,
                       dr_respects_minimum_damage=d.s.options.dr_respects_minimum_damage)
    hidden = d.s.combatants[attacker].hidden or d.s.combatants[target].hidden
    dr = dmg.reduction
    d.emit(ev.DamageDealt(
        target=target, source=attacker, damage=formula.source.value,
        types=list(formula.damage_types), dice=formula.dice, rolled=dmg.dice_total,
        bonuses=list(formula.parts), critical=dmg.critical,
        before_reduction=dmg.after_minimum, reduction=dmg.reduced_by,
        reduction_label=(f"DR {dr.value}" + (f"/{' or '.join(dr.bypass)}" if dr.bypass else "")
                         if dr else None),
        loss=dmg.dealt, dice_secret=d.dice_vis(attacker) is not None, hidden=hidden),
           ["gm"] if hidden else None)
    resolution.lose_fatigue(d, target, dmg.dealt, formula.source, "attack",
                            [f"hit by {d.s.combatants[attacker].name}"])


def is_ranged(d: Decision, cid: str, weapon: str) -> bool:
    try:
        w = vt.sheet_of(d.s.combatants[cid], d.s.ruleset).weapon(weapon)
    except SheetError:
        return False
    return w.kind is WeaponKind.RANGED
