"""Ability dice and the die ladder (README: "upgrade" and "downgrade" move a die one step up or
down: d4, d6, d8, d10, d12, d20; ruling R30).

Public API:

- :data:`LADDER` — the die sizes in order.
- :func:`parse_die` — ``"d8"`` (or ``"D8"``, or the number ``8``) to ``8``; :class:`DieError`.
- :func:`die_name` — ``8`` to ``"d8"``.
- :func:`net_die` — a die after its upgrades and downgrades: :class:`Laddered`.
- :func:`face_total` — a face as it counts, with R30's ``"modifier"`` option applied.

R30: upgrades and downgrades are counted (duplicates of the very same effect already removed,
see :mod:`rules.action_time.effects`), netted, and the die moves that many steps; then it is
clamped at d4 and d20. Netting first makes the order irrelevant. With the option
``die_ladder_overflow = "modifier"`` each step beyond d20 adds +1 to the face and each step below
d4 subtracts 1 (a face of at least 1).
"""

from __future__ import annotations

import re

import msgspec

from rules.action_time.options import Overflow

LADDER: tuple[int, ...] = (4, 6, 8, 10, 12, 20)

_DIE = re.compile(r"^\s*(?:1)?[dD](\d+)\s*$")


class DieError(ValueError):
    """A value that is not an Action Time ability die."""


def parse_die(value: object, field: str = "die") -> int:
    """The sides of an ability die written ``"d8"`` (case-insensitive, ``"1d8"`` too) or as the
    number of sides. Raises :class:`DieError` naming ``field`` for anything else."""
    if isinstance(value, bool):
        raise DieError(f"{field}: {value!r} is not a die (one of d4, d6, d8, d10, d12, d20)")
    sides: int | None = None
    if isinstance(value, int):
        sides = value
    elif isinstance(value, str):
        match = _DIE.match(value)
        if match:
            sides = int(match.group(1))
    if sides not in LADDER:
        raise DieError(f"{field}: {value!r} is not a die (one of d4, d6, d8, d10, d12, d20)")
    return sides


def die_name(sides: int) -> str:
    """``"d8"`` for 8; raises :class:`DieError` for a size off the ladder."""
    if sides not in LADDER:
        raise DieError(f"{sides} is not a die size on the ladder")
    return f"d{sides}"


class Laddered(msgspec.Struct, frozen=True, gc=False):
    """A die after netting. ``steps`` is upgrades minus downgrades; ``sides`` the die to roll;
    ``beyond`` the steps the clamp cut off (positive above d20, negative below d4);
    ``face_modifier`` what R30's ``"modifier"`` option adds to the face (0 when clamping)."""

    base: int
    steps: int
    sides: int
    beyond: int
    face_modifier: int

    @property
    def expr(self) -> str:
        """The dice expression to roll: ``"1d10"``."""
        return f"1d{self.sides}"


def net_die(base: int, steps: int, overflow: Overflow = "clamp") -> Laddered:
    """R30: move ``base`` by the net ``steps`` (upgrades minus downgrades), then clamp at d4 and
    d20. A d20 with one upgrade and one downgrade (``steps=0``) stays a d20; a d12 with three
    upgrades becomes a d20; a d4 with two downgrades stays a d4."""
    index = LADDER.index(parse_die(base, "base die")) + steps
    clamped = min(max(index, 0), len(LADDER) - 1)
    beyond = index - clamped
    return Laddered(base=base, steps=steps, sides=LADDER[clamped], beyond=beyond,
                    face_modifier=beyond if overflow == "modifier" else 0)


def face_total(face: int, die: Laddered) -> int:
    """The number a face counts as: the face itself, or with R30's ``"modifier"`` option the
    face plus the steps beyond the ladder's end, at least 1. Raises :class:`DieError` for a face
    the die cannot show."""
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= die.sides:
        raise DieError(f"{face!r} is not a face of a d{die.sides}")
    return max(1, face + die.face_modifier)
