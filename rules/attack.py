"""The attack roll ("MLP Dramatic Systems", COMBAT STATISTICS -> ATTACK ROLL, Critical Hits,
Automatic Misses; STANDARD ACTIONS; CONCEALMENT; COVER; PRONE TARGETS; HELPLESS CONDITION;
RANGED MANEUVER INTO A MELEE; rulings R9, R10, R11, R24, R44, R53).

Resolution is staged so that the dice can come from anywhere (a seeded roll or a player's
physical die):

1. ``attack_check(attacker, target, ...) -> AttackCheck`` — the attack bonus as itemised
   modifiers, and the defense it is compared with (itemised too, cover included). Raises
   :class:`~rules.modifiers.RuleRefusal` when no attack is allowed (total cover, out of range).
2. ``attack_outcome(check, natural_d20) -> AttackOutcome`` — hit or miss, critical hit on a
   natural 20, automatic miss on a natural 1 (R44).

Helpers: ``range_band(weapon, distance) -> RangeBand``; ``aid_another(check_total) -> bool``
and ``distraction(check_total) -> bool`` (R11); ``perception_modifiers(concealment)``.

The situation of one attack (cover, concealment, range, aiders, ...) is a :class:`Situation`;
the state of each side (prone, flat-footed, tracks, ...) a :class:`~rules.defenses.Status`.
Options (encounter options, docs/rulings.md) are keyword parameters with their defaults:
``creatures_block_line_of_sight`` (R9), ``prone_helpless_bonuses_stack`` (R10),
``non_dexterous_penalty`` (R24).
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from rules.defenses import Defense, DefenseName, Status, defenses, effect_parts, largest
from rules.modifiers import Modifier, RuleRefusal, total
from rules.sheet import Sheet, Weapon, WeaponKind


class AttackKind(StrEnum):
    MELEE = "melee"
    RANGED = "ranged"
    THROWN = "thrown"
    NATURAL = "natural"
    UNARMED = "unarmed"
    GRAB = "grab"


#: Attacks made with the Melee skill (ATTACK ROLL: "melee weapon or unarmed attack").
MELEE_KINDS = frozenset({AttackKind.MELEE, AttackKind.NATURAL, AttackKind.UNARMED,
                         AttackKind.GRAB})
#: Attacks made with the Ranged skill and a range penalty.
RANGED_KINDS = frozenset({AttackKind.RANGED, AttackKind.THROWN})


class Cover(StrEnum):
    NONE = "none"
    COVER = "cover"
    IMPROVED = "improved"
    TOTAL = "total"


class Concealment(StrEnum):
    NONE = "none"
    CONCEALMENT = "concealment"
    TOTAL = "total"


class RangeBand(StrEnum):
    POINT_BLANK = "point_blank"
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"


#: STANDARD ACTIONS -> Ranged: "no penalty ... -2 at short range, -5 at medium range, and -10 at
#: long range".
RANGE_PENALTY: dict[RangeBand, int] = {
    RangeBand.POINT_BLANK: 0, RangeBand.SHORT: -2, RangeBand.MEDIUM: -5, RangeBand.LONG: -10,
}

#: COVER: +2; Improved Cover: +4 (to Reflex Defense).
COVER_BONUS: dict[Cover, int] = {Cover.NONE: 0, Cover.COVER: 2, Cover.IMPROVED: 4}

#: CONCEALMENT: -2; Total Concealment: -5 on the attack (attacking the square).
CONCEALMENT_PENALTY: dict[Concealment, int] = {
    Concealment.NONE: 0, Concealment.CONCEALMENT: -2, Concealment.TOTAL: -5,
}

#: CONCEALMENT: Perception checks to notice a target: -5; total concealment: -10.
PERCEPTION_PENALTY: dict[Concealment, int] = {
    Concealment.NONE: 0, Concealment.CONCEALMENT: -5, Concealment.TOTAL: -10,
}


class Situation(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The circumstances of one attack, as the map or the GM states them.

    ``defense``: the defense the action targets (Reflex unless the action says otherwise).
    ``distance``: squares to the target (ranged and thrown), or ``range_band`` stated directly.
    ``adjacent``: attacker and target are adjacent (an adjacent target never has cover).
    ``creatures_in_the_way``: a creature between them (gives cover, R9).
    ``into_melee``: a ranged attack at a target adjacent to non-targets.
    ``aiders``: allies whose Aid Another succeeded (R11). ``unaware``: the target is unaware of
    this attack (R41).
    """

    defense: DefenseName = DefenseName.REFLEX
    distance: int | None = None
    range_band: RangeBand | None = None
    adjacent: bool = False
    cover: Cover = Cover.NONE
    creatures_in_the_way: bool = False
    concealment: Concealment = Concealment.NONE
    into_melee: bool = False
    aiders: int = 0
    unaware: bool = False


