"""What each credential of a campaign sees of it (R113), redacted as an encounter is: the GM
all of it, its links included; a player its own characters in full and the others as the
table would see them in an encounter (name, kind, life, how their fatigue points stand, R105;
never their stat blocks, numbers, items or links)."""

from __future__ import annotations

from typing import Any

import msgspec

from protocol import campaign as cp

_to_builtins = msgspec.to_builtins


def band(fatigue: int | None, most: int | None) -> str | None:
    """How fatigue points stand (R105's bands): ``full``, ``above_half``, ``half_or_less``,
    ``none``; ``None`` without a maximum."""
    if most is None or most <= 0:
        return None
    now = most if fatigue is None else fatigue
    if now >= most:
        return "full"
    if now <= 0:
        return "none"
    return "above_half" if 2 * now > most else "half_or_less"


def _most(ch: cp.Character) -> int | None:
    value = ch.block.stats.get("fatigue_points", ch.block.stats.get("health"))
    return value if isinstance(value, int) else None


def clock(hour: int) -> dict[str, int]:
    return {"hour": hour, "day": cp.day_of(hour), "time": hour % cp.HOURS_PER_DAY}


def character_view(ch: cp.Character, full: bool, links: dict[str, str] | None = None
                   ) -> dict[str, Any]:
    most = _most(ch)
    out: dict[str, Any] = {
        "id": ch.id, "name": ch.block.name, "kind": ch.block.kind, "life": ch.life,
        "band": band(ch.fatigue, most), "encounter": ch.encounter,
    }
    if full:
        out.update({
            "stats": ch.block.stats,
            "fatigue": most if ch.fatigue is None else ch.fatigue, "fatigue_max": most,
            "physical": _to_builtins(ch.physical),
            "mental": None if ch.mental is None else _to_builtins(ch.mental),
            "lunches": ch.lunches, "lunch_day": ch.lunch_day, "healed_at": ch.healed_at,
            "status": [_to_builtins(b) for b in ch.status],
            "items": [_to_builtins(i) for i in ch.items],
        })
    if links is not None and ch.token_id is not None:
        out["link"] = links.get(ch.token_id)
    return out


def campaign_view(s: cp.CampaignState, role: str, characters: frozenset[str],
                  links: dict[str, str] | None = None,
                  encounter_links: dict[str, str] | None = None) -> dict[str, Any]:
    """The campaign as a credential of ``role`` controlling ``characters`` sees it; the GM's
    view carries the player links (``links``, by token id) and each encounter's GM link
    (``encounter_links``, by encounter id)."""
    gm = role == "gm"
    roster = [character_view(ch, gm or ch.id in characters, links if gm else None)
              for ch in s.characters.values()]
    encounters = []
    for e in s.encounters.values():
        if not gm and not set(e.characters) & characters:
            continue
        entry: dict[str, Any] = {"id": e.id, "name": e.name, "characters": e.characters,
                                 "running": e.written_back is None, "begun_at": e.begun_at,
                                 "written_back": e.written_back}
        if gm:
            entry["rested"] = e.rested
            entry["gm_link"] = (encounter_links or {}).get(e.id)
        encounters.append(entry)
    return {"id": s.id, "name": s.name, "ruleset": s.ruleset, "clock": clock(s.hour),
            "characters": roster, "encounters": encounters, "role": role,
            "mine": sorted(characters)}
