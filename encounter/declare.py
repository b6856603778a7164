"""Actions as declarations: every action of a ruleset is declared once, and the engine reads
the declaration to offer the action (``legal_actions``), to refuse it (``act``) and to resolve it.

An :class:`Action` holds:

- its ``name``, ``label`` and the rule ``section`` it comes from;
- its ``cost``: a kind of the turn's budget (``rules.actions.Kind``), or ``None`` for what costs
  no action (ending the turn, triggering a readied action); and :class:`When` it may be taken;
- ``args``, a msgspec struct that refuses unknown fields, with each argument's type, bounds,
  default and description: ``act`` converts ``args`` to it once (:func:`convert_args`), and a
  refused argument answers ``invalid_payload`` naming it;
- one ``precondition``, a function of the state and the combatant that returns ``None`` when
  the state allows the action and the reason when it does not. The same function decides
  whether ``legal_actions`` offers the action and whether ``act`` refuses it, together with the
  checks every action shares (the turn, its budget, an interrupt, flat-footed combatants:
  ``encounter.turns.refusal``);
- its ``targets`` (:class:`Targets`): whom it may be aimed at now, listed by ``legal_actions``
  and the only ones ``act`` accepts;
- ``options``: the few values some arguments may take now (the weapons of an attack);
- its ``resolve`` function: it checks what depends on the arguments (nothing is recorded yet)
  and returns what to do once the action is taken;
- ``aim``: for an action aimed by the battle map, what the map says of one target before it
  is taken (``get_aim``, ruling R107), by the same checks as ``resolve``.

A ruleset's actions form a :class:`Catalog`, part of the ruleset's declaration
(``encounter.ruleset``); ``encounter.registry.catalog`` finds it by the ruleset's name. Pure
data and functions; no I/O.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import msgspec

from encounter.rejected import Rejected
from protocol.errors import ErrorCode
from rules.actions import Kind
from rules.choices import in_words

if TYPE_CHECKING:
    from encounter.boundary import Engine
    from encounter.state import EncounterState
    from protocol.model import CombatantProfile
    from rules.actions import Budget

Thunk = Callable[[], None]


class Refusal(NamedTuple):
    """Why an action may not be taken now, with the error code ``act`` answers."""

    message: str
    code: ErrorCode = ErrorCode.ILLEGAL_ACTION

    def rejected(self) -> Rejected:
        return Rejected(self.code, self.message)


#: A precondition: ``None`` when the state allows the action for the combatant, else why not.
Precondition = Callable[["EncounterState", str], "str | Refusal | None"]
#: Checks what depends on the arguments, then returns what to do once the action is taken.
Resolver = Callable[["Engine", "CombatantProfile", Any], "Thunk | None"]
#: What the battle map says of one target before the action is taken (``get_aim``): the
#: facts of the map, or ``Rejected`` as ``act`` would refuse it.
Aimer = Callable[["Engine", "CombatantProfile", Any], dict[str, Any]]


class When(StrEnum):
    """When an action may be taken.

    - ``turn``: on the combatant's own turn, while no readied action interrupts it; an action
      with a cost spends the turn's budget.
    - ``any_turn``: free actions and reactions, on anyone's turn (never while flat-footed for
      a free action; a reaction then only with ``reactions_while_flat_footed``, R4; no
      reaction at 0 fatigue points, R14.5).
    - ``any_time``: no action at all (answering a statement, triggering a readied action,
      taking a delayed turn): whenever the precondition allows.

    Whoever interrupts a turn with a readied action takes that action and nothing else of
    ``turn`` or ``any_turn``.
    """

    TURN = "turn"
    ANY_TURN = "any_turn"
    ANY_TIME = "any_time"


# --- arguments --------------------------------------------------------------------------------


class Args(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True, gc=False):
    """No arguments."""


Note = Annotated[str, msgspec.Meta(
    max_length=200, description="Free text recorded with the action (`action_taken.note`).")]
Target = Annotated[str, msgspec.Meta(
    min_length=1, max_length=40,
    description="The combatant aimed at: one of the `targets` of the action's entry in "
    "`legal_actions` (recorded as `action_taken.target`).")]
CombatantId = Annotated[str, msgspec.Meta(min_length=1, max_length=40,
                                          description="A combatant's id.")]


class Noted(Args, frozen=True, kw_only=True):
    """A note, recorded with the action."""

    note: Note | None = None


class Aimed(Noted, frozen=True, kw_only=True):
    """An action aimed at another combatant (``target``)."""

    target: Target


def field_names(args: type[Args]) -> tuple[str, ...]:
    return tuple(args.__struct_fields__)


_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<name>[^`]+)`")
_MISSING = re.compile(r"^Object missing required field `(?P<name>[^`]+)`")


def _choices(tp: Any) -> list[Any] | None:
    """The values an enum or ``Literal`` field (possibly optional) may take."""
    if typing.get_origin(tp) is Annotated:
        return _choices(typing.get_args(tp)[0])
    if typing.get_origin(tp) is typing.Literal:
        return list(typing.get_args(tp))
    if isinstance(tp, type) and issubclass(tp, Enum):
        return [m.value for m in tp]
    for arg in typing.get_args(tp):  # X | None
        found = _choices(arg)
        if found is not None:
            return found
    return None


@cache
def _hints(args: type[Args]) -> dict[str, Any]:
    return typing.get_type_hints(args, include_extras=True)


def convert_args(action: Action, raw: dict[str, Any]) -> Any:
    """``raw`` (the ``act`` command's ``args``) as ``action.args``, or ``invalid_payload``
    naming the argument refused: for an unknown one, the arguments the action takes; for one
    of a few values, those values."""
    if not raw:
        default = _defaults(action.args)
        if default is not None:
            return default
    try:
        return msgspec.convert(raw, action.args)
    except msgspec.ValidationError as exc:
        raise _invalid(action, str(exc)) from None


@cache
def _defaults(args: type[Args]) -> Args | None:
    """The arguments all left out (frozen, so shared), or ``None`` when some are required."""
    try:
        return msgspec.convert({}, args)
    except msgspec.ValidationError:
        return None


def _invalid(action: Action, text: str) -> Rejected:
    takes = field_names(action.args)
    unknown = _UNKNOWN.match(text)
    at = _AT.search(text)
    path = at.group("path") if at else ""
    if unknown and not path:
        name = unknown.group("name")
        said = ", ".join(takes) if takes else "no arguments"
        return Rejected(ErrorCode.INVALID_PAYLOAD, f"args.{name} is not an argument of "
                        f"{action.name}: it takes {said}", field=f"args.{name}",
                        allowed=list(takes))
    missing = _MISSING.match(text)
    if missing and not path:
        name = missing.group("name")
        return Rejected(ErrorCode.INVALID_PAYLOAD, f"args.{name} is required for "
                        f"{action.name}", field=f"args.{name}")
    where = f"args{path}"
    reason = _AT.sub("", text)
    top = path[1:].split(".")[0].split("[")[0] if path.startswith(".") else ""
    choices = _choices(_hints(action.args).get(top)) if top and path == f".{top}" else None
    if choices is not None:
        values = ", ".join(str(c) for c in choices)
        return Rejected(ErrorCode.INVALID_PAYLOAD, f"{where} is one of {values}",
                        field=where, allowed=choices)
    # in words for people ("args.path must list at least 1 item"), the field in ``details``
    return Rejected(ErrorCode.INVALID_PAYLOAD, f"{where} {in_words(reason)}", field=where)


# --- targets ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Targets:
    """Whom (or what) an action may be aimed at now: the ``pool`` of candidates
    (``pool(state, combatant, sees_all)``, in the initiative order; ``sees_all``: the sender
    sees hidden combatants), of which the action keeps those its test allows:
    ``keep(state, combatant)`` returns the test of a target (``None``: none may be aimed at;
    :func:`everyone`: the whole pool).
    ``legal_actions`` lists them as the entry's ``targets``; ``act`` refuses a target not among
    them. Several actions may share a pool (worked out once per combatant while listing legal
    actions). ``fields`` are the arguments that name targets (a list argument names several).
    ``optional``: the action is offered, and may be taken, without a target; else it is left
    out of ``legal_actions`` while there is nobody to aim it at."""

    pool: Callable[[EncounterState, str, bool], list[str]]
    keep: Callable[[EncounterState, str], Callable[[str], bool] | None] | None = None
    fields: tuple[str, ...] = ("target",)
    optional: bool = False

    def pick(self, state: EncounterState, cid: str, sees_all: bool,
             memo: dict[Any, list[str]] | None = None) -> list[str]:
        """The targets now (``memo``: a dict kept while listing one viewer's actions)."""
        if memo is None:
            found = self.pool(state, cid, sees_all)
        else:
            key = (self.pool, cid)
            known = memo.get(key)
            if known is None:
                known = memo[key] = self.pool(state, cid, sees_all)
            found = known
        if self.keep is None:
            return found  # shared by the actions of the pool: never changed
        test = self.keep(state, cid)
        if test is everyone:
            return found
        return [] if test is None else list(filter(test, found))


def everyone(target: str) -> bool:
    """The test of a :class:`Targets` that keeps its whole pool."""
    return True


def in_scene(state: EncounterState) -> list[str]:
    """Every combatant, in the initiative order, then those not in it yet (the unaware during
    the surprise round, a newcomer whose initiative is still to be rolled)."""
    order = state.order
    if len(order) == len(state.combatants):
        return order
    placed = set(order)
    return [*order, *(c for c in state.combatants if c not in placed)]


Options = Callable[["EncounterState", str], "dict[str, list[str]] | None"]


# --- actions ----------------------------------------------------------------------------------


_BUDGET = frozenset({Kind.STANDARD, Kind.MOVE, Kind.SWIFT, Kind.FULL_ROUND})

#: The groups a ruleset sorts its actions into, for people: a page shows the groups of the
#: moment first (attacks and movement in a fight, the maneuvers in a debate) and folds the
#: others away. Each ``legal_actions`` entry names its group (``group``).
GROUPS: dict[str, str] = {
    "attack": "attacks and other actions against a foe",
    "movement": "moving, running, standing up, falling prone",
    "social": "the maneuvers of a social scene",
    "support": "helping an ally or oneself: aid, healing, recovering, defending",
    "items": "drawing, using, readying, dropping or reloading an item; casting a spell; "
             "breaking an object or harvesting from one",
    "turn": "the turn itself: ending it, delaying, readying an action, a readied action's "
            "trigger",
    "other": "what the GM adjudicates: another action, a free action, a reaction",
    "scene": "the GM's: starting and ending the scene, the GM's tools",
    "dice": "a roll the server asks for",
}
#: The engine's own actions (every ruleset's turn), in their group.
_ENGINE_GROUPS = {"end_turn": "turn", "delay": "turn", "ready": "turn", "trigger_ready": "turn",
                  "take_delayed_turn": "turn"}


@dataclass(frozen=True, eq=False)
class Action:
    """One action of a ruleset (see the module docstring). ``swifts`` > 1: an action of several
    swift actions in the same or consecutive rounds, each ``act`` spending one (SWIFT
    ACTIONS). ``readyable``: it may be readied (Dramatic's Ready, R8). ``records``: taking it
    records an ``action_taken`` event (the turn's own moves, such as ``end_turn``, record
    their own events). ``when`` defaults from the cost: ``any_turn`` for free actions and
    reactions, else ``turn``. ``among``: the first part of the precondition, for an action
    that only a few combatants may take at all (those with a readied action): it gives them
    from the state, once for every combatant; the precondition is asked for them only (and
    gives the reason for the others)."""

    name: str
    label: str
    section: str
    cost: Kind | None
    args: type[Args] = Noted
    resolve: Resolver | None = None
    precondition: Precondition | None = None
    targets: Targets | None = None
    options: Options | None = None
    when: When | None = None
    swifts: int = 1
    readyable: bool = False
    records: bool = True
    among: Callable[[EncounterState], Container[str]] | None = None
    aim: Aimer | None = None
    #: No precondition, targets or options of its own: whether it is legal depends on the
    #: checks every action shares alone.
    plain: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.when is None:
            free = self.cost in (Kind.FREE, Kind.REACTION)
            object.__setattr__(self, "when", When.ANY_TURN if free else When.TURN)
        if self.records and self.cost is None:
            raise ValueError(f"{self.name}: an action that records action_taken has a cost")
        object.__setattr__(self, "plain", self.precondition is None and self.targets is None
                           and self.options is None and self.among is None)

    @property
    def timing(self) -> When:
        assert self.when is not None
        return self.when

    @property
    def budgeted(self) -> bool:
        """Whether it spends the turn's budget."""
        return self.cost in _BUDGET


@dataclass(frozen=True, eq=False)
class Catalog:
    """A ruleset's actions, in the order ``legal_actions`` lists them.

    ``precondition`` applies to every action of the ruleset before the action's own
    (Action Time: nothing at 0 Health, R29). ``absent`` says, for names of actions this ruleset
    does not have, why (``delay`` in Action Time). ``budget_refusal`` explains in the
    ruleset's words why the turn's budget refuses an action (default: the budget's own
    reason)."""

    ruleset: str
    title: str
    actions: tuple[Action, ...]
    precondition: Precondition | None = None
    absent: Mapping[str, str] = field(default_factory=dict)
    budget_refusal: Callable[[Budget, Action], str] | None = None
    #: What the ruleset calls the kinds of the budget (Action Time: a major action is a
    #: ``standard`` action of the budget, a minor one a ``move`` action).
    cost_names: Mapping[Kind, str] = field(default_factory=dict)
    #: Its actions by group (a name of :data:`GROUPS`): each action in one at most; the
    #: engine's turn actions are in ``turn``, an action in none is in ``other``.
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    by_name: dict[str, Action] = field(init=False, repr=False)
    group_by_name: dict[str, str] = field(init=False, repr=False)
    turn: tuple[Action, ...] = field(init=False, repr=False)
    turn_flow: tuple[Action, ...] = field(init=False, repr=False)
    any_turn: tuple[Action, ...] = field(init=False, repr=False)
    any_time: tuple[Action, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        by_name = {a.name: a for a in self.actions}
        if len(by_name) != len(self.actions):
            raise ValueError(f"{self.ruleset}: two actions share a name")
        object.__setattr__(self, "by_name", by_name)
        grouped = {name: group for name, group in _ENGINE_GROUPS.items() if name in by_name}
        for group, members in self.groups.items():
            if group not in GROUPS:
                raise ValueError(f"{self.ruleset}: no group {group!r} (groups: {list(GROUPS)})")
            for name in members:
                if name not in by_name:
                    raise ValueError(f"{self.ruleset}: group {group!r} names no action {name!r}")
                if name in grouped and grouped[name] != group:
                    raise ValueError(f"{self.ruleset}: {name!r} is in two groups")
                grouped[name] = group
        object.__setattr__(self, "group_by_name",
                           {a.name: grouped.get(a.name, "other") for a in self.actions})
        groups: dict[When, list[Action]] = {w: [] for w in When}
        for a in self.actions:
            groups[a.timing].append(a)
        object.__setattr__(self, "turn", tuple(a for a in groups[When.TURN] if a.budgeted))
        object.__setattr__(self, "turn_flow",
                           tuple(a for a in groups[When.TURN] if not a.budgeted))
        object.__setattr__(self, "any_turn", tuple(groups[When.ANY_TURN]))
        object.__setattr__(self, "any_time", tuple(groups[When.ANY_TIME]))

    def get(self, name: str) -> Action | None:
        return self.by_name.get(name)

    def names(self) -> list[str]:
        return [a.name for a in self.actions]

    def cost_name(self, action: Action) -> str:
        """What ``action`` costs, in the ruleset's words (``none``: no action at all)."""
        if action.cost is None:
            return "none"
        return self.cost_names.get(action.cost, action.cost.value)

    def group_of(self, action: Action) -> str:
        """The group of ``action`` (a name of :data:`GROUPS`)."""
        return self.group_by_name[action.name]

    def cost_of(self, action: Action) -> str | None:
        """What ``action`` costs, in the ruleset's words, for a ``legal_actions`` entry
        (``None``: no part of the budget, as the turn's own moves)."""
        return None if action.cost is None else self.cost_name(action)

    def readyable(self) -> Iterable[Action]:
        return (a for a in self.actions if a.readyable)


__all__ = [
    "Action",
    "Aimed",
    "Aimer",
    "Args",
    "Catalog",
    "CombatantId",
    "Note",
    "Noted",
    "Options",
    "Precondition",
    "Refusal",
    "Resolver",
    "Target",
    "Targets",
    "Thunk",
    "When",
    "convert_args",
    "everyone",
    "field_names",
]
