"""Campaigns: characters kept from one encounter to the next, an in-game clock, and links that
outlive an encounter (rulings R109-R114).

A campaign is event-sourced like an encounter: its log (Redis, ``{camp:<id>}:events``) holds
the events below, each in a :class:`CampaignEnvelope`, and its state (:class:`CampaignState`)
is their fold (``campaign.fold``). The clock counts in-game hours from the campaign's start:
hour 0 is day 1, 00:00.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.events import Track
from protocol.model import StatBlock
from protocol.snapshot import doc
from rules.condition_track import FatigueBand

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
    #: fatigue points at full (maximum Health), as its stat block makes them
    fatigue_max: int | None = None
    #: fatigue points now (Health in "Action Time"); ``null``: at full
    fatigue: int | None = None
    physical: Track = msgspec.field(default_factory=Track)
    mental: Track | None = msgspec.field(default_factory=Track)
    life: Life = "alive"
    #: whether it is conscious: ``false`` for one an encounter left unconscious (R16, R113)
    conscious: bool = True
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


class LogEntry(msgspec.Struct, kw_only=True, frozen=True):
    """A line of the campaign's log, in words: what a change was and by which rule."""

    seq: Annotated[int, doc("The campaign event it tells of.")]
    hour: Annotated[int, doc("The clock's hour then.")]
    text: str
    characters: Annotated[list[str], doc(
        "The characters it is about (`[]`: the whole campaign).")] = []
    gm_only: Annotated[bool, doc("Told to the GM only.")] = False


#: How many lines of its log a campaign's view keeps.
LOG_LINES = 50


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
    #: the last ``LOG_LINES`` lines of its log, in words
    log: list[LogEntry] = []


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
    fatigue_max: int | None = None


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
    conscious: bool = True
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


# --- what a credential sees (``campaign.views``) ----------------------------------------------


class Clock(msgspec.Struct, kw_only=True):
    """The in-game clock: ``hour`` since the campaign began, the ``day`` it falls on (from 1)
    and the ``time`` of day (0-23)."""

    hour: int
    day: int
    time: int


class CharacterView(msgspec.Struct, kw_only=True):
    """A character of the roster. Everyone sees who it is, whether it lives and is conscious,
    how its fatigue points stand (R105's bands) and the encounter it is in; the GM, and the
    player of the character, see the rest."""

    id: Annotated[str, doc("Its id: its combatant id in every encounter of the campaign.")]
    name: str
    kind: Annotated[Literal["pc", "npc"], doc("`pc`, a player's; `npc`, the GM's.")]
    life: Annotated[Life, doc("`alive` or `dead`.")]
    conscious: Annotated[bool, doc(
        "`false` while it is unconscious: an encounter left it so (its Constitution check "
        "failed, or the GM made it so), and it starts the next one unconscious (R16, R113); "
        "absent from servers before protocol 1.13, which read as `true`.")] = True
    band: Annotated[FatigueBand | None, doc(
        "How its fatigue points (Health) stand: `full`, `above_half`, `half_or_less`, "
        "`none`; `null` without a maximum.")]
    encounter: Annotated[str | None, doc("The running encounter it is in (R113), if any.")]
    stats: Annotated[dict[str, Any], doc(
        "Its stat block's `stats` (as `create_encounter` takes them).")] | \
        msgspec.UnsetType = msgspec.UNSET
    fatigue: Annotated[int | None, doc("Fatigue points now (Health in \"Action Time\").")] | \
        msgspec.UnsetType = msgspec.UNSET
    fatigue_max: Annotated[int | None, doc("Fatigue points at full.")] | \
        msgspec.UnsetType = msgspec.UNSET
    physical: Annotated[Track, doc("The physical condition track (R15, R17).")] | \
        msgspec.UnsetType = msgspec.UNSET
    mental: Annotated[Track | None, doc("The mental condition track.")] | \
        msgspec.UnsetType = msgspec.UNSET
    lunches: Annotated[int, doc("Second Lunches caught on `lunch_day` (R109).")] | \
        msgspec.UnsetType = msgspec.UNSET
    lunch_day: Annotated[int, doc("The day `lunches` count for.")] | \
        msgspec.UnsetType = msgspec.UNSET
    lunches_today: Annotated[int, doc(
        "Second Lunches caught today, by the clock (`lunches` when `lunch_day` is today, "
        "else 0; R109).")] | msgspec.UnsetType = msgspec.UNSET
    healed_at: Annotated[int | None, doc(
        "The hour of its last Natural Healing (R110), if any.")] | \
        msgspec.UnsetType = msgspec.UNSET
    status: Annotated[list[StatusBoost], doc("Its temporary Social Status (R111).")] | \
        msgspec.UnsetType = msgspec.UNSET
    items: Annotated[list[Item], doc("What it carries.")] | msgspec.UnsetType = msgspec.UNSET
    link: Annotated[str | None, doc(
        "GM only: its player's campaign link (`smc1.…`), for the web table's "
        "`/table/#token=<link>`; `null` for an NPC.")] | msgspec.UnsetType = msgspec.UNSET


class EncounterView(msgspec.Struct, kw_only=True):
    """An encounter begun from the campaign."""

    id: str
    name: str
    characters: list[str]
    running: Annotated[bool, doc("Not written back yet: it runs (or ended a moment ago).")]
    begun_at: Annotated[int, doc("The clock's hour when it began.")]
    written_back: Annotated[int | None, doc(
        "The last seq of its log when its results were written back; `null` while it runs.")]
    rested: Annotated[list[str], doc(
        "GM only: the characters resting through the scene (R112).")] | \
        msgspec.UnsetType = msgspec.UNSET
    gm_link: Annotated[str | None, doc(
        "GM only: the encounter's GM credential (`sm1.…`).")] | \
        msgspec.UnsetType = msgspec.UNSET


class CampaignView(msgspec.Struct, kw_only=True):
    """The campaign as one credential sees it (R113): the GM all of it with its links; a
    player its own characters in full, the others as a table would, and the encounters its
    characters were in."""

    id: str
    name: str
    ruleset: str
    clock: Clock
    characters: list[CharacterView]
    encounters: list[EncounterView]
    role: CampaignRole
    mine: Annotated[list[str], doc("The characters this credential plays.")]
    log: Annotated[list[LogEntry], doc(
        "The last lines of the campaign's log this credential may read (a rest that healed "
        "and one that did not, and why; a day or a week passing; what an encounter gave "
        "back), oldest first.")] = []
