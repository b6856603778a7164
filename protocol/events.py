"""Encounter events: the append-only log that is the truth of an encounter.

An event is what happened, in the past tense, with every die that decided it. State is a fold
over the events (``encounter.fold``); the server never rolls or decides anything while folding,
so a log replays to the identical state. Events reach clients inside ``event`` messages, each
redacted for its viewer (``encounter.views``).

Each event is tagged by ``kind``. New kinds may be added within a protocol version; clients
should ignore kinds they do not know.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from protocol.model import CombatantProfile, EncounterOptions, Roll, Scope

Role = Literal["gm", "player", "spectator", "integration"]


class Event(msgspec.Struct, tag_field="kind", kw_only=True):
    """Base of every event."""


class EncounterCreated(Event, tag="encounter_created", kw_only=True):
    """The first event of every encounter: its name, ruleset and options. Only the GM sees it
    when the options fix a ``dice_seed``."""

    name: str
    ruleset: str
    options: EncounterOptions


class CombatantAdded(Event, tag="combatant_added", kw_only=True):
    """A combatant joined the encounter. Hidden combatants are announced to the GM only;
    players and spectators who do not control the combatant get its profile with empty
    ``stats``."""

    combatant: CombatantProfile


class CombatantRemoved(Event, tag="combatant_removed", kw_only=True):
    """A combatant left the encounter (``combatant`` is its id); it leaves the initiative order
    and its pending rolls are dropped."""

    combatant: str


class CombatantRevealed(Event, tag="combatant_revealed", kw_only=True):
    """A hidden combatant becomes visible to everyone; ``combatant`` is its profile (with empty
    ``stats`` for players and spectators who do not control it)."""

    combatant: CombatantProfile


class CombatantConcealed(Event, tag="combatant_concealed", kw_only=True):
    """The GM hides a combatant again (only the GM is told)."""

    combatant: str


class OptionsChanged(Event, tag="options_changed", kw_only=True):
    """The GM replaced the encounter's options (only the GM is told)."""

    options: EncounterOptions


class TokenIssued(Event, tag="token_issued", kw_only=True):
    """A credential was issued (the GM sees this; the secret itself is never logged)."""

    token_id: str
    role: Role
    combatants: list[str] = []
    scopes: list[Scope] = []
    label: str | None = None


class TokenRevoked(Event, tag="token_revoked", kw_only=True):
    """A credential was revoked (the GM sees this); its connections are closed with 4001."""

    token_id: str


class RollRequested(Event, tag="roll_requested", kw_only=True):
    """The encounter waits for physical dice.

    ``roller`` is ``"gm"`` or the id of the combatant whose player rolls; ``dice`` lists the
    sides of each die to throw, in the order the faces are expected.
    """

    request: str
    roller: str
    combatant: str | None
    expr: str
    dice: list[int]
    purpose: str


class DiceRolled(Event, tag="dice_rolled", kw_only=True):
    """A roll and its result. ``by`` is ``server`` for a seeded server roll, ``gm`` or
    ``player`` for physical dice entered by hand (then ``roll.manual`` is true)."""

    purpose: str
    roll: Roll
    by: Literal["server", "gm", "player"] = "server"
    combatant: str | None = None
    request: str | None = None


class InitiativeEntry(msgspec.Struct, kw_only=True):
    """One place in the initiative order: the check's ``total``, the Initiative ``modifier``,
    the faces of any ``rolloff`` that broke a tie, and whether the combatant is ``hidden``."""

    combatant: str
    total: int
    modifier: int
    rolloff: list[int] = []
    hidden: bool = False


class InitiativeSet(Event, tag="initiative_set", kw_only=True):
    """The initiative order, highest first (ties: higher modifier, then roll-off). Viewers
    who may not see hidden combatants get the order without them."""

    entries: list[InitiativeEntry]


class CombatantJoined(Event, tag="combatant_joined", kw_only=True):
    """A combatant entered the running scene and took its place in the order: ``position`` is
    its index in the order as this viewer sees it (the GM's order counts hidden combatants,
    everyone else's does not); ``public_position`` is its index among visible combatants."""

    entry: InitiativeEntry
    position: int
    public_position: int = 0


class RoundStarted(Event, tag="round_started", kw_only=True):
    """A new round begins (the first is 1); a ``turn_started`` follows."""

    round: int


class TurnStarted(Event, tag="turn_started", kw_only=True):
    """It is ``combatant``'s turn. The turns of hidden combatants are shown to the GM only."""

    round: int
    combatant: str
    hidden: bool = False


class TurnEnded(Event, tag="turn_ended", kw_only=True):
    """``combatant``'s turn is over. The turns of hidden combatants are shown to the GM only."""

    round: int
    combatant: str
    hidden: bool = False


class EncounterEnded(Event, tag="encounter_ended", kw_only=True):
    """The scene is over: pending rolls are dropped, and the only command still accepted is
    ``revoke_token``."""

    reason: str | None = None


AnyEvent = (
    EncounterCreated
    | CombatantAdded
    | CombatantRemoved
    | CombatantRevealed
    | CombatantConcealed
    | OptionsChanged
    | TokenIssued
    | TokenRevoked
    | RollRequested
    | DiceRolled
    | InitiativeSet
    | CombatantJoined
    | RoundStarted
    | TurnStarted
    | TurnEnded
    | EncounterEnded
)

#: Who may see an event: ``None`` is everyone; otherwise a list of audiences, where ``"gm"``
#: is the GM (and ``view:gm`` integrations), ``"roll"`` integrations with the ``roll`` scope
#: (the GM's dice) and ``"c:<id>"`` the controllers of a combatant.
Visibility = list[str] | None


class Envelope(msgspec.Struct, kw_only=True, array_like=False):
    """One stored event: its position in the log, when, by which command, for whom."""

    seq: int
    ts: int  # milliseconds since the epoch, server clock
    event: AnyEvent
    cmd: str | None = None  # dedupe key of the command that caused it ("<principal>:<id>")
    vis: Visibility = None
    chart: list[str] | None = None  # statechart configuration after the event, when it changed
