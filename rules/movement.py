"""Moving on the battle map ("MLP Dramatic Systems", MOVE ACTIONS → Move, FULL-ROUND ACTIONS →
Run, DIAGONAL MOVEMENT, DIFFICULT TERRAIN, ENCUMBRANCE AND SPEED, MOVING THROUGH OCCUPIED
SQUARES, SQUEEZING; rulings R19, R20, R21, R66, R68, R78).

A *path* is the list of squares the mover enters, in order, each orthogonally or diagonally
adjacent to the one before; for a creature bigger than one square each entry is the new top-left
square of its space. Entering a square costs (ruling R20): 1, doubled if the step is diagonal,
doubled if the step moves the space into difficult terrain or low objects (once for both; Large
and bigger pay when a square their space newly takes up has them, not for those it already
stood on, ruling R78), multiplied by ``squeeze_cost_multiplier`` while squeezing. The factors
multiply: a diagonal step into difficult terrain costs 4 (DIAGONAL MOVEMENT).

Public API:

- :class:`Load` — armor, garment and load; :func:`effective_speed` (ENCUMBRANCE AND SPEED,
  R21) and :func:`run_multiplier` (Run, R21).
- :class:`Occupant` — another creature on the map, as the mover sees it.
- :func:`validate_move` — a move action (or a prone crawl, R19);
  :func:`validate_run` — the Run full-round action.
  Both return a :class:`MovePlan` (total and per-step costs) or raise :class:`IllegalMove`
  naming the offending step and why.
- :func:`reach_of_move`, :func:`reach_of_run` — every square the mover can end a move (a run)
  on, with the cheapest path to it and its cost (ruling R106): exactly the squares whose path
  :func:`validate_move` (:func:`validate_run`) accepts, each path checked by it.

Pure functions over plain data; no I/O.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import Literal

import msgspec

from rules.battle_map import (
    BattleMap,
    Grid,
    MapError,
    Placement,
    Square,
    fmt,
    grid,
    occupied,
    size_steps,
    tiny_or_smaller,
)

Space = tuple[Square, ...]
"""The squares a creature takes up: its whole space, or a strip of it while squeezing."""


class IllegalMove(MapError):
    """A path the rules do not allow; the message names the step and the reason."""


class Load(msgspec.Struct, frozen=True, kw_only=True):
    """What slows a creature down (ENCUMBRANCE AND SPEED)."""

    armor: Literal["none", "light", "medium", "heavy"] = "none"
    garment: Literal["none", "refined", "exclusive"] = "none"
    heavy_load: bool = False


def effective_speed(speed: int, load: Load | None = None) -> int:
    """ENCUMBRANCE AND SPEED: medium or heavy armor, Refined or Exclusive Garderobe, or a heavy
    load reduce speed to three-quarters, rounded down (6 → 4, 4 → 3), once however many apply
    (ruling R21)."""
    if load is not None and (load.armor in ("medium", "heavy") or load.garment != "none"
                             or load.heavy_load):
        return speed * 3 // 4
    return speed


def run_multiplier(load: Load | None = None, *, refined_garment_runs_triple: bool = False) -> int:
    """FULL-ROUND ACTIONS → Run: four times speed; three times with heavy armor, Exclusive
    Garderobe or a heavy load (ENCUMBRANCE AND SPEED). Refined Garment runs at four times speed
    (ruling R21) unless the option ``refined_garment_runs_triple`` is set."""
    if load is None:
        return 4
    if load.armor == "heavy" or load.garment == "exclusive" or load.heavy_load:
        return 3
    if load.garment == "refined" and refined_garment_runs_triple:
        return 3
    return 4


class Occupant(msgspec.Struct, frozen=True, kw_only=True):
    """Another creature on the map. ``hostile``: it considers the mover an enemy (MOVING THROUGH
    OCCUPIED SQUARES → Ally); ``helpless``: bound, asleep, unconscious or at the bottom of the
    condition track (HELPLESS CONDITION)."""

    id: str
    at: Placement
    hostile: bool = False
    helpless: bool = False
    #: the mover's side may not know it is there (a hidden combatant): a refusal does not
    #: name it
    unseen: bool = False

    def called(self, hostile: bool = False) -> str:
        """How a refusal names it: ``'dog'`` (``the hostile 'dog'``), or a creature the mover's
        side cannot see."""
        if self.unseen:
            return f"a{' hostile' if hostile else ''} creature you cannot see"
        return f"the hostile {self.id!r}" if hostile else repr(self.id)


class StepCost(msgspec.Struct, frozen=True, kw_only=True):
    """One step of a path and what it cost."""

    index: int  # 1-based, as error messages count
    start: Square
    end: Square
    cost: int
    diagonal: bool = False
    difficult: bool = False  # difficult terrain or low objects newly entered (R20, R78)
    squeezing: bool = False


class MovePlan(msgspec.Struct, frozen=True, kw_only=True):
    """A legal path: where it ends, the cost of each step, the total and the budget.
    ``falls``: the last step enters a pit (ruling R66; the fall is resolved by R22)."""

    start: Square
    end: Square
    steps: tuple[StepCost, ...]
    total: int
    budget: int
    run: bool = False
    crawl: bool = False
    falls: bool = False


def validate_move(
    battle_map: BattleMap,
    mover: Placement,
    path: Sequence[Square],
    *,
    speed: int,
    load: Load | None = None,
    others: Sequence[Occupant] = (),
    prone: bool = False,
    prone_crawl_squares: int = 1,
    squeeze_cost_multiplier: int = 2,
    flying: bool = False,
) -> MovePlan:
    """MOVE ACTIONS → Move: "You can move up to your speed as a move action."

    ``speed`` is the creature's speed in squares before encumbrance; ``load`` reduces it
    (:func:`effective_speed`). ``others`` are the other creatures on the map. A ``prone``
    creature crawls instead (ruling R19): up to ``prone_crawl_squares`` steps, each counted as 1
    whatever the terrain. A ``flying`` creature (``speed`` its fly speed) pays nothing extra for
    difficult terrain or low objects and passes over pits (ruling R83).
    """
    budget = prone_crawl_squares if prone else effective_speed(speed, load)
    return _walk(battle_map, mover, path, budget=budget, others=others, crawl=prone,
                 squeeze_cost_multiplier=squeeze_cost_multiplier, flying=flying)


def validate_run(
    battle_map: BattleMap,
    mover: Placement,
    path: Sequence[Square],
    *,
    speed: int,
    load: Load | None = None,
    others: Sequence[Occupant] = (),
    prone: bool = False,
    refined_garment_runs_triple: bool = False,
    squeeze_cost_multiplier: int = 2,
    flying: bool = False,
) -> MovePlan:
    """FULL-ROUND ACTIONS → Run: "moving up to four times your speed in a straight line (or
    three times …)". The budget is :func:`effective_speed` times :func:`run_multiplier` (ruling
    R21); every step goes the same way, one of the eight directions (ruling R68), and costs as
    in a move.
    A prone creature cannot run (ruling R19)."""
    if prone:
        raise IllegalMove("A prone creature cannot run; standing up is a move action (ruling "
                          "R19).")
    here, first = mover.at, None
    for index, there in enumerate(path, start=1):
        step = (there[0] - here[0], there[1] - here[1])
        if max(abs(step[0]), abs(step[1])) == 1:  # other steps are refused below
            first = first or step
            if step != first:
                raise IllegalMove(f"{_step(index, there)} leaves the straight line: a run "
                                  "goes in one direction (Run, ruling R68).")
        here = there
    budget = effective_speed(speed, load) * run_multiplier(
        load, refined_garment_runs_triple=refined_garment_runs_triple)
    plan = _walk(battle_map, mover, path, budget=budget, others=others, crawl=False,
                 squeeze_cost_multiplier=squeeze_cost_multiplier, flying=flying)
    return msgspec.structs.replace(plan, run=True)


def _walk(
    battle_map: BattleMap,
    mover: Placement,
    path: Sequence[Square],
    *,
    budget: int,
    others: Sequence[Occupant],
    crawl: bool,
    squeeze_cost_multiplier: int,
    flying: bool = False,
) -> MovePlan:
    g = grid(battle_map)
    if not path:
        raise IllegalMove("The path is empty: name at least one square to enter.")
    if not battle_map.contains(mover.at):
        raise IllegalMove(f"The mover's square {fmt(mover.at)} is off the map.")
    starts = _fits(g, mover, mover.at)
    if not starts:
        raise IllegalMove(f"The mover's space at {fmt(mover.at)} is not open floor.")
    full_size = mover.side ** 2
    # The squares a squeezing creature takes up can be chosen step by step (SQUEEZING); keep
    # every way of standing that can be reached, with the cheapest cost of reaching it.
    frontier: dict[Space, int] = {space: 0 for space in starts}
    layers: list[dict[Space, tuple[int, Space, StepCost]]] = []
    here = mover.at
    falls = False
    where = ""
    for index, raw in enumerate(path, start=1):
        there = (int(raw[0]), int(raw[1]))
        where = _step(index, there)
        if falls:
            raise IllegalMove(f"{where} comes after a step into a pit, which ends the movement "
                              "(ruling R66).")
        dx, dy = there[0] - here[0], there[1] - here[1]
        if (dx, dy) == (0, 0) or max(abs(dx), abs(dy)) != 1:
            raise IllegalMove(f"{where} does not go to a square next to {fmt(here)}: each step "
                              "enters an adjacent square.")
        diagonal = dx != 0 and dy != 0
        layer: dict[Space, tuple[int, Space, StepCost]] = {}
        refusal: IllegalMove | None = None
        for new_space in _enter(g, mover, there, where):
            squeezing = len(new_space) < full_size
            for space, total in frontier.items():
                try:
                    _cross(g, space, new_space, (dx, dy), where)
                    _pass(mover, new_space, others, squeezing, where)
                except IllegalMove as exc:
                    refusal = refusal or exc
                    continue
                rough = not flying and _rough(g, space, new_space)
                if crawl:
                    cost = 1
                else:
                    cost = (2 if diagonal else 1) * (2 if rough else 1)
                    if squeezing:
                        cost *= squeeze_cost_multiplier
                step = StepCost(index=index, start=here, end=there, cost=cost,
                                diagonal=diagonal, difficult=rough, squeezing=squeezing)
                if new_space not in layer or total + cost < layer[new_space][0]:
                    layer[new_space] = (total + cost, space, step)
        if not layer:
            assert refusal is not None
            raise refusal
        cheapest = min(layer.values(), key=lambda entry: entry[0])
        if cheapest[0] > budget:
            raise IllegalMove(_over_budget(index, len(path), cheapest[0], budget, crawl))
        layer = {space: entry for space, entry in layer.items() if entry[0] <= budget}
        layers.append(layer)
        frontier = {space: entry[0] for space, entry in layer.items()}
        falls = not flying and any(s in g.pits for s in occupied(mover.moved_to(there)))
        here = there
    ends = [space for space in layers[-1] if len(space) == full_size]
    if not ends:
        raise IllegalMove(f"{where} ends the movement squeezed: a squeezing creature must end "
                          "where it can normally stand (SQUEEZING).")
    _end(mover.moved_to(here), others, where)
    space = ends[0]
    total = layers[-1][space][0]
    steps: list[StepCost] = []
    for layer in reversed(layers):
        _, space, step = layer[space]
        steps.append(step)
    return MovePlan(start=mover.at, end=here, steps=tuple(reversed(steps)), total=total,
                    budget=budget, crawl=crawl, falls=falls)


def _step(index: int, there: Square) -> str:
    """How a refusal names a step of the path: "The 3rd step, to (3,0),"."""
    return f"The {ordinal(index)} step, to {fmt(there)},"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 21st."""
    last = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{last}"


