""""Kindling", a toy ruleset that the tests register (``encounter.registry.register``) to show
what a ruleset beyond the two shipped ones declares, and that the engine needs nothing else:

- a stat block of its own: ``spark`` (1 to 6), nothing else;
- an option of its own (``options.ruleset_options.glow``: how many embers a kindling gives);
- a part of the state of its own (``ruleset_state["embers"]``: each combatant's embers);
- events of its own (``ruleset_event`` ``kindled``, and ``flared`` when a combatant's embers
  first reach :data:`FLARE_AT`), their folds and their words, and a part of the view;
- a turn budget of its own: two beats, each action taking one;
- an action of its own (``kindle``: give a combatant embers), beside the engine's ``end_turn``;
- no surprise round (the declaration's default);
- its documents: its actions, stat block and options, generated from all this
  (``python -m docgen``; only ``stats`` is there for them alone).

It imports the engine's declaration types only, never a shipped ruleset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from encounter.boundary import Engine
from encounter.declare import Action, Aimed, Catalog, Targets, in_scene
from encounter.registry import ruleset_options
from encounter.ruleset import Declaration
from encounter.state import EncounterState, Vitals
from encounter.turns import END_TURN
from encounter.words import Names, said
from protocol import events as ev
from protocol.model import CombatantProfile
from protocol.summary import Summary, SummaryPart
from rules.actions import Economy, Kind
from rules.rulesets import CombatantLike, RulesetError

NAME = "kindling"
#: The embers at which a combatant's flare up (``flared``, once).
FLARE_AT = 6

#: Two beats a turn; an action takes either.
BEATS = Economy(slots=("first_beat", "second_beat"),
                takes={Kind.STANDARD: ("first_beat", "second_beat")}, single=("first_beat",))


class Sheet(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    spark: Annotated[int, msgspec.Meta(ge=1, le=6)]


class Options(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    glow: Annotated[int, msgspec.Meta(ge=1, le=3)] = 1


class Rules:
    """The pure part: initiative is 1d6 plus the spark, ties to the brighter spark."""

    name = NAME
    title = "Kindling"
    economy = BEATS

    def validate_stats(self, stats: dict[str, Any]) -> None:
        try:
            msgspec.convert(stats, Sheet)
        except msgspec.ValidationError as exc:
            raise RulesetError(f"stats: {exc}") from None

    def initiative_expr(self, combatant: CombatantLike) -> str:
        return f"1d6+{combatant.stats['spark']}"

    def initiative_tiebreak(self, combatant: CombatantLike) -> tuple[int, ...]:
        return (int(combatant.stats["spark"]),)

    def turn_budget(self, single_action: bool) -> dict[str, bool]:
        return BEATS.fresh(single_action)


def _kindle(d: Engine, c: CombatantProfile, args: Aimed) -> Callable[[], None]:
    glow = ruleset_options(d.s).glow

    def kindled() -> None:
        d.emit(ev.RulesetEvent(ruleset=NAME, name="kindled", combatant=args.target,
                               data={"embers": glow, "by": c.id}))
        embers = d.s.ruleset_state["embers"][args.target]
        if embers >= FLARE_AT and args.target not in d.s.ruleset_state.get("flared", []):
            d.emit(ev.RulesetEvent(ruleset=NAME, name="flared", combatant=args.target,
                                   data={"embers": embers}), d.combatant_vis(args.target))
    return kindled


def _fold_kindled(e: ev.RulesetEvent, s: EncounterState) -> None:
    embers = s.ruleset_state.setdefault("embers", {})
    assert e.combatant is not None
    embers[e.combatant] = embers.get(e.combatant, 0) + int(e.data["embers"])


def _fold_flared(e: ev.RulesetEvent, s: EncounterState) -> None:
    assert e.combatant is not None
    s.ruleset_state.setdefault("flared", []).append(e.combatant)


def _flared_words(e: ev.RulesetEvent, n: Names) -> Summary:
    """The words of a ``flared`` event: whose embers flared up, at how many."""
    embers = int(e.data["embers"])
    return said(f"{n(e.combatant)}'s embers flare up", [SummaryPart(label="embers", value=embers)])


def _kindled_words(e: ev.RulesetEvent, n: Names) -> Summary:
    """The words of a ``kindled`` event: who kindled whose embers, and how many."""
    embers = int(e.data["embers"])
    return said(f"{n(e.data.get('by'))} kindles {n(e.combatant)}'s embers: +{embers}",
                [SummaryPart(label="embers", value=embers)])


def _others(s: EncounterState, cid: str, sees_all: bool) -> list[str]:
    return [t for t in in_scene(s) if t != cid]


def _view(s: EncounterState, visible: set[str], controls: Callable[[str], bool],
          full: bool, stats: set[str]) -> tuple[str, Any]:
    embers = s.ruleset_state.get("embers", {})
    part: dict[str, Any] = {"embers": {c: n for c, n in embers.items() if c in visible}}
    flared = [c for c in s.ruleset_state.get("flared", []) if c in visible]
    if flared:
        part["flared"] = flared
    return "kindling", part


def _vitals(profile: CombatantProfile) -> Vitals:
    return Vitals(fatigue=0, fatigue_max=0, mental=None)


KINDLE = Action("kindle", "Kindle another's embers", "Kindling: Kindle", Kind.STANDARD, Aimed,
                _kindle, targets=Targets(_others))

RULESET = Declaration(
    name=NAME,
    title="Kindling",
    rules=Rules(),
    catalog=Catalog(NAME, "Kindling", (KINDLE, END_TURN), cost_names={Kind.STANDARD: "beat"}),
    options=Options,
    stats=Sheet,  # for the documents: the schema of its stat block (``python -m docgen``)
    initial_state=lambda: {"embers": {}},
    events={"kindled": _fold_kindled, "flared": _fold_flared},
    words={"kindled": _kindled_words, "flared": _flared_words},
    example_events={"kindled": {"combatant": "dog", "data": {"embers": 1, "by": "twilight"}},
                    "flared": {"combatant": "dog", "data": {"embers": 6}}},
    views=(_view,),
    initial_vitals=_vitals,
)
