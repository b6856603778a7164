"""Encounter events: the append-only log that is the truth of an encounter.

An event is what happened, in the past tense, with every die that decided it. State is a fold
over the events (``encounter.fold``); the server never rolls or decides anything while folding,
so a log replays to the identical state. Events reach clients inside ``event`` messages, each
redacted for its viewer (``encounter.views``).

Each event is tagged by ``kind``. New kinds may be added within a protocol version; clients
should ignore kinds they do not know.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.model import BattleMap, CombatantProfile, EncounterOptions, Roll, Scope, Square
from rules.action_time.effects import Effect as AtEffect
from rules.effects import Duration, EffectModifier
from rules.modifiers import Modifier

Role = Literal["gm", "player", "spectator", "integration"]


class Event(msgspec.Struct, tag_field="kind", kw_only=True, gc=False):
    """Base of every event."""


class EncounterCreated(Event, tag="encounter_created", kw_only=True):
    """The first event of every encounter: its name, ruleset and options. Only the GM sees it
    when the options fix a ``dice_seed``."""

    name: str
    ruleset: str
    options: EncounterOptions
    #: the campaign the encounter was begun from (R113), if any; added in protocol 1.8
    campaign: str | None = None


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


class RulesetEvent(Event, tag="ruleset_event", kw_only=True):
    """An event of a ruleset the server registers beyond the two it ships: its ``name`` and
    its ``data``, as that ruleset declares them; ``combatant`` is whom it is about, and the
    events of hidden combatants are the GM's (``hidden``). "MLP Dramatic Systems" and "Action
    Time" have events of their own kinds and never send this one."""

    ruleset: str
    name: str
    data: dict[str, Any] = {}
    combatant: str | None = None
    hidden: bool = False


class TokenIssued(Event, tag="token_issued", kw_only=True):
    """A credential was issued (the GM sees this; the secret itself is never logged).
    ``expires_at``: when it expires (milliseconds since the epoch, server time; ``null``:
    never); from then on it is refused and its connections are closed with 4001."""

    token_id: str
    role: Role
    combatants: list[str] = []
    scopes: list[Scope] = []
    label: str | None = None
    expires_at: int | None = None


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
    #: What the action that waits for the roll needs to finish when the dice come in (an
    #: attack's target, weapon and circumstances): the server's own bookkeeping, shown to the
    #: GM only (``null`` for everyone else).
    context: dict[str, Any] | None = None
    #: the combatant is hidden: a ``roll`` integration answering the GM's dice gets
    #: ``combatant: null``
    hidden: bool = False


class DiceRolled(Event, tag="dice_rolled", kw_only=True):
    """A roll and its result. ``by`` is ``server`` for a seeded server roll, ``gm`` or
    ``player`` for physical dice entered by hand (then ``roll.manual`` is true)."""

    purpose: str
    roll: Roll
    by: Literal["server", "gm", "player"] = "server"
    combatant: str | None = None
    request: str | None = None
    #: the roll answers a request addressed to the GM: viewers who are not shown those get
    #: ``request: null`` (the dice of an NPC are public with ``npc_rolls_public``, the GM's
    #: requests are not)
    gm_request: bool = False
    #: the combatant is hidden: a ``roll`` integration gets ``combatant: null``
    hidden: bool = False


