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


class Event(msgspec.Struct, tag_field="kind", kw_only=True, gc=False):
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


class InitiativeEntry(msgspec.Struct, kw_only=True, gc=False):
    """One place in the initiative order: the check's ``total``, the Initiative ``modifier``,
    the faces of any ``rolloff`` that broke a tie, and whether the combatant is ``hidden``.
    ``count`` is the initiative count it acts on now (the total, until a delay or a readied
    action moves it; rulings R7, R8); ``group`` the NPC group that rolled together (R6)."""

    combatant: str
    total: int
    modifier: int
    rolloff: list[int] = []
    hidden: bool = False
    count: int | None = None
    group: str | None = None


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


class AwarenessSet(Event, tag="awareness_set", kw_only=True):
    """The GM decided whether a combatant is aware of its opponents as the scene starts."""

    combatant: str
    aware: bool


class SceneStarted(Event, tag="scene_started", kw_only=True):
    """The scene begins: with a surprise round (some but not all combatants aware, ruling R1)
    or straight with round 1. In a scene with a surprise round everyone starts flat-footed."""

    surprise: bool


class FlatFooted(Event, tag="flat_footed", kw_only=True):
    """A combatant becomes (``flat_footed: true``) or stops being flat-footed (FLAT-FOOTED;
    rulings R2, R3). Computed by the server, never set by hand."""

    combatant: str
    flat_footed: bool
    hidden: bool = False


class RoundStarted(Event, tag="round_started", kw_only=True):
    """A new round begins (the first regular round is 1; the surprise round is 0, with
    ``surprise: true``); a ``turn_started`` follows."""

    round: int
    surprise: bool = False


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


class ActionTaken(Event, tag="action_taken", kw_only=True):
    """A combatant took an action. ``action_type`` is standard, move, swift, full_round, free
    or reaction; ``slot`` the part of the turn's budget it used (``null`` for free actions
    and reactions); ``progress``/``needed`` count the swift actions of an action that needs
    several (SWIFT ACTIONS), which happens with the last."""

    round: int
    combatant: str
    action: str
    action_type: str
    slot: str | None = None
    out_of_turn: bool = False
    readied: bool = False
    progress: int = 1
    needed: int = 1
    note: str | None = None
    target: str | None = None
    hidden: bool = False


class TurnDelayed(Event, tag="turn_delayed", kw_only=True):
    """The combatant delays (SPECIAL INITIATIVE ACTIONS: Delay); it takes its turn later in the
    round, at ``until_count`` if it named one (ruling R7)."""

    round: int
    combatant: str
    until_count: int | None = None
    hidden: bool = False


class DelayedTurnRequested(Event, tag="delayed_turn_requested", kw_only=True):
    """A delaying combatant will act right after the current turn (ruling R7)."""

    combatant: str
    after: str | None
    hidden: bool = False


class OrderChanged(Event, tag="order_changed", kw_only=True):
    """A combatant moved in the initiative order (a delayed turn, a readied action, a delayer at
    the end of the round; rulings R7, R8). ``position`` as in ``combatant_joined``."""

    combatant: str
    position: int
    public_position: int = 0
    count: int
    reason: Literal["delay", "ready", "round_end"]
    hidden: bool = False


class ActionReadied(Event, tag="action_readied", kw_only=True):
    """The combatant readied an action against a trigger (SPECIAL INITIATIVE ACTIONS: Ready)."""

    round: int
    combatant: str
    action: str
    action_type: str
    trigger: str
    hidden: bool = False


class ReadiedActionTriggered(Event, tag="readied_action_triggered", kw_only=True):
    """The trigger occurred: the readied action interrupts ``interrupting``'s turn."""

    combatant: str
    interrupting: str | None
    hidden: bool = False


class InterruptEnded(Event, tag="interrupt_ended", kw_only=True):
    """The readied action is resolved; the interrupted turn resumes where it was."""

    combatant: str
    hidden: bool = False


class ReadiedActionLost(Event, tag="readied_action_lost", kw_only=True):
    """The combatant's next turn came before its readied action was taken (ruling R8)."""

    combatant: str
    hidden: bool = False


class EffectStarted(Event, tag="effect_started", kw_only=True):
    """An effect that lasts ``rounds`` rounds began on ``count`` of ``round``; it ends just
    before the same initiative count in round ``ends_round`` (THE COMBAT ROUND)."""

    effect: str
    name: str
    rounds: int
    round: int
    count: int
    ends_round: int
    combatant: str | None = None


class EffectEnded(Event, tag="effect_ended", kw_only=True):
    """An effect ended: its duration ran out, or the GM removed it."""

    effect: str
    reason: Literal["expired", "removed"] = "expired"


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
    | AwarenessSet
    | SceneStarted
    | FlatFooted
    | RoundStarted
    | TurnStarted
    | TurnEnded
    | ActionTaken
    | TurnDelayed
    | DelayedTurnRequested
    | OrderChanged
    | ActionReadied
    | ReadiedActionTriggered
    | InterruptEnded
    | ReadiedActionLost
    | EffectStarted
    | EffectEnded
    | EncounterEnded
)

#: Who may see an event: ``None`` is everyone; otherwise a list of audiences, where ``"gm"``
#: is the GM (and ``view:gm`` integrations), ``"roll"`` integrations with the ``roll`` scope
#: (the GM's dice) and ``"c:<id>"`` the controllers of a combatant.
Visibility = list[str] | None


class Envelope(msgspec.Struct, kw_only=True, gc=False):
    """One stored event: its position in the log, when, by which command, for whom."""

    seq: int
    ts: int  # milliseconds since the epoch, server clock
    event: AnyEvent
    cmd: str | None = None  # dedupe key of the command that caused it ("<principal>:<id>")
    vis: Visibility = None
    chart: list[str] | None = None  # statechart configuration after the event, when it changed
    history: dict[str, list[str]] | None = None  # the chart's history states, when they changed
