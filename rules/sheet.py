"""The Dramatic stat sheet: a combatant's ``stats`` read as "MLP Dramatic Systems" statistics.

``parse_sheet(stats) -> Sheet`` reads a stat block's free ``stats`` mapping into a frozen
:class:`Sheet`; an unknown field or a bad value raises :class:`SheetError` (a ``ValueError``)
whose message names the field, e.g. ``stats.weapons[0].kind: Invalid enum value 'laser'``.
Every field has a default, so an old stat block (``stats: {}``) is a Medium creature with all
scores 10.

Stat-block format (every key optional)::

    size: medium           # fine, diminutive, tiny, small, medium, large, huge, gargantuan,
                           # colossal (Size Modifier, Damage Threshold, NATURAL ATTACKS)
    nature: creature       # creature, object, plant or vehicle (The Condition Track)
    heroic_level: 0        # half of it, rounded down, is added to damage (DAMAGE)
    str: 10                # ability SCORES; modifier = (score - 10) // 2.  An object's
    dex: 10                #   "str" is its Strength score (Breaking an Object -> Strength)
    con: 10
    int: 10
    wis: 10
    cha: 10
    skills: {melee: 5, ranged: 3, acrobatics: 4}   # skill check totals (ATTACK ROLL)
    trained: [acrobatics]                          # trained skills (Falling Damage, R22)
    perception: 0          # Perception check modifier (the GM's call_perception)
    class_bonus: {reflex: 0, fortitude: 0, will: 0, wits: 0}   # DEFENSES: class bonus
    misc_defense: {reflex: 0, fortitude: 0, will: 0, wits: 0}  # species, talents, feats ...
    armor_type: none       # none, light, medium, heavy (ENCUMBRANCE AND SPEED)
    armor_bonus: 0         # worn armor's bonus; replaces the Reflex class bonus (Armor Bonus)
    garment: none          # none, refined, exclusive (ENCUMBRANCE AND SPEED, R21)
    heavy_load: false      # carrying a heavy load (no flying, Fly)
    natural_armor: 0       # natural armor bonus to Reflex Defense
    equipment_fortitude: 0 # equipment bonus to Fortitude Defense
    fatigue_points: 10     # maximum fatigue points (FATIGUE POINTS AND DAMAGE THRESHOLD)
    threshold_bonus: {physical: 0, mental: 0}      # "Feats or Talents" (Damage Threshold)
    damage_reduction:      # DAMAGE REDUCTION (DR)
      - {value: 5, source: physical, bypass: [magic]}
    speed: 6               # squares (SPEED)
    fly_speed: 0           # squares; 0 = cannot fly
    reach: null            # squares; null = by size (REACH)
    weapons:
      - name: horseshoe sling
        damage: 1d4        # dice expression; "" on unarmed/natural = the size die (R12)
        kind: ranged       # melee, ranged, thrown, natural, unarmed
        damage_types: [bludgeoning]
        ranges: {point_blank: 6, short: 12, medium: 18, long: 24}   # band ends, squares
        improvised: false  # improvised thrown object: -5 (Improvised Thrown Objects)
        fierce: false      # deals structure loss to objects (Destructive Harvest)
    feats: [precise_shot, quick_draw, extra_second_lunch, improved_defenses]
    non_dexterous: false   # grabs with hooves or mouth: the non-dexterous malus (R24)
    load_limit: null       # an object's heavy load, in the unit its supported weight is given
    note: ""               # free text
    social: {}             # the social statistics, read by rules.social.sheet.parse_social
                           #   (reputation, status talents, temporary status, ...)

Ranged and thrown weapons without ``ranges`` use the Star Wars Saga Edition bands (the
convention where the text is silent): thrown 6/8/10/12 squares, ranged 20/40/60/80 squares.

Public API: ``parse_sheet``, ``Sheet`` (``mod``, ``skill``, ``weapon``, ``has_feat``,
``feat_count``, ``reach_squares``, ``armored``), ``Weapon``, ``RangeBands``,
``DamageReduction``, ``DefenseBonuses``, ``ThresholdBonuses``, the enums ``Size``, ``Nature``,
``ArmorType``, ``Garment``, ``WeaponKind``, ``DamageSource``, the size tables
(``REFLEX_SIZE_MODIFIER``, ``THRESHOLD_SIZE_BONUS``, ``UNARMED_DIE``, ``SIZE_DAMAGE``,
``DEFAULT_REACH``), ``size_steps(a, b)``, ``ability_modifier(score)`` and ``SheetError``.
"""

