"""Action Time's major and minor actions, one test per action and ruling (Major Actions, Minor
Actions; rulings R29, R33-R37, R51, R60-R62)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.action_time.actions import (
    ACTIONS,
    after_action,
    aim,
    cast_kind,
    charge_move,
    defend,
    guard_up,
    heal_amount,
    in_hoof_at_start,
    move,
    plan_attack,
    plan_heal,
    plan_stand_firm,
    prepare,
    press_the_attack,
    pursuit_triggered,
    ready,
    reload_kind,
    resolve_attack,
    resolve_damage,
    resolve_heal,
    resolve_stand_firm,
    run,
    stand_firm,
    stand_firm_applies,
    start_turn,
    take_prepared,
)
from rules.action_time.effects import DEFENSE, Effect, add_effect, at_round_end, net
from rules.action_time.health import Vitals, take_damage, vitals_for
from rules.action_time.options import AtOptions
from rules.action_time.sheet import Sheet, parse_sheet
from rules.action_time.turn_budget import ActionKind, TurnBudget, spend
from rules.actions import IllegalAction

AJ = parse_sheet({"body": "d10", "mind": "d6", "health": 14, "defense": 10, "speed": 8,
                  "bandages": "ready",
                  "weapons": [{"name": "Hooves", "damage": "d6"},
                              {"name": "Lasso", "damage": "d4", "kind": "ranged", "range": 6,
                               "reload": "free"}]})
BRUTE = parse_sheet({"body": "d8", "mind": "d4", "health": 12, "defense": 6,
                     "weapons": [{"name": "Claws", "damage": "d8"}]})
TWI = parse_sheet({"body": "d6", "mind": "d12", "health": 10, "defense": 8, "bandages": "stowed",
                   "spells": [{"name": "Shield", "cast": "minor"}, {"name": "Bolt"}]})


def attack(action: str, effects: list[Effect] | tuple[Effect, ...] = (), *, weapon: str = "Hooves",
           distance: int = 2, target_sheet: Sheet = BRUTE, **kw: Any) -> Any:
    return plan_attack(action, attacker="aj", sheet=AJ, weapon=weapon, target="brute",
                       target_sheet=target_sheet, distance=distance, effects=list(effects), **kw)


def test_the_catalog_has_every_action_of_the_text() -> None:
    majors = {n for n, a in ACTIONS.items() if a.kind is ActionKind.MAJOR}
    minors = {n for n, a in ACTIONS.items() if a.kind is ActionKind.MINOR}
    assert majors == {"all_out_attack", "charge", "defend", "heal", "melee_attack",
                      "ranged_attack", "run", "other_major"}
    assert minors == {"activate", "aim", "guard_up", "move", "prepare", "press_the_attack",
                      "ready", "stand_firm", "other_minor"}
    assert ACTIONS["stand_firm"].section == "Minor Actions: STAND FIRM"


def test_cast_and_reload_cost_what_the_stat_block_says_r60() -> None:
    assert cast_kind(TWI, "Shield") is ActionKind.MINOR
    assert cast_kind(TWI, "Bolt") is ActionKind.MAJOR
    assert reload_kind(AJ, "Lasso") is ActionKind.FREE
    assert reload_kind(AJ, "Hooves") is None


# ---------------------------------------------------------------- Melee and Ranged Attack


def test_melee_attack_hits_when_the_face_meets_defense_r29() -> None:
    plan = attack("melee_attack")
    assert (plan.check.die.sides, plan.defense, plan.damage.sides) == (10, 6, 6)
    assert resolve_attack(plan, 6).hit
    missed = resolve_attack(plan, 5)
    assert not missed.hit and missed.damage_die is None
    damage = resolve_damage(plan, 4, vitals_for(12))
    assert (damage.amount, damage.vitals.health) == (4, 8)


def test_melee_attack_needs_the_enemy_within_2_yards() -> None:
    with pytest.raises(IllegalAction, match=r"adjacent \(within 2 yards\); it is 3 yards away"):
        attack("melee_attack", distance=3)


def test_ranged_attack_needs_a_ranged_weapon_in_range_and_a_visible_enemy() -> None:
    assert attack("ranged_attack", weapon="Lasso", distance=6).damage.sides == 4
    with pytest.raises(IllegalAction, match=r"within range \(6 yards\)"):
        attack("ranged_attack", weapon="Lasso", distance=7)
    with pytest.raises(IllegalAction, match="needs a ranged weapon"):
        attack("ranged_attack", weapon="Hooves")
    with pytest.raises(IllegalAction, match="visible"):
        attack("ranged_attack", weapon="Lasso", visible=False)


def test_attacks_need_defense_and_health_r29() -> None:
    with pytest.raises(IllegalAction, match="brute has no defense"):
        attack("melee_attack", target_sheet=parse_sheet({"body": "d8", "health": 5}))
    with pytest.raises(IllegalAction, match="no weapon named 'Axe'"):
        attack("melee_attack", weapon="Axe")


def test_a_stowed_weapon_needs_ready_first() -> None:
    with pytest.raises(IllegalAction, match="stowed"):
        attack("melee_attack", in_hoof=frozenset({"Lasso"}))
    assert attack("melee_attack", in_hoof=frozenset({"Hooves"})).weapon == "Hooves"


def test_damage_stops_at_0_health_and_takes_the_fight_out_r29() -> None:
    plan = attack("melee_attack")
    result = resolve_damage(plan, 6, Vitals(health=3, max_health=12))
    assert result.vitals.health == 0 and result.vitals.out_of_fight
    assert start_turn([], "brute", result.vitals).budget.ended


# ---------------------------------------------------------------- All-Out Attack and Charge


def test_all_out_attack_upgrades_damage_and_lowers_defense_hit_or_miss() -> None:
    plan = attack("all_out_attack")
    assert plan.damage.sides == 8  # d6 upgraded
    assert plan.damage_steps.explain() == "All-Out Attack +1 = +1"
    (penalty,) = plan.attacker_effects
    assert (penalty.holder, penalty.target, penalty.value) == ("aj", DEFENSE, -1)
    assert penalty.expiry == "start_of_next_turn:aj"
    assert not resolve_attack(plan, 1).hit  # the penalty stands anyway: the engine adds it


def test_charge_moves_half_speed_then_attacks_with_an_upgrade() -> None:
    assert charge_move(9, prone=False).yards == 4
    plan = attack("charge")
    assert plan.check.die.sides == 12
    assert plan.check.steps.explain() == "Charge +1 = +1"


def test_charge_is_refused_while_prone_r62() -> None:
    with pytest.raises(IllegalAction, match="R62"):
        charge_move(8, prone=True)


def test_aim_and_charge_both_apply_r35() -> None:
    effects = aim("aj")
    plan = attack("charge", effects)
    assert plan.check.die.sides == 20  # d10 -> d12 -> d20
    assert after_action(effects, "aj", "charge").ended == effects


def test_two_aims_give_one_upgrade_r51() -> None:
    effects = add_effect(aim("aj"), aim("aj")[0])
    assert attack("melee_attack", effects).check.die.sides == 12


def test_free_actions_do_not_break_aim_other_actions_use_it_r35() -> None:
    effects = aim("aj")
    assert after_action(effects, "aj", "free").kept == effects
    assert after_action(effects, "aj", "move").ended == effects


# ---------------------------------------------------------------- Defend and Guard Up


def test_defend_adds_2_until_the_start_of_the_next_turn() -> None:
    effects = defend("brute")
    assert attack("melee_attack", effects).defense == 8
    assert at_round_end(effects).kept == effects
    assert start_turn(effects, "brute", None).ended == effects


def test_guard_up_adds_defense_and_downgrades_all_tests_until_round_end() -> None:
    effects = guard_up("aj", 2, spend(TurnBudget.fresh(), ActionKind.MINOR, "move"))
    assert net(effects, "aj", DEFENSE).total == 2
    aj_attack = plan_attack("melee_attack", attacker="aj", sheet=AJ, weapon="Hooves",
                            target="brute", target_sheet=BRUTE, distance=1, effects=list(effects))
    assert aj_attack.check.die.sides == 6  # d10 double-downgraded
    assert at_round_end(effects).kept == ()


def test_guard_up_penalty_ends_with_the_round_defend_lasts_to_the_next_turn() -> None:
    effects = (*defend("aj"), *guard_up("aj", 1, TurnBudget.fresh()))
    assert net(effects, "aj", DEFENSE).total == 3
    after_round = at_round_end(effects).kept
    assert net(after_round, "aj", DEFENSE).total == 2
    assert net(start_turn(after_round, "aj", None).effects, "aj", DEFENSE).total == 0


def test_guard_up_only_before_a_major_action_and_plus_1_or_2() -> None:
    after_major = spend(TurnBudget.fresh(), ActionKind.MAJOR, "melee_attack")
    with pytest.raises(IllegalAction, match="before any major action"):
        guard_up("aj", 1, after_major)
    with pytest.raises(IllegalAction, match=r"\+1 or \+2"):
        guard_up("aj", 3, TurnBudget.fresh())


def test_a_second_guard_up_replaces_the_first_r51() -> None:
    effects: tuple[Effect, ...] = ()
    for e in (*guard_up("aj", 2, TurnBudget.fresh()), *guard_up("aj", 1, TurnBudget.fresh())):
        effects = add_effect(effects, e)
    assert net(effects, "aj", DEFENSE).total == 1
    assert len(effects) == 2


# ---------------------------------------------------------------- Heal


def heal(**kw: Any) -> Any:
    args: dict[str, Any] = {"healer": "aj", "sheet": AJ, "in_hoof": in_hoof_at_start(AJ),
                            "target": "dash", "same_side": True, "distance": 2,
                            "target_vitals": Vitals(health=3, max_health=12), "effects": []}
    args.update(kw)
    return plan_heal(**args)


def test_heal_is_a_difficulty_4_mind_test_healing_the_face_r33() -> None:
    planned = heal()
    assert planned.die.sides == 6
    result = resolve_heal(planned, 5, Vitals(health=3, max_health=12))
    assert (result.check.success, result.healed, result.vitals.health) == (True, 5, 8)
    assert result.vitals.healed
    failed = resolve_heal(planned, 3, Vitals(health=3, max_health=12))
    assert (failed.healed, failed.vitals.healed) == (0, False)


def test_heal_stops_at_maximum_health() -> None:
    result = resolve_heal(heal(), 6, Vitals(health=10, max_health=12))
    assert (result.healed, result.vitals.health) == (2, 12)


def test_no_second_heal_until_damaged_again_r33() -> None:
    healed = Vitals(health=8, max_health=12, healed=True)
    with pytest.raises(IllegalAction, match="until it takes damage again"):
        heal(target_vitals=healed)
    assert heal(target_vitals=take_damage(healed, 1)).die.sides == 6


@pytest.mark.parametrize(("kw", "problem"), [
    ({"target": "aj"}, "not yourself"),
    ({"same_side": False}, "ally"),
    ({"distance": 3}, "adjacent"),
    ({"in_hoof": frozenset()}, "bandages ready"),
    ({"target_vitals": Vitals(health=12, max_health=12)}, "not injured"),
])
def test_heal_refusals_r33(kw: dict[str, Any], problem: str) -> None:
    with pytest.raises(IllegalAction, match=problem):
        heal(**kw)


def test_heal_options_r33() -> None:
    assert heal(target="aj", options=AtOptions(heal_self=True)).ability == "mind"
    options = AtOptions(heal_rolls_again=True)
    first = resolve_heal(heal(), 4, Vitals(health=3, max_health=12), options)
    assert first.amount_die is not None and first.healed == 0
    second = heal_amount(first, 2)
    assert (second.healed, second.vitals.health, second.vitals.healed) == (2, 5, True)


def test_ready_draws_bandages_and_stows_a_weapon() -> None:
    held = in_hoof_at_start(TWI)
    assert held == frozenset()
    held = ready(TWI, held, draw="bandages")
    assert held == {"bandages"}
    aj_held = ready(AJ, in_hoof_at_start(AJ), draw="Potion", stow="Lasso")
    assert aj_held == {"Hooves", "bandages", "Potion"}
    with pytest.raises(IllegalAction, match="already in hoof"):
        ready(AJ, aj_held, draw="Hooves")


# ---------------------------------------------------------------- Run and Move


def test_run_doubles_speed_not_while_prone() -> None:
    assert run(8, prone=False).yards == 16
    with pytest.raises(IllegalAction, match="prone"):
        run(8, prone=True)


@pytest.mark.parametrize(("prone", "posture", "yards", "prone_after"), [
    (False, "none", 9, False),
    (False, "go_prone", 4, True),
    (True, "stand", 4, False),
    (False, "mount", 4, False),
    (True, "none", 4, True),  # R34: prone and not standing
])
def test_move(prone: bool, posture: Any, yards: int, prone_after: bool) -> None:
    result = move(9, prone=prone, posture=posture)
    assert (result.yards, result.prone_after) == (yards, prone_after)


def test_a_second_move_after_standing_has_full_speed_r34() -> None:
    first = move(9, prone=True, posture="stand")
    assert move(9, prone=first.prone_after).yards == 9


# ---------------------------------------------------------------- Prepare


def test_prepare_names_a_major_action_and_ends_the_turn_r36() -> None:
    prepared = prepare("aj", "melee_attack", TurnBudget.fresh())
    assert prepared.budget.ended and prepared.budget.minors == 1
    effects = (prepared.effect,)
    assert take_prepared(effects, "aj", "melee_attack") == ()


def test_a_prepared_action_lapses_at_the_preparers_next_turn_r36() -> None:
    effects = (prepare("aj", "defend", TurnBudget.fresh()).effect,)
    lapsed = start_turn(effects, "aj", None).effects
    with pytest.raises(IllegalAction, match="no prepared Defend"):
        take_prepared(lapsed, "aj", "defend")
    with pytest.raises(IllegalAction, match="no prepared Melee attack"):
        take_prepared(effects, "aj", "melee_attack")


def test_prepare_refused_after_a_major_action_or_for_a_minor_r36() -> None:
    after_major = spend(TurnBudget.fresh(), ActionKind.MAJOR, "run")
    with pytest.raises(IllegalAction, match="R36"):
        prepare("aj", "melee_attack", after_major)
    with pytest.raises(IllegalAction, match="names a major action"):
        prepare("aj", "move", TurnBudget.fresh())


# ---------------------------------------------------------------- Press the Attack


def test_press_the_attack_triggers_once_on_a_retreat_r37() -> None:
    (pursuit,) = press_the_attack("aj", "brute", distance=2, struck_in_melee=True, speed=8)
    assert pursuit.value == 8 and pursuit.expiry == "start_of_next_turn:aj"
    assert pursuit_triggered(pursuit, "brute", own_action=True, distance_before=2,
                             distance_after=7)
    assert not pursuit_triggered(pursuit, "brute", own_action=False, distance_before=2,
                                 distance_after=7)  # shoved: not its own movement
    assert not pursuit_triggered(pursuit, "brute", own_action=True, distance_before=2,
                                 distance_after=1)  # moved closer
    assert not pursuit_triggered(pursuit, "digger", own_action=True, distance_before=2,
                                 distance_after=7)


def test_press_the_attack_needs_an_adjacent_enemy_struck_in_melee_r37() -> None:
    with pytest.raises(IllegalAction, match="struck in melee"):
        press_the_attack("aj", "brute", distance=2, struck_in_melee=False, speed=8)
    with pytest.raises(IllegalAction, match="adjacent"):
        press_the_attack("aj", "brute", distance=3, struck_in_melee=True, speed=8)


# ---------------------------------------------------------------- Stand Firm


def test_stand_firm_makes_stunts_an_opposed_body_test_r38() -> None:
    effects = stand_firm("aj")
    assert stand_firm_applies(effects, "aj") and not stand_firm_applies(effects, "brute")
    brute_plan, aj_plan = plan_stand_firm(user="brute", user_sheet=BRUTE, target="aj",
                                          target_sheet=AJ, effects=effects)
    assert (brute_plan.die.sides, aj_plan.die.sides) == (8, 10)
    assert resolve_stand_firm("brute", brute_plan, 7, "aj", aj_plan, 3).winner == "first"
    assert resolve_stand_firm("brute", brute_plan, 5, "aj", aj_plan, 5).winner == "second"
    assert start_turn(effects, "aj", None).effects == ()


def test_stand_firm_test_feels_guard_up() -> None:
    effects = (*stand_firm("aj"), *guard_up("aj", 1, TurnBudget.fresh()))
    _, aj_plan = plan_stand_firm(user="brute", user_sheet=BRUTE, target="aj", target_sheet=AJ,
                                 effects=effects)
    assert aj_plan.die.sides == 8
