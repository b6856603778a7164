"""Every message of the protocol, client -> server and server -> client.

Each message is a JSON object tagged by ``type``. Client commands carry an ``id`` of the
client's choosing; the server answers each with exactly one ``ack`` or ``error`` naming that id.
Retrying a command with the same id returns the first outcome and changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.campaign import CampaignView
from protocol.errors import ErrorCode
from protocol.events import AnyEvent, Role
from protocol.model import BattleMap, EncounterOptions, RulesetName, Scope, Square, StatBlock
from protocol.summary import Summary
from rules.effects import Duration, EffectModifier, Kind

CommandId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
TurnId = Annotated[str, msgspec.Meta(min_length=1, max_length=40,
                                     description="A `legal_actions.turn_id`.")]
CombatantRef = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
Label = Annotated[str, msgspec.Meta(max_length=80)]


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    """Base of every client -> server message."""


class Command(ClientMessage):
    """Base of every command: a message with a client-chosen ``id``. ``expect_turn``, when
    given, is the ``turn_id`` of the ``legal_actions`` the command was meant for: if the turn
    has changed since (it ended, was interrupted or resumed), the command is refused with
    ``stale`` and changes nothing. Without it a command applies to whatever turn is current.
    (``create_encounter`` and ``ping`` have no turn: they ignore it.)"""

    id: CommandId
    expect_turn: TurnId | None = None


# --- connection -----------------------------------------------------------------------------


Digest = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
FeatureName = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
#: A resume cursor: opaque (today 22 characters of URL-safe base64; a server checks the one
#: a client sends back, ``server.cursor``).
Cursor = Annotated[str, msgspec.Meta(
    min_length=1, max_length=64,
    description="A place in the encounter's log as this connection was told it: opaque (compare "
                "it, do not parse it); send the last one held as `hello.cursor` to resume.")]

#: The features of ``hello.features`` this server knows: one websocket message per command
#: (``batch``), the legal actions as deltas (``legal_delta``), positions as opaque cursors
#: instead of seqs (``cursor``), the state kept in step (``view``), every event in words
#: (``summaries``), who is connected (``presence``).
FEATURES: tuple[str, ...] = ("batch", "legal_delta", "cursor", "view", "summaries", "presence",
                             "legal_changed", "batch_head", "legal_recall", "lean_events")


class Replay(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A replay of the encounter (``hello.replay``): from the start of round ``from_round`` (0:
    the whole story, from the encounter's creation), at ``speed`` times the pace it was played
    at (a pause longer than ``max_pause`` seconds, once sped up, is cut to it)."""

    speed: Annotated[float, msgspec.Meta(gt=0, le=1000)] = 1.0
    from_round: Annotated[int, msgspec.Meta(ge=0)] = 0
    max_pause: Annotated[float, msgspec.Meta(ge=0, le=600)] = 5.0


class Hello(ClientMessage, tag="hello", kw_only=True):
    """First message on a connection. ``versions`` lists the protocol versions the client
    speaks. ``token`` authenticates (omit it only to call ``create_encounter`` at once: such a
    connection that has created no encounter by the hello deadline is closed). ``since`` is
    the last ``seq`` the client has seen: the server then sends exactly the events after it, or
    a ``snapshot`` when it cannot; without ``since`` the client gets a ``snapshot``. ``digest``
    is the ``digest`` of that event (or snapshot): when the log no longer holds it at that seq
    (the server lost the end of the log and it has grown again since), the answer is a
    ``snapshot`` with reason ``rewound``.
    ``features`` asks for optional behaviour of the connection (the ``welcome`` lists those
    granted; names the server does not know are ignored): ``batch``, one websocket message per
    command per connection (a ``batch`` holding the events the command caused, the new legal
    actions and the ack, in that order); ``legal_delta``, the legal actions as a
    ``legal_actions_delta`` against the connection's previous list (a full ``legal_actions``
    still comes after every snapshot, and on ``get_legal_actions``); ``cursor``, every
    position (of an event, a snapshot, legal actions, an ack) as an opaque ``cursor`` instead
    of a ``seq`` and ``digest``, which count the events behind the GM's screen; ``view``, the
    state this viewer may see kept in step by the server: after the events of each change, a
    ``view`` message patches the state the connection holds (the snapshot's ``state``), so
    the client never works a state out of events (``view`` brings ``batch`` with it, so that
    the events and the patch of one change arrive together); ``summaries``, every ``event``
    message (live, replayed on resuming, in a ``history``) with a ``summary``: the event in
    words for people, with its numbers itemised, made from the event as this viewer receives
    it; ``legal_changed`` (protocol 1.11), legal actions only when this connection's actions
    change, not when only the turn does (always after a snapshot, on a resume and on
    ``get_legal_actions``): its ``expect_turn`` is the ``turn_id`` of the last legal actions it
    was sent, which the server holds for the current turn as long as it has sent it no other;
    ``batch_head`` (protocol 1.11; brings ``batch``), what the messages of a change would each
    repeat said once: ``encounter`` left out (the connection's, as its ``welcome`` says), the
    events' ``ts`` and the position the change brings the connection to said by their
    ``batch`` (see ``batch``); ``legal_recall`` (protocol 1.11; brings ``legal_delta``), a
    delta may name entries by reference to what the connection recalls of a combatant:
    ``[start, count, combatant]``, and names no base (see ``legal_actions_delta``);
    ``lean_events`` (protocol 1.11; only with ``view`` and ``summaries``), events that say only
    what the view and their summary do not: their kind, required fields and the ids of the
    combatants they are about (the dice, roll requests and undo go whole).
    Without them a connection gets one websocket message per server message, full lists
    and seqs, and events without words.
    ``cursor`` resumes from a cursor (the last one the connection was given, with or without
    the ``cursor`` feature on the new connection), in place of ``since`` and ``digest``.
    ``replay`` makes the connection a replay of the encounter for this credential (running or
    ended): a ``snapshot`` (reason ``replay``) as of the round it starts from, then the events
    after it as this credential received them live, at the pace they came (with ``view``, the
    patches too), and ``replay_ended``; such a connection only watches (commands other than
    ``ping`` are refused) and never joins the live encounter. Not with ``since`` or ``cursor``.
    A spectator may instead put its token in the URL: ``/ws?spectate=<token>``, with
    ``&features=batch,legal_delta`` for the features."""

    versions: Annotated[list[int], msgspec.Meta(min_length=1, max_length=16)]
    token: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    since: Annotated[int, msgspec.Meta(ge=0)] | None = None
    digest: Digest | None = None
    cursor: Cursor | None = None
    client: Label | None = None
    features: Annotated[list[FeatureName], msgspec.Meta(max_length=16)] = []
    replay: Replay | None = None


class Ping(Command, tag="ping", kw_only=True):
    """Answered by an ``ack`` (``seq: null``, empty ``result``); measures round-trip time.
    Allowed after a ``hello`` without a token."""


