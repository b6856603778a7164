"""The fold of the "MLP Dramatic Systems" events (``protocol.events``: a move over the map,
loads and harvests, the social scene's statements, attitudes, Blocking, answers, lies, the
social event and auras): :data:`FOLDS`, named by the ruleset's declaration
(``rulesets.dramatic``). What they change are Dramatic's fields of the state (docs/architecture.md,
"Rulesets": the state)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from encounter.fold import mark
from encounter.state import Argument, EncounterState, Load, PendingAnswer
from protocol import events as ev


def _moved(e: ev.CombatantMoved, s: EncounterState) -> None:
    mark(s.flying, e.combatant, e.mode == "fly")
    if e.path:
        s.positions[e.combatant] = (e.path[-1][0], e.path[-1][1])


def _object_loaded(e: ev.ObjectLoaded, s: EncounterState) -> None:
    if e.weight:
        s.loads[e.combatant] = Load(weight=e.weight, round=e.round, count=e.count,
                                    strained_round=e.round)
    else:
        s.loads.pop(e.combatant, None)


def _harvested(e: ev.Harvested, s: EncounterState) -> None:
    pass


def _argument_changed(e: ev.ArgumentChanged, s: EncounterState) -> None:
    s.arguments[e.argument] = Argument(owner=e.combatant, size=e.size, text=e.text,
                                       perilous=e.perilous)


def _attitude_changed(e: ev.AttitudeChanged, s: EncounterState) -> None:
    s.attitudes.setdefault(e.holder, {})[e.toward] = e.attitude


def _blocking_changed(e: ev.BlockingChanged, s: EncounterState) -> None:
    mark(s.blocking, e.combatant, e.blocking)


def _statement_hit(e: ev.StatementHit, s: EncounterState) -> None:
    s.answers[e.statement] = PendingAnswer(speaker=e.speaker, target=e.target, loss=e.loss)


def _statement_answered(e: ev.StatementAnswered, s: EncounterState) -> None:
    pending = s.answers.pop(e.statement, None)
    if e.answer == "accept_with_reservation" and pending is not None:
        s.reservations[e.statement] = PendingAnswer(speaker=pending.speaker,
                                                    target=pending.target, loss=e.recorded)


def _doubt_ruled(e: ev.DoubtRuled, s: EncounterState) -> None:
    s.reservations.pop(e.statement, None)


def _debate_ended(e: ev.DebateEnded, s: EncounterState) -> None:
    s.debate_over = True


def _lie_told(e: ev.LieTold, s: EncounterState) -> None:
    pass


def _social_event_set(e: ev.SocialEventSet, s: EncounterState) -> None:
    s.social_event = e if e.rating is not None else None


def _social_situation_set(e: ev.SocialSituationSet, s: EncounterState) -> None:
    s.social_situations[e.combatant] = e


def _aura_points_changed(e: ev.AuraPointsChanged, s: EncounterState) -> None:
    s.auras[e.combatant] = (e.harmony, e.discord)


def _status_boost_earned(e: ev.StatusBoostEarned, s: EncounterState) -> None:
    s.status_boosts.setdefault(e.combatant, {})[e.circle] = e.bonus


#: The fold of each event of the ruleset.
FOLDS: dict[type, Callable[[Any, EncounterState], None]] = {
    ev.CombatantMoved: _moved,
    ev.ObjectLoaded: _object_loaded,
    ev.Harvested: _harvested,
    ev.ArgumentChanged: _argument_changed,
    ev.AttitudeChanged: _attitude_changed,
    ev.BlockingChanged: _blocking_changed,
    ev.StatementHit: _statement_hit,
    ev.StatementAnswered: _statement_answered,
    ev.DoubtRuled: _doubt_ruled,
    ev.DebateEnded: _debate_ended,
    ev.LieTold: _lie_told,
    ev.SocialEventSet: _social_event_set,
    ev.SocialSituationSet: _social_situation_set,
    ev.AuraPointsChanged: _aura_points_changed,
    ev.StatusBoostEarned: _status_boost_earned,
}
