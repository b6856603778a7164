"""A campaign's commands (and an ended encounter) to the events they add, by the ruleset's
rules of time (``encounter.ruleset.TimeRules``; rulings R109-R114). Pure: the state in, the
events out, or :class:`~encounter.rejected.Rejected` with what the command's sender is told."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from encounter.adjust import overridden_track
from encounter.gm import profile_from
from encounter.registry import declaration
from encounter.rejected import Rejected
from encounter.ruleset import TimeRules
from encounter.state import EncounterState
from encounter.vitals import to_event
from protocol import campaign as cp
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.events import Track
from protocol.model import StatBlock
from rules.condition_track import BOTTOM

#: The clock moves on by at most this many hours in one command (a year and a day).
MOST_HOURS = 24 * 366
#: Natural Healing needs this many hours of rest (R110).
REST_HOURS = 8


def time_rules(ruleset: str) -> TimeRules | None:
    return declaration(ruleset).time


def character(s: cp.CampaignState, cid: str) -> cp.Character:
    ch = s.characters.get(cid)
    if ch is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"no character {cid!r} in this campaign",
                       characters=sorted(s.characters))
    return ch


def running(s: cp.CampaignState) -> list[cp.CampaignEncounter]:
    """The campaign's encounters not yet written back."""
    return [e for e in s.encounters.values() if e.written_back is None]


# --- the roster -------------------------------------------------------------------------------


def add_character(s: cp.CampaignState, cmd: msg.AddCharacter,
                  token_id: str | None) -> list[cp.CampaignEvent]:
    block = cmd.character
    if block.id is None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "character.id: a campaign's character needs "
                       "an id (its combatant id in every encounter)", field="character.id")
    if block.id in s.characters:
        raise Rejected(ErrorCode.CONFLICT, f"the roster has a character {block.id!r} already")
    if len(s.characters) >= 200:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "at most 200 characters in a campaign")
    rules = declaration(s.ruleset)
    profile = profile_from(block, rules.rules, block.id)  # its stat block checked
    most = rules.initial_vitals(profile).fatigue_max if rules.initial_vitals else None
    return [cp.CharacterAdded(character=block, fatigue_max=most,
                              token_id=token_id if block.kind == "pc" else None)]


def _track(old: Track | None, step: int | None, persistent: int | None,
           crippling: int | None, name: str) -> Track | None:
    """As ``adjust_combatant`` sets a combatant's track (``encounter.adjust``)."""
    track = overridden_track(old, step, persistent, crippling, name)
    return None if track is None else to_event(track)


def changed(ch: cp.Character, cause: str, notes: list[str],
            reason: str | None = None) -> cp.CharacterChanged:
    """The event that records ``ch`` as it now is."""
    return cp.CharacterChanged(
        character=ch.id, cause=cause, reason=reason, notes=notes,  # type: ignore[arg-type]
        fatigue=ch.fatigue, physical=ch.physical, mental=ch.mental, life=ch.life,
        conscious=ch.conscious, lunches=ch.lunches, lunch_day=ch.lunch_day, healed_at=ch.healed_at,
        status=list(ch.status), items=list(ch.items))


def adjust_character(s: cp.CampaignState, cmd: msg.AdjustCharacter) -> list[cp.CampaignEvent]:
    ch = character(s, cmd.character)
    if ch.encounter is not None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{ch.block.name} is in a running encounter "
                       f"({s.encounters[ch.encounter].name}): adjust it there "
                       "(adjust_combatant); its results come back when it ends")
    if cmd.full and cmd.fatigue is not None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "fatigue or full, not both")
    named = [f for f in msg.AdjustCharacter.__struct_fields__
             if f not in ("id", "expect_turn", "character", "reason", "full")
             and getattr(cmd, f) is not None] + (["full"] if cmd.full else [])
    if not named:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "name at least one value to set")
    day = cp.day_of(s.hour)
    physical = _track(ch.physical, cmd.physical_step, cmd.physical_persistent,
                      cmd.physical_crippling, "physical") or Track()
    mental = _track(ch.mental, cmd.mental_step, cmd.mental_persistent, cmd.mental_crippling,
                    "mental")
    conscious = ch.conscious
    if cmd.physical_step is not None or cmd.mental_step is not None:
        # a step at the bottom is unconscious (R15); a step set off it wakes it (R113)
        conscious = all(t is None or t.step < BOTTOM for t in (physical, mental))
    new = msgspec.structs.replace(
        ch,
        fatigue=None if cmd.full else (ch.fatigue if cmd.fatigue is None else cmd.fatigue),
        physical=physical, mental=mental, conscious=conscious,
        life=ch.life if cmd.life is None else cmd.life,
        lunches=ch.lunches if cmd.lunches_today is None else cmd.lunches_today,
        lunch_day=ch.lunch_day if cmd.lunches_today is None else day,
        status=ch.status if cmd.status is None else _status(cmd.status, s.hour),
        items=ch.items if cmd.items is None else tuple(
            cp.Item(name=i.name, count=i.count) for i in cmd.items))
    return [changed(new, "gm", ["the GM sets " + ", ".join(n.replace("_", " ") for n in named)],
                    cmd.reason)]


def _status(given: list[msg.StatusBoostInput], hour: int) -> tuple[cp.StatusBoost, ...]:
    circles = [b.circle for b in given]
    if len(set(circles)) != len(circles):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "status: one temporary status per circle of "
                       "society (and one universal, R25)")
    return tuple(cp.StatusBoost(bonus=b.bonus, circle=b.circle, source=b.source or "the GM",
                                since=hour) for b in given if b.bonus > 0)


# --- the clock --------------------------------------------------------------------------------


