"""A campaign's state as the fold of its log (``protocol.campaign``)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import singledispatch

import msgspec

from protocol import campaign as cp


def fold(campaign: str, envelopes: Iterable[cp.CampaignEnvelope]) -> cp.CampaignState:
    state = cp.CampaignState(id=campaign)
    for e in envelopes:
        apply(state, e)
    return state


def apply(state: cp.CampaignState, envelope: cp.CampaignEnvelope) -> None:
    if envelope.seq != state.version + 1:
        raise ValueError(f"campaign {state.id}: event {envelope.seq} after {state.version}")
    line = _words(envelope.event, state)  # (in the words of the state before it)
    _apply(envelope.event, state)
    state.version = envelope.seq
    if line is not None:
        text, characters, gm_only = line
        state.log = [*state.log[-(cp.LOG_LINES - 1):], cp.LogEntry(
            seq=envelope.seq, hour=state.hour, text=text, characters=characters,
            gm_only=gm_only)]


def _name(s: cp.CampaignState, cid: str) -> str:
    ch = s.characters.get(cid)
    return ch.block.name if ch is not None else cid


def _when(hour: int) -> str:
    return f"day {cp.day_of(hour)}, {hour % cp.HOURS_PER_DAY:02d}:00"


def _words(e: cp.CampaignEvent, s: cp.CampaignState) -> tuple[str, list[str], bool] | None:
    """The log's line for an event: its text, the characters it is about, whether it is the
    GM's alone."""
    if isinstance(e, cp.CharacterAdded):
        return f"{e.character.name} joins the roster.", [], False
    if isinstance(e, cp.CharacterChanged):
        why = {"gm": "the GM", "natural_healing": "a rest", "time": "time passes",
               "scene": "after the scene"}[e.cause]
        said = "; ".join(e.notes) or "changed"
        reason = f" ({e.reason})" if e.reason else ""
        return f"{_name(s, e.character)}, {why}{reason}: {said}.", [e.character], False
    if isinstance(e, cp.HealingRefused):
        return (f"{_name(s, e.character)} does not heal naturally: {e.why}.", [e.character],
                False)
    if isinstance(e, cp.ClockAdvanced):
        rest = " of rest" if e.rest else ""
        reason = f" ({e.reason})" if e.reason else ""
        return f"{e.hours} hours{rest} pass{reason}: it is {_when(e.hour)}.", [], False
    if isinstance(e, cp.EncounterBegun):
        names = ", ".join(_name(s, c) for c in e.characters)
        return f"{e.name} begins, with {names}.", list(e.characters), False
    if isinstance(e, cp.EncounterWrittenBack):
        record = s.encounters.get(e.encounter)
        if record is None:
            return None
        return (f"{record.name} is over: what it left the characters is kept.",
                list(record.characters), False)
    if isinstance(e, cp.GmRecovered):
        return "The GM's link was recovered: the old one no longer works.", [], True
    return None


@singledispatch
def _apply(e: cp.CampaignEvent, s: cp.CampaignState) -> None:
    raise TypeError(f"no fold for {type(e).__name__}")


@_apply.register
def _(e: cp.CampaignCreated, s: cp.CampaignState) -> None:
    s.name, s.ruleset, s.recovery = e.name, e.ruleset, e.recovery
    s.tokens[e.gm_token_id] = cp.CampaignGrant(role="gm")


@_apply.register
def _(e: cp.CharacterAdded, s: cp.CampaignState) -> None:
    block = e.character
    cid = block.id
    assert cid is not None  # (a campaign's characters have ids: campaign.decide)
    status = tuple(cp.StatusBoost(bonus=int(t.get("bonus", 0)), circle=t.get("circle"),
                                  source="the stat block", since=s.hour)
                   for t in (block.stats.get("social") or {}).get("temporary") or ()
                   if isinstance(t, dict) and int(t.get("bonus", 0)) > 0)
    s.characters[cid] = cp.Character(
        id=cid, block=block, token_id=e.token_id, status=status, fatigue_max=e.fatigue_max,
        lunch_day=cp.day_of(s.hour))
    if e.token_id is not None:
        s.tokens[e.token_id] = cp.CampaignGrant(role="player", characters=[cid])


@_apply.register
def _(e: cp.CharacterChanged, s: cp.CampaignState) -> None:
    s.characters[e.character] = msgspec.structs.replace(
        s.characters[e.character], fatigue=e.fatigue, physical=e.physical, mental=e.mental,
        life=e.life, conscious=e.conscious, lunches=e.lunches, lunch_day=e.lunch_day,
        healed_at=e.healed_at,
        status=tuple(e.status), items=tuple(e.items))


@_apply.register
def _(e: cp.HealingRefused, s: cp.CampaignState) -> None:
    pass  # an audited "no"


@_apply.register
def _(e: cp.ClockAdvanced, s: cp.CampaignState) -> None:
    s.hour = e.hour


@_apply.register
def _(e: cp.EncounterBegun, s: cp.CampaignState) -> None:
    s.encounters[e.encounter] = cp.CampaignEncounter(
        id=e.encounter, name=e.name, characters=list(e.characters), links=dict(e.links),
        gm_token_id=e.gm_token_id, rested=list(e.rested), begun_at=s.hour)
    for cid in e.characters:
        s.characters[cid] = msgspec.structs.replace(s.characters[cid], encounter=e.encounter)


@_apply.register
def _(e: cp.EncounterWrittenBack, s: cp.CampaignState) -> None:
    s.encounters[e.encounter].written_back = e.final_seq
    for cid in s.encounters[e.encounter].characters:
        if cid in s.characters and s.characters[cid].encounter == e.encounter:
            s.characters[cid] = msgspec.structs.replace(s.characters[cid], encounter=None)


@_apply.register
def _(e: cp.GmRecovered, s: cp.CampaignState) -> None:
    s.tokens[e.revoked].revoked = True
    s.tokens[e.token_id] = cp.CampaignGrant(role="gm")
    s.recovery = e.recovery
