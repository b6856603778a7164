""""MLP Dramatic Systems" (d20), as the engine interprets it: its actions, its surprise round,
its steps at the edges of turns, rounds and the scene, its GM commands and its part of views.
"""

from __future__ import annotations

from encounter.ruleset import Declaration
from encounter.schemas import command_schema_id
from protocol import messages as msg
from protocol.messages import LegalAction
from protocol.model import RULESET_OPTIONS
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
from rulesets.dramatic.views import (
    answers_view,
    arguments_view,
    attitudes_view,
    blocking_view,
    debate_view,
    flying_view,
    grabs_view,
    numbers_view,
    social_view,
)

#: The GM's commands for what the rules leave to the GM, offered while the encounter runs.
GM_TOOLS = ("adjudicate", "adjust_combatant", "set_map", "place_combatant", "fall", "collide",
            "load_object", "size_argument", "set_attitude", "set_social_event",
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
        msg.SetSocialEvent: social.set_social_event,
        msg.SetSocialSituation: social.set_social_situation,
    },
    gm_tools=tuple(LegalAction(action=name, args_schema=command_schema_id(name))
                   for name in GM_TOOLS),
    views=(flying_view, grabs_view, arguments_view, attitudes_view, blocking_view, answers_view,
           debate_view, social_view, numbers_view),
    folds=FOLDS,
    effect_targets=EFFECT_TARGETS,
    stats=Sheet,
    stats_schema=reference.stats_schema,
    encounter_options=RULESET_OPTIONS["dramatic"],
    stats_sections=reference.STATS_SECTIONS,
    costs_text=reference.COSTS,
    stacking_text=reference.STACKING,
    example_stat_block=reference.EXAMPLE_BLOCK,
    example_encounter=reference.EXAMPLE_ENCOUNTER,
    example_args=reference.EXAMPLE_ARGS,
)
