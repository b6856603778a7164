"""A turn's actions (Taking Actions; rulings R29, R36, R51).

"On your turn you can take a major action and a minor action or two minor actions. You can take
these in any order and can take fewer actions if you like." Free actions "don't count towards
your usual limitation on actions". R51: never two major actions; the same minor action may be
taken twice unless its text forbids it. The text has no surprise round; the special cases are a
turn ended early — Prepare "then end your turn" (R36) — and a combatant at 0 Health, whose turns
pass without actions (R29).

Public API: :class:`ActionKind`, :class:`TurnBudget` (``fresh()``, ``passed()``),
:func:`can_take`, :func:`spend`, :func:`end_turn`. Refusals raise
:class:`rules.actions.IllegalAction` with the reason, as the Dramatic budget does.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from rules.actions import Economy, IllegalAction, Kind


class ActionKind(StrEnum):
    MAJOR = "major"
    MINOR = "minor"
    FREE = "free"


class TurnBudget(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What a turn has used: ``majors`` and ``minors`` taken, the names in order, and
    ``ended`` with the reason once the turn can take no more actions."""

    majors: int = 0
    minors: int = 0
    taken: tuple[str, ...] = ()
    ended: str = ""

    @classmethod
    def fresh(cls) -> TurnBudget:
        return cls()

    @classmethod
    def passed(cls) -> TurnBudget:
        """R29: the turn of a combatant at 0 Health passes without actions."""
        return cls(ended="at 0 Health a combatant's turns pass without actions (ruling R29)")

    @property
    def major_taken(self) -> bool:
        return self.majors > 0

    @property
    def spent(self) -> bool:
        return bool(self.ended) or self.majors + self.minors >= 2


def _refusal(budget: TurnBudget, kind: ActionKind) -> str | None:
    if kind is ActionKind.FREE:
        return None
    if budget.ended:
        return f"the turn is over: {budget.ended}"
    if budget.majors + budget.minors >= 2:
        return ("no action left: a turn is a major and a minor action, or two minor actions "
                f"(taken: {', '.join(budget.taken)})")
    if kind is ActionKind.MAJOR and budget.majors:
        return ("a turn has one major action at most; the second action must be a minor one "
                "(ruling R51)")
    return None


def can_take(budget: TurnBudget, kind: ActionKind) -> bool:
    return _refusal(budget, kind) is None


def spend(budget: TurnBudget, kind: ActionKind, name: str = "") -> TurnBudget:
    """The budget after taking an action of ``kind`` called ``name``; free actions cost nothing
    (and are allowed even after the turn's actions are used). Raises
    :class:`~rules.actions.IllegalAction` with the reason when the turn does not allow it."""
    problem = _refusal(budget, kind)
    if problem:
        raise IllegalAction(problem)
    if kind is ActionKind.FREE:
        return budget
    label = name or str(kind)
    if kind is ActionKind.MAJOR:
        return msgspec.structs.replace(budget, majors=budget.majors + 1,
                                       taken=(*budget.taken, label))
    return msgspec.structs.replace(budget, minors=budget.minors + 1, taken=(*budget.taken, label))


def end_turn(budget: TurnBudget, reason: str) -> TurnBudget:
    """The budget of a turn ended early (Prepare: "and then end your turn", R36)."""
    return msgspec.structs.replace(budget, ended=reason)


#: The turn as the engine budgets it: a major slot and a minor slot; a minor action takes the
#: minor slot, else the major one ("a major action and a minor action or two minor actions");
#: a major action only the major slot (R51: never two). The ruleset's actions cost
#: ``Kind.STANDARD`` for a major action and ``Kind.MOVE`` for a minor one
#: (``rules.action_time.catalog.KIND_OF``). Event logs written before this economy named the
#: slots ``standard`` and ``move``. A turn of a single action has the major slot only, which
#: either kind takes.
ECONOMY = Economy(slots=("major", "minor"),
                  takes={Kind.STANDARD: ("major",), Kind.MOVE: ("minor", "major")},
                  single=("major",), aliases={"standard": "major", "move": "minor"})
