"""Encounter state: what a fold over the event log yields. Plain data (msgspec structs).

One struct holds every ruleset's part of protocol 1, so that cached snapshots and old logs keep
their shape: the fields marked "Dramatic's" belong to ``rulesets.dramatic`` (its steps, its
fold and its view parts read and write them) and ``action_time`` to ``rulesets.action_time``;
the engine leaves them to their ruleset (docs/architecture.md, "The state of each ruleset").
A ruleset beyond protocol 1 keeps its part in ``ruleset_state``."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from encounter.copier import copier
from protocol.events import (
    EffectStarted,
    InitiativeEntry,
    Role,
    SocialEventSet,
    SocialSituationSet,
    Track,
)
from protocol.model import BattleMap, CombatantProfile, EncounterOptions, Roll, Scope
from rules.action_time.state import AtState
from rules.actions import Budget
from rules.battle_map import shared


class TokenGrant(msgspec.Struct, kw_only=True, gc=False, frozen=True):
    """A credential's rights (the secret itself lives only with its holder). Frozen, like a
    combatant's profile: a change replaces it, and copies of the state share it."""

    token_id: str
    role: Role
    combatants: list[str] = []
    scopes: list[Scope] = []
    label: str | None = None
    revoked: bool = False
    #: When it expires (ms since the epoch, server time), or ``None``.
    expires_at: int | None = None

    def expired(self, now_ms: float) -> bool:
        return self.expires_at is not None and now_ms >= self.expires_at


class PendingRoll(msgspec.Struct, kw_only=True, gc=False):
    """A roll the encounter waits for (physical dice)."""

    request: str
    roller: str  # "gm" or a combatant id
    combatant: str | None
    expr: str
    dice: list[int]
    purpose: str
    context: dict[str, Any] | None = None


class TurnTimer(msgspec.Struct, kw_only=True, gc=False, frozen=True):
    """The running turn timer (ruling R102): the ``number``-th of the encounter, for
    ``combatant``'s turn; it runs out at ``deadline`` (server milliseconds; ``None`` while
    paused, with ``remaining`` left) and warns at ``warn_at`` (``None``: no warning to come)."""

    number: int
    combatant: str
    deadline: int | None
    warn_at: int | None = None
    remaining: int | None = None


class TurnState(msgspec.Struct, kw_only=True, gc=False):
    """The turn being taken: whose, what is left of its budget, whether anything was done."""

    combatant: str
    budget: Budget
    acted: bool = False
    interrupted_by: str | None = None
    was_flat_footed: bool = False
    #: Where in the order the combatant stood when it left it during its own turn (it died):
    #: the next turn is planned from there.
    gone_at: int | None = None


class UndoRequest(msgspec.Struct, kw_only=True, gc=False, frozen=True):
    """A player's request to take back its combatant's last action (R108): its id, whose
    action, where the undo would go back to, and the player's reason."""

    request: str
    combatant: str
    back_to: int
    reason: str | None = None


class Readied(msgspec.Struct, kw_only=True, gc=False):
    action: str
    action_type: str
    trigger: str
    round: int


class SwiftProgress(msgspec.Struct, kw_only=True, gc=False):
    """An action that needs several swift actions, part-way done (SWIFT ACTIONS)."""

    action: str
    spent: int
    needed: int
    round: int


class Load(msgspec.Struct, kw_only=True, gc=False):
    """The weight an object supports, and the round and count it began on."""

    weight: float
    round: int
    count: int
    strained_round: int = 0


class Argument(msgspec.Struct, kw_only=True, gc=False):
    """A statement a combatant can use in a social maneuver (STATEMENTS); ``size`` ``None``:
    spent."""

    owner: str
    size: str | None
    text: str = ""
    perilous: bool = False


class PendingAnswer(msgspec.Struct, kw_only=True, gc=False):
    """A statement that hit and waits for its target's answer, or accepted with reservation
    for the GM's ruling on the doubt (R48)."""

    speaker: str
    target: str
    loss: int


#: The first state of a condition chart's configuration (``Vitals.condition``) of a conscious
#: combatant (``Vitals.conscious``), and those of a living one (``Vitals.alive``).
CONSCIOUS = "active"
LIVING = frozenset({CONSCIOUS, "unconscious"})


