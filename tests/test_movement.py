"""Movement on the battle map (rules/movement.py): one scenario per rule, then properties.

Maps are drawn as in BattleMap.from_ascii: ``.`` floor, ``#`` blocked, ``~`` difficult terrain,
``=`` low objects, ``^`` pit; letters mark creatures and path squares.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle_map import BattleMap, Placement, Size, Square, ascii_marks
from rules.movement import (
    IllegalMove,
    Load,
    Occupant,
    effective_speed,
    run_multiplier,
    validate_move,
    validate_run,
)


def scene(drawing: str, walls: list[tuple[Square, Square]] | None = None
          ) -> tuple[BattleMap, dict[str, Square]]:
    """The map and the first (top-left) square of every letter."""
    marks = ascii_marks(drawing)
    return (BattleMap.from_ascii(drawing, walls=walls or []),
            {char: squares[0] for char, squares in marks.items()})


def medium(square: Square, size: Size = Size.MEDIUM) -> Placement:
    return Placement(x=square[0], y=square[1], size=size)


def line(start: Square, dx: int, dy: int, count: int) -> list[Square]:
    return [(start[0] + dx * i, start[1] + dy * i) for i in range(1, count + 1)]


OPEN = BattleMap(width=12, height=12)


# --- MOVE ACTIONS → Move, DIAGONAL MOVEMENT ---------------------------------------------------

def test_moving_up_to_speed_in_a_straight_line_costs_one_per_square() -> None:
    plan = validate_move(OPEN, medium((0, 0)), line((0, 0), 1, 0, 6), speed=6)
    assert plan.total == 6 and plan.budget == 6 and plan.end == (6, 0)
    assert [s.cost for s in plan.steps] == [1] * 6


def test_one_square_more_than_speed_is_refused_at_the_step_that_overspends() -> None:
    with pytest.raises(IllegalMove, match=r"^That path costs 7 squares of movement; you have "
                                          r"6\.$"):
        validate_move(OPEN, medium((0, 0)), line((0, 0), 1, 0, 7), speed=6)


def test_each_diagonal_counts_as_two_squares() -> None:
    """DIAGONAL MOVEMENT: "Moving diagonally costs double."""
    plan = validate_move(OPEN, medium((0, 0)), line((0, 0), 1, 1, 3), speed=6)
    assert [s.cost for s in plan.steps] == [2, 2, 2] and all(s.diagonal for s in plan.steps)
    with pytest.raises(IllegalMove, match=r"^That path costs 8 squares of movement; you have "
                                          r"6\.$"):
        validate_move(OPEN, medium((0, 0)), line((0, 0), 1, 1, 4), speed=6)
    with pytest.raises(IllegalMove, match=r"^The first 4 steps of that path cost 8 squares of "
                                          r"movement; you have 6\.$"):
        validate_move(OPEN, medium((0, 0)), line((0, 0), 1, 1, 5), speed=6)


@pytest.mark.parametrize("path", [[(2, 0)], [(0, 0)], [(1, 0), (3, 0)]])
def test_a_step_must_go_to_an_adjacent_square(path: list[Square]) -> None:
    with pytest.raises(IllegalMove, match=r"step, to \(.*\), does not go to a square next to"):
        validate_move(OPEN, medium((0, 0)), path, speed=6)


def test_the_path_cannot_leave_the_map_or_be_empty() -> None:
    with pytest.raises(IllegalMove, match=r"^The 1st step, to \(-1,0\), leaves the map"):
        validate_move(OPEN, medium((0, 0)), [(-1, 0)], speed=6)
    with pytest.raises(IllegalMove, match=r"^The path is empty"):
        validate_move(OPEN, medium((0, 0)), [], speed=6)


# --- DIFFICULT TERRAIN, low objects (ruling R20) -------------------------------------------------

def test_difficult_terrain_doubles_and_a_diagonal_into_it_costs_four() -> None:
    m, at = scene("""
        A~.
        .~.
    """)
    plan = validate_move(m, medium(at["A"]), [(1, 0), (2, 0)], speed=6)
    assert [s.cost for s in plan.steps] == [2, 1]  # leaving the mud costs nothing extra
    plan = validate_move(m, medium(at["A"]), [(1, 1)], speed=6)
    assert plan.total == 4 and plan.steps[0].difficult and plan.steps[0].diagonal


