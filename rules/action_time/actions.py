"""The major and minor actions of Action Time and how each resolves (Major Actions, Minor
Actions, Taking Actions; rulings R29, R33-R37, R39, R51, R60-R62).

:data:`ACTIONS` is the catalog: each :class:`AtActionSpec` has its name, kind (major, minor or
free), the section of the rule text and a label. Cast and reload cost what the stat block says
(:func:`cast_kind`, :func:`reload_kind`). The functions below are the mechanics of the actions
that have any; each raises :class:`rules.actions.IllegalAction` with the reason when the rules
refuse the action, before any die is rolled.

How the engine uses them, for one action of combatant *A*:

1. ``spend`` the action in *A*'s :class:`~rules.action_time.turn_budget.TurnBudget`;
2. plan it with the effects as they stand (:func:`plan_attack`, :func:`plan_heal`, ...), roll the
   planned die, resolve it with the face (:func:`resolve_attack`, :func:`resolve_damage`,
   :func:`resolve_heal`);
3. :func:`after_action` — what *A*'s action used up (Aim, R35) — then add the effects the action
   creates with :func:`rules.action_time.effects.add_effect`.

At the start of a turn :func:`start_turn` ends the effects that last "until your next turn" and
gives the turn's budget; at the end of a round use :func:`rules.action_time.effects.at_round_end`.

Public API: :class:`AtActionSpec`, :data:`ACTIONS`, :func:`cast_kind`, :func:`reload_kind`,
:class:`TurnStart`, :func:`start_turn`, :func:`after_action`; attacks: :class:`AttackPlan`,
:func:`plan_attack`, :class:`AttackRoll`, :func:`resolve_attack`, :class:`DamageResult`,
:func:`resolve_damage`; :func:`defend`, :func:`guard_up`, :func:`aim`, :func:`stand_firm`,
:func:`prepare`, :func:`take_prepared`, :func:`press_the_attack`, :func:`pursuit_triggered`;
movement: :class:`Movement`, :func:`move`, :func:`run`, :func:`charge_move`; Heal:
:func:`plan_heal`, :class:`HealResult`, :func:`resolve_heal`, :func:`heal_amount`; Stand Firm:
:func:`stand_firm_applies`, :func:`plan_stand_firm`, :func:`resolve_stand_firm`; Ready:
:func:`in_hoof_at_start`, :func:`ready`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from rules.action_time.checks import (
    CheckResult,
    OpposedResult,
    Planned,
    Side,
    plan_check,
    resolve_check,
    resolve_opposed,
    step_modifiers,
)
from rules.action_time.dice_ladder import Laddered, die_name, face_total, net_die
from rules.action_time.effects import (
    ATTACK_STEPS,
    DAMAGE_STEPS,
    DEFENSE,
    END_OF_ROUND,
    NEXT_ACTION,
    PREPARED,
    PURSUIT,
    STAND_FIRM,
    TEST_STEPS,
    Effect,
    Expired,
    Modifier,
    Net,
    at_turn_start,
    net,
    on_action,
    remove,
    start_of_next_turn,
)
from rules.action_time.health import Vitals, restore, take_damage
from rules.action_time.options import DEFAULT, AtOptions
from rules.action_time.sheet import MELEE_REACH, Sheet, SheetError
from rules.action_time.turn_budget import ActionKind, TurnBudget, end_turn, spend
from rules.actions import IllegalAction

# --------------------------------------------------------------------------- the catalog


class AtActionSpec(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An action: what it costs, where the rule text has it, how a client labels it.
    ``attack``: it makes an attack (R35: Aim applies)."""

    name: str
    kind: ActionKind
    section: str
    label: str
    attack: bool = False


