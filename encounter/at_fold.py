"""The fold of the "Action Time" events (``protocol.events``: ``at_effect_started``,
``at_effect_ended``, ``at_moved``, ``items_readied``). Registered with ``encounter.fold``."""

from __future__ import annotations

from encounter.fold import _apply
from encounter.state import EncounterState
from protocol import events as ev
from rules.action_time.effects import add_effect, remove


@_apply.register
def _(e: ev.AtEffectStarted, s: EncounterState) -> None:
    # the very same thing from the same origin replaces the earlier instance (R51)
    s.action_time.effects = list(add_effect(s.action_time.effects, e.effect))


@_apply.register
def _(e: ev.AtEffectEnded, s: EncounterState) -> None:
    s.action_time.effects = list(remove(s.action_time.effects, e.effect))


@_apply.register
def _(e: ev.AtMoved, s: EncounterState) -> None:
    pass  # the server keeps no map (the event is the record)


@_apply.register
def _(e: ev.ItemsReadied, s: EncounterState) -> None:
    s.action_time.in_hoof[e.combatant] = list(e.in_hoof)
