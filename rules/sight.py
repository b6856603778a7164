"""Sight, cover, concealment and distance on the battle map ("MLP Dramatic Systems", LINE OF
SIGHT and Line of Effect, COVER, CONCEALMENT, REACH, RANGED MANEUVER INTO A MELEE, STANDARD
ACTIONS → Ranged; rulings R9, R64, R65, R67).

Lines (ruling R67). LINE OF SIGHT draws lines "from any point in the actors occupied space to any
point in the target's occupied square"; a line that touches a square or wall giving total cover
(blocked squares, walls) or total concealment (darkness) gives no sight, and "a line that nicks a
corner or runs along a wall does not provide line of sight". The server draws the lines between
the centre and the four corners of every square of each space, each corner taken an infinitesimal
distance inside its square (so a creature standing against a wall can still look along it);
touching counts, exactly. Line of effect ignores darkness. With ``creatures_block_line_of_sight``
(ruling R9) other creatures' squares block line of sight too.

Cover and concealment use the corner rule: the attacker picks a corner of (any square of) its
space; lines run from it exactly to the four corners of (any square of) the target's space; the
attacker's pick that gives the target the least cover counts. A line that only runs along or
touches an edge or a corner passes through nothing; one that slips exactly through a grid point
where cover lies on both sides of it (two blocked squares meeting at a corner, a wall running on
past the point, a wall the attacker's corner sits on with the target beyond it) passes through
(ruling R67). Cover comes from blocked squares, walls, squares of other creatures (R9) and low
objects not in or adjacent to the attacker's space (R65); concealment from fog and darkness
squares, the attacker's or target's picked square in one included.

Distance: "When moving or counting along a diagonal path, each diagonal counts as 2 squares"
(DIAGONAL MOVEMENT), so the distance between two spaces is the number of squares between them
counted that way: |dx| + |dy| between their nearest squares. Adjacent spaces touch at an edge or
a corner.

Public API:

- :func:`distance`, :func:`adjacent`, :func:`within_reach`, :func:`in_melee`,
  :class:`RangeBands`, :class:`Band`, :func:`range_band`;
- :func:`line_of_effect`, :func:`line_of_sight`;
- :class:`Cover`, :func:`cover`; :class:`Concealment`, :func:`concealment`;
- :func:`view` — all of it for one attacker and target, as a :class:`View`.

Every function takes creatures as :class:`~rules.battle_map.Placement` values; ``others`` are
the creatures other than the actor and the target. Pure functions over plain data; exact integer
arithmetic; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from itertools import pairwise
from math import gcd

import msgspec

from rules.battle_map import BattleMap, Edge, Grid, Placement, Point, Square, grid, occupied

# ---------------------------------------------------------------------------------------------
# Distance, adjacency, reach, range


def _gaps(a: Placement, b: Placement) -> tuple[int, int]:
    ax1, ay1 = a.x + a.side - 1, a.y + a.side - 1
    bx1, by1 = b.x + b.side - 1, b.y + b.side - 1
    return max(0, b.x - ax1, a.x - bx1), max(0, b.y - ay1, a.y - by1)


def distance(a: Placement, b: Placement) -> int:
    """Squares from one space to the other, each diagonal counting 2 (DIAGONAL MOVEMENT): 0 for
    spaces that share a square, 1 for orthogonal neighbours, 2 for diagonal ones."""
    dx, dy = _gaps(a, b)
    return dx + dy


def adjacent(a: Placement, b: Placement) -> bool:
    """Whether two spaces touch at an edge or a corner without sharing a square."""
    return max(_gaps(a, b)) == 1


def _close(a: Placement, b: Placement) -> bool:
    """Adjacent or sharing a square (a Tiny creature in another's space)."""
    return max(_gaps(a, b)) <= 1


def within_reach(attacker: Placement, target: Placement, reach: int) -> bool:
    """REACH: reach 0 (Fine, Diminutive, Tiny) affects only targets in the attacker's own space;
    reach 1 the adjacent squares too; a greater reach also the squares up to ``reach`` away,
    counted as :func:`distance` counts (ruling R64), and always the adjacent ones ("can still
    affect targets directly next to it"). Walls are not considered: check
    :func:`line_of_effect` as well."""
    dx, dy = _gaps(attacker, target)
    if reach <= 0:
        return dx == 0 and dy == 0
    return max(dx, dy) <= 1 or dx + dy <= reach


def in_melee(target: Placement, non_targets: Iterable[Placement]) -> bool:
    """RANGED MANEUVER INTO A MELEE: whether the target is adjacent to (or shares a square with)
    one or more non-targets; the attacker is not one of them (ruling R67). A ranged attack then
    takes -2 unless the attacker has Precise Shot."""
    return any(_close(target, other) for other in non_targets)


class Band(StrEnum):
    POINT_BLANK = "point_blank"
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"


#: STANDARD ACTIONS → Ranged: "no penalty … -2 at short range, -5 at medium range, and -10 at
#: long range."
BAND_PENALTY: dict[Band, int] = {Band.POINT_BLANK: 0, Band.SHORT: -2, Band.MEDIUM: -5,
                                 Band.LONG: -10}


class RangeBands(msgspec.Struct, frozen=True, kw_only=True):
    """A weapon's range bands: the greatest distance in squares of each (from its stat block)."""

    point_blank: int
    short: int
    medium: int
    long: int

    def __post_init__(self) -> None:
        limits = (self.point_blank, self.short, self.medium, self.long)
        if limits[0] < 0 or any(a > b for a, b in pairwise(limits)):
            raise ValueError(f"range bands must be 0 or more and increasing, not {limits}")


def range_band(squares: int, bands: RangeBands) -> Band | None:
    """The band a target ``squares`` away falls in (see :func:`distance`), or ``None`` beyond
    long range ("The maximum range of a ranged roll depends on the equipment used")."""
    for band, limit in ((Band.POINT_BLANK, bands.point_blank), (Band.SHORT, bands.short),
                        (Band.MEDIUM, bands.medium), (Band.LONG, bands.long)):
        if squares <= limit:
            return band
    return None


# ---------------------------------------------------------------------------------------------
# Exact geometry. Coordinates are scaled by ``n`` (a multiple of 2): grid point (x, y) is
# (x * n, y * n); a corner taken inside its square is one unit off the grid point. ``n`` is
# large enough for every decision to be that of an infinitesimal offset (see _scale).

P = tuple[int, int]


def _scale(g: Grid) -> int:
    # Every sign decided below is that of A*n*n + B*n + C with integers A, B, C, where |B| and
    # |C| stay well below 16 * (width + height + 2); so for A != 0 the sign is A's.
    return 64 * (g.width + g.height + 2)


def _inner_corners(square: Square, n: int) -> tuple[P, ...]:
    x, y = square[0] * n, square[1] * n
    return ((x + 1, y + 1), (x + n - 1, y + 1), (x + 1, y + n - 1), (x + n - 1, y + n - 1))


def _samples(square: Square, n: int) -> tuple[P, ...]:
    x, y = square[0] * n, square[1] * n
    return ((x + n // 2, y + n // 2), *_inner_corners(square, n))


def _side(p: P, q: P, r: P) -> int:
    c = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return (c > 0) - (c < 0)


def _box_sides(p: P, q: P, x0: int, y0: int, x1: int, y1: int) -> set[int]:
    return {_side(p, q, c) for c in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))}


def _touches_box(p: P, q: P, x0: int, y0: int, x1: int, y1: int) -> bool:
    """Whether segment pq meets the closed box (a box may be flat: a wall edge)."""
    if max(p[0], q[0]) < x0 or min(p[0], q[0]) > x1:
        return False
    if max(p[1], q[1]) < y0 or min(p[1], q[1]) > y1:
        return False
    sides = _box_sides(p, q, x0, y0, x1, y1)
    return not (sides == {1} or sides == {-1})


def _enters_box(p: P, q: P, x0: int, y0: int, x1: int, y1: int) -> bool:
    """Whether segment pq meets the open box (its interior)."""
    if max(p[0], q[0]) <= x0 or min(p[0], q[0]) >= x1:
        return False
    if max(p[1], q[1]) <= y0 or min(p[1], q[1]) >= y1:
        return False
    sides = _box_sides(p, q, x0, y0, x1, y1)
    return 1 in sides and -1 in sides


def _edge_points(edge: Edge, n: int) -> tuple[P, P]:
    kind, x, y = edge
    return (x * n, y * n), ((x * n, (y + 1) * n) if kind == "v" else ((x + 1) * n, y * n))


class _Window:
    """The squares (in map units) a segment's bounding box reaches, one square of margin."""

    def __init__(self, p: P, q: P, n: int) -> None:
        self.x0 = min(p[0], q[0]) // n - 1
        self.x1 = max(p[0], q[0]) // n + 1
        self.y0 = min(p[1], q[1]) // n - 1
        self.y1 = max(p[1], q[1]) // n + 1

    def squares(self, layer: frozenset[Square]) -> list[Square]:
        if len(layer) <= (self.x1 - self.x0 + 1) * (self.y1 - self.y0 + 1):
            return [s for s in layer
                    if self.x0 <= s[0] <= self.x1 and self.y0 <= s[1] <= self.y1]
        return [(x, y) for y in range(self.y0, self.y1 + 1) for x in range(self.x0, self.x1 + 1)
                if (x, y) in layer]

    def edges(self, walls: frozenset[Edge]) -> list[Edge]:
        # whichever is fewer: the map's wall edges, or the window's possible ones (so that a
        # short line costs the same on a big map)
        if len(walls) <= 2 * (self.x1 - self.x0 + 1) * (self.y1 - self.y0 + 1):
            return [e for e in walls
                    if self.x0 <= e[1] <= self.x1 and self.y0 <= e[2] <= self.y1]
        return [e for y in range(self.y0, self.y1 + 1) for x in range(self.x0, self.x1 + 1)
                for e in (("h", x, y), ("v", x, y)) if e in walls]


def _clear(p: P, q: P, n: int, solid: frozenset[Square], walls: frozenset[Edge]) -> bool:
    """LINE OF SIGHT: the segment touches no solid square and no wall, not even a corner."""
    window = _Window(p, q, n)
    for x, y in window.squares(solid):
        if _touches_box(p, q, x * n, y * n, (x + 1) * n, (y + 1) * n):
            return False
    for edge in window.edges(walls):
        a, b = _edge_points(edge, n)
        if _touches_box(p, q, min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]),
                        max(a[1], b[1])):
            return False
    return True


