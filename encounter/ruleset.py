"""What a ruleset declares.

The engine is neutral: it runs the chart, the turns, the budget, interrupts, dice, views and
legal actions, and never imports a ruleset. A ruleset is one :class:`Declaration` (in
``rulesets/<name>/``, exported as ``RULESET``) that the engine interprets, as boardgame.io's
``Game`` is interpreted by one ``processMove``: the rolls it makes (``rules``), its actions
(``catalog``), whether it has a surprise round, its steps at the turn's and the round's
edges, the GM commands that belong to it, and the parts of the view that are its own.
Every field but the first four has a neutral default: a ruleset that leaves it out has no such
rule.

:data:`encounter.registry.REGISTRY` names the module of each ruleset; adding a ruleset is one
line there (or one call of ``register``, as the tests do for a toy ruleset). The steps are typed
against ``encounter.boundary.Engine``: the members of the decision a ruleset may use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from protocol.model import COMMON_OPTIONS

if TYPE_CHECKING:
    from encounter.boundary import Engine
    from encounter.declare import Catalog
    from encounter.state import EncounterState, Vitals
    from protocol.campaign import Character
    from protocol.events import RulesetEvent
    from protocol.messages import Command, GetReach, LegalAction
    from protocol.model import CombatantProfile
    from protocol.summary import Summary
    from rules.dice import Roll
    from rules.rulesets import Ruleset

#: A step of the turn flow that a ruleset adds, given the decision and the combatant.
TurnStep = Callable[["Engine", str], None]
#: The part of a view a ruleset adds: (state, the combatants the viewer sees, whether the
#: viewer controls a combatant, whether it sees everything) to a key and its value, or ``None``.
#: A ruleset's part of a view: (state, the combatants the viewer sees, whether it controls one,
#: whether it sees everything, the combatants whose stat blocks and numbers it sees).
ViewPart = Callable[["EncounterState", set[str], Callable[[str], bool], bool, set[str]],
                    "tuple[str, Any] | None"]
#: A ruleset's part of a view made of one value per combatant whose stat block the viewer sees
#: (its key, and the value of one combatant, ``None`` for none): worked out per combatant, so
#: that a change to one combatant works out its own value again and no other.
CombatantViewPart = tuple[str, Callable[["EncounterState", str], Any]]
#: An event's words for people (``encounter.words``): the event as one viewer receives it and
#: the combatants' names (``encounter.words.Names``) to its summary.
EventWords = Callable[[Any, Any], "Summary"]


def _no_after_roll(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    raise RuntimeError(f"{d.s.ruleset}: a roll for {stage!r} has no step to resolve it")


@dataclass(frozen=True, eq=False)
class TimeRules:
    """What a ruleset's rules of time do to a character of a campaign between its scenes
    (``campaign``; rulings R109-R112). Each is pure, over the character as the campaign keeps it
    (``protocol.campaign.Character``); ``hour`` is the campaign clock's."""

    #: The statistics of the character's stat block as an encounter of the campaign starts it:
    #: what its stat block carries of the campaign (the day's uses so far, temporary status).
    carry_in: Callable[[Character, int], dict[str, Any]]
    #: A rest of eight hours ending at ``hour``: the character healed, or why it is not (a
    #: sentence).
    rest: Callable[[Character, int], tuple[Character, list[str]] | str]
    #: The clock passed ``hour``: what a new day (per-day uses) and the weeks (fading status)
    #: change.
    passes: Callable[[Character, int], tuple[Character, list[str]] | None]
    #: The encounter ended: the character as the final state leaves it (its combatant's id is
    #: the character's), whether it rested through the scene, at ``hour``.
    carry_back: Callable[[EncounterState, Character, bool, int], tuple[Character, list[str]]]


