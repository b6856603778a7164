"""The parts of a view that are "MLP Dramatic Systems"' own (``Declaration.views``): who is in
the air (R83) and who grabs whom (Grab), the social scene (statements, attitudes, Blocking,
answers, whether the debate is over; the social event and each combatant's standing at it),
and each combatant's numbers as the rules compute them now. Protocol 1 names every one of them
in every ruleset's view (``encounter.views.view_state`` gives them empty); these fill them.
Besides them: the reservations waiting for the GM's ruling on the doubt (R48)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from encounter.views import untagged
from rules.defenses import Status, defenses, defenses_read
from rulesets.dramatic import battle, resolution
from rulesets.dramatic import vitals as vt
from rulesets.dramatic.social import social_standing

if TYPE_CHECKING:
    from encounter.state import EncounterState, PendingAnswer, Vitals
    from protocol.model import CombatantProfile


def flying_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                full: bool, stats: set[str]) -> tuple[str, Any]:
    """In the air after a flying move (R83), there for all to see."""
    return "flying", [cid for cid in state.flying if cid in visible]


def grabs_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
               full: bool, stats: set[str]) -> tuple[str, Any]:
    """Who grabs whom (Grab), as far as the viewer sees them."""
    return "grabs", {cid: [g for g in grabbers if g in visible]
                     for cid, grabbers in state.grabs.items() if cid in visible}


def arguments_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                   full: bool, stats: set[str]) -> tuple[str, Any]:
    """The statements of the visible combatants (STATEMENTS)."""
    return "arguments", {aid: msgspec.to_builtins(a) for aid, a in state.arguments.items()
                         if a.owner in visible}


def attitudes_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                   full: bool, stats: set[str]) -> tuple[str, Any]:
    return "attitudes", {h: {t: a for t, a in row.items() if t in visible}
                         for h, row in state.attitudes.items() if h in visible}


def blocking_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                  full: bool, stats: set[str]) -> tuple[str, Any]:
    return "blocking", [cid for cid in state.blocking if cid in visible]


def answers_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                 full: bool, stats: set[str]) -> tuple[str, Any]:
    """The statements that hit and wait for their targets' answers (R48)."""
    return "answers", {sid: _answer_view(a, visible) for sid, a in state.answers.items()
                       if a.target in visible}


def reservations_view(state: EncounterState, visible: set[str],
                      controls: Callable[[str], bool], full: bool,
                      stats: set[str]) -> tuple[str, Any]:
    """The statements accepted with reservation that wait for the GM's ruling on the doubt
    (R48), with the loss recorded."""
    return "reservations", {sid: _answer_view(a, visible)
                            for sid, a in state.reservations.items() if a.target in visible}


def debate_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                full: bool, stats: set[str]) -> tuple[str, Any]:
    return "debate_over", state.debate_over


def _answer_view(answer: PendingAnswer, visible: set[str]) -> dict[str, Any]:
    """A statement waiting for its target's answer; a hidden speaker is not named."""
    view: dict[str, Any] = msgspec.to_builtins(answer)
    if answer.speaker not in visible:
        view["speaker"] = None
    return view


def social_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                full: bool, stats: set[str]) -> tuple[str, Any]:
    """The view's ``social`` part."""
    return "social", social_part(state, visible)


def numbers_of(state: EncounterState, cid: str) -> dict[str, Any] | None:
    """One combatant's part of the view's ``numbers`` (``Declaration.combatant_views``), for
    the viewers who see its stat block (the GM: all; a player: its own): its numbers as the
    rules compute them now — the four defenses as the next attack reads them (DEFENSES;
    effects, feats, species and conditions included, R90, R92; without the Dexterity and
    Intelligence bonuses while it is unaware of attacks, R42, R82) and the speed a move counts
    (SPEED; R15, R83, R90), each itemised. ``None`` for a combatant without vitals.

    They are a function of the stat block, what the rules read of its status
    (``rules.defenses.defenses_read``), whether it is unaware and one option: worked out once
    for each of those (a combatant losing fatigue points keeps its numbers), the same object
    given for the same (nothing changes a view's value in place)."""
    if cid not in state.vitals:
        return None
    c = state.combatants[cid]
    status = defenses_read(resolution.state_status(state, cid))
    unaware = resolution.unaware_of_attacks(state, cid)
    half = state.options.condition_half_speed
    key = (id(c), status, unaware, half)
    found = _NUMBERS.get(key)
    if found is not None and found[0] is c:
        return found[1]
    sheet = vt.sheet_of(c)
    defs = defenses(sheet, status, unaware=unaware)
    speed, speed_parts = battle.speed_from(sheet, status, condition_half_speed=half)
    numbers = {
        "defenses": {d.name.value: {"total": d.total, "parts": msgspec.to_builtins(d.parts)}
                     for d in (defs.reflex, defs.fortitude, defs.will, defs.wits)},
        "speed": speed,
        "fly_speed": battle.speed_from(sheet, status, condition_half_speed=half,
                                       fly=True)[0] if sheet.fly_speed > 0 else None,
        "speed_modifiers": msgspec.to_builtins(speed_parts),
    }
    if len(_NUMBERS) >= NUMBERS_KEPT:
        _NUMBERS.clear()
    _NUMBERS[key] = (c, numbers)  # (the profile kept with it: its id names it alone)
    return numbers


def numbers_read_of(v: Vitals) -> tuple[Vitals, bool]:
    """What ``numbers_of`` reads of a combatant's vitals: all of them but the fatigue points,
    of which only whether they are down to 0 (``rules.defenses.defenses_read``, R14.5). Two
    vitals that give the same here give the same numbers, so that an attack's loss of fatigue
    points leaves the target's numbers as they were without working them out again."""
    return msgspec.structs.replace(v, fatigue=0), v.fatigue <= 0


#: ``numbers_of`` by what it reads; at most ``NUMBERS_KEPT`` of them.
_NUMBERS: dict[tuple[int, Status, bool, bool], tuple[CombatantProfile, dict[str, Any]]] = {}
NUMBERS_KEPT = 4096


def social_part(state: EncounterState, visible: set[str]) -> dict[str, Any] | None:
    """The social event and each visible combatant's standing at it: Social Status (itemised),
    Social Access Rating, aura and its points (SOCIAL SYSTEMS, "MLP Dramatic Systems"). ``None``
    outside social play."""
    if state.social_event is None and not state.arguments:
        return None
    standing: dict[str, Any] = {}
    for cid in state.combatants:
        if cid not in visible:
            continue
        st = social_standing(state, cid)
        harmony, discord = state.auras.get(cid, (0, 0))
        standing[cid] = {
            "status": st.status.total,
            "status_parts": msgspec.to_builtins(st.status.parts),
            "access": st.access.total if st.access else None,
            "aura": msgspec.to_builtins(st.aura) if st.aura else None,
            "harmony": harmony, "discord": discord,
        }
    event = untagged(state.social_event) if state.social_event else None
    if event is not None and event.get("organizer") not in (None, *visible):
        event["organizer"] = None
    return {"event": event, "standing": standing}
