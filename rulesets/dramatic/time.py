"""The rules of time of "MLP Dramatic Systems" between the scenes of a campaign (rulings
R109-R112): Second Lunch once per day, Natural Healing once in 24 hours and never with a
persistent condition, temporary Social Status fading a point a week, the extra step of a scene
spent resting; and what a character carries into an encounter and back out of it."""

from __future__ import annotations

from typing import Any

import msgspec

from encounter.ruleset import TimeRules
from encounter.state import EncounterState
from encounter.vitals import to_event, to_rules
from protocol.campaign import HOURS_PER_DAY, HOURS_PER_WEEK, Character, StatusBoost, day_of
from protocol.events import Track
from rules.condition_track import move_up, natural_healing
from rules.modifiers import RuleRefusal
from rules.sheet import parse_sheet

SECOND_LUNCH = "SWIFT ACTIONS: Second Lunch"
NATURAL_HEALING = "FATIGUE POINTS AND DAMAGE THRESHOLD: Natural Healing"
STATUS = "SOCIAL EVENTS: temporary Social Status"
REMOVING = "CONDITION TRACK: Removing Conditions"


def carry_in(ch: Character, day: int) -> dict[str, Any]:
    """The stat block's statistics with the day's Second Lunches so far (R109) and the
    campaign's temporary status (R111) in them."""
    stats = dict(ch.block.stats)
    stats["second_lunches_today"] = ch.lunches if ch.lunch_day == day else 0
    social = dict(stats.get("social") or {})
    social["temporary"] = [{"bonus": b.bonus, **({"circle": b.circle} if b.circle else {})}
                           for b in ch.status if b.bonus > 0]
    if social["temporary"] or "social" in stats:
        stats["social"] = social
    return stats


def rest(ch: Character, hour: int) -> tuple[Character, list[str]] | str:
    """Natural Healing (R110): eight uninterrupted hours of rest bring back all fatigue points
    and the whole condition track, for a living creature, once in a 24-hour period (counted
    from the end of the rest that healed), never with a persistent condition."""
    if ch.life == "dead":
        return "the dead do not heal"
    if ch.healed_at is not None and hour - ch.healed_at < HOURS_PER_DAY:
        return (f"{NATURAL_HEALING}: only once in a 24-hour period (healed at hour "
                f"{ch.healed_at}, {hour - ch.healed_at} hours ago; R110)")
    try:
        natural_healing(parse_sheet(ch.block.stats), physical=to_rules(ch.physical),
                        mental=to_rules(ch.mental))
    except RuleRefusal as exc:
        return f"{exc} (R110)"
    healed = msgspec.structs.replace(
        ch, fatigue=None, physical=Track(), mental=None if ch.mental is None else Track(),
        conscious=True, healed_at=hour)
    return healed, [f"{NATURAL_HEALING}: eight hours of rest: all fatigue points and the whole "
                    "condition track back (R110)"]


def passes(ch: Character, hour: int) -> tuple[Character, list[str]] | None:
    """A new day renews the Second Lunches (R109); each whole week since a temporary status
    rose or last faded takes a point off it, never below 0 (R111)."""
    notes: list[str] = []
    day = day_of(hour)
    lunches, lunch_day = ch.lunches, ch.lunch_day
    if lunches and lunch_day < day:
        notes.append(f"{SECOND_LUNCH}: once per day: renewed on day {day} (R109)")
        lunches, lunch_day = 0, day
    status: list[StatusBoost] = []
    for boost in ch.status:
        weeks = (hour - boost.since) // HOURS_PER_WEEK
        if weeks <= 0:
            status.append(boost)
            continue
        bonus = max(0, boost.bonus - weeks)
        where = boost.circle or "everywhere"
        notes.append(f"{STATUS}: {weeks} week(s) without a social event: {boost.bonus} to "
                     f"{bonus} ({where}; R111)")
        if bonus > 0:
            status.append(msgspec.structs.replace(
                boost, bonus=bonus, since=boost.since + weeks * HOURS_PER_WEEK))
    if not notes:
        return None
    return msgspec.structs.replace(ch, lunches=lunches, lunch_day=lunch_day,
                                   status=tuple(status)), notes


def carry_back(final: EncounterState, ch: Character, rested: bool,
               hour: int) -> tuple[Character, list[str]]:
    """What the encounter leaves the character: its fatigue points and tracks after the
    scene (R50 is the encounter's own), a Second Lunch it took (R109), the temporary status
    an event gave it (R111), and one more step up each track for a scene spent resting
    (R112)."""
    v = final.vitals.get(ch.id)
    notes: list[str] = []
    if v is None:  # removed from the encounter: as it went in
        return ch, ["not in the encounter at its end: unchanged"]
    physical, mental = v.physical, v.mental
    conscious = v.condition[0] == "active"
    if rested and conscious and v.alive:
        up_p, up_m = move_up(to_rules(physical)), move_up(to_rules(mental))
        if up_p != to_rules(physical) or (mental is not None and up_m != to_rules(mental)):
            notes.append(f"{REMOVING}: the whole scene spent resting: one step more (R112)")
        physical = to_event(up_p)
        mental = None if mental is None else to_event(up_m)
    day = day_of(hour)
    lunches, lunch_day = (ch.lunches, ch.lunch_day) if ch.lunch_day == day else (0, day)
    if v.second_lunch:
        lunches += 1
        notes.append(f"{SECOND_LUNCH}: taken in the scene ({lunches} on day {day}; R109)")
    status = {b.circle: b for b in ch.status}
    for circle, bonus in final.status_boosts.get(ch.id, {}).items():
        key = circle or None
        status[key] = StatusBoost(bonus=bonus, circle=key, source=final.name, since=hour)
        notes.append(f"{STATUS}: {bonus} in {circle or 'every circle'} from the event (R111)")
    fatigue = None if v.fatigue >= v.fatigue_max else v.fatigue
    dead = not v.alive
    if v.condition[0] == "unconscious":
        notes.append("unconscious: it starts the next scene so, and its Constitution checks "
                     "come in that scene (Falling Unconscious: \"a new Constitution check "
                     "every sceen\", R16, R113)")
    return msgspec.structs.replace(
        ch, fatigue=fatigue, physical=physical, mental=mental,
        life="dead" if dead else "alive", conscious=v.condition[0] != "unconscious",
        lunches=lunches, lunch_day=lunch_day,
        status=tuple(b for b in status.values() if b.bonus > 0)), notes


TIME = TimeRules(carry_in=carry_in, rest=rest, passes=passes, carry_back=carry_back)
