"""Defenses and damage thresholds ("MLP Dramatic Systems", DEFENSES, FATIGUE POINTS AND DAMAGE
THRESHOLD -> Damage Threshold, HELPLESS CONDITION; rulings R10, R14.5, R15, R41).

Each defense is a :class:`Defense` — its total and the itemised :class:`~rules.modifiers.Modifier`
parts it is the sum of — computed from a :class:`~rules.sheet.Sheet` and the combatant's
current :class:`Status` (tracks, fatigue points, flat-footed, helpless, prone, ...).

Public API:

- ``Status`` — a combatant's state that the rules read (frozen msgspec Struct).
- ``defenses(sheet, status=Status(), *, unaware=False) -> Defenses`` — Reflex, Fortitude, Will
  and Wits Defense (``Defenses.get(name)``).
- ``damage_thresholds(sheet, defenses) -> Thresholds`` — physical and mental damage thresholds.
- ``DefenseName`` — ``reflex``, ``fortitude``, ``will``, ``wits``.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from rules.condition_track import Track
from rules.effects import Held, stack_dramatic
from rules.modifiers import Modifier, total
from rules.sheet import REFLEX_SIZE_MODIFIER, THRESHOLD_SIZE_BONUS, DamageSource, Sheet


class DefenseName(StrEnum):
    REFLEX = "reflex"
    FORTITUDE = "fortitude"
    WILL = "will"
    WITS = "wits"


class Status(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What the rules read of a combatant's current state.

    ``fatigue_points``: current fatigue points (``None``: not tracked, treated as above 0).
    ``helpless``: bound or sleeping (unconscious and the bottom of a track make a creature
    helpless too, HELPLESS CONDITION). ``grabbed``: held by a grab (-2 on all skill rolls).
    ``distracted``: a successful Distraction (-2 on its next skill roll, R11).
    """

    physical: Track = Track()
    mental: Track = Track()
    fatigue_points: int | None = None
    flat_footed: bool = False
    helpless: bool = False
    unconscious: bool = False
    prone: bool = False
    grabbed: bool = False
    distracted: bool = False
    #: The modifiers of the effects held now (``add_effect``, R90), unstacked.
    effects: tuple[Held, ...] = ()

    @property
    def is_unconscious(self) -> bool:
        """Falling Unconscious: the bottom of either track (R15), or unconscious by other means."""
        return self.unconscious or self.physical.at_bottom or self.mental.at_bottom

    @property
    def is_helpless(self) -> bool:
        """HELPLESS CONDITION: "bound, sleeping, unconscious or on the botom of the condition
        track"."""
        return self.helpless or self.is_unconscious

    @property
    def defenseless(self) -> bool:
        """R14.5: at 0 fatigue points a creature loses "the ability to defend it self"."""
        return self.fatigue_points is not None and self.fatigue_points <= 0

    def condition_modifiers(self) -> list[Modifier]:
        """R15: both tracks' penalties, itemised (they add up)."""
        parts = []
        for label, track in (("physical", self.physical), ("mental", self.mental)):
            if track.penalty:
                parts.append(Modifier(f"condition ({label} step {track.step})", track.penalty,
                                      "The Condition Track (R15)"))
        return parts


class Defense(msgspec.Struct, frozen=True, gc=False):
    """One defense: its name, total and itemised parts."""

    name: DefenseName
    total: int
    parts: tuple[Modifier, ...]


