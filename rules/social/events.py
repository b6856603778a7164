"""Social events: the Event Rating, the temporary status boost of attending, and the challenge
rating (SOCIAL SYSTEMS -> SOCIAL EVENTS, Social Status; translation in
../shared/rules/README.md; rulings R25, R70, R71).

Public API:

- ``EventRating``; ``event_rating(organizer_status, rating, *, vip_raises=(), gm_override=False)``
  (R25, R71).
- ``qualifies(event_rating, unmodified, boost) -> bool``; ``attend_event(boost, *, circle,
  event_rating, unmodified, event_status_boost=1) -> TemporaryStatus``; ``weeks_pass(boost,
  weeks) -> TemporaryStatus`` (R25, R70).
- ``challenge_rating(event_rating, gm_modifier=0) -> int``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from rules.modifiers import Modifier, RuleRefusal, total
from rules.social.sheet import TemporaryStatus
from rules.social.status import temporary_cap

SECTION = "SOCIAL EVENTS"


class EventRating(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An event's rating: ``total`` = the organiser's chosen rating + VIP raises. ``gm_override``:
    the chosen rating is below half the organiser's status (R25, logged as a GM override)."""

    organizer_status: int
    chosen: int
    total: int
    parts: tuple[Modifier, ...]
    gm_override: bool


def event_rating(organizer_status: int, rating: int, *, vip_raises: Sequence[int] = (),
                 gm_override: bool = False) -> EventRating:
    """SOCIAL EVENTS, R25: the rating chosen for an event cannot exceed the organiser's Social
    Status (refused) and normally is not below half of it, rounded down — below that only as an
    explicit GM override. R71: each VIP or Super VIP guest then raises it by its ``event_raise``;
    the raises add up and may take it above the organiser's status."""
    if rating > organizer_status:
        raise RuleRefusal(f"{SECTION}: the Event Rating ({rating}) cannot exceed the organiser's "
                          f"Social Rating ({organizer_status}, ruling R25)")
    floor = organizer_status // 2
    override = rating < floor
    if override and not gm_override:
        raise RuleRefusal(f"{SECTION}: an Event Rating below half the organiser's Social Rating "
                          f"({rating} < {floor}) needs the GM's override (ruling R25)")
    if any(r < 0 for r in vip_raises):
        raise ValueError("a VIP raise cannot be negative")
    parts = [Modifier("organiser's chosen rating", rating,
                      f"{SECTION} (R25, GM override)" if override else f"{SECTION} (R25)")]
    parts += [Modifier(f"VIP guest {n}", r, f"{SECTION} (R71)")
              for n, r in enumerate(vip_raises, 1) if r]
    return EventRating(organizer_status=organizer_status, chosen=rating, total=total(parts),
                       parts=tuple(parts), gm_override=override)


def qualifies(event_rating: int, unmodified: int, boost: int) -> bool:
    """R25, R70: an event counts for the boost when its rating is at least the unmodified Social
    Status plus the current boost of that circle."""
    return event_rating >= unmodified + boost


def attend_event(boost: TemporaryStatus | None, *, circle: str, event_rating: int,
                 unmodified: int, event_status_boost: int = 1) -> TemporaryStatus:
    """R25: attending a qualifying event of ``circle`` adds ``event_status_boost`` (option,
    default 1) to the boost of that circle, never above half the unmodified Social Status
    (rounded down). An event that does not qualify leaves the boost as it is. ``boost``: the
    current boost of that circle (``None``: none yet)."""
    if event_status_boost < 0:
        raise ValueError("event_status_boost cannot be negative")
    current = boost or TemporaryStatus(bonus=0, circle=circle)
    if current.circle != circle:
        raise ValueError(f"the boost belongs to {current.circle!r}, not to {circle!r}")
    if not qualifies(event_rating, unmodified, current.bonus):
        return current
    cap = temporary_cap(unmodified)
    bonus = max(current.bonus, min(cap, current.bonus + event_status_boost))
    return TemporaryStatus(bonus=bonus, circle=circle)


def weeks_pass(boost: TemporaryStatus, weeks: int) -> TemporaryStatus:
    """SOCIAL EVENTS: the boost "drops by one point for every week in which no such event was
    attended" — ``weeks`` such weeks; never below 0."""
    if weeks < 0:
        raise ValueError("weeks cannot be negative")
    return msgspec.structs.replace(boost, bonus=max(0, boost.bonus - weeks))


def challenge_rating(event_rating: int, gm_modifier: int = 0) -> int:
    """SOCIAL EVENTS: an event has a challenge rating equal to its Event Rating, modified by the
    factor the GM sets for how demanding one's goal at the event is."""
    return event_rating + gm_modifier