class DiceCommitted(Event, tag="dice_committed", kw_only=True):
    """The server's dice are verifiable (ruling R101): ``commitment`` is the SHA-256 (hex) of
    the secret every server roll of the encounter is drawn from, published before the first
    roll; the secret itself comes in ``dice_revealed`` when the encounter ends. Not sent when
    the options fix a ``dice_seed`` (those dice are reproducible, not secret)."""

    commitment: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class DiceEntropyAdded(Event, tag="dice_entropy_added", kw_only=True):
    """A player (``by: player``) or the GM mixed ``entropy`` into the server's dice
    (``add_dice_entropy``): ``chain`` is the entropy chain after it, SHA-256 (hex) of the chain
    before (at first the commitment), a newline and the entropy. Every server roll after it is
    drawn with HMAC-SHA256 of ``"rolls\n" + chain``, keyed by the dice secret."""

    entropy: str
    by: Literal["gm", "player"]
    chain: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class DiceRevealed(Event, tag="dice_revealed", kw_only=True):
    """The encounter is ending (its ``encounter_ended`` follows) and the server shows the
    secret its dice were drawn from (``secret``, 32 bytes in hex; ruling R101): its SHA-256 is
    the ``commitment`` of ``dice_committed``, and with it every server roll of the log can be
    drawn again."""

    secret: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class DiceRenewed(Event, tag="dice_renewed", kw_only=True):
    """The server's dice are drawn from a new secret from here on (ruling R117): Redis went
    back to before the encounter's `dice_revealed` while the encounter ran on, so the secret
    shown there would go on drawing its dice. ``revealed`` is that secret (hex), shown again so
    that the rolls before this event can still be checked against the ``commitment`` they were
    drawn under; ``commitment`` is the SHA-256 (hex) of the new secret, which the server derives
    from its own secret, the encounter's id and ``nonce``, and reveals when the encounter ends.
    The entropy chain starts again at the new ``commitment``; roll places count on."""

    revealed: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
    nonce: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{32}$")]
    commitment: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class InitiativeEntry(msgspec.Struct, kw_only=True, gc=False, frozen=True):
    """One place in the initiative order: the check's ``total``, the Initiative ``modifier``,
    the faces of any ``rolloff`` that broke a tie, and whether the combatant is ``hidden``.
    ``count`` is the initiative count it acts on now (the total, until a delay or a readied
    action moves it; rulings R7, R8); ``group`` the NPC group that rolled together (R6)."""

    combatant: str
    total: int
    modifier: int
    rolloff: tuple[int, ...] = ()
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
    """The GM decided whether a combatant is aware of its opponents as the scene starts, or
    (``in_scene``) whether it is aware of the attacks made on it during the scene: an unaware
    one loses its Dexterity bonus to Reflex Defense (ruling R82)."""

    combatant: str
    aware: bool
    in_scene: bool = False


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


class TurnTimerStarted(Event, tag="turn_timer_started", kw_only=True):
    """A turn timer runs for ``combatant``'s turn (the ``turn_seconds`` option, ruling R102):
    it runs out at ``deadline`` (milliseconds since the Unix epoch, on the server's clock, the
    clock of the events' ``ts``: count down from it against the freshest of them, since an event
    the GM's screen held arrives later than its ``ts``, R96.6), with a warning at ``warn_at``
    (``null``: none). ``number`` counts the timers of the encounter. Shown to those who see
    the turn."""

    number: int
    combatant: str
    seconds: int
    deadline: int
    warn_at: int | None = None
    hidden: bool = False


class TurnTimerWarned(Event, tag="turn_timer_warned", kw_only=True):
    """``combatant``'s turn timer runs out at ``deadline`` (``turn_warning_seconds``, R102)."""

    number: int
    combatant: str
    deadline: int
    hidden: bool = False


class TurnTimerPaused(Event, tag="turn_timer_paused", kw_only=True):
    """The GM paused ``combatant``'s turn timer with ``remaining`` milliseconds left (R102)."""

    number: int
    combatant: str
    remaining: int
    hidden: bool = False


class TurnTimerResumed(Event, tag="turn_timer_resumed", kw_only=True):
    """The GM resumed ``combatant``'s turn timer: it runs out at ``deadline`` now, with a
    warning at ``warn_at`` (``null``: none, or already given) (R102)."""

    number: int
    combatant: str
    deadline: int
    warn_at: int | None = None
    hidden: bool = False


class TurnTimerExpired(Event, tag="turn_timer_expired", kw_only=True):
    """``combatant``'s turn timer ran out (R102). ``then`` is what follows, as
    ``turn_expiry`` says: ``notify`` (nothing more; also when the turn cannot end now, with
    ``why``), ``end_turn`` (the turn's ``turn_ended`` follows) or ``delay`` (a
    ``turn_delayed`` follows)."""

    number: int
    combatant: str
    then: Literal["notify", "end_turn", "delay"]
    why: str | None = None
    hidden: bool = False