def _over_budget(index: int, length: int, total: int, budget: int, crawl: bool) -> str:
    """The path costs more than the budget: by the end (``index == length``), or already by
    its ``index``-th step."""
    unit = "square" if budget == 1 else "squares"
    have = (f"a prone creature crawls {budget} {unit} (ruling R19)" if crawl
            else f"you have {budget}")
    if index == length:
        return f"That path costs {total} squares of movement; {have}."
    return (f"The first {index} steps of that path cost {total} squares of movement; "
            f"{have}.")


def _rough(g: Grid, space: Space, new_space: Space) -> bool:
    """DIFFICULT TERRAIN: "It costs twice as much to move into a square containing difficult
    terrain"; Large and bigger pay "if any part of their ocupied squares moves into such a
    space" — a square of the new space that the old one did not take up (ruling R78). Low
    objects cost the same (ruling R20)."""
    old = set(space)
    return any(s not in old and (s in g.difficult or s in g.low) for s in new_space)


def _rect_fits(g: Grid, squares: Sequence[Square]) -> bool:
    inside = set(squares)
    for s in squares:
        if not (0 <= s[0] < g.width and 0 <= s[1] < g.height) or s in g.blocked:
            return False
        for nxt in ((s[0] + 1, s[1]), (s[0], s[1] + 1)):
            if nxt in inside and g.wall_between(s, nxt):
                return False
    return True