class AttackCheck(msgspec.Struct, frozen=True, kw_only=True):
    """Everything about an attack but the die: the attack bonus (sum of ``parts``) and the
    ``defense`` it must meet."""

    weapon: str
    kind: AttackKind
    skill: str
    parts: tuple[Modifier, ...]
    bonus: int
    defense: Defense
    range_band: RangeBand | None = None


class AttackOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """The attack with its die: ``automatic`` is ``"hit"`` on a natural 20, ``"miss"`` on a
    natural 1, else ``""`` (R44)."""

    natural: int
    bonus: int
    total: int
    defense: int
    hit: bool
    critical: bool
    automatic: str


def range_band(weapon: Weapon, distance: int) -> RangeBand:
    """STANDARD ACTIONS -> Ranged: the band the distance (squares) falls in; beyond long range
    the attack is refused."""
    if distance < 0:
        raise ValueError("distance cannot be negative")
    bands = weapon.range_bands()
    for band, last in ((RangeBand.POINT_BLANK, bands.point_blank), (RangeBand.SHORT, bands.short),
                       (RangeBand.MEDIUM, bands.medium), (RangeBand.LONG, bands.long)):
        if distance <= last:
            return band
    raise RuleRefusal(f"STANDARD ACTIONS: {distance} squares is beyond the long range of "
                      f"{weapon.name} ({bands.long} squares)")


def _kind(weapon: Weapon, *, throw: bool, grab: bool) -> AttackKind:
    if grab:
        return AttackKind.GRAB
    if throw:
        if weapon.kind in (WeaponKind.NATURAL, WeaponKind.UNARMED):
            raise ValueError(f"{weapon.name} cannot be thrown")
        return AttackKind.THROWN
    return AttackKind(weapon.kind.value)