class ScreenMoved(Event, tag="screen_moved", kw_only=True):
    """With the option ``anonymous_hidden_turns``: the GM moved the GM's screen (the turn of
    "someone behind the GM's screen", ``screen`` in the order) to the initiative count
    ``count``, from round ``round`` on (ruling R99)."""

    count: int
    round: int


class CommandsUndone(Event, tag="commands_undone", kw_only=True):
    """The GM took back every command after ``back_to`` (ruling R108): the events after it, up
    to this one, stay in the log as history (``get_history`` marks them ``taken_back``), and
    the encounter is as it was at ``back_to`` but for what is never taken back (credentials,
    the server's dice, which roll on from where they were). Every viewer who was shown any of
    them gets this event, then a ``snapshot`` (reason ``rewound``). ``back_to`` and
    ``taken_back`` (the seqs taken back) are the GM's; to anyone else they are ``null`` and
    ``[]``, and ``seen`` says how many of the events the table was shown. ``requested_by``:
    the combatant whose player asked for it (``request_undo``). Added in protocol 1.7."""

    back_to: int | None
    taken_back: list[int] = []
    seen: int = 0
    reason: str | None = None
    requested_by: str | None = None


class UndoRequested(Event, tag="undo_requested", kw_only=True):
    """A player asked the GM to take back its combatant's last action (``request_undo``,
    ruling R108): ``request`` is what the GM's ``undo`` (``request``) grants or
    ``refuse_undo`` refuses; ``back_to`` is where the undo would go back to (the GM's; ``null``
    to the player). Seen by the GM and the combatant's player. Added in protocol 1.7."""

    request: str
    combatant: str
    back_to: int | None
    reason: str | None = None


class UndoRefused(Event, tag="undo_refused", kw_only=True):
    """The GM refused a player's request to undo (``refuse_undo``, ruling R108). Added in
    protocol 1.7."""

    request: str
    combatant: str
    reason: str | None = None


class ActionTaken(Event, tag="action_taken", kw_only=True):
    """A combatant took an action. ``action_type`` is standard, move, swift, full_round, free
    or reaction (Action Time: a major action is ``standard``, a minor one ``move``); ``slot``
    the slot of the turn's budget it used, as the ruleset names them (Dramatic: ``standard``,
    ``move``, ``swift``, or ``full_round`` for all; Action Time: ``major``, ``minor``; events
    written before Action Time had its own slots say ``standard`` and ``move``), ``null`` for
    free actions and reactions; ``progress``/``needed`` count the swift actions of an action
    that needs several (SWIFT ACTIONS), which happens with the last."""

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
    """A delaying combatant will act right after the current turn (ruling R7): ``after`` is
    whose turn that is (``null`` for viewers who may not see a hidden combatant's turn)."""

    combatant: str
    after: str | None
    hidden: bool = False
    after_hidden: bool = False


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
    """The trigger occurred: the readied action interrupts ``interrupting``'s turn
    (``null`` for viewers who may not see a hidden combatant's turn)."""

    combatant: str
    interrupting: str | None
    hidden: bool = False
    interrupting_hidden: bool = False


class InterruptEnded(Event, tag="interrupt_ended", kw_only=True):
    """The readied action is resolved (after the last of its dice and their results); the
    interrupted turn resumes where it was."""

    combatant: str
    hidden: bool = False


class ReadiedActionLost(Event, tag="readied_action_lost", kw_only=True):
    """The combatant's next turn came before its readied action was taken (ruling R8)."""

    combatant: str
    hidden: bool = False


