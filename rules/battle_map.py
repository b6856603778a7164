"""The battle map of "MLP Dramatic Systems": squares, walls, terrain and creatures' spaces.

SPEED: "Speed is measured in squares. Each square represents 1.5 meters." OCCUPIED SPACE: "The
squares that a creature using on the map are collectively referred to as its occupied space."

Coordinates. A *square* is ``(x, y)`` with ``0 <= x < width`` and ``0 <= y < height``; x grows
to the right (east) and y downwards (south), as the map is drawn. Square ``(x, y)`` covers the
area from *grid point* ``(x, y)`` to grid point ``(x + 1, y + 1)``, so grid points run from
``(0, 0)`` to ``(width, height)``.

The map as the GM writes it (JSON or YAML; every list may be left out)::

    {"width": 8, "height": 6,
     "blocked":   [[3, 1], [3, 2]],            # solid squares: walls, pillars, closed rock
     "walls":     [[[5, 0], [5, 3]]],          # thin walls along grid lines, grid point to
                                               # grid point, horizontal or vertical
     "low":       [[1, 4]],                    # low objects: crates, low walls, furniture
     "difficult": [[6, 4], [7, 4]],            # difficult terrain: rubble, mud, brush
     "fog":       [[0, 0]],                    # concealment: fog, smoke, dim light, foliage
     "darkness":  [],                          # total concealment: total darkness, thick smoke
     "pits":      [],                          # a creature entering one falls (ruling R66)
     "improved_cover": []}                     # arrow slits, narrow apertures (ruling R65)

A *blocked* square and a *wall* both give total cover, block movement and block line of sight
and line of effect; a wall does so only along its grid line, so two squares on either side of a
thin wall are both open floor. A wall segment may be longer than one square; it is stored as
unit edges. Diagonal movement past the corner or end of either is refused (DIAGONAL MOVEMENT).

Public API:

- :class:`BattleMap` — the map (a frozen msgspec Struct); ``BattleMap.from_dict(obj)``,
  ``BattleMap.from_json(data)``, ``BattleMap.from_ascii(text, walls=...)``;
  :func:`ascii_marks` — the squares of the letters in an ASCII drawing.
- :class:`MapError` — a map, placement or path the rules cannot use (a ``ValueError``).
- :class:`Size`, :func:`space_side`, :func:`default_reach`, :func:`size_steps`,
  :func:`tiny_or_smaller`.
- :class:`Placement` — a creature's top-left square and size; :func:`occupied`,
  :func:`check_placement`.
- :func:`grid` — a map's layers as look-up sets (:class:`Grid`), for the other map modules.

Pure functions over plain data; no I/O.
"""

from __future__ import annotations

import hashlib
import textwrap
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any

import msgspec

from rules.sheet import Size
from rules.sheet import size_steps as sheet_size_steps

Square = tuple[int, int]
"""A square ``(x, y)``."""
Point = tuple[int, int]
"""A grid point ``(x, y)``: a corner of squares."""
Segment = tuple[Point, Point]
"""A thin wall from one grid point to another along a grid line."""
Edge = tuple[str, int, int]
"""A unit wall edge: ``("v", x, y)`` from point (x, y) to (x, y + 1); ``("h", x, y)`` from
point (x, y) to (x + 1, y)."""

#: The largest side of a map, in squares (a bound against mistyped maps).
MAX_SIDE = 1000
#: The most thin wall a map holds, in squares' lengths (unit edges) over all its walls: each is
#: a look-up entry (:func:`grid`), so a few bytes of a long wall must not cost what a million
#: entries cost (seconds of CPU, a hundred megabytes).
MAX_WALL_EDGES = 20_000


class MapError(ValueError):
    """A battle map, placement or path that the rules cannot use; the message says why."""


_ORDER = list(Size)  # the size categories of the stat sheet, smallest first

#: The side of a creature's square space, in squares (OCCUPIED SPACE; Gargantuan and Colossal:
#: ruling R63).
SPACE_SIDE: dict[Size, int] = {
    Size.FINE: 1, Size.DIMINUTIVE: 1, Size.TINY: 1, Size.SMALL: 1, Size.MEDIUM: 1,
    Size.LARGE: 2, Size.HUGE: 3, Size.GARGANTUAN: 4, Size.COLOSSAL: 6,
}

#: Reach in squares when the stat block names none (REACH; Large and bigger: ruling R64).
#: 0 means the creature's own space only ("must be in the same space to affect targets").
DEFAULT_REACH: dict[Size, int] = {
    Size.FINE: 0, Size.DIMINUTIVE: 0, Size.TINY: 0, Size.SMALL: 1, Size.MEDIUM: 1,
    Size.LARGE: 1, Size.HUGE: 2, Size.GARGANTUAN: 3, Size.COLOSSAL: 4,
}


