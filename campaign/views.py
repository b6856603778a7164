"""What each credential of a campaign sees of it (R113), redacted as an encounter is: the GM
all of it, its links included; a player its own characters in full and the others as the
table would see them in an encounter (name, kind, life, consciousness, how their fatigue
points stand, R105; never their stat blocks, numbers, items or links)."""

from __future__ import annotations

from protocol import campaign as cp
from rules.condition_track import fatigue_band


def clock(hour: int) -> cp.Clock:
    return cp.Clock(hour=hour, day=cp.day_of(hour), time=hour % cp.HOURS_PER_DAY)


def character_view(ch: cp.Character, full: bool, links: dict[str, str] | None = None,
                   day: int = 1) -> cp.CharacterView:
    most = ch.fatigue_max
    out = cp.CharacterView(id=ch.id, name=ch.block.name, kind=ch.block.kind, life=ch.life,
                           conscious=ch.conscious,
                           band=fatigue_band(most if ch.fatigue is None else ch.fatigue, most),
                           encounter=ch.encounter)
    if full:
        out.stats = ch.block.stats
        out.fatigue = most if ch.fatigue is None else ch.fatigue
        out.fatigue_max = most
        out.physical, out.mental = ch.physical, ch.mental
        out.lunches, out.lunch_day, out.healed_at = ch.lunches, ch.lunch_day, ch.healed_at
        out.lunches_today = ch.lunches if ch.lunch_day == day else 0
        out.status, out.items = list(ch.status), list(ch.items)
    if links is not None:
        out.link = None if ch.token_id is None else links.get(ch.token_id)
    return out


def campaign_view(s: cp.CampaignState, role: cp.CampaignRole, characters: frozenset[str],
                  links: dict[str, str] | None = None,
                  encounter_links: dict[str, str] | None = None) -> cp.CampaignView:
    """The campaign as a credential of ``role`` playing ``characters`` sees it; the GM's view
    carries the player links (``links``, by token id) and each encounter's GM link
    (``encounter_links``, by encounter id)."""
    gm = role == "gm"
    day = cp.day_of(s.hour)
    roster = [character_view(ch, gm or ch.id in characters, links if gm else None, day)
              for ch in s.characters.values()]
    encounters = []
    for e in s.encounters.values():
        if not gm and not set(e.characters) & characters:
            continue
        entry = cp.EncounterView(id=e.id, name=e.name, characters=e.characters,
                                 running=e.written_back is None, begun_at=e.begun_at,
                                 written_back=e.written_back)
        if gm:
            entry.rested = e.rested
            entry.gm_link = (encounter_links or {}).get(e.id)
        encounters.append(entry)
    log = [line for line in s.log if gm or (not line.gm_only and (
        not line.characters or set(line.characters) & characters))]
    return cp.CampaignView(id=s.id, name=s.name, ruleset=s.ruleset, clock=clock(s.hour),
                           characters=roster, encounters=encounters, role=role,
                           mine=sorted(characters), log=log)
