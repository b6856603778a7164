"""The social statistics of a Dramatic stat block (SOCIAL SYSTEMS -> Social Status, Social Access
Rating, Social Events; rulings R70, R72).

``rules.sheet.Sheet`` keeps the ``social`` mapping of a stat block as it is; ``parse_social(stats)``
reads it into a frozen :class:`SocialSheet` (an unknown field or bad value raises
:class:`~rules.sheet.SheetError` naming it, e.g. ``stats.social.reputation: Expected `int```).

Format of ``stats["social"]`` (every key optional; ``social: {}`` or no key is status 0)::

    social:
      reputation: 3           # Reputation (Social Status = Reputation + Charisma modifier + ...)
      talents: {vip: 2}       # Social Status bonuses of talents and feats, by name
      temporary:              # temporary Social Status, each in its circle of society
        - {circle: canterlot high society, bonus: 2}
        - {bonus: 1}          #   no circle: universal (counts everywhere)
      clothing: 0             # Social Access Rating bonus of fine clothing
      event_raise: 0          # how much this guest raises an Event Rating (VIP, Super VIP; R71)

Charisma (``cha``), skill totals (``skills``: ``deception``, ``empathy``, ``persuasion``,
``knowledge_<topic>``), ``trained`` and ``feats`` (``skill_focus_knowledge_<topic>``) stay where
they are on the main sheet.

Public API: ``parse_social(stats) -> SocialSheet``, ``SocialSheet`` (``temporary_in(circle)``),
``TemporaryStatus``.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from rules.sheet import convert_stats


class TemporaryStatus(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Temporary Social Status (Social Events; R25): ``bonus`` counts only in ``circle`` (the
    bonus's keyword), or everywhere when ``circle`` is ``None`` (universal)."""

    bonus: Annotated[int, msgspec.Meta(description="The temporary Social Status bonus (Social "
                                       "Events; R25).", extra_json_schema={"minimum": 0})]
    circle: Annotated[str, msgspec.Meta(
        description="The circle of society it counts in (the bonus's keyword, `canterlot high "
        "society`); left out: universal, it counts everywhere.")] | None = None

    def __post_init__(self) -> None:
        if self.bonus < 0:
            raise ValueError("a temporary status bonus cannot be negative")
        if self.circle is not None and not self.circle.strip():
            raise ValueError("a circle of society needs a name (omit it for universal status)")


class SocialSheet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A character's social statistics (a Dramatic stat block's ``stats.social``); every
    field is optional."""

    reputation: Annotated[int, msgspec.Meta(
        description="Reputation: Social Status = Reputation + Charisma modifier + talents "
        "(Social Status; R70).")] = 0
    talents: Annotated[dict[str, int], msgspec.Meta(
        description="The Social Status bonuses of talents and feats, by their name (any "
        "name: each value is added to Social Status, R70).", examples=[{"vip": 2}])] = \
        msgspec.field(default_factory=dict)
    temporary: Annotated[tuple[TemporaryStatus, ...], msgspec.Meta(
        description="Temporary Social Status from events attended, one per circle of society "
        "(and one universal); each counts at most half the unmodified status (R25).")] = ()
    clothing: Annotated[int, msgspec.Meta(
        description="The Social Access Rating bonus of fine clothing (Social Access "
        "Rating).")] = 0
    event_raise: Annotated[int, msgspec.Meta(
        description="How much this guest raises an Event Rating (VIP, Super VIP; R71).",
        extra_json_schema={"minimum": 0})] = 0

    def __post_init__(self) -> None:
        circles = [t.circle for t in self.temporary]
        if len(set(circles)) != len(circles):
            raise ValueError("one temporary status per circle of society (and one universal)")
        if self.event_raise < 0:
            raise ValueError("event_raise cannot be negative")

    def temporary_in(self, circle: str | None) -> tuple[TemporaryStatus, ...]:
        """The temporary status that counts in ``circle``: the universal one and the one keyed
        to that circle (R70); in no particular circle only the universal one."""
        return tuple(t for t in self.temporary if t.circle is None or t.circle == circle)


def parse_social(stats: dict[str, Any]) -> SocialSheet:
    """Read ``stats["social"]`` (absent: all defaults) as a :class:`SocialSheet`; raises
    :class:`~rules.sheet.SheetError` naming the bad field."""
    return convert_stats(stats.get("social", {}), SocialSheet, "stats.social")