#: The eight slots around a grid point, turning from +x towards +y: even slots are the four
#: wall edges that may leave the point, odd slots the four squares that touch it.
_RAY_SLOTS = {(1, 0): 0, (0, 1): 2, (-1, 0): 4, (0, -1): 6}
_SQUARE_SLOTS = {(0, 0): 1, (-1, 0): 3, (-1, -1): 5, (0, -1): 7}


def _slot(vx: int, vy: int) -> int:
    """The slot a direction from a grid point points into."""
    if vx == 0 or vy == 0:
        return _RAY_SLOTS[((vx > 0) - (vx < 0), (vy > 0) - (vy < 0))]
    return _SQUARE_SLOTS[(0 if vx > 0 else -1, 0 if vy > 0 else -1)]


def _between(a: int, b: int) -> int:
    """The slots strictly between slot ``a`` and slot ``b``, turning from ``a`` towards +y,
    as a bit mask."""
    return sum(1 << ((a + i) % 8) for i in range(1, (b - a) % 8))


_BETWEEN = [[_between(a, b) for b in range(8)] for a in range(8)]


def _separated(point: Point, a: int, b: int, material: frozenset[Square],
               walls: frozenset[Edge]) -> bool:
    """Whether material around a grid point lies on both ways round from slot ``a`` to slot
    ``b``: a line coming from ``a`` and leaving by ``b`` then slips through it exactly."""
    if a == b:
        return False
    x, y = point
    solid = 0  # the slots around the point that hold material, as a bit mask
    if material:
        solid = (((x, y) in material) << 1 | ((x - 1, y) in material) << 3
                 | ((x - 1, y - 1) in material) << 5 | ((x, y - 1) in material) << 7)
    if walls:
        solid |= (("h", x, y) in walls) | (("v", x, y) in walls) << 2 \
            | (("h", x - 1, y) in walls) << 4 | (("v", x, y - 1) in walls) << 6
    return bool(solid & _BETWEEN[a][b]) and bool(solid & _BETWEEN[b][a])


