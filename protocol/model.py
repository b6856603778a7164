"""Data shapes shared by messages, events and views: stat blocks, combatants, rolls, options."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from rules.battle_map import BattleMap
from rules.dice import Die, Roll

__all__ = [
    "BattleMap",
    "CombatantId",
    "CombatantKind",
    "CombatantProfile",
    "Die",
    "EncounterOptions",
    "Roll",
    "Scope",
    "StatBlock",
]

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=80)]
CombatantId = Annotated[str, msgspec.Meta(pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")]
#: What a virtual tabletop calls a combatant: by the name of the id (``foundry_actor``), the
#: id as it gives it, in any case (Foundry's are 16 letters and digits).
ExternalIds = Annotated[
    dict[Annotated[str, msgspec.Meta(pattern=r"^[a-z][a-z0-9_.-]{0,39}$")],
         Annotated[str, msgspec.Meta(min_length=1, max_length=100,
                                     pattern=r"^[\x21-\x7e]+$")]],
    msgspec.Meta(max_length=10)]
CombatantKind = Literal["pc", "npc"]
Coordinate = Annotated[int, msgspec.Meta(ge=0, le=1000)]
#: A square of the battle map, ``[x, y]`` (x to the right, y downwards, from 0).
Square = tuple[Coordinate, Coordinate]
#: The ruleset an encounter plays: ``dramatic`` ("MLP Dramatic Systems") or ``action_time``
#: ("Action Time"), or another the server registers; an unknown name is refused, listing the
#: server's.
RulesetName = Annotated[str, msgspec.Meta(
    pattern=r"^[a-z][a-z0-9_]{0,31}$", examples=["dramatic", "action_time"],
    description="The ruleset: `dramatic` (MLP Dramatic Systems) or `action_time` (Action "
    "Time), or another ruleset the server registers (an unknown one is refused with "
    "`invalid_payload`, `details.allowed` listing the server's).")]

#: Integration credential scopes. ``view:gm`` sees what the GM sees; ``command:gm`` may send
#: GM commands; ``command:players`` may act for every player character; ``roll`` may answer
#: roll requests addressed to the GM.
Scope = Literal["view:public", "view:gm", "command:gm", "command:players", "roll"]


class StatBlock(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A combatant as the GM writes it (JSON, or YAML in ``create_encounter.combatants_yaml``).
    ``stats`` holds the ruleset's statistics: for "MLP Dramatic Systems" abilities, skills,
    defenses, fatigue points, weapons, damage reduction, feats...; for "Action Time" ability
    dice such as ``{"body": "d8", "mind": "d6"}``, Health, Defense, weapons and spells. Each
    ruleset's stat block, every field with its description, unit, default and allowed values,
    is ``docs/protocol/stat-block.<ruleset>.schema.json`` (for people: ``docs/stat-blocks.md``).
    """

    name: Annotated[Name, msgspec.Meta(description="The combatant's name, as the table "
                                       "shows it.")]
    id: Annotated[CombatantId, msgspec.Meta(
        description="Its id in commands and events (`act.combatant`, targets); default: a "
        "slug of the name (`Diamond Dog` -> `diamond-dog`, then `diamond-dog-2`..., numbered "
        "past every id the encounter has had); a hidden one's, the slug and four random "
        "characters (`diamond-dog-k3x9`), so that no id the table reads says a hidden one is "
        "there (ruling R116).")] | \
        None = None
    kind: Annotated[CombatantKind, msgspec.Meta(
        description="`pc`, a player character (an invite lets a player control it), or "
        "`npc`, the GM's.")] = "npc"
    side: Annotated[str, msgspec.Meta(
        min_length=1, max_length=40,
        description="Its side: combatants of one side are allies. Default: `party` for "
        "player characters, `enemies` for NPCs.")] | None = None
    initiative: Annotated[int, msgspec.Meta(
        ge=-50, le=50, description="The Initiative modifier, added to the d20 (\"MLP Dramatic "
        "Systems\", INITIATIVE). Action Time rolls the Body die and ignores it.")] = 0
    hidden: Annotated[bool, msgspec.Meta(
        description="Hidden from players and spectators until the GM reveals it "
        "(`set_hidden`; R79).")] = False
    aware: Annotated[bool, msgspec.Meta(
        description="Aware of its opponents when the scene starts (AWARENESS AND SURPRISE; "
        "R42); an unaware combatant misses the surprise round (\"MLP Dramatic "
        "Systems\").")] = True
    group: Annotated[str, msgspec.Meta(
        min_length=1, max_length=40,
        description="NPCs with the same group roll one initiative and act on one count, in "
        "the order listed (R6; Action Time: a group of minor NPCs, R39).")] | None = None
    position: Annotated[Square, msgspec.Meta(
        description="The top-left square `[x, y]` of its space on the encounter's battle "
        "map, if it has one.")] | None = None
    stats: Annotated[dict[str, Any], msgspec.Meta(
        description="The ruleset's statistics: see `stat-block.dramatic.schema.json` and "
        "`stat-block.action_time.schema.json` beside this document.")] = {}
    external_ids: Annotated[ExternalIds, msgspec.Meta(
        description="The ids a virtual tabletop gives it, by a name of the integration's "
        "choosing (`{\"foundry_actor\": \"Kx8eQmV3tLp2Wn9a\", \"foundry_token\": ...}`; "
        "names in lower case, ids as the VTT writes them, at most 10): kept, and returned "
        "with the combatant to every viewer who sees it, so that a bridge needs no table of "
        "its own.")] = {}


