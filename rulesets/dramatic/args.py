"""The arguments of the "MLP Dramatic Systems" actions (``act``'s ``args``), one struct per kind
of action. Each refuses unknown fields; its docstring and the fields' descriptions are the
reference a client reads (``docs/protocol/actions.dramatic.schema.json``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from encounter.declare import Aimed, Args, CombatantId, Noted, Target
from rules.attack import Concealment, Cover, RangeBand
from rules.defenses import DefenseName
from rules.sheet import Size
from rules.social.statements import Answer

Flag = bool
Squares = Annotated[int, msgspec.Meta(ge=0, le=10_000)]
Name40 = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
Coordinate = Annotated[int, msgspec.Meta(ge=-10_000, le=10_000)]
StatementId = Annotated[str, msgspec.Meta(
    min_length=1, max_length=40,
    description="A statement's id (`argument_changed.argument`).")]


class Circumstances(Aimed, frozen=True, kw_only=True):
    """What the attacker states when no battle map decides it (on a map, with both combatants
    placed, the map decides distance, cover, concealment and "into melee")."""

    range: Annotated[RangeBand, msgspec.Meta(
        description="The range band of a ranged or thrown attack (STANDARD ACTIONS: "
        "Ranged).")] | None = None
    distance: Annotated[Squares, msgspec.Meta(
        description="The distance in squares, for the range band.")] | None = None
    cover: Annotated[Cover, msgspec.Meta(description="The target's cover (COVER).")] = \
        Cover.NONE
    concealment: Annotated[Concealment, msgspec.Meta(
        description="The target's concealment (CONCEALMENT).")] = Concealment.NONE
    into_melee: Annotated[Flag, msgspec.Meta(
        description="A ranged attack into a melee (RANGED MANEUVER INTO A MELEE).")] = False
    creatures_in_the_way: Annotated[Flag, msgspec.Meta(
        description="Creatures stand between attacker and target (R9).")] = False
    at_square: Annotated[Flag, msgspec.Meta(
        description="Sight-based (ruling R67.5): aim at the square the target is thought to "
        "occupy, at -5 (Total Concealment). Against a target with total concealment (the "
        "map's, or `concealment: total` stated) an attack, grab or ram without it is refused; "
        "against any other it changes nothing.")] = False


class AttackArgs(Circumstances, frozen=True, kw_only=True):
    """An attack with a weapon, unarmed or natural (ATTACK ROLL). Sight-based (R67.5): at a
    target with total concealment only with ``at_square``, at -5."""

    weapon: Annotated[str, msgspec.Meta(
        min_length=1, max_length=80,
        description="A weapon of the stat block (`stats.weapons[].name`; the entry's "
        "`options.weapon`), or `unarmed`.")] = "unarmed"
    throw: Annotated[Flag, msgspec.Meta(description=(
        "Throw a melee weapon (-5, Improvised Thrown Objects); a weapon of kind `thrown` is "
        "thrown without it."))] = False
    defense: Annotated[DefenseName, msgspec.Meta(
        description="The defense attacked.")] = DefenseName.REFLEX
    moving: Annotated[Flag, msgspec.Meta(
        description="An unattended object in motion (Destructive Harvest).")] = False
    held_by: Annotated[CombatantId, msgspec.Meta(
        description="The combatant holding, carrying or wearing the object attacked.")] \
        | None = None
    engage: Annotated[Flag, msgspec.Meta(
        description="A flying Engage (Flying Basic Maneuver: Engage; R12).")] = False


class GrabArgs(Circumstances, frozen=True, kw_only=True):
    """A grab attempt: an unarmed melee roll at -5 (STANDARD ACTIONS: Grab; R24). Sight-based
    (R67.5): at a target with total concealment only with ``at_square``, at -5."""


class RamArgs(Circumstances, frozen=True, kw_only=True):
    """Ramming (Flying Basic Maneuver; R23): a melee attack against Reflex. Sight-based
    (R67.5): at a target with total concealment only with ``at_square``, at -5."""

    flying: Annotated[Flag, msgspec.Meta(description="Ram with the fly speed.")] = False
    moving_away: Annotated[Flag, msgspec.Meta(
        description="The target moves away from the rammer (its speed counts against).")] = \
        False
    target_flying: Annotated[Flag, msgspec.Meta(description="The target flies.")] = False
    moved: Annotated[Squares, msgspec.Meta(
        description="The squares the rammer moved this turn (option "
        "`ram_speed_from_distance`).")] | None = None
    target_moved: Annotated[Squares, msgspec.Meta(
        description="The squares the target moved (option `ram_speed_from_distance`).")] \
        | None = None


TakeTen = Annotated[Flag, msgspec.Meta(
    description="Take 10: the check counts a 10 on the d20 and no die is thrown (ruling "
    "R81).")]


class HelpArgs(Aimed, frozen=True, kw_only=True):
    """Aid another or distract (STANDARD ACTIONS: Aid Another, Distraction; R11)."""

    skill: Annotated[Name40, msgspec.Meta(
        description="The skill of the check (`melee`: aiding or distracting an attack).")] = \
        "melee"
    take_10: Annotated[Flag, msgspec.Meta(
        description="Take 10 on a distraction (ruling R81); refused to aid another "
        "(\"You can't take 10 on a skill check or ability check to aid another\").")] = False


class BreakArgs(Aimed, frozen=True, kw_only=True):
    """Break an object: a Strength check against its break DC (STANDARD ACTIONS: Breaking an
    Object)."""

    take_10: TakeTen = False


class HarvestArgs(Noted, frozen=True, kw_only=True):
    """Harvest (STANDARD ACTIONS: Harvest; R54): a Profession check against 10, or the
    target's Reflex Defense when there is a target."""

    target: Annotated[Target, msgspec.Meta(
        description="What is harvested, if a combatant (an object or a creature): one of the "
        "entry's `targets`.")] | None = None
    skill: Annotated[Name40, msgspec.Meta(
        description="The Profession skill of the check (`profession_miner`).")] = \
        "profession"
    resource: Annotated[Name40, msgspec.Meta(description="What is gained.")] = "resources"
    weapon: Annotated[str, msgspec.Meta(
        min_length=1, max_length=80,
        description="The weapon whose damage is the harvest roll (the entry's "
        "`options.weapon`), or `unarmed`.")] = "unarmed"
    take_10: Annotated[Flag, msgspec.Meta(
        description="Take 10 on the Profession check (ruling R81; no natural 20 then).")] = \
        False


