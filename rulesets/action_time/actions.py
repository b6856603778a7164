""""Action Time" in the encounter engine: what each action does, as events (Major Actions,
Minor Actions, Taking Actions, Stacking Effects; rulings R29-R39, R51, R60-R62).

The engine is the same as for "MLP Dramatic Systems" (``encounter.turns``): the ``act``
command spends the turn's budget (a major action is a standard action, a minor action a move
action: ``rules.action_time.catalog``), a resolver from this module checks the action before
anything is recorded and returns what to do after the ``action_taken`` event. The mechanics are
those of ``rules.action_time``; this module reads the state for them and records the outcome:

- **Health** is the combatant's ``Vitals.fatigue`` (``fatigue_max`` the maximum; see
  ``rules.action_time.state``), changed with ``vitals_changed`` events.
- **Effects** (Defend, Guard Up, Aim, All-Out Attack's penalty, Stand Firm, Press the Attack,
  the "struck in melee" and "healed" marks) are ``at_effect_started`` / ``at_effect_ended``
  events; the one stacking rule of ``rules.action_time.effects`` counts them (R51, R61). They end
  at the start of their holder's turn, at the end of the round, or when used up
  (:func:`turn_started`, :func:`round_ending`).
- **Dice**: an attack rolls its ability die (upgraded and downgraded, R30) against the target's
  Defense (R29), then the damage die on a hit; Heal rolls the Mind die against Difficulty 4
  (R33); a stunt against one who Stands Firm rolls both Body dice (R38). Each die comes from the
  server or from physical dice (``roll_requested`` with a ``context`` that
  :func:`after_roll` gets back), as in ``rulesets.dramatic.combat``.
- **Interrupts** reuse the readied-action mechanism of the encounter chart: Prepare records
  an ``action_readied`` event naming the major action, which its holder takes with
  ``trigger_ready`` until its next turn starts (R36); Press the Attack readies the free
  ``pursue`` action and interrupts the enemy's turn as soon as it moves away (R37).
- **Distances**: the server keeps no map. An attack, Heal or Press the Attack states the yards
  to its target in ``args.distance`` (default: adjacent, within 2 yards); a ranged attack must
  state it. A movement states ``args.yards`` and whom it moves ``args.away_from``.

Each action is declared once in :data:`CATALOG` (``encounter.declare``): its name, label, rule
section and kind come from ``rules.action_time.actions.ACTIONS``; its arguments are the structs
of ``rulesets.action_time.args``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from encounter.declare import Action, Catalog, Noted, Targets, in_scene
from encounter.effects import source_unseen
from encounter.rejected import Rejected
from encounter.state import EncounterState, Vitals
from encounter.turns import END_TURN, TRIGGER_READY
from protocol import events as ev
from protocol.errors import ErrorCode
from protocol.events import Track
from protocol.model import CombatantProfile
from rules.action_time import actions as at
from rules.action_time.catalog import KIND_OF, rules_name
from rules.action_time.checks import Planned
from rules.action_time.dice_ladder import Laddered, die_name, face_total
from rules.action_time.effects import (
    ATTACK_STEPS,
    DAMAGE_STEPS,
    DEFENSE,
    PURSUIT,
    TEST_STEPS,
    UNTIL_REMOVED,
    Effect,
    Net,
    at_round_end,
    net,
    start_of_next_turn,
)
from rules.action_time.health import Vitals as AtVitals
from rules.action_time.health import restore, take_damage
from rules.action_time.options import AtOptions
from rules.action_time.sheet import Sheet, SheetError, parse_sheet
from rules.action_time.turn_budget import ActionKind, TurnBudget, spend
from rules.actions import Budget, IllegalAction, Kind
from rules.dice import Roll
from rules.effects import normalise_name
from rules.modifiers import Modifier
from rulesets.action_time.args import (
    AttackArgs,
    CastArgs,
    ChargeArgs,
    GuardUpArgs,
    HealArgs,
    MoveArgs,
    PrepareArgs,
    PressArgs,
    PursueArgs,
    RangedAttackArgs,
    ReadyItemArgs,
    ReloadArgs,
    RunArgs,
    StuntArgs,
)
from statemachines.condition_chart import condition_after

if TYPE_CHECKING:
    from encounter.boundary import Engine

Thunk = Callable[[], None]

#: Marks kept as effects: "already successfully struck in a melee scuffle this turn" (Press the
#: Attack, R37) and "cannot benefit from another heal action until they take additional damage"
#: (Heal, R33). They modify nothing; the stacking rule never counts them.
STRUCK = "struck"
HEALED = "healed"

_ATTACKS = ("melee_attack", "ranged_attack", "all_out_attack", "charge")
_MELEE = ("melee_attack", "all_out_attack", "charge")

#: Where each effect's rule is, for itemised modifiers.
_SECTIONS = {
    "Aim": "Minor Actions: AIM (R35)",
    "Charge": "Major Actions: CHARGE (R62)",
    "Guard Up": "Minor Actions: GUARD UP",
    "Defend": "Major Actions: DEFEND",
    "All-Out Attack": "Major Actions: ALL-OUT ATTACK",
}


def _illegal(message: str) -> Exception:
    return Rejected(ErrorCode.ILLEGAL_ACTION, message)


# --------------------------------------------------------------------------- reading the state


def options(s: EncounterState) -> AtOptions:
    """The Action Time options, from the encounter's (R30, R33, R38, R60)."""
    o = s.options
    return AtOptions(die_ladder_overflow=o.die_ladder_overflow,
                     heal_rolls_again=o.heal_rolls_again, heal_self=o.heal_self,
                     opposed_tie_reroll=o.opposed_tie_reroll,
                     default_speed_yards=o.default_speed_yards)


def sheet_of(s: EncounterState, cid: str) -> Sheet:
    """The combatant's Action Time stat sheet (validated when it was added, R60)."""
    return parse_sheet(s.combatants[cid].stats, options(s))


def initial_vitals(profile: CombatantProfile) -> Vitals:
    """A combatant as it joins: full Health (R29) in the ``fatigue`` fields; no condition
    tracks. A stat block without ``health`` has 0 of 0: it cannot be attacked or healed."""
    try:
        health = parse_sheet(profile.stats).health or 0
    except SheetError:  # pragma: no cover - refused when the combatant was added
        health = 0
    return Vitals(fatigue=health, fatigue_max=health, physical=Track(), mental=None)


def out_of_fight(s: EncounterState, cid: str) -> bool:
    """R29: at 0 Health a combatant is out of the fight until healed above 0."""
    v = s.vitals.get(cid)
    return v is not None and v.fatigue_max > 0 and v.fatigue <= 0


def effects(s: EncounterState) -> tuple[Effect, ...]:
    return tuple(s.action_time.effects)


#: What an effect may change in "Action Time" (``add_effect``, R90), and the rules' targets.
EFFECT_TARGETS: dict[str, str] = {
    "defense": "Defense, the Difficulty of attacks on the holder (R29)",
    "test_steps": "upgrades (+) and downgrades (-) of every test the holder makes, attacks "
                  "and opposed tests included (R30)",
    "attack_steps": "upgrades and downgrades of the holder's attack die (R30)",
    "damage_steps": "upgrades and downgrades of the holder's damage die (R30)",
    "extra_damage_die": "a die (\"d6\") added to the damage of the holder's hits (Stacking "
                        "Effects: Backstab, frost weapons; R95)",
    "speed": "the holder's Speed, in yards (R60)",
}
_RULES_TARGET = {"defense": DEFENSE, "test_steps": TEST_STEPS, "attack_steps": ATTACK_STEPS,
                 "damage_steps": DAMAGE_STEPS}


