"""The condition track and fatigue points ("MLP Dramatic Systems", FATIGUE POINTS AND DAMAGE
THRESHOLD, Condition, Persistent Conditions; rulings R14 to R18, R45, R50 in docs/rulings.md).

Every creature has a physical and a mental :class:`Track`; objects, plants and vehicles a
physical one only (R15). A track is six steps, 0 (normal) to 5 (bottom: a creature is
unconscious and helpless, an object, plant or vehicle destroyed), with ``persistent`` steps that
set a floor (R17) and ``crippling`` steps, persistent steps only the GM clears (R14.4):
``0 <= crippling <= persistent <= step <= 5``.

Public API (pure functions over plain data; dice results come in as numbers):

- ``Track(step, persistent, crippling)``; ``condition_penalty(step) -> int`` (R15);
  ``move_down(track, *, persistent=False, crippling=False)``, ``move_up(track, steps=1)``,
  ``make_persistent(track)`` (R17); ``condition_speed(speed, step, *, condition_half_speed)``.
- ``fatigue_loss(fatigue_points, loss, threshold, track, *, source, nature, ...) -> FatigueLoss``
  (R14, R45): fatigue points after the loss and every step it causes.
- ``zero_fatigue(fatigue_points, *, zero_fp_single_action) -> ZeroFatigue`` (R14.5).
- ``heal(...) -> Healing`` (healing; R16 revive), ``constitution_check(...) ->
  ConstitutionCheck`` (R16), ``second_lunch(...) -> SecondLunch``, ``recover(...) -> int``
  (R18), ``natural_healing(...) -> Rest``, ``end_of_scene(...) -> SceneEnd`` (R50).
- ``fatigue_band(fatigue, fatigue_max) -> FatigueBand | None``: how the points stand, in the
  four bands the table sees of an NPC whose points are behind the GM's screen (R105).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

import msgspec

from rules.modifiers import RuleRefusal
from rules.sheet import DamageSource, Nature, Sheet

#: The last step of a track (R15).
BOTTOM = 5

#: Ruling R15: the penalty of each step. The bottom step has none in the table: the creature is
#: unconscious and helpless (HELPLESS CONDITION applies instead), an object destroyed.
CONDITION_PENALTIES: tuple[int, ...] = (0, -1, -2, -5, -10, 0)

#: Falling Unconscious: "a DC 10 Constitution check".
CONSTITUTION_DC = 10


class Track(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One condition track (R15, R17): ``step`` 0 to 5, of which ``persistent`` are persistent
    and, of those, ``crippling`` are crippling (R14.4)."""

    step: int = 0
    persistent: int = 0
    crippling: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.crippling <= self.persistent <= self.step <= BOTTOM:
            raise ValueError(f"a track needs 0 <= crippling <= persistent <= step <= {BOTTOM}")

    @property
    def at_bottom(self) -> bool:
        return self.step == BOTTOM

    @property
    def penalty(self) -> int:
        return condition_penalty(self.step)


def condition_penalty(step: int) -> int:
    """R15: normal 0, then -1, -2, -5, -10; the bottom step has no penalty of its own."""
    if not 0 <= step <= BOTTOM:
        raise ValueError(f"condition step must be 0..{BOTTOM}")
    return CONDITION_PENALTIES[step]


def condition_speed(speed: int, step: int, *, condition_half_speed: bool = False) -> int:
    """R15, option ``condition_half_speed`` (default ``False``): at step 3 or 4 a creature moves
    at half speed (rounded down), as in SWSE; otherwise the track does not change speed."""
    if condition_half_speed and step in (3, 4):
        return speed // 2
    return speed


def move_down(track: Track, *, persistent: bool = False, crippling: bool = False) -> Track:
    """One step down (The Condition Track). A persistent step adds 1 to the step and to the
    persistent steps (R17); a crippling step is also persistent (R14.4). A move past the bottom
    has no further effect on the step (R15); the persistent count still grows up to it."""
    step = min(BOTTOM, track.step + 1)
    p = min(step, track.persistent + 1) if persistent or crippling else track.persistent
    c = min(p, track.crippling + 1) if crippling else track.crippling
    return Track(step=step, persistent=p, crippling=c)


