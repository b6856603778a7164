"""After the scene: the Constitution checks still due and the recovery of the condition tracks
(R16, R50), and Natural Healing when the party rests (R17) ("MLP Dramatic Systems", FATIGUE
POINTS AND DAMAGE THRESHOLD, CONDITION TRACK)."""

from __future__ import annotations

from encounter.boundary import Engine
from rules.condition_track import end_of_scene, natural_healing
from rules.modifiers import RuleRefusal
from rulesets.dramatic import resolution
from rulesets.dramatic import vitals as vt


def rest(d: Engine) -> None:
    """Natural Healing: eight uninterrupted hours of rest bring back all fatigue points and the
    whole condition track — not for objects, nor with a persistent condition (R17), nor for the
    unconscious or dead."""
    for cid, v in list(d.s.vitals.items()):
        c = d.s.combatants[cid]
        if not v.conscious:
            continue
        try:
            healed = natural_healing(vt.sheet_of(c), physical=vt.to_rules(v.physical),
                                     mental=vt.to_rules(v.mental))
        except RuleRefusal:
            continue
        vt.record(d, cid, "natural_healing",
                  ["eight hours of rest: all fatigue points and the whole track back "
                   "(Natural Healing)"], fatigue=v.fatigue_max, physical=healed.physical,
                  mental=healed.mental if v.mental is not None else None)


def after_the_scene(d: Engine) -> None:
    """R50 (Removing Conditions) and R16: the Constitution check of every unconscious creature
    first, one each: the check still due of one awaiting it, the next check ("after which you
    can attempt another Constitution check") of one that failed its first in this scene; then
    every living, conscious creature +1 step on each track (never below its persistent steps);
    ``end_of_scene_recovery: false`` leaves the tracks."""
    unconscious = [cid for cid, v in d.s.vitals.items() if v.condition[0] == "unconscious"]
    checked: set[str] = set()
    for p in list(d.s.pending_rolls.values()):
        if p.purpose == resolution.CONSTITUTION and p.combatant is not None:
            # the encounter ends with this command: a check still waiting for its physical die
            # is the server's (R80)
            roll = d.server_roll(p.expr, p.purpose, p.combatant, p.request)
            resolution.constitution_check_rolled(d, p.combatant, roll)
            checked.add(p.combatant)
    for cid in unconscious:
        if cid not in checked:
            # the encounter ends with this command: nothing is left to wait for dice (R80)
            resolution.consciousness_check(d, cid, physical=False)
    for cid, v in list(d.s.vitals.items()):
        c = d.s.combatants[cid]
        result = end_of_scene(vt.sheet_of(c), physical=vt.to_rules(v.physical),
                              mental=vt.to_rules(v.mental),
                              unconscious=not v.conscious, dead=not v.alive,
                              end_of_scene_recovery=d.s.options.end_of_scene_recovery)
        if result.improved and (v.physical.step or (v.mental and v.mental.step)):
            vt.record(d, cid, "end_of_scene",
                      ["after the scene: +1 step on each condition track (Removing Conditions, "
                       "R50)"], physical=result.physical,
                      mental=result.mental if v.mental is not None else None)
