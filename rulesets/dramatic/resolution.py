"""What fatigue loss, healing and consciousness checks do to a combatant, as events.

"MLP Dramatic Systems", FATIGUE POINTS AND DAMAGE THRESHOLD (0 Fatigue Points, Damage
Threshold, Falling Unconscious, Death, Condition, Persistent Conditions); rulings R14-R17, R45.
The numbers come from ``rules.condition_track`` and ``rules.defenses``; this module reads the
combatant's state for them and records the outcome with ``encounter.vitals.record`` (through
``rulesets.dramatic.vitals``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from encounter import effects
from protocol import events as ev
from rules import condition_track as ct
from rules.defenses import Defenses, Status, damage_thresholds, defenses
from rules.sheet import DamageSource, Nature, Sheet
from rulesets.dramatic import vitals as vt

if TYPE_CHECKING:
    from encounter.boundary import Engine
    from encounter.state import EncounterState
    from rules.dice import Roll


#: What an effect may change in "MLP Dramatic Systems" (R90): each target and where it counts.
EFFECT_TARGETS: dict[str, str] = {
    "reflex_defense": "Reflex Defense (DEFENSES)",
    "fortitude_defense": "Fortitude Defense (DEFENSES)",
    "will_defense": "Will Defense (DEFENSES)",
    "wits_defense": "Wits Defense (DEFENSES)",
    "defenses": "all four defenses (DEFENSES)",
    "attack": "the holder's attack rolls (ATTACK ROLL)",
    "checks": "the holder's skill checks: attack rolls and the checks of social maneuvers "
              "(SKILLS, ATTACK ROLL)",
    "damage": "the fatigue loss of the holder's attacks (DAMAGE)",
    "damage_reduction": "the holder's damage reduction against every loss (DAMAGE REDUCTION)",
    "physical_threshold": "the physical damage threshold (Damage Threshold)",
    "mental_threshold": "the mental damage threshold (Damage Threshold)",
    "speed": "the holder's speed, in squares (SPEED)",
}


def status_of(d: Engine, cid: str) -> Status:
    """What the rules read of a combatant's state now, the modifiers of its effects included
    (R90)."""
    return state_status(d.s, cid)


def state_status(s: EncounterState, cid: str) -> Status:
    """:func:`status_of` read from the state alone (views show the numbers it gives)."""
    status = vt.rules_status(s.vitals[cid], flat_footed=cid in s.flat_footed,
                             grabbed=bool(s.grabs.get(cid)), distracted=cid in s.distracted)
    held = effects.held(s, cid, *EFFECT_TARGETS)
    return msgspec.structs.replace(status, effects=tuple(held)) if held else status


def unaware_of_attacks(s: EncounterState, cid: str) -> bool:
    """Whether ``cid`` is unaware of the attacks made on it now: in the surprise round, unaware
    of its opponents (R42), or during the scene, since a failed Perception check or the GM's
    word (R82). Dexterity Modifier, Intelligence Modifier: "If you are flatfooted or unaware of
    an attack, you lose your Dexterity bonus (but not a penalty)"."""
    return (not s.combatants[cid].aware and s.surprise) or cid in s.unaware


def defenses_of(d: Engine, cid: str, *, unaware: bool = False) -> tuple[Sheet, Defenses]:
    return state_defenses(d.s, cid, unaware=unaware)


def state_defenses(s: EncounterState, cid: str, *,
                   unaware: bool = False) -> tuple[Sheet, Defenses]:
    """The defenses attacks read (DEFENSES; effects, feats, species and conditions, R90)."""
    sheet = vt.sheet_of(s.combatants[cid])
    return sheet, defenses(sheet, state_status(s, cid), unaware=unaware)


def _secret(d: Engine, cid: str) -> bool:
    """An NPC's fatigue points are behind the GM's screen: notes that everyone reads do not
    name them (the GM sees the numbers in the event's fields)."""
    return d.s.combatants[cid].kind == "npc"


