"""The battle map: the GM's format, the ASCII drawing, sizes and spaces (rules/battle_map.py)."""

from __future__ import annotations

import msgspec
import pytest

from rules.battle_map import (
    MAX_WALL_EDGES,
    BattleMap,
    MapError,
    Placement,
    Size,
    ascii_marks,
    check_placement,
    default_reach,
    grid,
    occupied,
    size_steps,
    space_side,
)


def test_an_ascii_drawing_names_every_layer_and_letters_are_open_floor() -> None:
    drawing = """
        A . # ~
        = : % ^
        ! . . B
    """
    m = BattleMap.from_ascii(drawing)
    assert (m.width, m.height) == (4, 3)
    assert m.blocked == ((2, 0),)
    assert m.difficult == ((3, 0),)
    assert m.low == ((0, 1),)
    assert m.fog == ((1, 1),)
    assert m.darkness == ((2, 1),)
    assert m.pits == ((3, 1),)
    assert m.improved_cover == ((0, 2),)
    assert ascii_marks(drawing) == {"A": ((0, 0),), "B": ((3, 2),)}


def test_a_large_creature_drawn_in_four_squares_lists_its_top_left_square_first() -> None:
    marks = ascii_marks("""
        ....
        .LL.
        .LL.
    """)
    assert marks["L"] == ((1, 1), (2, 1), (1, 2), (2, 2))


def test_thin_walls_are_stored_as_unit_edges() -> None:
    m = BattleMap.from_ascii("....\n....\n....", walls=[((2, 0), (2, 3)), ((0, 1), (2, 1))])
    g = grid(m)
    assert g.walls == {("v", 2, 0), ("v", 2, 1), ("v", 2, 2), ("h", 0, 1), ("h", 1, 1)}
    assert g.wall_between((1, 0), (2, 0))
    assert g.wall_between((0, 0), (0, 1))
    assert not g.wall_between((2, 0), (3, 0))
    assert g.wall_at_point((2, 3)) and g.wall_at_point((0, 1)) and not g.wall_at_point((4, 0))


def test_the_gm_writes_the_map_as_json() -> None:
    m = BattleMap.from_json(b"""{"width": 8, "height": 6, "blocked": [[3, 1], [3, 2]],
        "walls": [[[5, 0], [5, 3]]], "low": [[1, 4]], "difficult": [[6, 4], [7, 4]],
        "fog": [[0, 0]]}""")
    assert m.blocked == ((3, 1), (3, 2)) and m.walls == (((5, 0), (5, 3)),)
    assert BattleMap.from_json(msgspec.json.encode(m)) == m
    assert hash(m) == hash(BattleMap.from_dict(msgspec.to_builtins(m)))


@pytest.mark.parametrize(("data", "message"), [
    ({"width": 0, "height": 3}, "width must be between 1 and 1000 squares, not 0"),
    ({"width": 3, "height": 2, "blocked": [[5, 1]]}, "blocked: square (5,1) is outside the 3x2"),
    ({"width": 3, "height": 2, "fog": [[-1, 0]]}, "fog: square (-1,0) is outside"),
    ({"width": 3, "height": 2, "walls": [[[0, 0], [1, 1]]]},
     "walls[0] (0,0)-(1,1): a wall runs along a grid line"),
    ({"width": 3, "height": 2, "walls": [[[3, 0], [3, 3]]]},
     "walls[0] (3,0)-(3,3): grid point (3,3) is outside the map"),
    ({"width": 3, "height": 2, "walls": [[[1, 1], [1, 1]]]}, "two different grid points"),
    ({"width": 3, "height": 2, "trees": []}, "unknown field `trees`"),
    ({"width": 3}, "missing required field `height`"),
])
def test_a_bad_map_is_refused_with_a_clear_message(data: dict[str, object], message: str) -> None:
    with pytest.raises(MapError) as info:
        BattleMap.from_dict(data)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_map_built_in_code_is_checked_too() -> None:
    with pytest.raises(MapError, match=r"low: square \(2,0\) is outside the 2x2 map"):
        BattleMap(width=2, height=2, low=((2, 0),))


@pytest.mark.parametrize(("drawing", "message"), [
    ("...\n..", "row 2 has 2 squares, row 1 has 3"),
    ("..?", "row 1, column 3: unknown map character '?'"),
    ("\n  \n", "the map drawing is empty"),
])
def test_a_bad_drawing_is_refused(drawing: str, message: str) -> None:
    with pytest.raises(MapError) as info:
        BattleMap.from_ascii(drawing)
    assert message in str(info.value)


