"""Itemised modifiers and refusals shared by the combat rules ("MLP Dramatic Systems").

Every number a player sees in a resolution is a sum of :class:`Modifier` parts, each naming what
it is, its value and the section of the rule text (and ruling, docs/rulings.md) it comes from, so
that a player can see why an attack hit or missed. A rule that forbids an action raises
:class:`RuleRefusal` with the reason.

Public API:

- ``Modifier(name, value, section)`` — one itemised part (frozen msgspec Struct).
- ``total(parts) -> int`` — the sum of the parts.
- ``RuleRefusal(ValueError)`` — an action the rules do not allow; the message says why.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec


class Modifier(msgspec.Struct, frozen=True, gc=False):
    """One itemised part of a roll, a defense or a damage total: ``name`` says what it is,
    ``value`` is signed, ``section`` names the rule text's section (and ruling, if any)."""

    name: str
    value: int
    section: str


class RuleRefusal(ValueError):
    """An action the rules do not allow (total cover, a second Second Lunch in one encounter,
    Recover in a dramatic scene, ...). The message says which rule refuses it."""


def total(parts: Iterable[Modifier]) -> int:
    """The sum of the parts' values."""
    return sum(p.value for p in parts)
