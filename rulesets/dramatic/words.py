""""MLP Dramatic Systems" in words: the summaries of its events (``encounter.words``), named by
its declaration (``Declaration.words``). Its own words: a d20 against Reflex, Fortitude, Will
or Wits Defense, fatigue points and the condition tracks, statements, attitudes and the social
event's rating."""

from __future__ import annotations

from encounter.ruleset import EventWords
from encounter.words import (
    SCREENED,
    Names,
    attack_words,
    check_words,
    counted,
    damage_words,
    human,
    parts_of,
    said,
    signed,
    terms,
    vitals_words,
)
from protocol import events as ev
from protocol.summary import Summary, SummaryPart

#: Fatigue points (FATIGUE), as the sentences say them.
POINTS = "fatigue points"

_VERBS = {"attack": "attacks", "grab": "tries to grab", "ram": "rams",
          "break_object": "strikes at", "dispute": "disputes with",
          "conversation": "argues with", "collide": "collides with"}

_CONDITIONS = {"active": "", "fit": "", "defenseless": "defenseless (0 fatigue points)",
               "unconscious": "unconscious", "awaiting_check": "awaiting a Constitution check",
               "out_for_scene": "out for the scene", "dead": "dead", "destroyed": "destroyed"}


def _attack(e: ev.AttackResolved, n: Names) -> Summary:
    return attack_words(e, n, _VERBS, f"{e.defense.title()} Defense", "d20")


def _damage(e: ev.DamageDealt, n: Names) -> Summary:
    return damage_words(e, n, POINTS)


def _vitals(e: ev.VitalsChanged, n: Names) -> Summary:
    return vitals_words(e, n, POINTS, _CONDITIONS)


def _check(e: ev.CheckMade, n: Names) -> Summary:
    return check_words(e, n, "d20")


def _moved(e: ev.CombatantMoved, n: Names) -> Summary:
    verb = {"run": "runs", "crawl": "crawls", "fly": "flies"}.get(e.mode, "moves")
    parts = [SummaryPart(label="squares", value=e.cost),
             SummaryPart(label="speed", value=e.budget), *parts_of(e.speed_modifiers)]
    if e.path:
        end = e.path[-1]
        text = f"{n(e.combatant)} {verb} to ({end[0]}, {end[1]}): {e.cost} of {e.budget} squares"
    else:
        text = f"{n(e.combatant)} {verb}: {e.cost} of {e.budget} squares"
    mods = terms(e.speed_modifiers)
    if mods:
        text += f" (speed {mods})"
    if e.falls:
        text += ", and falls into a pit!"
    return said(text, parts)


def _loaded(e: ev.ObjectLoaded, n: Names) -> Summary:
    if not e.weight:
        return said(f"The load on {n(e.combatant)} is taken off")
    return said(f"{n(e.combatant)} supports a load of {e.weight:g}")


def _harvested(e: ev.Harvested, n: Names) -> Summary:
    text = f"{n(e.combatant)} harvests {e.resource}"
    if e.target:
        text += f" from {n(e.target)}"
    text += f": {e.dice} rolled {e.rolled}"
    parts = [SummaryPart(label=e.dice, value=e.rolled)]
    if e.bonus:
        text += f" {signed(e.bonus)} (check over the DC)"
        parts.append(SummaryPart(label="bonus", value=e.bonus))
    if e.doubled:
        text += ", doubled (natural 20)"
    if e.reduction:
        text += f", less damage reduction {e.reduction}"
        parts.append(SummaryPart(label="damage reduction", value=-e.reduction))
    parts.append(SummaryPart(label="resources", value=e.resources))
    return said(f"{text}: {e.resources} unit{'s' if e.resources != 1 else ''}", parts)


def _argument(e: ev.ArgumentChanged, n: Names) -> Summary:
    what = f"{n(e.combatant)}'s statement" + (f" “{e.text}”" if e.text else "")
    why = f" ({e.reason})" if e.reason else ""
    if e.size:
        return said(f"{what} is {e.size}{', perilous' if e.perilous else ''}{why}")
    return said(f"{what} is spent{why}")


def _attitude(e: ev.AttitudeChanged, n: Names) -> Summary:
    why = f" ({e.reason})" if e.reason else ""
    return said(f"{n(e.holder)} is now {e.attitude} toward {n(e.toward)}{why}")


def _blocking(e: ev.BlockingChanged, n: Names) -> Summary:
    if e.blocking:
        return said(f"{n(e.combatant)} blocks: withdraws from the discussion (+5 Wits Defense "
                    "against social maneuvers, no arguments of its own)")
    return said(f"{n(e.combatant)} stops blocking and returns to the discussion")


def _hit(e: ev.StatementHit, n: Names) -> Summary:
    return said(f"{n(e.speaker)}'s statement hits {n(e.target)} for {e.loss} mental fatigue "
                f"points; {n(e.target)} answers: accept, accept with reservation or refuse",
                [SummaryPart(label="loss", value=e.loss)])