def lose_fatigue(d: Engine, cid: str, loss: int, source: DamageSource, cause: str,
                 notes: list[str] | None = None) -> ct.FatigueLoss:
    """Apply one fatigue loss (after damage reduction) to ``cid`` (R14, R45): fatigue points,
    the track of the loss's source, and what that does to consciousness."""
    v = d.s.vitals[cid]
    sheet, defs = defenses_of(d, cid)
    threshold = damage_thresholds(sheet, defs, status_of(d, cid)).get(source)
    physical = source is DamageSource.PHYSICAL or v.mental is None
    track = vt.to_rules(v.physical if physical else v.mental)
    o = d.s.options
    result = ct.fatigue_loss(
        v.fatigue, loss, threshold, track, source=source if not physical else
        DamageSource.PHYSICAL, nature=sheet.nature,
        zero_fp_threshold_inclusive=o.zero_fp_threshold_inclusive,
        zero_fp_overflow_counts=o.zero_fp_overflow_counts)
    said = list(notes or [])
    said.append(f"loses {loss} fatigue point{'s' if loss != 1 else ''}"
                + ("" if _secret(d, cid) else
                   f" ({result.fatigue_before} -> {result.fatigue_after})"))
    of = "" if _secret(d, cid) else f" of {threshold}"
    if result.threshold_reached:
        said.append(f"the loss reaches the {source.value} damage threshold{of}: "
                    "-1 step (Damage Threshold, R45)")
    if result.tier is not ct.LossTier.NONE:
        said.append(f"{result.at_zero} at 0 fatigue points against the threshold{of}: "
                    f"{_TIER_WORDS[result.tier]} (0 Fatigue Points, R14.2)")
    if result.dead:
        said.append("a fatal blow: dead (Death, R14.3)")
        kwargs = {"physical": result.track_after} if physical else {"mental": result.track_after}
        vt.record(d, cid, cause, said, fatigue=result.fatigue_after,
                  condition_events=("killed",), **kwargs)  # type: ignore[arg-type]
    else:
        record_track(d, cid, sheet, physical, result.track_after, said, cause,
                      fatigue=result.fatigue_after)
    return result


def move_down(d: Engine, cid: str, steps: int, source: DamageSource, persistent: bool,
              note: str) -> None:
    """Steps down a condition track from a debilitating effect (Condition: "Each effect to which
    it succumbs moves it one or more steps along the condition track")."""
    v = d.s.vitals[cid]
    sheet = vt.sheet_of(d.s.combatants[cid])
    physical = source is DamageSource.PHYSICAL or v.mental is None
    track = vt.to_rules(v.physical if physical else v.mental)
    for _ in range(steps):
        track = ct.move_down(track, persistent=persistent)
    notes = [note, f"{steps} step{'s' if steps != 1 else ''} down the "
             f"{'physical' if physical else 'mental'} track (step {track.step})"]
    record_track(d, cid, sheet, physical, track, notes, "condition")


def record_track(d: Engine, cid: str, sheet: Sheet, physical: bool, track: ct.Track,
                  notes: list[str], cause: str, fatigue: int | None = None) -> None:
    v = d.s.vitals[cid]
    events: tuple[str, ...] = ()
    prone: bool | None = None
    check_round: int | bool | None = False
    if track.at_bottom and v.alive:
        if sheet.nature is not Nature.CREATURE:
            events = ("wrecked",)
            notes.append("at the bottom of the track: destroyed (R15)")
        elif v.conscious:
            events, prone = ("knocked_out",), True
            check_round = d.check_round_for(cid)
            notes.append(f"at the bottom of the track: unconscious and prone; Constitution "
                         f"check in round {check_round} (Falling Unconscious, R16)")
    kwargs = {"physical": track} if physical else {"mental": track}
    vt.record(d, cid, cause, notes, fatigue=fatigue, prone=prone, condition_events=events,
              check_round=check_round, **kwargs)  # type: ignore[arg-type]


_TIER_WORDS = {
    ct.LossTier.STEP: "one step",
    ct.LossTier.PERSISTENT: "one persistent step",
    ct.LossTier.CRIPPLING: "one persistent and one crippling step",
    ct.LossTier.FATAL: "a fatal blow",
}