def test_low_objects_cost_as_difficult_terrain_and_both_together_count_once() -> None:
    """Ruling R20: low objects double an orthogonal step too; the factors are counted once."""
    m, at = scene("""
        A=.
        ...
    """)
    m2 = BattleMap(width=3, height=2, low=((1, 0),), difficult=((1, 0),))
    assert validate_move(m, medium(at["A"]), [(1, 0)], speed=6).total == 2
    assert validate_move(m2, medium(at["A"]), [(1, 0)], speed=6).total == 2
    assert validate_move(m2, medium((0, 1)), [(1, 0)], speed=6).total == 4


def test_a_large_creature_pays_when_any_square_of_its_space_enters_difficult_terrain() -> None:
    """DIFFICULT TERRAIN: "Creatures of Large size and bigger must pay the extra cost … if any
    part of their ocupied squares moves into such a space." """
    m, at = scene("""
        LL..
        LL.~
        ....
    """)
    plan = validate_move(m, medium(at["L"], Size.LARGE), [(1, 0), (2, 0)], speed=6)
    assert [s.cost for s in plan.steps] == [1, 2]


def test_a_large_creature_pays_only_for_the_steps_that_move_its_space_into_the_mud() -> None:
    """Ruling R78 (DIFFICULT TERRAIN: "if any part of their ocupied squares moves into such a
    space"): a step costs double when a square its space newly takes up is difficult, not
    while the mud stays under it; leaving and coming back in pays again."""
    m, at = scene("""
        LL..
        LL~.
        ....
        ....
    """)
    path = [(1, 0), (2, 0), (2, 1), (2, 2), (2, 1)]
    plan = validate_move(m, medium(at["L"], Size.LARGE), path, speed=12)
    # into (2,1); the mud goes from its right to its left half; down, still on it; off it;
    # back onto it
    assert [s.cost for s in plan.steps] == [2, 1, 1, 1, 2]
    assert [s.difficult for s in plan.steps] == [True, False, False, False, True]
    assert plan.total == 7  # 11 if every step its space touched the mud paid


def test_a_huge_creature_pays_for_low_objects_it_steps_onto_only() -> None:
    """Rulings R20 and R78: low objects cost as difficult terrain, for the squares newly taken
    up; a diagonal step onto them costs 4 (DIAGONAL MOVEMENT)."""
    m, at = scene("""
        HHH..
        HHH..
        HHH=.
        .....
    """)
    plan = validate_move(m, medium(at["H"], Size.HUGE), [(1, 1), (2, 1)], speed=12)
    # diagonally onto the low wall at (3,2): 4; one more step east, the wall still under it: 1
    assert [s.cost for s in plan.steps] == [4, 1]


# --- walls and corners --------------------------------------------------------------------------

def test_no_entering_a_blocked_square() -> None:
    m, at = scene("""
        A#.
    """)
    with pytest.raises(IllegalMove, match=r"^The 1st step, to \(1,0\), enters a blocked square\.$"):
        validate_move(m, medium(at["A"]), [(1, 0)], speed=6)


def test_no_moving_diagonally_past_the_corner_of_a_blocked_square() -> None:
    """DIAGONAL MOVEMENT: "A character can't move diagonally past the corner or end of a wall
    that extends to a grid corner." """
    m, at = scene("""
        A...
        .#..
        ....
    """)
    with pytest.raises(IllegalMove, match=r"^The 2nd step, to \(2,1\), cuts the corner of a wall "
                                          r"at grid point \(2,1\)"):
        validate_move(m, medium(at["A"]), [(1, 0), (2, 1)], speed=6)
    # the long way round is fine
    assert validate_move(m, medium(at["A"]), [(1, 0), (2, 0), (2, 1)], speed=6).total == 3


