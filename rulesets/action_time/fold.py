"""The fold of the "Action Time" events (``protocol.events``: ``at_effect_started``,
``at_effect_ended``, ``at_moved``, ``items_readied``): :data:`FOLDS`, named by the ruleset's
declaration (``rulesets.action_time``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from encounter.state import EncounterState
from protocol import events as ev
from rules.action_time.effects import add_effect, remove


def _effect_started(e: ev.AtEffectStarted, s: EncounterState) -> None:
    # the very same thing from the same origin replaces the earlier instance (R51)
    s.action_time.effects = list(add_effect(s.action_time.effects, e.effect))


def _effect_ended(e: ev.AtEffectEnded, s: EncounterState) -> None:
    s.action_time.effects = list(remove(s.action_time.effects, e.effect))


def _moved(e: ev.AtMoved, s: EncounterState) -> None:
    pass  # the server keeps no map (the event is the record)


def _items_readied(e: ev.ItemsReadied, s: EncounterState) -> None:
    s.action_time.in_hoof[e.combatant] = list(e.in_hoof)


#: The fold of each event of the ruleset.
FOLDS: dict[type, Callable[[Any, EncounterState], None]] = {
    ev.AtEffectStarted: _effect_started,
    ev.AtEffectEnded: _effect_ended,
    ev.AtMoved: _moved,
    ev.ItemsReadied: _items_readied,
}
