"""Sight, cover, concealment, distance and reach on the battle map (rules/sight.py).

Maps are drawn as in BattleMap.from_ascii: ``.`` floor, ``#`` blocked, ``=`` low objects,
``:`` fog, ``%`` darkness, ``!`` improved cover; letters mark creatures (A the attacker, B the
target, others bystanders).
"""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle_map import BattleMap, Placement, Size, Square, ascii_marks
from rules.sight import (
    Band,
    Concealment,
    Cover,
    RangeBands,
    adjacent,
    concealment,
    cover,
    distance,
    in_melee,
    line_of_effect,
    line_of_sight,
    range_band,
    view,
    within_reach,
)


def scene(drawing: str, walls: list[tuple[Square, Square]] | None = None,
          sizes: dict[str, Size] | None = None) -> tuple[BattleMap, dict[str, Placement]]:
    """The map and a placement for every letter (at its top-left square)."""
    sizes = sizes or {}
    marks = ascii_marks(drawing)
    return (BattleMap.from_ascii(drawing, walls=walls or []),
            {char: Placement(x=sq[0][0], y=sq[0][1], size=sizes.get(char, Size.MEDIUM))
             for char, sq in marks.items()})


def at(x: int, y: int, size: Size = Size.MEDIUM) -> Placement:
    return Placement(x=x, y=y, size=size)


# --- distance, adjacency, reach, range ----------------------------------------------------------

@pytest.mark.parametrize(("a", "b", "expected"), [
    (at(0, 0), at(3, 0), 3), (at(0, 0), at(0, 4), 4), (at(0, 0), at(1, 1), 2),
    (at(0, 0), at(2, 2), 4), (at(0, 0), at(2, 1), 3), (at(2, 2), at(2, 2, Size.TINY), 0),
    (at(0, 0, Size.LARGE), at(3, 1), 2), (at(0, 0, Size.LARGE), at(2, 2), 2),
    (at(0, 0, Size.HUGE), at(5, 6, Size.LARGE), 7),
])
def test_distance_counts_each_diagonal_as_two_squares(a: Placement, b: Placement,
                                                      expected: int) -> None:
    """DIAGONAL MOVEMENT: "When moving or counting along a diagonal path, each diagonal counts
    as 2 squares." """
    assert distance(a, b) == expected == distance(b, a)


def test_adjacent_spaces_touch_at_an_edge_or_a_corner() -> None:
    assert adjacent(at(0, 0), at(1, 1)) and adjacent(at(0, 0), at(0, 1))
    assert not adjacent(at(0, 0), at(2, 1))
    assert adjacent(at(0, 0, Size.LARGE), at(2, 2)) and not adjacent(at(0, 0, Size.LARGE),
                                                                     at(3, 0))
    assert not adjacent(at(1, 1), at(1, 1, Size.TINY))  # sharing is not adjacency


@pytest.mark.parametrize(("target", "reach", "expected"), [
    (at(1, 0), 1, True), (at(1, 1), 1, True), (at(2, 0), 1, False),
    (at(2, 0), 2, True), (at(1, 1), 2, True), (at(2, 1), 2, False), (at(2, 2), 2, False),
    (at(2, 1), 3, True), (at(0, 0, Size.TINY), 0, True), (at(1, 0), 0, False),
])
def test_reach(target: Placement, reach: int, expected: bool) -> None:
    """REACH: reach 1 is the adjacent squares; 0 the creature's own space; a longer reach
    counts diagonals as 2 and still affects targets directly next to it (ruling R64)."""
    assert within_reach(at(0, 0), target, reach) is expected


def test_a_large_creature_reaches_around_its_whole_space() -> None:
    assert within_reach(at(0, 0, Size.LARGE), at(2, 2), 1)
    assert not within_reach(at(0, 0, Size.LARGE), at(3, 1), 1)
    assert within_reach(at(0, 0, Size.LARGE), at(3, 1), 2)


