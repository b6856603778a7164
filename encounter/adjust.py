"""The GM's override of a combatant's vitals (``adjust_combatant``), a command of every ruleset.

It is audited: a ``gm_ruling`` event with the description and reason comes first, then the
``vitals_changed`` of what it did, which players see as they would see any other change at the
table.
"""

from __future__ import annotations

from typing import Any

from encounter import vitals as vt
from encounter.decision import Decision, find_combatant
from encounter.rejected import Rejected
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from rules.condition_track import BOTTOM, Track

_CONDITION_EVENTS = {
    # the chart events that take a combatant to the state the GM names
    ("active", "unconscious"): ("knocked_out",),
    ("unconscious", "conscious"): ("woke",),
    ("active", "dead"): ("killed",),
    ("unconscious", "dead"): ("killed",),
    ("active", "destroyed"): ("wrecked",),
    ("unconscious", "destroyed"): ("wrecked",),
}


def overridden_track(old: ev.Track | None, step: int | None, persistent: int | None,
                     crippling: int | None, name: str) -> Track | None:
    """A track with the GM's steps set (``None``: left as they are), checked; ``None`` for a
    track a combatant (or a campaign's character) does not have, where none is named."""
    if old is None:
        if step is not None or persistent is not None or crippling is not None:
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"objects have no {name} track (R15)")
        return None
    s = old.step if step is None else step
    p = old.persistent if persistent is None else persistent
    c = old.crippling if crippling is None else crippling
    if not 0 <= c <= p <= s <= BOTTOM:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"the {name} track needs 0 <= crippling <= "
                       f"persistent <= step <= {BOTTOM} (got {c}, {p}, {s})")
    return Track(step=s, persistent=p, crippling=c)


def adjust_combatant(d: Decision, cmd: msg.AdjustCombatant) -> None:
    c = find_combatant(d, cmd.combatant)
    v = d.s.vitals[c.id]
    changes: list[dict[str, Any]] = [
        {"field": f, "value": getattr(cmd, f)} for f in (
            "fatigue", "fatigue_max", "physical_step", "physical_persistent",
            "physical_crippling", "mental_step", "mental_persistent", "mental_crippling",
            "prone", "helpless", "condition")
        if getattr(cmd, f) is not None
    ]
    if not changes:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "name at least one value to set")
    allowed = d.ruleset.override_fields
    if allowed is not None:
        foreign = [ch["field"] for ch in changes if ch["field"] not in allowed]
        if foreign:
            raise Rejected(ErrorCode.INVALID_PAYLOAD,
                           f"{foreign[0]} is not a value of a combatant in {d.ruleset.title} "
                           f"(allowed: {', '.join(allowed)})", field=foreign[0],
                           allowed=list(allowed))
    fatigue_max = cmd.fatigue_max if cmd.fatigue_max is not None else v.fatigue_max
    fatigue = cmd.fatigue if cmd.fatigue is not None else min(v.fatigue, fatigue_max)
    if fatigue > fatigue_max:
        raise Rejected(ErrorCode.INVALID_PAYLOAD,
                       f"fatigue {fatigue} is above the maximum of {fatigue_max}")
    physical = overridden_track(v.physical, cmd.physical_step, cmd.physical_persistent,
                                cmd.physical_crippling, "physical")
    mental = overridden_track(v.mental, cmd.mental_step, cmd.mental_persistent,
                              cmd.mental_crippling, "mental")
    events: tuple[str, ...] = ()
    prone = cmd.prone
    check_round: int | bool | None = False
    if cmd.condition is not None:
        now = v.condition[0]
        wanted = "active" if cmd.condition == "conscious" else cmd.condition
        if wanted != now:
            found = _CONDITION_EVENTS.get((now, cmd.condition))
            if found is None:
                raise Rejected(ErrorCode.ILLEGAL_ACTION,
                               f"{c.name} is {now}: cannot become {cmd.condition}")
            events = found
            if cmd.condition == "unconscious":
                prone = True if prone is None else prone
                check_round = d.check_round_for(c.id)
    elif v.condition[0] == "active" and any(
            t is not None and t.step == BOTTOM for t in (physical, mental)):
        # a step that means unconscious (a creature's) or destroyed (an object's: no mental
        # track) makes it so, as a loss down to it would (R15); a `condition` given wins
        if v.mental is None:
            events = ("wrecked",)
        else:
            events = ("knocked_out",)
            prone = True if prone is None else prone
            check_round = d.check_round_for(c.id)
    words = {"fatigue": d.ruleset.vitals_label, "fatigue_max": f"{d.ruleset.vitals_label} max"}
    set_ = ", ".join(words.get(ch["field"], ch["field"].replace("_", " ")) for ch in changes)
    d.emit(ev.GmRuling(combatant=c.id, ruling="override",
                       description=f"GM sets {set_} of {c.name}", reason=cmd.reason,
                       changes=changes, hidden=c.hidden,
                       fatigue_secret=c.kind == "npc"), d.combatant_vis(c.id))
    vt.record(d, c.id, "gm_override", [f"GM: {cmd.reason}"], fatigue=fatigue,
              fatigue_max=fatigue_max, physical=physical, mental=mental, prone=prone,
              condition_events=events, check_round=check_round,
              bound_or_asleep=cmd.helpless)
    d.result = {"combatant": c.id}