def test_no_moving_diagonally_past_the_end_of_a_thin_wall() -> None:
    # a thin wall along the grid line x = 2 from y = 0 to y = 1: its end is grid point (2,1)
    m, at = scene("""
        .A..
        ....
    """, walls=[((2, 0), (2, 1))])
    with pytest.raises(IllegalMove, match=r"cuts the corner of a wall at grid point \(2,1\)"):
        validate_move(m, medium(at["A"]), [(2, 1)], speed=6)
    with pytest.raises(IllegalMove, match=r"crosses a wall between \(1,0\) and \(2,0\)"):
        validate_move(m, medium(at["A"]), [(2, 0)], speed=6)
    # around the end of the wall: down, then across below it
    assert validate_move(m, medium(at["A"]), [(1, 1), (2, 1), (2, 0)], speed=6).total == 3


def test_a_diagonal_between_two_open_squares_away_from_walls_is_fine() -> None:
    m, at = scene("""
        A..#
        ....
    """)
    assert validate_move(m, medium(at["A"]), [(1, 1), (2, 0)], speed=6).total == 4


# --- MOVING THROUGH OCCUPIED SQUARES, ending in a square (ruling R20) ---------------------------

def test_moving_through_an_ally_but_not_stopping_in_its_square() -> None:
    m, at = scene("A.F..")
    friend = Occupant(id="friend", at=medium(at["F"]))
    plan = validate_move(m, medium(at["A"]), line(at["A"], 1, 0, 3), speed=6, others=[friend])
    assert plan.end == (3, 0)
    with pytest.raises(IllegalMove, match=r"ends the movement in the space of 'friend'.*R20"):
        validate_move(m, medium(at["A"]), line(at["A"], 1, 0, 2), speed=6, others=[friend])


def test_a_hostile_creature_blocks_the_way() -> None:
    m, at = scene("A.G..")
    goblin = Occupant(id="goblin", at=medium(at["G"]), hostile=True)
    with pytest.raises(IllegalMove, match=r"^The 2nd step, to \(2,0\), enters the space of the "
                                          r"hostile 'goblin'"):
        validate_move(m, medium(at["A"]), line(at["A"], 1, 0, 3), speed=6, others=[goblin])


def test_a_helpless_hostile_can_be_stepped_over() -> None:
    m, at = scene("A.G..")
    goblin = Occupant(id="goblin", at=medium(at["G"]), hostile=True, helpless=True)
    assert validate_move(m, medium(at["A"]), line(at["A"], 1, 0, 3), speed=6,
                         others=[goblin]).end == (3, 0)


@pytest.mark.parametrize(("foe", "passable"), [
    (Size.DIMINUTIVE, True), (Size.TINY, False), (Size.SMALL, False), (Size.LARGE, False)])
def test_hostiles_three_or_more_sizes_apart_can_be_passed(foe: Size, passable: bool) -> None:
    m = BattleMap(width=6, height=3)
    bug = Occupant(id="bug", at=Placement(x=2, y=0, size=foe), hostile=True)
    path = line((0, 0), 1, 0, 4)
    if passable:
        assert validate_move(m, medium((0, 0)), path, speed=6, others=[bug]).end == (4, 0)
    else:
        with pytest.raises(IllegalMove, match="enters the space of the hostile 'bug'"):
            validate_move(m, medium((0, 0)), path, speed=6, others=[bug])


def test_a_giant_strides_over_a_tiny_creature_which_may_also_share_squares() -> None:
    """Hostile Huge creature over a Small one: three categories. And ruling R20: a Tiny
    creature may end its move in another creature's square."""
    m = BattleMap(width=8, height=4)
    small = Occupant(id="pony", at=Placement(x=3, y=1, size=Size.SMALL), hostile=True)
    plan = validate_move(m, Placement(x=0, y=0, size=Size.HUGE), line((0, 0), 1, 0, 4),
                         speed=6, others=[small])
    assert plan.end == (4, 0)
    mouse = Placement(x=0, y=1, size=Size.TINY)
    assert validate_move(m, mouse, [(1, 1), (2, 1), (3, 1)], speed=6,
                         others=[Occupant(id="pony", at=small.at)]).end == (3, 1)


# --- SQUEEZING ----------------------------------------------------------------------------------