def _answered(e: ev.StatementAnswered, n: Names) -> Summary:
    loss = [SummaryPart(label="loss", value=e.loss)]
    if e.answer == "accept":
        return said(f"{n(e.target)} accepts the statement: no loss", loss)
    if e.answer == "accept_with_reservation":
        return said(f"{n(e.target)} accepts the statement with reservation: no loss now, "
                    f"{e.recorded} kept for the GM's ruling",
                    [*loss, SummaryPart(label="recorded", value=e.recorded)])
    return said(f"{n(e.target)} refuses the statement: loses "
                f"{counted(e.loss, 'mental fatigue points')}",
                loss)


def _doubt(e: ev.DoubtRuled, n: Names) -> Summary:
    if e.unfounded:
        return said(f"The GM rules {n(e.target)}'s doubt unfounded: loses "
                    f"{counted(e.loss, 'mental fatigue points')}",
                    [SummaryPart(label="loss", value=e.loss)])
    return said(f"The GM rules {n(e.target)}'s doubt founded: no loss",
                [SummaryPart(label="loss", value=e.loss)])


def _debate(e: ev.DebateEnded, n: Names) -> Summary:
    return said(f"The debate is over: {e.reason}")


def _lie(e: ev.LieTold, n: Names) -> Summary:
    dec = SCREENED if e.deception_total is None else str(e.deception_total)
    emp = SCREENED if e.empathy_total is None else str(e.empathy_total)
    parts = [SummaryPart(label=label, value=v) for label, v in (
        ("Deception", e.deception_total), ("Empathy", e.empathy_total)) if v is not None]
    white = ", a white lie" if e.white else ""
    return said(f"{n(e.liar)} lies to {n.all(e.targets)} ({e.size}{white}): Deception {dec} "
                f"against {n(e.judge)}'s Empathy {emp}: "
                f"{'believed' if e.believed else 'caught!'}", parts)


def _social_event(e: ev.SocialEventSet, n: Names) -> Summary:
    if e.rating is None:
        return said("The social event is over")
    text = f"Social event: Event Rating {e.rating}"
    parts = terms(e.parts)
    if parts:
        text += f" ({parts})"
    bits = []
    if e.organizer_hidden or e.organizer:
        bits.append(f"organised by {n(e.organizer)}")
    if e.circle:
        bits.append(f"circle: {e.circle}")
    if e.topic:
        bits.append(f"topic: {e.topic}")
    bits.append(f"encounter {e.encounter}" + (" (the last)" if e.last else ""))
    return said(f"{text}; {', '.join(bits)}",
                [*parts_of(e.parts), SummaryPart(label="Event Rating", value=e.rating)])


def _situation(e: ev.SocialSituationSet, n: Names) -> Summary:
    bits = [human(e.familiarity), f"race {human(e.race)}"]
    if e.subject_rank is not None:
        bits.append(f"rank in the subject {e.subject_rank}")
    if e.invitation is True:
        bits.append("invited")
    elif e.invitation is False:
        bits.append("no invitation")
    if e.knows_host:
        bits.append("knows the host")
    if e.knows_most:
        bits.append("knows most present")
    bits.append(f"attire {human(e.attire)}")
    return said(f"{n(e.combatant)}'s situation at the event: {', '.join(bits)}")


def _aura(e: ev.AuraPointsChanged, n: Names) -> Summary:
    return said(f"{n(e.combatant)}: {e.reason}; Harmony {e.harmony}, Discord {e.discord}",
                [SummaryPart(label="Harmony", value=e.harmony),
                 SummaryPart(label="Discord", value=e.discord)])


def _boost(e: ev.StatusBoostEarned, n: Names) -> Summary:
    return said(f"{n(e.combatant)}'s temporary status in {e.circle} rises: boost "
                f"{signed(e.bonus)}", [SummaryPart(label="boost", value=e.bonus)])


WORDS: dict[type | str, EventWords] = {
    ev.AttackResolved: _attack,
    ev.DamageDealt: _damage,
    ev.VitalsChanged: _vitals,
    ev.CheckMade: _check,
    ev.CombatantMoved: _moved,
    ev.ObjectLoaded: _loaded,
    ev.Harvested: _harvested,
    ev.ArgumentChanged: _argument,
    ev.AttitudeChanged: _attitude,
    ev.BlockingChanged: _blocking,
    ev.StatementHit: _hit,
    ev.StatementAnswered: _answered,
    ev.DoubtRuled: _doubt,
    ev.DebateEnded: _debate,
    ev.LieTold: _lie,
    ev.SocialEventSet: _social_event,
    ev.SocialSituationSet: _situation,
    ev.AuraPointsChanged: _aura,
    ev.StatusBoostEarned: _boost,
}
