"""The attack roll (rules/attack.py): ATTACK ROLL, range, COVER, CONCEALMENT, PRONE TARGETS,
HELPLESS CONDITION, RANGED MANEUVER INTO A MELEE, Aid Another, Distraction, Critical Hits and
Automatic Misses; rulings R9, R10, R11, R15, R41, R44, R53."""

from __future__ import annotations

import pytest

from rules.attack import (
    AttackKind,
    Concealment,
    Cover,
    RangeBand,
    Situation,
    aid_another,
    attack_check,
    attack_outcome,
    distraction,
    perception_modifiers,
)
from rules.condition_track import Track
from rules.defenses import DefenseName, Status
from rules.modifiers import RuleRefusal
from rules.sheet import Weapon, WeaponKind, parse_sheet

ARCHER = parse_sheet({
    "dex": 14, "skills": {"melee": 4, "ranged": 6},
    "weapons": [
        {"name": "bow", "damage": "1d8", "kind": "ranged",
         "ranges": {"point_blank": 5, "short": 10, "medium": 15, "long": 20}},
        {"name": "dagger", "damage": "1d4", "kind": "melee"},
        {"name": "javelin", "damage": "1d6", "kind": "thrown"},
    ]})
SHARPSHOOTER = parse_sheet({"skills": {"ranged": 6}, "feats": ["precise_shot"],
                            "weapons": [{"name": "bow", "damage": "1d8", "kind": "ranged"}]})
TARGET = parse_sheet({})  # Reflex 10, Will 10
NEAR = Situation(distance=3)


def parts(check: object) -> list[tuple[str, int]]:
    return [(p.name, p.value) for p in check.parts]  # type: ignore[attr-defined]


def test_a_melee_attack_uses_the_melee_skill_against_reflex() -> None:
    """ATTACK ROLL: 1d20 + Melee skill score against Reflex Defense."""
    check = attack_check(ARCHER, TARGET, weapon="dagger")
    assert check.kind is AttackKind.MELEE and check.skill == "melee"
    assert parts(check) == [("Melee skill", 4)]
    assert (check.bonus, check.defense.total, check.defense.name) == (4, 10, DefenseName.REFLEX)


def test_unarmed_is_the_default_attack() -> None:
    check = attack_check(ARCHER, TARGET)
    assert (check.weapon, check.kind, check.bonus) == ("unarmed", AttackKind.UNARMED, 4)


@pytest.mark.parametrize(("distance", "band", "bonus"), [
    (1, RangeBand.POINT_BLANK, 6), (5, RangeBand.POINT_BLANK, 6), (6, RangeBand.SHORT, 4),
    (15, RangeBand.MEDIUM, 1), (20, RangeBand.LONG, -4),
])
def test_range_penalties(distance: int, band: RangeBand, bonus: int) -> None:
    """STANDARD ACTIONS -> Ranged: point blank 0, short -2, medium -5, long -10."""
    check = attack_check(ARCHER, TARGET, weapon="bow", situation=Situation(distance=distance))
    assert (check.range_band, check.bonus) == (band, bonus)


def test_beyond_long_range_is_refused() -> None:
    with pytest.raises(RuleRefusal, match="beyond the long range of bow"):
        attack_check(ARCHER, TARGET, weapon="bow", situation=Situation(distance=21))


def test_a_ranged_attack_needs_a_distance_or_band() -> None:
    with pytest.raises(ValueError, match="distance or the range band"):
        attack_check(ARCHER, TARGET, weapon="bow")
    check = attack_check(ARCHER, TARGET, weapon="bow",
                         situation=Situation(range_band=RangeBand.MEDIUM))
    assert check.bonus == 1


def test_thrown_weapons_use_the_default_thrown_ranges() -> None:
    """A thrown weapon without ranges: 6/8/10/12 squares (SWSE); 7 squares is short range."""
    check = attack_check(ARCHER, TARGET, weapon="javelin", situation=Situation(distance=7))
    assert (check.kind, check.skill, check.bonus) == (AttackKind.THROWN, "ranged", 4)


def test_improvised_thrown_objects_take_minus_5() -> None:
    """STANDARD ACTIONS -> Improvised Thrown Objects: -5, also for a weapon not made to be
    thrown."""
    vase = Weapon(name="vase", damage="1d4", kind=WeaponKind.THROWN, improvised=True)
    assert attack_check(ARCHER, TARGET, weapon=vase, situation=NEAR).bonus == 1
    dagger = attack_check(ARCHER, TARGET, weapon="dagger", throw=True, situation=NEAR)
    assert ("improvised thrown object", -5) in parts(dagger) and dagger.bonus == 1