def move_up(track: Track, steps: int = 1) -> Track:
    """R17: moving up subtracts from the step but never below the persistent steps; a move that
    would go below them stops there (or does nothing)."""
    if steps < 0:
        raise ValueError("steps must not be negative")
    return msgspec.structs.replace(track, step=max(track.persistent, track.step - steps))


def make_persistent(track: Track) -> Track:
    """R16/R17: "one condition becomes persistent" — one more of the current steps is
    persistent (no move down); nothing changes when all are already persistent."""
    return msgspec.structs.replace(track, persistent=min(track.step, track.persistent + 1))


class LossTier(StrEnum):
    """R14.2: what a fatigue loss at 0 fatigue points does."""

    NONE = "none"
    STEP = "step"
    PERSISTENT = "persistent"
    CRIPPLING = "crippling"
    FATAL = "fatal"


class FatigueLoss(msgspec.Struct, frozen=True, kw_only=True):
    """The consequences of one fatigue loss (R14).

    ``threshold_reached``: the loss met the damage threshold while above 0 fp (R45: -1 step).
    ``at_zero``: the part of the loss resolved at 0 fp (a later loss, or the excess of this one
    when ``zero_fp_overflow_counts``), and ``tier`` what it did (R14.2). ``dead``: a physical
    fatal blow killed a creature; ``destroyed``: an object, plant or vehicle reached the bottom
    (or took a fatal blow); ``unconscious``: a creature is at the bottom of this track.
    """

    source: DamageSource
    loss: int
    threshold: int
    fatigue_before: int
    fatigue_after: int
    threshold_reached: bool
    at_zero: int
    tier: LossTier
    track_before: Track
    track_after: Track
    steps_moved: int
    dead: bool
    destroyed: bool
    unconscious: bool
    sections: tuple[str, ...]


def _zero_tier(x: int, t: int, *, inclusive: bool) -> LossTier:
    """R14.2 with threshold ``t``: >= 3T fatal; > 2T crippling; > T persistent; >= 1 a step.
    ``zero_fp_threshold_inclusive`` makes the middle tiers >= 2T and >= T."""
    if x <= 0:
        return LossTier.NONE
    if x >= 3 * t:
        return LossTier.FATAL
    if (x >= 2 * t) if inclusive else (x > 2 * t):
        return LossTier.CRIPPLING
    if (x >= t) if inclusive else (x > t):
        return LossTier.PERSISTENT
    return LossTier.STEP