class BreakGrabArgs(Noted, frozen=True, kw_only=True):
    """Break a grab: one grabber cleared per character level (STANDARD ACTIONS: Grab; R55)."""

    grabbers: Annotated[list[CombatantId], msgspec.Meta(
        max_length=40, description="The grabbers to clear first, in order.")] | None = None


class FoodArgs(Noted, frozen=True, kw_only=True):
    """Catch a Second Lunch with food (FULL-ROUND ACTIONS)."""

    food_bonus: Annotated[int, msgspec.Meta(
        ge=0, le=1000, description="The extra fatigue points the food gives (Goods & "
        "Services).")] = 0


class PathArgs(Noted, frozen=True, kw_only=True):
    """Move or run; on a battle map, the squares entered (MOVE ACTIONS: Move; FULL-ROUND
    ACTIONS: Run). ``fly``: with the fly speed (SPEED: Fly; ruling R83)."""

    path: Annotated[list[tuple[Coordinate, Coordinate]], msgspec.Meta(
        min_length=1, max_length=200,
        description="The squares entered, in order, as `[x, y]` pairs (when the combatant "
        "stands on the battle map; off the map the GM tracks where it goes).")] | None = None
    fly: Annotated[Flag, msgspec.Meta(
        description="Fly, with the fly speed (`stats.fly_speed`): refused without one or "
        "under a heavy load (SPEED: Fly; ENCUMBRANCE AND SPEED; ruling R83). The combatant "
        "is in the air until it moves without flying.")] = False


class DisputeArgs(Aimed, frozen=True, kw_only=True):
    """Dispute (R26): a social attack with one of the speaker's statements."""

    argument: Annotated[StatementId, msgspec.Meta(
        description="One of the speaker's unspent statements (the entry's "
        "`options.argument`).", examples=["arg1"])]


class ConversationArgs(DisputeArgs, frozen=True, kw_only=True):
    """Conversation (R27): both sides argue with a statement each."""

    against: Annotated[StatementId, msgspec.Meta(
        description="The target's statement it answers with: one of the target's unspent "
        "statements.", examples=["arg2"])]


class LieArgs(Noted, frozen=True, kw_only=True):
    """Tell a lie (Creating a Lie; R28): Deception against the best Empathy of those lied to."""

    target: Annotated[Target, msgspec.Meta(
        description="Whom the lie is told to (or `targets`).")] | None = None
    targets: Annotated[list[Target], msgspec.Meta(
        min_length=1, max_length=40,
        description="Those the lie is told to, each one of the entry's `targets`.")] | None = \
        None
    size: Annotated[Size, msgspec.Meta(description="The lie's size.")] = Size.MEDIUM
    white: Annotated[Flag, msgspec.Meta(description="A white lie.")] = False
    perilous: Annotated[Flag, msgspec.Meta(
        description="The GM rules the lie perilous (a caught lie's statement may exceed "
        "Huge).")] = False
    text: Annotated[str, msgspec.Meta(max_length=200, description="What is said.")] = ""


class AnswerArgs(Args, frozen=True, kw_only=True):
    """Answer a statement that hit (R48)."""

    answer: Annotated[Answer, msgspec.Meta(description="How the target answers.")]
    statement: Annotated[StatementId, msgspec.Meta(
        description="The statement answered: one of the entry's `targets` (default: the only "
        "one waiting).")] | None = None


__all__ = ["AnswerArgs", "AttackArgs", "BreakArgs", "BreakGrabArgs", "Circumstances",
           "ConversationArgs", "DisputeArgs", "FoodArgs", "GrabArgs", "HarvestArgs",
           "HelpArgs", "LieArgs", "PathArgs", "RamArgs"]
