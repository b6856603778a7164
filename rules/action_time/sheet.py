"""The Action Time stat sheet, read from a stat block's free ``stats`` mapping (rulings R29, R33,
R60).

Format (YAML as in ``server/examples/demo-action-time.yaml``; every field but ``body`` optional)::

    stats:
      body: d8          # abilities: every key whose value is a die d4..d20 ("d8", "D8" or 8);
      mind: d6          #   body is required (initiative is a Body test); any others allowed
      cunning: d10
      health: 14        # maximum Health (R29); attacks and Heal need it
      defense: 11       # Defense, the Difficulty of attacks against it (R29); attacks need it
      speed: 8          # Speed in yards (R60; default: option default_speed_yards, 10)
      bandages: ready   # ready | stowed | none (default none) — Heal needs them ready (R33)
      weapons:
        - name: Claws
          damage: d6        # damage die (R29), required
          kind: melee       # melee (default; reach 2 yards) | ranged
          range: 30         # yards, required for ranged weapons
          ability: body     # the ability the attack tests (default body, R29)
          reload: minor     # none | free | minor | major (default: none for melee, minor for
                            #   ranged, R60)
          stowed: false     # true: needs the Ready action before it is used
      spells:
        - name: Frost Weapons
          cast: major       # major (default) | minor | free
          ability: mind     # default mind
          modifiers: [{target: extra_damage_die, amount: d6}]   # on whom it is cast (R95)
      talents:
        - {name: Backstab, die: d6}   # known ones (TALENTS) or homebrew with modifiers (R95)

Public API: :func:`parse_sheet` (raises :class:`SheetError`, a ``ValueError`` with the bad
``field``), :class:`Sheet`, :class:`Weapon`, :class:`Spell`, :class:`Talent`, :data:`TALENTS`,
:func:`role`, :data:`MELEE_REACH`.
Whether a combatant is a player, a major NPC or a minor NPC comes from the stat block's
``kind`` and ``group`` (R39), outside ``stats``: see :func:`role`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec

from rules.action_time.dice_ladder import DieError, parse_die
from rules.action_time.options import DEFAULT, AtOptions
from rules.choices import allowed_at, allowed_text
from rules.effects import Duration, EffectModifier, normalise_name

#: Melee Attack: "An enemy within 2 yards of you is considered adjacent."
MELEE_REACH = 2

Cost = Literal["major", "minor", "free"]
Role = Literal["player", "major_npc", "minor_npc"]
_DIE_TEXT = Annotated[str, msgspec.Meta(pattern=r"^(1)?[dD](4|6|8|10|12|20)$")]
_YARDS = Annotated[int, msgspec.Meta(ge=0)]


class SheetError(ValueError):
    """A stat block this ruleset cannot use; ``field`` names the bad field."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"stats.{field}: {problem}")
        self.field = field
        self.problem = problem


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon: damage die, melee or ranged with range in yards, the ability it tests, and the
    action a reload costs (``"none"``: it needs none)."""

    name: Annotated[str, msgspec.Meta(description="The weapon's name, unique in the stat "
                                      "block; an attack's `weapon` argument names it.")]
    damage: Annotated[_DIE_TEXT, msgspec.Meta(
        description="The damage die: `d4`, `d6`, `d8`, `d10`, `d12` or `d20` (R29).",
        examples=["d6"])]
    kind: Annotated[Literal["melee", "ranged"], msgspec.Meta(
        description="`melee` (attacks an adjacent enemy, within 2 yards) or `ranged` (needs "
        "`range`).")] = "melee"
    range: Annotated[int, msgspec.Meta(
        ge=1, description="The range of a ranged weapon; required for one.",
        extra_json_schema={"x-unit": "yards"})] | None = None
    ability: Annotated[str, msgspec.Meta(
        description="The ability the attack tests: one of the stat block's abilities "
        "(R29).")] = "body"
    reload: Annotated[Literal["none", "free", "minor", "major"], msgspec.Meta(
        description="What a reload costs (`reload_free`, `reload_minor`, `reload_major`); "
        "`none`: it needs none. Default: `none` for melee, `minor` for ranged (R60).")] | \
        None = None
    stowed: Annotated[bool, msgspec.Meta(
        description="Stowed when the scene starts: the Ready minor action (`ready_item`) "
        "draws it before use.")] = False

    @property
    def damage_die(self) -> int:
        return parse_die(self.damage)

    @property
    def reach(self) -> int:
        """Yards at which it can attack: 2 for melee (adjacent), its range when ranged."""
        return MELEE_REACH if self.kind == "melee" else (self.range or 0)

    @property
    def reload_cost(self) -> Cost | None:
        """R60: the cost of a reload, ``None`` when it needs none (melee default)."""
        cost = self.reload or ("none" if self.kind == "melee" else "minor")
        return None if cost == "none" else cost


class Spell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A spell and the action its casting costs (R60: major unless the stat block says)."""

    name: Annotated[str, msgspec.Meta(description="The spell's name, unique in the stat "
                                      "block; a cast's `spell` argument names it.")]
    cast: Annotated[Cost, msgspec.Meta(
        description="What casting it costs: `major` (`cast_major`), `minor` (`cast_minor`) "
        "or `free` (`cast_free`) (R60).")] = "major"
    ability: Annotated[str, msgspec.Meta(
        description="The ability the casting tests: one of the stat block's "
        "abilities.")] = "mind"


    modifiers: Annotated[tuple[EffectModifier, ...], msgspec.Meta(
        description="What the spell changes on the combatant it is cast on (`cast_*`'s "
        "`target`, default the caster), as `add_effect`'s modifiers; it lasts `lasts` "
        "(R90, R95).")] = ()
    lasts: Annotated[Duration, msgspec.Meta(
        description="How long a cast's effect lasts (R90): `scene` (default), `ended`, "
        "`end_of_round` or `start_of_next_turn`.")] = "scene"


