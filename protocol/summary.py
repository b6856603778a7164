"""An event's words for people: the ``summary`` of an ``event`` message (``summaries`` feature).

A summary is a short plain-text sentence and the itemised numbers a person would want beside
it (a roll's natural die, each modifier, the total and the defense; a damage's dice and loss).
It is made from the event as the viewer receives it (redacted), by the words of the ruleset
that declares the event, so it never says more than the event does.
"""

from __future__ import annotations

import msgspec


class SummaryPart(msgspec.Struct, kw_only=True, gc=False, frozen=True):
    """One itemised number (or die) of a summary: ``label`` says what it is (``"d20"``,
    ``"Strength"``, ``"total"``, ``"Reflex Defense"``, ``"loss"``), ``value`` is the number,
    signed as the event gives it (a modifier ``-2``), or a text where a die is named
    (``"2d6"``)."""

    label: str
    value: int | str


class Summary(msgspec.Struct, kw_only=True, gc=False, frozen=True, omit_defaults=True):
    """An event in words: ``text``, one or more sentences for people, naming combatants as
    this viewer's state does (a combatant the event does not name for this viewer is
    "someone unseen"); ``parts``, the numbers in ``text`` itemised (empty: none worth
    listing). Both say exactly what the event as this viewer receives it says, no more."""

    text: str
    parts: tuple[SummaryPart, ...] = ()