def heal(d: Engine, cid: str, amount: int, cause: str, note: str) -> None:
    """Healing: fatigue points up to the maximum; an unconscious creature revives at once,
    prone, with fatigue points equal to the healing and one step up (Falling Unconscious,
    R16)."""
    v = d.s.vitals[cid]
    unconscious = v.condition[0] == "unconscious"
    result = ct.heal(v.fatigue, v.fatigue_max, amount, physical=vt.to_rules(v.physical),
                     mental=vt.to_rules(v.mental), unconscious=unconscious)
    notes = [note, f"regains {result.fatigue_after - result.fatigue_before} fatigue points"
             + ("" if _secret(d, cid) else
                f" ({result.fatigue_before} -> {result.fatigue_after})")]
    events: tuple[str, ...] = ()
    if result.revived:
        events = ("woke",)
        notes.append("healed while unconscious: revives, prone, one step up (R16)")
    vt.record(d, cid, cause, notes, fatigue=result.fatigue_after, physical=result.physical,
              mental=result.mental if v.mental is not None else None,
              prone=True if result.revived else None, condition_events=events)


#: The roll of an unconscious creature's Constitution check (R16).
CONSTITUTION = "constitution check"


def consciousness_check(d: Engine, cid: str, *, physical: bool = True) -> None:
    """Falling Unconscious (R16): 1d20 + Constitution modifier against DC 10 ("You can't take
    10 on the Constitution check", R81). With the combatant's dice physical the check waits
    for them (R80) — but for ``physical=False``: the checks of the scene's end, made as the
    encounter ends, are the server's. Success: one step up, conscious, prone, and the turn is
    taken; failure: one condition becomes persistent and no further check in this scene
    (but the one as it ends, ``recovery.after_the_scene``)."""
    if physical and d.is_manual(cid):
        d.request_roll("1d20", CONSTITUTION, cid,
                       context={"action": "constitution_check", "combatant": cid,
                                "no_take_10": "Falling Unconscious: \"You can't take 10 on "
                                              "the Constitution check\" (ruling R81)"})
        return
    constitution_check_rolled(d, cid, d.server_roll("1d20", CONSTITUTION, cid))


def constitution_check_rolled(d: Engine, cid: str, roll: Roll) -> None:
    """The Constitution check's die is in (R16)."""
    v = d.s.vitals[cid]
    c = d.s.combatants[cid]
    sheet = vt.sheet_of(c)
    con = sheet.mod("con")
    result = ct.constitution_check(roll.total, con, physical=vt.to_rules(v.physical),
                                   mental=vt.to_rules(v.mental))
    section = "Falling Unconscious (R16)"
    d.emit(ev.CheckMade(combatant=cid, check="constitution", natural=roll.total,
                        modifiers=[ev.Modifier("Constitution modifier", con, section)],
                        total=result.total, dc=result.dc, success=result.success,
                        section=section, hidden=c.hidden), d.combatant_vis(cid))
    if result.success and result.conscious:
        vt.record(d, cid, "constitution_check",
                  [f"Constitution check {result.total} against DC {result.dc}: regains "
                   "consciousness, one step up, prone (R16)"],
                  physical=result.physical,
                  mental=result.mental if v.mental is not None else None,
                  prone=True, condition_events=("woke",))
    else:
        # the first failure leaves it out for the scene; the next check, as the scene ends,
        # finds it so already (R16)
        first = v.condition == ("unconscious", "awaiting_check")
        vt.record(d, cid, "constitution_check",
                  [f"Constitution check {result.total} against DC {result.dc}: stays "
                   "unconscious; one condition becomes persistent; "
                   + ("no further check in this scene (R16, R17)" if first else
                      "the next check comes after the next scene (R16, R17)")],
                  physical=result.physical,
                  mental=result.mental if v.mental is not None else None,
                  condition_events=("check_failed",) if first and not result.success else ())