#: The talents the server knows (Stacking Effects, R95): what each grants its holder always.
#: Backstab adds its die to the holder's melee hits; Champion's Rally gives allies +1 Defense,
#: through ``add_effect`` on each ally (source "Champion", kind talent: it does not stack).
TALENTS: dict[str, str] = {
    "backstab": "its `die` (default d6) as extra damage on the holder's melee hits "
    "(Stacking Effects, R95)",
    "champion": "Rally: allies within 8 yards get +1 Defense, given with add_effect "
    "(source `Champion`, source_kind `talent`); two Champions' Rally give +1, not +2 "
    "(Stacking Effects, R95)",
}


class Talent(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A talent: one the server knows (:data:`TALENTS`) or a homebrew one with its
    ``modifiers`` (R93, R95)."""

    name: Annotated[str, msgspec.Meta(
        min_length=1, max_length=80,
        description="The talent's name as the text writes it (`Backstab`, `Champion`; case "
        "and spaces do not matter, R93); another name needs its `modifiers`.")]
    die: Annotated[_DIE_TEXT, msgspec.Meta(
        description="The talent's die, for those that use one (Backstab's extra damage).")] \
        | None = None
    modifiers: Annotated[tuple[EffectModifier, ...], msgspec.Meta(
        description="What it changes on its holder, always (R90): a homebrew talent's "
        "effects, or more for a known one.")] = ()
    note: Annotated[str, msgspec.Meta(description="What else it does, for the GM.")] = ""

    def grants(self) -> tuple[EffectModifier, ...]:
        """What it changes on its holder: the known talent's own, then the stat block's."""
        if normalise_name(self.name) == "backstab":
            return (EffectModifier(target="extra_damage_die", amount=(self.die or "d6").lower()),
                    *self.modifiers)
        return self.modifiers


class Sheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A parsed stat sheet. ``abilities`` maps each ability to its die's sides."""

    abilities: dict[str, int]
    health: Annotated[int, msgspec.Meta(
        ge=1, description="The maximum Health (R29); attacks on the combatant and Heal need "
        "it. At 0 Health it can take no action.")] | None = None
    defense: Annotated[int, msgspec.Meta(
        ge=0, description="Defense: the Difficulty of attacks against the combatant (R29); "
        "attacks on it need it.")] | None = None
    speed: Annotated[_YARDS, msgspec.Meta(
        description="Speed, for Move, Run, Charge and pursuits (R60). Default: the option "
        "`default_speed_yards` (10).", extra_json_schema={"x-unit": "yards"})] = 10
    bandages: Annotated[Literal["ready", "stowed", "none"], msgspec.Meta(
        description="Bandages: `ready` in hoof (Heal needs them, R33), `stowed` (`ready_item` "
        "draws them) or `none`.")] = "none"
    weapons: Annotated[tuple[Weapon, ...], msgspec.Meta(
        description="The combatant's weapons.")] = ()
    spells: Annotated[tuple[Spell, ...], msgspec.Meta(
        description="The spells the combatant can cast.")] = ()
    talents: Annotated[tuple[Talent, ...], msgspec.Meta(
        description="The combatant's talents: the server knows "
        + "; ".join(f"`{n}` ({w})" for n, w in TALENTS.items())
        + "; any other needs its `modifiers` (R93, R95).",
        extra_json_schema={"x-known": list(TALENTS)})] = ()

    def ability(self, name: str) -> int:
        """The die of ability ``name``; :class:`SheetError` when the sheet has none."""
        try:
            return self.abilities[name]
        except KeyError:
            raise SheetError(name, "no such ability in the stat block") from None

    def weapon(self, name: str) -> Weapon:
        """The weapon called ``name``; :class:`SheetError` when the sheet has none."""
        for w in self.weapons:
            if w.name == name:
                return w
        raise SheetError("weapons", f"no weapon named {name!r}")

    def spell(self, name: str) -> Spell:
        for s in self.spells:
            if s.name == name:
                return s
        raise SheetError("spells", f"no spell named {name!r}")


_FIELDS = frozenset(Sheet.__struct_fields__) - {"abilities"}
_AT = re.compile(r" - at `\$\.?(.*)`$")


def parse_sheet(stats: dict[str, Any], options: AtOptions = DEFAULT) -> Sheet:
    """The sheet written in ``stats`` (format in the module docstring). Raises
    :class:`SheetError` naming the first bad field."""
    if not isinstance(stats, dict):
        raise SheetError("", "stats must be a mapping")
    abilities: dict[str, int] = {}
    rest: dict[str, Any] = {}
    for key, value in stats.items():
        if not isinstance(key, str):
            raise SheetError(str(key), "field names must be text")
        if key in _FIELDS:
            rest[key] = value
            continue
        try:
            abilities[key] = parse_die(value, key)
        except DieError:
            raise SheetError(key, f"{value!r} is neither an ability die (d4, d6, d8, d10, "
                                  f"d12, d20) nor a field ({', '.join(sorted(_FIELDS))})"
                             ) from None
    if "body" not in abilities:
        raise SheetError("body", "required: the Body die (d4, d6, d8, d10, d12, d20)")
    rest.setdefault("speed", options.default_speed_yards)
    try:
        sheet = msgspec.convert({**rest, "abilities": abilities}, Sheet)
    except msgspec.ValidationError as exc:
        message = str(exc)
        match = _AT.search(message)
        field = match.group(1) if match else ""
        problem = _AT.sub("", message)
        if problem.startswith("Invalid enum value"):
            problem += allowed_text(allowed_at(Sheet, "." + field if field else ""))
        raise SheetError(field, problem) from None
    for i, weapon in enumerate(sheet.weapons):
        if weapon.ability not in abilities:
            raise SheetError(f"weapons[{i}].ability", f"no ability {weapon.ability!r}")
        if weapon.kind == "ranged" and weapon.range is None:
            raise SheetError(f"weapons[{i}].range", "a ranged weapon needs a range in yards")
    for i, spell in enumerate(sheet.spells):
        if spell.ability not in abilities:
            raise SheetError(f"spells[{i}].ability", f"no ability {spell.ability!r}")
        if spell.lasts == "rounds":
            raise SheetError(f"spells[{i}].lasts", "a cast lasts the scene, until ended, the "
                             "end of the round or the start of the caster's next turn (R90)")
    for i, talent in enumerate(sheet.talents):
        if normalise_name(talent.name) not in TALENTS and not talent.modifiers:
            raise SheetError(f"talents[{i}].name", f"{talent.name!r} is not a talent the server "
                             "knows (docs/stat-blocks.md); declare what it changes in its "
                             "modifiers (R93)")
    for what, names in (("weapons", [w.name for w in sheet.weapons]),
                        ("spells", [s.name for s in sheet.spells])):
        if len(set(names)) != len(names):
            raise SheetError(what, "names must be unique")
    return sheet


def role(kind: str, group: str | None) -> Role:
    """R39: a player character; an NPC in a ``group`` is a minor NPC, any other a major NPC."""
    if kind == "pc":
        return "player"
    return "minor_npc" if group else "major_npc"