def attack_check(
    attacker: Sheet,
    target: Sheet,
    *,
    weapon: Weapon | str | None = None,
    attacker_status: Status | None = None,
    target_status: Status | None = None,
    situation: Situation | None = None,
    throw: bool = False,
    grab: bool = False,
    target_defense: Defense | None = None,
    creatures_block_line_of_sight: bool = False,
    prone_helpless_bonuses_stack: bool = False,
    non_dexterous_penalty: int = 2,
) -> AttackCheck:
    """ATTACK ROLL: 1d20 + Melee skill (melee, unarmed, natural, grab) or 1d20 + Ranged skill +
    range penalty (ranged, thrown), compared with the target's defense, with every situational
    modifier itemised:

    - range: point blank 0, short -2, medium -5, long -10 (STANDARD ACTIONS);
    - improvised thrown object (or throwing a weapon not made to be thrown): -5;
    - ranged into melee: -2, not with ``precise_shot`` (RANGED MANEUVER INTO A MELEE);
    - prone or helpless target: melee +2 once (both: +4 with ``prone_helpless_bonuses_stack``);
      prone target, ranged or thrown: -2 (PRONE TARGETS, HELPLESS CONDITION, R10);
    - prone attacker: -2 on melee attacks (PRONE TARGETS, R53);
    - concealment -2, total concealment -5 (CONCEALMENT);
    - aid another: +2 per successful aider (R11); distracted -2 (R11); grabbed -2 (Grab);
    - grab: -5, and ``non_dexterous_penalty`` more for a non-dexterous grabber (R24);
    - condition penalties of both tracks (R15); the attacker's effects on ``attack`` and
      ``checks`` (R90, R92);
    - on the defense: cover +2, improved cover +4 (Reflex only; never for an adjacent target; a
      creature in the way gives cover, R9); total cover refuses the attack (COVER).

    ``weapon``: a weapon of the attacker's sheet by name, a :class:`Weapon` (an improvised
    object), or ``None`` for unarmed. ``throw``: throw a melee weapon. ``target_defense``:
    use this defense instead of the target's own (objects, rules.objects).
    """
    a_st = attacker_status or Status()
    t_st = target_status or Status()
    sit = situation or Situation()
    if a_st.is_unconscious:
        raise RuleRefusal("Falling Unconscious: an unconscious creature takes no actions")
    w = attacker.weapon(weapon) if isinstance(weapon, str) else weapon or attacker.weapon(
        "unarmed")
    kind = _kind(w, throw=throw, grab=grab)
    ranged = kind in RANGED_KINDS
    if sit.cover is Cover.TOTAL:
        raise RuleRefusal("COVER: a target with total cover cannot be attacked")
    if sit.creatures_in_the_way and ranged and creatures_block_line_of_sight:
        raise RuleRefusal("LINE OF SIGHT: a creature in the way blocks the shot "
                          "(option creatures_block_line_of_sight, R9)")
    if sit.aiders < 0:
        raise ValueError("aiders cannot be negative")

    skill = "ranged" if ranged else "melee"
    parts = [Modifier(f"{skill.capitalize()} skill", attacker.skill(skill), "ATTACK ROLL")]
    band: RangeBand | None = None
    if ranged:
        if sit.range_band is not None:
            band = sit.range_band
        elif sit.distance is not None:
            band = range_band(w, sit.distance)
        else:
            raise ValueError("a ranged or thrown attack needs the distance or the range band")
        parts.append(Modifier(f"range ({band.value.replace('_', ' ')})", RANGE_PENALTY[band],
                              "STANDARD ACTIONS: Ranged"))
        if w.improvised or (kind is AttackKind.THROWN and w.kind is not WeaponKind.THROWN):
            parts.append(Modifier("improvised thrown object", -5,
                                  "STANDARD ACTIONS: Improvised Thrown Objects"))
        if sit.into_melee:
            if attacker.has_feat("precise_shot"):
                parts.append(Modifier("into melee (Precise Shot)", 0,
                                      "RANGED MANEUVER INTO A MELEE"))
            else:
                parts.append(Modifier("into melee", -2, "RANGED MANEUVER INTO A MELEE"))

    # The target on the ground (R10).
    if ranged:
        if t_st.prone:
            parts.append(Modifier("prone target", -2, "PRONE TARGETS (R10)"))
    else:
        helpless = t_st.is_helpless
        if t_st.prone and helpless and prone_helpless_bonuses_stack:
            parts.append(Modifier("prone target", 2, "PRONE TARGETS (R10)"))
            parts.append(Modifier("helpless target", 2, "HELPLESS CONDITION (R10)"))
        elif helpless:
            parts.append(Modifier("helpless target", 2, "HELPLESS CONDITION (R10)"))
        elif t_st.prone:
            parts.append(Modifier("prone target", 2, "PRONE TARGETS (R10)"))
        if a_st.prone:
            parts.append(Modifier("attacking while prone", -2, "PRONE TARGETS (R53)"))

    if sit.concealment is not Concealment.NONE:
        name = "total concealment" if sit.concealment is Concealment.TOTAL else "concealment"
        penalty = CONCEALMENT_PENALTY[sit.concealment]
        held = largest(attacker, a_st, "concealment", "attack", "checks")
        if held:  # R92: "Multiple sources of concealment [...] do not apply additional penalties"
            name += " (one concealment penalty with the effect's, R92)"
            penalty = min(0, penalty - held)
        parts.append(Modifier(name, penalty, "CONCEALMENT"))
    if sit.aiders:
        parts.append(Modifier(f"aid another ({sit.aiders})", 2 * sit.aiders,
                              "STANDARD ACTIONS: Aid Another (R11)"))
    if a_st.distracted:
        parts.append(Modifier("distracted", -2, "STANDARD ACTIONS: Distraction (R11)"))
    if a_st.grabbed:
        parts.append(Modifier("grabbed", -2, "STANDARD ACTIONS: Grab"))
    if kind is AttackKind.GRAB:
        parts.append(Modifier("grab", -5, "STANDARD ACTIONS: Grab"))
        if attacker.non_dexterous and non_dexterous_penalty:
            parts.append(Modifier("non-dexterous", -non_dexterous_penalty,
                                  "STANDARD ACTIONS: Grab (R24)"))
    parts += a_st.condition_modifiers()
    parts += effect_parts(attacker, a_st, "attack", "checks")  # R90, R92

    defense = target_defense or defenses(target, t_st, unaware=sit.unaware).get(sit.defense)
    cover = sit.cover
    if cover is Cover.NONE and sit.creatures_in_the_way:
        cover = Cover.COVER
    if cover is not Cover.NONE and defense.name is DefenseName.REFLEX and not sit.adjacent:
        label = "improved cover" if cover is Cover.IMPROVED else "cover"
        section = "COVER: Improved Cover" if cover is Cover.IMPROVED else "COVER (R9)"
        value = COVER_BONUS[cover]
        held = largest(target, t_st, "cover", "reflex_defense", "defenses")
        if held and target_defense is None:  # R92: one cover bonus, however many sources
            label += " (one cover bonus with the effect's, R92)"
            value = max(0, value - held)
        bonus = Modifier(label, value, section)
        defense = Defense(defense.name, defense.total + bonus.value, (*defense.parts, bonus))
    return AttackCheck(weapon=w.name, kind=kind, skill=skill, parts=tuple(parts),
                       bonus=total(parts), defense=defense, range_band=band)


