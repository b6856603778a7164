""""Action Time" (Tails of Thedastria, ability dice), as the engine interprets it: its
actions, its steps at the edges of turns and rounds, newcomers rolling at the next round
(R32), its part of views. It has no surprise round: everyone rolls initiative and acts in
order, aware or not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from encounter.ruleset import Declaration
from encounter.schemas import command_schema_id
from encounter.state import EncounterState
from protocol.messages import LegalAction
from protocol.model import COMMON_OPTIONS
from rules.action_time.sheet import Sheet
from rules.rulesets import ActionTime
from rulesets.action_time import actions as at
from rulesets.action_time import reference
from rulesets.action_time.fold import FOLDS
from rulesets.action_time.snapshot import ActionTimeView
from rulesets.action_time.time import TIME
from rulesets.action_time.words import WORDS


def _joins_next_round(s: EncounterState) -> bool:
    """R32: "If new ponies join the encounter, they roll initiative at the start of the round
    they appear" (``action_time_join_immediately``: at once)."""
    return s.round >= 1 and not s.options.action_time_join_immediately


def _view(s: EncounterState, visible: set[str], controls: Callable[[str], bool],
          full: bool, stats: set[str]) -> tuple[str, Any]:
    return "action_time", at.view(s, visible, controls, full, stats)


RULESET = Declaration(
    name="action_time",
    title="Action Time",
    rules=ActionTime(),
    catalog=at.CATALOG,
    turn_started=at.turn_started,
    round_ending=at.round_ending,
    round_started=at.newcomers_join,
    turn_passes=at.turn_passes,
    after_roll=at.after_roll,
    interrupt_ended=at.next_pursuit,
    joins_next_round=_joins_next_round,
    initial_vitals=at.initial_vitals,
    out_of_fight=("defenseless",),  # 0 Health: out of the fight until healed (R29)
    vitals_label="Health",  # R29: Health, in the vitals' ``fatigue`` fields
    vitals_bands={"full": "unhurt", "above_half": "hurt", "half_or_less": "badly hurt",
                  "none": "at 0 Health"},  # R105, in Health's words
    # no condition tracks and no helplessness of the GM's in Action Time
    override_fields=("fatigue", "fatigue_max", "prone", "condition"),
    views=(_view,),
    view=ActionTimeView,
    folds=FOLDS,
    words=WORDS,
    gm_tools=(LegalAction(action="adjust_combatant",
                          args_schema=command_schema_id("adjust_combatant"), group="scene"),),
    effect_targets=at.EFFECT_TARGETS,
    stats=Sheet,
    stats_schema=reference.stats_schema,
    encounter_options=(  # those that change something in it
        *COMMON_OPTIONS, "die_ladder_overflow", "heal_rolls_again", "heal_self",
        "opposed_tie_reroll", "default_speed_yards", "action_time_join_immediately"),
    stats_rows=reference.STATS_ROWS,
    stats_sections=reference.STATS_SECTIONS,
    costs_text=reference.COSTS,
    stacking_text=reference.STACKING,
    example_stat_block=reference.EXAMPLE_BLOCK,
    example_args=reference.EXAMPLE_ARGS,
    time=TIME,
)