class GetSnapshot(Command, tag="get_snapshot", kw_only=True):
    """Send this connection's ``snapshot`` again (reason ``asked``, before the ``ack``): the
    encounter as this viewer may see it now. With the ``view`` feature the patches that follow
    apply to it."""


class GetHistory(Command, tag="get_history", kw_only=True):
    """The events this viewer may see before ``before`` (a position it was given: an event's
    ``seq``, or with the ``cursor`` feature its ``cursor``; none: everything it has been told
    so far), at most ``limit`` of them, the latest ones: a ``history`` message (before the
    ``ack``) holding them as the ``event`` messages it received live, redacted alike. Page back
    with the ``before`` of the answer."""

    before: Annotated[int, msgspec.Meta(ge=1)] | Cursor | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=500)] = 100


class GetLegalActions(Command, tag="get_legal_actions", kw_only=True):
    """Send this connection's legal actions again, as a full ``legal_actions`` (before the
    ``ack``), whatever it got before: a client whose list went wrong (a
    ``legal_actions_delta`` whose ``base`` is not the list it holds) starts again from it."""


class GetReach(Command, tag="get_reach", kw_only=True):
    """Where ``combatant`` can go now with ``action`` (``move``, or ``run``; ``fly``: a
    flying move, R83), worked out by the rules that check the move (ruling R106): answered by
    an ``ack`` whose ``result`` has ``combatant``, ``action``, ``fly``, ``from`` (its square),
    ``budget`` (the squares the move may spend) and ``squares``, each square it can end on as
    ``{"at": [x, y], "cost": <squares spent>, "path": [[x, y], ...]}`` with the cheapest path
    to it, which ``act`` accepts as its ``args.path``. Refused (``illegal_action``) unless the
    action is among the connection's legal actions for the combatant now, and when it stands
    on no map (or its ruleset keeps none, R103). Added in protocol 1.6."""

    combatant: CombatantRef
    action: Literal["move", "run"] = "move"
    fly: bool = False


class GetAim(Command, tag="get_aim", kw_only=True):
    """What the battle map says of each target of ``action`` by ``combatant`` now, before it is
    taken (ruling R107): answered by an ``ack`` whose ``result`` has ``combatant``, ``action``
    and ``targets``, one entry for each target its legal-action entry lists, in its order:
    ``{"target": <id>, "ok": true, "distance": <squares>, "cover": ..., "concealment": ...,
    "into_melee": <bool>}`` when ``act`` would take it at that target with ``args`` (the
    action's other arguments: a weapon, ``throw``), or ``{"target": <id>, "ok": false, "why":
    <the sentence act would answer>}`` when it would refuse it for where they stand (out of
    reach, no line of effect, beyond the weapon's range). ``distance`` is ``null`` for a melee
    attack; every field but ``target`` and ``ok`` is left out while either of them stands on
    no map. Refused (``illegal_action``) unless the action is among the connection's legal
    actions for the combatant now and aims at a target by the map (Dramatic: ``attack`` and
    ``grab``); ``invalid_payload`` for ``args`` the action refuses. Added in protocol 1.7."""

    combatant: CombatantRef
    action: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    args: dict[str, Any] = {}


class Undo(Command, tag="undo", kw_only=True):
    """Take back commands (the GM's; ruling R108): every command after ``back_to`` (a seq at
    which a command ended; none: the last command, so that undo after undo goes back one
    command at a time), or the one a player asked for (``request``, an ``undo_requested``'s).
    Appends ``commands_undone``: the events taken back stay in the log, marked, and the
    encounter is as it was at ``back_to`` but for the credentials and the server's dice,
    which roll on (what is done again rolls again). Refused while a hidden combatant's turn
    runs that the table has not been told of, back into one, back before the scene was
    created, and after the encounter ended. Added in protocol 1.7."""

    back_to: Annotated[int, msgspec.Meta(ge=1)] | None = None
    request: Annotated[str, msgspec.Meta(min_length=1, max_length=80)] | None = None
    reason: Label | None = None


class RequestUndo(Command, tag="request_undo", kw_only=True):
    """Ask the GM to take back ``combatant``'s last action (a player's, for a combatant it
    controls; ruling R108): only while that action is the encounter's last command. Appends
    ``undo_requested``, which the GM grants (``undo`` with ``request``) or refuses
    (``refuse_undo``). Listed in ``legal_actions`` while it may be sent. Added in protocol
    1.7."""

    combatant: CombatantRef
    reason: Label | None = None


class RefuseUndo(Command, tag="refuse_undo", kw_only=True):
    """Refuse a player's request to undo (the GM's; ruling R108). Added in protocol 1.7."""

    request: Annotated[str, msgspec.Meta(min_length=1, max_length=80)]
    reason: Label | None = None


# --- encounter setup (GM) -------------------------------------------------------------------


class CreateEncounter(Command, tag="create_encounter", kw_only=True):
    """Create an encounter. The ``ack`` result holds ``encounter`` and ``gm_token``. Because a
    retry returns the same GM token, the ``id`` of this command must be at least 16 characters
    (use a UUID). ``creator_secret``: on a server that creates encounters only for holders of
    a creator secret (its operator's choice), that secret; without it (or with another) the
    create is refused with ``unauthenticated`` (``details.creator_secret``: ``missing`` or
    ``wrong``). Creates are counted per client address and per creator secret; past the
    server's quota they get ``quota_exceeded``."""

    id: Annotated[str, msgspec.Meta(min_length=16, max_length=64)]
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=120)]
    ruleset: RulesetName = "dramatic"
    combatants: Annotated[list[StatBlock], msgspec.Meta(max_length=200)] = []
    combatants_yaml: Annotated[str, msgspec.Meta(max_length=200_000)] | None = None
    options: EncounterOptions = EncounterOptions()
    map: BattleMap | None = None
    creator_secret: Annotated[str, msgspec.Meta(
        min_length=1, max_length=200,
        description="The server's creator secret, where its operator set one (leave it out "
                    "otherwise); never stored nor sent back.")] | None = None


class AddCombatant(Command, tag="add_combatant", kw_only=True):
    """Add a combatant (GM); once the scene has begun it rolls initiative and takes its place
    in the existing order: in "MLP Dramatic Systems" at once, acting this round if its place
    is still to come (JOINING A DRAMATIC SCENE, R43), in "Action Time" when the next round
    starts (R32; at once with ``action_time_join_immediately``). Its ``stats`` are those of
    the encounter's ruleset. Result: ``combatant`` (its id)."""

    combatant: StatBlock


class RemoveCombatant(Command, tag="remove_combatant", kw_only=True):
    """Remove a combatant from the encounter (GM). When it is the combatant's turn, that turn
    ends first (and the next combatant's begins, if anyone is left). Its own pending rolls go
    with it, and so do the statements it made or was told that wait for an answer or for the
    GM's ruling on a reservation (``answers``, ``reservations``); while another's roll that
    concerns it is pending (an attack on it waiting for dice), the removal is refused
    (``illegal_action``): settle the roll first."""

    combatant: CombatantRef


