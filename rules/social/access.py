"""Social Access Rating and the Aura of Harmony/Discord (SOCIAL SYSTEMS -> SOCIAL ACCESS RATING,
SOCIAL EVENTS table; translation in ../shared/rules/README.md; rulings R25, R72, R73).

Social Access Rating = Social Status + fine clothing + the table's modifiers (invitation +5, no
invitation -5, knows the host +2, knows most present +2, appropriate attire +2, inappropriate
attire -4). Its difference to the Event Rating gives an aura, and the size of the argument it
makes (R25).

Public API:

- ``Attire``, ``AccessSituation``, ``AccessRating``; ``access_rating(status, social, situation)``.
- ``AuraKind``, ``AuraTiming``, ``Moment``, ``Aura``; ``aura(access, event_rating, *,
  aura_gap_band="lower") -> Aura`` (R25); ``aura_points(aura, moment, encounter=0) -> int`` and
  ``aura_total(aura, encounters) -> int`` (R73).
- ``AuraPool``; ``add_aura_point(pool, kind) -> AuraPool`` (R73).
- ``low_access_argument(target_access, user_access, event_rating, *, aura_gap_band) -> Size``
  and ``compliment_aura(access, event_rating) -> Aura`` (R72).
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from rules.modifiers import Modifier, RuleRefusal, total
from rules.sheet import Size
from rules.social.sheet import SocialSheet

SECTION = "SOCIAL ACCESS RATING"
SECTION_AURA = "SOCIAL EVENTS: Aura of Harmony/Discord"


class Attire(StrEnum):
    ORDINARY = "ordinary"
    APPROPRIATE = "appropriate"
    INAPPROPRIATE = "inappropriate"


ATTIRE_MODIFIER: dict[Attire, int] = {
    Attire.ORDINARY: 0, Attire.APPROPRIATE: 2, Attire.INAPPROPRIATE: -4,
}


class AccessSituation(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The table's influencing effects for one character at one event. ``invitation``: ``True``
    invited, ``False`` not invited, ``None`` the event issues no invitations (R72)."""

    invitation: bool | None = None
    knows_host: bool = False
    knows_most: bool = False
    attire: Attire = Attire.ORDINARY
    gm: tuple[Modifier, ...] = ()


