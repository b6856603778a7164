"""A combatant's "MLP Dramatic Systems" stat sheet, and its vitals as it joins (FATIGUE POINTS
AND DAMAGE THRESHOLD; R15). With the engine's recorder of vitals (``encounter.vitals``), which
the modules of the ruleset reach through this one."""

from __future__ import annotations

from collections.abc import Mapping
from operator import is_
from typing import NamedTuple

import msgspec

from encounter.state import Vitals
from encounter.vitals import record as record
from encounter.vitals import rules_status as rules_status
from encounter.vitals import to_event as to_event
from encounter.vitals import to_rules as to_rules
from protocol.events import Track
from protocol.model import CombatantProfile
from rules.sheet import Nature, Sheet, SheetError, Size, parse_sheet, size_steps
from statemachines.condition_chart import INITIAL

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
                  condition=INITIAL)