@pytest.mark.parametrize(("size", "side", "reach"), [
    (Size.FINE, 1, 0), (Size.DIMINUTIVE, 1, 0), (Size.TINY, 1, 0), (Size.SMALL, 1, 1),
    (Size.MEDIUM, 1, 1), (Size.LARGE, 2, 1), (Size.HUGE, 3, 2), (Size.GARGANTUAN, 4, 3),
    (Size.COLOSSAL, 6, 4),
])
def test_occupied_space_and_reach_by_size(size: Size, side: int, reach: int) -> None:
    """OCCUPIED SPACE: Small and Medium 1 square, Large 2x2, Huge 3x3; Gargantuan and Colossal
    by ruling R63. REACH: Tiny and smaller 0, Small and Medium 1; bigger by ruling R64."""
    assert space_side(size) == side
    assert default_reach(size) == reach
    squares = occupied(Placement(x=2, y=3, size=size))
    assert len(squares) == side * side
    assert squares[0] == (2, 3) and squares[-1] == (2 + side - 1, 3 + side - 1)


def test_size_steps_count_categories() -> None:
    assert size_steps(Size.MEDIUM, Size.MEDIUM) == 0
    assert size_steps(Size.MEDIUM, Size.DIMINUTIVE) == 3
    assert size_steps(Size.SMALL, Size.HUGE) == 3


def test_a_placement_must_stand_on_open_floor_inside_the_map() -> None:
    m = BattleMap.from_ascii("""
        ....
        ..#.
        ....
    """, walls=[((1, 2), (1, 3))])
    check_placement(m, Placement(x=0, y=0, size=Size.LARGE))
    with pytest.raises(MapError, match=r"square \(2,1\) is blocked"):
        check_placement(m, Placement(x=1, y=0, size=Size.LARGE))
    with pytest.raises(MapError, match=r"square \(4,0\) is off the map"):
        check_placement(m, Placement(x=3, y=0, size=Size.LARGE))
    with pytest.raises(MapError, match=r"a wall runs between \(0,2\) and \(1,2\)"):
        check_placement(m, Placement(x=0, y=1, size=Size.LARGE))


def test_a_copy_of_the_state_shares_its_map_and_its_look_up_sets() -> None:
    """The map is frozen and replaced only by ``set_map``: every command's copy of the state
    shares it (no re-validation of every square), and its look-up sets are built once."""
    from encounter.state import EncounterState, copy_state, dump_state, load_state
    from rules.battle_map import grid

    big = BattleMap.from_dict({"width": 200, "height": 200,
                               "difficult": [[x, 7] for x in range(200)]})
    state = EncounterState(id="e", battle_map=big)
    copy = copy_state(state)
    assert copy.battle_map is big
    assert grid(copy.battle_map) is grid(big)
    # a map decoded anew (a snapshot, another process) is its own object with its own sets
    loaded = load_state(dump_state(state))
    assert loaded.battle_map == big and loaded.battle_map is not big
    assert grid(loaded.battle_map) is not grid(big)
    assert grid(loaded.battle_map).difficult == grid(big).difficult


def test_encounters_on_the_same_map_share_it_and_its_look_up_sets() -> None:
    """Maps are frozen: encounters on equal maps (a shipped example at many tables) hold one
    map object, whether it came with an event or from a stored state, and so one set of
    look-up sets; a map that differs in any square is its own."""
    from encounter.harness import Table
    from encounter.state import dump_state, load_state
    from rules.battle_map import grid

    ponies = [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 1, "position": [0, 0]}]
    layout = {"width": 8, "height": 6, "blocked": [[3, 3]], "difficult": [[1, 1]]}
    one, two = Table(ponies, map=layout), Table(ponies, map=layout)
    other = Table(ponies, map={**layout, "blocked": [[3, 4]]})
    assert one.state.battle_map is two.state.battle_map
    assert grid(one.state.battle_map) is grid(two.state.battle_map)
    assert other.state.battle_map is not one.state.battle_map
    assert other.state.battle_map != one.state.battle_map
    assert load_state(dump_state(one.state)).battle_map is one.state.battle_map


def test_the_walls_of_a_map_are_bounded_in_length() -> None:
    walls = [[[0, y], [1000, y]] for y in range(20)]
    assert len(grid(BattleMap.from_dict({"width": 1000, "height": 1000,
                                         "walls": walls})).walls) == MAX_WALL_EDGES
    with pytest.raises(MapError, match="more than 20,000 squares"):
        BattleMap.from_dict({"width": 1000, "height": 1000,
                             "walls": [*walls, [[0, 999], [1, 999]]]})