class Vitals(msgspec.Struct, kw_only=True, gc=False, frozen=True):
    """A combatant's fatigue points, condition tracks and consciousness ("MLP Dramatic
    Systems", FATIGUE POINTS AND DAMAGE THRESHOLD; rulings R14-R17). ``condition`` is the
    configuration of its condition chart (``statemachines.condition_chart``)."""

    fatigue: int
    fatigue_max: int
    physical: Track = msgspec.field(default_factory=Track)
    mental: Track | None = msgspec.field(default_factory=Track)
    #: (a tuple, as in every other value of the state that is replaced rather than changed
    #: in place: a tuple of strings is left out of the cycle collector's scans)
    condition: tuple[str, ...] = ("active", "fit")
    prone: bool = False
    #: HELPLESS CONDITION as attacks read it ("bound, sleeping, unconscious or on the botom of
    #: the condition track"): worked out by ``encounter.vitals.rules_status`` whenever the
    #: vitals change, never set by itself.
    helpless: bool = False
    #: Bound or asleep: the GM's part of helplessness (``adjust_combatant.helpless``).
    bound_or_asleep: bool = False
    check_round: int | None = None
    #: An object's running structure loss (Destructive Harvest, R46).
    structure_loss: int = 0
    #: Second Lunch taken in this encounter (never twice in one, SWIFT ACTIONS).
    second_lunch: bool = False

    @property
    def conscious(self) -> bool:
        return self.condition[0] == CONSCIOUS

    @property
    def alive(self) -> bool:
        return self.condition[0] in LIVING


