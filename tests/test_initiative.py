"""Initiative order (rules/initiative.py): INITIATIVE of "MLP Dramatic Systems"."""

from __future__ import annotations

from rules.dice import Roll, roll_faces
from rules.initiative import Contender, insertion_index, order_by_initiative


class FixedDice:
    """A roller that throws the given d20 faces in order."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = list(faces)
        self.rolled: list[Roll] = []

    def roll(self, expr: str) -> Roll:
        roll = roll_faces(expr, [self.faces.pop(0)])
        self.rolled.append(roll)
        return roll


def c(cid: str, total: int, mod: int) -> Contender:
    return Contender(cid, total, mod, (mod,))


def test_highest_total_goes_first() -> None:
    placed = order_by_initiative([c("a", 10, 0), c("b", 15, 0), c("c", 12, 0)], FixedDice([]))
    assert [p.contender.combatant for p in placed] == ["b", "c", "a"]


def test_a_tie_goes_to_the_higher_modifier() -> None:
    placed = order_by_initiative([c("a", 12, 1), c("b", 12, 4)], FixedDice([]))
    assert [p.contender.combatant for p in placed] == ["b", "a"]


def test_a_remaining_tie_is_settled_by_a_rolloff_rerolled_while_tied() -> None:
    dice = FixedDice([7, 7, 3, 11])  # first roll-off ties, second settles it: b wins
    placed = order_by_initiative([c("a", 12, 2), c("b", 12, 2), c("z", 20, 0)], dice)
    assert [p.contender.combatant for p in placed] == ["z", "b", "a"]
    assert placed[1].rolloff == [7, 11] and placed[2].rolloff == [7, 3]
    assert len(dice.rolled) == 4


def test_a_three_way_rolloff_orders_all_three() -> None:
    dice = FixedDice([5, 9, 5, 2, 8])  # a=5 b=9 c=5 -> b first; a and c roll again: c wins
    placed = order_by_initiative([c("a", 10, 1), c("b", 10, 1), c("c", 10, 1)], dice)
    assert [p.contender.combatant for p in placed] == ["b", "c", "a"]


def test_a_late_joiner_goes_after_everyone_it_does_not_beat() -> None:
    keys = [(20, (1,)), (15, (3,)), (15, (1,)), (8, (0,))]
    assert insertion_index(keys, (15, (2,))) == 2
    assert insertion_index(keys, (25, (0,))) == 0
    assert insertion_index(keys, (1, (0,))) == 4


def test_an_endless_rolloff_stops_after_the_safety_bound() -> None:
    from rules.initiative import MAX_ROLLOFF_ROUNDS

    dice = FixedDice([10] * (2 * MAX_ROLLOFF_ROUNDS))  # every roll-off ties again
    placed = order_by_initiative([c("a", 12, 2), c("b", 12, 2)], dice)
    assert [p.contender.combatant for p in placed] == ["a", "b"]
    assert len(placed[0].rolloff) == MAX_ROLLOFF_ROUNDS
