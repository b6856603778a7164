"""The ``state`` of a ``snapshot`` message: the whole encounter as one viewer may see it.

``encounter.views.view_state`` builds it as plain data; these structs say what it holds, field
by field, for the published JSON Schema (``docs/protocol/snapshot-state.schema.json``, written
by ``python -m docgen``) and the guide's table of it. They describe protocol 1's snapshot as
the server sends it: every field below is always there (the few marked otherwise are
``UNSET`` by default), in the order listed.

What a viewer sees differs: :class:`GmStateView` is the GM's (and a ``view:gm``
integration's), :class:`StateView` a player's or a spectator's: no hidden combatants (nor what
they do), ``stats`` empty and an NPC's fatigue ``null`` for the combatants it does not control,
two options of ``options``, no ``unaware`` and no ``tokens``. A ruleset adds its own parts
(``Declaration.view``: the struct of the keys its ``views`` fill), and fills the parts protocol
1 names for every ruleset (:data:`RULESET_PARTS`), which are empty in a ruleset that has no
such thing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.events import InitiativeEntry, Role, Track
from protocol.model import BattleMap, CombatantKind, EncounterOptions, Scope
from rules.condition_track import FatigueBand
from rules.effects import Duration, EffectModifier


def doc(text: str, **constraints: Any) -> msgspec.Meta:
    """A field's description (and constraints) in the published schema."""
    return msgspec.Meta(description=text, **constraints)


#: The parts of protocol 1's view that a ruleset's view parts fill (``Declaration.views``), in
#: every ruleset's snapshot: "MLP Dramatic Systems"' (``rulesets.dramatic.snapshot``), empty
#: in a ruleset without flying, grabs or social scenes. A ruleset's ``view`` struct may
#: redeclare these; every other field of its struct is a part of its own.
RULESET_PARTS = ("flying", "grabs", "arguments", "attitudes", "blocking", "answers",
                 "debate_over", "social")

_EMPTY = "Empty unless the ruleset fills it (its part of the view: see its `state`)."


class VitalsView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A combatant's vitals: fatigue points ("MLP Dramatic Systems"; Health in "Action Time",
    R29), condition tracks, consciousness (FATIGUE POINTS AND DAMAGE THRESHOLD; R14-R17)."""

    fatigue: Annotated[int | None, doc(
        "Fatigue points now (Health in \"Action Time\"); `null` for an NPC of the GM's, to "
        "a viewer that does not control it (behind the GM's screen).")]
    fatigue_max: Annotated[int | None, doc(
        "Fatigue points at full (maximum Health); `null` as `fatigue` is.")]
    band: Annotated[FatigueBand | None, doc(
        "How the fatigue points (Health) stand, for every viewer, also where `fatigue` is "
        "`null` (R105): `full`, `above_half`, `half_or_less` (one-half or less, the line of "
        "Second Lunch), `none` (0); `null` without a maximum. The ruleset's words for each "
        "are in `GET /table/rulesets.json` (`bands`). Added in protocol 1.6.")] = None
    physical: Annotated[Track, doc("The physical condition track (R15).")]
    mental: Annotated[Track | None, doc("The mental condition track; `null` for objects.")]
    condition: Annotated[list[str], doc(
        "The configuration of the combatant's condition chart (docs/statecharts.md): "
        "`[\"active\", \"fit\"]`, `[\"active\", \"defenseless\"]`, `[\"unconscious\", "
        "\"awaiting_check\"]`, `[\"unconscious\", \"out_for_scene\"]`, `[\"dead\"]`, "
        "`[\"destroyed\"]`. Test membership, not order.")]
    prone: Annotated[bool, doc("Prone.")]
    helpless: Annotated[bool, doc(
        "HELPLESS CONDITION as attacks count it: bound or asleep, unconscious, or at the "
        "bottom of a condition track.")]
    bound_or_asleep: Annotated[bool, doc(
        "Bound or asleep: the GM's part of helplessness (`adjust_combatant.helpless`).")]
    check_round: Annotated[int | None, doc(
        "The round of the Constitution check an unconscious combatant awaits (R16), if any.")]
    structure_loss: Annotated[int, doc(
        "An object's running structure loss (Destructive Harvest, R46).")]
    second_lunch: Annotated[bool, doc(
        "Second Lunch taken in this encounter (never twice in one, SWIFT ACTIONS).")]


class CombatantView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A combatant as the encounter records it (`combatant_added`), with what this viewer may
    do with it and its vitals."""

    id: Annotated[str, doc("Its id in commands and events.")]
    name: Annotated[str, doc("Its name, as the table shows it.")]
    kind: Annotated[CombatantKind, doc(
        "`pc`, a player character, or `npc`, the GM's.")]
    side: Annotated[str, doc("Its side: combatants of one side are allies.")]
    initiative_mod: Annotated[int, doc("The Initiative modifier of its stat block.")]
    hidden: Annotated[bool, doc(
        "Hidden from players and spectators (R79): only the GM sees a hidden combatant.")]
    aware: Annotated[bool, doc(
        "Aware of its opponents when the scene starts (AWARENESS AND SURPRISE; R42).")]
    group: Annotated[str | None, doc(
        "The NPC group that rolls one initiative with it (R6, R39), if any.")]
    stats: Annotated[dict[str, Any], doc(
        "The ruleset's statistics, as the stat block gives them "
        "(`stat-block.<ruleset>.schema.json`): for the GM, and for a player its own "
        "combatants'; `{}` for the others.")]
    controlled: Annotated[bool, doc("Whether this credential may act for it.")]
    external_ids: Annotated[dict[str, str], doc(
        "The ids a virtual tabletop gave it in its stat block (`external_ids`), by name; "
        "`{}` when none.")]
    size: Annotated[str | None, doc(
        "The size of its space on the map (\"MLP Dramatic Systems\": `medium`, `large`...), "
        "there for all to see; `null` in a ruleset without sizes.")]
    vitals: Annotated[VitalsView, doc(
        "Its vitals; left out for a combatant without any (a ruleset that keeps none).")] | \
        msgspec.UnsetType = msgspec.UNSET