class EncounterState(msgspec.Struct, kw_only=True, gc=False):
    id: str
    name: str = ""
    ruleset: str = "dramatic"
    options: EncounterOptions = EncounterOptions()
    version: int = 0
    created_ts: int = 0
    chart: list[str] = msgspec.field(default_factory=lambda: ["setup"])
    #: The chart's history states (the turn's budget state to return to after an interrupt).
    chart_history: dict[str, list[str]] = {}
    combatants: dict[str, CombatantProfile] = {}
    #: The name of every combatant that has been in the encounter (removed ones too), by id:
    #: what the words of an event call it (``encounter.words``).
    names: dict[str, str] = {}
    #: The name of every effect (``effect_started``) that has run, by id: an ``effect_ended``
    #: says which it was (``encounter.words``).
    effect_names: dict[str, str] = {}
    #: Initiative results by combatant; ``order`` lists combatant ids, highest first.
    initiative: dict[str, InitiativeEntry] = {}
    order: list[str] = []
    round: int = 0
    current: str | None = None
    #: Rolls the encounter waits for, by request id, and initiative rolls already in.
    pending_rolls: dict[str, PendingRoll] = {}
    initiative_rolls: dict[str, Roll] = {}
    server_rolls: int = 0
    tokens: dict[str, TokenGrant] = {}
    #: The scene began with a surprise round; the surprise round is running now.
    had_surprise: bool = False
    surprise: bool = False
    flat_footed: list[str] = []
    #: Combatants unaware of the attacks made on them during the scene (R82), and (Dramatic's)
    #: those in the air after a flying move (R83).
    unaware: list[str] = []
    flying: list[str] = []
    turn: TurnState | None = None
    #: Delaying combatants and the count each named (None: "later"); those who asked to act
    #: right after the current turn, in the order they asked.
    delaying: dict[str, int | None] = {}
    delay_queue: list[str] = []
    readied: dict[str, Readied] = {}
    swift_progress: dict[str, SwiftProgress] = {}
    #: Running effects, as the events that started them.
    effects: dict[str, EffectStarted] = {}
    #: Fatigue, condition tracks and consciousness, by combatant.
    vitals: dict[str, Vitals] = {}
    #: Dramatic's: Aid another (R11): the allies whose aid a combatant's next check gets; a
    #: distracted combatant and who distracted it; grabbed combatants and their grabbers (Grab).
    aid: dict[str, list[str]] = {}
    distracted: dict[str, str] = {}
    grabs: dict[str, list[str]] = {}
    #: The battle map, if any, and where combatants stand on it (top-left square of the space).
    battle_map: BattleMap | None = None
    positions: dict[str, tuple[int, int]] = {}
    #: Dramatic's, from here to ``auras``: objects under a load (Breaking an Object:
    #: Strength), by combatant.
    loads: dict[str, Load] = {}
    #: Social scenes: statements by id, attitudes (holder -> toward -> attitude), who is
    #: Blocking, statements waiting for an answer, those accepted with reservation waiting for
    #: the GM's ruling on the doubt (their ``loss`` the one recorded), whether the debate has
    #: ended (R25-R28, R48).
    arguments: dict[str, Argument] = {}
    attitudes: dict[str, dict[str, str]] = {}
    blocking: list[str] = []
    answers: dict[str, PendingAnswer] = {}
    reservations: dict[str, PendingAnswer] = {}
    debate_over: bool = False
    #: The social event of the scene, each combatant's situation at it, and aura points.
    social_event: SocialEventSet | None = None
    social_situations: dict[str, SocialSituationSet] = {}
    auras: dict[str, tuple[int, int]] = {}
    #: Action Time's: its effects and what combatants hold (``rules.action_time.state``).
    action_time: AtState = msgspec.field(default_factory=AtState)
    #: The part of the state of a ruleset beyond the protocol's own (plain data, as its
    #: declaration starts it and its ``ruleset_event`` events change it).
    ruleset_state: dict[str, Any] = {}
    ended: bool = False
    end_reason: str | None = None
    #: The campaign the encounter was begun from (R113), and (Dramatic's) the temporary status
    #: each combatant's social events left it, by circle ("" for everywhere; R111): what the
    #: campaign is given back when the encounter ends.
    campaign: str | None = None
    status_boosts: dict[str, dict[str, int]] = {}
    #: Turns started, interrupted or resumed so far (the GM's ``turn_id`` is made from it).
    turn_serial: int = 0
    #: The GM's screen (``encounter.screen``): the table (every viewer who does not see
    #: everything) is told the log up to ``told``; ``table_seq`` is the last event it may see
    #: at or before ``told`` (the position it is told of), ``table_last`` the last event it
    #: may see at all; ``table_turns`` counts the turns started, interrupted or resumed that it
    #: sees (its ``turn_id`` is made from it). ``touched``: the command being folded put an
    #: event the table sees behind the screen (a hidden attacker's hit on a visible target).
    told: int = 0
    table_seq: int = 0
    table_last: int = 0
    table_turns: int = 0
    touched: bool = False
    #: While the table is held (``told`` < ``version``): the ``ts`` of the first command after
    #: ``told``, which the table's record gives every event it was held from (R96.6); 0 when
    #: it has been told everything.
    held_ts: int = 0
    #: The server rolls made behind the screen (for a hidden combatant, or during a hidden
    #: turn for nobody's): with a dice seed they draw from a stream of their own, so that they
    #: do not shift the dice of what the table sees (``server_rolls`` counts the others).
    screened_rolls: int = 0
    #: Anonymous hidden turns (``encounter.screen_turn``, R99): the combatants who act in the
    #: screen's turn this round (the hidden ones as the round began, and those who joined
    #: hidden since), whether the screen's turn is running, and the count the screen acts on
    #: this round (``None``: the option's, until the first round begins).
    screened: list[str] = []
    screen_turn: bool = False
    screen_count: int | None = None
    #: Verifiable server dice (ruling R101): the commitment to the dice secret (``None``: the
    #: dice are not verifiable, with a ``dice_seed`` or in a log from before), the entropy
    #: chain as it stands (the commitment, then each piece of entropy taken in) and how many
    #: pieces were sent.
    dice_commitment: str | None = None
    dice_chain: str = ""
    dice_entropy: int = 0
    #: the secret, once shown at the end (hex)
    dice_secret: str | None = None
    #: Renewed dice (ruling R117): the nonce the current secret was derived with (``None``:
    #: the encounter's first secret) and the secrets shown by the renewals, oldest first.
    dice_nonce: str | None = None
    dice_renewed: list[str] = []
    #: The turn timer of the turn being taken, and how many were started (R102).
    timer: TurnTimer | None = None
    timers: int = 0
    #: Undo (ruling R108): the seq at which each command of the log ended, in order (those an
    #: undo took back left out, and neither an undo nor a request for one counts); the
    #: combatant whose action the last command took (``acting``: the one of the command being
    #: folded); the ranges of seqs taken back, first and last; and the players' requests
    #: waiting for the GM, by id.
    commands: list[int] = []
    last_acted: str | None = None
    acting: str | None = None
    undone: list[tuple[int, int]] = []
    undo_requests: dict[str, UndoRequest] = {}

    def taken_back(self, seq: int) -> bool:
        """Whether an undo took back the event at ``seq`` (R108)."""
        return any(first <= seq <= last for first, last in self.undone)

    def visible_combatant(self, cid: str) -> bool:
        c = self.combatants.get(cid)
        return c is not None and not c.hidden

    def count_of(self, cid: str) -> int:
        """The initiative count a combatant (or the GM's screen, ``screen``) acts on now."""
        if cid == SCREEN:
            return self.screen_at()
        entry = self.initiative[cid]
        return entry.total if entry.count is None else entry.count


    def screen_at(self) -> int:
        """The initiative count the GM's screen acts on this round (R99)."""
        return self.options.screen_count if self.screen_count is None else self.screen_count

    def turn_count(self) -> int:
        """The count of the turn running: the screen's while it runs (R99: what a deed in
        it counts from does not depend on who acts behind it)."""
        return self.screen_at() if self.screen_turn else self.count_of(self.current or "")