class EffectStarted(Event, tag="effect_started", kw_only=True):
    """An effect began on ``count`` of ``round``. One that lasts ``rounds`` rounds ends just
    before the same initiative count in round ``ends_round`` (THE COMBAT ROUND); ``until`` says
    when others end (R90)."""

    effect: str
    name: str
    rounds: int
    round: int
    count: int
    ends_round: int
    combatant: str | None = None
    #: How long it lasts (R90; ``rounds``: ``rounds`` rounds, as above).
    until: Duration = "rounds"
    #: What it changes (R90), stacked by the ruleset's rule (R91, R92).
    modifiers: list[EffectModifier] = []
    #: The thing it comes from (empty: ``name``) and what sort of thing that is.
    source: str = ""
    source_kind: str = "gm"
    #: The combatant whose talent, spell or action it is.
    origin: str | None = None
    #: ``origin`` is a hidden combatant: players and spectators get no ``origin``, and an
    #: empty ``source`` (ruling R97: the effect goes by its name).
    origin_hidden: bool = False


class EffectEnded(Event, tag="effect_ended", kw_only=True):
    """An effect ended: its duration ran out, or the GM removed it."""

    effect: str
    reason: Literal["expired", "removed"] = "expired"


class Track(msgspec.Struct, kw_only=True, gc=False):
    """A condition track (ruling R15): ``step`` 0 (normal) to 5 (bottom: unconscious, or
    destroyed for objects); ``persistent`` of those steps cannot be recovered without treatment,
    ``crippling`` of those only by the GM (R14.4, R17); ``penalty`` on checks and defenses."""

    step: int = 0
    persistent: int = 0
    crippling: int = 0
    penalty: int = 0


class CheckMade(Event, tag="check_made", kw_only=True):
    """A check the server rolled and judged: ``check`` names it (``constitution``,
    ``aid_another``, ``distraction``, ``break_object``, ``acrobatics``, ``adjudicated``…),
    ``natural`` is the d20, ``modifiers`` every term added, ``dc`` the number to reach
    (equal succeeds). The die itself is in the ``dice_rolled`` event before it."""

    combatant: str
    check: str
    natural: int | None
    modifiers: list[Modifier] = []
    total: int | None
    dc: int | None
    success: bool
    section: str | None = None
    #: whom the check helps or hinders: the ally an ``aid_another`` aids (+2 on its next
    #: check), the creature a ``distraction`` distracts (-2 on its next), the object broken
    target: str | None = None
    #: the check took 10 (``natural`` is 10; no die was thrown, ruling R81)
    took_10: bool = False
    hidden: bool = False


class AttackResolved(Event, tag="attack_resolved", kw_only=True):
    """An attack roll against a defense: every modifier itemised, the defense with its parts,
    and the outcome ("MLP Dramatic Systems", ATTACK ROLL; critical hits and automatic misses,
    ruling R44). Players and spectators do not see the numbers of an NPC's roll (unless the GM
    rolls in the open) nor an NPC's defense; they see the modifiers and the outcome."""

    round: int
    attacker: str
    target: str
    action: str
    weapon: str | None = None
    #: "Action Time": ``defense`` (the one Defense, R29), and ``die`` the attack die rolled
    defense: Literal["reflex", "fortitude", "will", "wits", "defense"] = "reflex"
    die: str | None = None
    natural: int | None
    modifiers: list[Modifier] = []
    total: int | None
    defense_value: int | None
    defense_parts: list[Modifier] | None = None
    outcome: Literal["hit", "critical", "miss", "automatic_miss"]
    #: an NPC's roll behind the GM's screen / an NPC's defense: shown to the GM only
    roll_secret: bool = False
    defense_secret: bool = False
    hidden: bool = False


