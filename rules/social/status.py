"""Social Status and what it does to maneuvers (SOCIAL SYSTEMS -> SOCIAL STATUS, USING SOCIAL
STATUS, Social Status, Related Social Status; rulings R25, R40, R70, R75).

Social Status = Reputation + Charisma modifier + talents (the *unmodified* status, R70) +
temporary status of the circle of society (capped at half the unmodified status, R25) + the
situation modifiers of the first table + related status on a related topic or event.

Public API:

- ``Familiarity``, ``RaceStanding`` — the rows of the situation table that exclude one another.
- ``StatusSituation`` — where the character is and what is discussed (frozen Struct).
- ``SocialStatus`` — the total and its itemised parts.
- ``unmodified_status(sheet, social) -> int``; ``temporary_cap(unmodified) -> int``.
- ``social_status(sheet, social, situation=None) -> SocialStatus``.
- ``subject_modifier(rank) -> Modifier`` (R25); ``related_status(sheet, topic) -> Modifier | None``.
- ``knowledge_skill(topic) -> str``, ``skill_focus_feat(topic) -> str`` — the names on the sheet.
- ``status_difference_modifier(actor, target) -> Modifier`` (R40).
- ``ensure_usable_against(maneuver, actor, target, *, not_against_higher) -> None`` (R75).
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from rules.modifiers import Modifier, RuleRefusal, total
from rules.sheet import Sheet
from rules.social.sheet import SocialSheet

SECTION_STATUS = "SOCIAL STATUS"
SECTION_USING = "USING SOCIAL STATUS"
SECTION_RELATED = "Related Social Status"


class Familiarity(StrEnum):
    """How well the character is known here: "Stranger on this Location" -5, "Just a few know you
    here" -2 (alternatives, R70)."""

    KNOWN = "known"
    FEW_KNOW = "few_know"
    STRANGER = "stranger"


class RaceStanding(StrEnum):
    """The character's race here: "unknown or deemed to be dangerous" -10, "otherwise not
    occurring" in this region -5, "No member of the prevailing race" -2 (alternatives, R70)."""

    PREVAILING = "prevailing"
    NOT_PREVAILING = "not_prevailing"
    RARE = "rare"
    UNKNOWN_OR_DANGEROUS = "unknown_or_dangerous"


FAMILIARITY_MODIFIER: dict[Familiarity, int] = {
    Familiarity.KNOWN: 0, Familiarity.FEW_KNOW: -2, Familiarity.STRANGER: -5,
}

RACE_MODIFIER: dict[RaceStanding, int] = {
    RaceStanding.PREVAILING: 0, RaceStanding.NOT_PREVAILING: -2, RaceStanding.RARE: -5,
    RaceStanding.UNKNOWN_OR_DANGEROUS: -10,
}

_FAMILIARITY_NAME = {Familiarity.FEW_KNOW: "just a few know you here",
                     Familiarity.STRANGER: "stranger on this location"}
_RACE_NAME = {RaceStanding.NOT_PREVAILING: "not of the prevailing race",
              RaceStanding.RARE: "race not otherwise occurring in this region",
              RaceStanding.UNKNOWN_OR_DANGEROUS: "race unknown or deemed dangerous"}


