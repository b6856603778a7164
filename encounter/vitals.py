"""Fatigue points, condition tracks and consciousness, as the decider records them.

The rules (``rules.condition_track``) work out what a loss, a healing or a check does; the
condition chart (``statemachines.condition_chart``) says whether the change of consciousness
may happen; this module records the result as one ``vitals_changed`` event with the new values
and the reasons ("MLP Dramatic Systems", FATIGUE POINTS AND DAMAGE THRESHOLD; rulings R14-R17).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import is_
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from encounter.rejected import Rejected
from encounter.state import Vitals
from protocol import events as ev
from protocol.errors import ErrorCode
from protocol.events import Track
from protocol.model import CombatantProfile
from rules.condition_track import Track as RulesTrack
from rules.condition_track import condition_penalty
from rules.defenses import Status
from rules.sheet import Nature, Sheet, SheetError, Size, parse_sheet, size_steps
from statemachines.condition_chart import INITIAL, TransitionNotAllowed, condition_after

if TYPE_CHECKING:
    from encounter.decision import Decision


_SHEETS: dict[bytes, Sheet] = {}
#: The sheet of each profile object seen lately: profiles are frozen, and copies of the state
#: share them, so the same object always has the same sheet (the entry keeps the profile, so
#: its id is not reused while it is cached).
_BY_PROFILE: dict[int, tuple[CombatantProfile, Sheet]] = {}
_encode = msgspec.json.Encoder()


def sheet_of(profile: CombatantProfile) -> Sheet:
    """The combatant's Dramatic stat sheet (its stats were validated when it was added).

    Sheets are frozen and a stat block never changes, so each is parsed once per process:
    the cache is keyed by the stats' JSON (a few microseconds, against tens for parsing), and
    by the profile object itself (a look-up)."""
    known = _BY_PROFILE.get(id(profile))
    if known is not None and known[0] is profile:
        return known[1]
    stats = profile.stats
    key = _encode.encode(stats)
    sheet = _SHEETS.get(key)
    if sheet is None:
        try:
            sheet = parse_sheet(stats)
        except SheetError:  # pragma: no cover - refused when the combatant was added
            sheet = parse_sheet({})
        if len(_SHEETS) >= 4096:
            _SHEETS.clear()
        _SHEETS[key] = sheet
    if len(_BY_PROFILE) >= 4096:
        _BY_PROFILE.clear()
    _BY_PROFILE[id(profile)] = (profile, sheet)
    return sheet


class ProfileFacts(NamedTuple):
    """What the combatants' profiles alone say, for looking at every combatant at once: how
    many size categories each one (its sheet's size) is above Fine, by id, the largest of
    them, and the hidden combatants."""

    size_ranks: Mapping[str, int]
    largest: int
    hidden: frozenset[str]


#: The facts of the profiles seen lately, with the profiles (see :func:`profile_facts`).
_FACTS: dict[tuple[int, int], tuple[tuple[CombatantProfile, ...], ProfileFacts]] = {}


def profile_facts(combatants: Mapping[str, CombatantProfile]) -> ProfileFacts:
    """The combatants' :class:`ProfileFacts`. Profiles are frozen and copies of the state share
    them, so for the same profile objects the facts are worked out once (the entry keeps them,
    so that their ids are not reused while it is cached); read only."""
    profiles = combatants.values()
    key = (len(profiles), id(next(iter(profiles), None)))
    known = _FACTS.get(key)
    if known is not None and len(known[0]) == len(profiles) \
            and all(map(is_, known[0], profiles)):
        return known[1]
    ranks = {p.id: size_steps(Size.FINE, sheet_of(p).size) for p in profiles}
    found = ProfileFacts(ranks, max(ranks.values(), default=0),
                         frozenset(p.id for p in profiles if p.hidden))
    if len(_FACTS) >= 256:
        _FACTS.clear()
    _FACTS[key] = (tuple(profiles), found)
    return found


def initial_vitals(profile: CombatantProfile) -> Vitals:
    """A combatant as it joins: full fatigue points, both tracks at normal (objects, plants and
    vehicles have a physical track only, R15)."""
    sheet = sheet_of(profile)
    creature = sheet.nature is Nature.CREATURE
    return Vitals(fatigue=sheet.fatigue_points, fatigue_max=sheet.fatigue_points,
                  physical=Track(), mental=Track() if creature else None,
                  condition=list(INITIAL))


def to_rules(track: Track | None) -> RulesTrack:
    if track is None:
        return RulesTrack()
    return RulesTrack(step=track.step, persistent=track.persistent, crippling=track.crippling)


def to_event(track: RulesTrack) -> Track:
    return Track(step=track.step, persistent=track.persistent, crippling=track.crippling,
                 penalty=condition_penalty(track.step))


def rules_status(v: Vitals, *, flat_footed: bool = False, grabbed: bool = False,
                 distracted: bool = False) -> Status:
    """What the rules read of a combatant's vitals (with what the vitals do not hold:
    flat-footed, grabbed, distracted). Attacks and defenses read it, and ``record`` sets
    ``Vitals.helpless`` from its ``is_helpless`` (HELPLESS CONDITION), so that the flag
    clients see is the one the attacks use."""
    return Status(physical=to_rules(v.physical), mental=to_rules(v.mental),
                  fatigue_points=v.fatigue, flat_footed=flat_footed,
                  unconscious=v.condition[0] == "unconscious", prone=v.prone,
                  helpless=v.bound_or_asleep, grabbed=grabbed, distracted=distracted)


def record(d: Decision, cid: str, cause: str, notes: list[str], *, fatigue: int | None = None,
           physical: RulesTrack | None = None, mental: RulesTrack | None = None,
           prone: bool | None = None, condition_events: tuple[str, ...] = (),
           check_round: int | bool | None = False, fatigue_max: int | None = None,
           bound_or_asleep: bool | None = None, structure_loss: int | None = None) -> None:
    """Record the combatant's new vitals; ``condition_events`` are sent to its condition chart
    in order (a refusal is a refused command: nothing wakes the dead). ``helpless`` follows
    from the new values (``rules_status``)."""
    v = d.s.vitals[cid]
    c = d.s.combatants[cid]
    new_fatigue = v.fatigue if fatigue is None else fatigue
    new_max = v.fatigue_max if fatigue_max is None else fatigue_max
    condition = list(v.condition)
    for event in condition_events:
        try:
            condition = condition_after(condition, event, new_fatigue)
        except TransitionNotAllowed:
            raise Rejected(ErrorCode.ILLEGAL_ACTION,
                           f"{c.name} is {' '.join(condition).replace('_', ' ')}") from None
    # "As long as you have at least 1 Fatigue point, you can act normally" (R14.5)
    if condition == ["active", "fit"] and new_fatigue == 0:
        condition = condition_after(condition, "exhausted", new_fatigue)
    elif condition == ["active", "defenseless"] and new_fatigue > 0:
        condition = condition_after(condition, "refreshed", new_fatigue)
    new_check = v.check_round if check_round is False else check_round
    if condition[0] != "unconscious":
        new_check = None
    after = msgspec.structs.replace(
        v, fatigue=new_fatigue, fatigue_max=new_max,
        physical=to_event(physical) if physical is not None else v.physical,
        mental=(to_event(mental) if mental is not None and v.mental is not None else v.mental),
        condition=condition, prone=v.prone if prone is None else prone,
        bound_or_asleep=v.bound_or_asleep if bound_or_asleep is None else bound_or_asleep)
    d.emit(ev.VitalsChanged(
        combatant=cid, cause=cause, fatigue=new_fatigue, fatigue_max=new_max,
        physical=after.physical, mental=after.mental, condition=condition, prone=after.prone,
        helpless=rules_status(after).is_helpless, bound_or_asleep=after.bound_or_asleep,
        structure_loss=v.structure_loss if structure_loss is None else structure_loss,
        check_round=new_check if isinstance(new_check, int) else None, notes=notes,
        fatigue_secret=c.kind == "npc", hidden=c.hidden), d.combatant_vis(cid))
    if condition[0] != "active":  # out of the fight: its grabs let go (Grab)
        for target, grabbers in list(d.s.grabs.items()):
            if cid in grabbers:
                d.emit(ev.GrabChanged(grabber=cid, target=target, held=False,
                                      hidden=c.hidden or d.s.combatants[target].hidden),
                       d.combatant_vis(cid) or d.combatant_vis(target))


