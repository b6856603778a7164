"""Attitude: how one character regards another, a step on a ladder (ruling R25; Dispute R26,
lies R28).

The ladder is Hostile, Unfriendly, Indifferent, Friendly, Helpful. Attitude is kept per ordered
pair of characters (the holder's attitude toward another); a pair nobody set is Indifferent
(R25: an NPC starts Indifferent unless the GM sets otherwise). A step down from Hostile or up
from Helpful has no effect.

Public API: ``Attitude``, ``LADDER``, ``rank(attitude) -> int``, ``shift(attitude, steps) ->
Attitude``, ``Attitudes`` (``of(holder, toward)``), ``set_attitude(attitudes, holder, toward,
attitude) -> Attitudes``, ``shift_attitude(attitudes, holder, toward, steps) -> Attitudes``.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec


class Attitude(StrEnum):
    HOSTILE = "hostile"
    UNFRIENDLY = "unfriendly"
    INDIFFERENT = "indifferent"
    FRIENDLY = "friendly"
    HELPFUL = "helpful"


#: R25: the attitude ladder, from worst to best.
LADDER: tuple[Attitude, ...] = tuple(Attitude)

#: R25: where a pair starts.
DEFAULT_ATTITUDE = Attitude.INDIFFERENT


def rank(attitude: Attitude) -> int:
    """0 for Hostile up to 4 for Helpful."""
    return LADDER.index(attitude)


def shift(attitude: Attitude, steps: int) -> Attitude:
    """``steps`` up (positive) or down (negative) the ladder, stopping at its ends (R25)."""
    return LADDER[min(len(LADDER) - 1, max(0, rank(attitude) + steps))]


class Attitudes(msgspec.Struct, frozen=True, kw_only=True):
    """Every attitude set in a scene: ``toward[holder][other]`` (ids of characters)."""

    toward: dict[str, dict[str, Attitude]] = msgspec.field(default_factory=dict)

    def of(self, holder: str, toward: str) -> Attitude:
        """The holder's attitude toward the other (Indifferent when never set, R25)."""
        return self.toward.get(holder, {}).get(toward, DEFAULT_ATTITUDE)


def set_attitude(attitudes: Attitudes, holder: str, toward: str,
                 attitude: Attitude) -> Attitudes:
    """The GM sets an attitude (``adjust_combatant``, R25); a new :class:`Attitudes`."""
    if holder == toward:
        raise ValueError("an attitude is held toward another character")
    table = {h: dict(row) for h, row in attitudes.toward.items()}
    table.setdefault(holder, {})[toward] = attitude
    return Attitudes(toward=table)


def shift_attitude(attitudes: Attitudes, holder: str, toward: str, steps: int) -> Attitudes:
    """The holder's attitude toward the other moves ``steps`` on the ladder (R25, R26, R28)."""
    return set_attitude(attitudes, holder, toward, shift(attitudes.of(holder, toward), steps))