# Frozen: a change replaces the profile, so copies of an encounter's state share it
# (``encounter.state.copy_state``).
class CombatantProfile(msgspec.Struct, kw_only=True, gc=False, frozen=True):
    """A combatant as the encounter records it (the GM's view)."""

    id: str
    name: str
    kind: CombatantKind
    side: str
    initiative_mod: int
    hidden: bool = False
    aware: bool = True
    group: str | None = None
    stats: dict[str, Any] = {}
    external_ids: dict[str, str] = {}


#: What each encounter option does (the ruling it names is in docs/rulings.md).
OPTION_TEXT: dict[str, str] = {
    "ruleset_options": (
        "The options of a ruleset the server registers beyond the two it ships, by name, as "
        "that ruleset declares them (an unknown name or a bad value is refused with "
        "`invalid_payload`); `{}` for `dramatic` and `action_time`, whose options are the "
        "fields of this object."),
    "manual_rolls": (
        "The GM rolls physical dice for the NPCs (the GM's combatants): each roll waits for a "
        '`submit_roll` (`roll_requested`).'
    ),
    "players_roll": (
        'Players roll physical dice for their own characters: each roll waits for a `submit_roll` '
        '(`roll_requested`).'
    ),
    "npc_rolls_public": (
        'Players and spectators see the dice of NPC rolls (else the GM rolls behind the screen; '
        'the results that follow from them are public).'
    ),
    "surprise_when_none_aware": (
        'R1: when nobody is aware, an empty surprise round is recorded and everyone starts flat- '
        'footed until its first regular turn.'
    ),
    "flat_footed_until_regular_turn": (
        'R2: aware combatants stay flat-footed through the surprise round until their first '
        'regular turn.'
    ),
    "delay_keeps_flat_footed": (
        'R3: a combatant that delays stays flat-footed until it acts (`false`: flat-footedness '
        'ends when its first regular turn comes up).'
    ),
    "reactions_while_flat_footed": (
        "R4: flat-footed and unaware combatants may use reactions (`false`: no reactions "
        "either)."
    ),
    "ready_costs_standard_action": (
        "R8: readying also costs the standard action, whatever is readied."
    ),
    "recover_in_scene": "R18: Recover may be used in a dramatic scene.",
    "creatures_block_line_of_sight": (
        "R9: a creature in the way blocks a shot (else it gives cover)."
    ),
    "prone_helpless_bonuses_stack": (
        "R10: a melee attack on a target both helpless and prone gets +4 (else +2)."
    ),
    "engage_adds_half_level": (
        'R12: Engage damage adds one-half heroic level (`false`: Strength modifier + weapon '
        'damage only).'
    ),
    "dr_respects_minimum_damage": "R13: a hit that damage reduction lowers below 1 still deals 1.",
    "zero_fp_threshold_inclusive": (
        'R14: the tiers of a loss at 0 fatigue points start at the threshold and at twice it '
        '(else above them).'
    ),
    "zero_fp_overflow_counts": (
        'R14: the excess of the hit that reaches 0 fatigue points counts as a loss at 0 (`false`: '
        'it is discarded).'
    ),
    "zero_fp_single_action": (
        'R14: a creature at 0 fatigue points takes a single action a turn (`false`: it acts '
        'normally and is only defenseless).'
    ),
    "condition_half_speed": (
        'R15: a creature at step 3 or 4 of the condition track moves at half speed, as in Star '
        'Wars Saga Edition.'
    ),
    "prone_crawl_squares": "R19: the squares a prone creature crawls with a move action.",
    "squeeze_cost_multiplier": (
        "R20: what a square costs, times this, when squeezing through a space too narrow."
    ),
    "refined_garment_runs_triple": (
        'R21: a Refined Garment runs at three times speed (else four times; an Exclusive '
        'Garderobe three).'
    ),
    "falling_acrobatics_dc": "R22: the Acrobatics DC that reduces a fall (trained only).",
    "falling_acrobatics_reduction_m": (
        "R22: the meters of a fall that a successful Acrobatics check takes off."
    ),
    "ram_speed_from_distance": (
        "R23: a ram's Speed is the distance moved this turn, in squares (the ram's `moved` "
        'argument; else the speed of the stat block).'
    ),
    "ram_needs_attack_roll": "R23: a ram needs a hit (`false`: it always connects).",
    "non_dexterous_penalty": (
        'R24: the non-dexterous malus of a grab by a creature without hands (`non_dexterous` stat '
        'blocks).'
    ),
    "end_of_scene_recovery": (
        'R50: when the scene ends, everyone conscious improves a step on the condition track '
        '(`false`: the track is left as it is).'
    ),
    "dispute_ends_at_unfriendly": (
        'R26: a debate ends by itself when the attitude reaches unfriendly (`false`: the GM ends '
        'it with `end_encounter`).'
    ),
    "social_attack_skill": (
        "R76: the skill of a social attack roll (any skill name of the stat blocks)."
    ),
    "white_lie_statement": (
        "R28: the statement a caught white lie leaves: one size smaller (`smaller`) or the lie's "
        'own size (`same`).'
    ),
    "aura_gap_band": (
        'R25: the row of the harmony/discord table that the missing differences 11 to 14 (and -11 '
        'to -14) take: the lower (Small) or the upper (Medium).'
    ),
    "event_status_boost": "R25: the temporary Social Status an event attended gives.",
    "die_ladder_overflow": (
        'R30: upgrades beyond d20 and downgrades below d4 are lost (`clamp`), or each adds +1 (or '
        '-1) to the face (`modifier`; a face is at least 1).'
    ),
    "heal_rolls_again": (
        'R33: a successful Heal rolls the Mind die again for the amount (else the test roll '
        'heals).'
    ),
    "heal_self": "R33: a combatant may Heal itself.",
    "opposed_tie_reroll": (
        'R38: a tie of an opposed test is always rolled again after the die-size comparison (else '
        'it goes to the defender).'
    ),
    "default_speed_yards": "R60: the Speed of a stat block without `speed`, in yards.",
    "action_time_join_immediately": (
        'R32: a newcomer rolls at once and acts this round if its place comes after the current '
        'turn (else it enters at the start of the next round).'
    ),
    "anonymous_hidden_turns": (
        'R99: the table sees a turn of "someone behind the GM\'s screen" (`screen` in the order) '
        'every round, in which every hidden combatant takes its turn; set before '
        '`start_encounter`.'
    ),
    "screen_count": (
        'R99: the initiative count the GM\'s screen acts on with `anonymous_hidden_turns` (after '
        'the combatants on the same count); changed during the scene, it moves the screen from '
        'the next round.'
    ),
    "turn_seconds": (
        'A turn timer (R102): the seconds each turn may last, counted by the server from its '
        'start (`turn_timer_started`); none by default. Changed during the scene, it counts from '
        'the next turn.'
    ),
    "turn_warning_seconds": (
        'R102: how many seconds before a turn timer runs out everyone is warned '
        '(`turn_timer_warned`); 0, or as many as `turn_seconds` or more: no warning.'
    ),
    "turn_expiry": (
        'R102: what a turn timer running out does: `notify` (only `turn_timer_expired`), '
        '`end_turn` (the turn ends as if its combatant had ended it) or `delay` (its combatant '
        'delays, Dramatic only).'
    ),
    "dice_seed": (
        'Roll every server die from this seed, so that a scenario is reproducible (demos, tests); '
        'leave it out in play: without it the server dice are verifiable (R101), with it the '
        'GM can work every roll out in advance.'
    ),
}


