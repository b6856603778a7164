"""A combatant's "MLP Dramatic Systems" stat sheet, and its vitals as it joins (FATIGUE POINTS
AND DAMAGE THRESHOLD; R15). With the engine's recorder of vitals (``encounter.vitals``), which
the modules of the ruleset reach through this one."""

from __future__ import annotations

import msgspec

from encounter.state import Vitals
from encounter.vitals import record as record
from encounter.vitals import rules_status as rules_status
from encounter.vitals import to_event as to_event
from encounter.vitals import to_rules as to_rules
from protocol.events import Track
from protocol.model import CombatantProfile
from rules.sheet import Nature, Sheet, SheetError, parse_sheet
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


def initial_vitals(profile: CombatantProfile) -> Vitals:
    """A combatant as it joins: full fatigue points, both tracks at normal (objects, plants and
    vehicles have a physical track only, R15)."""
    sheet = sheet_of(profile)
    creature = sheet.nature is Nature.CREATURE
    return Vitals(fatigue=sheet.fatigue_points, fatigue_max=sheet.fatigue_points,
                  physical=Track(), mental=Track() if creature else None,
                  condition=INITIAL)