class TurnView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The turn being taken: whose, what is left of its budget, whether a readied action
    interrupts it."""

    combatant: Annotated[str, doc("Whose turn it is.")]
    budget: Annotated[dict[str, bool], doc(
        "Each slot of the turn's budget in its ruleset's words (\"MLP Dramatic Systems\": "
        "`standard`, `move`, `swift`; \"Action Time\": `major`, `minor`...), and whether it "
        "is still free.")]
    acted: Annotated[bool, doc("Whether the combatant has done anything this turn.")]
    interrupted_by: Annotated[str | None, doc(
        "The combatant whose readied action interrupts the turn now (`null`: none, or one "
        "hidden from this viewer).")]
    gone_at: Annotated[int | None, doc(
        "Where in the order the combatant stood when it left the order during its own turn "
        "(it died): the next turn is planned from there.")]


class TimerView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The running turn timer (the `turn_seconds` option, R102)."""

    number: Annotated[int, doc("Which timer of the encounter it is (they are counted).")]
    combatant: Annotated[str, doc("Whose turn it counts.")]
    deadline: Annotated[int | None, doc(
        "When it runs out, in milliseconds since the Unix epoch on the server's clock (the "
        "`ts` of the messages is the same clock); `null` while the GM has paused it.")]
    warn_at: Annotated[int | None, doc(
        "When everyone is warned (`turn_timer_warned`); `null`: no warning to come.")]
    remaining: Annotated[int | None, doc(
        "While paused, the milliseconds it has left; `null` while it runs.")]


class DiceView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The encounter's verifiable dice (R101; docs/protocol.md "Verifiable server dice")."""

    commitment: Annotated[str, doc(
        "The SHA-256 (hex) of the secret the server's dice are drawn from (`dice_committed`).")]
    chain: Annotated[str, doc(
        "The entropy chain as it stands: the commitment, then each piece of entropy taken in "
        "(`dice_entropy_added`).")]
    entropy: Annotated[int, doc("How many pieces of entropy the dice have taken in.")]
    secret: Annotated[str | None, doc(
        "The secret (hex), once shown at the end (`dice_revealed`); `null` before.")]
    renewed: Annotated[list[str], doc(
        "The secrets (hex) of earlier commitments, oldest first, each shown again when the "
        "dice were renewed (`dice_renewed`, R117: Redis went back to before their "
        "`dice_revealed`); absent when the dice were never renewed.")] \
        | msgspec.UnsetType = msgspec.UNSET


class ReadiedView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """An action readied (`ready`, R8), waiting for its trigger."""

    action: Annotated[str, doc("The action readied.")]
    action_type: Annotated[str, doc("The kind of action it is (`standard`, `move`...).")]
    trigger: Annotated[str, doc("What it waits for, in the player's words.")]
    round: Annotated[int, doc("The round it was readied in.")]