def _opt(name: str) -> msgspec.Meta:
    return msgspec.Meta(description=OPTION_TEXT[name])


#: The options that change something in every ruleset (every option is accepted in any; each
#: ruleset's declaration names those it reads, ``Declaration.encounter_options``).
COMMON_OPTIONS = ("manual_rolls", "players_roll", "npc_rolls_public", "dice_seed",
                  "anonymous_hidden_turns", "screen_count", "turn_seconds",
                  "turn_warning_seconds", "turn_expiry")


class EncounterOptions(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    """Per-encounter switches, set at creation and changed by the GM with ``set_options``.

    - ``manual_rolls``: the GM rolls physical dice for the GM's combatants; the encounter waits
      in a *rolling* state with a ``roll_requested`` event until the faces come in.
    - ``players_roll``: players roll physical dice for their own combatants.
    - ``npc_rolls_public``: players and spectators see the dice of NPC rolls (default: the GM
      rolls behind the screen; results that follow from them are public).
    - ``dice_seed``: roll every server die from this seed, so a scenario is reproducible (demos,
      tests). Leave unset in play.
    - The other switches choose between readings of the rule text: see the rulings they name
      in docs/rulings.md (``surprise_when_none_aware`` R1, ``flat_footed_until_regular_turn``
      R2, ``delay_keeps_flat_footed`` R3, ``reactions_while_flat_footed`` R4,
      ``ready_costs_standard_action`` R8, ``recover_in_scene`` R18); resolving actions:
      ``creatures_block_line_of_sight`` R9, ``prone_helpless_bonuses_stack`` R10,
      ``engage_adds_half_level`` R12, ``dr_respects_minimum_damage`` R13,
      ``zero_fp_threshold_inclusive``, ``zero_fp_overflow_counts``, ``zero_fp_single_action``
      R14, ``condition_half_speed`` R15, ``prone_crawl_squares`` R19,
      ``squeeze_cost_multiplier`` R20, ``refined_garment_runs_triple`` R21,
      ``falling_acrobatics_dc``, ``falling_acrobatics_reduction_m`` R22,
      ``ram_speed_from_distance``, ``ram_needs_attack_roll`` R23, ``non_dexterous_penalty``
      R24, ``end_of_scene_recovery`` R50; social scenes: ``dispute_ends_at_unfriendly`` R26,
      ``white_lie_statement`` R28, ``social_attack_skill`` R76, ``aura_gap_band``,
      ``event_status_boost`` R25;
      "Action Time": ``die_ladder_overflow`` R30, ``heal_rolls_again``, ``heal_self`` R33,
      ``opposed_tie_reroll`` R38, ``default_speed_yards`` R60, ``action_time_join_immediately``
      R32; hidden turns: ``anonymous_hidden_turns``, ``screen_count`` R99; turn timers:
      ``turn_seconds``, ``turn_warning_seconds``, ``turn_expiry`` R102.
    """

    manual_rolls: Annotated[bool, _opt("manual_rolls")] = False
    players_roll: Annotated[bool, _opt("players_roll")] = False
    npc_rolls_public: Annotated[bool, _opt("npc_rolls_public")] = False
    surprise_when_none_aware: Annotated[bool, _opt("surprise_when_none_aware")] = False
    flat_footed_until_regular_turn: Annotated[bool, _opt("flat_footed_until_regular_turn")] = False
    delay_keeps_flat_footed: Annotated[bool, _opt("delay_keeps_flat_footed")] = True
    reactions_while_flat_footed: Annotated[bool, _opt("reactions_while_flat_footed")] = True
    ready_costs_standard_action: Annotated[bool, _opt("ready_costs_standard_action")] = False
    recover_in_scene: Annotated[bool, _opt("recover_in_scene")] = False
    creatures_block_line_of_sight: Annotated[bool, _opt("creatures_block_line_of_sight")] = False
    prone_helpless_bonuses_stack: Annotated[bool, _opt("prone_helpless_bonuses_stack")] = False
    engage_adds_half_level: Annotated[bool, _opt("engage_adds_half_level")] = True
    dr_respects_minimum_damage: Annotated[bool, _opt("dr_respects_minimum_damage")] = False
    zero_fp_threshold_inclusive: Annotated[bool, _opt("zero_fp_threshold_inclusive")] = False
    zero_fp_overflow_counts: Annotated[bool, _opt("zero_fp_overflow_counts")] = True
    zero_fp_single_action: Annotated[bool, _opt("zero_fp_single_action")] = True
    condition_half_speed: Annotated[bool, _opt("condition_half_speed")] = False
    prone_crawl_squares: Annotated[int, msgspec.Meta(ge=0, le=10), _opt("prone_crawl_squares")] = 1
    squeeze_cost_multiplier: Annotated[int, msgspec.Meta(ge=1, le=4),
        _opt("squeeze_cost_multiplier")] = 2
    refined_garment_runs_triple: Annotated[bool, _opt("refined_garment_runs_triple")] = False
    falling_acrobatics_dc: Annotated[int, msgspec.Meta(ge=0, le=100),
        _opt("falling_acrobatics_dc")] = 15
    falling_acrobatics_reduction_m: Annotated[int, msgspec.Meta(ge=0, le=30),
        _opt("falling_acrobatics_reduction_m")] = 3
    ram_speed_from_distance: Annotated[bool, _opt("ram_speed_from_distance")] = False
    ram_needs_attack_roll: Annotated[bool, _opt("ram_needs_attack_roll")] = True
    non_dexterous_penalty: Annotated[int, msgspec.Meta(ge=0, le=10),
        _opt("non_dexterous_penalty")] = 2
    end_of_scene_recovery: Annotated[bool, _opt("end_of_scene_recovery")] = True
    dispute_ends_at_unfriendly: Annotated[bool, _opt("dispute_ends_at_unfriendly")] = True
    social_attack_skill: Annotated[str, msgspec.Meta(min_length=1, max_length=40),
        _opt("social_attack_skill")] = "persuasion"
    white_lie_statement: Annotated[Literal["smaller", "same"],
        _opt("white_lie_statement")] = "smaller"
    aura_gap_band: Annotated[Literal["lower", "upper"], _opt("aura_gap_band")] = "lower"
    event_status_boost: Annotated[int, msgspec.Meta(ge=0, le=20), _opt("event_status_boost")] = 1
    die_ladder_overflow: Annotated[Literal["clamp", "modifier"],
        _opt("die_ladder_overflow")] = "clamp"
    heal_rolls_again: Annotated[bool, _opt("heal_rolls_again")] = False
    heal_self: Annotated[bool, _opt("heal_self")] = False
    opposed_tie_reroll: Annotated[bool, _opt("opposed_tie_reroll")] = False
    default_speed_yards: Annotated[int, msgspec.Meta(ge=0, le=1000),
        _opt("default_speed_yards")] = 10
    action_time_join_immediately: Annotated[bool, _opt("action_time_join_immediately")] = False
    anonymous_hidden_turns: Annotated[bool, _opt("anonymous_hidden_turns")] = False
    screen_count: Annotated[int, msgspec.Meta(ge=-1000, le=1000), _opt("screen_count")] = 0
    dice_seed: Annotated[int, msgspec.Meta(ge=0, le=2**53 - 1), _opt("dice_seed")] | None = None
    turn_seconds: Annotated[int, msgspec.Meta(ge=1, le=86_400), _opt("turn_seconds")] | None = None
    turn_warning_seconds: Annotated[int, msgspec.Meta(ge=0, le=86_400),
                                    _opt("turn_warning_seconds")] = 10
    turn_expiry: Annotated[Literal["notify", "end_turn", "delay"],
                           _opt("turn_expiry")] = "notify"
    ruleset_options: Annotated[dict[str, Any], _opt("ruleset_options")] = {}