def test_cover_and_improved_cover_raise_reflex() -> None:
    """COVER: +2; Improved Cover: +4 — to the Reflex Defense, itemised there."""
    cover = attack_check(ARCHER, TARGET, weapon="bow",
                         situation=Situation(distance=3, cover=Cover.COVER))
    assert cover.defense.total == 12 and cover.defense.parts[-1].name == "cover"
    improved = attack_check(ARCHER, TARGET, weapon="bow",
                            situation=Situation(distance=3, cover=Cover.IMPROVED))
    assert improved.defense.total == 14


def test_an_adjacent_target_never_has_cover() -> None:
    check = attack_check(ARCHER, TARGET, weapon="dagger",
                         situation=Situation(adjacent=True, cover=Cover.COVER))
    assert check.defense.total == 10


def test_cover_does_not_raise_other_defenses() -> None:
    check = attack_check(ARCHER, TARGET, weapon="bow", situation=Situation(
        distance=3, cover=Cover.COVER, defense=DefenseName.WILL))
    assert (check.defense.name, check.defense.total) == (DefenseName.WILL, 10)


def test_total_cover_refuses_the_attack() -> None:
    with pytest.raises(RuleRefusal, match="total cover"):
        attack_check(ARCHER, TARGET, weapon="bow",
                     situation=Situation(distance=3, cover=Cover.TOTAL))


def test_a_creature_in_the_way_gives_cover() -> None:
    """R9: a creature between attacker and target gives cover, and does not block the shot."""
    sit = Situation(distance=3, creatures_in_the_way=True)
    assert attack_check(ARCHER, TARGET, weapon="bow", situation=sit).defense.total == 12
    with pytest.raises(RuleRefusal, match="creatures_block_line_of_sight"):
        attack_check(ARCHER, TARGET, weapon="bow", situation=sit,
                     creatures_block_line_of_sight=True)


@pytest.mark.parametrize(("concealment", "bonus"), [
    (Concealment.CONCEALMENT, 4), (Concealment.TOTAL, 1)])
def test_concealment(concealment: Concealment, bonus: int) -> None:
    """CONCEALMENT: -2; Total Concealment: -5 (attacking the square)."""
    check = attack_check(ARCHER, TARGET, weapon="bow",
                         situation=Situation(distance=3, concealment=concealment))
    assert check.bonus == bonus


def test_concealment_on_perception() -> None:
    """CONCEALMENT: Perception -5, total concealment -10."""
    assert [m.value for m in perception_modifiers(Concealment.CONCEALMENT)] == [-5]
    assert [m.value for m in perception_modifiers(Concealment.TOTAL)] == [-10]
    assert perception_modifiers(Concealment.NONE) == []


def test_prone_target_melee_plus_2_ranged_minus_2() -> None:
    """PRONE TARGETS (R10): melee +2, ranged -2."""
    prone = Status(prone=True)
    assert attack_check(ARCHER, TARGET, weapon="dagger", target_status=prone).bonus == 6
    assert attack_check(ARCHER, TARGET, weapon="bow", target_status=prone,
                        situation=NEAR).bonus == 4


def test_helpless_target_melee_plus_2_not_ranged() -> None:
    """HELPLESS CONDITION: +2 "exept for ranged maneuver"."""
    bound = Status(helpless=True)
    assert attack_check(ARCHER, TARGET, weapon="dagger", target_status=bound).bonus == 6
    assert attack_check(ARCHER, TARGET, weapon="bow", target_status=bound,
                        situation=NEAR).bonus == 6


def test_prone_and_helpless_give_one_plus_2() -> None:
    """R10: an unconscious (prone and helpless) target: melee +2 once, ranged -2 not offset;
    +4 with prone_helpless_bonuses_stack."""
    out = Status(unconscious=True, prone=True)
    assert attack_check(ARCHER, TARGET, weapon="dagger", target_status=out).bonus == 6
    assert attack_check(ARCHER, TARGET, weapon="dagger", target_status=out,
                        prone_helpless_bonuses_stack=True).bonus == 8
    assert attack_check(ARCHER, TARGET, weapon="bow", target_status=out,
                        situation=NEAR).bonus == 4