@dataclass(frozen=True, eq=False)
class Declaration:
    """One ruleset, as the engine interprets it."""

    name: str
    title: str
    #: The pure rules the engine asks: initiative expressions and tie-breaks, the stat-block
    #: check, the turn's budget (``rules.rulesets``).
    rules: Ruleset
    #: Its actions (``encounter.declare.Catalog``).
    catalog: Catalog
    #: Whether a scene opens with a surprise round when some combatants are unaware; the
    #: chart's ``surprise_applies`` guard reads it ("MLP Dramatic Systems", R1).
    surprise_round: bool = False
    #: Steps when a turn starts: before ``turn_started`` (``starting``) and after it
    #: (``started``).
    turn_starting: TurnStep | None = None
    turn_started: TurnStep | None = None
    #: A step as a round ends, before the next one's ``round_started``.
    round_ending: Callable[[Engine], None] | None = None
    #: A step once ``round_started`` is recorded.
    round_started: Callable[[Engine], None] | None = None
    #: Whether the turn of a combatant who is conscious passes by itself.
    turn_passes: Callable[[EncounterState, str], bool] | None = None
    #: What follows each of the ruleset's dice (the stage named when they were asked for).
    after_roll: Callable[[Engine, str, dict[str, Any], Roll], None] = _no_after_roll
    #: Whether a readied action moves its taker in the order ("MLP Dramatic Systems", R8.4).
    readied_moves_order: bool = False
    #: What follows the end of an interrupt.
    interrupt_ended: Callable[[Engine], None] | None = None
    #: Whether a combatant added while the rounds run waits for the next round to roll its
    #: initiative (instead of rolling at once).
    joins_next_round: Callable[[EncounterState], bool] | None = None
    #: A step once ``scene_started`` is recorded (given whether a surprise round follows).
    scene_started: Callable[[Engine, bool], None] | None = None
    #: A step when the scene ends, after the neutral ones.
    after_scene: Callable[[Engine], None] | None = None
    #: What resting after the scene does (``end_encounter.rest``); ``None``: it has no rule
    #: for it, and ``rest`` is refused.
    rest: Callable[[Engine], None] | None = None
    #: A combatant's vitals as it joins.
    initial_vitals: Callable[[CombatantProfile], Vitals] | None = None
    #: The size of a combatant's space on the map, if the ruleset has sizes.
    size_of: Callable[[CombatantProfile], str | None] | None = None
    #: The GM commands that belong to this ruleset (another ruleset's are refused), with the
    #: step deciding each.
    commands: Mapping[type[Command], Callable[[Engine, Any], None]] = field(
        default_factory=dict)
    #: ``get_reach``: where a combatant can move now, by the rules that check the move (R106);
    #: ``None`` in a ruleset that keeps no map.
    reach: Callable[[Engine, CombatantProfile, GetReach], dict[str, Any]] | None = None
    #: The GM's tools ``legal_actions`` offers while combatants are in the encounter.
    gm_tools: tuple[LegalAction, ...] = ()
    #: The parts of a view that are the ruleset's own, and those of one value per combatant
    #: (after them in a snapshot).
    views: tuple[ViewPart, ...] = ()
    combatant_views: tuple[CombatantViewPart, ...] = ()
    #: By the key of one of ``combatant_views``, by a mapping field of the state, what that
    #: part reads of an entry there (a function of the entry): a change to an entry that this
    #: gives the same for leaves the part's value as it was (``encounter.patches``: the
    #: value is not worked out again).
    combatant_view_reads: Mapping[str, Mapping[str, Callable[[Any], Any]]] = \
        field(default_factory=dict)
    #: What those parts hold, for the published schema of a snapshot's ``state`` and the
    #: guide's table of it (``python -m docgen``): a struct with a field for each key its
    #: ``views`` fill, those of ``protocol.snapshot.RULESET_PARTS`` it fills included.
    #: ``None``: its parts are not described (the schema admits any key beside the
    #: protocol's).
    view: type[msgspec.Struct] | None = None
    #: The fold of the ruleset's own events (by type): what each changes in the state.
    folds: Mapping[type, Callable[[Any, EncounterState], None]] = field(default_factory=dict)
    #: A ruleset beyond the protocol's own: its options (``options.ruleset_options``, read as
    #: this struct: unknown names refused), its part of the state (``ruleset_state``, plain
    #: data, as it starts), and the fold of each of its ``ruleset_event`` events, by name.
    options: type[msgspec.Struct] | None = None
    initial_state: Callable[[], dict[str, Any]] | None = None
    events: Mapping[str, Callable[[RulesetEvent, EncounterState], None]] = field(
        default_factory=dict)
    #: The words of the ruleset's events (``encounter.words``; the ``summary`` of an ``event``
    #: message): by type for those of ``folds``, and for the engine's kinds it words its own
    #: way (an attack, a damage, a change of vitals in its own terms); by name for its
    #: ``ruleset_event`` events (those of ``events``). Each of its events has words.
    words: Mapping[type | str, EventWords] = field(default_factory=dict)
    #: What an effect's modifiers may change (``add_effect``, R90): each target's name and what
    #: it changes; a target ending in ``_die`` takes a die ("d6") as its amount.
    effect_targets: Mapping[str, str] = field(default_factory=dict)
    #: The states of a conscious combatant's condition chart (``vitals.condition``) that put it
    #: out of the fight all the same (one not conscious is out of it in every ruleset); the
    #: snapshot says them (``out_of_fight``), for a client judging whether a side fights on.
    out_of_fight: tuple[str, ...] = ()
    #: The pages' word for a combatant's ``fatigue`` points in this ruleset.
    vitals_label: str = "fatigue"
    #: The pages' words for each band of the vitals (``vitals.band``, R105).
    vitals_bands: Mapping[str, str] = field(default_factory=lambda: {
        "full": "fresh", "above_half": "tiring", "half_or_less": "winded", "none": "spent"})
    #: The values of a combatant that the GM's ``adjust_combatant`` may set in this ruleset
    #: (``None``: every one); the others are refused, naming these.
    override_fields: tuple[str, ...] | None = None
    #: What the published schemas and the references for people (``python -m docgen``) say of
    #: the ruleset beyond the declarations above. The struct a stat block's ``stats`` are read
    #: as (the check itself is ``rules.validate_stats``), and its JSON Schema when the struct
    #: alone does not say it all (by default: the struct's; without a struct: any object).
    stats: type[msgspec.Struct] | None = None
    stats_schema: Callable[[], dict[str, Any]] | None = None
    #: The fields of ``create_encounter.options`` that change something in it (every one is
    #: accepted; the others change nothing).
    encounter_options: tuple[str, ...] = COMMON_OPTIONS
    #: Markdown of the stat-block reference (``docs/stat-blocks.md``): rows added to the table
    #: of the fields of ``stats`` (keys its schema allows beyond its fields), and the lines of
    #: sections after it (feats, talents...).
    stats_rows: tuple[str, ...] = ()
    stats_sections: tuple[str, ...] = ()
    #: The action reference's (``docs/actions.md``) words for what the turn's budget is (a
    #: parenthesis, with its full stop) and for how effects stack.
    costs_text: str = ""
    stacking_text: str = ""
    #: The references' examples: a stat block, an encounter file (the reference shows the
    #: first ruleset's that has one), and arguments of actions where a value for each required
    #: argument says too little (by action name).
    example_stat_block: Mapping[str, Any] | None = None
    example_encounter: Mapping[str, Any] | None = None
    example_args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: The example of each of its ``ruleset_event`` events the reference of the events' words
    #: (``docs/summaries.md``) words, by name: the event's fields but ``ruleset`` and ``name``.
    example_events: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Its rules of time between the scenes of a campaign (``None``: its characters keep what
    #: the encounters leave them, and a rest changes nothing).
    time: TimeRules | None = None