class SetHidden(Command, tag="set_hidden", kw_only=True):
    """Reveal (``hidden: false``) or hide a combatant from players and spectators."""

    combatant: CombatantRef
    hidden: bool


class SetOptions(Command, tag="set_options", kw_only=True):
    """Replace the encounter's options (GM). Every option is set: one left out takes its
    default."""

    options: EncounterOptions


#: ``expires_in`` of the ``issue_*`` commands: whole seconds, at most ten years.
ExpiresIn = Annotated[int, msgspec.Meta(ge=1, le=10 * 365 * 24 * 3600)]


class IssueInvite(Command, tag="issue_invite", kw_only=True):
    """A player credential bound to these combatants (GM). Result: ``token``, ``token_id``,
    ``role`` (``player``). With ``expires_in`` (seconds) the credential expires then: it is
    refused at ``hello`` and its connections are closed (4001); the result's ``expires_at``
    says when (milliseconds since the epoch, server time)."""

    combatants: Annotated[list[CombatantRef], msgspec.Meta(min_length=1, max_length=20)]
    label: Label | None = None
    expires_in: ExpiresIn | None = None


class IssueSpectatorLink(Command, tag="issue_spectator_link", kw_only=True):
    """A read-only credential that may ride in an overlay URL (GM). Result: ``token``,
    ``token_id``, ``role`` (``spectator``), ``path`` (``/ws?spectate=<token>``). With
    ``expires_in`` (seconds) the link expires then, as an invite does (``expires_at``)."""

    label: Label | None = None
    expires_in: ExpiresIn | None = None


class IssueIntegrationToken(Command, tag="issue_integration_token", kw_only=True):
    """A credential for a VTT or bot with explicit scopes (GM). Result: ``token``,
    ``token_id``, ``role`` (``integration``). With ``expires_in`` (seconds) it expires then,
    as an invite does (``expires_at``)."""

    scopes: Annotated[list[Scope], msgspec.Meta(min_length=1, max_length=5)]
    label: Label | None = None
    expires_in: ExpiresIn | None = None


class RevokeToken(Command, tag="revoke_token", kw_only=True):
    """Revoke a credential (GM); its open connections are closed (4001) on every process. A
    credential cannot revoke itself."""

    token_id: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]


# --- the scene ------------------------------------------------------------------------------


class StartEncounter(Command, tag="start_encounter", kw_only=True):
    """Roll initiative for everyone and begin round 1 (COMBAT SEQUENCE, step 2)."""


class SetAwareness(Command, tag="set_awareness", kw_only=True):
    """Before the scene starts: whether a combatant is aware of its opponents (AWARENESS AND
    SURPRISE; a surprise round happens when some but not all are aware, ruling R1). During
    the scene: whether it is aware of the attacks made on it (R82)."""

    combatant: CombatantRef
    aware: bool


class CallPerception(Command, tag="call_perception", kw_only=True):
    """Perception checks (1d20 + ``stats.perception``) for these combatants (all when empty),
    before the scene or during it (ruling R82); each combatant's dice, physical ones asked for
    (R80). With ``dc``, each becomes aware when its check meets the DC (before the scene: of
    its opponents, R42; during it: of the attacks it tries to notice), unaware when it does
    not; without, the GM reads the results (``check_made``). ``concealment``: what they try to
    notice is concealed (-5) or totally concealed (-10) (CONCEALMENT). Noticing is a
    sight-based check (ruling R67.5): against total concealment it is made, at -10."""

    combatants: Annotated[list[CombatantRef], msgspec.Meta(max_length=200)] = []
    dc: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    concealment: Literal["none", "concealment", "total"] = "none"
    #: take 10: each check counts a 10 on the d20, and no die is thrown (ruling R81)
    take_10: bool = False


class AddEffect(Command, tag="add_effect", kw_only=True):
    """An effect on ``combatant`` (none: a note on the scene). ``until`` says how long it lasts
    (ruling R90): ``rounds`` (the default) ``rounds`` rounds from the current turn's initiative
    count, ending just before that count ``rounds`` rounds later (THE COMBAT ROUND);
    ``start_of_next_turn`` of the combatant holding it; ``end_of_round``; ``scene``; ``ended``
    (until ``end_effect``). ``modifiers`` are what it changes, each a target the ruleset lists
    (docs/actions.md, "Effects") and an amount; they count in every later computation, stacked
    by the ruleset's rule (R91, R92), and the itemised modifiers of every result name the
    effect. ``source`` is the thing it comes from (default: ``name``) and ``source_kind`` what
    sort of thing that is: the stacking rules read them (two Champions' Rally: one source, counted
    once). ``origin``: the combatant whose talent, spell or action it is."""

    name: Label
    rounds: Annotated[int, msgspec.Meta(ge=1, le=1000)] | None = None
    combatant: CombatantRef | None = None
    until: Duration = "rounds"
    modifiers: Annotated[list[EffectModifier], msgspec.Meta(max_length=20)] = []
    source: Label | None = None
    source_kind: Kind = "gm"
    origin: CombatantRef | None = None


class EndEffect(Command, tag="end_effect", kw_only=True):
    """End an effect before its time (the id from its ``effect_started`` event)."""

    effect: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]


Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
TrackStep = Annotated[int, msgspec.Meta(ge=0, le=5)]


class AdjustCombatant(Command, tag="adjust_combatant", kw_only=True):
    """Override a combatant's values (GM), with a ``reason`` that everyone who sees the
    combatant sees (audited as a ``gm_ruling``). Fields left out are unchanged. ``condition``
    sets consciousness directly (``unconscious`` makes it prone; ``conscious`` revives an
    unconscious combatant, never a dead one). Steps count down the track, 0 (normal) to 5
    (rulings R15, R17; ``*_crippling`` clears or sets crippling steps, R14.4); a step of 5
    makes a conscious creature unconscious and prone (its Constitution check to come, R16) and
    an object destroyed, unless ``condition`` is given, which wins (R15). ``helpless``:
    bound or asleep (HELPLESS CONDITION; the vitals' ``bound_or_asleep``: an unconscious
    combatant, or one at the bottom of a track, stays helpless whatever this says). A ruleset
    without some of these values refuses them (``invalid_payload``, ``details.allowed`` naming
    the values it has): Action Time's combatants have ``fatigue`` (their Health),
    ``fatigue_max``, ``prone`` and ``condition``."""

    combatant: CombatantRef
    reason: Reason
    fatigue: Annotated[int, msgspec.Meta(ge=0, le=100_000)] | None = None
    fatigue_max: Annotated[int, msgspec.Meta(ge=1, le=100_000)] | None = None
    physical_step: TrackStep | None = None
    physical_persistent: TrackStep | None = None
    physical_crippling: TrackStep | None = None
    mental_step: TrackStep | None = None
    mental_persistent: TrackStep | None = None
    mental_crippling: TrackStep | None = None
    prone: bool | None = None
    helpless: bool | None = None
    condition: Literal["conscious", "unconscious", "dead", "destroyed"] | None = None


