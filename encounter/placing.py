"""Combatants on the battle map: where one stands, and putting one there (a stat block's
``position`` as the encounter is created or the combatant added, and the GM's
``place_combatant``). The squares a combatant takes follow the size of its space, as its
ruleset gives it (``Declaration.size_of``; medium for a ruleset without sizes); a ruleset's
movement over the map is its own (Dramatic's: ``rulesets.dramatic.battle``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from encounter.rejected import Rejected
from protocol import events as ev
from protocol.errors import ErrorCode
from rules.battle_map import MapError, Placement, Size, check_placement, occupied

if TYPE_CHECKING:
    from encounter.boundary import Declared, Engine
    from encounter.state import EncounterState
    from protocol.model import CombatantProfile


def size_of(d: Engine, c: CombatantProfile) -> str:
    """The size of ``c``'s space."""
    return _size(d.ruleset, c)


def _size(rules: Declared, c: CombatantProfile) -> str:
    sized = rules.size_of
    return (sized(c) if sized is not None else None) or Size.MEDIUM.value


def placement(d: Engine, cid: str) -> Placement | None:
    """Where ``cid`` stands on the map (``None``: no map, or not on it)."""
    return placement_in(d.s, d.ruleset, cid)


def placement_in(state: EncounterState, rules: Declared, cid: str) -> Placement | None:
    """Where ``cid`` stands on ``state``'s map, its space as large as ``rules`` (the
    encounter's ruleset) make it (``None``: no map, or not on it)."""
    at = state.positions.get(cid)
    if at is None or state.battle_map is None:
        return None
    return Placement(x=at[0], y=at[1], size=Size(_size(rules, state.combatants[cid])))


def others(d: Engine, *exclude: str) -> list[tuple[str, Placement]]:
    found = []
    for cid in d.s.positions:
        if cid in exclude or not d.s.vitals.get(cid) or not d.s.vitals[cid].alive:
            continue
        p = placement(d, cid)
        if p is not None:
            found.append((cid, p))
    return found


def place(d: Engine, c: CombatantProfile, at: tuple[int, int] | None) -> None:
    """Put ``c`` on the map at ``at`` (its space must fit on open squares, and not on another
    creature's unless one of them is Tiny or smaller, R20)."""
    if at is not None:
        if d.s.battle_map is None:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter has no battle map (set_map)")
        size = size_of(d, c)
        where = Placement(x=at[0], y=at[1], size=Size(size))
        try:
            check_placement(d.s.battle_map, where)
        except MapError as exc:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name}: {exc}") from None
        mine = set(occupied(where))
        for other, p in others(d, c.id):
            if mine & set(occupied(p)) and not _may_share(where, p):
                raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} would stand in the space of "
                              f"{d.name_for_actor(other)} (R20)")
    d.emit(ev.CombatantPlaced(combatant=c.id, at=at, hidden=c.hidden), d.combatant_vis(c.id))


def _may_share(a: Placement, b: Placement) -> bool:
    small = (Size.FINE, Size.DIMINUTIVE, Size.TINY)
    return a.size in small or b.size in small
