"""What the part of a snapshot's ``state`` that is "Action Time"'s own holds (``action_time``:
``rulesets.action_time.actions.view`` builds it; ``Declaration.view`` names
:class:`ActionTimeView`). The published schema of the snapshot (``python -m docgen``) composes
it with the protocol's (``protocol.snapshot``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.snapshot import doc
from rules.action_time.effects import Effect


class DefenseModifierView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """An effect on Defense as the stacking rule used it (R61)."""

    name: Annotated[str, doc("Its source.")]
    value: Annotated[int, doc("What it adds (0 when it is not counted).")]
    counted: Annotated[bool, doc(
        "Whether it counts: an effect of the very same source counts once.")]
    note: Annotated[str, doc("Why it does not count (empty when it does).")]


class SpeedModifierView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """An effect on Speed (R60, R90)."""

    name: Annotated[str, doc("Its source.")]
    value: Annotated[int, doc("What it adds, in yards.")]


class AtNumbersView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A combatant's numbers as the rules compute them now (R29, R60, R90)."""

    defense: Annotated[int | None, doc(
        "The Defense attacks read, with its effects stacked as R61 (R29); `null` for a stat "
        "block without one.")]
    defense_modifiers: Annotated[list[DefenseModifierView], doc("Its effects, itemised.")]
    speed: Annotated[int, doc("Speed as a move counts it, with its effects.",
                              extra_json_schema={"x-unit": "yards"})]
    speed_modifiers: Annotated[list[SpeedModifierView], doc("Its effects, itemised.")]


class AtStateView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What a viewer sees of the "Action Time" state."""

    effects: Annotated[list[Effect], doc(
        "The lasting modifiers running on the combatants this viewer sees, each as "
        "`at_effect_started.effect` gives it (the table sees every stance; an `origin` hidden "
        "from this viewer is `\"\"`).")]
    in_hoof: Annotated[dict[str, list[str]], doc(
        "What each combatant holds (weapons by name, `bandages`), by id: the GM's all, a "
        "player's its own.")]
    numbers: Annotated[dict[str, AtNumbersView], doc(
        "Each combatant's numbers, by id, for the combatants whose `stats` this viewer sees "
        "(the GM: all; a player: its own).")]


class ActionTimeView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The part of the view that is "Action Time"'s own."""

    action_time: Annotated[AtStateView, doc(
        "\"Action Time\"'s effects, what the combatants hold, and their numbers.")]