from __future__ import annotations

from enum import StrEnum
from itertools import pairwise
from typing import Any, TypeVar

import msgspec

from rules.dice import DiceError, dice_in

T = TypeVar("T")


class SheetError(ValueError):
    """A stat block that is not a valid Dramatic sheet; the message names the field."""


class Size(StrEnum):
    FINE = "fine"
    DIMINUTIVE = "diminutive"
    TINY = "tiny"
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"
    HUGE = "huge"
    GARGANTUAN = "gargantuan"
    COLOSSAL = "colossal"


_SIZE_ORDER: tuple[Size, ...] = tuple(Size)


def size_steps(frm: Size, to: Size) -> int:
    """How many size categories ``to`` is larger than ``frm`` (negative when smaller)."""
    return _SIZE_ORDER.index(to) - _SIZE_ORDER.index(frm)


#: DEFENSES -> Size Modifier (Reflex Defense only).
REFLEX_SIZE_MODIFIER: dict[Size, int] = {
    Size.FINE: 10, Size.DIMINUTIVE: 5, Size.TINY: 2, Size.SMALL: 1, Size.MEDIUM: 0,
    Size.LARGE: -1, Size.HUGE: -2, Size.GARGANTUAN: -5, Size.COLOSSAL: -10,
}

#: FATIGUE POINTS AND DAMAGE THRESHOLD -> Size Modifier on Damage threshold.
THRESHOLD_SIZE_BONUS: dict[Size, int] = {
    Size.FINE: 0, Size.DIMINUTIVE: 0, Size.TINY: 0, Size.SMALL: 0, Size.MEDIUM: 0,
    Size.LARGE: 5, Size.HUGE: 10, Size.GARGANTUAN: 20, Size.COLOSSAL: 50,
}

#: Ruling R12: the unarmed / natural "Size modifier" damage die by size.
UNARMED_DIE: dict[Size, str] = {
    Size.FINE: "1", Size.DIMINUTIVE: "1d2", Size.TINY: "1d3", Size.SMALL: "1d4",
    Size.MEDIUM: "1d6", Size.LARGE: "1d8", Size.HUGE: "2d6", Size.GARGANTUAN: "3d6",
    Size.COLOSSAL: "4d6",
}

#: Flying -> the Size / Damage table (the "Size Damage Modifier" of Ramming and Collision, R23).
SIZE_DAMAGE: dict[Size, str] = {
    Size.FINE: "1", Size.DIMINUTIVE: "1d2", Size.TINY: "1d3", Size.SMALL: "1d6",
    Size.MEDIUM: "2d6", Size.LARGE: "4d6", Size.HUGE: "8d6", Size.GARGANTUAN: "12d6",
    Size.COLOSSAL: "20d6",
}

#: REACH: Small and Medium reach 1 square; Fine, Diminutive and Tiny must share the space (0);
#: Large 1, Huge 2, Gargantuan 3, Colossal 4 (ruling R64; the same table as
#: ``rules.battle_map.DEFAULT_REACH``).
DEFAULT_REACH: dict[Size, int] = {
    Size.FINE: 0, Size.DIMINUTIVE: 0, Size.TINY: 0, Size.SMALL: 1, Size.MEDIUM: 1,
    Size.LARGE: 1, Size.HUGE: 2, Size.GARGANTUAN: 3, Size.COLOSSAL: 4,
}