def _granted(s: EncounterState) -> list[tuple[str, str, str, str, str, int | str]]:
    """(holder, kind, source, origin, target, amount) of every modifier held now: the talents
    of each stat block, then the GM's effects and cast spells (``effect_started``)."""
    out: list[tuple[str, str, str, str, str, int | str]] = []
    for cid, c in s.combatants.items():
        if not c.stats.get("talents"):
            continue
        for t in sheet_of(s, cid).talents:
            out += [(cid, "talent", t.name, cid, m.target, m.amount) for m in t.grants()]
    for e in s.effects.values():
        if e.combatant is not None:
            out += [(e.combatant, e.source_kind, e.source or e.name, e.origin or "", m.target,
                     m.amount) for m in e.modifiers]
    return out


def numbers(s: EncounterState) -> tuple[Effect, ...]:
    """The effects the numbers of attacks, tests and Defense read: Action Time's own (the
    stances) and every effect's and talent's modifiers on Defense and die steps, one stacking
    rule for all (Stacking Effects, R61, R91)."""
    more = tuple(Effect(holder=holder, target=_RULES_TARGET[target], value=amount,
                        source_kind=kind, source=source, expiry=UNTIL_REMOVED, origin=origin)
                 for holder, kind, source, origin, target, amount in _granted(s)
                 if target in _RULES_TARGET and isinstance(amount, int))
    return (*s.action_time.effects, *more)


def speed_of(s: EncounterState, cid: str) -> int:
    """Speed (R60) with the effects on ``speed`` (R90); of the very same source, one counts."""
    return max(0, sheet_of(s, cid).speed + sum(amount for _, amount in speed_parts(s, cid)))


def extra_dice(s: EncounterState, cid: str, *, melee: bool) -> list[tuple[str, str]]:
    """(source, die) of the extra damage dice of ``cid``'s hit: of different sources, every
    die; of the very same source (two casts of one spell), one (Stacking Effects, R91, R95).
    Backstab's only on melee hits (R95)."""
    seen: dict[tuple[str, str], str] = {}
    for holder, kind, source, _o, target, amount in _granted(s):
        if holder != cid or target != "extra_damage_die" or not isinstance(amount, str):
            continue
        if kind == "talent" and normalise_name(source) == "backstab" and not melee:
            continue
        seen.setdefault((kind, normalise_name(source)), source + "|" + amount.lower())
    return [tuple(v.split("|", 1)) for v in seen.values()]  # type: ignore[misc]


def _marks(s: EncounterState, holder: str, target: str) -> list[Effect]:
    return [e for e in s.action_time.effects if e.holder == holder and e.target == target]


def health_of(s: EncounterState, cid: str) -> AtVitals | None:
    """Health as the rules read it, with the healed mark (R33); ``None`` without Health."""
    v = s.vitals[cid]
    if v.fatigue_max <= 0:
        return None
    return AtVitals(health=v.fatigue, max_health=v.fatigue_max,
                    healed=bool(_marks(s, cid, HEALED)))


def in_hoof(s: EncounterState, cid: str) -> frozenset[str]:
    """What the combatant holds: as the stat block starts (R60), or as Ready left it."""
    held = s.action_time.in_hoof.get(cid)
    if held is not None:
        return frozenset(held)
    return at.in_hoof_at_start(sheet_of(s, cid))


def _budget(d: Engine) -> TurnBudget:
    """The turn so far as Action Time counts it. A minor action takes the minor slot first, so
    a free minor slot with the major slot gone means a major action was taken (R51)."""
    turn = d.s.turn
    if turn is None:
        return TurnBudget()
    majors = 0 if turn.budget["major"] else 1
    return TurnBudget(majors=majors, minors=0 if turn.budget["minor"] else 1)


def budget_refusal(budget: Budget, spec: Action) -> str:
    """Why the turn's budget refuses ``spec``, as Action Time says it (Taking Actions, R51).
    A minor action takes the minor slot first: the major slot gone with the minor slot free
    means a major action was taken."""
    if not budget["major"] and not budget["minor"]:
        return ("no action left: a turn is a major and a minor action, or two minor actions "
                "(Taking Actions, ruling R51)")
    kind = next(k for k, v in KIND_OF.items() if v is spec.cost)
    try:
        spend(TurnBudget(majors=0 if budget["major"] else 1, minors=0 if budget["minor"] else 1),
              kind, spec.name)
    except IllegalAction as exc:
        return str(exc)
    return "the turn has no action of that kind left (Taking Actions, ruling R51)"


def _major_taken(s: EncounterState) -> bool:
    return s.turn is not None and not s.turn.budget["major"]


# --------------------------------------------------------------------------- recording


def _vis(d: Engine, cid: str) -> ev.Visibility:
    return d.combatant_vis(cid)


def start_effect(d: Engine, effect: Effect) -> None:
    hidden = d.hidden(effect.holder)
    d.emit(ev.AtEffectStarted(effect=effect, hidden=hidden,
                              origin_hidden=not hidden and d.hidden(effect.origin)),
           _vis(d, effect.holder))


def end_effect(d: Engine, effect: Effect, reason: Any) -> None:
    hidden = d.hidden(effect.holder)
    d.emit(ev.AtEffectEnded(effect=effect, reason=reason, hidden=hidden,
                            origin_hidden=not hidden and d.hidden(effect.origin)),
           _vis(d, effect.holder))


def _used_by_action(d: Engine, cid: str, action: str) -> None:
    """R35: a major or minor action uses up Aim (whatever it is); free actions use nothing."""
    for e in at.after_action(effects(d.s), cid, rules_name(action)).ended:
        end_effect(d, e, "used")


def set_health(d: Engine, cid: str, health: int, cause: str, notes: list[str],
               prone: bool | None = None) -> None:
    """Record the combatant's Health (R29: not below 0, out of the fight at 0) or stance."""
    v = d.s.vitals[cid]
    c = d.s.combatants[cid]
    condition = v.condition
    if v.fatigue_max > 0:
        if health <= 0 and condition == ("active", "fit"):
            condition = condition_after(condition, "exhausted", 0)
        elif health > 0 and condition == ("active", "defenseless"):
            condition = condition_after(condition, "refreshed", health)
    d.emit(ev.VitalsChanged(
        combatant=cid, cause=cause, fatigue=health, fatigue_max=v.fatigue_max,
        physical=v.physical, mental=v.mental, condition=list(condition),
        prone=v.prone if prone is None else prone, helpless=v.helpless,
        bound_or_asleep=v.bound_or_asleep, notes=notes,
        fatigue_secret=c.kind == "npc", hidden=c.hidden), _vis(d, cid))


def _moved(d: Engine, cid: str, action: str, yards: int, movement: at.Movement,
           away_from: list[str]) -> None:
    c = d.s.combatants[cid]
    d.emit(ev.AtMoved(combatant=cid, action=action, yards=yards, max_yards=movement.yards,
                      reason=movement.reason, away_from=away_from, hidden=c.hidden),
           _vis(d, cid))


# --------------------------------------------------------------------------- arguments


def _target(d: Engine, c: CombatantProfile, target: str, what: str = "target") -> str:
    if target not in d.s.combatants or not d.may_aim(c.id, target):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"args.target names the {what}")
    return target