class EffectView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A running effect, as the `effect_started` event that started it gives it (without
    `kind`); an `origin` this viewer may not see is `null`, and the effect's `source` empty
    (ruling R97: it goes by its name)."""

    effect: Annotated[str, doc("Its id.")]
    name: Annotated[str, doc("Its name.")]
    rounds: Annotated[int, doc("The rounds it lasts (with `until: rounds`).")]
    round: Annotated[int, doc("The round it began in.")]
    count: Annotated[int, doc("The initiative count it began on.")]
    ends_round: Annotated[int, doc(
        "The round in which it ends, just before the same count (THE COMBAT ROUND).")]
    combatant: Annotated[str | None, doc("The combatant it is on (`null`: the scene).")]
    until: Annotated[Duration, doc("How long it lasts (R90).")]
    modifiers: Annotated[list[EffectModifier], doc("What it changes (R90).")]
    source: Annotated[str, doc(
        "The thing it comes from (empty: `name`; always empty for an `origin` this viewer may "
        "not see, R97).")]
    source_kind: Annotated[str, doc("What sort of thing that is.")]
    origin: Annotated[str | None, doc(
        "The combatant whose talent, spell or action it is (`null`: none, or one hidden from "
        "this viewer).")]
    origin_hidden: Annotated[bool, doc("`origin` is a hidden combatant.")]


class PendingRollView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A roll the encounter waits for (physical dice), as its `roll_requested` event gives it
    to this viewer."""

    request: Annotated[str, doc("The request id `submit_roll` answers.")]
    roller: Annotated[str, doc("Who rolls: `gm`, or a combatant id.")]
    combatant: Annotated[str | None, doc(
        "The combatant it is rolled for (`null` to a viewer that does not see it).")]
    expr: Annotated[str, doc("The dice to roll, as `1d20+3`.")]
    dice: Annotated[list[int], doc("The sides of each die to roll.")]
    purpose: Annotated[str, doc("What the roll is for (`initiative`, `attack`...).")]
    context: Annotated[dict[str, Any] | None, doc(
        "The server's bookkeeping of the roll: the GM's only (`null` for the others).")]


class UndoRequestView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A player's request to undo its combatant's last action, waiting for the GM (R108)."""

    request: Annotated[str, doc("The request id `undo` (`request`) and `refuse_undo` take.")]
    combatant: Annotated[str, doc("Whose action it would take back.")]
    reason: Annotated[str | None, doc("The player's reason.")]
    back_to: Annotated[int | None, doc(
        "The seq the undo would go back to: the GM's (`null` for the player).")]


class TokenView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A credential of the encounter (its secret is not here)."""

    token_id: Annotated[str, doc("Its id (`revoke_token`).")]
    role: Annotated[Role, doc("What it is: the GM's, a player's, a spectator's, an "
                                  "integration's.")]
    combatants: Annotated[list[str], doc("The combatants a player's credential acts for.")]
    scopes: Annotated[list[Scope], doc("An integration's scopes.")]
    label: Annotated[str | None, doc("The GM's label for it.")]
    revoked: Annotated[bool, doc("Revoked (`revoke_token`).")]
    expires_at: Annotated[int | None, doc(
        "When it expires (ms since the epoch, server time), or `null`.", )]


