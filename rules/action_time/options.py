"""The encounter options the Action Time mechanics read (docs/rulings.md, "Options").

Public API: :class:`AtOptions` (defaults are the rulings' defaults) and :data:`DEFAULT`.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Overflow = Literal["clamp", "modifier"]


class AtOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The options, named as in docs/rulings.md.

    - ``die_ladder_overflow`` (R30): ``"clamp"`` or ``"modifier"``.
    - ``heal_rolls_again``, ``heal_self`` (R33).
    - ``opposed_tie_reroll`` (R38).
    - ``default_speed_yards`` (R60): Speed of a stat block without ``speed``.
    """

    die_ladder_overflow: Overflow = "clamp"
    heal_rolls_again: bool = False
    heal_self: bool = False
    opposed_tie_reroll: bool = False
    default_speed_yards: int = 10


DEFAULT = AtOptions()