def _away_from(d: Engine, c: CombatantProfile, away: list[str]) -> list[str]:
    if not all(a in d.s.combatants and d.may_aim(c.id, a) for a in away):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.away_from lists the combatants the "
                       "movement takes it farther from")
    return list(dict.fromkeys(away))


def _able(s: EncounterState, cid: str) -> str | None:
    """R29: at 0 Health a combatant's turns pass without actions, and it takes none."""
    if out_of_fight(s, cid):
        return (f"{s.combatants[cid].name} is at 0 Health: out of the fight until healed "
                "(ruling R29)")
    return None


def _rules(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except (IllegalAction, SheetError) as exc:
        raise _illegal(str(exc)) from None


# --------------------------------------------------------------------------- dice


def _roll(d: Engine, ctx: dict[str, Any], stage: str, expr: str, cid: str) -> None:
    if d.is_manual(cid):
        d.request_roll(expr, stage, cid, context=ctx)
    else:
        after_roll(d, stage, ctx, d.server_roll(expr, stage, cid))


def _plain(value: Any) -> Any:
    """``value`` as the JSON it is stored as (a roll's ``context`` must fold back equal)."""
    return msgspec.json.decode(msgspec.json.encode(value))


def _face(roll: Roll) -> int:
    return roll.dice[0].face if roll.dice else roll.total


def after_roll(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    """The dice of a stage are in: resolve it (and roll the next)."""
    handler = _STAGES.get(stage)
    if handler is None:  # pragma: no cover - a context this module did not write
        raise RuntimeError(f"no Action Time stage {stage!r}")
    if stage == "damage" and ctx.get("extra_dice"):  # the extra dice follow the first (R95)
        _resolve_damage(d, ctx, _face(roll), tuple(x.face for x in roll.dice[1:]))
        return
    handler(d, ctx, _face(roll))


def shown_sources(s: EncounterState, holder: str) -> dict[str, str]:
    """What results call the sources of ``holder``'s effects where they do not give the source
    itself: a GM's effect that a combatant the table does not see caused on one it sees goes by
    its name (rulings R79, R97; ``encounter.effects.source_unseen``)."""
    return {e.source: e.name or "an effect" for e in s.effects.values()
            if e.combatant == holder and e.source and source_unseen(s, e)}


def _step_parts(steps: Net, shown: Mapping[str, str]) -> list[Modifier]:
    """Upgrades and downgrades itemised (R30), with the stacking rule's verdicts (R61); each
    source as ``shown`` names it (``shown_sources``)."""
    parts = []
    for c in steps.contributions:
        word = "upgrade" if c.value > 0 else "downgrade"
        name = f"{shown.get(c.source, c.source)} ({word}{'s' if abs(c.value) > 1 else ''})"
        if not c.counted:
            name += f" - not counted: {c.note}"
        parts.append(Modifier(name, c.value if c.counted else 0,
                              _SECTIONS.get(c.source, "Stacking Effects (R61)")))
    return parts


# --------------------------------------------------------------------------- attacks


def _weapon(s: EncounterState, cid: str, action: str, name: str | None) -> str:
    if name is not None:
        return name
    kind = "ranged" if action == "ranged_attack" else "melee"
    sheet, held = sheet_of(s, cid), in_hoof(s, cid)
    fitting = [w.name for w in sheet.weapons if w.kind == kind]
    if not fitting:
        raise _illegal(f"{s.combatants[cid].name} has no {kind} weapon in its stat block "
                       "(ruling R60)")
    return next((w for w in fitting if w in held), fitting[0])


def _plan(s: EncounterState, action: str, attacker: str, weapon: str, target: str,
          distance: int) -> at.AttackPlan:
    return _rules(lambda: at.plan_attack(
        action, attacker=attacker, sheet=sheet_of(s, attacker), weapon=weapon, target=target,
        target_sheet=sheet_of(s, target), distance=distance, effects=numbers(s),
        in_hoof=in_hoof(s, attacker), options=options(s)))


def _attack(action: str) -> Callable[[Engine, CombatantProfile, Any], Thunk]:
    def resolve(d: Engine, c: CombatantProfile,
                args: AttackArgs | RangedAttackArgs | ChargeArgs) -> Thunk:
        """Melee Attack, Ranged Attack, All-Out Attack, Charge: a test of the weapon's ability
        die against the target's Defense; a hit deals the damage die in Health (R29)."""
        target = _target(d, c, args.target, "combatant attacked")
        if target == c.id:
            raise _illegal("a combatant cannot attack itself")
        if out_of_fight(d.s, target):
            raise _illegal(f"{d.s.combatants[target].name} is already out of the fight "
                           "(0 Health, ruling R29)")
        weapon = _weapon(d.s, c.id, action, args.weapon)
        distance = args.distance
        movement: at.Movement | None = None
        yards = 0
        away: list[str] = []
        if isinstance(args, ChargeArgs):
            speed, prone = speed_of(d.s, c.id), d.s.vitals[c.id].prone
            movement = _rules(lambda: at.charge_move(speed, prone=prone))
            assert movement is not None
            yards = movement.yards if args.yards is None else args.yards
            if yards > movement.yards:
                raise _illegal(f"Charge: up to half Speed, {movement.yards} yards (R62)")
            away = _away_from(d, c, args.away_from)
        plan = _plan(d.s, action, c.id, weapon, target, distance)
        ctx = {"action": action, "attacker": c.id, "target": target, "weapon": plan.weapon,
               "distance": distance, "check": _plain(plan.check)}

        def run() -> None:
            if movement is not None:
                _moved(d, c.id, action, yards, movement, away)
                d.followups.append(lambda: pursuits(d, c.id, away))
            _used_by_action(d, c.id, action)
            _roll(d, ctx, "attack", plan.check.die.expr, c.id)
        return run
    return resolve


def _resolve_attack(d: Engine, ctx: dict[str, Any], face: int) -> None:
    attacker, target, action = ctx["attacker"], ctx["target"], ctx["action"]
    # the attack die as declared (Aim, Charge and Guard Up counted then); Defense as it is now
    fresh = _plan(d.s, action, attacker, ctx["weapon"], target, ctx["distance"])
    plan = msgspec.structs.replace(fresh, check=msgspec.convert(ctx["check"], Planned))
    result = at.resolve_attack(plan, face)
    s = d.s
    hidden = s.combatants[attacker].hidden or s.combatants[target].hidden
    base = plan.defense - plan.defense_modifiers.total
    shown = shown_sources(s, target)
    defense_parts = [Modifier("Defense", base, "stat block (R29)")] + [
        Modifier(shown.get(c.source, c.source) + ("" if c.counted
                                                  else f" - not counted: {c.note}"),
                 c.value if c.counted else 0, _SECTIONS.get(c.source, "Stacking Effects (R61)"))
        for c in plan.defense_modifiers.contributions]
    d.emit(ev.AttackResolved(
        round=s.round, attacker=attacker, target=target, action=action, weapon=plan.weapon,
        defense="defense", die=die_name(plan.check.die.sides), natural=face,
        modifiers=_step_parts(plan.check.steps, shown_sources(s, attacker)),
        total=result.check.rolled.total, defense_value=plan.defense, defense_parts=defense_parts,
        outcome="hit" if result.hit else "miss", roll_secret=d.dice_vis(attacker) is not None,
        defense_secret=s.combatants[target].kind == "npc", hidden=hidden),
        ["gm"] if hidden else None)
    for effect in plan.attacker_effects:  # All-Out Attack: -1 Defense, hit or miss
        start_effect(d, effect)
    if not result.hit or result.damage_die is None:
        return
    if action in _MELEE:  # "an enemy you have already successfully struck in a melee scuffle"
        start_effect(d, Effect(holder=attacker, target=STRUCK, value=1, source_kind="mark",
                               source="struck in melee", expiry=start_of_next_turn(attacker),
                               origin=attacker, detail=target))
    die = result.damage_die
    extra = extra_dice(s, attacker, melee=action in _MELEE)
    expr = "+".join([die.expr, *(f"1{x}" for _, x in extra)])
    _roll(d, {**ctx, "damage": _plain(die),
              "damage_steps": _plain(plan.damage_steps),
              **({"extra_dice": [list(x) for x in extra]} if extra else {})},
          "damage", expr, attacker)


def _resolve_damage(d: Engine, ctx: dict[str, Any], face: int,
                    more: tuple[int, ...] = ()) -> None:
    """R29: the damage die's face in Health, not below 0, plus the faces of the extra dice of
    talents and spells (Stacking Effects, R95); losing Health clears the healed mark (R33); at
    0 the target is out of the fight. The event's ``rolled`` holds every die; the upgrades and
    the extra dice are itemised in its ``dice_parts``, the face R30's ``"modifier"`` option
    adds in its ``bonuses``, so that they add up to the loss."""
    attacker, target = ctx["attacker"], ctx["target"]
    die = msgspec.convert(ctx["damage"], Laddered)
    steps = msgspec.convert(ctx["damage_steps"], Net)
    extra = ctx.get("extra_dice", [])
    beyond = face_total(face, die) - face
    amount = face + beyond + sum(more)
    s = d.s
    hidden = s.combatants[attacker].hidden or s.combatants[target].hidden
    shown = shown_sources(s, attacker)
    dice_parts = _step_parts(steps, shown) + [
        Modifier(f"{shown.get(source, source)} ({die_text})", f, "Stacking Effects (R95)")
        for (source, die_text), f in zip(extra, more, strict=False)]
    bonuses = [Modifier("beyond the die ladder's end", beyond, "die_ladder_overflow (R30)")
               ] if beyond else []
    d.emit(ev.DamageDealt(
        target=target, source=attacker, dice="+".join([die.expr, *(f"1{x}" for _, x in extra)]),
        rolled=face + sum(more), bonuses=bonuses, dice_parts=dice_parts,
        before_reduction=amount, loss=amount, dice_secret=d.dice_vis(attacker) is not None,
        hidden=hidden), ["gm"] if hidden else None)
    by = d.public_name(attacker, target, "an unseen attacker")
    lose_health(d, target, amount, [f"hit by {by}"])


def lose_health(d: Engine, cid: str, amount: int, notes: list[str]) -> None:
    vitals = health_of(d.s, cid)
    if vitals is None:  # pragma: no cover - attacks need Health (R29)
        return
    after = take_damage(vitals, amount)
    lost = vitals.health - after.health
    # an NPC's Health is behind the GM's screen, as Dramatic fatigue points are: the notes
    # everyone reads give the loss, not the numbers (the GM reads them in the event's fields)
    said = [*notes, f"loses {lost} Health" + (
        "" if d.s.combatants[cid].kind == "npc" else f" ({vitals.health} -> {after.health})")]
    if after.out_of_fight:
        said.append("0 Health: out of the fight until healed (R29)")
    set_health(d, cid, after.health, "damage", said)
    if lost:
        for mark in _marks(d.s, cid, HEALED):  # R33: may benefit from a heal again
            end_effect(d, mark, "damage")
    if after.out_of_fight:
        _out_of_fight(d, cid)


def _out_of_fight(d: Engine, cid: str) -> None:
    """R29: out of the fight, its prepared action and its pursuit are lost; if it is its own
    turn, the turn passes (``Decision.pass_turns``, after the command)."""
    c = d.s.combatants[cid]
    if cid in d.s.readied and not (d.s.turn and d.s.turn.interrupted_by == cid):
        d.emit(ev.ReadiedActionLost(combatant=cid, hidden=c.hidden), _vis(d, cid))
    for e in _marks(d.s, cid, PURSUIT):
        end_effect(d, e, "out_of_fight")


# --------------------------------------------------------------------------- stances


def defend(d: Engine, c: CombatantProfile, args: Noted) -> Thunk:
    """DEFEND: +2 Defense until the beginning of your next turn."""

    def run() -> None:
        _used_by_action(d, c.id, "defend")
        for e in at.defend(c.id):
            start_effect(d, e)
    return run


def guard_up(d: Engine, c: CombatantProfile, args: GuardUpArgs) -> Thunk:
    """GUARD UP: +1 or +2 Defense (``args.amount``) until the end of the round, with as many
    downgrades on all tests; only before any major action of the turn; a second replaces the
    first (R51)."""
    amount = args.amount
    new = _rules(lambda: at.guard_up(c.id, amount, _budget(d)))

    def run() -> None:
        _used_by_action(d, c.id, "guard_up")
        for e in new:
            start_effect(d, e)
    return run


def aim(d: Engine, c: CombatantProfile, args: Noted) -> Thunk:
    """AIM: an upgrade on the attack die of the next action if it is an attack (R35)."""

    def run() -> None:
        _used_by_action(d, c.id, "aim")  # an earlier Aim is used up without benefit
        for e in at.aim(c.id):
            start_effect(d, e)
    return run


def stand_firm(d: Engine, c: CombatantProfile, args: Noted) -> Thunk:
    """STAND FIRM: until the beginning of your next turn, Skirmish and Knock Prone stunts
    against you need an opposed Body test (``stunt``)."""

    def run() -> None:
        _used_by_action(d, c.id, "stand_firm")
        for e in at.stand_firm(c.id):
            start_effect(d, e)
    return run


def plain(action: str) -> Callable[[Engine, CombatantProfile, Noted], Thunk]:
    """Activate, and another major or minor action the GM adjudicates (Taking Actions): the
    action is recorded (with ``args.note``) and uses up Aim (R35)."""
    def resolve(d: Engine, c: CombatantProfile, args: Noted) -> Thunk:
        return lambda: _used_by_action(d, c.id, action)
    return resolve


# --------------------------------------------------------------------------- cast and reload


def cast(cost: str) -> Callable[[Engine, CombatantProfile, CastArgs], Thunk]:
    """Cast (Taking Actions): ``args.spell``, at the cost the stat block gives it (R60)."""
    def resolve(d: Engine, c: CombatantProfile, args: CastArgs) -> Thunk:
        taken = _at_stat_block_cost(d, c, args.spell, f"cast_{cost}", at.cast_kind,
                                    "is cast as")
        spell = sheet_of(d.s, c.id).spell(args.spell)
        on = c.id if args.target is None else _target(d, c, args.target, "spell's target")
        if not spell.modifiers:
            return taken

        def run() -> None:  # R95: the spell's effect starts on its target
            taken()
            d.emit(ev.EffectStarted(
                effect=d.ctx.new_id(), name=spell.name, rounds=0, round=d.s.round,
                count=d.s.count_of(c.id), ends_round=0, combatant=on, until=spell.lasts,
                modifiers=list(spell.modifiers), source=spell.name, source_kind="spell",
                origin=c.id, origin_hidden=c.hidden), d.combatant_vis(on))
        return run
    return resolve


def reload(cost: str) -> Callable[[Engine, CombatantProfile, ReloadArgs], Thunk]:
    """Reload (Taking Actions): ``args.weapon``, at the cost the stat block gives it (R60)."""
    def resolve(d: Engine, c: CombatantProfile, args: ReloadArgs) -> Thunk:
        return _at_stat_block_cost(d, c, args.weapon, f"reload_{cost}", at.reload_kind,
                                   "reloads as")
    return resolve


def _at_stat_block_cost(d: Engine, c: CombatantProfile, name: str, action: str,
                        kind_of: Callable[[Sheet, str], ActionKind | None],
                        verb: str) -> Thunk:
    """Cast and Reload take the action (major, minor, free) that the stat block gives the spell
    or the weapon ``name`` (R60); ``None`` from ``kind_of``: nothing to do."""
    what, cost = action.rsplit("_", 1)
    kind = _rules(lambda: kind_of(sheet_of(d.s, c.id), name))
    if kind is None:
        raise _illegal(f"{name} needs no {what} (stat block, R60)")
    if kind.value != cost:
        raise _illegal(f"{name} {verb} a {kind.value} action (stat block, R60)")
    return lambda: _used_by_action(d, c.id, action)


# --------------------------------------------------------------------------- Ready


def _items(s: EncounterState, cid: str) -> set[str]:
    sheet = sheet_of(s, cid)
    return {w.name for w in sheet.weapons} | ({"bandages"} if sheet.bandages != "none"
                                              else set())


def ready_item(d: Engine, c: CombatantProfile, args: ReadyItemArgs) -> Thunk:
    """READY: draw a stowed item (``args.draw``: a weapon's name or ``bandages``) and/or put
    one away (``args.stow``)."""
    draw, stow = args.draw, args.stow
    if draw is None and stow is None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.draw and/or args.stow name an item")
    sheet = sheet_of(d.s, c.id)
    items = _items(d.s, c.id)
    if draw is not None and draw not in items:
        raise _illegal(f"Ready: {c.name} has no {draw!r} (stat block, R60)")
    before = in_hoof(d.s, c.id)
    after = _rules(lambda: at.ready(sheet, before, draw=draw, stow=stow))

    def run() -> None:
        _used_by_action(d, c.id, "ready_item")
        d.emit(ev.ItemsReadied(combatant=c.id, drawn=draw, stowed=stow,
                               in_hoof=sorted(after), hidden=c.hidden), _vis(d, c.id))
    return run


# --------------------------------------------------------------------------- movement


def _movement(d: Engine, c: CombatantProfile, args: MoveArgs | RunArgs, action: str,
              movement: at.Movement) -> Thunk:
    yards = movement.yards if args.yards is None else args.yards
    if yards > movement.yards:
        raise _illegal(f"{at.ACTIONS[action].label}: at most {movement.yards} yards "
                       f"({movement.reason})")
    away = _away_from(d, c, args.away_from)
    prone = d.s.vitals[c.id].prone

    def run() -> None:
        _used_by_action(d, c.id, action)
        _moved(d, c.id, action, yards, movement, away)
        if movement.prone_after != prone:
            set_health(d, c.id, d.s.vitals[c.id].fatigue, "stance",
                       ["goes prone" if movement.prone_after else "stands up"],
                       prone=movement.prone_after)
        d.followups.append(lambda: pursuits(d, c.id, away))
    return run


def move(d: Engine, c: CombatantProfile, args: MoveArgs) -> Thunk:
    """MOVE: up to Speed in yards; going prone, standing up or mounting (``args.posture``)
    at half Speed; prone at the time of the Move, half Speed (R34)."""
    speed, prone = speed_of(d.s, c.id), d.s.vitals[c.id].prone
    movement = _rules(lambda: at.move(speed, prone=prone, posture=args.posture))
    return _movement(d, c, args, "move", movement)


def run_action(d: Engine, c: CombatantProfile, args: RunArgs) -> Thunk:
    """RUN: up to double Speed; not while prone."""
    speed, prone = speed_of(d.s, c.id), d.s.vitals[c.id].prone
    movement = _rules(lambda: at.run(speed, prone=prone))
    return _movement(d, c, args, "run", movement)


# --------------------------------------------------------------------------- Heal


def heal(d: Engine, c: CombatantProfile, args: HealArgs) -> Thunk:
    """HEAL (R33): an adjacent injured ally, bandages in hoof, a Difficulty 4 Mind test; the
    ally regains the face rolled; no second heal until it takes damage again."""
    target = _target(d, c, args.target, "ally healed")
    distance = args.distance
    s = d.s
    same_side = s.combatants[target].side == c.side
    planned = _rules(lambda: at.plan_heal(
        healer=c.id, sheet=sheet_of(s, c.id), in_hoof=in_hoof(s, c.id), target=target,
        same_side=same_side, distance=distance, target_vitals=health_of(s, target),
        effects=numbers(s), options=options(s)))
    ctx = {"action": "heal", "healer": c.id, "target": target,
           "check": _plain(planned)}

    def run() -> None:
        _used_by_action(d, c.id, "heal")
        _roll(d, ctx, "heal", planned.die.expr, c.id)
    return run


def _resolve_heal(d: Engine, ctx: dict[str, Any], face: int) -> None:
    healer, target = ctx["healer"], ctx["target"]
    planned = msgspec.convert(ctx["check"], Planned)
    vitals = health_of(d.s, target)
    assert vitals is not None
    result = at.resolve_heal(planned, face, vitals, options(d.s))
    c = d.s.combatants[healer]
    hidden = c.hidden or d.s.combatants[target].hidden
    d.emit(ev.CheckMade(combatant=healer, check="heal", natural=face,
                        modifiers=_step_parts(planned.steps, shown_sources(d.s, healer)),
                        total=result.check.rolled.total,
                        dc=at.HEAL_DIFFICULTY, success=result.check.success,
                        section="Major Actions: HEAL (R33)", hidden=hidden),
           ["gm"] if hidden else None)
    if result.amount_die is not None:  # option heal_rolls_again (R33)
        _roll(d, {**ctx, "die": _plain(result.amount_die)}, "heal amount",
              result.amount_die.expr, healer)
        return
    if result.check.success:
        _healed(d, healer, target, vitals, result.vitals)


def _resolve_heal_amount(d: Engine, ctx: dict[str, Any], face: int) -> None:
    vitals = health_of(d.s, ctx["target"])
    assert vitals is not None
    after = restore(vitals, face_total(face, msgspec.convert(ctx["die"], Laddered)))
    _healed(d, ctx["healer"], ctx["target"], vitals, after)


def _healed(d: Engine, healer: str, target: str, before: AtVitals, after: AtVitals) -> None:
    health = (f"regains {after.health - before.health} Health"
              if d.s.combatants[target].kind == "npc"  # behind the GM's screen
              else f"Health {before.health} -> {after.health}")
    set_health(d, target, after.health, "heal",
               [f"healed by {d.public_name(healer, target)}: {health} (Major Actions: HEAL, "
                "R33)"])
    start_effect(d, Effect(holder=target, target=HEALED, value=1, source_kind="mark",
                           source="healed", expiry=UNTIL_REMOVED, origin=healer))


# --------------------------------------------------------------------------- Prepare


def prepare(d: Engine, c: CombatantProfile, args: PrepareArgs) -> Thunk:
    """PREPARE (R36): name one major action (``args.action``) and end the turn; refused after
    a major action this turn. Until its next turn starts the combatant may interrupt anyone
    with ``trigger_ready`` and take that action — the Dramatic readied action's mechanism —
    without changing its place in the order; then it is lost."""
    action = args.action
    if action not in PREPARABLE:
        raise _illegal(f"Prepare names a major action: args.action is one of "
                       f"{', '.join(sorted(PREPARABLE))}")
    _rules(lambda: at.prepare(c.id, rules_name(action), _budget(d)))
    trigger = args.trigger or f"any time until {c.name}'s next turn (Prepare)"

    def run() -> None:
        _used_by_action(d, c.id, "prepare")  # R35: Prepare uses Aim up
        d.emit(ev.ActionReadied(round=d.s.round, combatant=c.id, action=action,
                                action_type=PREPARABLE[action], trigger=trigger,
                                hidden=c.hidden), _vis(d, c.id))
        d.followups.append(lambda: d.send("next_turn", "the turn cannot end now"))
    return run


# --------------------------------------------------------------------------- Press the Attack


def press_the_attack(d: Engine, c: CombatantProfile, args: PressArgs) -> Thunk:
    """PRESS THE ATTACK (R37): on an adjacent enemy struck in melee this turn; if it moves
    away by its own action before the presser's next turn, the presser may pursue at once."""
    target = _target(d, c, args.target, "enemy pressed")
    distance = args.distance
    struck = any(e.detail == target for e in _marks(d.s, c.id, STRUCK)) \
        and d.s.current == c.id
    speed = speed_of(d.s, c.id)
    new = _rules(lambda: at.press_the_attack(c.id, target, distance=distance,
                                             struck_in_melee=struck, speed=speed))

    def run() -> None:
        _used_by_action(d, c.id, "press_the_attack")
        for e in new:
            start_effect(d, e)
    return run


def pursuits(d: Engine, mover: str, away_from: Iterable[str]) -> None:
    """R37: the enemy's own movement took it farther from those who Press the Attack on it:
    each may pursue, once, before the enemy does anything else. The pursuit is readied
    (``action_readied`` with the free ``pursue`` action) and interrupts the current turn."""
    away = set(away_from)
    for effect in list(d.s.action_time.effects):
        if effect.holder in away and at.pursuit_triggered(
                effect, mover, own_action=True, distance_before=0, distance_after=1) \
                and not out_of_fight(d.s, effect.holder):
            holder = d.s.combatants[effect.holder]
            end_effect(d, effect, "used")
            d.emit(ev.ActionReadied(
                round=d.s.round, combatant=holder.id, action="pursue", action_type="free",
                trigger=f"{d.public_name(mover, holder.id)} moved away (Press the Attack, R37)",
                hidden=holder.hidden), _vis(d, holder.id))
    next_pursuit(d)


def next_pursuit(d: Engine) -> None:
    """Interrupt the current turn for the first pursuit waiting, if no interrupt is running."""
    turn = d.s.turn
    if turn is None or turn.interrupted_by is not None:
        return
    for cid, readied in d.s.readied.items():
        if readied.action == "pursue" and cid != d.s.current:
            d.interrupt(cid)
            return


def _may_pursue(s: EncounterState, cid: str) -> str | None:
    turn = s.turn
    readied = s.readied.get(cid)
    if turn is None or turn.interrupted_by != cid or readied is None \
            or readied.action != "pursue":
        return ("a pursuit comes only when the enemy you Press the Attack on moves away "
                "(ruling R37)")
    return None


def pursue(d: Engine, c: CombatantProfile, args: PursueArgs) -> Thunk:
    """The pursuit of Press the Attack: up to Speed in yards (``args.yards``; fewer, or 0, as
    the presser wishes), at no cost in actions (R37)."""
    speed = speed_of(d.s, c.id)
    movement = at.Movement(speed, prone_after=d.s.vitals[c.id].prone,
                           reason="Press the Attack: up to Speed in pursuit (R37)")
    yards = speed if args.yards is None else args.yards
    if yards > speed:
        raise _illegal(f"a pursuit covers at most your Speed, {speed} yards (R37)")

    def run() -> None:  # the next pursuit waiting follows its interrupt (interrupt_ended)
        _moved(d, c.id, "pursue", yards, movement, [])
    return run


# --------------------------------------------------------------------------- stunts


def stunt(d: Engine, c: CombatantProfile, args: StuntArgs) -> Thunk:
    """A Skirmish (``args.yards``, default 2) or Knock Prone stunt (``args.stunt``) whose
    points the user has spent (R39: the server does not track stunt points). Against one who
    Stands Firm, an opposed Body test first, one per attack (R38: a tie goes to the larger die,
    then to the one Standing Firm); the stunt works only if its user wins."""
    kind = args.stunt
    target = _target(d, c, args.target, "combatant the stunt is used on")
    if target == c.id:
        raise _illegal("a stunt is used on someone else")
    yards = args.yards if kind == "skirmish" else 0
    if kind == "knock_prone" and d.s.vitals[target].prone:
        raise _illegal(f"{d.s.combatants[target].name} is prone already")
    ctx: dict[str, Any] = {"action": "stunt", "stunt": kind, "user": c.id, "target": target,
                           "yards": yards}

    def run() -> None:
        if not at.stand_firm_applies(effects(d.s), target):
            _stunt_works(d, ctx)
            return
        user_plan, _target_plan = _stand_firm_plans(d, c.id, target)
        _roll(d, ctx, "stand firm (stunt)", user_plan.die.expr, c.id)
    return run


def _stand_firm_plans(d: Engine, user: str, target: str) -> tuple[Planned, Planned]:
    s = d.s
    return at.plan_stand_firm(user=user, user_sheet=sheet_of(s, user), target=target,
                              target_sheet=sheet_of(s, target), effects=numbers(s),
                              options=options(s))


def _stand_firm_user(d: Engine, ctx: dict[str, Any], face: int) -> None:
    _user_plan, target_plan = _stand_firm_plans(d, ctx["user"], ctx["target"])
    _roll(d, {**ctx, "user_face": face}, "stand firm", target_plan.die.expr, ctx["target"])


def _stand_firm_target(d: Engine, ctx: dict[str, Any], face: int) -> None:
    user, target = ctx["user"], ctx["target"]
    user_plan, target_plan = _stand_firm_plans(d, user, target)
    s = d.s
    result = at.resolve_stand_firm(user, user_plan, ctx["user_face"], target, target_plan,
                                   face, options(s))
    hidden = s.combatants[user].hidden or s.combatants[target].hidden
    d.emit(ev.CheckMade(
        combatant=user, check="stand_firm", natural=ctx["user_face"],
        modifiers=_step_parts(user_plan.steps, shown_sources(s, user)), total=result.first.total,
        dc=result.second.total, success=result.winner == "first",
        section=f"Minor Actions: STAND FIRM: {result.text}", hidden=hidden),
        ["gm"] if hidden else None)
    if result.winner == "first":
        _stunt_works(d, ctx)
    elif result.winner is None:  # option opposed_tie_reroll (R38)
        _roll(d, ctx, "stand firm (stunt)", user_plan.die.expr, user)


def _stunt_works(d: Engine, ctx: dict[str, Any]) -> None:
    target, user = ctx["target"], d.public_name(ctx["user"], ctx["target"])
    if ctx["stunt"] == "knock_prone":
        set_health(d, target, d.s.vitals[target].fatigue, "stunt",
                   [f"knocked prone by {user} (Knock Prone stunt)"], prone=True)
    else:  # moved by others: no pursuit (R37)
        movement = at.Movement(ctx["yards"], prone_after=d.s.vitals[target].prone,
                               reason=f"Skirmish stunt by {user}")
        _moved(d, target, "skirmish", ctx["yards"], movement, [])


_STAGES: dict[str, Callable[[Engine, dict[str, Any], int], None]] = {
    "attack": _resolve_attack,
    "damage": _resolve_damage,
    "heal": _resolve_heal,
    "heal amount": _resolve_heal_amount,
    "stand firm (stunt)": _stand_firm_user,
    "stand firm": _stand_firm_target,
}


# --------------------------------------------------------------------------- turn flow hooks


def turn_started(d: Engine, cid: str) -> None:
    """A turn starts: the effects lasting "until the beginning of your next turn" end (Defend,
    All-Out Attack, Press the Attack, Stand Firm, the struck marks; R36's Prepare is a readied
    action, which the engine drops)."""
    for e in at.start_turn(effects(d.s), cid, health_of(d.s, cid)).ended:
        end_effect(d, e, "turn_start")


def newcomers_join(d: Engine) -> None:
    """R32: "If new ponies join the encounter, they roll initiative at the start of the round
    they appear and are added to the initiative list" (from the second round on: the first
    round's order has everyone)."""
    s = d.s
    if s.round <= 1:
        return
    asked = {p.combatant for p in s.pending_rolls.values() if p.purpose == "join"}
    for cid in list(s.combatants):
        if cid in s.initiative or cid in asked:
            continue
        expr = d.rules.initiative_expr(s.combatants[cid])
        if d.is_manual(cid):
            d.request_roll(expr, "join", cid)
        else:
            d.join_scene(cid, d.server_roll(expr, "join", cid))


def round_ending(d: Engine) -> None:
    """GUARD UP: its bonus and its downgrades last "for the remainder of the current round"."""
    for e in at_round_end(effects(d.s)).ended:
        end_effect(d, e, "round_end")


def turn_passes(s: EncounterState, cid: str) -> bool:
    """R29 (and R39 for group members): at 0 Health the turn passes without actions."""
    return out_of_fight(s, cid)


# --------------------------------------------------------------------------- the catalog


def _visible(found: Iterable[str], s: EncounterState, cid: str, sees_all: bool) -> list[str]:
    """Those of ``found`` the sender sees and ``cid`` may aim at: a hidden combatant only by a
    hidden one (the GM's own business, ruling R79)."""
    combatants = s.combatants
    hidden = sees_all and combatants[cid].hidden
    return [o for o in found if hidden or not combatants[o].hidden]


def _attack_targets(s: EncounterState, cid: str, sees_all: bool) -> list[str]:
    """Those still in the fight with Health to lose (R29): the enemies, then the allies (an
    attack is meant for an enemy; one on an ally is the GM's call)."""
    side = s.combatants[cid].side
    able = [o for o in in_scene(s) if o != cid and not out_of_fight(s, o)
            and s.vitals[o].fatigue_max > 0]
    return _visible([*(o for o in able if s.combatants[o].side != side),
                     *(o for o in able if s.combatants[o].side == side)], s, cid, sees_all)


def _heal_targets(s: EncounterState, cid: str, sees_all: bool) -> list[str]:
    """Injured allies not healed since they last lost Health (R33); oneself only with
    ``heal_self``."""
    side = s.combatants[cid].side
    out = []
    for o in in_scene(s):
        h = health_of(s, o)
        if s.combatants[o].side == side and (o != cid or options(s).heal_self) \
                and h is not None and h.injured and not h.healed:
            out.append(o)
    return _visible(out, s, cid, sees_all)


def _press_targets(s: EncounterState, cid: str, sees_all: bool) -> list[str]:
    """The enemies struck in melee this turn (R37)."""
    return _visible(dict.fromkeys(e.detail for e in _marks(s, cid, STRUCK)), s, cid, sees_all)


def _pursued(s: EncounterState, cid: str, sees_all: bool) -> list[str]:
    # (not the GM's screen, R99: no combatant's turn)
    return _visible([s.current] if s.current in s.combatants else [], s, cid, sees_all)


def _others(s: EncounterState, cid: str, sees_all: bool) -> list[str]:
    return _visible((o for o in in_scene(s) if o != cid), s, cid, sees_all)


def _has_weapon(kind: str) -> Callable[[EncounterState, str], str | None]:
    """An attack needs a weapon of its kind in hoof (R60: as the stat block starts, or as
    Ready left it)."""
    def test(s: EncounterState, cid: str) -> str | None:
        fitting = [w.name for w in sheet_of(s, cid).weapons if w.kind == kind]
        if not fitting:
            return (f"{s.combatants[cid].name} has no {kind} weapon in its stat block (ruling "
                    "R60)")
        held = in_hoof(s, cid)
        if not any(w in held for w in fitting):
            return (f"{', '.join(fitting)} {'is' if len(fitting) == 1 else 'are'} stowed: "
                    "ready it first (Ready, a minor action)")
        return None
    return test


def _refused(call: Callable[[], Any]) -> str | None:
    try:
        call()
    except IllegalAction as exc:
        return str(exc)
    return None


def _may_charge(s: EncounterState, cid: str) -> str | None:
    return _refused(lambda: at.charge_move(0, prone=s.vitals[cid].prone)) \
        or _has_weapon("melee")(s, cid)


def _may_run(s: EncounterState, cid: str) -> str | None:
    return _refused(lambda: at.run(0, prone=s.vitals[cid].prone))


def _may_heal(s: EncounterState, cid: str) -> str | None:
    if "bandages" not in in_hoof(s, cid):
        return "Heal: you must have bandages ready (Ready them first, R33)"
    if "mind" not in sheet_of(s, cid).abilities:
        return f"{s.combatants[cid].name} has no Mind die in its stat block (ruling R60)"
    return None


def _before_a_major(rule: str) -> Callable[[EncounterState, str], str | None]:
    return lambda s, cid: rule if _major_taken(s) else None


def _may_press(s: EncounterState, cid: str) -> str | None:
    if not _marks(s, cid, STRUCK):
        return "Press the Attack needs an enemy you struck in melee this turn"
    return None


def _costing(what: str, cost: str) -> Callable[[EncounterState, str], list[str]]:
    """The spells (``cast``) or weapons (``reload``) of the stat block at ``cost`` (R60)."""
    def names(s: EncounterState, cid: str) -> list[str]:
        sheet = sheet_of(s, cid)
        if what == "cast":
            return [sp.name for sp in sheet.spells if sp.cast == cost]
        return [w.name for w in sheet.weapons if w.reload_cost == cost]
    return names


def _may_cost(what: str, cost: str) -> Callable[[EncounterState, str], str | None]:
    names = _costing(what, cost)
    thing, verb = ("spell", "cast") if what == "cast" else ("weapon", "reloaded")

    def test(s: EncounterState, cid: str) -> str | None:
        if names(s, cid):
            return None
        return (f"{s.combatants[cid].name} has no {thing} {verb} as a {cost} action (stat "
                "block, R60)")
    return test


def _cost_options(what: str, cost: str) -> Callable[[EncounterState, str], dict[str, list[str]]]:
    names, field = _costing(what, cost), "spell" if what == "cast" else "weapon"
    return lambda s, cid: {field: names(s, cid)}


def _ready_options(s: EncounterState, cid: str) -> dict[str, list[str]]:
    held = in_hoof(s, cid)
    return {"draw": sorted(_items(s, cid) - held), "stow": sorted(held)}


def _may_ready(s: EncounterState, cid: str) -> str | None:
    if _items(s, cid) or in_hoof(s, cid):
        return None
    return f"{s.combatants[cid].name} has nothing to ready or stow (stat block, R60)"


_STUNTS = ["skirmish", "knock_prone"]
_MAJOR, _MINOR, _FREE = Kind.STANDARD, Kind.MOVE, Kind.FREE
_AIM_AT_ENEMIES = Targets(_attack_targets)


def _rules_action(name: str, args: type[Noted], resolve: Any, precondition: Any = None,
                  targets: Targets | None = None, options: Any = None) -> Action:
    """An action of ``rules.action_time.actions.ACTIONS`` (its label, section and kind)."""
    spec = at.ACTIONS[rules_name(name)]
    return Action(name, spec.label, spec.section, KIND_OF[spec.kind], args, resolve,
                  precondition, targets, options)


_ACTIONS = [
    _rules_action("all_out_attack", AttackArgs, _attack("all_out_attack"),
                  _has_weapon("melee"), _AIM_AT_ENEMIES),
    _rules_action("charge", ChargeArgs, _attack("charge"), _may_charge, _AIM_AT_ENEMIES),
    _rules_action("defend", Noted, defend),
    _rules_action("heal", HealArgs, heal, _may_heal, Targets(_heal_targets)),
    _rules_action("melee_attack", AttackArgs, _attack("melee_attack"), _has_weapon("melee"),
                  _AIM_AT_ENEMIES),
    _rules_action("ranged_attack", RangedAttackArgs, _attack("ranged_attack"),
                  _has_weapon("ranged"), _AIM_AT_ENEMIES),
    _rules_action("run", RunArgs, run_action, _may_run),
    _rules_action("other_major", Noted, plain("other_major")),
    _rules_action("activate", Noted, plain("activate")),
    _rules_action("aim", Noted, aim),
    _rules_action("guard_up", GuardUpArgs, guard_up, _before_a_major(
        "Guard Up must come before any major action of the turn")),
    _rules_action("move", MoveArgs, move),
    _rules_action("prepare", PrepareArgs, prepare, _before_a_major(
        "Prepare is refused after a major action this turn (ruling R36)"),
        options=lambda s, cid: {"action": list(PREPARABLE)}),
    _rules_action("press_the_attack", PressArgs, press_the_attack, _may_press,
                  Targets(_press_targets)),
    _rules_action("ready_item", ReadyItemArgs, ready_item, _may_ready, options=_ready_options),
    _rules_action("stand_firm", Noted, stand_firm),
    _rules_action("other_minor", Noted, plain("other_minor")),
    _rules_action("free", Noted, None),
]
# Taking Actions: cast and reload cost what the stat block says (R60)
for _word, _kind in (("major", _MAJOR), ("minor", _MINOR), ("free", _FREE)):
    _ACTIONS.append(Action(f"cast_{_word}", f"Cast a spell ({_word} action)",
                           "Taking Actions: cast", _kind, CastArgs, cast(_word),
                           _may_cost("cast", _word), options=_cost_options("cast", _word)))
    _ACTIONS.append(Action(f"reload_{_word}", f"Reload a weapon ({_word} action)",
                           "Taking Actions: reload", _kind, ReloadArgs, reload(_word),
                           _may_cost("reload", _word), options=_cost_options("reload", _word)))
_ACTIONS += [
    Action("pursue", "Pursue the enemy that moved away (Press the Attack)",
           "Minor Actions: PRESS THE ATTACK", _FREE, PursueArgs, pursue, _may_pursue,
           Targets(_pursued, optional=True), among=lambda s: s.readied),
    Action("stunt", "Apply a Skirmish or Knock Prone stunt", "Minor Actions: STAND FIRM",
           _FREE, StuntArgs, stunt, targets=Targets(_others),
           options=lambda s, cid: {"stunt": list(_STUNTS)}),
]

#: PREPARE: "You pick one major action that you prepare to execute" (ruling R36): each major
#: action, with the kind its readied action records.
PREPARABLE: dict[str, str] = {a.name: a.cost.value for a in _ACTIONS
                              if a.cost is Kind.STANDARD}

CATALOG = Catalog(
    "action_time", "Action Time", (*_ACTIONS, END_TURN, TRIGGER_READY), precondition=_able,
    absent={
        "delay": "Action Time has no delay: a turn is taken when it comes (or Prepared)",
        "take_delayed_turn": "Action Time has no delay: a turn is taken when it comes (or "
                             "Prepared)",
        "ready": "Action Time readies an item with ready_item; a major action is held with "
                 "prepare (R36)",
    },
    budget_refusal=budget_refusal,
    cost_names={Kind.STANDARD: "major", Kind.MOVE: "minor"},
    groups={
        "attack": ("all_out_attack", "charge", "melee_attack", "ranged_attack", "aim",
                   "press_the_attack", "pursue", "stunt"),
        "movement": ("move", "run"),
        "support": ("defend", "heal", "guard_up", "stand_firm"),
        "items": ("activate", "ready_item", "cast_major", "cast_minor", "cast_free",
                  "reload_major", "reload_minor", "reload_free"),
        "turn": ("prepare",),
    })


# --------------------------------------------------------------------------- views


def view(s: EncounterState, visible: set[str], controls: Callable[[str], bool],
         full: bool, stats: set[str] | None = None) -> dict[str, Any]:
    """What a viewer sees of the Action Time state: the effects on the combatants it sees
    (the table sees every stance), what its own combatants hold, and the numbers of those whose
    stat blocks it sees (``stats``)."""
    effects_now = numbers(s)
    return {
        "effects": [_plain(e if full or e.origin in visible or not e.origin
                           else msgspec.structs.replace(e, origin=""))
                    for e in s.action_time.effects if e.holder in visible],
        "in_hoof": {cid: sorted(in_hoof(s, cid)) for cid in s.combatants
                    if cid in visible and (full or controls(cid))},
        "numbers": {cid: _numbers(s, cid, effects_now) for cid in s.combatants
                    if cid in (stats or ())},
    }


def _numbers(s: EncounterState, cid: str, effects_now: tuple[Effect, ...]) -> dict[str, Any]:
    """Defense as attacks read it (R29, with its effects stacked as R61, R91; ``None`` for a
    stat block without one) and Speed as a move counts it (R60, R90), each itemised (each
    source as results name it, ``shown_sources``)."""
    sheet = sheet_of(s, cid)
    mods = net(effects_now, cid, DEFENSE)
    shown = shown_sources(s, cid)
    return {
        "defense": None if sheet.defense is None else sheet.defense + mods.total,
        "defense_modifiers": [
            {"name": shown.get(c.source, c.source), "value": c.value if c.counted else 0,
             "counted": c.counted, "note": c.note} for c in mods.contributions],
        "speed": speed_of(s, cid),
        "speed_modifiers": [{"name": shown.get(source, source), "value": amount}
                            for source, amount in speed_parts(s, cid)],
    }


def speed_parts(s: EncounterState, cid: str) -> list[tuple[str, int]]:
    """(source, amount) of the effects counted in :func:`speed_of`."""
    best: dict[tuple[str, str], tuple[str, int]] = {}
    for holder, kind, source, _o, target, amount in _granted(s):
        if holder == cid and target == "speed" and isinstance(amount, int):
            key = (kind, normalise_name(source))
            if key not in best or abs(amount) > abs(best[key][1]):
                best[key] = (source, amount)
    return list(best.values())