def _passes(start: Point, own: Square, end: Point, theirs: Square,
            material: frozenset[Square], walls: frozenset[Edge]) -> bool:
    """COVER / CONCEALMENT: whether the line from grid point ``start`` (a corner of square
    ``own``) to grid point ``end`` (a corner of square ``theirs``) passes through a square of
    ``material`` or across a wall. Running along or touching an edge or a corner is not passing
    through; slipping exactly through a grid point where material lies on both sides of the line
    is (at the two ends: between the line and the corner's own square)."""
    n = 2  # map coordinates doubled: squares' centres are whole numbers too
    p, q = (start[0] * n, start[1] * n), (end[0] * n, end[1] * n)
    window = _Window(p, q, n)
    for x, y in window.squares(material):
        if _enters_box(p, q, x * n, y * n, (x + 1) * n, (y + 1) * n):
            return True
    for edge in window.edges(walls):
        a, b = _edge_points(edge, n)
        if _side(p, q, a) * _side(p, q, b) < 0 and _side(a, b, p) * _side(a, b, q) < 0:
            return True
    dx, dy = end[0] - start[0], end[1] - start[1]
    step = gcd(dx, dy)
    ux, uy = dx // step, dy // step
    for i in range(step + 1):
        point = (start[0] + i * ux, start[1] + i * uy)
        if i == 0:
            source = _SQUARE_SLOTS[(own[0] - point[0], own[1] - point[1])]
            if _separated(point, source, _slot(ux, uy), material, walls):
                return True
        elif i == step:
            source = _SQUARE_SLOTS[(theirs[0] - point[0], theirs[1] - point[1])]
            if _separated(point, source, _slot(-ux, -uy), material, walls):
                return True
        elif _separated(point, _slot(-ux, -uy), _slot(ux, uy), material, walls):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Line of sight and line of effect