class SetMap(Command, tag="set_map", kw_only=True):
    """Give the encounter a battle map, replace it, or (``map: null``) take it away (GM).
    Squares of 1.5 m; see ``BattleMap`` for walls, low objects, difficult terrain, fog and
    darkness. Combatants keep their positions; one that no longer fits is taken off the map."""

    map: BattleMap | None


class PlaceCombatant(Command, tag="place_combatant", kw_only=True):
    """Put a combatant on the battle map with the top-left square of its space at ``at``, or
    take it off (``at: null``) (GM)."""

    combatant: CombatantRef
    at: Square | None


class Fall(Command, tag="fall", kw_only=True):
    """A combatant falls ``meters`` (GM): Acrobatics first if it is trained, then 1d20+20
    against its Fortitude Defense for full or half damage, and it lands prone (Flying: Falling
    Damage; ruling R22). The faller's dice, physical ones asked for stage by stage (R80); one
    untrained in Acrobatics makes no Acrobatics check (R84). A fall that counts under 3 m
    deals no damage and rolls no falling roll (R98)."""

    combatant: CombatantRef
    meters: Annotated[float, msgspec.Meta(gt=0, le=1000, description=(
        "How far it falls, more than 0: a fall of 0 m is no fall (R98)."),
        extra_json_schema={"x-unit": "meters"})]


class Collide(Command, tag="collide", kw_only=True):
    """Two movers run into each other (GM): no roll to hit; each takes both speeds + the other's
    Strength modifier + the other's size damage (Flying Basic Maneuver: Collision; R23). A
    side flying (``first_flying``, ``second_flying``, or in the air after a flying move)
    counts its fly speed (R83). The size damage is the other side's dice, physical ones asked
    for (R80)."""

    first: CombatantRef
    second: CombatantRef
    first_flying: bool = False
    second_flying: bool = False


class LoadObject(Command, tag="load_object", kw_only=True):
    """An object now supports ``weight`` (in the unit of its stat block's ``load_limit``; 0
    takes the load off) (GM). Beyond its heavy load it moves a step down the track at once and
    again each round on the same initiative count; beyond twice its heavy load it is destroyed
    (Breaking an Object: Strength; R15)."""

    combatant: CombatantRef
    weight: Annotated[float, msgspec.Meta(ge=0, le=1e9)]


class SizeArgument(Command, tag="size_argument", kw_only=True):
    """Give ``combatant`` a statement of ``size`` (GM; STATEMENTS: "The scale of a statement is
    determined by the stable master"), or resize one (``argument``: its id). The ack's result
    holds the ``argument`` id to use in ``dispute`` and ``conversation``."""

    combatant: CombatantRef
    size: Literal["fine", "diminutive", "tiny", "small", "medium", "large", "huge",
                  "gargantuan", "colossal"] | None
    text: Annotated[str, msgspec.Meta(max_length=200)] = ""
    perilous: bool = False
    argument: Annotated[str, msgspec.Meta(min_length=1, max_length=40)] | None = None


class SetAttitude(Command, tag="set_attitude", kw_only=True):
    """Set ``holder``'s attitude toward ``toward`` (GM; R25)."""

    holder: CombatantRef
    toward: CombatantRef
    attitude: Literal["hostile", "unfriendly", "indifferent", "friendly", "helpful"]
    reason: Label | None = None


class RuleDoubt(Command, tag="rule_doubt", kw_only=True):
    """The GM rules on the doubt of a statement its target accepted with reservation
    (STATEMENTS: "half the fatigue loss is still caused should the doubt turn out to have
    been unfounded"; ruling R48): ``unfounded`` — the target loses half the recorded loss,
    rounded down, as mental fatigue (its damage threshold counts, R45; its attitude does not
    change, R77); founded — nothing. ``statement`` names it (``statement_answered.statement``,
    the view's ``reservations``); either way the reservation is settled. Result: ``loss``."""

    statement: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    unfounded: bool


class SetSocialEvent(Command, tag="set_social_event", kw_only=True):
    """The social event this scene is part of (GM; SOCIAL EVENTS, SOCIAL ACCESS RATING): the
    ``organizer`` (a combatant) chooses a ``rating`` — at most its Social Status, normally at
    least half of it (``gm_override`` allows lower; R25) — that VIP guests (``vips``) raise
    (R71). ``circle`` is the circle of society (temporary status counts there), ``topic`` the
    event's subject; ``encounter`` counts this scene within the event and ``last`` says it
    ends the event (for the aura points, R73, and the temporary status boosts, R25).
    ``challenge_modifier``: how demanding the party's goal is; the challenge rating is the
    Event Rating plus it. ``rating: null`` ends the event."""

    rating: Annotated[int, msgspec.Meta(ge=-100, le=200)] | None
    organizer: CombatantRef | None = None
    vips: Annotated[list[CombatantRef], msgspec.Meta(max_length=50)] = []
    gm_override: bool = False
    circle: Label | None = None
    topic: Label | None = None
    encounter: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1
    last: bool = True
    challenge_modifier: Annotated[int, msgspec.Meta(ge=-100, le=100)] = 0


class SetSocialSituation(Command, tag="set_social_situation", kw_only=True):
    """A combatant's situation at the event (GM; the situation table of SOCIAL STATUS and the
    influencing effects of SOCIAL ACCESS RATING; R70, R72). Fields left out keep their value."""

    combatant: CombatantRef
    familiarity: Literal["known", "few_know", "stranger"] | None = None
    race: Literal["prevailing", "not_prevailing", "rare", "unknown_or_dangerous"] | None = None
    subject_rank: Annotated[int, msgspec.Meta(ge=-50, le=100)] | None = None
    invitation: bool | None = None
    knows_host: bool | None = None
    knows_most: bool | None = None
    attire: Literal["ordinary", "appropriate", "inappropriate"] | None = None