CORRIDOR = """
    LL.....
    LL.....
    ##.####
    ##.####
    .......
    .......
"""


def test_a_large_creature_squeezes_through_a_one_square_gap_at_double_cost() -> None:
    """SQUEEZING: "at least half as wide as their occupied space"; ruling R20: double cost."""
    m, _ = scene(CORRIDOR)
    mover = Placement(x=1, y=0, size=Size.LARGE)
    plan = validate_move(m, mover, [(1, 1), (1, 2), (1, 3), (1, 4)], speed=12)
    assert [s.cost for s in plan.steps] == [2, 2, 2, 1]
    assert [s.squeezing for s in plan.steps] == [True, True, True, False]
    plan = validate_move(m, mover, [(1, 1), (1, 2), (1, 3), (1, 4)], speed=12,
                         squeeze_cost_multiplier=3)
    assert plan.total == 10


def test_a_squeezing_creature_must_end_where_it_can_normally_stand() -> None:
    m, _ = scene(CORRIDOR)
    with pytest.raises(IllegalMove, match=r"^The 2nd step, to \(1,2\), ends the movement squeezed"):
        validate_move(m, Placement(x=1, y=0, size=Size.LARGE), [(1, 1), (1, 2)], speed=12)


def test_a_medium_creature_cannot_squeeze_into_a_wall() -> None:
    m, _ = scene(CORRIDOR)
    with pytest.raises(IllegalMove, match=r"^The 1st step, to \(1,2\), enters a blocked square"):
        validate_move(m, medium((1, 1)), [(1, 2)], speed=6)


def test_a_huge_creature_needs_an_opening_two_squares_wide() -> None:
    m = BattleMap.from_ascii("""
        .......
        .......
        .......
        ###.###
        .......
        .......
        .......
    """)
    with pytest.raises(IllegalMove, match=r"^The 2nd step, .* no opening at least 2 "
                                          r"square\(s\) wide"):
        validate_move(m, Placement(x=2, y=0, size=Size.HUGE), [(2, 1), (2, 2)], speed=12)
    wider = BattleMap.from_ascii("""
        .......
        .......
        .......
        ##..###
        .......
        .......
        .......
    """)
    plan = validate_move(wider, Placement(x=2, y=0, size=Size.HUGE), [(2, 1), (2, 2), (2, 3),
                                                                      (2, 4)], speed=12)
    assert [s.cost for s in plan.steps] == [2, 2, 2, 1]


def test_no_squeezing_past_a_hostile_even_a_helpless_one() -> None:
    m, _ = scene(CORRIDOR)
    foe = Occupant(id="imp", at=medium((2, 3)), hostile=True, helpless=True)
    with pytest.raises(IllegalMove, match="squeezes past the hostile 'imp': a squeezing "
                                          "creature cannot"):
        validate_move(m, Placement(x=1, y=0, size=Size.LARGE), [(1, 1), (1, 2), (1, 3)],
                      speed=12, others=[foe])
    ally = Occupant(id="pal", at=medium((2, 3)))
    assert validate_move(m, Placement(x=1, y=0, size=Size.LARGE),
                         [(1, 1), (1, 2), (1, 3), (1, 4)], speed=12, others=[ally]).total == 7


def test_a_squeeze_through_a_gap_between_thin_walls() -> None:
    m = BattleMap(width=4, height=4, walls=(((0, 2), (1, 2)), ((2, 2), (4, 2))))
    plan = validate_move(m, Placement(x=0, y=0, size=Size.LARGE), [(0, 1), (0, 2)], speed=6)
    assert [s.cost for s in plan.steps] == [2, 1]


# --- prone crawl (ruling R19) -------------------------------------------------------------------

def test_a_prone_creature_crawls_one_square_whatever_the_terrain() -> None:
    m, at = scene("A~..")
    plan = validate_move(m, medium(at["A"]), [(1, 0)], speed=6, prone=True)
    assert plan.total == 1 and plan.crawl
    with pytest.raises(IllegalMove, match=r"^That path costs 2 squares of movement; a prone "
                                          r"creature crawls 1 square \(ruling R19\)\.$"):
        validate_move(m, medium(at["A"]), [(1, 0), (2, 0)], speed=6, prone=True)
    assert validate_move(m, medium(at["A"]), [(1, 0), (2, 0)], speed=6, prone=True,
                         prone_crawl_squares=2).total == 2