_MAJOR, _MINOR, _FREE = ActionKind.MAJOR, ActionKind.MINOR, ActionKind.FREE
_CATALOG = (
    AtActionSpec(name="all_out_attack", kind=_MAJOR, section="Major Actions: ALL-OUT ATTACK",
                 label="All-out attack", attack=True),
    AtActionSpec(name="charge", kind=_MAJOR, section="Major Actions: CHARGE", label="Charge",
                 attack=True),
    AtActionSpec(name="defend", kind=_MAJOR, section="Major Actions: DEFEND", label="Defend"),
    AtActionSpec(name="heal", kind=_MAJOR, section="Major Actions: HEAL", label="Heal an ally"),
    AtActionSpec(name="melee_attack", kind=_MAJOR, section="Major Actions: MELEE ATTACK",
                 label="Melee attack", attack=True),
    AtActionSpec(name="ranged_attack", kind=_MAJOR, section="Major Actions: RANGED ATTACK",
                 label="Ranged attack", attack=True),
    AtActionSpec(name="run", kind=_MAJOR, section="Major Actions: RUN", label="Run"),
    AtActionSpec(name="other_major", kind=_MAJOR, section="Taking Actions",
                 label="Another major action (GM adjudicates)"),
    AtActionSpec(name="activate", kind=_MINOR, section="Minor Actions: ACTIVATE",
                 label="Activate a power or item"),
    AtActionSpec(name="aim", kind=_MINOR, section="Minor Actions: AIM", label="Aim"),
    AtActionSpec(name="guard_up", kind=_MINOR, section="Minor Actions: GUARD UP",
                 label="Guard up"),
    AtActionSpec(name="move", kind=_MINOR, section="Minor Actions: MOVE", label="Move"),
    AtActionSpec(name="prepare", kind=_MINOR, section="Minor Actions: PREPARE",
                 label="Prepare a major action"),
    AtActionSpec(name="press_the_attack", kind=_MINOR,
                 section="Minor Actions: PRESS THE ATTACK", label="Press the attack"),
    AtActionSpec(name="ready", kind=_MINOR, section="Minor Actions: READY",
                 label="Ready an item"),
    AtActionSpec(name="stand_firm", kind=_MINOR, section="Minor Actions: STAND FIRM",
                 label="Stand firm"),
    AtActionSpec(name="other_minor", kind=_MINOR, section="Taking Actions",
                 label="Another minor action (GM adjudicates)"),
    AtActionSpec(name="free", kind=_FREE, section="Action Time (free actions)",
                 label="A free action (drop something, shout)"),
)

ACTIONS: dict[str, AtActionSpec] = {a.name: a for a in _CATALOG}
_ATTACKS = ("all_out_attack", "charge", "melee_attack", "ranged_attack")


def cast_kind(sheet: Sheet, spell: str) -> ActionKind:
    """Taking Actions: "Depending on the spell ... cast ... can be major actions, minor actions,
    or free actions" — as the stat block says (R60: major by default)."""
    return ActionKind(sheet.spell(spell).cast)


def reload_kind(sheet: Sheet, weapon: str) -> ActionKind | None:
    """Taking Actions: reload "can be major actions, minor actions, or free actions" — as the
    stat block says (R60: a ranged weapon reloads as a minor action by default; ``None``: the
    weapon needs no reload)."""
    cost = sheet.weapon(weapon).reload_cost
    return None if cost is None else ActionKind(cost)


# --------------------------------------------------------------------------- turns


class TurnStart(msgspec.Struct, frozen=True, gc=False):
    """A turn as it starts: its budget and the effects that go on or just ended."""

    budget: TurnBudget
    effects: tuple[Effect, ...]
    ended: tuple[Effect, ...]


def start_turn(effects: Sequence[Effect], combatant: str, vitals: Vitals | None) -> TurnStart:
    """The start of ``combatant``'s turn: effects lasting "until the beginning of your next
    turn" end (Defend, All-Out Attack's penalty, Prepare unused — "the action is lost" —,
    Press the Attack, Stand Firm); at 0 Health the turn passes without actions (R29)."""
    split = at_turn_start(effects, combatant)
    budget = (TurnBudget.passed() if vitals is not None and vitals.out_of_fight
              else TurnBudget.fresh())
    return TurnStart(budget=budget, effects=split.kept, ended=split.ended)


