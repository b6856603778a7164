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
CombatantKind = Literal["pc", "npc"]
Coordinate = Annotated[int, msgspec.Meta(ge=0, le=1000)]
#: A square of the battle map, ``[x, y]`` (x to the right, y downwards, from 0).
Square = tuple[Coordinate, Coordinate]
RulesetName = Literal["dramatic", "action_time"]

#: Integration credential scopes. ``view:gm`` sees what the GM sees; ``command:gm`` may send
#: GM commands; ``command:players`` may act for every player character; ``roll`` may answer
#: roll requests addressed to the GM.
Scope = Literal["view:public", "view:gm", "command:gm", "command:players", "roll"]


class StatBlock(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A combatant as the GM writes it (JSON, or YAML in ``create_encounter.combatants_yaml``).

    ``initiative`` is the Initiative modifier ("MLP Dramatic Systems", INITIATIVE). ``aware``:
    aware of its opponents when the scene starts (AWARENESS AND SURPRISE; ruling R42).
    ``group``: NPCs with the same group name roll one Initiative check and act on one count
    (ruling R6). ``stats`` holds the ruleset's statistics: for "MLP Dramatic Systems" the
    sheet of ``rules/sheet.py`` (abilities, skills, defenses, fatigue points, weapons, damage
    reduction...), for "Action Time" ability dice such as ``{"body": "d8", "mind": "d6"}``
    (``rules/action_time/sheet.py``). ``id`` defaults to a slug of the name; ``side`` defaults
    to ``party`` for player characters and ``enemies`` for NPCs. ``position``: the top-left
    square ``[x, y]`` of its space on the encounter's battle map, if it has one.
    """

    name: Name
    id: CombatantId | None = None
    kind: CombatantKind = "npc"
    side: Annotated[str, msgspec.Meta(min_length=1, max_length=40)] | None = None
    initiative: Annotated[int, msgspec.Meta(ge=-50, le=50)] = 0
    hidden: bool = False
    aware: bool = True
    group: Annotated[str, msgspec.Meta(min_length=1, max_length=40)] | None = None
    position: Square | None = None
    stats: dict[str, Any] = {}


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
      R32.
    """

    manual_rolls: bool = False
    players_roll: bool = False
    npc_rolls_public: bool = False
    surprise_when_none_aware: bool = False
    flat_footed_until_regular_turn: bool = False
    delay_keeps_flat_footed: bool = True
    reactions_while_flat_footed: bool = True
    ready_costs_standard_action: bool = False
    recover_in_scene: bool = False
    creatures_block_line_of_sight: bool = False
    prone_helpless_bonuses_stack: bool = False
    engage_adds_half_level: bool = True
    dr_respects_minimum_damage: bool = False
    zero_fp_threshold_inclusive: bool = False
    zero_fp_overflow_counts: bool = True
    zero_fp_single_action: bool = True
    condition_half_speed: bool = False
    prone_crawl_squares: Annotated[int, msgspec.Meta(ge=0, le=10)] = 1
    squeeze_cost_multiplier: Annotated[int, msgspec.Meta(ge=1, le=4)] = 2
    refined_garment_runs_triple: bool = False
    falling_acrobatics_dc: Annotated[int, msgspec.Meta(ge=0, le=100)] = 15
    falling_acrobatics_reduction_m: Annotated[int, msgspec.Meta(ge=0, le=30)] = 3
    ram_speed_from_distance: bool = False
    ram_needs_attack_roll: bool = True
    non_dexterous_penalty: Annotated[int, msgspec.Meta(ge=0, le=10)] = 2
    end_of_scene_recovery: bool = True
    dispute_ends_at_unfriendly: bool = True
    social_attack_skill: Annotated[str, msgspec.Meta(min_length=1, max_length=40)] = "persuasion"
    white_lie_statement: Literal["smaller", "same"] = "smaller"
    aura_gap_band: Literal["lower", "upper"] = "lower"
    event_status_boost: Annotated[int, msgspec.Meta(ge=0, le=20)] = 1
    die_ladder_overflow: Literal["clamp", "modifier"] = "clamp"
    heal_rolls_again: bool = False
    heal_self: bool = False
    opposed_tie_reroll: bool = False
    default_speed_yards: Annotated[int, msgspec.Meta(ge=0, le=1000)] = 10
    action_time_join_immediately: bool = False
    dice_seed: Annotated[int, msgspec.Meta(ge=0, le=2**53 - 1)] | None = None
