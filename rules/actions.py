"""The action economy of a turn: a ruleset's turn budget as named slots, and the kind of cost
each action has.

A turn's budget is a set of slots, each used once; an action of a kind takes the first free
slot it may use, in the order its ruleset's :class:`Economy` lists; one kind (a full-round
action) may need every slot unused; free actions and reactions cost nothing. The engine spends
budgets through their economy and never names a slot itself.

"MLP Dramatic Systems" (ACTIONS IN COMBAT, TYPES OF ACTIONS): "Every round, on your character's
turn, you may take a standard action, a move action, and a swift action (in any order). You may
take a move action or a swift action in place of a standard action, but not the other way
around. You may also take a swift action in place of a move action, but not the other way
around. Finally, you may sacrifice all three of these actions to perform a single full-round
action on your turn." Its budget (:data:`DRAMATIC`) is three slots: a standard action takes only
the standard slot; a move action the move slot, else the standard slot; a swift action the
swift slot, else the move slot, else the standard slot; a full-round action needs all three.
Pure functions over plain data; no I/O. The actions themselves, each with the kind it costs,
are declared by the rulesets (``rulesets.dramatic.actions``, ``rulesets.action_time.actions``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class Kind(StrEnum):
    STANDARD = "standard"
    MOVE = "move"
    SWIFT = "swift"
    FULL_ROUND = "full_round"
    FREE = "free"
    REACTION = "reaction"


#: A turn's budget: each slot of its ruleset's economy, and whether it is still free.
Budget = dict[str, bool]


class IllegalAction(ValueError):
    """An action the budget or the rules do not allow; the message says why."""


@dataclass(frozen=True, eq=False)
class Economy:
    """A ruleset's turn budget: its ``slots`` (in the order a budget lists them), the slots an
    action of each kind may take, in the order it takes them (``takes``), the kind that needs
    every slot unused (``whole``), the slots free in a turn of a single action (``single``),
    the names earlier event logs gave the slots (``aliases``), and the wording of a refusal."""

    slots: tuple[str, ...]
    takes: Mapping[Kind, tuple[str, ...]]
    single: tuple[str, ...]
    whole: Kind | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)
    refusal: Callable[[Budget, Kind], str] | None = None

    def fresh(self, single_action: bool = False) -> Budget:
        free = self.single if single_action else self.slots
        return {slot: slot in free for slot in self.slots}

    def untouched(self, budget: Budget) -> bool:
        return all(budget.get(slot, False) for slot in self.slots)

    def spent(self, budget: Budget) -> bool:
        return not any(budget.values())

    def slot_for(self, budget: Budget, kind: Kind) -> str | None:
        """The slot an action of ``kind`` would take, or ``None`` when none is free."""
        for slot in self.takes.get(kind, ()):
            if budget.get(slot, False):
                return slot
        return None

    def costs_nothing(self, kind: Kind) -> bool:
        return kind in (Kind.FREE, Kind.REACTION)

    def can_take(self, budget: Budget, kind: Kind) -> bool:
        if self.costs_nothing(kind):
            return True
        if kind is self.whole:
            return self.untouched(budget)
        return self.slot_for(budget, kind) is not None

    def spend(self, budget: Budget, kind: Kind) -> Budget:
        """The budget after taking an action of ``kind`` (free actions and reactions cost
        nothing); raises :class:`IllegalAction` with the reason when the budget does not allow
        it."""
        if self.costs_nothing(kind):
            return budget
        if kind is self.whole:
            if not self.untouched(budget):
                raise IllegalAction(self.why_not(budget, kind))
            return dict.fromkeys(self.slots, False)
        slot = self.slot_for(budget, kind)
        if slot is None:
            raise IllegalAction(self.why_not(budget, kind))
        return {**budget, slot: False}

    def why_not(self, budget: Budget, kind: Kind) -> str:
        if self.refusal is not None:
            return self.refusal(budget, kind)
        if kind is self.whole:
            return (f"a {kind.value.replace('_', '-')} action needs the whole turn: "
                    f"{', '.join(self.slots)} unused")
        return f"the turn has no {kind.value.replace('_', '-')} action left"

    def slot_named(self, name: str) -> str:
        """A slot as an event names it (an earlier log may use an earlier name)."""
        return name if name in self.slots else self.aliases.get(name, name)


#: The slots an action of each kind may take, in the order it takes them.
SLOTS_FOR: dict[Kind, tuple[str, ...]] = {
    Kind.STANDARD: ("standard",),
    Kind.MOVE: ("move", "standard"),
    Kind.SWIFT: ("swift", "move", "standard"),
}


def _refusal(budget: Budget, kind: Kind) -> str:
    """Why the Dramatic budget refuses an action of ``kind``."""
    if kind is Kind.FULL_ROUND:
        return ("a full-round action needs the whole turn: standard, move and swift action "
                "unused")
    if kind is Kind.STANDARD:
        return ("the standard action is used (a move or swift action can replace a standard "
                "action, never the other way around)")
    if kind is Kind.MOVE:
        return "no move action left: the move and the standard action are both used"
    return "no swift action left: the swift, move and standard actions are all used"


#: "MLP Dramatic Systems"' turn: a standard, a move and a swift action, or one full-round
#: action; THE SURPRISE ROUND (and 0 fatigue points, R14.5): "a single action-a standard
#: action, a move action, or a swift action" (one slot that any of the three may take).
DRAMATIC = Economy(slots=("standard", "move", "swift"), takes=SLOTS_FOR, single=("standard",),
                   whole=Kind.FULL_ROUND, refusal=_refusal)
