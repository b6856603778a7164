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
    fly_speed: 0           # squares; 0 = cannot fly (SPEED: Fly; R83)
    physical_base_bonus: 0 # added to Strength to break objects (Breaking an Object; R84)
    break_dc: null         # an object's break DC by its construction; null = 15 + Str (R84)
    reach: null            # squares; null = by size (REACH)
    weapons:
      - name: horseshoe sling
        damage: 1d4        # dice expression; "" on unarmed/natural = the size die (R12)
        kind: ranged       # melee, ranged, thrown, natural, unarmed
        damage_types: [bludgeoning]
        ranges: {point_blank: 6, short: 12, medium: 18, long: 24}   # band ends, squares
        improvised: false  # improvised thrown object: -5 (Improvised Thrown Objects)
        fierce: false      # deals structure loss to objects (Destructive Harvest)
    feats: [precise_shot, extra_second_lunch, improved_defenses]   # FEATS: those read
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
from typing import Annotated, Any, TypeVar

import msgspec

from rules.choices import allowed_at, allowed_text
from rules.dice import DiceError, check_expression
from rules.effects import EffectModifier, Held, normalise_name

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


def _about(description: str, unit: str | None = None, **extra: Any) -> msgspec.Meta:
    """A field's description (and its unit, ``x-unit`` in the JSON Schema) for the published
    stat-block schema and reference."""
    more = {"x-unit": unit} if unit else {}
    return msgspec.Meta(description=description, extra_json_schema={**more, **extra} or None)


_BAND = "squares"


class RangeBands(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """STANDARD ACTIONS -> Ranged: the last square of each range band (attack penalty: point
    blank 0, short -2, medium -5, long -10); at least 1 and never decreasing. Beyond the long
    band the target is out of range."""

    point_blank: Annotated[int, _about("The last square of the point blank band (no "
                                       "penalty).", _BAND)]
    short: Annotated[int, _about("The last square of the short band (-2).", _BAND)]
    medium: Annotated[int, _about("The last square of the medium band (-5).", _BAND)]
    long: Annotated[int, _about("The last square of the long band (-10).", _BAND)]

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

    name: Annotated[str, _about("The weapon's name, unique in the stat block; an attack's "
                                "`weapon` argument names it. `unarmed` always exists.")]
    damage: Annotated[str, _about(
        "The damage dice expression (`1d8`, `2d6+1`); empty on an unarmed or natural attack: "
        "the size's unarmed die (ruling R12). Required for melee, ranged and thrown weapons "
        "(DAMAGE). At most 100 dice of 1 to 1000 sides, no reroll or explosion that every "
        "face sets off, dividing only by a number other than 0, and a total within 1,000,000 "
        "either way.", examples=["1d8"])] = ""
    kind: Annotated[WeaponKind, _about(
        "How it attacks: `melee`, `ranged`, `thrown` (a ranged attack with a thrown weapon), "
        "`natural` (claws, horns: the size die when `damage` is empty), `unarmed` (ATTACK "
        "ROLL; NATURAL ATTACKS).")] = WeaponKind.MELEE
    damage_types: Annotated[tuple[str, ...], _about(
        "Its damage types (`bludgeoning`, `piercing`, `slashing`, `magic`...): a damage "
        "reduction whose `bypass` names one of them does not apply (DAMAGE REDUCTION).")] = ()
    ranges: Annotated[RangeBands | None, _about(
        "The range bands of a ranged or thrown weapon, in squares. Default: thrown 6/8/10/12, "
        "ranged 20/40/60/80 (the Star Wars Saga Edition bands; the text gives none).")] = None
    improvised: Annotated[bool, _about(
        "An improvised thrown object: -5 to the attack (STANDARD ACTIONS: Improvised Thrown "
        "Objects).")] = False
    fierce: Annotated[bool, _about(
        "A fierce weapon: it deals structure loss to objects (Destructive Harvest).")] = False

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a weapon needs a name")
        if not self.damage and self.kind not in (WeaponKind.UNARMED, WeaponKind.NATURAL):
            raise ValueError(f"weapon {self.name!r} needs a damage expression")
        if self.damage:
            try:
                check_expression(self.damage)
            except DiceError as exc:
                raise ValueError(f"weapon {self.name!r}: {exc}") from None

    def range_bands(self) -> RangeBands:
        """The weapon's bands, or the default for its kind."""
        if self.ranges is not None:
            return self.ranges
        return DEFAULT_RANGED_RANGES if self.kind is WeaponKind.RANGED else DEFAULT_THROWN_RANGES


#: The feats the server reads from ``feats``, with what each does (the rule section it
#: comes from). ``skill_focus_knowledge_<topic>`` (Skill Focus on Knowledge of a topic) is read
#: for related Social Status (R70).
FEATS: dict[str, str] = {
    "precise_shot": "no -2 for a ranged attack into a melee; RANGED MANEUVER INTO A MELEE",
    "improved_defenses": "+1 to all four defenses; DEFENSES",
    "extra_second_lunch": "one more Second Lunch a day, listed once per time taken; Catch a "
    "Second Lunch",
    "quick_draw": "draw or holster an object as a swift action instead of a move action; MOVE "
    "ACTIONS: Draw or Holster an Object",
    "skill_focus_knowledge_<topic>": "related Social Status +4 instead of +2 when trained in "
    "`knowledge_<topic>`; Social Status, R70",
    "skill_focus_<skill>": "Skill Focus on another skill: kept, changes nothing the text says "
    "(R94)",
}

#: Species bonuses the server knows (DEFENSES: "Buffalos gain a +1 species bonus to Fortitude
#: Defense"), by species name as matched (R93): the target of each bonus and its amount.
SPECIES: dict[str, tuple[tuple[str, int], ...]] = {
    "buffalo": (("fortitude_defense", 1),),
}


def known_feat(name: str) -> bool:
    """Whether the server knows this feat (matched as R93 normalises it)."""
    key = normalise_name(name)
    return key in FEATS or key.startswith("skill_focus_")


class HomebrewFeat(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A feat or talent the GM makes up (R93): its name and what it changes, as ``add_effect``'s
    modifiers (the targets of docs/actions.md, "Effects")."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=80,
                                      description="The feat's name, as `feats` lists it.")]
    modifiers: Annotated[tuple[EffectModifier, ...], _about(
        "What it changes, always: each a target and an amount (R90).")] = ()
    note: Annotated[str, _about("What else it does, for the GM to adjudicate.")] = ""