class DamageDealt(Event, tag="damage_dealt", kw_only=True):
    """Fatigue loss (Health in "Action Time", R29) from a hit or a hazard (DAMAGE; DAMAGE
    REDUCTION; rulings R12, R13), its fields adding up, no die counted twice: ``rolled`` (the
    faces of every die of ``dice`` added) + the ``bonuses`` (flat amounts), doubled on a
    ``critical`` hit, halved (rounded down) when ``halved``, at least 1 (but a fall, R22), is
    ``before_reduction``; less ``reduction``, the damage reduction that most benefits the
    target, it is ``loss``, what the target loses. ``dice_parts`` ("Action Time") itemises
    what changed the weapon's die and what was rolled beside it: the upgrades and downgrades
    that made the damage die (the first term of ``dice``) and the extra dice of talents and
    spells (in ``dice`` and ``rolled`` already: not to be added again). It does not list the
    weapon's own die: that is the ``damage`` of the weapon ``attack_resolved.weapon`` names,
    in the attacker's stat block (``stats.weapons`` of its entry in a snapshot's
    ``combatants``: the GM's, and a player's for its own combatants); anyone else can take the
    first term of ``dice`` back down the die ladder by the steps counted in ``dice_parts``,
    unless an end of the ladder stopped them (R30). A ``vitals_changed`` event with the
    consequences follows."""

    target: str
    source: str | None = None
    damage: Literal["physical", "mental"] = "physical"
    types: list[str] = []
    #: every die rolled (``"2d6"``; "Action Time": the damage die, then each extra die)
    dice: str
    #: the faces of every die of ``dice``, added
    rolled: int | None
    #: flat amounts added to ``rolled`` (Strength modifier, one-half heroic level, effects;
    #: "Action Time": only what R30's ``"modifier"`` option adds beyond the die ladder's end)
    bonuses: list[Modifier] = []
    critical: bool = False
    halved: bool = False
    before_reduction: int | None
    reduction: int | None = 0
    reduction_label: str | None = None
    loss: int
    #: "Action Time": the upgrades and downgrades of the weapon's die (``value``: its steps,
    #: R30, R61) and each extra die of a talent or spell (``value``: its face, R95) — not the
    #: weapon's own die (its stat block's ``weapons[].damage``); ``null`` where ``rolled`` is
    #: (behind the GM's screen)
    dice_parts: list[Modifier] | None = []
    #: the dice were rolled behind the GM's screen: others see the loss, not the roll
    dice_secret: bool = False
    hidden: bool = False


class VitalsChanged(Event, tag="vitals_changed", kw_only=True):
    """A combatant's fatigue points, condition tracks, consciousness or stance changed; the
    event carries the new values (``fatigue`` is ``null`` for viewers who may not see an NPC's
    fatigue points) and ``notes`` say why, rule by rule. ``condition`` is the configuration of
    the combatant's condition chart: ``["active", "fit"]``, ``["active", "defenseless"]`` (0
    fatigue points), ``["unconscious", "awaiting_check"]``, ``["unconscious",
    "out_for_scene"]``, ``["dead"]`` or ``["destroyed"]``. ``helpless``: the HELPLESS
    CONDITION as attacks read it — bound or asleep (``bound_or_asleep``, the GM's
    ``adjust_combatant.helpless``), unconscious, or at the bottom of a condition track.
    ``check_round``: the round of the next Constitution check of an unconscious combatant
    (R16)."""

    combatant: str
    cause: str
    fatigue: int | None
    fatigue_max: int | None
    physical: Track
    mental: Track | None = None
    condition: list[str]
    prone: bool = False
    helpless: bool = False
    #: Absent (``null``) in logs written before it was added; ``helpless`` then held it.
    bound_or_asleep: bool | None = None
    check_round: int | None = None
    structure_loss: int = 0
    notes: list[str] = []
    #: an NPC's fatigue points: shown to the GM only
    fatigue_secret: bool = False
    hidden: bool = False


class Harvested(Event, tag="harvested", kw_only=True):
    """A harvest roll after a successful Profession check (STANDARD ACTIONS: Harvest; R54):
    the dice, the check's bonus (+1 per 5 over the DC), doubling after a natural 20, damage
    reduction, and the ``resources`` gained (one unit per point)."""

    combatant: str
    target: str | None = None
    resource: str
    dice: str
    rolled: int
    bonus: int
    doubled: bool = False
    reduction: int = 0
    resources: int
    hidden: bool = False