def fatigue_loss(
    fatigue_points: int,
    loss: int,
    threshold: int,
    track: Track,
    *,
    source: DamageSource = DamageSource.PHYSICAL,
    nature: Nature = Nature.CREATURE,
    zero_fp_threshold_inclusive: bool = False,
    zero_fp_overflow_counts: bool = True,
) -> FatigueLoss:
    """Apply one fatigue loss (after damage reduction, R13) to ``fatigue_points`` and the
    ``track`` of its ``source`` (FATIGUE POINTS AND DAMAGE THRESHOLD; rulings R14, R45).

    1. Above 0 fp: fp becomes max(0, fp - loss); a loss >= ``threshold`` moves -1 step (R45).
       The excess over the fp the creature had is resolved at 0 fp (option
       ``zero_fp_overflow_counts``, default ``True``; ``False`` discards it).
    2. At 0 fp (R14.2, "instead"): >= 3T fatal; > 2T one persistent and one crippling step;
       > T one persistent step; otherwise one step (option ``zero_fp_threshold_inclusive``,
       default ``False``, makes the middle tiers inclusive).
    3. A physical fatal blow kills a creature and destroys anything else; a mental one moves the
       mental track to its bottom (R14.3). The bottom step makes a creature unconscious and
       destroys an object, plant or vehicle (R15).

    A threshold below 1 counts as 1, so that a loss of 0 never reaches it.
    """
    if fatigue_points < 0:
        raise ValueError("fatigue points cannot be negative")
    if loss < 0:
        raise ValueError("a fatigue loss cannot be negative")
    if source is DamageSource.MENTAL and nature is not Nature.CREATURE:
        raise ValueError("objects, plants and vehicles have no mental track (ruling R15)")
    t = max(1, threshold)
    sections = ["FATIGUE POINTS AND DAMAGE THRESHOLD (R14)"]
    after = track
    fp_after = max(0, fatigue_points - loss)
    reached = False
    at_zero = 0
    if fatigue_points > 0:
        if loss >= t:
            reached = True
            after = move_down(after)
            sections.append("Damage Threshold: equals or exceeds (R45)")
        if loss > fatigue_points and zero_fp_overflow_counts:
            at_zero = loss - fatigue_points
    else:
        at_zero = loss
    tier = _zero_tier(at_zero, t, inclusive=zero_fp_threshold_inclusive)
    dead = False
    if tier is not LossTier.NONE:
        sections.append("0 Fatigue Points (R14.2)")
    if tier is LossTier.STEP:
        after = move_down(after)
    elif tier is LossTier.PERSISTENT:
        after = move_down(after, persistent=True)
    elif tier is LossTier.CRIPPLING:
        after = move_down(move_down(after, persistent=True), crippling=True)
    elif tier is LossTier.FATAL:
        sections.append("fatal blow (R14.3)")
        after = msgspec.structs.replace(after, step=BOTTOM)
        dead = source is DamageSource.PHYSICAL and nature is Nature.CREATURE
    creature = nature is Nature.CREATURE
    return FatigueLoss(
        source=source, loss=loss, threshold=threshold, fatigue_before=fatigue_points,
        fatigue_after=fp_after, threshold_reached=reached, at_zero=at_zero, tier=tier,
        track_before=track, track_after=after, steps_moved=after.step - track.step,
        dead=dead, destroyed=not creature and after.at_bottom,
        unconscious=creature and not dead and after.at_bottom, sections=tuple(sections),
    )


