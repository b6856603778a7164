"""How the encounter engine budgets Action Time's actions (``rules.actions.Kind``).

The engine budgets a turn with Action Time's own slots, a major and a minor
(``rules.action_time.turn_budget.ECONOMY``): a **major** action costs ``Kind.STANDARD`` (the
major slot only), a **minor** action ``Kind.MOVE`` (the minor slot, else the major slot), a
**free** action ``Kind.FREE``. That gives exactly "a major action and a minor action or two
minor actions ... in any order" (Taking Actions; ruling R51), and never two majors.

The engine's actions (declared in ``rulesets.action_time.actions``) are named as in
:data:`rules.action_time.actions.ACTIONS`, with these additions:

- ``ready_item`` is the Ready minor action (draw or stow an item): the Dramatic readied action
  (``ready``) does not exist in Action Time (its Prepare uses the same interrupt mechanism,
  ruling R36).
- ``cast_major``, ``cast_minor``, ``cast_free`` and ``reload_major``, ``reload_minor``,
  ``reload_free``: Taking Actions: "Depending on the spell, weapon, and related talents, cast
  and reload can be major actions, minor actions, or free actions" — one entry per cost; the
  stat block says which one a spell or weapon takes (ruling R60).
- ``pursue``: the free move Press the Attack grants when its enemy moves away (ruling R37),
  offered only while that pursuit interrupts the enemy's turn.
- ``stunt``: a free action with which the user of a Skirmish or Knock Prone stunt applies it
  after spending its stunt points (Stand Firm; ruling R39) — the server rolls the opposed test
  when the target Stands Firm.
"""

from __future__ import annotations

from rules.action_time.turn_budget import ActionKind
from rules.actions import Kind

#: Major -> standard slot, minor -> move slot, free -> free (see the module docstring).
KIND_OF: dict[ActionKind, Kind] = {
    ActionKind.MAJOR: Kind.STANDARD,
    ActionKind.MINOR: Kind.MOVE,
    ActionKind.FREE: Kind.FREE,
}

#: Engine name -> the name in :data:`rules.action_time.actions.ACTIONS`.
RULES_NAME: dict[str, str] = {"ready_item": "ready"}


def rules_name(name: str) -> str:
    """The name :mod:`rules.action_time.actions` knows an engine action by (cast and reload
    count as another action of their cost; ``pursue`` and ``stunt`` as free actions)."""
    if name.startswith(("cast_", "reload_")):
        cost = name.rsplit("_", 1)[1]
        return "free" if cost == "free" else f"other_{cost}"
    if name in ("pursue", "stunt"):
        return "free"
    return RULES_NAME.get(name, name)