def _any_line(g: Grid, actor: Placement, target: Placement, solid: frozenset[Square]) -> bool:
    n = _scale(g)
    sources = [p for s in occupied(actor) if s not in solid for p in _samples(s, n)]
    sinks = [p for s in occupied(target) if s not in solid for p in _samples(s, n)]
    return any(_clear(p, q, n, solid, g.walls) for p in sources for q in sinks)


def line_of_effect(battle_map: BattleMap, actor: Placement, target: Placement) -> bool:
    """Line of Effect: "works just like line of sight, but it ignores squares that provide total
    concealment": some line from the actor's space to the target's touches no blocked square and
    no wall. Without it the target has total cover (COVER → Total Cover)."""
    g = grid(battle_map)
    return _any_line(g, actor, target, g.blocked)


def line_of_sight(battle_map: BattleMap, actor: Placement, target: Placement,
                  others: Sequence[Placement] = (), *,
                  creatures_block_line_of_sight: bool = False,
                  sees_in_darkness: bool = False) -> bool:
    """LINE OF SIGHT: some line from the actor's space to the target's touches no blocked
    square, wall or darkness square ("Other characters and creatures, low objects, difficult
    terrain, and pits do not block line of sight", ruling R9). With the option
    ``creatures_block_line_of_sight`` the squares of ``others`` block it too. An actor standing
    in darkness sees nothing unless ``sees_in_darkness`` (Ignoring Concealment)."""
    g = grid(battle_map)
    solid = g.blocked if sees_in_darkness else g.blocked | g.darkness
    if creatures_block_line_of_sight:
        mine = set(occupied(actor)) | set(occupied(target))
        solid = solid | frozenset(s for o in others for s in occupied(o) if s not in mine)
    return _any_line(g, actor, target, solid)


# ---------------------------------------------------------------------------------------------
# Cover and concealment


class Cover(StrEnum):
    NONE = "none"
    COVER = "cover"
    IMPROVED = "improved"
    TOTAL = "total"


#: COVER: "+2 cover bonus to its Reflex Defense"; Improved Cover: "+4 instead of +2". Total
#: cover allows no physical skill check at all.
COVER_BONUS: dict[Cover, int] = {Cover.NONE: 0, Cover.COVER: 2, Cover.IMPROVED: 4,
                                 Cover.TOTAL: 0}


class Concealment(StrEnum):
    NONE = "none"
    CONCEALMENT = "concealment"
    TOTAL = "total"


#: CONCEALMENT: "-2 penalty on your roll"; Total Concealment: "-5 penalty" (guessing the
#: square). Perception checks take -5 and -10 instead.
CONCEALMENT_PENALTY: dict[Concealment, int] = {Concealment.NONE: 0,
                                               Concealment.CONCEALMENT: -2,
                                               Concealment.TOTAL: -5}


def _corners(square: Square) -> tuple[Point, ...]:
    x, y = square
    return ((x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1))