class ZeroFatigue(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """R14.5 "Defenseless": at 0 fp no Dexterity bonus to Reflex and no Intelligence bonus to
    Wits (see rules.defenses), no reactions, and only a single standard, move or swift action."""

    defenseless: bool
    reactions: bool
    single_action: bool


def zero_fatigue(fatigue_points: int, *, zero_fp_single_action: bool = True) -> ZeroFatigue:
    """R14.5: what 0 fatigue points take away (option ``zero_fp_single_action``, default
    ``True``; ``False``: the creature acts normally and is only defenseless)."""
    zero = fatigue_points <= 0
    return ZeroFatigue(defenseless=zero, reactions=not zero,
                       single_action=zero and zero_fp_single_action)


class Healing(msgspec.Struct, frozen=True, kw_only=True):
    """The result of healing: fatigue points, the tracks, and whether it revived an unconscious
    creature (which is then prone, R16)."""

    fatigue_before: int
    fatigue_after: int
    physical: Track
    mental: Track
    revived: bool
    prone: bool


def heal(fatigue_points: int, max_fatigue: int, amount: int, *, physical: Track, mental: Track,
         unconscious: bool = False) -> Healing:
    """Healing of ``amount`` fatigue points, never above the maximum.

    Falling Unconscious (ruling R16): "A character or creature that receives any kind of healing
    while unconscious immediately revives ... (but starts prone); the healed character ... has a
    number of hit points equal to the amount of healing it received, and it moves + 1 step" —
    every track at its bottom moves +1 (never below its persistent steps, R17).
    """
    if amount < 0:
        raise ValueError("healing cannot be negative")
    if not unconscious:
        after = min(max_fatigue, fatigue_points + amount)
        return Healing(fatigue_before=fatigue_points, fatigue_after=after, physical=physical,
                       mental=mental, revived=False, prone=False)
    phys = move_up(physical) if physical.at_bottom else physical
    ment = move_up(mental) if mental.at_bottom else mental
    revived = not (phys.at_bottom or ment.at_bottom)
    return Healing(fatigue_before=fatigue_points, fatigue_after=min(max_fatigue, amount),
                   physical=phys, mental=ment, revived=revived, prone=True)


class ConstitutionCheck(msgspec.Struct, frozen=True, kw_only=True):
    """R16: the check of an unconscious creature, its result and the tracks after it."""

    natural: int
    modifier: int
    total: int
    dc: int
    success: bool
    physical: Track
    mental: Track
    conscious: bool


def constitution_check(natural: int, con_modifier: int, *, physical: Track,
                       mental: Track) -> ConstitutionCheck:
    """Falling Unconscious (ruling R16): 1d20 + Constitution modifier against DC 10; meeting the
    DC succeeds; no condition penalty, no special natural 20 or 1 (R44). Success: +1 step on
    the track(s) at the bottom (down to the persistent steps, R17), conscious and prone.
    Failure: one condition becomes persistent (R17) — on the physical track if it is at the
    bottom, else on the mental track — and the creature stays unconscious."""
    if not 1 <= natural <= 20:
        raise ValueError("a d20 shows 1 to 20")
    total = natural + con_modifier
    success = total >= CONSTITUTION_DC
    phys, ment = physical, mental
    if success:
        phys = move_up(phys) if phys.at_bottom else phys
        ment = move_up(ment) if ment.at_bottom else ment
    elif phys.at_bottom or not ment.at_bottom:
        phys = make_persistent(phys)
    else:
        ment = make_persistent(ment)
    return ConstitutionCheck(natural=natural, modifier=con_modifier, total=total,
                             dc=CONSTITUTION_DC, success=success, physical=phys, mental=ment,
                             conscious=not (phys.at_bottom or ment.at_bottom))


class SecondLunch(msgspec.Struct, frozen=True, kw_only=True):
    """Second Lunch: fatigue regained (a quarter of the maximum, rounded down, plus the food
    bonus), the action it costs (swift; full-round with food) and the uses after it."""

    fatigue_before: int
    regained: int
    food_bonus: int
    fatigue_after: int
    action: str
    uses_today: int


def second_lunch_refusal(sheet: Sheet, fatigue_points: int, *, uses_today: int,
                         used_this_encounter: bool) -> str | None:
    """Why :func:`second_lunch` is refused now, or ``None`` when it is allowed."""
    section = "Second Lunch"
    if sheet.nature is not Nature.CREATURE:
        return f"{section}: objects, plants and vehicles cannot catch a second lunch"
    maximum = sheet.fatigue_points
    if fatigue_points * 2 > maximum:
        return (f"{section}: only at one-half the maximum fatigue points or less "
                f"({fatigue_points} of {maximum})")
    if used_this_encounter:
        return f"{section}: never more than once in a single encounter"
    per_day = 1 + sheet.feat_count("extra_second_lunch")
    if uses_today >= per_day:
        return f"{section}: already used {uses_today} of {per_day} times today"
    return None


def second_lunch(sheet: Sheet, fatigue_points: int, *, uses_today: int,
                 used_this_encounter: bool, food_bonus: int = 0) -> SecondLunch:
    """Second Lunch / SWIFT ACTIONS -> Catch a Second Lunch / FULL-ROUND ACTIONS -> Catch a Second
    Lunch with Food.

    Allowed only to creatures ("objects, plants, and vehicles cannot"), at one-half the maximum
    fatigue points or less, once per day (once more per ``extra_second_lunch`` feat listed), and
    "never more than once in a single encounter". Heals one-quarter of the maximum (rounded down)
    plus ``food_bonus`` (eating makes it a full-round action), never above the maximum.
    Raises :class:`RuleRefusal` with the reason otherwise.
    """
    if food_bonus < 0:
        raise ValueError("a food bonus cannot be negative")
    refused = second_lunch_refusal(sheet, fatigue_points, uses_today=uses_today,
                                   used_this_encounter=used_this_encounter)
    if refused is not None:
        raise RuleRefusal(refused)
    maximum = sheet.fatigue_points
    regained = maximum // 4
    after = min(maximum, fatigue_points + regained + food_bonus)
    return SecondLunch(fatigue_before=fatigue_points, regained=regained, food_bonus=food_bonus,
                       fatigue_after=after, action="full_round" if food_bonus else "swift",
                       uses_today=uses_today + 1)


def recover(sheet: Sheet, fatigue_points: int, *, physical: Track, mental: Track,
            in_scene: bool = True, recover_in_scene: bool = False) -> int:
    """Recover (ruling R18): three swift actions (or a full-round action) regain 1 fatigue point,
    never above the maximum. Refused in a dramatic scene unless ``recover_in_scene`` (default
    ``False``), and always refused with a persistent step on any track (R17). Returns the new
    fatigue points."""
    if in_scene and not recover_in_scene:
        raise RuleRefusal("Recover: not available in a dramatic scene (ruling R18)")
    if physical.persistent or mental.persistent:
        raise RuleRefusal("Recover: not while affected by a persistent condition (ruling R17)")
    return min(sheet.fatigue_points, fatigue_points + 1)


class Rest(msgspec.Struct, frozen=True, kw_only=True):
    """Natural Healing after eight hours of rest."""

    fatigue_after: int
    physical: Track
    mental: Track


def natural_healing(sheet: Sheet, *, physical: Track, mental: Track,
                    healed_in_last_day: bool = False) -> Rest:
    """Natural Healing: eight uninterrupted hours of rest restore all fatigue points and the whole
    track — only for living creatures, once in 24 hours, and never with a persistent condition
    (R17). Raises :class:`RuleRefusal` otherwise."""
    if sheet.nature is not Nature.CREATURE:
        raise RuleRefusal("Natural Healing: only living creatures heal naturally")
    if healed_in_last_day:
        raise RuleRefusal("Natural Healing: only once in a 24-hour period")
    if physical.persistent or mental.persistent:
        raise RuleRefusal("Natural Healing: not with a persistent condition (ruling R17)")
    return Rest(fatigue_after=sheet.fatigue_points, physical=Track(), mental=Track())


class SceneEnd(msgspec.Struct, frozen=True, kw_only=True):
    """R50: the tracks after the end-of-scene improvement."""

    physical: Track
    mental: Track
    improved: bool


def end_of_scene(sheet: Sheet, *, physical: Track, mental: Track, unconscious: bool = False,
                 dead: bool = False, end_of_scene_recovery: bool = True) -> SceneEnd:
    """Removing Conditions (ruling R50): when the encounter ends, every living, conscious
    creature moves +1 step on each track, never below its persistent steps (R17). Unconscious
    creatures wake only by their Constitution check (R16, rolled first); objects do not improve.
    Option ``end_of_scene_recovery`` (default ``True``; ``False`` leaves the tracks)."""
    conscious = not (unconscious or physical.at_bottom or mental.at_bottom)
    if not end_of_scene_recovery or dead or not conscious or sheet.nature is not Nature.CREATURE:
        return SceneEnd(physical=physical, mental=mental, improved=False)
    return SceneEnd(physical=move_up(physical), mental=move_up(mental), improved=True)


#: How fatigue points (Health) stand against their maximum (ruling R105): ``full``; ``above_half``;
#: ``half_or_less``, the line of Second Lunch ("reduced to one-half your maximum Fatigue points
#: or less", SWIFT ACTIONS); ``none``, at 0 ("A creature reduced to 0 fatigue points it lose
#: the ability to defend it self", Fatigue Points).
FatigueBand = Literal["full", "above_half", "half_or_less", "none"]


def fatigue_band(fatigue: int | None, fatigue_max: int | None) -> FatigueBand | None:
    """The band of ``fatigue`` points out of ``fatigue_max`` (``None`` without a maximum)."""
    if fatigue is None or not fatigue_max:
        return None
    if fatigue <= 0:
        return "none"
    if fatigue >= fatigue_max:
        return "full"
    return "half_or_less" if 2 * fatigue <= fatigue_max else "above_half"