class PublicOptions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The encounter options a player or spectator is told: who rolls physical dice."""

    players_roll: Annotated[bool, doc(
        "Players roll physical dice for their own characters.")]
    npc_rolls_public: Annotated[bool, doc(
        "Players and spectators see the dice of NPC rolls.")]
    anonymous_hidden_turns: Annotated[bool, doc(
        "Anonymous hidden turns (R99): the order holds `screen`, the turn of \"someone "
        "behind the GM's screen\" (only with the option: absent, it is off).")] \
        | msgspec.UnsetType = msgspec.UNSET
    screen_count: Annotated[int, doc(
        "The initiative count the GM's screen acts on from the next round (R99; only with "
        "`anonymous_hidden_turns`).")] | msgspec.UnsetType = msgspec.UNSET


Combatants = list[str]


class SharedState(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What every viewer's state holds (:class:`StateView`, :class:`GmStateView`)."""

    id: Annotated[str, doc("The encounter's id.")]
    name: Annotated[str, doc("The encounter's name.")]
    ruleset: Annotated[str, doc("Its ruleset (`dramatic`, `action_time`...).")]
    phase: Annotated[list[str], doc(
        "The statechart's configuration (docs/statecharts.md): `[\"setup\"]`, "
        "`[\"rolling_initiative\"]`, a running scene (a parallel state: `\"phase\"` holds "
        "`\"surprise_round\"` or `\"regular_rounds\"`; `\"rounds\"` holds `\"round\"`, "
        "`\"turn\"` and either `\"acting\"` with the turn's budget state `\"fresh\"`, "
        "`\"underway\"` or `\"spent\"`, or `\"interrupted\"` while a readied action is "
        "resolved), or `[\"ended\"]`. Test membership, not order.")]
    round: Annotated[int, doc(
        "The round: 0 before the first and during the surprise round.")]
    current: Annotated[str | None, doc(
        "Whose turn it is (`null` between turns, or when that combatant is hidden from this "
        "viewer); `screen` while the GM's screen takes its turn (R99: for a player or "
        "spectator, whoever acts behind it).")]
    combatants: Annotated[list[CombatantView], doc("The combatants this viewer sees.")]
    out_of_fight: Annotated[list[str], doc(
        "The states of a conscious combatant's `vitals.condition` that put it out of the "
        "fight in this ruleset (\"Action Time\": `[\"defenseless\"]`, 0 Health, R29; \"MLP "
        "Dramatic Systems\": `[]`); a combatant not `active` is out of it in every ruleset.")]
    order: Annotated[Combatants, doc(
        "The initiative order, highest first (combatant ids); with anonymous hidden turns "
        "also `screen`, the GM's screen, at its count (R99: the GM's order lists the "
        "combatants who act in its turn right after it).")]
    initiative: Annotated[list[InitiativeEntry], doc(
        "The initiative entries of the combatants, in the order's order (the screen has "
        "none: its count is `options.screen_count` once its round begins).")]
    flat_footed: Annotated[Combatants, doc("The combatants flat-footed now.")]
    flying: Annotated[Combatants, doc(_EMPTY, max_length=0)]
    turn: Annotated[TurnView | None, doc(
        "The running turn (`null`: none, or a hidden combatant's); the screen's, `combatant` "
        "`screen` and its budget untouched, for a player or spectator while it runs (R99).")]
    timer: Annotated[TimerView | None, doc(
        "The turn timer of the running turn (R102; `null`: none runs).")]
    dice: Annotated[DiceView | None, doc(
        "The verifiable dice (R101; `null`: the dice are not verifiable, with a `dice_seed`).")]
    delaying: Annotated[Combatants, doc("The combatants delaying their turn (R7).")]
    readied: Annotated[dict[str, ReadiedView], doc(
        "Readied actions by combatant: all of them for the GM, a player's own combatants'.")]
    effects: Annotated[list[EffectView], doc(
        "The effects running on the scene and on the combatants this viewer sees (R90).")]
    pending_rolls: Annotated[list[PendingRollView], doc(
        "The roll requests waiting for dice: all of them for the GM; for the others those of "
        "the visible player characters, and the GM's to a `roll` integration.")]
    map: Annotated[BattleMap | None, doc(
        "The battle map (`battle-map.schema.json`; `null`: none).")]
    positions: Annotated[dict[str, tuple[int, int]], doc(
        "The top-left square `[x, y]` of each placed combatant, by id.")]
    grabs: Annotated[dict[str, Combatants], doc(_EMPTY, max_length=0)]
    arguments: Annotated[dict[str, Any], doc(_EMPTY, max_length=0)]
    attitudes: Annotated[dict[str, Any], doc(_EMPTY, max_length=0)]
    blocking: Annotated[Combatants, doc(_EMPTY, max_length=0)]
    answers: Annotated[dict[str, Any], doc(_EMPTY, max_length=0)]
    debate_over: Annotated[Literal[False], doc(_EMPTY)]
    social: Annotated[None, doc(_EMPTY)]
    ended: Annotated[bool, doc("Whether the scene is over.")]
    end_reason: Annotated[str | None, doc("Why it ended (`end_encounter.reason`).")]
    created_ts: Annotated[int, doc("When the encounter was created (ms since the epoch).")]
    undo_requests: Annotated[list[UndoRequestView], doc(
        "The players' requests to undo waiting for the GM (R108): all of them for the GM, a "
        "player's own to the player. Added in protocol 1.7.")] = []


class StateView(SharedState, kw_only=True, forbid_unknown_fields=True):
    """The encounter as a player or a spectator sees it: no hidden combatant, nor its place in
    the order, its turn, its effects or its rolls; ``stats`` empty and an NPC's ``fatigue``
    ``null`` for the combatants it does not control; two of the options."""

    options: Annotated[PublicOptions, doc(
        "The options a player or spectator is told (`options.<ruleset>.schema.json`).")]


class GmStateView(SharedState, kw_only=True, forbid_unknown_fields=True):
    """The encounter as the GM (and a ``view:gm`` integration) sees it: everything, hidden
    combatants included, with every option and credential."""

    unaware: Annotated[Combatants, doc(
        "The combatants unaware of the attacks made on them during the scene "
        "(`awareness_set` with `in_scene`; R82): the GM's call.")]
    options: Annotated[EncounterOptions, doc(
        "Every option of the encounter (`options.<ruleset>.schema.json`).")]
    tokens: Annotated[list[TokenView], doc("Every credential of the encounter.")]


__all__ = [
    "RULESET_PARTS",
    "CombatantView",
    "EffectView",
    "GmStateView",
    "PendingRollView",
    "PublicOptions",
    "ReadiedView",
    "SharedState",
    "StateView",
    "TokenView",
    "TurnView",
    "VitalsView",
    "doc",
]