class Nature(StrEnum):
    CREATURE = "creature"
    OBJECT = "object"
    PLANT = "plant"
    VEHICLE = "vehicle"


class ArmorType(StrEnum):
    NONE = "none"
    LIGHT = "light"
    MEDIUM = "medium"
    HEAVY = "heavy"


class Garment(StrEnum):
    NONE = "none"
    REFINED = "refined"
    EXCLUSIVE = "exclusive"


class WeaponKind(StrEnum):
    MELEE = "melee"
    RANGED = "ranged"
    THROWN = "thrown"
    NATURAL = "natural"
    UNARMED = "unarmed"


class DamageSource(StrEnum):
    PHYSICAL = "physical"
    MENTAL = "mental"


def ability_modifier(score: int) -> int:
    """Ability modifier = (score - 10) // 2 (d20 convention; a score of 0 gives -5)."""
    return (score - 10) // 2


class RangeBands(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """STANDARD ACTIONS -> Ranged: the last square of each band (point blank 0, short -2,
    medium -5, long -10)."""

    point_blank: int
    short: int
    medium: int
    long: int

    def __post_init__(self) -> None:
        bands = [self.point_blank, self.short, self.medium, self.long]
        if bands[0] < 1 or any(a > b for a, b in pairwise(bands)):
            raise ValueError("range bands must be at least 1 and must not decrease")


#: Star Wars Saga Edition ranges, used where a weapon's stat block gives none.
DEFAULT_THROWN_RANGES = RangeBands(point_blank=6, short=8, medium=10, long=12)
DEFAULT_RANGED_RANGES = RangeBands(point_blank=20, short=40, medium=60, long=80)


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon, natural weapon or unarmed attack. ``damage`` is a dice expression; empty on an
    unarmed or natural attack means the size die (ruling R12)."""

    name: str
    damage: str = ""
    kind: WeaponKind = WeaponKind.MELEE
    damage_types: tuple[str, ...] = ()
    ranges: RangeBands | None = None
    improvised: bool = False
    fierce: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a weapon needs a name")
        if not self.damage and self.kind not in (WeaponKind.UNARMED, WeaponKind.NATURAL):
            raise ValueError(f"weapon {self.name!r} needs a damage expression")
        if self.damage:
            try:
                dice_in(self.damage)
            except DiceError as exc:
                raise ValueError(f"weapon {self.name!r}: {exc}") from None

    def range_bands(self) -> RangeBands:
        """The weapon's bands, or the default for its kind."""
        if self.ranges is not None:
            return self.ranges
        return DEFAULT_RANGED_RANGES if self.kind is WeaponKind.RANGED else DEFAULT_THROWN_RANGES


#: The attack a combatant always has (ruling R12: damage by size).
UNARMED = Weapon(name="unarmed", kind=WeaponKind.UNARMED, damage_types=("bludgeoning",))


class DamageReduction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """DAMAGE REDUCTION (DR): ignores ``value`` points of fatigue loss from a ``source``
    (physical or mental) unless the damage has one of the ``bypass`` types."""

    value: int
    source: DamageSource = DamageSource.PHYSICAL
    bypass: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("damage reduction cannot be negative")


class DefenseBonuses(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reflex: int = 0
    fortitude: int = 0
    will: int = 0
    wits: int = 0


class ThresholdBonuses(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    physical: int = 0
    mental: int = 0


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A combatant's Dramatic statistics (see the module docstring for the format)."""

    size: Size = Size.MEDIUM
    nature: Nature = Nature.CREATURE
    heroic_level: int = 0
    strength: int = msgspec.field(default=10, name="str")
    dexterity: int = msgspec.field(default=10, name="dex")
    constitution: int = msgspec.field(default=10, name="con")
    intelligence: int = msgspec.field(default=10, name="int")
    wisdom: int = msgspec.field(default=10, name="wis")
    charisma: int = msgspec.field(default=10, name="cha")
    skills: dict[str, int] = msgspec.field(default_factory=dict)
    trained: tuple[str, ...] = ()
    perception: int = 0
    class_bonus: DefenseBonuses = msgspec.field(default_factory=DefenseBonuses)
    misc_defense: DefenseBonuses = msgspec.field(default_factory=DefenseBonuses)
    armor_type: ArmorType = ArmorType.NONE
    armor_bonus: int = 0
    garment: Garment = Garment.NONE
    heavy_load: bool = False
    natural_armor: int = 0
    equipment_fortitude: int = 0
    fatigue_points: int = 10
    threshold_bonus: ThresholdBonuses = msgspec.field(default_factory=ThresholdBonuses)
    damage_reduction: tuple[DamageReduction, ...] = ()
    speed: int = 6
    fly_speed: int = 0
    reach: int | None = None
    weapons: tuple[Weapon, ...] = ()
    feats: tuple[str, ...] = ()
    non_dexterous: bool = False
    load_limit: float | None = None
    note: str = ""
    social: dict[str, Any] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        for label, score in (("str", self.strength), ("dex", self.dexterity),
                             ("con", self.constitution), ("int", self.intelligence),
                             ("wis", self.wisdom), ("cha", self.charisma)):
            if score < 0:
                raise ValueError(f"{label} cannot be negative")
        for label, value in (("heroic_level", self.heroic_level),
                             ("fatigue_points", self.fatigue_points), ("speed", self.speed),
                             ("fly_speed", self.fly_speed), ("armor_bonus", self.armor_bonus)):
            if value < 0:
                raise ValueError(f"{label} cannot be negative")
        if self.reach is not None and self.reach < 0:
            raise ValueError("reach cannot be negative")
        if self.armor_bonus and self.armor_type is ArmorType.NONE:
            raise ValueError("armor_bonus needs an armor_type (light, medium or heavy)")
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError("weapon names must be unique")
        if "unarmed" in names and self.weapon("unarmed").kind is not WeaponKind.UNARMED:
            raise ValueError("the weapon named 'unarmed' must be of kind unarmed")

    def mod(self, ability: str) -> int:
        """The modifier of an ability named ``str``, ``dex``, ``con``, ``int``, ``wis``, ``cha``."""
        scores = {"str": self.strength, "dex": self.dexterity, "con": self.constitution,
                  "int": self.intelligence, "wis": self.wisdom, "cha": self.charisma}
        return ability_modifier(scores[ability])

    def skill(self, name: str) -> int:
        """A skill check total as the stat block gives it (0 when it gives none)."""
        return self.skills.get(name, 0)

    def weapon(self, name: str) -> Weapon:
        """The weapon of that name; ``"unarmed"`` always exists (ruling R12)."""
        for w in self.weapons:
            if w.name == name:
                return w
        if name == "unarmed":
            return UNARMED
        raise SheetError(f"no weapon named {name!r} in the stat block")

    def has_feat(self, name: str) -> bool:
        return name in self.feats

    def feat_count(self, name: str) -> int:
        """How many times a feat that can be taken again (extra_second_lunch) is listed."""
        return self.feats.count(name)

    @property
    def reach_squares(self) -> int:
        return DEFAULT_REACH[self.size] if self.reach is None else self.reach

    @property
    def armored(self) -> bool:
        """Armor Bonus: "If you are wearing armor" — any armor type but none."""
        return self.armor_type is not ArmorType.NONE


def parse_sheet(stats: dict[str, Any]) -> Sheet:
    """Read a stat block's ``stats`` as a :class:`Sheet`; raises :class:`SheetError` naming the
    bad field."""
    return convert_stats(stats, Sheet, "stats")


def convert_stats(data: Any, kind: type[T], where: str) -> T:
    """``data`` as a ``kind``; a :class:`SheetError` names the bad field, under ``where`` (the
    path of ``data`` in the stat block)."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        message = str(exc)
        field = where
        if " - at `$" in message:
            message, _, path = message.rpartition(" - at `$")
            field = where + path.rstrip("`")
        raise SheetError(f"{field}: {message}") from None
