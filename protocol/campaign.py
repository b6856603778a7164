"""Campaigns: characters kept from one encounter to the next, an in-game clock, and links that
outlive an encounter (rulings R109-R114).

A campaign is event-sourced like an encounter: its log (Redis, ``{camp:<id>}:events``) holds
the events below, each in a :class:`CampaignEnvelope`, and its state (:class:`CampaignState`)
is their fold (``campaign.fold``). The clock counts in-game hours from the campaign's start:
hour 0 is day 1, 00:00.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.events import Track
from protocol.model import StatBlock

CampaignRole = Literal["gm", "player"]
#: A character's state of life between scenes.
Life = Literal["alive", "dead"]

HOURS_PER_DAY = 24
HOURS_PER_WEEK = 7 * HOURS_PER_DAY


def day_of(hour: int) -> int:
    """The day of the campaign an hour falls on: hours 0-23 are day 1."""
    return hour // HOURS_PER_DAY + 1


class StatusBoost(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Temporary Social Status (SOCIAL EVENTS; R25, R70): ``bonus`` counts in ``circle`` (or
    everywhere, ``null``); ``since`` is the hour it was earned or last faded (it fades a point a
    week after that, R111); ``source`` what it came from."""

    bonus: Annotated[int, msgspec.Meta(ge=0, le=100)]
    circle: Annotated[str, msgspec.Meta(min_length=1, max_length=80)] | None = None
    source: Annotated[str, msgspec.Meta(max_length=120)] = ""
    since: Annotated[int, msgspec.Meta(ge=0)] = 0


class Item(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Something a character carries, and how many (Goods & Services): the GM's record."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=80)]
    count: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 1


class Character(msgspec.Struct, kw_only=True, frozen=True):
    """A character of the campaign as it stands between encounters."""

    id: str
    #: its stat block, as ``create_encounter`` takes one
    block: StatBlock
    #: the player link's credential (``smc1.<campaign>.<token id>.…``); ``null`` for an NPC
    token_id: str | None = None
    #: fatigue points now (Health in "Action Time"); ``null``: at full
    fatigue: int | None = None
    physical: Track = msgspec.field(default_factory=Track)
    mental: Track | None = msgspec.field(default_factory=Track)
    life: Life = "alive"
    #: Second Lunches taken on ``lunch_day`` (R109)
    lunches: int = 0
    lunch_day: int = 1
    #: the hour of its last natural healing (R110), if any
    healed_at: int | None = None
    status: tuple[StatusBoost, ...] = ()
    items: tuple[Item, ...] = ()
    #: the running encounter it is in, if any (at most one, R113)
    encounter: str | None = None


class CampaignEncounter(msgspec.Struct, kw_only=True):
    """An encounter begun from the campaign."""

    id: str
    name: str
    characters: list[str]
    #: the encounter credential of each character's player (its token id), by character
    links: dict[str, str] = {}
    gm_token_id: str
    #: the characters marked as resting through the scene (R112)
    rested: list[str] = []
    begun_at: int = 0
    #: the last seq of the encounter's log when its results were written back (``null``: not
    #: yet, it runs)
    written_back: int | None = None


class CampaignGrant(msgspec.Struct, kw_only=True):
    role: CampaignRole
    characters: list[str] = []
    revoked: bool = False


class CampaignState(msgspec.Struct, kw_only=True):
    id: str
    name: str = ""
    ruleset: str = "dramatic"
    version: int = 0
    hour: int = 0
    characters: dict[str, Character] = {}
    encounters: dict[str, CampaignEncounter] = {}
    tokens: dict[str, CampaignGrant] = {}
    #: SHA-256 of the recovery secret (hex)
    recovery: str = ""


# --- events -----------------------------------------------------------------------------------


class CampaignEvent(msgspec.Struct, tag_field="type", kw_only=True):
    """Base of every campaign event."""


class CampaignCreated(CampaignEvent, tag="campaign_created", kw_only=True):
    """The campaign, its ruleset and the GM's credential; ``recovery`` the digest of the secret
    that recovers a lost GM link."""

    name: str
    ruleset: str
    gm_token_id: str
    recovery: str


class CharacterAdded(CampaignEvent, tag="character_added", kw_only=True):
    """A character joins the roster; ``token_id`` names its player's link (``null``: an NPC of
    the GM's)."""

    character: StatBlock
    token_id: str | None = None


class CharacterChanged(CampaignEvent, tag="character_changed", kw_only=True):
    """A character's state between scenes changed: ``cause`` says by what (``gm``: the GM's
    ``adjust_character``, with ``reason``; ``natural_healing``; ``time``: the clock passing;
    ``scene``: an encounter's results), ``notes`` by which rule; the fields are its state
    after."""

    character: str
    cause: Literal["gm", "natural_healing", "time", "scene"]
    reason: str | None = None
    notes: list[str] = []
    fatigue: int | None = None
    physical: Track
    mental: Track | None = None
    life: Life = "alive"
    lunches: int = 0
    lunch_day: int = 1
    healed_at: int | None = None
    status: list[StatusBoost] = []
    items: list[Item] = []


class HealingRefused(CampaignEvent, tag="healing_refused", kw_only=True):
    """A rest gave a character no natural healing, and why (R110)."""

    character: str
    why: str


class ClockAdvanced(CampaignEvent, tag="clock_advanced", kw_only=True):
    """The GM moved the clock on ``hours`` to ``hour``; ``rest``: the characters (out of
    encounters) rested through them. The changes it brought follow."""

    hours: int
    hour: int
    rest: bool = False
    reason: str | None = None


class EncounterBegun(CampaignEvent, tag="encounter_begun", kw_only=True):
    """An encounter made from the roster: its characters are in it until it is written back."""

    encounter: str
    name: str
    characters: list[str]
    links: dict[str, str] = {}
    gm_token_id: str
    rested: list[str] = []


class EncounterWrittenBack(CampaignEvent, tag="encounter_written_back", kw_only=True):
    """The results of an ended encounter, read at ``final_seq`` of its log, are carried back
    (the ``character_changed`` events of cause ``scene`` that follow)."""

    encounter: str
    final_seq: int


class GmRecovered(CampaignEvent, tag="gm_recovered", kw_only=True):
    """The recovery secret was used: a new GM credential (``token_id``) and recovery secret
    (``recovery``, its digest); the old GM credential (``revoked``) no longer works."""

    token_id: str
    revoked: str
    recovery: str


AnyCampaignEvent = (CampaignCreated | CharacterAdded | CharacterChanged | HealingRefused
                    | ClockAdvanced | EncounterBegun | EncounterWrittenBack | GmRecovered)


class CampaignEnvelope(msgspec.Struct, kw_only=True):
    """One stored campaign event: its position in the campaign's log, when, by which command."""

    seq: int
    ts: int
    event: AnyCampaignEvent
    cmd: str | None = None
