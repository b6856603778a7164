"""The action economy of a turn ("MLP Dramatic Systems", ACTIONS IN COMBAT, TYPES OF ACTIONS).

"Every round, on your character's turn, you may take a standard action, a move action, and a
swift action (in any order). You may take a move action or a swift action in place of a
standard action, but not the other way around. You may also take a swift action in place of a
move action, but not the other way around. Finally, you may sacrifice all three of these actions
to perform a single full-round action on your turn."

A turn's budget is three slots. An action of a kind takes the first free slot it may use:
a standard action only the standard slot; a move action the move slot, else the standard slot;
a swift action the swift slot, else the move slot, else the standard slot. A full-round action
needs all three. Pure functions over plain data; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class ActionSpec:
    """An action a combatant can take, with what it costs and where the rule text has it.

    ``swifts`` > 1: an action that needs several swift actions, spent in the same or consecutive
    rounds (SWIFT ACTIONS); each ``act`` spends one, and the action happens with the last.
    """

    name: str
    kind: Kind
    section: str
    label: str
    swifts: int = 1
    readyable: bool = False


_CATALOG = [
    # STANDARD ACTIONS
    ActionSpec("attack", Kind.STANDARD, "COMBAT STATISTICS: ATTACK ROLL",
               "Attack (melee, ranged, unarmed or natural)", readyable=True),
    ActionSpec("aid_another", Kind.STANDARD, "STANDARD ACTIONS: Aid Another", "Aid another",
               readyable=True),
    ActionSpec("distraction", Kind.STANDARD, "STANDARD ACTIONS: Distraction", "Distract",
               readyable=True),
    ActionSpec("grab", Kind.STANDARD, "STANDARD ACTIONS: Grab", "Grab", readyable=True),
    ActionSpec("break_grab", Kind.STANDARD, "STANDARD ACTIONS: Grab", "Break a grab"),
    ActionSpec("break_object", Kind.STANDARD, "STANDARD ACTIONS: Breaking an Object",
               "Break an object", readyable=True),
    ActionSpec("harvest", Kind.STANDARD, "STANDARD ACTIONS: Harvest", "Harvest",
               readyable=True),
    ActionSpec("ram", Kind.STANDARD, "Flying Basic Maneuver: Ramming", "Ram", readyable=True),
    # SOCIAL SYSTEMS: Social Basic Maneuver, Creating a Lie
    ActionSpec("dispute", Kind.STANDARD, "Social Basic Maneuver: Dispute", "Dispute"),
    ActionSpec("conversation", Kind.STANDARD, "Social Basic Maneuver: Conversation",
               "Conversation"),
    ActionSpec("lie", Kind.STANDARD, "Creating a Lie", "Tell a lie"),
    ActionSpec("block", Kind.STANDARD, "Social Basic Maneuver: Blocking",
               "Block (withdraw from the discussion)"),
    ActionSpec("other_standard", Kind.STANDARD, "ACTIONS IN COMBAT: Standard Action",
               "Another standard action (GM adjudicates)", readyable=True),
    # MOVE ACTIONS
    ActionSpec("move", Kind.MOVE, "MOVE ACTIONS: Move", "Move up to your speed",
               readyable=True),
    ActionSpec("draw", Kind.MOVE, "MOVE ACTIONS: Draw or Holster Object",
               "Draw or holster an object", readyable=True),
    ActionSpec("manipulate", Kind.MOVE, "MOVE ACTIONS: Manipulate an Item",
               "Manipulate an item", readyable=True),
    ActionSpec("retrieve", Kind.MOVE, "MOVE ACTIONS: Retrieve a Stored Item",
               "Open a container or take out an item", readyable=True),
    ActionSpec("stand_up", Kind.MOVE, "MOVE ACTIONS: Stand Up", "Stand up", readyable=True),
    ActionSpec("other_move", Kind.MOVE, "ACTIONS IN COMBAT: Move Action",
               "Another move action (GM adjudicates)", readyable=True),
    # SWIFT ACTIONS
    ActionSpec("activate_item", Kind.SWIFT, "SWIFT ACTIONS: Activate an Item",
               "Activate an item"),
    ActionSpec("drop_item", Kind.SWIFT, "SWIFT ACTIONS: Drop an Item", "Drop an item"),
    ActionSpec("fall_prone", Kind.SWIFT, "SWIFT ACTIONS: Fall Prone", "Fall prone"),
    ActionSpec("second_lunch", Kind.SWIFT,
               "SWIFT ACTIONS: Catch a Second Lunch without Food (Second Wind)",
               "Catch a Second Lunch"),
    ActionSpec("recover", Kind.SWIFT, "SWIFT ACTIONS: Recover",
               "Recover (three swift actions)", swifts=3),
    ActionSpec("other_swift", Kind.SWIFT, "ACTIONS IN COMBAT: Swift Action",
               "Another swift action (GM adjudicates)"),
    # FULL-ROUND ACTIONS
    ActionSpec("run", Kind.FULL_ROUND, "FULL-ROUND ACTIONS: Run", "Run"),
    ActionSpec("second_lunch_with_food", Kind.FULL_ROUND,
               "FULL-ROUND ACTIONS: Catch a Second Lunch with Food",
               "Catch a Second Lunch with food"),
    ActionSpec("other_full_round", Kind.FULL_ROUND, "ACTIONS IN COMBAT: Full-Round Action",
               "Another full-round action (GM adjudicates)"),
    # FREE ACTIONS AND REACTIONS
    ActionSpec("low_access", Kind.FREE, "SOCIAL ACCESS RATING (R72)",
               "Point out a low access rating (an argument)"),
    ActionSpec("stop_blocking", Kind.FREE, "Social Basic Maneuver: Blocking (R49)",
               "Stop Blocking"),
    ActionSpec("free", Kind.FREE, "Free Actions and Reactions: Free Action",
               "A free action (call out, taunt)"),
    ActionSpec("reaction", Kind.REACTION, "Free Actions and Reactions: Reaction",
               "A reaction to a trigger"),
]

ACTIONS: dict[str, ActionSpec] = {a.name: a for a in _CATALOG}