def _fits(g: Grid, mover: Placement, at: Square) -> list[tuple[Square, ...]]:
    """The ways the mover can occupy squares with its top-left square at ``at``: its whole
    space, or else (Large and bigger, SQUEEZING) every strip of its space at least half as wide
    that is open floor. Empty when none fits."""
    full = occupied(mover.moved_to(at))
    if _rect_fits(g, full):
        return [full]
    side = mover.side
    if side < 2:
        return []
    narrow = (side + 1) // 2
    strips = []
    for offset in range(side - narrow + 1):
        for wide, high, ox, oy in ((narrow, side, offset, 0), (side, narrow, 0, offset)):
            strip = tuple((at[0] + ox + i, at[1] + oy + j)
                          for j in range(high) for i in range(wide))
            if _rect_fits(g, strip):
                strips.append(strip)
    return strips


def _enter(g: Grid, mover: Placement, there: Square, where: str) -> list[Space]:
    side = mover.side
    for j in range(side):
        for i in range(side):
            s = (there[0] + i, there[1] + j)
            if not (0 <= s[0] < g.width and 0 <= s[1] < g.height):
                raise IllegalMove(f"{where} leaves the map at {fmt(s)}.")
    spaces = _fits(g, mover, there)
    if spaces:
        return spaces
    full = occupied(mover.moved_to(there))
    blocked = [s for s in full if s in g.blocked]
    if side == 1:
        raise IllegalMove(f"{where} enters a blocked square.")
    what = (f"blocked square {fmt(blocked[0])}" if blocked
            else "a space that a wall runs through")
    raise IllegalMove(f"{where} would take the {mover.size} creature's space into {what}, and "
                      f"no opening at least {(side + 1) // 2} square(s) wide lets it squeeze "
                      "(SQUEEZING).")


