""""MLP Dramatic Systems" at the edges of turns and of the scene: the steps the neutral
engine runs through the declaration (``rulesets.dramatic.RULESET``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from encounter.state import SCREEN
from protocol import events as ev
from rules.social.access import Moment
from rulesets.dramatic import combat, perception, recovery, resolution, rulings, social
from rulesets.dramatic import vitals as vt

if TYPE_CHECKING:
    from encounter.boundary import Engine
    from encounter.state import Vitals
    from protocol.model import CombatantProfile
    from rules.dice import Roll


def after_roll(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    """The dice of a stage are in: combat's stages (``rulesets.dramatic.combat``), the GM's hazards
    and checks and the Constitution check (``rulesets.dramatic.rulings``), Perception
    (``rulesets.dramatic.perception``), else the social ones (``rulesets.dramatic.social``)."""
    if combat.after_roll(d, stage, ctx, roll) or rulings.after_roll(d, stage, ctx, roll):
        return
    if ctx.get("action") == "perception":
        perception.perception_rolled(d, ctx, roll)
    else:
        social.after_roll(d, stage, ctx, roll)


def turn_starting(d: Engine, cid: str) -> None:
    """Before ``turn_started``: a held load strains again on its count (Strength: "another -1
    step each round on the same initiative count"); a statement aimed at the combatant and
    still unanswered is refused (R48: no answer before its turn refuses)."""
    s = d.s
    # inside the screen's turn, on the screen's count (R99: it strained as that turn began)
    count = s.count_of(SCREEN) if s.screen_turn else s.count_of(cid)
    for loaded, load in list(s.loads.items()):
        if s.round > load.strained_round and count <= load.count:
            rulings.strain(d, loaded)
    if any(a.target == cid for a in s.answers.values()):
        social.unanswered_at_turn(d, cid)


def turn_started(d: Engine, cid: str) -> None:
    """After ``turn_started``: an unconscious combatant's Constitution check, rolled at the
    start of its turn (R16); the end of being flat-footed (R2: "until their first turn"; with
    ``flat_footed_until_regular_turn``, not in the surprise round)."""
    s = d.s
    if not s.vitals[cid].conscious:
        resolution.consciousness_check(d, cid)
    if cid in s.flat_footed and not (s.surprise and s.options.flat_footed_until_regular_turn):
        d.emit(ev.FlatFooted(combatant=cid, flat_footed=False, hidden=s.combatants[cid].hidden),
               d.combatant_vis(cid))


def scene_started(d: Engine, surprise: bool) -> None:
    """COMBAT SEQUENCE, step 1: the auras that give a point at the start (R73); with a
    surprise round everyone starts flat-footed (R2)."""
    social.aura_moment(d, Moment.START)
    if surprise:
        for cid, c in d.s.combatants.items():
            d.emit(ev.FlatFooted(combatant=cid, flat_footed=True, hidden=c.hidden),
                   d.combatant_vis(cid))


def after_scene(d: Engine) -> None:
    """The scene ends: Constitution checks and the recovery after the scene (R16, R50), the
    auras' points at the end (R73), Social Status boosts (R25)."""
    recovery.after_the_scene(d)
    social.aura_moment(d, Moment.END)
    social.status_boosts(d)


def rest(d: Engine) -> None:
    """Natural Healing (R17): eight hours of rest after the scene."""
    recovery.rest(d)


def initial_vitals(profile: CombatantProfile) -> Vitals:
    return vt.initial_vitals(profile)


def size_of(profile: CombatantProfile) -> str | None:
    """The size of its space, there for all to see on the map (SIZE)."""
    return vt.sheet_of(profile).size.value