def advance_clock(s: cp.CampaignState, cmd: msg.AdvanceClock) -> list[cp.CampaignEvent]:
    """The clock moves on; then, at the hour it reaches, each character out of encounters
    rests (Natural Healing, R110), and what a new day and the weeks bring (R109, R111)."""
    hours = cmd.hours + 24 * cmd.days + 24 * 7 * cmd.weeks
    if hours <= 0:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "move the clock on by at least an hour "
                       "(hours, days or weeks)")
    if hours > MOST_HOURS:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"at most {MOST_HOURS} hours at once")
    if cmd.rest and hours < REST_HOURS:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"a rest that heals takes {REST_HOURS} "
                       f"consecutive, uninterrupted hours (Natural Healing, R110): {hours} "
                       "given")
    busy = running(s)
    if busy:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "an encounter of the campaign is running "
                       f"({busy[0].name}): its scene keeps its own time; end it first",
                       encounter=busy[0].id)
    hour = s.hour + hours
    out: list[cp.CampaignEvent] = [cp.ClockAdvanced(hours=hours, hour=hour, rest=cmd.rest,
                                                    reason=cmd.reason)]
    rules = time_rules(s.ruleset)
    if rules is None:
        return out
    for ch in s.characters.values():
        if cmd.rest and ch.life != "dead":  # (the dead rest for good: no line for them)
            healed = rules.rest(ch, hour)
            if isinstance(healed, str):
                out.append(cp.HealingRefused(character=ch.id, why=healed))
            else:
                ch = healed[0]
                out.append(changed(ch, "natural_healing", healed[1]))
        passed = rules.passes(ch, hour)
        if passed is not None:
            out.append(changed(passed[0], "time", passed[1]))
    return out


# --- encounters -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Begun:
    """What an encounter of the campaign starts from: the campaign's event, the create, and the
    GM's ``adjust_combatant`` of each character that does not start fresh."""

    event: cp.EncounterBegun
    create: msg.CreateEncounter
    carried: list[msg.AdjustCombatant]


def begin(s: cp.CampaignState, cmd: msg.BeginEncounter, encounter: str,
          gm_token_id: str) -> Begun:
    """R113: each character in one running encounter at most; the dead stay out."""
    chosen = list(dict.fromkeys(cmd.characters))
    for cid in chosen:
        ch = character(s, cid)
        if ch.encounter is not None:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{ch.block.name} is in a running "
                           f"encounter already ({s.encounters[ch.encounter].name}); a "
                           "character is in one at a time (R113)", encounter=ch.encounter)
        if ch.life == "dead":
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{ch.block.name} is dead")
    for cid in cmd.rested:
        if cid not in chosen:
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"rested: {cid!r} is not one of the "
                           "encounter's characters")
    taken = set(chosen)
    for npc in cmd.npcs:
        if npc.id is not None and npc.id in taken:
            raise Rejected(ErrorCode.CONFLICT, f"npcs: the id {npc.id!r} is a character's")
    rules = time_rules(s.ruleset)
    day = cp.day_of(s.hour)
    blocks: list[StatBlock] = []
    carried: list[msg.AdjustCombatant] = []
    for n, cid in enumerate(chosen):
        ch = s.characters[cid]
        stats = rules.carry_in(ch, day) if rules is not None else dict(ch.block.stats)
        blocks.append(msgspec.structs.replace(ch.block, stats=stats))
        adjust = _carried(ch, f"{encounter}-carry-{n}")
        if adjust is not None:
            carried.append(adjust)
    create = msg.CreateEncounter(id=f"campaign-{encounter}-create", name=cmd.name,
                                 ruleset=s.ruleset, combatants=blocks + list(cmd.npcs),
                                 options=cmd.options, map=cmd.map)
    # (``links`` are filled in once the encounter's credentials are decided)
    event = cp.EncounterBegun(encounter=encounter, name=cmd.name, characters=chosen,
                              gm_token_id=gm_token_id, rested=list(dict.fromkeys(cmd.rested)))
    return Begun(event=event, create=create, carried=carried)


def _carried(ch: cp.Character, cid: str) -> msg.AdjustCombatant | None:
    """The GM's ``adjust_combatant`` that starts a character as the campaign keeps it (R113)."""
    fields: dict[str, int] = {}
    if ch.fatigue is not None:
        fields["fatigue"] = ch.fatigue
    for name, track in (("physical", ch.physical), ("mental", ch.mental)):
        if track is not None and (track.step or track.persistent or track.crippling):
            fields[f"{name}_step"] = track.step
            fields[f"{name}_persistent"] = track.persistent
            fields[f"{name}_crippling"] = track.crippling
    condition: dict[str, str] = {}
    if not ch.conscious:  # kept unconscious: it starts so (R16, R113)
        condition["condition"] = "unconscious"
    if not fields and not condition:
        return None
    return msg.AdjustCombatant(id=cid, combatant=ch.id, reason="as the campaign left it "
                               "(ruling R113)", **fields, **condition)  # type: ignore[arg-type]


def write_back(s: cp.CampaignState, encounter: str,
               final: EncounterState) -> list[cp.CampaignEvent]:
    """The results of an ended encounter (R113), once: nothing when they are written back
    already (the write is keyed by the encounter and its final position)."""
    record = s.encounters.get(encounter)
    if record is None or record.written_back is not None or not final.ended:
        return []
    rules = time_rules(s.ruleset)
    out: list[cp.CampaignEvent] = []
    for cid in record.characters:
        ch = s.characters.get(cid)
        if ch is not None and rules is not None:
            new, notes = rules.carry_back(final, ch, cid in record.rested, s.hour)
            out.append(changed(new, "scene", [f"after {record.name}", *notes]))
    out.append(cp.EncounterWrittenBack(encounter=encounter, final_seq=final.version))
    return out