def space_side(size: Size) -> int:
    """OCCUPIED SPACE: Small and Medium 1 square, Large 2x2, Huge 3x3; Gargantuan 4x4 and
    Colossal 6x6 (ruling R63). Tiny and smaller take 1 square and may share it (ruling R20)."""
    return SPACE_SIDE[size]


def default_reach(size: Size) -> int:
    """REACH: Small and Medium 1; Fine, Diminutive and Tiny 0 (own space); Large 1, Huge 2,
    Gargantuan 3, Colossal 4 unless the stat block says otherwise (ruling R64)."""
    return DEFAULT_REACH[size]


def size_steps(a: Size, b: Size) -> int:
    """How many size categories apart two sizes are (0 for the same size; unsigned, unlike
    ``rules.sheet.size_steps``)."""
    return abs(sheet_size_steps(a, b))


def tiny_or_smaller(size: Size) -> bool:
    """Fine, Diminutive or Tiny: may share a square with another creature (ruling R20)."""
    return _ORDER.index(size) <= _ORDER.index(Size.TINY)


class Placement(msgspec.Struct, frozen=True, kw_only=True):
    """Where a creature stands: the top-left square of its space, and its size."""

    x: int
    y: int
    size: Size = Size.MEDIUM

    @property
    def at(self) -> Square:
        return (self.x, self.y)

    @property
    def side(self) -> int:
        return SPACE_SIDE[self.size]

    def moved_to(self, square: Square) -> Placement:
        return Placement(x=square[0], y=square[1], size=self.size)


def occupied(placement: Placement) -> tuple[Square, ...]:
    """The squares of a creature's occupied space (OCCUPIED SPACE), row by row."""
    side = placement.side
    return tuple((placement.x + dx, placement.y + dy)
                 for dy in range(side) for dx in range(side))


def _squares(value: Iterable[Sequence[int]]) -> tuple[Square, ...]:
    return tuple((int(s[0]), int(s[1])) for s in value)


def _layer(what: str) -> msgspec.Meta:
    return msgspec.Meta(description=f"{what} A list of squares `[x, y]`.",
                        examples=[[[3, 1], [3, 2]]])


Squares = tuple[Square, ...]


