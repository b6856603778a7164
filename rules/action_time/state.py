"""What an "Action Time" encounter adds to the state (rulings R29-R39, R51, R60-R62): the
``action_time`` field of the engine's ``EncounterState``, which only the ruleset
(``rulesets.action_time``: its steps and its fold) reads and writes. It is plain data over the
rules' own effects, and lives here, below the engine, so that the engine's state can name its
type (cached snapshots decode the state as one struct) without importing a ruleset.

Health is not here: it lives in the combatant's ``Vitals`` — ``fatigue`` is the current Health
and ``fatigue_max`` the maximum from the stat block (R29; 0 when the stat block gives none), so
that ``vitals_changed``, the GM's ``adjust_combatant`` and the views' secrecy of NPC numbers
work for both rulesets alike. At 0 Health the condition is ``["active", "defenseless"]``: out
of the fight, its turns pass without actions (R29).
"""

from __future__ import annotations

import msgspec

from rules.action_time.effects import Effect


class AtState(msgspec.Struct, kw_only=True, gc=False):
    """``effects``: the running effects, in the order gained, under the stacking rule
    (``rules.action_time.effects``; R51, R61). ``in_hoof``: what a combatant holds once it has
    used Ready; a combatant not listed holds what its stat block starts with (R60)."""

    effects: list[Effect] = []
    in_hoof: dict[str, list[str]] = {}
