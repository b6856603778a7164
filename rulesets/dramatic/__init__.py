""""MLP Dramatic Systems" (d20), as the engine interprets it: its actions, its surprise round,
its steps at the edges of turns, rounds and the scene, its GM commands and its part of views.
"""

from __future__ import annotations

from encounter.ruleset import Declaration
from encounter.schemas import command_schema_id
from protocol import messages as msg
from protocol.messages import LegalAction
from rules.rulesets import DramaticSystems
from rules.sheet import Sheet
from rulesets.dramatic import battle, perception, reference, rulings, social
from rulesets.dramatic.actions import CATALOG
from rulesets.dramatic.flow import (
    after_roll,
    after_scene,
    initial_vitals,
    rest,
    scene_started,
    size_of,
    turn_started,
    turn_starting,
)
from rulesets.dramatic.fold import FOLDS
from rulesets.dramatic.resolution import EFFECT_TARGETS
from rulesets.dramatic.snapshot import DramaticView
from rulesets.dramatic.time import TIME
from rulesets.dramatic.views import (
    answers_view,
    arguments_view,
    attitudes_view,
    blocking_view,
    debate_view,
    flying_view,
    grabs_view,
    numbers_of,
    numbers_read_of,
    reservations_view,
    social_view,
)
from rulesets.dramatic.words import WORDS

#: The GM's commands for what the rules leave to the GM, offered while the encounter runs.
GM_TOOLS = ("adjudicate", "adjust_combatant", "set_map", "place_combatant", "fall", "collide",
            "load_object", "size_argument", "set_attitude", "rule_doubt", "set_social_event",
            "set_social_situation")

RULESET = Declaration(
    name="dramatic",
    title="MLP Dramatic Systems",
    rules=DramaticSystems(),
    catalog=CATALOG,
    surprise_round=True,
    turn_starting=turn_starting,
    turn_started=turn_started,
    scene_started=scene_started,
    after_scene=after_scene,
    rest=rest,
    after_roll=after_roll,
    readied_moves_order=True,
    initial_vitals=initial_vitals,
    size_of=size_of,
    commands={
        msg.CallPerception: perception.call_perception,
        msg.SetMap: battle.set_map,
        msg.PlaceCombatant: battle.place_combatant,
        msg.Adjudicate: rulings.adjudicate,
        msg.Fall: rulings.fall,
        msg.Collide: rulings.collide,
        msg.LoadObject: rulings.load_object,
        msg.SizeArgument: social.size_argument,
        msg.SetAttitude: social.set_attitude,
        msg.RuleDoubt: social.rule_doubt,
        msg.SetSocialEvent: social.set_social_event,
        msg.SetSocialSituation: social.set_social_situation,
    },
    reach=battle.reach,
    gm_tools=tuple(LegalAction(action=name, args_schema=command_schema_id(name), group="scene")
                   for name in GM_TOOLS),
    views=(flying_view, grabs_view, arguments_view, attitudes_view, blocking_view, answers_view,
           reservations_view, debate_view, social_view),
    combatant_views=(("numbers", numbers_of),),
    combatant_view_reads={"numbers": {"vitals": numbers_read_of}},
    view=DramaticView,
    folds=FOLDS,
    words=WORDS,
    effect_targets=EFFECT_TARGETS,
    stats=Sheet,
    stats_schema=reference.stats_schema,
    encounter_options=(  # those that change something in it
        "manual_rolls", "players_roll", "npc_rolls_public", "surprise_when_none_aware",
        "flat_footed_until_regular_turn", "delay_keeps_flat_footed", "reactions_while_flat_footed",
        "ready_costs_standard_action", "recover_in_scene", "creatures_block_line_of_sight",
        "prone_helpless_bonuses_stack", "engage_adds_half_level", "dr_respects_minimum_damage",
        "zero_fp_threshold_inclusive", "zero_fp_overflow_counts", "zero_fp_single_action",
        "condition_half_speed", "prone_crawl_squares", "squeeze_cost_multiplier",
        "refined_garment_runs_triple", "falling_acrobatics_dc", "falling_acrobatics_reduction_m",
        "ram_speed_from_distance", "ram_needs_attack_roll", "non_dexterous_penalty",
        "end_of_scene_recovery", "dispute_ends_at_unfriendly", "social_attack_skill",
        "white_lie_statement", "aura_gap_band", "event_status_boost", "dice_seed"),
    stats_sections=reference.STATS_SECTIONS,
    costs_text=reference.COSTS,
    stacking_text=reference.STACKING,
    example_stat_block=reference.EXAMPLE_BLOCK,
    example_encounter=reference.EXAMPLE_ENCOUNTER,
    example_args=reference.EXAMPLE_ARGS,
    time=TIME,
)
