"""The action economy of a turn ("MLP Dramatic Systems", ACTIONS IN COMBAT, TYPES OF ACTIONS).

"Every round, on your character's turn, you may take a standard action, a move action, and a
swift action (in any order). You may take a move action or a swift action in place of a
standard action, but not the other way around. You may also take a swift action in place of a
move action, but not the other way around. Finally, you may sacrifice all three of these actions
to perform a single full-round action on your turn."

A turn's budget is three slots. An action of a kind takes the first free slot it may use:
a standard action only the standard slot; a move action the move slot, else the standard slot;
a swift action the swift slot, else the move slot, else the standard slot. A full-round action
needs all three. Pure functions over plain data; no I/O. The actions themselves, each with the
kind it costs, are declared by the rulesets (``encounter.actions``, ``encounter.action_time``).
"""

from __future__ import annotations

from enum import StrEnum

import msgspec


class Kind(StrEnum):
    STANDARD = "standard"
    MOVE = "move"
    SWIFT = "swift"
    FULL_ROUND = "full_round"
    FREE = "free"
    REACTION = "reaction"


#: The slots an action of each kind may take, in the order it takes them.
SLOTS_FOR: dict[Kind, tuple[str, ...]] = {
    Kind.STANDARD: ("standard",),
    Kind.MOVE: ("move", "standard"),
    Kind.SWIFT: ("swift", "move", "standard"),
}


class Budget(msgspec.Struct, kw_only=True):
    """The slots still free in a turn."""

    standard: bool = True
    move: bool = True
    swift: bool = True

    @classmethod
    def surprise_round(cls) -> Budget:
        """THE SURPRISE ROUND: "each take a single action-a standard action, a move action, or
        a swift action" — one slot that any of the three may take, and no full-round action."""
        return cls(standard=True, move=False, swift=False)

    def untouched(self) -> bool:
        return self.standard and self.move and self.swift

    def spent(self) -> bool:
        return not (self.standard or self.move or self.swift)


class IllegalAction(ValueError):
    """An action the budget or the rules do not allow; the message says why."""


def slot_for(budget: Budget, kind: Kind) -> str | None:
    """The slot an action of ``kind`` would take, or ``None`` when none is free."""
    for slot in SLOTS_FOR.get(kind, ()):
        if getattr(budget, slot):
            return slot
    return None


def can_take(budget: Budget, kind: Kind) -> bool:
    if kind in (Kind.FREE, Kind.REACTION):
        return True
    if kind is Kind.FULL_ROUND:
        return budget.untouched()
    return slot_for(budget, kind) is not None


def spend(budget: Budget, kind: Kind) -> Budget:
    """The budget after taking an action of ``kind`` (free actions and reactions cost
    nothing); raises :class:`IllegalAction` with the reason when the budget does not allow it."""
    if kind in (Kind.FREE, Kind.REACTION):
        return budget
    if kind is Kind.FULL_ROUND:
        if not budget.untouched():
            raise IllegalAction("a full-round action needs the whole turn: standard, move and "
                                "swift action unused")
        return Budget(standard=False, move=False, swift=False)
    slot = slot_for(budget, kind)
    if slot is None:
        raise IllegalAction(_refusal(budget, kind))
    return msgspec.structs.replace(budget, **{slot: False})


def _refusal(budget: Budget, kind: Kind) -> str:
    if kind is Kind.STANDARD:
        return ("the standard action is used (a move or swift action can replace a standard "
                "action, never the other way around)")
    if kind is Kind.MOVE:
        return "no move action left: the move and the standard action are both used"
    return "no swift action left: the swift, move and standard actions are all used"