class Defenses(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    reflex: Defense
    fortitude: Defense
    will: Defense
    wits: Defense

    def get(self, name: DefenseName | str) -> Defense:
        return {DefenseName.REFLEX: self.reflex, DefenseName.FORTITUDE: self.fortitude,
                DefenseName.WILL: self.will, DefenseName.WITS: self.wits}[DefenseName(name)]


def effect_parts(sheet: Sheet, status: Status, *targets: str) -> list[Modifier]:
    """The modifiers on ``targets`` of the effects held and of what the sheet always grants
    (species, homebrew feats), stacked by the rule of R92, itemised with their sources."""
    return stack_dramatic([h for h in (*sheet.standing_modifiers(), *status.effects)
                           if h.target in targets])


def largest(sheet: Sheet, status: Status, kind: str, *targets: str) -> int:
    """The largest amount (by size) among the held modifiers of one kind (cover, concealment)
    on ``targets``; 0 when none (R92)."""
    amounts = [h.amount for h in (*sheet.standing_modifiers(), *status.effects)
               if h.kind == kind and h.target in targets]
    return max(amounts, key=abs, default=0)


def _defense(name: DefenseName, parts: list[Modifier]) -> Defense:
    return Defense(name, total(parts), tuple(parts))


def _lost_bonus(mod: int, ability: str, why: str, section: str) -> list[Modifier]:
    """R41/R14.5: the ability bonus (not a penalty) is lost — itemised as the modifier and its
    cancellation so that players see both."""
    if mod <= 0:
        return []
    return [Modifier(f"{ability} bonus lost ({why})", -mod, section)]


def defenses_read(status: Status) -> Status:
    """What :func:`defenses` and the effects' parts read of ``status``: all of it but the
    fatigue points, of which only whether they are down to 0 counts (R14.5). Two statuses
    with the same ``defenses_read`` give the same defenses and the same speed, so that what
    is worked out from one stands for the other (the view's numbers, which an attack's
    loss of fatigue points would otherwise work out again)."""
    down = status.defenseless
    if status.fatigue_points == (0 if down else None):
        return status
    return msgspec.structs.replace(status, fatigue_points=0 if down else None)


def defenses(sheet: Sheet, status: Status | None = None, *, unaware: bool = False) -> Defenses:
    """DEFENSES: the four defenses with every part itemised.

    - Reflex: 10 + Dexterity + armor bonus (if armor is worn) or class bonus + natural armor +
      size modifier. Flat-footed, unaware of the attack or at 0 fp (R41, R14.5): no positive
      Dexterity modifier. Helpless: Dexterity modifier -5 instead (R10).
    - Fortitude: 10 + Constitution + class bonus + equipment bonus.
    - Will: 10 + Wisdom + class bonus; unconscious: Wisdom modifier -5 instead (R10).
    - Wits: 10 + Intelligence + class bonus; flat-footed, unaware or at 0 fp: no positive
      Intelligence modifier (R41, R14.5).
    - All four: misc bonuses from the stat block, Improved Defenses (+1), condition penalties of
      both tracks (R15), and the effects held on ``<defense>_defense`` or ``defenses`` and the
      species' bonuses (R90, R92, R93).
    """
    st = status or Status()
    base = Modifier("base", 10, "DEFENSES")
    common: list[Modifier] = []
    if sheet.has_feat("improved_defenses"):
        common.append(Modifier("Improved Defenses", 1, "DEFENSES"))
    conditions = st.condition_modifiers()
    why = ("flat-footed" if st.flat_footed else "unaware" if unaware
           else "0 fatigue points" if st.defenseless else "")
    why_section = "0 Fatigue Points (R14.5)" if why == "0 fatigue points" else "FLAT-FOOTED (R41)"

    ref = [base]
    dex = sheet.mod("dex")
    if st.is_helpless:
        ref.append(Modifier("Dexterity (helpless: score 0)", -5, "HELPLESS CONDITION (R10)"))
    else:
        ref.append(Modifier("Dexterity modifier", dex, "DEFENSES: Reflex Defense"))
        if why:
            ref += _lost_bonus(dex, "Dexterity", why, why_section)
    if sheet.armored:
        ref.append(Modifier("armor bonus", sheet.armor_bonus, "DEFENSES: Armor Bonus"))
    else:
        ref.append(Modifier("class bonus", sheet.class_bonus.reflex, "DEFENSES: Reflex Defense"))
    if sheet.natural_armor:
        ref.append(Modifier("natural armor", sheet.natural_armor, "DEFENSES: Reflex Defense"))
    ref.append(Modifier(f"size ({sheet.size})", REFLEX_SIZE_MODIFIER[sheet.size],
                        "DEFENSES: Size Modifier"))

    fort = [base, Modifier("Constitution modifier", sheet.mod("con"), "DEFENSES: Fortitude"),
            Modifier("class bonus", sheet.class_bonus.fortitude, "DEFENSES: Fortitude Defense")]
    if sheet.equipment_fortitude:
        fort.append(Modifier("equipment bonus", sheet.equipment_fortitude,
                             "DEFENSES: Equipment Bonus"))

    will = [base]
    if st.is_unconscious:
        will.append(Modifier("Wisdom (unconscious: score 0)", -5, "DEFENSES: Will Defense (R10)"))
    else:
        will.append(Modifier("Wisdom modifier", sheet.mod("wis"), "DEFENSES: Will Defense"))
    will.append(Modifier("class bonus", sheet.class_bonus.will, "DEFENSES: Will Defense"))

    intel = sheet.mod("int")
    wits = [base, Modifier("Intelligence modifier", intel, "DEFENSES: Wits Defense")]
    if why:
        wits += _lost_bonus(intel, "Intelligence", why, why_section)
    wits.append(Modifier("class bonus", sheet.class_bonus.wits, "DEFENSES: Wits Defense"))

    out: dict[str, Defense] = {}
    for name, parts, misc in ((DefenseName.REFLEX, ref, sheet.misc_defense.reflex),
                              (DefenseName.FORTITUDE, fort, sheet.misc_defense.fortitude),
                              (DefenseName.WILL, will, sheet.misc_defense.will),
                              (DefenseName.WITS, wits, sheet.misc_defense.wits)):
        if misc:
            parts.append(Modifier("species, talents and feats", misc, "DEFENSES"))
        effects = effect_parts(sheet, st, f"{name.value}_defense", "defenses")
        out[name.value] = _defense(name, parts + common + conditions + effects)
    return Defenses(**out)


class Threshold(msgspec.Struct, frozen=True, gc=False):
    """One damage threshold: its source (physical or mental), total and itemised parts."""

    source: DamageSource
    total: int
    parts: tuple[Modifier, ...]


class Thresholds(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    physical: Threshold
    mental: Threshold

    def get(self, source: DamageSource | str) -> int:
        return (self.physical if DamageSource(source) is DamageSource.PHYSICAL
                else self.mental).total


def damage_thresholds(sheet: Sheet, defs: Defenses, status: Status | None = None) -> Thresholds:
    """Damage Threshold: physical = Fortitude Defense + size bonus (Large +5, Huge +10,
    Gargantuan +20, Colossal +50) + feats or talents; mental = Will Defense + feats or talents.
    The defenses are the current ones, condition penalties included (R15); ``status``' effects
    on ``physical_threshold`` and ``mental_threshold`` add (R90)."""
    section = "FATIGUE POINTS AND DAMAGE THRESHOLD: Damage Threshold"
    phys = [Modifier("Fortitude Defense", defs.fortitude.total, section)]
    if THRESHOLD_SIZE_BONUS[sheet.size]:
        phys.append(Modifier(f"size ({sheet.size})", THRESHOLD_SIZE_BONUS[sheet.size], section))
    if sheet.threshold_bonus.physical:
        phys.append(Modifier("feats or talents", sheet.threshold_bonus.physical, section))
    ment = [Modifier("Will Defense", defs.will.total, section)]
    if sheet.threshold_bonus.mental:
        ment.append(Modifier("feats or talents", sheet.threshold_bonus.mental, section))
    st = status or Status()
    phys += effect_parts(sheet, st, "physical_threshold")
    ment += effect_parts(sheet, st, "mental_threshold")
    return Thresholds(physical=Threshold(DamageSource.PHYSICAL, total(phys), tuple(phys)),
                      mental=Threshold(DamageSource.MENTAL, total(ment), tuple(ment)))