class BattleMap(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                weakref=True):
    """A battle map of "MLP Dramatic Systems": a grid of squares of 1.5 m (SPEED). A square is
    `[x, y]`, x from 0 to the right (east), y from 0 downwards (south), as the map is drawn;
    square `[x, y]` spans grid point `[x, y]` to grid point `[x + 1, y + 1]`, so grid points
    run from `[0, 0]` to `[width, height]`. Every layer but `width` and `height` may be left
    out. Blocked squares and walls give total cover and block movement, line of sight and line
    of effect; diagonal movement past the corner or end of either is refused (DIAGONAL
    MOVEMENT). A combatant's `position` is the top-left square of its space (Large 2x2, Huge
    3x3, Gargantuan 4x4, Colossal 6x6; OCCUPIED SPACE, R63)."""

    width: Annotated[int, msgspec.Meta(
        description=f"Squares from west to east, 1 to {MAX_SIDE}.",
        extra_json_schema={"minimum": 1, "maximum": MAX_SIDE, "x-unit": "squares"})]
    height: Annotated[int, msgspec.Meta(
        description=f"Squares from north to south, 1 to {MAX_SIDE}.",
        extra_json_schema={"minimum": 1, "maximum": MAX_SIDE, "x-unit": "squares"})]
    blocked: Annotated[Squares, _layer(
        "Solid squares: walls, pillars, closed rock (total cover; no movement, no line of "
        "sight).")] = ()
    walls: Annotated[tuple[Segment, ...], msgspec.Meta(
        description="Thin walls along grid lines, each `[[x1, y1], [x2, y2]]` from grid "
        "point to grid point, horizontal or vertical, possibly longer than one square: the "
        "squares on either side are open floor, but nothing passes or sees across the wall. "
        f"At most {MAX_WALL_EDGES:,} squares' length of wall in all.",
        examples=[[[[5, 0], [5, 3]]]])] = ()
    low: Annotated[Squares, _layer(
        "Low objects: crates, low walls, furniture: cover, except in the own space and "
        "adjacent squares; entering costs double (Low Objects and Cover).")] = ()
    difficult: Annotated[Squares, _layer(
        "Difficult terrain: rubble, mud, brush; entering a square costs double (DIFFICULT "
        "TERRAIN).")] = ()
    fog: Annotated[Squares, _layer("Concealment: fog, smoke, dim light, foliage "
                                   "(CONCEALMENT).")] = ()
    darkness: Annotated[Squares, _layer("Total concealment: total darkness, thick smoke "
                                        "(CONCEALMENT).")] = ()
    pits: Annotated[Squares, _layer("Pits: a creature entering one falls (ruling R66).")] = ()
    improved_cover: Annotated[Squares, _layer(
        "Arrow slits, narrow apertures: improved cover (ruling R65).")] = ()

    def __post_init__(self) -> None:
        for name, value in (("width", self.width), ("height", self.height)):
            if not 1 <= value <= MAX_SIDE:
                raise MapError(f"{name} must be between 1 and {MAX_SIDE} squares, not {value}")
        for layer in ("blocked", "low", "difficult", "fog", "darkness", "pits",
                      "improved_cover"):
            for square in getattr(self, layer):
                if not self.contains(square):
                    raise MapError(f"{layer}: square {_fmt(square)} is outside the "
                                   f"{self.width}x{self.height} map")
        length = 0
        for index, (a, b) in enumerate(self.walls):
            where = f"walls[{index}] {_fmt(a)}-{_fmt(b)}"
            for p in (a, b):
                if not (0 <= p[0] <= self.width and 0 <= p[1] <= self.height):
                    raise MapError(f"{where}: grid point {_fmt(p)} is outside the map (grid "
                                   f"points run from (0,0) to ({self.width},{self.height}))")
            if a == b:
                raise MapError(f"{where}: a wall needs two different grid points")
            if a[0] != b[0] and a[1] != b[1]:
                raise MapError(f"{where}: a wall runs along a grid line, horizontal or "
                               "vertical")
            length += abs(a[0] - b[0]) + abs(a[1] - b[1])
            if length > MAX_WALL_EDGES:
                raise MapError(f"{where}: the walls run more than {MAX_WALL_EDGES:,} squares "
                               "in all")

    def contains(self, square: Square) -> bool:
        """Whether the square lies on the map."""
        return 0 <= square[0] < self.width and 0 <= square[1] < self.height

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> BattleMap:
        """A map from decoded JSON or YAML; raises :class:`MapError` naming what is wrong."""
        try:
            return msgspec.convert(obj, cls)
        except msgspec.ValidationError as exc:
            raise MapError(f"invalid battle map: {exc}") from None

    @classmethod
    def from_json(cls, data: bytes | str) -> BattleMap:
        try:
            return msgspec.json.decode(data, type=cls)
        except msgspec.DecodeError as exc:
            raise MapError(f"invalid battle map: {exc}") from None

    @classmethod
    def from_ascii(cls, text: str, *, walls: Iterable[Segment] = ()) -> BattleMap:
        """A map drawn in text, one character per square, one line per row (indentation and
        blank lines around it, and spaces between characters, are ignored)::

            .  open floor               #  blocked square (solid wall)
            ~  difficult terrain        =  low object
            :  fog (concealment)        %  darkness (total concealment)
            ^  pit                      !  improved cover (arrow slit)

        Letters and digits are open floor, free to mark creatures (see :func:`ascii_marks`).
        Thin walls along grid lines are given separately, as ``walls``.
        """
        rows = _ascii_rows(text)
        layers: dict[str, list[Square]] = {name: [] for name in _LEGEND.values()}
        for y, row in enumerate(rows):
            for x, char in enumerate(row):
                if char in _LEGEND:
                    layers[_LEGEND[char]].append((x, y))
                elif not (char == "." or char.isalnum()):
                    raise MapError(f"row {y + 1}, column {x + 1}: unknown map character "
                                   f"{char!r} (use one of . # ~ = : % ^ ! or a letter)")
        return cls(width=len(rows[0]), height=len(rows), walls=tuple(walls),
                   **{name: tuple(squares) for name, squares in layers.items()})


_LEGEND = {"#": "blocked", "~": "difficult", "=": "low", ":": "fog", "%": "darkness",
           "^": "pits", "!": "improved_cover"}


def _ascii_rows(text: str) -> list[str]:
    rows = ["".join(line.split()) for line in textwrap.dedent(text).strip("\n").splitlines()]
    rows = [row for row in rows if row]
    if not rows:
        raise MapError("the map drawing is empty")
    for number, row in enumerate(rows, start=1):
        if len(row) != len(rows[0]):
            raise MapError(f"row {number} has {len(row)} squares, row 1 has {len(rows[0])}: "
                           "every row must be as wide")
    return rows


