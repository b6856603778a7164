""""MLP Dramatic Systems" at the edges of turns and of the scene: the steps the neutral
engine runs through the declaration (``rulesets.dramatic.RULESET``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from encounter.views import untagged
from protocol import events as ev
from rules.social.access import Moment
from rulesets.dramatic import battle, combat, perception, recovery, resolution, rulings, social
from rulesets.dramatic import vitals as vt
from rulesets.dramatic.social import social_standing

if TYPE_CHECKING:
    from encounter.decision import Decision
    from encounter.state import EncounterState, Vitals
    from protocol.model import CombatantProfile
    from rules.dice import Roll


def after_roll(d: Decision, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    """The dice of a stage are in: combat's stages (``rulesets.dramatic.combat``), the GM's hazards
    and checks and the Constitution check (``rulesets.dramatic.rulings``), Perception
    (``rulesets.dramatic.perception``), else the social ones (``rulesets.dramatic.social``)."""
    if combat.after_roll(d, stage, ctx, roll) or rulings.after_roll(d, stage, ctx, roll):
        return
    if ctx.get("action") == "perception":
        perception.perception_rolled(d, ctx, roll)
    else:
        social.after_roll(d, stage, ctx, roll)


def turn_starting(d: Decision, cid: str) -> None:
    """Before ``turn_started``: a held load strains again on its count (Strength: "another -1
    step each round on the same initiative count"); a statement aimed at the combatant and
    still unanswered is refused (R48: no answer before its turn refuses)."""
    s = d.s
    count = s.count_of(cid)
    for loaded, load in list(s.loads.items()):
        if s.round > load.strained_round and count <= load.count:
            rulings.strain(d, loaded)
    if any(a.target == cid for a in s.answers.values()):
        social.unanswered_at_turn(d, cid)


def turn_started(d: Decision, cid: str) -> None:
    """After ``turn_started``: an unconscious combatant's Constitution check, rolled at the
    start of its turn (R16); the end of being flat-footed (R2: "until their first turn"; with
    ``flat_footed_until_regular_turn``, not in the surprise round)."""
    s = d.s
    if not s.vitals[cid].conscious:
        resolution.consciousness_check(d, cid)
    if cid in s.flat_footed and not (s.surprise and s.options.flat_footed_until_regular_turn):
        d.emit(ev.FlatFooted(combatant=cid, flat_footed=False, hidden=s.combatants[cid].hidden),
               d.combatant_vis(cid))


def scene_started(d: Decision, surprise: bool) -> None:
    """COMBAT SEQUENCE, step 1: the auras that give a point at the start (R73); with a
    surprise round everyone starts flat-footed (R2)."""
    social.aura_moment(d, Moment.START)
    if surprise:
        for cid, c in d.s.combatants.items():
            d.emit(ev.FlatFooted(combatant=cid, flat_footed=True, hidden=c.hidden),
                   d.combatant_vis(cid))


def after_scene(d: Decision) -> None:
    """The scene ends: Constitution checks and the recovery after the scene (R16, R50), the
    auras' points at the end (R73), Social Status boosts (R25)."""
    recovery.after_the_scene(d)
    social.aura_moment(d, Moment.END)
    social.status_boosts(d)


def rest(d: Decision) -> None:
    """Natural Healing (R17): eight hours of rest after the scene."""
    recovery.rest(d)


def initial_vitals(profile: CombatantProfile) -> Vitals:
    return vt.initial_vitals(profile)


def size_of(profile: CombatantProfile) -> str | None:
    """The size of its space, there for all to see on the map (SIZE)."""
    return vt.sheet_of(profile).size.value


def social_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                full: bool, stats: set[str]) -> tuple[str, Any]:
    """The view's ``social`` part."""
    return "social", social_part(state, visible)


def numbers_view(state: EncounterState, visible: set[str], controls: Callable[[str], bool],
                 full: bool, stats: set[str]) -> tuple[str, Any]:
    """The view's ``numbers`` part: each combatant's numbers as the rules compute them now, for
    the combatants whose stat blocks the viewer sees (the GM: all; a player: its own) — the
    four defenses as attacks read them (DEFENSES; effects, feats, species and conditions
    included, R90, R92) and the speed a move counts (SPEED; R15, R83, R90), each itemised."""
    out: dict[str, Any] = {}
    for cid in state.combatants:
        if cid not in stats or cid not in state.vitals:
            continue
        _, defs = resolution.state_defenses(state, cid)
        speed, speed_parts = battle.speed_of(state, cid)
        flies = vt.sheet_of(state.combatants[cid]).fly_speed > 0
        out[cid] = {
            "defenses": {d.name.value: {"total": d.total, "parts": msgspec.to_builtins(d.parts)}
                         for d in (defs.reflex, defs.fortitude, defs.will, defs.wits)},
            "speed": speed,
            "fly_speed": battle.speed_of(state, cid, fly=True)[0] if flies else None,
            "speed_modifiers": msgspec.to_builtins(speed_parts),
        }
    return "numbers", out


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