class ArgumentChanged(Event, tag="argument_changed", kw_only=True):
    """A statement (argument) of ``combatant`` was sized by the GM, shrank with use or in a
    Conversation, or came from a caught lie (STATEMENTS; R27, R28, R48). ``size`` ``null``: spent,
    it cannot be used again."""

    argument: str
    combatant: str
    size: str | None
    text: str = ""
    perilous: bool = False
    reason: str = ""
    hidden: bool = False


class AttitudeChanged(Event, tag="attitude_changed", kw_only=True):
    """``holder``'s attitude toward ``toward`` (hostile, unfriendly, indifferent, friendly,
    helpful; R25), set by the GM or moved by a Dispute or a caught lie (R26, R28)."""

    holder: str
    toward: str
    attitude: str
    reason: str = ""
    hidden: bool = False


class BlockingChanged(Event, tag="blocking_changed", kw_only=True):
    """A combatant withdraws from the discussion (Blocking: +5 Wits Defense against every social
    maneuver, no arguments of its own) or returns to it (R49)."""

    combatant: str
    blocking: bool
    hidden: bool = False


class StatementHit(Event, tag="statement_hit", kw_only=True):
    """A Dispute's statement hit ``target`` for ``loss`` mental fatigue points: its controller
    answers (``answer_statement``: accept, accept_with_reservation, refuse); no answer before its
    next turn refuses (R48)."""

    statement: str
    speaker: str
    target: str
    loss: int
    hidden: bool = False


class StatementAnswered(Event, tag="statement_answered", kw_only=True):
    """The target answered a statement (R48): ``loss`` is what it lost now, ``recorded`` the
    loss kept for a reservation (half of it applies if the GM rules the doubt unfounded)."""

    statement: str
    target: str
    answer: Literal["accept", "accept_with_reservation", "refuse"]
    loss: int
    recorded: int = 0
    hidden: bool = False


class DoubtRuled(Event, tag="doubt_ruled", kw_only=True):
    """The GM ruled on a statement accepted with reservation (``rule_doubt``; R48): the doubt
    ``unfounded`` or not; ``loss`` is what the target loses for it now (half the recorded loss,
    rounded down, or 0). A ``vitals_changed`` event follows a loss."""

    statement: str
    target: str
    unfounded: bool
    loss: int
    hidden: bool = False


class DebateEnded(Event, tag="debate_ended", kw_only=True):
    """An attitude reached Unfriendly or lower: no further Dispute or Conversation in this
    scene (R26)."""

    reason: str


class LieTold(Event, tag="lie_told", kw_only=True):
    """A lie against an Empathy check (Creating a Lie; R28): believed, or caught (then each
    target holds a statement against the liar, and attitudes drop unless it was a white
    lie)."""

    liar: str
    targets: list[str]
    size: str
    white: bool = False
    deception_total: int | None
    empathy_total: int | None
    judge: str
    believed: bool
    hidden: bool = False


class SocialEventSet(Event, tag="social_event_set", kw_only=True):
    """The social event of the scene (``rating: null``: none), with its Event Rating's parts
    (SOCIAL EVENTS; R25, R71). A hidden ``organizer`` is shown to the GM only."""

    rating: int | None
    parts: list[Modifier] = []
    organizer: str | None = None
    organizer_hidden: bool = False
    circle: str | None = None
    topic: str | None = None
    encounter: int = 1
    last: bool = True
    challenge_rating: int | None = None


class StatusBoostEarned(Event, tag="status_boost_earned", kw_only=True):
    """At the end of a qualifying event a character's temporary status in its circle rises
    (SOCIAL EVENTS; R25, R70): ``bonus`` is the boost now (at most half the unmodified status;
    it decays a point a week). The GM carries it into the stat block's ``social.temporary``."""

    combatant: str
    circle: str
    bonus: int
    hidden: bool = False