class AdjudicatedOutcome(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """What an adjudicated action does to its target: a fatigue loss (resolved with damage
    reduction left out, then thresholds and the condition track as for any loss, R14), steps
    down a track, healing, falling prone or standing."""

    fatigue_loss: Annotated[int, msgspec.Meta(ge=0, le=10_000)] = 0
    loss_kind: Literal["physical", "mental"] = "physical"
    steps: Annotated[int, msgspec.Meta(ge=0, le=5)] = 0
    persistent: bool = False
    heal: Annotated[int, msgspec.Meta(ge=0, le=10_000)] = 0
    prone: bool | None = None


class Adjudicate(Command, tag="adjudicate", kw_only=True):
    """An action the rules do not list, adjudicated by the GM: the GM states the check — a
    d20 (the combatant's dice, or the GM's without one; physical ones asked for, R80; or 10
    with ``take_10``, R81) plus ``modifier`` against ``dc`` (equal succeeds) — and what success
    and failure do to ``target`` (default: ``combatant``). Without ``dc`` nothing is rolled and
    ``on_success`` applies. Everyone who sees the combatants sees the ruling, the roll and the
    outcome, as at the table."""

    description: Reason
    combatant: CombatantRef | None = None
    target: CombatantRef | None = None
    modifier: Annotated[int, msgspec.Meta(ge=-100, le=100)] = 0
    dc: Annotated[int, msgspec.Meta(ge=-100, le=200)] | None = None
    #: take 10: the check counts a 10 on the d20, and no die is thrown (ruling R81)
    take_10: bool = False
    on_success: AdjudicatedOutcome = msgspec.field(default_factory=AdjudicatedOutcome)
    on_failure: AdjudicatedOutcome = msgspec.field(default_factory=AdjudicatedOutcome)


class Act(Command, tag="act", kw_only=True):
    """Take an action for a combatant. ``action`` is one of the names the server listed in
    ``legal_actions``; ``args`` holds that action's arguments, as the JSON Schema of the
    ruleset's actions describes them (``docs/protocol/actions.<ruleset>.schema.json``). An
    argument the action does not take, or one of the wrong type, is refused with
    ``invalid_payload`` naming it (``details.field``; for an unknown one ``details.allowed``
    lists the action's arguments)."""

    combatant: CombatantRef
    action: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    args: dict[str, Any] = {}


class SubmitRoll(Command, tag="submit_roll", kw_only=True):
    """Answer a ``roll_requested`` event with the faces of physical dice, in the order of its
    ``dice`` list; or, with ``take_10`` and no faces, take 10 on the d20 check it asks for,
    where the check allows it (ruling R81: not to aid another, not on the Constitution check,
    not on an attack roll)."""

    request: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    faces: Annotated[list[int], msgspec.Meta(min_length=1, max_length=100)] = []
    take_10: bool = False


class ServerRoll(Command, tag="server_roll", kw_only=True):
    """Let the server roll a pending request (the GM for any request, a player for its own)."""

    request: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]


class PauseTurnTimer(Command, tag="pause_turn_timer", kw_only=True):
    """The GM stops the running turn timer (ruling R102): a ``turn_timer_paused`` with the time
    left, until ``resume_turn_timer``. Refused when no timer runs."""


class ResumeTurnTimer(Command, tag="resume_turn_timer", kw_only=True):
    """The GM starts the paused turn timer again with the time it had left (R102): a
    ``turn_timer_resumed`` with the new deadline. Refused when no timer is paused."""


class AddDiceEntropy(Command, tag="add_dice_entropy", kw_only=True):
    """Mix ``entropy`` (any text, 1 to 64 characters: a client sends random bytes, as hex say)
    into the server's dice (ruling R101): every server roll after it is drawn with a key that
    depends on it, so the server could not have chosen its dice secret, committed to in
    ``dice_committed``, to give them. A player or the GM may send it while the encounter runs,
    at most 64 times an encounter in all; a ``dice_entropy_added`` event tells everyone."""

    entropy: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class EndEncounter(Command, tag="end_encounter", kw_only=True):
    """End the scene; narrative time resumes (COMBAT SEQUENCE, step 5). The unconscious roll
    their Constitution checks and everyone conscious improves a step (R16, R50); with
    ``rest: true`` the party then rests eight hours (Natural Healing: all fatigue points and
    the whole track back, except with a persistent condition, R17)."""

    reason: Label | None = None
    rest: bool = False


# --- campaigns (rulings R109-R114) --------------------------------------------------------------

CampaignId = Annotated[str, msgspec.Meta(min_length=6, max_length=32, pattern="^[a-z0-9]+$")]


class CreateCampaign(Command, tag="create_campaign", kw_only=True):
    """Found a campaign (on a connection without a token, as ``create_encounter``): its name
    and ruleset. The ``ack``'s ``result`` holds ``campaign``, the GM's ``gm_token`` (the
    campaign's GM link: ``smc1.<campaign>.<token id>.<secret>``), its ``token_id`` and the
    ``recovery_secret`` that recovers a lost GM link (``recover_campaign``): it is shown here
    and nowhere else, keep it. ``id`` (at least 16 characters, random) names the campaign: a
    retry with the same id and payload answers the same; another payload is a ``conflict``.
    Creator secrets apply as to ``create_encounter``."""

    id: Annotated[str, msgspec.Meta(min_length=16, max_length=64)]
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=120)]
    ruleset: RulesetName = "dramatic"
    creator_secret: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None


class RecoverCampaign(Command, tag="recover_campaign", kw_only=True):
    """A lost GM link (on a connection without a token): the campaign and its recovery secret.
    The ``ack``'s ``result``: a new ``gm_token`` and a new ``recovery_secret`` (each shown
    once); the old GM link stops working (``gm_recovered``, R114). A wrong secret is
    ``unauthenticated``."""

    campaign: CampaignId
    recovery_secret: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class GetCampaign(Command, tag="get_campaign", kw_only=True):
    """On a campaign link: the campaign as this credential sees it, as a ``campaign``
    message, before the ``ack``."""


class AddCharacter(Command, tag="add_character", kw_only=True):
    """GM of a campaign: a character joins the roster, from its stat block (as
    ``create_encounter`` takes one; ``kind: pc``). A player character gets its player's link,
    one for the whole campaign (R113): the ``ack``'s ``result.token``; an NPC (``kind: npc``)
    gets none."""

    character: StatBlock


class StatusBoostInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Temporary Social Status (R25, R111): ``bonus`` in ``circle`` (left out: everywhere)."""

    bonus: Annotated[int, msgspec.Meta(ge=0, le=100)]
    circle: Annotated[str, msgspec.Meta(min_length=1, max_length=80)] | None = None
    source: Label = ""


class ItemInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=80)]
    count: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 1


class AdjustCharacter(Command, tag="adjust_character", kw_only=True):
    """GM of a campaign: set what a character carries between scenes (a treatment that takes a
    persistent condition away, a day's Second Lunches, temporary status, items), with a
    reason, audited as a ``character_changed`` event. Only the values named change; refused
    while the character is in a running encounter (the encounter's ``adjust_combatant`` is
    for that). ``fatigue: null`` is not "leave it": leave it out; ``full: true`` sets the
    fatigue points (Health) to full."""

    character: CombatantRef
    reason: Reason
    fatigue: Annotated[int, msgspec.Meta(ge=0, le=100_000)] | None = None
    full: bool = False
    physical_step: TrackStep | None = None
    physical_persistent: TrackStep | None = None
    physical_crippling: TrackStep | None = None
    mental_step: TrackStep | None = None
    mental_persistent: TrackStep | None = None
    mental_crippling: TrackStep | None = None
    life: Literal["alive", "dead"] | None = None
    lunches_today: Annotated[int, msgspec.Meta(ge=0, le=20)] | None = None
    status: Annotated[list[StatusBoostInput], msgspec.Meta(max_length=20)] | None = None
    items: Annotated[list[ItemInput], msgspec.Meta(max_length=200)] | None = None


class AdvanceClock(Command, tag="advance_clock", kw_only=True):
    """GM of a campaign: move the in-game clock on (hours, days and weeks add up). With
    ``rest: true`` the characters rest through it, which needs at least eight hours: each gets
    Natural Healing or a ``healing_refused`` saying why (R110). Passing midnight renews the
    per-day uses (R109); each week takes a point off temporary status (R111). Refused while an
    encounter of the campaign runs: its scene's time is its own."""

    hours: Annotated[int, msgspec.Meta(ge=0, le=24 * 366)] = 0
    days: Annotated[int, msgspec.Meta(ge=0, le=366)] = 0
    weeks: Annotated[int, msgspec.Meta(ge=0, le=52)] = 0
    rest: bool = False
    reason: Label | None = None


class BeginEncounter(Command, tag="begin_encounter", kw_only=True):
    """GM of a campaign: an encounter of the roster's ``characters`` (each in no other running
    encounter, R113), with ``npcs`` besides, each character starting as the campaign keeps it
    (fatigue points, condition tracks, the day's Second Lunches, temporary status). The
    ``ack``'s ``result``: ``encounter``, its GM link ``gm_token``; each character's player
    reaches it by the campaign link. ``rested``: characters who spend the whole scene resting
    (one step more up each track when it is written back, R112). When the encounter ends, its
    results are written back to the campaign (``encounter_written_back``)."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=120)]
    characters: Annotated[list[CombatantRef], msgspec.Meta(min_length=1, max_length=50)]
    npcs: Annotated[list[StatBlock], msgspec.Meta(max_length=150)] = []
    options: EncounterOptions = EncounterOptions()
    map: BattleMap | None = None
    rested: Annotated[list[CombatantRef], msgspec.Meta(max_length=50)] = []


CAMPAIGN_COMMANDS = (GetCampaign, AddCharacter, AdjustCharacter, AdvanceClock, BeginEncounter)


AnyClientMessage = (
    Hello
    | Ping
    | GetLegalActions
    | GetSnapshot
    | GetHistory
    | GetReach
    | GetAim
    | Undo
    | RequestUndo
    | RefuseUndo
    | CreateEncounter
    | AddCombatant
    | RemoveCombatant
    | SetHidden
    | SetOptions
    | IssueInvite
    | IssueSpectatorLink
    | IssueIntegrationToken
    | RevokeToken
    | StartEncounter
    | SetAwareness
    | CallPerception
    | AddEffect
    | EndEffect
    | SetMap
    | PlaceCombatant
    | Fall
    | Collide
    | LoadObject
    | SizeArgument
    | SetAttitude
    | RuleDoubt
    | SetSocialEvent
    | SetSocialSituation
    | AdjustCombatant
    | Adjudicate
    | Act
    | SubmitRoll
    | ServerRoll
    | AddDiceEntropy
    | PauseTurnTimer
    | ResumeTurnTimer
    | EndEncounter
    | CreateCampaign
    | RecoverCampaign
    | GetCampaign
    | AddCharacter
    | AdjustCharacter
    | AdvanceClock
    | BeginEncounter
)

CLIENT_TYPES: frozenset[str] = frozenset(
    t.__struct_config__.tag for t in AnyClientMessage.__args__
)


# --- server -> client -----------------------------------------------------------------------


class ServerMessage(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    """Base of every server -> client message."""


class PresenceSeat(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A credential with connections open now: its ``role``, the ``combatants`` it plays and
    how many ``connections`` it has; to a GM also its ``token_id`` and ``label``."""

    token_id: str | None = None
    role: Role
    label: str | None = None
    combatants: list[str] = []
    connections: int


class Presence(ServerMessage, tag="presence", kw_only=True):
    """Who is connected to the encounter now, on every process that serves it (with the
    ``presence`` feature): sent after joining and whenever it changes (looked at about once a
    second; a connection of a process that died counts for up to 30 s more). A GM credential
    is told every credential connected, with its token id and label (the ``/read/links``
    listing names them); anyone else only the players' credentials, by the combatants it sees
    that they play. Added in protocol 1.6."""

    encounter: str
    seats: list[PresenceSeat]


class Limits(msgspec.Struct, kw_only=True):
    """What this server accepts. A message longer than ``max_command_bytes`` gets
    ``too_large``; a frame over ``max_frame_bytes`` closes the connection (1009). Each
    connection may send ``commands_per_second`` messages on average, ``burst`` at once; more
    get ``rate_limited``, and a flood closes the connection (1008). A command that would store
    an event larger than ``max_event_bytes`` (as JSON) gets ``too_large`` and changes nothing;
    a message with objects and arrays nested more than ``max_depth`` levels deep gets
    ``invalid_payload``."""

    max_command_bytes: int
    max_frame_bytes: int
    commands_per_second: float
    burst: int
    max_event_bytes: int
    max_depth: int


class Welcome(ServerMessage, tag="welcome", kw_only=True):
    """Answer to ``hello``: the ``protocol`` version chosen, the ``server`` software version
    and this connection's ``session`` id. ``role`` is ``null`` for an unauthenticated connection
    (which may only ``create_encounter`` and ``ping``); otherwise ``encounter``, ``token_id``,
    ``combatants`` (those this credential controls) and ``scopes`` describe the credential,
    and a ``snapshot`` (or the missed events) and ``legal_actions`` follow."""

    protocol: int
    server: str
    session: str
    role: Role | None = None
    encounter: str | None = None
    token_id: str | None = None
    combatants: list[str] = []
    scopes: list[Scope] = []
    limits: Limits
    #: the features of ``hello.features`` granted on this connection
    features: list[str] = []
    #: the campaign of a campaign link (R113), with the characters it plays; absent on an
    #: encounter's own link. Added in protocol 1.8.
    campaign: str | msgspec.UnsetType = msgspec.UNSET
    characters: list[str] | msgspec.UnsetType = msgspec.UNSET


class Ack(ServerMessage, tag="ack", kw_only=True):
    """A command succeeded. ``seq`` is the last event of the log this connection is told of once
    the command is done (``null`` for a command outside the encounter, as ``ping``): for the
    GM, the command's last event; for the table, the last it may see (never one behind the GM's
    screen). The events themselves arrive before the ``ack``. With the ``cursor`` feature
    ``cursor`` stands in its place (``seq`` is left out). ``result`` holds what the command
    returns (see each command). ``duplicate`` is true when this answers a retried id.
    With ``batch_head`` (protocol 1.11), in a ``batch`` that says its ``cursor``, it leaves
    out its ``cursor``, ``result`` when empty and ``duplicate`` when false."""

    id: str
    seq: int | msgspec.UnsetType | None = None
    cursor: Cursor | msgspec.UnsetType | None = msgspec.UNSET
    result: dict[str, Any] = {}
    duplicate: bool = False


class Error(ServerMessage, tag="error", kw_only=True):
    """A message failed. ``id`` names the command when it could be read. ``code`` is one of the
    error codes (see ``protocol.errors``), ``message`` a readable explanation, ``details``
    optional data (``bad_dice``: the ``dice`` expected; ``illegal_action``: sometimes the
    ``legal`` action names)."""

    id: str | None = None
    code: ErrorCode
    message: str
    details: dict[str, Any] | None = None


class EventMessage(ServerMessage, tag="event", kw_only=True, omit_defaults=True):
    """One event of the encounter's log, redacted for this viewer. ``seq`` increases by one per
    event in the log; a viewer may not see every ``seq`` (redacted events are skipped), but it
    sees those it may see exactly once and in order. ``digest`` stands for the log up to this
    event (it is left out for events stored before digests existed): keep the one of the last
    event applied and send it with ``since`` when resuming. With the ``cursor`` feature the
    message carries ``cursor`` instead of ``seq`` and ``digest``. With the ``summaries``
    feature it carries ``summary``, the event in words (left out without it). ``taken_back:
    true`` marks an event the GM took back since (``commands_undone``, ruling R108): in
    ``history`` and in the events replayed on a resume (added in protocol 1.7).
    With the ``batch_head`` feature (protocol 1.11) ``encounter`` is left out (the
    connection's), and ``ts`` and ``cursor`` when the ``batch`` it comes in says them; with
    ``lean_events`` the event says only what the view and the summary do not, and a summary
    without ``parts`` is said by its text alone (``"summary": "Rainbow Dash's turn."``)."""

    encounter: str | msgspec.UnsetType = msgspec.UNSET
    seq: int | msgspec.UnsetType = msgspec.UNSET
    ts: int | msgspec.UnsetType = msgspec.UNSET
    event: AnyEvent
    digest: str | None = None
    cursor: Cursor | msgspec.UnsetType = msgspec.UNSET
    #: with ``lean_events`` (protocol 1.11) a summary without ``parts`` is its ``text`` alone
    summary: Summary | str | None = None
    taken_back: bool = False


class Snapshot(ServerMessage, tag="snapshot", kw_only=True):
    """The whole encounter as this viewer may see it, as of ``seq``, and the ``digest`` of the
    log at ``seq`` (``null`` for a log without one). Sent after ``hello`` without ``since``,
    when the server cannot replay from ``since`` (``reason``), and, unasked, when the server
    finds that the log went back (``rewound``): everything received after this ``seq`` is void;
    after the GM took commands back (``commands_undone``, R108), also ``rewound``: the
    encounter is this snapshot's state.
    With the ``cursor`` feature ``cursor`` stands for ``seq`` and ``digest`` (both left out).
    ``ts`` is when the server sent it (milliseconds since the epoch, the clock of the events'
    ``ts`` and of a turn timer's ``deadline``; left out in a replay's)."""

    encounter: str
    seq: int | msgspec.UnsetType = msgspec.UNSET
    reason: Literal["join", "resume_gap", "resume_ahead", "rewound", "asked", "unverified",
                    "replay"]
    state: dict[str, Any]
    digest: str | msgspec.UnsetType | None = None
    cursor: Cursor | msgspec.UnsetType = msgspec.UNSET
    ts: int | msgspec.UnsetType = msgspec.UNSET


class LegalAction(msgspec.Struct, kw_only=True, gc=False, omit_defaults=True):
    """An action a combatant (or the GM, ``combatant: null``) may take now. ``action`` names
    the command (``start_encounter``, ``end_encounter``, ``submit_roll``) or the ``act``
    action (``end_turn``), for any combatant the connection controls, on its turn or not (free
    actions, reactions, ``trigger_ready``). For ``submit_roll``, ``targets`` holds the roll
    request id and ``label`` what is rolled (``initiative: 1d20+3``). For an ``act`` action,
    ``targets`` lists whom it may be aimed at (``args.target``; an action aimed at someone is
    left out while there is nobody), and ``optional_target: true`` says it may also be taken
    without a target. ``options`` lists, by argument name, the values an ``act`` argument may
    take where they are few: the weapons of an attack, the statements of a Dispute, the
    answers to a statement, the actions ``ready`` may ready. ``args_schema`` names the JSON
    Schema of the entry's arguments (an ``act`` action's ``args``, or the fields of another
    command but ``type``, ``id`` and ``expect_turn``): ``dramatic.attack``,
    ``command.submit_roll``. The server serves it at ``GET /schemas/args/<id>.json`` (all of
    them: ``GET /schemas/args.json``; published as ``docs/protocol/args-schemas.json``), so a
    client can draw a form for any entry without knowing the ruleset. ``cost`` says what an
    ``act`` action costs in its ruleset's words (the slot of the turn's budget, as the turn's
    ``budget`` names it: ``standard``, ``move``, ``swift``, ``full_round``, or ``free``,
    ``reaction``; Action Time ``major``, ``minor``, ``free``); left out for the turn's own
    moves (``end_turn``, ``delay``) and for commands. ``group`` sorts the entries for people:
    ``attack``, ``movement``, ``social``, ``support``, ``items``, ``turn``, ``other``, and for
    the GM's commands ``scene`` and for a roll asked for ``dice`` (``cost`` and ``group`` were
    added in protocol 1.6). Fields without a value are left out."""

    action: str
    combatant: str | None = None
    label: str | None = None
    targets: list[str] | None = None
    options: dict[str, list[str]] | None = None
    optional_target: bool = False
    args_schema: str | None = None
    cost: str | None = None
    group: str | None = None


class LegalActions(ServerMessage, tag="legal_actions", kw_only=True):
    """What this connection may do now, sent whenever it changes (always after a snapshot):
    whenever the actions change, and whenever the turn changes while there are any.
    ``turn_id`` names the current turn (or interrupt): it changes exactly when a turn starts,
    is interrupted or resumes (at the table, a turn it sees: a hidden combatant's turn changes
    nothing). Send it as ``expect_turn`` with a command meant for this turn. ``seq`` (with the
    ``cursor`` feature, ``cursor`` instead) is the position of the state they are of.
    With the ``legal_changed`` feature (protocol 1.11) they come only when the actions change.
    With ``batch_head`` ``encounter`` is left out (the connection's), and ``cursor`` when the
    ``batch`` it comes in says it."""

    encounter: str | msgspec.UnsetType = msgspec.UNSET
    seq: int | msgspec.UnsetType = msgspec.UNSET
    cursor: Cursor | msgspec.UnsetType = msgspec.UNSET
    turn_id: str
    actions: list[LegalAction]


class Goodbye(ServerMessage, tag="goodbye", kw_only=True):
    """The server is about to close this connection. ``reconnect`` says whether to reconnect
    (to any process) and resume with ``since``."""

    reason: str
    reconnect: bool


#: A run of entries of the previous list, kept: ``[start, count]`` (its indices ``start`` to
#: ``start + count - 1``).
#: With ``legal_recall`` (protocol 1.11) also ``[start, count, combatant]``: a run of what the
#: connection recalls of ``combatant``.
KeptRun = Annotated[tuple[int | str, ...], msgspec.Meta(
    description="A run of entries of the previous list, kept: [start, count] (indices "
                "start to start + count - 1 of that list); with the legal_recall feature "
                "also [start, count, combatant]: count entries from index start of what the "
                "connection recalls of that combatant.",
    extra_json_schema={"anyOf": [
        {"prefixItems": [{"type": "integer"}, {"type": "integer"}], "items": False,
         "minItems": 2, "maxItems": 2},
        {"prefixItems": [{"type": "integer"}, {"type": "integer"}, {"type": "string"}],
         "items": False, "minItems": 3, "maxItems": 3}]})]


class LegalActionsDelta(ServerMessage, tag="legal_actions_delta", kw_only=True):
    """The connection's new legal actions, as a change to the list it holds (with the
    ``legal_delta`` feature; sent when and where a ``legal_actions`` would be). ``base`` is
    the ``seq`` of the ``legal_actions`` or ``legal_actions_delta`` it applies to (the last
    one the connection got). The new list is ``actions`` read in order: an entry is itself;
    ``[start, count]`` stands for ``count`` entries of the previous list from index
    ``start`` on, unchanged. Every entry of the new list is there, in its place; an entry of
    the previous list that no run names is gone. ``turn_id`` is as in ``legal_actions``.
    Entries are compared whole (an entry of the previous list with any field changed is
    sent again), so a client applies a delta without knowing what the entries mean. A client
    whose list is not at ``base`` asks for the full list (``get_legal_actions``). With the
    ``cursor`` feature ``cursor`` and ``base_cursor`` stand for ``seq`` and ``base``.
    With ``batch_head`` ``encounter`` is left out (the connection's), and ``cursor`` when the
    ``batch`` it comes in says it.
    With the ``legal_recall`` feature (protocol 1.11) an item may also be ``[start, count,
    combatant]``: ``count`` entries, from index ``start`` on, of what the connection recalls
    of ``combatant``. It recalls, for each combatant, its entries of the last list that a
    delta replaced by one in which they were not the same (in order, as they were); a full
    ``legal_actions`` empties what it recalls. Such a delta names no ``base``: it applies to
    the list the connection last received."""

    encounter: str | msgspec.UnsetType = msgspec.UNSET
    seq: int | msgspec.UnsetType = msgspec.UNSET
    cursor: Cursor | msgspec.UnsetType = msgspec.UNSET
    turn_id: str
    base: int | msgspec.UnsetType = msgspec.UNSET
    base_cursor: Cursor | msgspec.UnsetType = msgspec.UNSET
    actions: list[KeptRun | LegalAction]


class History(ServerMessage, tag="history", kw_only=True):
    """The answer to ``get_history``: ``events`` (oldest first) as this viewer received them
    live, or would have; ``before``, the position to ask for the page before this one (``null``:
    there is nothing older this viewer may see, the log's start or the oldest event it still
    holds)."""

    encounter: str
    events: list[EventMessage]
    before: int | Cursor | None = None


class PatchOperation(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One operation of a JSON Patch (RFC 6902): ``add`` (a key of an object, or an entry of a
    list at an index, the entries after it moving up), ``remove`` (no ``value``) or
    ``replace``, at ``path`` (a JSON Pointer, RFC 6901, into the state)."""

    op: Literal["add", "remove", "replace"]
    path: str
    value: Any = msgspec.UNSET


class View(ServerMessage, tag="view", kw_only=True):
    """With the ``view`` feature: the change to the state this viewer may see, as a JSON Patch
    (RFC 6902) against the state the connection holds (its last snapshot's ``state`` with every
    patch since applied), in order. After it the state is exactly the snapshot's ``state`` a new
    connection of the same credential would get at ``seq`` (``cursor``): the position of the
    last event before it. Sent after the events of a change, in the same batch, only when the
    viewer's state changed; on a resume, after the events replayed (or a snapshot instead,
    when the patches since the position resumed from are no longer kept). A patch never
    replaces the whole state, nor a whole combatant when one of its fields changed.
    With ``batch_head`` ``encounter`` is left out (the connection's), and ``cursor`` when the
    ``batch`` it comes in says it."""

    encounter: str | msgspec.UnsetType = msgspec.UNSET
    seq: int | msgspec.UnsetType = msgspec.UNSET
    cursor: Cursor | msgspec.UnsetType = msgspec.UNSET
    patch: list[PatchOperation]


class CampaignMessage(ServerMessage, tag="campaign", kw_only=True):
    """A campaign as this credential sees it (``protocol.campaign``'s view, R113): to a campaign
    link outside a running encounter, after its ``welcome``, after each change to the
    campaign, and in answer to ``get_campaign``. ``seq``: the campaign log's position."""

    campaign: str
    seq: int
    state: CampaignView


class Moved(ServerMessage, tag="moved", kw_only=True):
    """To a campaign link's connection: its character is now in another encounter, which the
    GM began (a link stays in an encounter that ended until then, its log to read). The
    server closes the connection after it (code 4004): connect again with the same link,
    without a cursor, to reach it."""

    campaign: str
    encounter: str
    characters: list[str]


class Batch(ServerMessage, tag="batch", kw_only=True):
    """Several server messages in one websocket message (with the ``batch`` feature): what
    was ready for the connection at once, in the order it would have been sent one by one;
    after a command, the events it caused, the new legal actions and its ``ack``. A message
    that leaves alone is sent unwrapped; a batch holds no batch.
    With the ``batch_head`` feature (protocol 1.11) a batch may say ``ts`` and ``cursor`` once
    for its messages: an ``event`` of it without ``ts`` has the batch's ``ts``; an ``event``,
    ``view``, ``legal_actions``, ``legal_actions_delta`` or ``ack`` of it without a ``cursor``
    (or ``seq``) is at the batch's ``cursor``; such a message comes in a batch even when it is
    alone. (``encounter`` is not said: it is the connection's.)"""

    ts: int | msgspec.UnsetType = msgspec.UNSET
    cursor: Cursor | msgspec.UnsetType = msgspec.UNSET
    messages: list[Welcome | Ack | Error | EventMessage | Snapshot | View | History
                   | LegalActions | LegalActionsDelta | Goodbye | CampaignMessage | Moved]


class ReplayEnded(ServerMessage, tag="replay_ended", kw_only=True):
    """A replay (``hello.replay``) has shown everything: ``events`` is how many event messages
    it sent after its snapshot. The connection stays open (say ``hello`` on a new one to watch
    again); it receives nothing more."""

    encounter: str
    events: int


AnyServerMessage = (Welcome | Ack | Error | EventMessage | Snapshot | View | History
                    | LegalActions | LegalActionsDelta | Batch | Goodbye | ReplayEnded | Presence
                    | CampaignMessage | Moved)