# --- ENCUMBRANCE AND SPEED, Run (ruling R21) ----------------------------------------------------

@pytest.mark.parametrize(("load", "speed", "expected"), [
    (Load(), 6, 6), (Load(armor="light"), 6, 6), (Load(armor="medium"), 6, 4),
    (Load(armor="heavy"), 4, 3), (Load(garment="refined"), 6, 4),
    (Load(garment="exclusive", armor="heavy", heavy_load=True), 6, 4),
    (Load(heavy_load=True), 5, 3),
])
def test_encumbrance_reduces_speed_to_three_quarters_once(load: Load, speed: int,
                                                          expected: int) -> None:
    assert effective_speed(speed, load) == expected


@pytest.mark.parametrize(("load", "option", "expected"), [
    (Load(), False, 4), (Load(armor="medium"), False, 4), (Load(armor="heavy"), False, 3),
    (Load(garment="refined"), False, 4), (Load(garment="refined"), True, 3),
    (Load(garment="exclusive"), False, 3), (Load(heavy_load=True), False, 3),
])
def test_run_multiplier(load: Load, option: bool, expected: int) -> None:
    assert run_multiplier(load, refined_garment_runs_triple=option) == expected


def test_encumbered_movement_uses_the_reduced_speed() -> None:
    with pytest.raises(IllegalMove, match="costs 5 squares of movement; you have 4"):
        validate_move(OPEN, medium((0, 0)), line((0, 0), 1, 0, 5), speed=6,
                      load=Load(armor="medium"))


def test_a_run_goes_four_times_speed_in_a_straight_line() -> None:
    plan = validate_run(BattleMap(width=30, height=3), medium((0, 1)), line((0, 1), 1, 0, 24),
                        speed=6)
    assert plan.run and plan.total == 24 and plan.budget == 24
    with pytest.raises(IllegalMove, match="costs 25 squares of movement; you have 24"):
        validate_run(BattleMap(width=30, height=3), medium((0, 1)), line((0, 1), 1, 0, 25),
                     speed=6)


def test_a_heavily_armored_run_is_three_times_the_reduced_speed() -> None:
    plan = validate_run(OPEN, medium((0, 0)), line((0, 0), 1, 1, 6), speed=6,
                        load=Load(armor="heavy"))
    assert plan.budget == 12 and plan.total == 12


def test_a_run_that_bends_is_refused() -> None:
    with pytest.raises(IllegalMove, match=r"^The 3rd step, to \(3,1\), leaves the straight line"):
        validate_run(OPEN, medium((0, 0)), [(1, 0), (2, 0), (3, 1)], speed=6)


def test_a_prone_creature_cannot_run() -> None:
    with pytest.raises(IllegalMove, match="prone creature cannot run"):
        validate_run(OPEN, medium((0, 0)), [(1, 0)], speed=6, prone=True)


# --- pits (ruling R66) --------------------------------------------------------------------------

def test_entering_a_pit_ends_the_movement_with_a_fall() -> None:
    m, at = scene("A.^..")
    plan = validate_move(m, medium(at["A"]), [(1, 0), (2, 0)], speed=6)
    assert plan.falls and plan.end == (2, 0)
    with pytest.raises(IllegalMove, match=r"^The 3rd step, to \(3,0\), comes after a step "
                                          r"into a pit"):
        validate_move(m, medium(at["A"]), [(1, 0), (2, 0), (3, 0)], speed=6)


# --- properties ---------------------------------------------------------------------------------

DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]


@st.composite
def open_walk(draw: st.DrawFn) -> tuple[Square, list[Square]]:
    start = (draw(st.integers(0, 11)), draw(st.integers(0, 11)))
    path: list[Square] = []
    here = start
    for d in draw(st.lists(st.sampled_from(DIRECTIONS), min_size=1, max_size=10)):
        there = (here[0] + d[0], here[1] + d[1])
        if OPEN.contains(there):
            path.append(there)
            here = there
    return start, path or [(start[0] + 1, start[1]) if start[0] < 11 else (start[0] - 1,
                                                                            start[1])]