class SocialSituationSet(Event, tag="social_situation_set", kw_only=True):
    """A combatant's situation at the event (R70, R72): the GM's answers to the tables."""

    combatant: str
    familiarity: str = "known"
    race: str = "prevailing"
    subject_rank: int | None = None
    invitation: bool | None = None
    knows_host: bool = False
    knows_most: bool = False
    attire: str = "ordinary"
    hidden: bool = False


class AuraPointsChanged(Event, tag="aura_points_changed", kw_only=True):
    """A combatant's Aura of Harmony or Discord gave a point (SOCIAL ACCESS RATING; R73):
    ``harmony`` and ``discord`` are the points it holds now."""

    combatant: str
    harmony: int
    discord: int
    reason: str
    hidden: bool = False


class ObjectLoaded(Event, tag="object_loaded", kw_only=True):
    """An object supports ``weight`` from ``round`` and ``count`` on (Breaking an Object:
    Strength); 0: the load is off."""

    combatant: str
    weight: float
    round: int
    count: int
    hidden: bool = False


class GrabChanged(Event, tag="grab_changed", kw_only=True):
    """``grabber`` holds ``target`` (``held: true``: -2 on all its skill rolls, and it cannot
    move) or lets go (the grab broken, or the grabber out of the fight) (STANDARD ACTIONS:
    Grab; R55)."""

    grabber: str
    target: str
    held: bool
    hidden: bool = False


class MapSet(Event, tag="map_set", kw_only=True):
    """The encounter's battle map (``null``: none; the GM states ranges, cover and
    concealment with each attack)."""

    map: BattleMap | None


class CombatantPlaced(Event, tag="combatant_placed", kw_only=True):
    """A combatant was put on the map (``at``: the top-left square of its space) or taken off
    (``null``) by the GM."""

    combatant: str
    at: Square | None
    hidden: bool = False


class CombatantMoved(Event, tag="combatant_moved", kw_only=True):
    """A combatant moved along ``path`` (the squares entered, in order), spending ``cost`` of
    the ``budget`` squares its move allowed (MOVE ACTIONS: Move, FULL-ROUND ACTIONS: Run;
    DIAGONAL MOVEMENT, DIFFICULT TERRAIN; rulings R19-R21, R68, R78). ``falls``: the path ends
    in a pit (R66; the GM resolves the fall)."""

    combatant: str
    path: list[Square]
    cost: int
    budget: int
    #: ``fly``: with the fly speed; the combatant is in the air until it moves otherwise
    #: (ruling R83). Off the battle map ``path`` is empty.
    mode: Literal["move", "run", "crawl", "fly"] = "move"
    falls: bool = False
    hidden: bool = False
    #: The effects that changed the speed behind ``budget``, itemised by name and amount as an
    #: attack's ``modifiers`` are (SPEED, rulings R90, R92); empty when none did.
    speed_modifiers: list[Modifier] = []


class GmRuling(Event, tag="gm_ruling", kw_only=True):
    """The GM adjudicated an action or overrode a value, with a reason (audited). ``changes``
    lists what was set (``{"field": "fatigue", "value": 3}``); the consequences follow as
    their own events. ``fatigue_secret``: the combatant's fatigue points (Health) are behind
    the GM's screen (an NPC's): a viewer that does not control it gets ``changes`` without the
    ``fatigue`` and ``fatigue_max`` entries, as its ``vitals_changed`` comes without the points
    (ruling R105; added in protocol 1.6, before which they were shown)."""

    combatant: str | None = None
    ruling: Literal["adjudicated", "override"]
    description: str
    reason: str | None = None
    changes: list[dict[str, Any]] = []
    hidden: bool = False
    fatigue_secret: bool = False


class EncounterEnded(Event, tag="encounter_ended", kw_only=True):
    """The scene is over: pending rolls are dropped, and the only command still accepted is
    ``revoke_token``."""

    reason: str | None = None


# --- Action Time (rulings R29-R39, R51, R60-R62) ------------------------------------------------