def _corner_rule(attacker: Placement, target: Placement, material: frozenset[Square],
                 walls: frozenset[Edge], within: frozenset[Square] = frozenset()) -> bool:
    """Whether every pick of a square of the attacker's space, a corner of it and a square of
    the target's space leaves some line from that corner to a corner of that square passing
    through ``material`` or ``walls`` — or picks a square in ``within`` (COVER, Big Creatures
    and Cover; CONCEALMENT)."""
    target_squares = [s for s in occupied(target)]
    for own in occupied(attacker):
        if own in within:
            continue
        for corner in _corners(own):
            for square in target_squares:
                if square in within:
                    continue
                if not any(_passes(corner, own, end, square, material, walls)
                           for end in _corners(square)):
                    return False
    return True


def cover(battle_map: BattleMap, attacker: Placement, target: Placement,
          others: Sequence[Placement] = ()) -> Cover:
    """COVER by the corner rule (see the module docstring): ``TOTAL`` without line of effect;
    ``NONE`` for an adjacent target ("Somepony adjacent never has cover"); otherwise cover if
    every pick leaves a line through a blocked square, a wall, another creature's square (R9)
    or a low object not in or adjacent to the attacker's space (Low Objects and Cover, ruling
    R65); ``IMPROVED`` instead when the target's space takes in a square the map marks
    ``improved_cover`` (ruling R65)."""
    g = grid(battle_map)
    if not line_of_effect(battle_map, attacker, target):
        return Cover.TOTAL
    if _close(attacker, target):
        return Cover.NONE
    mine = set(occupied(attacker))
    theirs = set(occupied(target))
    near = {(x + dx, y + dy) for x, y in mine for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    material = (g.blocked
                | frozenset(s for o in others for s in occupied(o)
                            if s not in mine and s not in theirs)
                | frozenset(s for s in g.low if s not in near))
    if not _corner_rule(attacker, target, material, g.walls):
        return Cover.NONE
    if theirs & g.improved_cover:
        return Cover.IMPROVED
    return Cover.COVER


def concealment(battle_map: BattleMap, attacker: Placement, target: Placement,
                others: Sequence[Placement] = (), *,
                creatures_block_line_of_sight: bool = False,
                sees_in_darkness: bool = False) -> Concealment:
    """CONCEALMENT: ``TOTAL`` without line of sight (Total Concealment; also without line of
    effect). An adjacent target has concealment only "if his space is entirely within an effect
    that grants concealment"; any other by the corner rule, fog and darkness squares (the
    attacker's and the target's own included) granting it. Several sources do not add up."""
    g = grid(battle_map)
    if not line_of_sight(battle_map, attacker, target, others,
                         creatures_block_line_of_sight=creatures_block_line_of_sight,
                         sees_in_darkness=sees_in_darkness):
        return Concealment.TOTAL
    hazy = g.fog if sees_in_darkness else g.fog | g.darkness
    if _close(attacker, target):
        inside = all(s in hazy for s in occupied(target))
        return Concealment.CONCEALMENT if inside else Concealment.NONE
    mine = set(occupied(attacker)) | set(occupied(target))
    between = frozenset(s for s in hazy if s not in mine)
    if _corner_rule(attacker, target, between, frozenset(), within=hazy):
        return Concealment.CONCEALMENT
    return Concealment.NONE


class View(msgspec.Struct, frozen=True, kw_only=True):
    """What an attacker has on a target: the inputs of an attack roll that the map decides."""

    distance: int
    adjacent: bool
    line_of_effect: bool
    line_of_sight: bool
    cover: Cover
    concealment: Concealment
    cover_bonus: int  # to the target's Reflex Defense
    concealment_penalty: int  # on the attacker's roll


def view(battle_map: BattleMap, attacker: Placement, target: Placement,
         others: Sequence[Placement] = (), *, creatures_block_line_of_sight: bool = False,
         sees_in_darkness: bool = False) -> View:
    """Distance, line of effect and sight, cover and concealment of one target."""
    c = cover(battle_map, attacker, target, others)
    k = concealment(battle_map, attacker, target, others,
                    creatures_block_line_of_sight=creatures_block_line_of_sight,
                    sees_in_darkness=sees_in_darkness)
    return View(distance=distance(attacker, target), adjacent=adjacent(attacker, target),
                line_of_effect=c is not Cover.TOTAL,
                line_of_sight=line_of_sight(
                    battle_map, attacker, target, others,
                    creatures_block_line_of_sight=creatures_block_line_of_sight,
                    sees_in_darkness=sees_in_darkness),
                cover=c, concealment=k, cover_bonus=COVER_BONUS[c],
                concealment_penalty=CONCEALMENT_PENALTY[k])