@settings(max_examples=150, deadline=None)
@given(open_walk())
def test_on_open_ground_orthogonal_steps_cost_one_and_diagonals_two(
        walk: tuple[Square, list[Square]]) -> None:
    start, path = walk
    plan = validate_move(OPEN, medium(start), path, speed=100)
    previous = [start, *path[:-1]]
    diagonals = sum(1 for a, b in zip(previous, path, strict=True)
                    if a[0] != b[0] and a[1] != b[1])
    assert plan.total == len(path) + diagonals
    # never cheaper than the distance covered, counted with diagonals as 2 (and so never
    # cheaper than the Chebyshev distance)
    dx, dy = abs(plan.end[0] - start[0]), abs(plan.end[1] - start[1])
    assert plan.total >= dx + dy >= max(dx, dy)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 11), st.integers(1, 11), st.sampled_from([(1, 0), (0, 1)]))
def test_a_straight_orthogonal_path_on_open_ground_costs_its_length(
        origin: int, length: int, d: tuple[int, int]) -> None:
    start = (0, origin) if d == (1, 0) else (origin, 0)
    plan = validate_move(OPEN, medium(start), line(start, d[0], d[1], length), speed=length)
    assert plan.total == length


TERRAIN = st.sampled_from(".....~=#")


@settings(max_examples=150, deadline=None)
@given(st.lists(TERRAIN, min_size=36, max_size=36), open_walk())
def test_any_accepted_path_costs_at_least_its_steps_and_stays_on_open_floor(
        cells: list[str], walk: tuple[Square, list[Square]]) -> None:
    rows = ["".join(cells[i * 6:(i + 1) * 6]) for i in range(6)]
    m = BattleMap.from_ascii("\n".join(rows))
    start, path = walk
    start = (start[0] % 6, start[1] % 6)
    path = [(s[0] % 6, s[1] % 6) for s in path]
    try:
        plan = validate_move(m, medium(start), path, speed=200)
    except IllegalMove:
        return
    assert all(s not in m.blocked for s in path)
    assert plan.total >= len(path)
    assert plan.total == sum(s.cost for s in plan.steps)
    for step in plan.steps:
        base = 2 if step.diagonal else 1
        assert step.cost == base * (2 if step.end in m.difficult or step.end in m.low else 1)


def test_a_run_names_a_jump_as_a_bad_step_not_a_bend() -> None:
    with pytest.raises(IllegalMove, match=r"^The 2nd step, to \(3,0\), does not go to a "
                                          r"square next to \(1,0\)"):
        validate_run(OPEN, medium((0, 0)), [(1, 0), (3, 0)], speed=6)


def test_a_large_creature_cannot_walk_into_a_wall_it_cannot_squeeze_past() -> None:
    m, _ = scene("""
        LL##
        LL##
        ....
    """)
    # one column of floor is enough to squeeze into; none is not
    with pytest.raises(IllegalMove, match=r"^The 2nd step, to \(2,0\), would take the large "
                                          r"creature's space into blocked square \(2,0\)"):
        validate_move(m, Placement(x=0, y=0, size=Size.LARGE), [(1, 0), (2, 0)], speed=6)


def test_a_large_creature_cannot_cut_a_corner_with_any_part_of_its_space() -> None:
    m, _ = scene("""
        LL#.
        LL..
        ....
    """)
    with pytest.raises(IllegalMove, match=r"cuts the corner of a wall at grid point \(2,1\)"):
        validate_move(m, Placement(x=0, y=0, size=Size.LARGE), [(1, 1)], speed=6)


def test_the_mover_must_start_on_open_floor() -> None:
    m, _ = scene("#..")
    with pytest.raises(IllegalMove, match=r"^The mover's space at \(0,0\) is not open floor"):
        validate_move(m, medium((0, 0)), [(1, 0)], speed=6)