class AtEffectStarted(Event, tag="at_effect_started", kw_only=True):
    """"Action Time": a lasting modifier begins (Defend, Guard Up, Aim, All-Out Attack's
    penalty, Stand Firm, Press the Attack, and the marks "struck in melee this turn" and
    "healed"). ``effect.holder`` holds it; ``target`` is what it modifies (``defense``,
    ``test_steps``, ``attack_steps``, ``damage_steps``, ``stand_firm``, ``pursuit``, ``struck``,
    ``healed``); ``source_kind`` and ``source`` are its identity for the stacking rule (R61);
    ``expiry`` says when it ends (``end_of_round``, ``start_of_next_turn:<id>``, ``next_action``,
    ``until_removed``). An earlier instance of the very same thing from the same ``origin`` on
    the same holder is replaced (R51)."""

    effect: AtEffect
    hidden: bool = False
    #: ``effect.origin`` is a hidden combatant (a heal's mark): players and spectators get
    #: ``origin: ""``
    origin_hidden: bool = False


class AtEffectEnded(Event, tag="at_effect_ended", kw_only=True):
    """"Action Time": an effect ended: at the start of a turn, at the end of the round, used up
    (Aim, a pursuit), cleared by damage (the healed mark, R33) or by falling to 0 Health."""

    effect: AtEffect
    reason: Literal["turn_start", "round_end", "used", "damage", "out_of_fight"]
    hidden: bool = False
    origin_hidden: bool = False


class AtMoved(Event, tag="at_moved", kw_only=True):
    """"Action Time": a combatant moved ``yards`` of at most ``max_yards`` (Move, Run, Charge,
    a pursuit, a Skirmish stunt), with the reason for the limit. The server keeps no map: the
    mover declares whom it moves ``away_from`` (Press the Attack, R37)."""

    combatant: str
    action: str
    yards: int
    max_yards: int
    reason: str
    away_from: list[str] = []
    hidden: bool = False


class ItemsReadied(Event, tag="items_readied", kw_only=True):
    """"Action Time", Ready: an item drawn and/or one stowed; ``in_hoof`` is what the combatant
    now holds (weapons by name, ``bandages``)."""

    combatant: str
    drawn: str | None = None
    stowed: str | None = None
    in_hoof: list[str]
    hidden: bool = False


AnyEvent = (
    EncounterCreated
    | CombatantAdded
    | CombatantRemoved
    | CombatantRevealed
    | CombatantConcealed
    | OptionsChanged
    | RulesetEvent
    | TokenIssued
    | TokenRevoked
    | RollRequested
    | DiceRolled
    | DiceCommitted
    | DiceEntropyAdded
    | DiceRevealed
    | DiceRenewed
    | InitiativeSet
    | CombatantJoined
    | AwarenessSet
    | SceneStarted
    | FlatFooted
    | RoundStarted
    | TurnStarted
    | TurnEnded
    | ScreenMoved
    | CommandsUndone
    | UndoRequested
    | UndoRefused
    | TurnTimerStarted
    | TurnTimerWarned
    | TurnTimerPaused
    | TurnTimerResumed
    | TurnTimerExpired
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
    | CheckMade
    | AttackResolved
    | DamageDealt
    | VitalsChanged
    | GrabChanged
    | ObjectLoaded
    | ArgumentChanged
    | AttitudeChanged
    | BlockingChanged
    | StatementHit
    | StatementAnswered
    | DoubtRuled
    | DebateEnded
    | LieTold
    | SocialEventSet
    | SocialSituationSet
    | StatusBoostEarned
    | AuraPointsChanged
    | Harvested
    | MapSet
    | CombatantPlaced
    | CombatantMoved
    | GmRuling
    | EncounterEnded
    | AtEffectStarted
    | AtEffectEnded
    | AtMoved
    | ItemsReadied
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
    #: The time the table's record gives the event, when not ``ts``: an event of a command
    #: decided while the GM's screen held the table (``encounter.screen``) carries the ``ts``
    #: of the command that began the hold, which the table is shown for every event it was
    #: held from (ruling R96.6).
    told_ts: int | None = None