def _cross(g: Grid, space: tuple[Square, ...], new_space: tuple[Square, ...],
           d: tuple[int, int], where: str) -> None:
    """Walls between the squares the creature moves from and those it moves to."""
    old = set(space)
    for t in new_space:
        s = (t[0] - d[0], t[1] - d[1])
        if s not in old:
            continue  # a squeezed creature spreading out again
        if d[0] == 0 or d[1] == 0:
            if g.wall_between(s, t):
                raise IllegalMove(f"{where} crosses a wall between {fmt(s)} and {fmt(t)}.")
        else:
            corner = (max(s[0], t[0]), max(s[1], t[1]))
            if g.wall_at_point(corner):
                raise IllegalMove(f"{where} cuts the corner of a wall at grid point "
                                  f"{fmt(corner)}: no moving diagonally past the corner or end "
                                  "of a wall (DIAGONAL MOVEMENT).")


def _pass(mover: Placement, new_space: tuple[Square, ...], others: Sequence[Occupant],
          squeezing: bool, where: str) -> None:
    """MOVING THROUGH OCCUPIED SQUARES; SQUEEZING: "cannot squeeze past hostile characters"."""
    mine = set(new_space)
    for other in others:
        if mine.isdisjoint(occupied(other.at)):
            continue
        if not other.hostile:
            continue  # Ally: "doesn't consider you an enemy"
        if squeezing:
            raise IllegalMove(f"{where} squeezes past {other.called(hostile=True)}: a "
                              "squeezing creature cannot move past hostile creatures "
                              "(SQUEEZING).")
        if other.helpless:
            continue  # Unconscious or Helpless Hostile creature
        if size_steps(mover.size, other.at.size) >= 3:
            continue  # Much Larger or Smaller Hostile creatures
        raise IllegalMove(f"{where} enters the space of {other.called(hostile=True)}: only allies, "
                          "helpless foes and foes three or more sizes larger or smaller can "
                          "be moved through (MOVING THROUGH OCCUPIED SQUARES).")