def test_range_bands() -> None:
    """STANDARD ACTIONS → Ranged: point blank 0, short -2, medium -5, long -10."""
    bands = RangeBands(point_blank=4, short=8, medium=12, long=20)
    assert [range_band(d, bands) for d in (0, 4, 5, 8, 12, 13, 20, 21)] == [
        Band.POINT_BLANK, Band.POINT_BLANK, Band.SHORT, Band.SHORT, Band.MEDIUM, Band.LONG,
        Band.LONG, None]
    with pytest.raises(ValueError, match="increasing"):
        RangeBands(point_blank=4, short=3, medium=12, long=20)


def test_a_target_adjacent_to_a_non_target_is_in_melee() -> None:
    """RANGED MANEUVER INTO A MELEE: -2 when the target is adjacent to one or more non-targets;
    the attacker itself is not one of them (ruling R67)."""
    target = at(5, 5)
    assert in_melee(target, [at(6, 6)])
    assert in_melee(target, [at(9, 9), at(4, 5)])
    assert not in_melee(target, [at(7, 5)])
    assert not in_melee(target, [])


# --- LINE OF SIGHT, Line of Effect --------------------------------------------------------------

def test_open_ground_gives_sight_and_effect() -> None:
    m, c = scene("""
        A....
        .....
        ....B
    """)
    assert line_of_sight(m, c["A"], c["B"]) and line_of_effect(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.NONE


def test_a_wall_across_the_map_gives_total_cover() -> None:
    m, c = scene("""
        A.#..
        ..#..
        ..#.B
    """)
    assert not line_of_effect(m, c["A"], c["B"]) and not line_of_sight(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.TOTAL


def test_a_thin_wall_blocks_sight_only_where_it_runs() -> None:
    m, c = scene("""
        A...
        ...B
    """, walls=[((2, 0), (2, 2))])
    assert not line_of_effect(m, c["A"], c["B"])
    short, c = scene("""
        A...
        ...B
    """, walls=[((2, 0), (2, 1))])
    assert line_of_effect(short, c["A"], c["B"])  # under the end of the wall
    # from A's bottom-right corner, under the wall's end, no line crosses the wall
    assert cover(short, c["A"], c["B"]) is Cover.NONE


def test_a_thin_wall_the_height_of_a_row_hides_the_same_row_completely() -> None:
    m, c = scene("A..B", walls=[((2, 0), (2, 1))])
    assert not line_of_effect(m, c["A"], c["B"])


def test_looking_along_a_corridor_between_walls_is_clear() -> None:
    """A line may start beside the wall the actor stands against (ruling R67); lines that run
    along a wall give no cover."""
    m, c = scene("""
        ######
        A....B
        ######
    """)
    assert line_of_sight(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.NONE


def test_no_sight_through_the_joint_of_two_blocked_squares_touching_at_a_corner() -> None:
    """LINE OF SIGHT: "A line that nicks a corner … does not provide line of sight." """
    m, c = scene("""
        A#.
        #B.
    """)
    assert not line_of_effect(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.TOTAL


def test_darkness_hides_without_blocking_effect() -> None:
    """Total Concealment: "If you have line of effect to a target but not line of sight (for
    instance, if he is in total darkness …)". """
    m, c = scene("""
        A....
        ...%%
        ...%%
    """)
    target = at(4, 2)
    assert line_of_effect(m, c["A"], target) and not line_of_sight(m, c["A"], target)
    assert concealment(m, c["A"], target) is Concealment.TOTAL
    assert cover(m, c["A"], target) is Cover.NONE
    assert line_of_sight(m, c["A"], target, sees_in_darkness=True)
    assert concealment(m, c["A"], target, sees_in_darkness=True) is Concealment.NONE


def test_a_creature_in_darkness_sees_nothing() -> None:
    """Line of Effect: "a character who is blind or in total darkness doesn't have line of
    sight to any target"."""
    m = BattleMap.from_ascii("""
        %....
        .....
    """)
    assert not line_of_sight(m, at(0, 0), at(4, 1))
    assert line_of_effect(m, at(0, 0), at(4, 1))


def test_a_wall_of_darkness_between_blocks_sight() -> None:
    m, c = scene("""
        A.%..
        ..%..
        ..%.B
    """)
    assert not line_of_sight(m, c["A"], c["B"]) and line_of_effect(m, c["A"], c["B"])


def test_low_objects_difficult_terrain_and_pits_do_not_block_sight() -> None:
    """LINE OF SIGHT: "Other characters and creatures, low objects, difficult terrain, and
    pits do not block line of sight." """
    m, c = scene("""
        A.=..
        ..~..
        ..^.B
    """)
    assert line_of_sight(m, c["A"], c["B"])


# --- creatures in the way (ruling R9) -----------------------------------------------------------

def test_a_creature_in_the_way_gives_cover_but_does_not_block_sight() -> None:
    m, c = scene("A.C.B")
    others = [c["C"]]
    assert line_of_sight(m, c["A"], c["B"], others)
    assert cover(m, c["A"], c["B"], others) is Cover.COVER
    assert cover(m, c["A"], c["B"]) is Cover.NONE


def test_with_the_option_a_creature_in_the_way_blocks_the_shot() -> None:
    """Ruling R9, option ``creatures_block_line_of_sight``."""
    m, c = scene("A.C.B")
    others = [c["C"]]
    assert not line_of_sight(m, c["A"], c["B"], others, creatures_block_line_of_sight=True)
    assert concealment(m, c["A"], c["B"], others,
                       creatures_block_line_of_sight=True) is Concealment.TOTAL


def test_a_creature_beside_the_line_gives_no_cover() -> None:
    m, c = scene("""
        A...B
        ..C..
    """)
    assert cover(m, c["A"], c["B"], [c["C"]]) is Cover.NONE


def test_several_creatures_in_the_way_still_give_plus_two() -> None:
    m, c = scene("A.CD.B")
    v = view(m, c["A"], c["B"], [c["C"], c["D"]])
    assert v.cover is Cover.COVER and v.cover_bonus == 2


# --- COVER --------------------------------------------------------------------------------------

def test_a_wall_corner_between_gives_cover() -> None:
    m, c = scene("""
        A....
        .....
        ..#..
        ....B
    """)
    assert line_of_sight(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.COVER


def test_a_square_exactly_between_diagonal_neighbours_blocks_every_line() -> None:
    """LINE OF SIGHT: the only lines that miss the square in the middle nick its corners."""
    m, c = scene("""
        A...
        .#..
        ..B.
    """)
    assert not line_of_effect(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.TOTAL


def test_a_line_that_only_touches_a_wall_gives_no_cover() -> None:
    """COVER: "The target does not have cover if the line runs along or touches the edge of a
    wall". From A's top-right corner the line to B's bottom-left corner touches the wall's
    corner, and the others clear it."""
    m, c = scene("""
        A.B
        .#.
    """)
    assert cover(m, c["A"], c["B"]) is Cover.NONE


def test_lines_along_a_wall_edge_give_no_cover() -> None:
    m, c = scene("""
        A...B
        #####
    """)
    assert cover(m, c["A"], c["B"]) is Cover.NONE


def test_a_diagonal_wall_of_blocked_squares_has_no_gap() -> None:
    """Ruling R67: blocked squares that meet at a corner leave no gap to see or shoot
    through."""
    m, c = scene("""
        A.....
        ....#.
        ...#..
        .....B
    """)
    assert not line_of_effect(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.TOTAL


def test_an_adjacent_target_never_has_cover() -> None:
    """COVER: "Somepony adjacent never has cover." """
    m, c = scene("""
        A#
        .B
    """)
    assert line_of_effect(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.NONE


def test_shooting_round_the_end_of_a_wall_from_the_corner_beside_it() -> None:
    """The attacker picks the corner of its square at the end of the wall: no cover. The target
    shooting back picks its own best corner, and the wall is between."""
    m, c = scene("""
        ......
        A.....
        ......
        ....B.
    """, walls=[((1, 1), (1, 2))])
    assert cover(m, c["A"], c["B"]) is Cover.NONE
    behind, c = scene("""
        ......
        A.....
        ......
        ....B.
    """, walls=[((1, 0), (1, 4))])
    assert cover(behind, c["A"], c["B"]) is Cover.TOTAL


def test_a_wall_the_attackers_corner_sits_on_still_covers_what_is_beyond_it() -> None:
    """Ruling R67: from a corner in the middle of a wall the line still has the wall between
    the attacker's square and the target."""
    m, c = scene("""
        ......
        A.....
        ......
        ......
        ......
        .B....
    """, walls=[((1, 0), (1, 4))])
    assert line_of_effect(m, c["A"], c["B"])
    assert cover(m, c["A"], c["B"]) is Cover.COVER


def test_a_target_standing_in_low_objects_has_cover() -> None:
    """Low Objects and Cover: "Low objects provide cover to creatures in those squares." """
    m, c = scene("A....B")
    m = msgspec.structs.replace(m, low=((5, 0),))
    assert cover(m, c["A"], c["B"]) is Cover.COVER


def test_low_objects_between_give_cover_unless_next_to_the_attacker() -> None:
    """Low Objects and Cover: "you can ignore low objects in your own fighting space and
    adjacent squares" (ruling R65)."""
    far, c = scene("A...=B")
    assert cover(far, c["A"], c["B"]) is Cover.COVER
    near, c = scene("A=...B")
    assert cover(near, c["A"], c["B"]) is Cover.NONE


def test_low_objects_in_an_adjacent_targets_square_give_no_cover() -> None:
    m = BattleMap(width=3, height=1, low=((1, 0),))
    assert cover(m, at(0, 0), at(1, 0)) is Cover.NONE


def test_improved_cover_where_the_map_marks_it() -> None:
    """Improved Cover: "a character peering around a corner or through a narrow aperture" has
    +4 (ruling R65: the map marks those squares)."""
    m, c = scene("""
        A.....
        ......
        ....#B
        ......
    """)
    assert cover(m, c["A"], c["B"]) is Cover.COVER
    slit = msgspec.structs.replace(m, improved_cover=((5, 2),))
    v = view(slit, c["A"], c["B"])
    assert v.cover is Cover.IMPROVED and v.cover_bonus == 4
    # marked, but nothing in the way: no cover at all
    assert cover(slit, at(5, 0), c["B"]) is Cover.NONE


def test_a_big_attacker_picks_the_square_that_gives_the_least_cover() -> None:
    """Big Creatures and Cover: "Such a creature can choose any square that it occupies"."""
    m, c = scene("""
        LL....
        LLC..B
    """, sizes={"L": Size.LARGE})
    others = [c["C"]]
    assert cover(m, at(1, 1), c["B"], others) is Cover.COVER  # a pony in the lower square
    assert cover(m, c["L"], c["B"], others) is Cover.NONE


def test_the_attacker_picks_any_square_of_a_big_target() -> None:
    """Big Creatures and Cover: "you can pick any of the squares it occupies"."""
    m, c = scene("""
        A.....
        ......
        ..#.TT
        ..#.TT
    """, sizes={"T": Size.LARGE})
    assert cover(m, c["A"], c["T"]) is Cover.NONE
    assert cover(m, c["A"], at(4, 3)) is Cover.COVER  # a pony in the lower-left square


# --- CONCEALMENT --------------------------------------------------------------------------------

def test_fog_between_conceals() -> None:
    m, c = scene("""
        A....
        .....
        .::::
        ....B
    """)
    v = view(m, c["A"], c["B"])
    assert v.concealment is Concealment.CONCEALMENT and v.concealment_penalty == -2
    assert v.cover is Cover.NONE


def test_fog_beside_the_lines_does_not_conceal() -> None:
    m, c = scene("""
        A...B
        :::::
    """)
    assert concealment(m, c["A"], c["B"]) is Concealment.NONE


def test_a_target_standing_in_fog_is_concealed_and_so_is_everything_seen_from_fog() -> None:
    m = BattleMap(width=5, height=2, fog=((4, 1),))
    assert concealment(m, at(0, 0), at(4, 1)) is Concealment.CONCEALMENT
    assert concealment(m, at(4, 1), at(0, 0)) is Concealment.CONCEALMENT


def test_an_adjacent_target_is_concealed_only_when_wholly_inside_the_fog() -> None:
    """CONCEALMENT: "When making a skill check on an adjacent target, your target has
    concealment if his space is entirely within an effect that grants concealment"."""
    m = BattleMap(width=4, height=4, fog=((1, 0), (2, 0), (1, 1)))
    assert concealment(m, at(0, 0), at(1, 0)) is Concealment.CONCEALMENT
    big = Placement(x=1, y=0, size=Size.LARGE)
    assert concealment(m, at(0, 0), big) is Concealment.NONE  # (2,1) is clear
    whole = msgspec.structs.replace(m, fog=((1, 0), (2, 0), (1, 1), (2, 1)))
    assert concealment(whole, at(0, 0), big) is Concealment.CONCEALMENT


def test_fog_and_darkness_together_still_give_minus_two() -> None:
    """CONCEALMENT: "Multiple sources of concealment … do not apply additional penalties." """
    m = BattleMap(width=6, height=3, fog=((2, 0), (2, 1), (2, 2)), darkness=((3, 0),))
    v = view(m, at(0, 1), at(5, 1))
    assert v.line_of_sight and v.concealment is Concealment.CONCEALMENT
    assert v.concealment_penalty == -2


# --- properties ---------------------------------------------------------------------------------

CELLS = st.sampled_from("......#=:%~")


@st.composite
def battle(draw: st.DrawFn) -> tuple[BattleMap, Placement, Placement]:
    width, height = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    cells = draw(st.lists(CELLS, min_size=width * height, max_size=width * height))
    squares = [(x, y) for y in range(height) for x in range(width)]
    a = draw(st.sampled_from(squares))
    b = draw(st.sampled_from([s for s in squares if s != a]))
    cells[a[1] * width + a[0]] = "."
    cells[b[1] * width + b[0]] = "."
    rows = ["".join(cells[y * width:(y + 1) * width]) for y in range(height)]
    walls = draw(st.lists(st.sampled_from(
        [((x, y), (x, y + 1)) for x in range(width + 1) for y in range(height)]
        + [((x, y), (x + 1, y)) for x in range(width) for y in range(height + 1)]),
        max_size=4))
    return BattleMap.from_ascii("\n".join(rows), walls=walls), at(*a), at(*b)


@settings(max_examples=150, deadline=None)
@given(battle())
def test_sight_and_effect_are_symmetric_and_sight_needs_effect(
        case: tuple[BattleMap, Placement, Placement]) -> None:
    m, a, b = case
    los = line_of_sight(m, a, b)
    loe = line_of_effect(m, a, b)
    assert los == line_of_sight(m, b, a)
    assert loe == line_of_effect(m, b, a)
    assert loe or not los


@settings(max_examples=150, deadline=None)
@given(battle())
def test_cover_is_total_exactly_without_effect_and_never_for_adjacent_targets(
        case: tuple[BattleMap, Placement, Placement]) -> None:
    m, a, b = case
    c = cover(m, a, b)
    assert (c is Cover.TOTAL) == (not line_of_effect(m, a, b))
    if adjacent(a, b) and c is not Cover.TOTAL:
        assert c is Cover.NONE
    if not line_of_sight(m, a, b):
        assert concealment(m, a, b) is Concealment.TOTAL


@settings(max_examples=100, deadline=None)
@given(battle())
def test_on_a_map_without_cover_there_is_none(
        case: tuple[BattleMap, Placement, Placement]) -> None:
    m, a, b = case
    bare = BattleMap(width=m.width, height=m.height, fog=m.fog, difficult=m.difficult)
    assert cover(bare, a, b) is Cover.NONE
    assert line_of_sight(bare, a, b) and line_of_effect(bare, a, b)


@settings(max_examples=100, deadline=None)
@given(battle(), st.integers(0, 5), st.integers(0, 5))
def test_distance_is_symmetric_and_counts_squares_as_a_path_on_open_ground_costs(
        case: tuple[BattleMap, Placement, Placement], x: int, y: int) -> None:
    _, a, b = case
    assert distance(a, b) == distance(b, a) == abs(a.x - b.x) + abs(a.y - b.y)
    big = at(x, y, Size.LARGE)
    assert distance(big, b) == min(abs(sx - b.x) + abs(sy - b.y)
                                   for sx in (x, x + 1) for sy in (y, y + 1))