def ascii_marks(text: str) -> dict[str, tuple[Square, ...]]:
    """The squares of each letter or digit in a drawing for :meth:`BattleMap.from_ascii`,
    row by row (so a Large creature drawn as ``AA/AA`` has its top-left square first)."""
    marks: dict[str, list[Square]] = {}
    for y, row in enumerate(_ascii_rows(text)):
        for x, char in enumerate(row):
            if char.isalnum():
                marks.setdefault(char, []).append((x, y))
    return {char: tuple(squares) for char, squares in marks.items()}


def _fmt(square: Sequence[int]) -> str:
    return f"({square[0]},{square[1]})"


def fmt(square: Sequence[int]) -> str:
    """A square or grid point as error messages write it: ``(4,5)``."""
    return _fmt(square)


class Grid:
    """A map's layers as sets, for look-ups (built once per map by :func:`grid`)."""

    def __init__(self, battle_map: BattleMap) -> None:
        m = battle_map
        self.width = m.width
        self.height = m.height
        self.blocked = frozenset(_squares(m.blocked))
        self.low = frozenset(_squares(m.low))
        self.difficult = frozenset(_squares(m.difficult))
        self.fog = frozenset(_squares(m.fog))
        self.darkness = frozenset(_squares(m.darkness))
        self.pits = frozenset(_squares(m.pits))
        self.improved_cover = frozenset(_squares(m.improved_cover))
        edges: set[Edge] = set()
        for a, b in m.walls:
            if a[0] == b[0]:
                edges.update(("v", a[0], y) for y in range(min(a[1], b[1]), max(a[1], b[1])))
            else:
                edges.update(("h", x, a[1]) for x in range(min(a[0], b[0]), max(a[0], b[0])))
        self.walls = frozenset(edges)
        points: set[Point] = set()
        for kind, x, y in edges:
            points.add((x, y))
            points.add((x, y + 1) if kind == "v" else (x + 1, y))
        self.wall_points = frozenset(points)

    def wall_between(self, a: Square, b: Square) -> bool:
        """Whether a thin wall separates two orthogonally adjacent squares."""
        if a[1] == b[1]:
            return ("v", max(a[0], b[0]), a[1]) in self.walls
        return ("h", a[0], max(a[1], b[1])) in self.walls

    def wall_at_point(self, point: Point) -> bool:
        """Whether a wall or a blocked square reaches the grid point (DIAGONAL MOVEMENT)."""
        if point in self.wall_points:
            return True
        x, y = point
        return any(s in self.blocked for s in ((x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y)))


#: The look-up sets of every map alive, by the map object's id (each entry goes with its map).
_GRIDS: dict[int, Grid] = {}
#: Every map alive, by a digest of its content: encounters on the same map share one object,
#: and so its look-up sets.
_MAPS: weakref.WeakValueDictionary[bytes, BattleMap] = weakref.WeakValueDictionary()
_encode = msgspec.msgpack.Encoder()


def shared(battle_map: BattleMap) -> BattleMap:
    """The live map object equal to ``battle_map`` (itself if there is none): maps are frozen,
    so encounters on the same map (a shipped example, a campaign's map run at many tables)
    may share one, with one set of look-up sets (:func:`grid`) among them."""
    key = hashlib.blake2b(_encode.encode(battle_map), digest_size=16).digest()
    known = _MAPS.get(key)
    if known is not None and known == battle_map:
        return known
    _MAPS[key] = battle_map
    return battle_map


def grid(battle_map: BattleMap) -> Grid:
    """The look-up sets of a map, cached by the map object for as long as it lives (maps are
    frozen, and an encounter keeps the same object until ``set_map``): hashing a big map's
    squares on every look-up would cost as much as the look-up sets themselves. Every live
    map keeps its sets, however many encounters a process serves."""
    key = id(battle_map)
    g = _GRIDS.get(key)
    if g is not None:
        return g
    g = _GRIDS[key] = Grid(battle_map)
    weakref.finalize(battle_map, _GRIDS.pop, key, None)
    return g


def check_placement(battle_map: BattleMap, placement: Placement) -> None:
    """Raise :class:`MapError` unless the creature's whole space lies on the map, on no blocked
    square and across no wall."""
    g = grid(battle_map)
    squares = occupied(placement)
    for square in squares:
        if not battle_map.contains(square):
            raise MapError(f"{placement.size} creature at {fmt(placement.at)}: square "
                           f"{fmt(square)} is off the map")
        if square in g.blocked:
            raise MapError(f"{placement.size} creature at {fmt(placement.at)}: square "
                           f"{fmt(square)} is blocked")
    inside = set(squares)
    for square in squares:
        for nxt in ((square[0] + 1, square[1]), (square[0], square[1] + 1)):
            if nxt in inside and g.wall_between(square, nxt):
                raise MapError(f"{placement.size} creature at {fmt(placement.at)}: a wall runs "
                               f"between {fmt(square)} and {fmt(nxt)}")