def _end(final: Placement, others: Sequence[Occupant], where: str) -> None:
    """Ruling R20: no creature ends its movement in another's square unless one of the two is
    Tiny or smaller."""
    mine = set(occupied(final))
    for other in others:
        if mine.isdisjoint(occupied(other.at)):
            continue
        if tiny_or_smaller(final.size) or tiny_or_smaller(other.at.size):
            continue
        raise IllegalMove(f"{where} ends the movement in the space of {other.called()}: only a "
                          "Tiny or smaller creature shares squares (ruling R20).")


# --- where a move can go (ruling R106) -----------------------------------------------------------

_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


class Reach(msgspec.Struct, frozen=True, kw_only=True):
    """A square a move can end on: the cheapest path to it (the squares entered, in order)
    and what it costs."""

    at: Square
    cost: int
    path: tuple[Square, ...]


def reach_of_move(
    battle_map: BattleMap,
    mover: Placement,
    *,
    speed: int,
    load: Load | None = None,
    others: Sequence[Occupant] = (),
    prone: bool = False,
    prone_crawl_squares: int = 1,
    squeeze_cost_multiplier: int = 2,
    flying: bool = False,
) -> tuple[int, list[Reach]]:
    """The budget of a move action and every square it can end on (the arguments are
    :func:`validate_move`'s). A search of the cheapest ways there, step by step with the costs
    :func:`validate_move` counts (ruling R20; a pit ends the movement, R66); then each path
    found is checked by :func:`validate_move` itself, so a square is listed exactly when a
    move there is accepted."""
    budget = prone_crawl_squares if prone else effective_speed(speed, load)
    found = _cheapest_paths(battle_map, mover, budget, others, crawl=prone,
                            squeeze_cost_multiplier=squeeze_cost_multiplier, flying=flying)
    out: list[Reach] = []
    for at, path in found.items():
        try:
            plan = validate_move(battle_map, mover, path, speed=speed, load=load, others=others,
                                 prone=prone, prone_crawl_squares=prone_crawl_squares,
                                 squeeze_cost_multiplier=squeeze_cost_multiplier, flying=flying)
        except IllegalMove:
            continue
        out.append(Reach(at=at, cost=plan.total, path=tuple(path)))
    return budget, sorted(out, key=lambda r: (r.at[1], r.at[0]))