class AccessRating(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    total: int
    parts: tuple[Modifier, ...]


def access_rating(status: int, social: SocialSheet,
                  situation: AccessSituation | None = None) -> AccessRating:
    """SOCIAL ACCESS RATING: the Social Status (with its situation modifiers) + the bonus of fine
    clothing (``social.clothing``) + the table's modifiers, itemised."""
    sit = situation or AccessSituation()
    parts = [Modifier("Social Status", status, SECTION)]
    if social.clothing:
        parts.append(Modifier("fine clothing", social.clothing, SECTION))
    if sit.invitation is True:
        parts.append(Modifier("invitation", 5, SECTION))
    elif sit.invitation is False:
        parts.append(Modifier("no invitation", -5, f"{SECTION} (R72)"))
    if sit.knows_host:
        parts.append(Modifier("knows the host or organiser", 2, SECTION))
    if sit.knows_most:
        parts.append(Modifier("knows most of those present", 2, SECTION))
    if sit.attire is not Attire.ORDINARY:
        parts.append(Modifier(f"{sit.attire.value} attire", ATTIRE_MODIFIER[sit.attire], SECTION))
    parts += sit.gm
    return AccessRating(total=total(parts), parts=tuple(parts))


class AuraKind(StrEnum):
    NONE = "none"
    HARMONY = "harmony"
    DISCORD = "discord"


class AuraTiming(StrEnum):
    """When an aura gives its point (one of the table's four rows)."""

    NEVER = "never"
    END = "end"
    START_AND_END = "start_and_end"
    EVERY_TWO_AND_END = "every_two_and_end"
    PER_ENCOUNTER = "per_encounter"


class Moment(StrEnum):
    """A moment of an event (R73): its start, the end of an encounter, its end."""

    START = "start"
    ENCOUNTER = "encounter"
    END = "end"


class Aura(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An Aura of Harmony or Discord: ``level`` 1 (difference 1 to 5) to 4 (21 and more), 0 for
    none; ``argument``: the size of the argument it makes (Tiny .. Large)."""

    kind: AuraKind
    level: int
    timing: AuraTiming
    argument: Size | None
    difference: int


_LEVELS: dict[int, tuple[AuraTiming, Size]] = {
    1: (AuraTiming.END, Size.TINY),
    2: (AuraTiming.START_AND_END, Size.SMALL),
    3: (AuraTiming.EVERY_TWO_AND_END, Size.MEDIUM),
    4: (AuraTiming.PER_ENCOUNTER, Size.LARGE),
}

AURA_GAP_BANDS = ("lower", "upper")


def aura_level(difference: int, *, aura_gap_band: str = "lower") -> int:
    """R25 by |d|: 0 none; 1-5 level 1; 6-10 level 2; 15-20 level 3; 21 or more level 4. The
    skipped 11-14 take level 2 (option ``aura_gap_band`` ``"lower"``, the default) or level 3
    (``"upper"``)."""
    if aura_gap_band not in AURA_GAP_BANDS:
        raise ValueError(f"aura_gap_band is one of {', '.join(AURA_GAP_BANDS)}")
    d = abs(difference)
    if d == 0:
        return 0
    if d <= 5:
        return 1
    if d <= 10:
        return 2
    if d <= 14:
        return 2 if aura_gap_band == "lower" else 3
    if d <= 20:
        return 3
    return 4


def _aura_of_level(kind: AuraKind, level: int, difference: int) -> Aura:
    if level == 0:
        return Aura(kind=AuraKind.NONE, level=0, timing=AuraTiming.NEVER, argument=None,
                    difference=difference)
    timing, size = _LEVELS[level]
    return Aura(kind=kind, level=level, timing=timing, argument=size, difference=difference)


def aura(access: int, event_rating: int, *, aura_gap_band: str = "lower") -> Aura:
    """The Aura of Harmony (Social Access Rating above the Event Rating) or Discord (below) and
    its argument size, by the table and ruling R25; an equal rating gives none."""
    d = access - event_rating
    kind = AuraKind.HARMONY if d > 0 else AuraKind.DISCORD if d < 0 else AuraKind.NONE
    return _aura_of_level(kind, aura_level(d, aura_gap_band=aura_gap_band), d)


def aura_points(a: Aura, moment: Moment, encounter: int = 0) -> int:
    """R73: the points an aura gives at a moment of the event. ``encounter`` counts the event's
    encounters from 1 (for ``Moment.ENCOUNTER``, at that encounter's end). Per encounter: 1 at
    each encounter's end; every 2 encounters and at the end: 1 after the 2nd, 4th, ... and 1 at
    the event's end; at the start and at the end: 1 each; at the end: 1."""
    if moment is Moment.ENCOUNTER and encounter < 1:
        raise ValueError("encounters are counted from 1")
    t = a.timing
    if t is AuraTiming.PER_ENCOUNTER:
        return int(moment is Moment.ENCOUNTER)
    if t is AuraTiming.EVERY_TWO_AND_END:
        return int(moment is Moment.END or (moment is Moment.ENCOUNTER and encounter % 2 == 0))
    if t is AuraTiming.START_AND_END:
        return int(moment in (Moment.START, Moment.END))
    if t is AuraTiming.END:
        return int(moment is Moment.END)
    return 0


def aura_total(a: Aura, encounters: int) -> int:
    """R73: all the points an aura gives over an event of ``encounters`` encounters."""
    if encounters < 0:
        raise ValueError("encounters cannot be negative")
    return (aura_points(a, Moment.START) + aura_points(a, Moment.END)
            + sum(aura_points(a, Moment.ENCOUNTER, n) for n in range(1, encounters + 1)))


class AuraPool(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A character's Harmony and Discord points at an event (R73)."""

    harmony: int = 0
    discord: int = 0

    def __post_init__(self) -> None:
        if self.harmony < 0 or self.discord < 0:
            raise ValueError("harmony and discord points cannot be negative")


def add_aura_point(pool: AuraPool, kind: AuraKind) -> AuraPool:
    """R73: a point of one kind first removes a point of the other kind. An Aura of Discord adds
    no Discord point once there is no Harmony point and one Discord point (the translation:
    "until every Harmony point is gone and only one Discord point remains"); an Aura of Harmony
    has no such limit."""
    if kind is AuraKind.HARMONY:
        if pool.discord:
            return AuraPool(harmony=pool.harmony, discord=pool.discord - 1)
        return AuraPool(harmony=pool.harmony + 1, discord=0)
    if kind is AuraKind.DISCORD:
        if pool.harmony:
            return AuraPool(harmony=pool.harmony - 1, discord=pool.discord)
        return AuraPool(harmony=0, discord=max(pool.discord, 1))
    return pool


def low_access_argument(target_access: int, user_access: int, event_rating: int, *,
                        aura_gap_band: str = "lower") -> Size:
    """R72: a Social Access Rating below the Event Rating is an argument against its owner, of
    the size of its Discord row; only someone whose own rating is at least the Event Rating
    ("sufficiently high") can use it. Raises :class:`RuleRefusal` otherwise."""
    a = aura(target_access, event_rating, aura_gap_band=aura_gap_band)
    if a.kind is not AuraKind.DISCORD or a.argument is None:
        raise RuleRefusal(f"{SECTION}: the target's access rating ({target_access}) is not below "
                          f"the Event Rating ({event_rating}); no argument (ruling R72)")
    if user_access < event_rating:
        raise RuleRefusal(f"{SECTION}: only someone whose own access rating reaches the Event "
                          f"Rating ({user_access} < {event_rating}) can use it (ruling R72)")
    return a.argument


def compliment_aura(access: int, event_rating: int) -> Aura:
    """R72: a Social Access Rating above the Event Rating, used as a compliment in a harmonious
    maneuver, gives the one complimented a level 1 Aura of Harmony (1 Harmony point at the end).
    Raises :class:`RuleRefusal` when the rating is not above the Event Rating."""
    if access <= event_rating:
        raise RuleRefusal(f"{SECTION}: only a raised access rating can be a compliment "
                          f"({access} against Event Rating {event_rating}, ruling R72)")
    return _aura_of_level(AuraKind.HARMONY, 1, access - event_rating)