def attack_outcome(check: AttackCheck, natural: int) -> AttackOutcome:
    """Critical Hits / Automatic Misses (R44): a natural 20 hits and is a critical hit (double
    damage); a natural 1 misses; otherwise the total hits when it equals or exceeds the
    defense."""
    return d20_outcome(natural, check.bonus, check.defense.total)


def d20_outcome(natural: int, bonus: int, defense: int) -> AttackOutcome:
    """A d20 roll with ``bonus`` against ``defense`` as an attack is judged (R44): natural 20
    hits and is critical, natural 1 misses, otherwise meeting the defense hits."""
    if not 1 <= natural <= 20:
        raise ValueError("a d20 shows 1 to 20")
    result = natural + bonus
    if natural == 20:
        hit, automatic = True, "hit"
    elif natural == 1:
        hit, automatic = False, "miss"
    else:
        hit, automatic = result >= defense, ""
    return AttackOutcome(natural=natural, bonus=bonus, total=result, defense=defense, hit=hit,
                         critical=natural == 20, automatic=automatic)


#: STANDARD ACTIONS -> Aid Another / Distraction: the DC (R11).
AID_DC = 10


def aid_another(check_total: int) -> bool:
    """Aid Another (R11): the aider's check total (not the natural die) succeeds at 10 or more;
    each success gives the ally +2 (``Situation.aiders``)."""
    return check_total >= AID_DC


def distraction(check_total: int) -> bool:
    """Distraction (R11): a check total of 10 or more gives the target -2 on its next skill roll
    (``Status.distracted``)."""
    return check_total >= AID_DC


def perception_modifiers(concealment: Concealment) -> list[Modifier]:
    """CONCEALMENT: noticing a target with concealment -5, with total concealment -10."""
    if concealment is Concealment.NONE:
        return []
    return [Modifier(f"{concealment.value} (Perception)", PERCEPTION_PENALTY[concealment],
                     "CONCEALMENT")]