class StatusSituation(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The situation a Social Status is computed for.

    ``subject_rank``: at an event with a subject, the character's rank in the subject's skill
    (R70: the skill total on the stat block); ``None`` when the event has no subject.
    ``topic``: the topic discussed or the event's subject, for related status (``None``: none).
    ``circle``: the circle of society the character is in (which temporary status counts).
    ``gm``: modifiers the GM sets for situations the table does not list.
    """

    familiarity: Familiarity = Familiarity.KNOWN
    race: RaceStanding = RaceStanding.PREVAILING
    subject_rank: int | None = None
    topic: str | None = None
    circle: str | None = None
    gm: tuple[Modifier, ...] = ()


class SocialStatus(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A Social Status: ``total`` (sum of ``parts``) and the ``unmodified`` status (R70)."""

    total: int
    unmodified: int
    parts: tuple[Modifier, ...]


def _base_parts(sheet: Sheet, social: SocialSheet) -> list[Modifier]:
    parts = [Modifier("Reputation", social.reputation, "Social Status"),
             Modifier("Charisma modifier", sheet.mod("cha"), "Social Status")]
    parts += [Modifier(f"talent: {name}", value, "Social Status (talents)")
              for name, value in sorted(social.talents.items())]
    return parts


def unmodified_status(sheet: Sheet, social: SocialSheet) -> int:
    """R70: the unmodified Social Status = Reputation + Charisma modifier + talents."""
    return total(_base_parts(sheet, social))


def temporary_cap(unmodified: int) -> int:
    """R25: a temporary boost is at most half the unmodified Social Status, rounded down (never
    below 0)."""
    return max(0, unmodified // 2)


def subject_modifier(rank: int) -> Modifier:
    """SOCIAL STATUS table, R25: at an event about a subject, skill rank 0-4: -2; 5-10: +2; 11 or
    more: +5."""
    section = f"{SECTION_STATUS} (R25)"
    if rank < 5:
        return Modifier("not familiar with the event's subject", -2, section)
    if rank <= 10:
        return Modifier("familiar with the event's subject", 2, section)
    return Modifier("knows the event's subject very well", 5, section)


def _slug(topic: str) -> str:
    slug = "_".join(topic.strip().lower().replace("-", " ").split())
    if not any(c.isalnum() for c in slug):
        raise ValueError("a topic needs a name with a letter or a digit")
    return slug


def knowledge_skill(topic: str) -> str:
    """The skill name of Knowledge (topic) on the stat block: ``knowledge_<topic>``."""
    return f"knowledge_{_slug(topic)}"


def skill_focus_feat(topic: str) -> str:
    """The feat name of Skill Focus on Knowledge (topic): ``skill_focus_knowledge_<topic>``."""
    return f"skill_focus_{knowledge_skill(topic)}"


def related_status(sheet: Sheet, topic: str) -> Modifier | None:
    """Related Social Status: trained in Knowledge (topic) +2; with Skill Focus on that skill +4;
    otherwise ``None``."""
    skill = knowledge_skill(topic)
    if skill not in sheet.trained:
        return None
    if sheet.has_feat(skill_focus_feat(topic)):
        return Modifier(f"related status ({skill}, Skill Focus)", 4, SECTION_RELATED)
    return Modifier(f"related status ({skill}, trained)", 2, SECTION_RELATED)


def social_status(sheet: Sheet, social: SocialSheet,
                  situation: StatusSituation | None = None) -> SocialStatus:
    """Social Status (R70): Reputation + Charisma modifier + talents + temporary status that
    counts in the situation's circle (each boost at most half the unmodified status, R25) + the
    worse of the familiarity rows + the worst of the race rows + the event-subject row (R25) +
    related status on the topic + the GM's modifiers, every part itemised."""
    sit = situation or StatusSituation()
    parts = _base_parts(sheet, social)
    unmodified = total(parts)
    cap = temporary_cap(unmodified)
    for temp in social.temporary_in(sit.circle):
        value = min(temp.bonus, cap)
        if value:
            where = temp.circle or "universal"
            parts.append(Modifier(f"temporary status ({where})", value,
                                  "Social Events: temporary status (R25, R70)"))
    if sit.familiarity is not Familiarity.KNOWN:
        parts.append(Modifier(_FAMILIARITY_NAME[sit.familiarity],
                              FAMILIARITY_MODIFIER[sit.familiarity], f"{SECTION_STATUS} (R70)"))
    if sit.race is not RaceStanding.PREVAILING:
        parts.append(Modifier(_RACE_NAME[sit.race], RACE_MODIFIER[sit.race],
                              f"{SECTION_STATUS} (R70)"))
    if sit.subject_rank is not None:
        parts.append(subject_modifier(sit.subject_rank))
    if sit.topic is not None:
        related = related_status(sheet, sit.topic)
        if related is not None:
            parts.append(related)
    parts += sit.gm
    return SocialStatus(total=total(parts), unmodified=unmodified, parts=tuple(parts))


def status_difference_modifier(actor: int, target: int) -> Modifier:
    """USING SOCIAL STATUS, ruling R40: with d = target's status - actor's status, the actor's
    social maneuver roll gets d = 0: 0; 1-4: -2; 5-9: -4; 10 or more: -6; -1..-4: +2; -5..-9: +4;
    -10 or less: +6."""
    d = target - actor
    size = abs(d)
    value = 0 if size == 0 else 2 if size < 5 else 4 if size < 10 else 6
    if d > 0:
        value, name = -value, f"target's social status higher by {d}"
    elif d < 0:
        name = f"target's social status lower by {-d}"
    else:
        name = "same social status"
    return Modifier(name, value, f"{SECTION_USING} (R40)")


def ensure_usable_against(maneuver: str, actor: int, target: int, *,
                          not_against_higher: bool) -> None:
    """USING SOCIAL STATUS: "Some Maneuver can not be used against someone standing higher in the
    social status." Ruling R75: the maneuvers so marked (``not_against_higher``) are refused
    against a target whose status is higher than the actor's; the basic maneuvers and lies are
    not marked."""
    if not_against_higher and target > actor:
        raise RuleRefusal(f"{SECTION_USING}: {maneuver} cannot be used against a higher social "
                          f"status ({target} against {actor}, ruling R75)")