#: The id of the GM's screen in the order (R99): no combatant may take it.
SCREEN = "screen"


def turn_id(state: EncounterState, table: bool = False) -> str:
    """The id of the current turn (or interrupt), for ``legal_actions.turn_id`` and the
    ``expect_turn`` precondition of commands. It changes exactly when a turn starts, is
    interrupted or resumes; the table's (``table``: for every viewer who does not see
    everything) only when one that the table sees does, so that a hidden combatant's turn
    changes nothing it holds. It is a digest: it counts nothing a viewer could read."""
    key = (f"{state.id}:table:{state.table_turns}" if table
           else f"{state.id}:{state.turn_serial}").encode()
    return hashlib.blake2b(key, digest_size=6).hexdigest()


#: The layout of ``EncounterState`` as cached snapshots hold it. Raise it whenever the fold
#: gains or changes a field: a cached snapshot of another format is rebuilt from the log,
#: never read as this one.
STATE_FORMAT = 16  # 2: turn_serial; 3: Vitals.bound_or_asleep; 4: TurnState.gone_at;
# 5: TurnState.budget names its ruleset's slots (Action Time's own major and minor);
# 6: unaware and flying (R82, R83); 7: an effect_started carries its duration, modifiers,
# source and origin (R90); 8: the GM's screen (told, table_seq, table_last, table_turns,
# touched) and screened_rolls; 9: reservations (R48); 10: verifiable dice (R101), names and
# effect_names;
# 11: the GM's screen as a turn (screened, screen_turn, screen_count, R99); 12: turn timers
# (R102); 13: undo (commands, last_acted, acting, undone, undo_requests, R108); 14: campaign and
# status_boosts (R111, R113); 15: held_ts (R96.6); 16: renewed dice (dice_nonce,
# dice_renewed, R117)

_encode = msgspec.msgpack.Encoder()
_decode = msgspec.msgpack.Decoder(EncounterState)


def copy_state(state: EncounterState) -> EncounterState:
    """A copy to change (the decider works on a copy, so a refused command changes nothing):
    deep, but for what is never changed in place and so is shared: the options, the
    combatants' profiles, the credentials' grants, their vitals and initiative entries (frozen
    structs, replaced on a change), the battle map (frozen, replaced only by ``set_map``:
    validated once, when it came in, and never copied, whatever its size), the strings,
    numbers and tuples. ``encounter.copier`` writes it from the fields' types: new lists,
    mappings and unfrozen structs, each read and written once, with no encoding."""
    return _copy_state(state)


_copy_state = copier(EncounterState)


def dump_state(state: EncounterState) -> bytes:
    return _encode.encode(state)


def load_state(data: bytes) -> EncounterState:
    state = _decode.decode(data)
    if state.battle_map is not None:
        state.battle_map = shared(state.battle_map)
    return state