def test_a_helpless_target_has_dexterity_minus_5() -> None:
    """R10: Reflex Defense with Dexterity -5: 10 - 5 = 5 for a Dex 10 target."""
    check = attack_check(ARCHER, TARGET, weapon="dagger", target_status=Status(helpless=True))
    assert check.defense.total == 5


def test_a_prone_attacker_takes_minus_2_in_melee_only() -> None:
    """PRONE TARGETS (R53): -2 on melee attacks, none on ranged."""
    prone = Status(prone=True)
    assert attack_check(ARCHER, TARGET, weapon="dagger", attacker_status=prone).bonus == 2
    assert attack_check(ARCHER, TARGET, weapon="bow", attacker_status=prone,
                        situation=NEAR).bonus == 6


def test_ranged_into_melee() -> None:
    """RANGED MANEUVER INTO A MELEE: -2; none with Precise Shot."""
    sit = Situation(distance=3, into_melee=True)
    assert attack_check(ARCHER, TARGET, weapon="bow", situation=sit).bonus == 4
    assert attack_check(SHARPSHOOTER, TARGET, weapon="bow", situation=sit).bonus == 6


def test_a_flat_footed_target_loses_its_dexterity_bonus() -> None:
    """FLAT-FOOTED (R41): a Dex 14 target's Reflex 12 drops to 10."""
    assert attack_check(TARGET, ARCHER).defense.total == 12
    assert attack_check(TARGET, ARCHER, target_status=Status(flat_footed=True)).defense.total == 10
    assert attack_check(TARGET, ARCHER, situation=Situation(unaware=True)).defense.total == 10


def test_aid_another_distraction_grabbed_and_conditions() -> None:
    """Aid Another +2 per aider (R11); Distraction -2 (R11); grabbed -2 (Grab); condition
    penalties (R15)."""
    assert attack_check(ARCHER, TARGET, weapon="dagger", situation=Situation(aiders=2)).bonus == 8
    assert attack_check(ARCHER, TARGET, weapon="dagger",
                        attacker_status=Status(distracted=True)).bonus == 2
    assert attack_check(ARCHER, TARGET, weapon="dagger",
                        attacker_status=Status(grabbed=True)).bonus == 2
    hurt = Status(physical=Track(step=3), mental=Track(step=1))
    check = attack_check(ARCHER, TARGET, weapon="dagger", attacker_status=hurt)
    assert check.bonus == 4 - 5 - 1
    assert ("condition (physical step 3)", -5) in parts(check)


def test_aid_and_distraction_need_a_total_of_10() -> None:
    """R11: the check total, not the natural die, must reach 10."""
    assert aid_another(10) and not aid_another(9)
    assert distraction(10) and not distraction(9)


def test_an_attack_against_will() -> None:
    check = attack_check(ARCHER, parse_sheet({"wis": 14}),
                         situation=Situation(defense=DefenseName.WILL))
    assert check.defense.total == 12


def test_an_unconscious_attacker_cannot_attack() -> None:
    with pytest.raises(RuleRefusal, match="unconscious"):
        attack_check(ARCHER, TARGET, attacker_status=Status(physical=Track(step=5)))


def test_hit_on_equality_miss_below() -> None:
    """ATTACK ROLL: "equal to or higher than the target's Reflex Defense, you hit"."""
    check = attack_check(ARCHER, TARGET, weapon="dagger")  # +4 against 10
    assert attack_outcome(check, 6).hit and attack_outcome(check, 6).total == 10
    assert not attack_outcome(check, 5).hit
    assert not attack_outcome(check, 6).critical and attack_outcome(check, 6).automatic == ""


def test_natural_20_hits_and_is_critical_natural_1_misses() -> None:
    """Critical Hits / Automatic Misses (R44)."""
    hard = attack_check(ARCHER, parse_sheet({"dex": 30, "class_bonus": {"reflex": 20}}))
    crit = attack_outcome(hard, 20)
    assert (crit.hit, crit.critical, crit.automatic) == (True, True, "hit")
    easy = attack_check(parse_sheet({"skills": {"melee": 30}}), TARGET)
    fumble = attack_outcome(easy, 1)
    assert (fumble.hit, fumble.critical, fumble.automatic, fumble.total) == (False, False,
                                                                             "miss", 31)
    with pytest.raises(ValueError, match="1 to 20"):
        attack_outcome(easy, 21)
