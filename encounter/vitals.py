"""Fatigue points (or Health), condition tracks and consciousness, as the decider records them.

The rules (``rules.condition_track``) work out what a loss, a healing or a check does; the
condition chart (``statemachines.condition_chart``) says whether the change of consciousness
may happen; this module records the result as one ``vitals_changed`` event with the new values
and the reasons ("MLP Dramatic Systems", FATIGUE POINTS AND DAMAGE THRESHOLD; rulings R14-R17).
The vitals are the protocol's, the same for every ruleset (Action Time keeps its Health in
``fatigue``), and the GM's ``adjust_combatant`` (``encounter.adjust``) records them here; what
a Dramatic stat sheet gives a combatant as it joins is Dramatic's (``rulesets.dramatic.vitals``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from encounter.rejected import Rejected
from encounter.state import Vitals
from protocol import events as ev
from protocol.errors import ErrorCode
from protocol.events import Track
from rules.condition_track import Track as RulesTrack
from rules.condition_track import condition_penalty
from rules.defenses import Status
from statemachines.condition_chart import TransitionNotAllowed, condition_after

if TYPE_CHECKING:
    from encounter.boundary import Engine


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


def record(d: Engine, cid: str, cause: str, notes: list[str], *, fatigue: int | None = None,
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
    condition = v.condition
    for event in condition_events:
        try:
            condition = condition_after(condition, event, new_fatigue)
        except TransitionNotAllowed:
            raise Rejected(ErrorCode.ILLEGAL_ACTION,
                           f"{c.name} is {' '.join(condition).replace('_', ' ')}") from None
    # "As long as you have at least 1 Fatigue point, you can act normally" (R14.5)
    if condition == ("active", "fit") and new_fatigue == 0:
        condition = condition_after(condition, "exhausted", new_fatigue)
    elif condition == ("active", "defenseless") and new_fatigue > 0:
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
        physical=after.physical, mental=after.mental, condition=list(condition),
        prone=after.prone,
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