def after_action(effects: Sequence[Effect], actor: str, action: str) -> Expired:
    """What ``actor``'s ``action`` uses up: Aim goes with the next major or minor action,
    whatever it is; free actions use up nothing (R35)."""
    spec = _spec(action)
    if spec.kind is ActionKind.FREE:
        return Expired(kept=tuple(effects), ended=())
    return on_action(effects, actor, attack=spec.attack)


def _spec(action: str) -> AtActionSpec:
    try:
        return ACTIONS[action]
    except KeyError:
        raise IllegalAction(f"no Action Time action {action!r}") from None


# --------------------------------------------------------------------------- attacks


class AttackPlan(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An attack ready to roll: the attack die (``check.die.expr``) with its itemised steps,
    the target's Defense — the Difficulty (R29) — itemised, the damage die to roll on a hit,
    and the effects the attack puts on the attacker hit or miss (All-Out Attack)."""

    action: str
    attacker: str
    target: str
    weapon: str
    check: Planned
    defense: int
    defense_modifiers: Net
    damage: Laddered
    damage_steps: Net
    attacker_effects: tuple[Effect, ...] = ()


def _require(value: int | None, who: str, field: str) -> int:
    if value is None:
        raise IllegalAction(f"{who} has no {field} in its stat block (ruling R29)")
    return value


def _weapon(sheet: Sheet, who: str, name: str) -> tuple[int, str, int, str, bool, str]:
    try:
        w = sheet.weapon(name)
    except SheetError:
        raise IllegalAction(f"{who} has no weapon named {name!r} (ruling R29)") from None
    return w.damage_die, w.kind, w.reach, w.ability, w.stowed, w.name


def plan_attack(action: str, *, attacker: str, sheet: Sheet, weapon: str, target: str,
                target_sheet: Sheet, distance: int, effects: Sequence[Effect],
                in_hoof: frozenset[str] | None = None, visible: bool = True,
                options: AtOptions = DEFAULT) -> AttackPlan:
    """Melee Attack, Ranged Attack, Charge (after its move, :func:`charge_move`) or All-Out
    Attack of ``attacker`` with ``weapon`` on ``target`` at ``distance`` yards.

    - Melee Attack, Charge, All-Out Attack: a melee weapon; the target adjacent, "within 2
      yards". Ranged Attack: a ranged weapon; "one visible enemy within range".
    - The weapon must be in hoof: in ``in_hoof`` when given, else not ``stowed`` in the sheet.
    - R29: the test is of the weapon's ability (Body by default) against the target's Defense
      with its effects (Defend +2, Guard Up +1/+2, All-Out Attack -1, talents); equal hits; a
      hit deals the weapon's damage die. Both stat blocks must give what that needs.
    - Charge: "You gain an upgrade on your attack roll." Aim (R35) and Guard Up's downgrades
      (all tests) come from the effects; everything stacks under one rule (R51, R61).
    - All-Out Attack: "If you hit, you get to upgrade the damage, but whether or not this attack
      hits, you suffer -1 to your Defense until your next turn."
    """
    spec = _spec(action)
    if action not in _ATTACKS:
        raise IllegalAction(f"{spec.label} is not an attack")
    damage_die, kind, reach, ability, stowed, wname = _weapon(sheet, attacker, weapon)
    want = "ranged" if action == "ranged_attack" else "melee"
    if kind != want:
        raise IllegalAction(f"{spec.label} needs a {want} weapon; {wname} is {kind}")
    if (wname not in in_hoof) if in_hoof is not None else stowed:
        raise IllegalAction(f"{wname} is stowed: ready it first (Ready, a minor action)")
    if want == "ranged" and not visible:
        raise IllegalAction("Ranged Attack: the enemy must be visible")
    if distance > reach:
        where = "adjacent (within 2 yards)" if want == "melee" else f"within range ({reach} yards)"
        raise IllegalAction(f"{spec.label}: the target must be {where}; it is {distance} yards "
                            "away")
    defense_base = _require(target_sheet.defense, target, "defense")
    _require(target_sheet.health, target, "health")
    extra = [Modifier("action", "Charge", 1)] if action == "charge" else []
    check = plan_check(ability, sheet.ability(ability),
                       step_modifiers(effects, attacker, attack=True, extra=extra), options)
    defense_mods = net(effects, target, DEFENSE)
    damage_extra = [Modifier("action", "All-Out Attack", 1)] if action == "all_out_attack" else []
    damage_steps = net(effects, attacker, DAMAGE_STEPS, damage_extra)
    own: tuple[Effect, ...] = ()
    if action == "all_out_attack":
        own = (Effect(holder=attacker, target=DEFENSE, value=-1, source_kind="action",
                      source="All-Out Attack", expiry=start_of_next_turn(attacker),
                      origin=attacker),)
    return AttackPlan(
        action=action, attacker=attacker, target=target, weapon=wname, check=check,
        defense=defense_base + defense_mods.total, defense_modifiers=defense_mods,
        damage=net_die(damage_die, damage_steps.total, options.die_ladder_overflow),
        damage_steps=damage_steps, attacker_effects=own)


class AttackRoll(msgspec.Struct, frozen=True, gc=False):
    """The attack test (Difficulty: Defense, R29) and, on a hit, the damage die to roll."""

    check: CheckResult
    hit: bool
    damage_die: Laddered | None
    text: str


def resolve_attack(plan: AttackPlan, face: int) -> AttackRoll:
    """R29: the attack hits if its face meets or beats the target's Defense."""
    check = resolve_check(plan.check, face, plan.defense)
    defense = f"Defense {plan.defense}"
    if plan.defense_modifiers.contributions:
        defense += f" ({plan.defense_modifiers.explain()})"
    text = (f"{plan.attacker} attacks {plan.target}: {check.rolled.describe()} vs {defense}: "
            f"{'hit' if check.success else 'miss'}")
    return AttackRoll(check=check, hit=check.success,
                      damage_die=plan.damage if check.success else None, text=text)


class DamageResult(msgspec.Struct, frozen=True, gc=False):
    """Damage dealt and the target's Health after it."""

    amount: int
    vitals: Vitals
    text: str


def resolve_damage(plan: AttackPlan, face: int, target_vitals: Vitals) -> DamageResult:
    """R29: a hit deals the damage die's face (All-Out Attack: the upgraded die) in Health;
    Health stops at 0, and losing Health clears the healed mark (R33)."""
    amount = face_total(face, plan.damage)
    after = take_damage(target_vitals, amount)
    die = die_name(plan.damage.sides)
    text = (f"{plan.target} takes {amount} damage ({die}); Health {after.health}/"
            f"{after.max_health}" + (" - out of the fight" if after.out_of_fight else ""))
    return DamageResult(amount=amount, vitals=after, text=text)


# --------------------------------------------------------------------------- stances


def _effect(actor: str, target: str, value: int, source: str, expiry: str,
            detail: str = "") -> Effect:
    return Effect(holder=actor, target=target, value=value, source_kind="action", source=source,
                  expiry=expiry, origin=actor, detail=detail)


def defend(actor: str) -> tuple[Effect, ...]:
    """DEFEND: "Until the beginning of your next turn, you gain a +2 bonus to your Defense." """
    return (_effect(actor, DEFENSE, 2, "Defend", start_of_next_turn(actor)),)


def guard_up(actor: str, amount: int, budget: TurnBudget) -> tuple[Effect, ...]:
    """GUARD UP: "+1 or +2 (your choice) to your Defense until the end of this round", and "a
    downgrade or a double downgrade ... to all tests you make, even opposed tests, for the
    remainder of the current round"; "you must do it before any major action you take this
    turn". A second Guard Up replaces the first (R51, via ``add_effect``)."""
    if amount not in (1, 2):
        raise IllegalAction("Guard Up adds +1 or +2 to Defense")
    if budget.major_taken:
        raise IllegalAction("Guard Up must come before any major action of the turn")
    return (_effect(actor, DEFENSE, amount, "Guard Up", END_OF_ROUND),
            _effect(actor, TEST_STEPS, -amount, "Guard Up", END_OF_ROUND))


def aim(actor: str) -> tuple[Effect, ...]:
    """AIM: "If your next action is a melee attack or ranged attack, you gain an upgrade on your
    attack die." R35: Charge and All-Out Attack count; free actions do not break it; any other
    action uses it up (``after_action``). Two Aims give one upgrade (R51)."""
    return (Effect(holder=actor, target=ATTACK_STEPS, value=1, source_kind="action",
                   source="Aim", expiry=NEXT_ACTION, origin=actor),)


def stand_firm(actor: str) -> tuple[Effect, ...]:
    """STAND FIRM: until the beginning of your next turn, Skirmish and Knock Prone stunts against
    you need an opposed Body test (:func:`resolve_stand_firm`)."""
    return (_effect(actor, STAND_FIRM, 1, "Stand Firm", start_of_next_turn(actor)),)


class Prepared(msgspec.Struct, frozen=True, gc=False):
    """A Prepare taken: the effect that holds the prepared action, and the turn, now over."""

    effect: Effect
    budget: TurnBudget


def prepare(actor: str, action: str, budget: TurnBudget) -> Prepared:
    """PREPARE (R36): name one major action and end the turn; refused after a major action this
    turn. The prepared action may interrupt anyone until the preparer's next turn starts, when
    it is lost (``start_turn``). ``budget`` is the turn's before Prepare is spent."""
    spec = _spec(action)
    if spec.kind is not ActionKind.MAJOR:
        raise IllegalAction(f"Prepare names a major action; {spec.label} is {spec.kind}")
    if budget.major_taken:
        raise IllegalAction("Prepare is refused after a major action this turn (ruling R36)")
    after = end_turn(spend(budget, ActionKind.MINOR, "prepare"),
                     "Prepare ends the turn (ruling R36)")
    return Prepared(effect=_effect(actor, PREPARED, 1, "Prepare", start_of_next_turn(actor),
                                   detail=action), budget=after)


def take_prepared(effects: Sequence[Effect], actor: str, action: str) -> tuple[Effect, ...]:
    """An interrupt with the prepared action (R36): allowed only if ``actor`` prepared exactly
    ``action`` and it has not lapsed; the effects without the Prepare, which is used."""
    for e in effects:
        if e.holder == actor and e.target == PREPARED and e.detail == action:
            return remove(effects, e)
    raise IllegalAction(f"{actor} has no prepared {_spec(action).label}")


def press_the_attack(actor: str, enemy: str, *, distance: int, struck_in_melee: bool,
                     speed: int) -> tuple[Effect, ...]:
    """PRESS THE ATTACK (R37): on an adjacent enemy the actor "already successfully struck in a
    melee scuffle this turn"; until its next turn, if that enemy moves away by its own action
    the actor may move up to its Speed in pursuit, once (:func:`pursuit_triggered`)."""
    if distance > MELEE_REACH:
        raise IllegalAction("Press the Attack: the enemy must be adjacent (within 2 yards)")
    if not struck_in_melee:
        raise IllegalAction("Press the Attack needs an enemy you struck in melee this turn")
    return (_effect(actor, PURSUIT, speed, "Press the Attack", start_of_next_turn(actor),
                    detail=enemy),)


def pursuit_triggered(effect: Effect, mover: str, *, own_action: bool, distance_before: int,
                      distance_after: int) -> bool:
    """R37: a Press the Attack ``effect`` triggers when its enemy ends movement made with its own
    action farther from the presser than it started; being moved by others does not count. The
    presser may then move up to ``effect.value`` yards at once; remove the effect after."""
    return (effect.target == PURSUIT and effect.detail == mover and own_action
            and distance_after > distance_before)


# --------------------------------------------------------------------------- movement

Posture = Literal["none", "go_prone", "stand", "mount"]


class Movement(msgspec.Struct, frozen=True, gc=False):
    """How far an action may move (yards), whether the mover is prone after, and why."""

    yards: int
    prone_after: bool
    reason: str


def move(speed: int, *, prone: bool, posture: Posture = "none") -> Movement:
    """MOVE: up to Speed in yards; going prone, standing up or mounting allows only half Speed
    (rounded down). R34: a Move by a combatant that is prone — since its turn began or knocked
    down this round — is at half Speed whether or not it stands; a later Move after standing has
    full Speed."""
    if posture == "stand" and not prone:
        raise IllegalAction("Move: you are not prone, there is nothing to stand up from")
    if posture == "go_prone" and prone:
        raise IllegalAction("Move: you are already prone")
    if posture != "none":
        why = {"go_prone": "going prone", "stand": "standing up", "mount": "mounting"}[posture]
        return Movement(speed // 2, prone_after=posture == "go_prone",
                        reason=f"half Speed for {why}")
    if prone:
        return Movement(speed // 2, prone_after=True, reason="half Speed while prone (R34)")
    return Movement(speed, prone_after=False, reason="Speed")


def run(speed: int, *, prone: bool) -> Movement:
    """RUN: "up to double your Speed in yards. You cannot take this action if you are prone"."""
    if prone:
        raise IllegalAction("Run is not allowed while prone: stand up with Move first")
    return Movement(speed * 2, prone_after=False, reason="double Speed")


def charge_move(speed: int, *, prone: bool) -> Movement:
    """CHARGE: "move up to half your Speed (rounded down) in yards and then make a melee attack
    against an adjacent enemy" (then :func:`plan_attack` with ``"charge"``). R62: not while
    prone."""
    if prone:
        raise IllegalAction("Charge is not allowed while prone: stand up with Move first "
                            "(ruling R62)")
    return Movement(speed // 2, prone_after=False, reason="half Speed, then attack")


# --------------------------------------------------------------------------- Heal


def plan_heal(*, healer: str, sheet: Sheet, in_hoof: frozenset[str], target: str,
              same_side: bool, distance: int, target_vitals: Vitals | None,
              effects: Sequence[Effect], options: AtOptions = DEFAULT) -> Planned:
    """HEAL (R33): refused before any roll unless the target is an ally other than the healer
    (option ``heal_self``), within 2 yards, below its maximum Health, not healed since it last
    lost Health, and the healer's bandages are in hoof. The test is the Mind die (with the
    healer's test steps, e.g. Guard Up) against Difficulty 4."""
    if target == healer and not options.heal_self:
        raise IllegalAction("Heal is for an injured ally, not yourself (ruling R33)")
    if not same_side:
        raise IllegalAction("Heal: the target must be an ally")
    if distance > MELEE_REACH:
        raise IllegalAction("Heal: you must be adjacent to your ally (within 2 yards, R33)")
    if "bandages" not in in_hoof:
        raise IllegalAction("Heal: you must have bandages ready (Ready them first, R33)")
    if target_vitals is None:
        raise IllegalAction(f"{target} has no health in its stat block (ruling R29)")
    if not target_vitals.injured:
        raise IllegalAction(f"Heal: {target} is not injured")
    if target_vitals.healed:
        raise IllegalAction(f"Heal: {target} cannot benefit from another heal until it takes "
                            "damage again (R33)")
    return plan_check("mind", sheet.ability("mind"), step_modifiers(effects, healer), options)


HEAL_DIFFICULTY = 4


class HealResult(msgspec.Struct, frozen=True, gc=False):
    """A Heal: the test, Health regained, the target after, and — with ``heal_rolls_again`` —
    the die still to roll for the amount (then :func:`heal_amount`)."""

    check: CheckResult
    healed: int
    vitals: Vitals
    amount_die: Laddered | None = None


def resolve_heal(planned: Planned, face: int, target_vitals: Vitals,
                 options: AtOptions = DEFAULT) -> HealResult:
    """HEAL: "a Difficulty 4 Mind test. If you are successful, your ally gets back an amount of
    Health equal to the roll of your Mind die" — the same face (R33), up to the maximum; the
    target is marked healed. A failure heals nothing and leaves no mark. With the option
    ``heal_rolls_again`` a success asks for a second roll of the same die."""
    check = resolve_check(planned, face, HEAL_DIFFICULTY)
    if not check.success:
        return HealResult(check=check, healed=0, vitals=target_vitals)
    if options.heal_rolls_again:
        return HealResult(check=check, healed=0, vitals=target_vitals, amount_die=planned.die)
    after = restore(target_vitals, check.rolled.total)
    return HealResult(check=check, healed=after.health - target_vitals.health, vitals=after)


def heal_amount(result: HealResult, face: int) -> HealResult:
    """The second roll of ``heal_rolls_again`` (R33): the target regains that face."""
    if result.amount_die is None:
        raise ValueError("this Heal needs no second roll")
    after = restore(result.vitals, face_total(face, result.amount_die))
    return HealResult(check=result.check, healed=after.health - result.vitals.health,
                      vitals=after)


# --------------------------------------------------------------------------- Stand Firm


def stand_firm_applies(effects: Sequence[Effect], target: str) -> bool:
    """Whether a Skirmish or Knock Prone stunt against ``target`` needs the opposed test."""
    return any(e.holder == target and e.target == STAND_FIRM for e in effects)


def plan_stand_firm(*, user: str, user_sheet: Sheet, target: str, target_sheet: Sheet,
                    effects: Sequence[Effect],
                    options: AtOptions = DEFAULT) -> tuple[Planned, Planned]:
    """STAND FIRM: "an opposed test pitting their Body die vs. your Body die", each with its
    test steps (Guard Up's downgrades apply "even [to] opposed tests"). One test per attack,
    however many yards of Skirmish are at stake."""
    return (plan_check("body", user_sheet.ability("body"), step_modifiers(effects, user),
                       options),
            plan_check("body", target_sheet.ability("body"), step_modifiers(effects, target),
                       options))


def resolve_stand_firm(user: str, user_plan: Planned, user_face: int, target: str,
                       target_plan: Planned, target_face: int,
                       options: AtOptions = DEFAULT) -> OpposedResult:
    """The opposed test; the stunt works only if ``winner == "first"`` (the stunt's user).
    Ties: the larger die, then the one Standing Firm, the defender (R38); ``winner`` ``None``
    only with ``opposed_tie_reroll``."""
    return resolve_opposed(Side(user, user_plan, user_face), Side(target, target_plan, target_face),
                           defender="second", options=options)


# --------------------------------------------------------------------------- Ready


def in_hoof_at_start(sheet: Sheet) -> frozenset[str]:
    """What a combatant holds when the scene starts: its weapons not marked ``stowed``, and
    ``"bandages"`` if its bandages are ``ready`` (R60)."""
    held = {w.name for w in sheet.weapons if not w.stowed}
    if sheet.bandages == "ready":
        held.add("bandages")
    return frozenset(held)


def ready(sheet: Sheet, in_hoof: frozenset[str], *, draw: str | None = None,
          stow: str | None = None) -> frozenset[str]:
    """READY: "unsheathe a weapon, pull out a potion, or otherwise ready an item that is
    stowed. As part of this action, you can put away something already in hoof." """
    if stow is not None and stow not in in_hoof:
        raise IllegalAction(f"Ready: {stow!r} is not in hoof")
    if draw is not None and draw in in_hoof:
        raise IllegalAction(f"Ready: {draw!r} is already in hoof")
    if draw == "bandages" and sheet.bandages == "none":
        raise IllegalAction("Ready: no bandages in the stat block")
    held = set(in_hoof) - {stow} if stow else set(in_hoof)
    return frozenset(held | {draw} if draw else held)