#: The attack a combatant always has (ruling R12: damage by size).
UNARMED = Weapon(name="unarmed", kind=WeaponKind.UNARMED, damage_types=("bludgeoning",))


class DamageReduction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """DAMAGE REDUCTION (DR): ignores ``value`` points of fatigue loss from a ``source``
    (physical or mental) unless the damage has one of the ``bypass`` types."""

    value: Annotated[int, _about("The fatigue points of each loss it ignores.",
                                 "fatigue points", minimum=0)]
    source: Annotated[DamageSource, _about(
        "What it stops: `physical` (attacks, falling) or `mental` (social attacks).")] = \
        DamageSource.PHYSICAL
    bypass: Annotated[tuple[str, ...], _about(
        "Damage types that go through it (`magic`): a weapon with one of these "
        "`damage_types` ignores this reduction.")] = ()

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("damage reduction cannot be negative")


class DefenseBonuses(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A bonus to each of the four defenses (DEFENSES)."""

    reflex: Annotated[int, _about("Bonus to Reflex Defense.")] = 0
    fortitude: Annotated[int, _about("Bonus to Fortitude Defense.")] = 0
    will: Annotated[int, _about("Bonus to Will Defense.")] = 0
    wits: Annotated[int, _about("Bonus to Wits Defense.")] = 0


class ThresholdBonuses(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Bonuses to the damage thresholds from feats or talents (Damage Threshold)."""

    physical: Annotated[int, _about("Bonus to the physical damage threshold.",
                                    "fatigue points")] = 0
    mental: Annotated[int, _about("Bonus to the mental damage threshold.",
                                  "fatigue points")] = 0


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The statistics of a "MLP Dramatic Systems" combatant (a stat block's ``stats``); every
    field is optional: ``stats: {}`` is a Medium creature with every score 10."""

    size: Annotated[Size, _about(
        "The size category: Reflex size modifier, damage threshold bonus, unarmed die, reach "
        "and space on the map (DEFENSES: Size Modifier; Damage Threshold; NATURAL ATTACKS; "
        "OCCUPIED SPACE).")] = Size.MEDIUM
    nature: Annotated[Nature, _about(
        "What it is: a `creature`, or an `object`, `plant` or `vehicle` (no mental track, no "
        "Second Lunch, broken rather than knocked out: The Condition Track; Breaking an "
        "Object).")] = Nature.CREATURE
    heroic_level: Annotated[int, _about(
        "The heroic (character) level: half of it, rounded down, is added to damage (DAMAGE: "
        "One-Half Heroic Level); a grab breaks one grabber per level (R55).",
        minimum=0)] = 0
    strength: Annotated[int, _about(
        "Strength score; modifier = (score - 10) // 2 (melee damage, grabs). An object's "
        "`str` is its Strength score (Breaking an Object).",
        minimum=0)] = msgspec.field(default=10, name="str")
    dexterity: Annotated[int, _about("Dexterity score (Reflex Defense).", minimum=0)] = \
        msgspec.field(default=10, name="dex")
    constitution: Annotated[int, _about("Constitution score (Fortitude Defense, the "
                                        "Constitution check of the unconscious, R16).",
                                        minimum=0)] = msgspec.field(default=10, name="con")
    intelligence: Annotated[int, _about("Intelligence score (Wits Defense).", minimum=0)] = \
        msgspec.field(default=10, name="int")
    wisdom: Annotated[int, _about("Wisdom score (Will Defense).", minimum=0)] = \
        msgspec.field(default=10, name="wis")
    charisma: Annotated[int, _about("Charisma score (Social Status, R70).", minimum=0)] = \
        msgspec.field(default=10, name="cha")
    skills: Annotated[dict[str, int], _about(
        "Skill check totals by skill name, as the character sheet gives them (the d20 is "
        "added): `melee` and `ranged` for attack rolls (ATTACK ROLL), `acrobatics` (falling, "
        "R22), `deception`, `empathy`, `persuasion` (social maneuvers), `knowledge_<topic>`, "
        "`profession` or `profession_<trade>` (Harvest). A skill not listed counts 0.",
        examples=[{"melee": 5, "ranged": 3, "acrobatics": 4}])] = \
        msgspec.field(default_factory=dict)
    trained: Annotated[tuple[str, ...], _about(
        "The skills the character is trained in (Falling Damage, R22; related Social Status, "
        "R70).", examples=[["acrobatics"]])] = ()
    perception: Annotated[int, _about(
        "The Perception check modifier, rolled when the GM calls for Perception checks "
        "(`call_perception`) before the scene, for awareness of its opponents (AWARENESS AND "
        "SURPRISE, R42), or during it, for awareness of the attacks made on it (R82).")] = 0
    class_bonus: Annotated[DefenseBonuses, _about(
        "The class bonus to each defense (DEFENSES); worn armor's bonus replaces the Reflex "
        "one (Armor Bonus).")] = msgspec.field(default_factory=DefenseBonuses)
    misc_defense: Annotated[DefenseBonuses, _about(
        "Other bonuses to each defense: species, talents, feats (DEFENSES).")] = \
        msgspec.field(default_factory=DefenseBonuses)
    armor_type: Annotated[ArmorType, _about(
        "The armor worn: medium and heavy armor slow to three-quarters speed (ENCUMBRANCE AND "
        "SPEED); any armor lets `armor_bonus` replace the Reflex class bonus.")] = \
        ArmorType.NONE
    armor_bonus: Annotated[int, _about(
        "The worn armor's bonus to Reflex Defense, replacing the class bonus (Armor Bonus); "
        "needs an `armor_type`.", minimum=0)] = 0
    garment: Annotated[Garment, _about(
        "Refined or Exclusive garments slow like medium armor (ENCUMBRANCE AND SPEED); option "
        "`refined_garment_runs_triple` (R21).")] = Garment.NONE
    heavy_load: Annotated[bool, _about(
        "Carrying a heavy load: three-quarters speed, no flying (ENCUMBRANCE AND SPEED; "
        "Fly).")] = False
    natural_armor: Annotated[int, _about("Natural armor bonus to Reflex Defense "
                                         "(DEFENSES).")] = 0
    equipment_fortitude: Annotated[int, _about("Equipment bonus to Fortitude Defense "
                                               "(DEFENSES).")] = 0
    fatigue_points: Annotated[int, _about(
        "The maximum fatigue points (FATIGUE POINTS AND DAMAGE THRESHOLD).", "fatigue points",
        minimum=0)] = 10
    threshold_bonus: Annotated[ThresholdBonuses, _about(
        "Bonuses to the physical and mental damage thresholds from feats or talents (Damage "
        "Threshold).")] = msgspec.field(default_factory=ThresholdBonuses)
    damage_reduction: Annotated[tuple[DamageReduction, ...], _about(
        "Damage reductions, each ignoring `value` fatigue points of every loss from its "
        "`source` (DAMAGE REDUCTION).")] = ()
    speed: Annotated[int, _about("The base speed (SPEED).", "squares", minimum=0)] = 6
    fly_speed: Annotated[int, _about("The fly speed; 0: cannot fly (Fly).", "squares",
                                     minimum=0)] = 0
    physical_base_bonus: Annotated[int, _about(
        "The Physical Base Bonus, added with the Strength modifier to the check that breaks an "
        "object (STANDARD ACTIONS: Breaking an Object; ruling R84). A stat block without it "
        "reads `skills.physical_base_bonus`.")] = 0
    break_dc: Annotated[int | None, _about(
        "An object's break DC, when its construction sets one (\"The DC depends more on the "
        "construction of the item than on the material\"); `null`: 15 + the object's "
        "Strength modifier (Breaking an Object; ruling R84).", minimum=0)] = None
    reach: Annotated[int | None, _about(
        "The reach; `null`: by size (Fine to Tiny 0, Small to Large 1, Huge 2, Gargantuan 3, "
        "Colossal 4; REACH, R64).", "squares", minimum=0)] = None
    weapons: Annotated[tuple[Weapon, ...], _about(
        "The weapons, natural weapons and unarmed attacks; `unarmed` is always there besides "
        "(ruling R12).")] = ()
    feats: Annotated[tuple[str, ...], _about(
        "The feats the character has, by name, as the rule text writes them (\"Precise "
        "Shot\"; case, spaces and punctuation do not matter, R93). The server knows: "
        + "; ".join(f"`{name}` ({what})" for name, what in FEATS.items())
        + ". Any other name is refused unless `homebrew_feats` declares it.",
        examples=[["Precise Shot", "Improved Defenses"]],
        **{"x-known": list(FEATS)})] = ()
    homebrew_feats: Annotated[tuple[HomebrewFeat, ...], _about(
        "Feats and talents the GM makes up, with what they change (R93).")] = ()
    second_lunches_today: Annotated[int, _about(
        "The Second Lunches already caught earlier today, in scenes before this one (\"only "
        "once per day\", SWIFT ACTIONS; R109): a campaign's encounter sets it.",
        minimum=0, maximum=20)] = 0
    species: Annotated[str, msgspec.Meta(max_length=80, description=(
        "The species; a known one adds its bonuses (`Buffalo`: +1 Fortitude Defense, "
        "DEFENSES; R93)."))] = ""
    non_dexterous: Annotated[bool, _about(
        "Grabs with hooves or mouth: the non-dexterous penalty (option "
        "`non_dexterous_penalty`, R24).")] = False
    load_limit: Annotated[float | None, _about(
        "An object's heavy load, in the unit its supported weight is given (`load_object`); "
        "`null`: none.")] = None
    note: Annotated[str, _about("Free text.")] = ""
    social: Annotated[dict[str, Any], _about(
        "The social statistics (Social Status, Social Access Rating, Social Events): "
        "`reputation`, `talents`, `temporary`, `clothing`, `event_raise`.")] = \
        msgspec.field(default_factory=dict)

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
        """Whether the sheet lists the feat, names matched as R93 normalises them."""
        return self.feat_count(name) > 0

    def feat_count(self, name: str) -> int:
        """How many times a feat that can be taken again (extra_second_lunch) is listed."""
        if not self.feats:
            return 0
        key = normalise_name(name)
        return sum(1 for f in self.feats if normalise_name(f) == key)

    def unknown_feats(self) -> list[str]:
        """The feats listed that the server does not know nor ``homebrew_feats`` declares
        (R93)."""
        declared = {normalise_name(h.name) for h in self.homebrew_feats}
        return [f for f in self.feats
                if not known_feat(f) and normalise_name(f) not in declared]

    def standing_modifiers(self) -> list[Held]:
        """What the species and the homebrew feats listed change, always (R90, R93)."""
        out = [Held(target=target, amount=amount, source=self.species, kind="species",
                    name="species bonus", section="DEFENSES (R93)")
               for target, amount in SPECIES.get(normalise_name(self.species), ())]
        listed = {normalise_name(f) for f in self.feats}
        for h in self.homebrew_feats:
            if normalise_name(h.name) in listed:
                out += [Held(target=m.target, amount=m.amount, source=h.name, kind="feat",
                             name=h.name, section="homebrew feat (R93)")
                        for m in h.modifiers if isinstance(m.amount, int)]
        return out

    @property
    def physical_base(self) -> int:
        """The Physical Base Bonus (Breaking an Object; R84): the stat block's field, else the
        skill of that name that stat blocks gave before it."""
        return self.physical_base_bonus or self.skill("physical_base_bonus")

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
            path = path.rstrip("`")
            field = where + path
            if message.startswith("Invalid enum value"):
                message += allowed_text(allowed_at(kind, path))
        raise SheetError(f"{field}: {message}") from None