def reach_of_run(
    battle_map: BattleMap,
    mover: Placement,
    *,
    speed: int,
    load: Load | None = None,
    others: Sequence[Occupant] = (),
    prone: bool = False,
    refined_garment_runs_triple: bool = False,
    squeeze_cost_multiplier: int = 2,
    flying: bool = False,
) -> tuple[int, list[Reach]]:
    """The budget of a run and every square it can end on (a run goes in a straight line,
    R68: each of the eight directions, every length :func:`validate_run` accepts)."""
    budget = effective_speed(speed, load) * run_multiplier(
        load, refined_garment_runs_triple=refined_garment_runs_triple)
    out: list[Reach] = []
    if prone:
        return budget, out
    for dx, dy in _DIRECTIONS:
        for n in range(1, budget + 1):  # (every step costs 1 or more)
            path = [(mover.at[0] + i * dx, mover.at[1] + i * dy) for i in range(1, n + 1)]
            if not battle_map.contains(path[-1]):
                break
            try:
                plan = validate_run(battle_map, mover, path, speed=speed, load=load,
                                    others=others,
                                    refined_garment_runs_triple=refined_garment_runs_triple,
                                    squeeze_cost_multiplier=squeeze_cost_multiplier,
                                    flying=flying)
            except IllegalMove:
                continue
            out.append(Reach(at=path[-1], cost=plan.total, path=tuple(path)))
    return budget, sorted(out, key=lambda r: (r.at[1], r.at[0]))


def _cheapest_paths(battle_map: BattleMap, mover: Placement, budget: int,
                    others: Sequence[Occupant], *, crawl: bool, squeeze_cost_multiplier: int,
                    flying: bool) -> dict[Square, list[Square]]:
    """Each square a move within ``budget`` can end on, with a cheapest path to it: the
    steps, spaces and costs of :func:`_walk`, searched cheapest first (over where the mover
    stands and, squeezing, which squares it takes up)."""
    g = grid(battle_map)
    if not battle_map.contains(mover.at):
        return {}
    full_size = mover.side ** 2
    State = tuple[Square, Space]
    best: dict[State, int] = {}
    before: dict[State, State] = {}
    order = itertools.count()
    heap: list[tuple[int, int, Square, Space]] = []
    for space in _fits(g, mover, mover.at):
        best[(mover.at, space)] = 0
        heap.append((0, next(order), mover.at, space))
    while heap:
        cost, _, here, space = heapq.heappop(heap)
        if best[(here, space)] < cost:
            continue
        if here != mover.at and not flying and \
                any(s in g.pits for s in occupied(mover.moved_to(here))):
            continue  # a pit ends the movement (R66)
        for dx, dy in _DIRECTIONS:
            there = (here[0] + dx, here[1] + dy)
            try:
                spaces = _enter(g, mover, there, "")
            except IllegalMove:
                continue
            diagonal = dx != 0 and dy != 0
            for new_space in spaces:
                squeezing = len(new_space) < full_size
                try:
                    _cross(g, space, new_space, (dx, dy), "")
                    _pass(mover, new_space, others, squeezing, "")
                except IllegalMove:
                    continue
                if crawl:
                    step = 1
                else:
                    rough = not flying and _rough(g, space, new_space)
                    step = (2 if diagonal else 1) * (2 if rough else 1)
                    if squeezing:
                        step *= squeeze_cost_multiplier
                total = cost + step
                key = (there, new_space)
                if total > budget or total >= best.get(key, budget + 1):
                    continue
                best[key], before[key] = total, (here, space)
                heapq.heappush(heap, (total, next(order), there, new_space))
    ends: dict[Square, tuple[int, State]] = {}
    for (at, space), total in best.items():
        if at == mover.at or len(space) != full_size:
            continue
        if at not in ends or total < ends[at][0]:
            ends[at] = (total, (at, space))
    paths: dict[Square, list[Square]] = {}
    for at, (_, state) in ends.items():
        try:
            _end(mover.moved_to(at), others, "")
        except IllegalMove:
            continue
        path: list[Square] = []
        while state in before:
            path.append(state[0])
            state = before[state]
        paths[at] = path[::-1]
    return paths
