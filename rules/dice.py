"""Dice: rolling expressions with a recorded seed or from a keyed stream, and checking physical
dice entered by hand.

Every roll the server makes is a :class:`Roll` that records the expression, each die's face,
the total and where its faces came from (the seed it was rolled with, or its place in a keyed
stream that a revealed secret lets anyone recompute, ``rules.verifiable_dice``), so the event
that carries it replays exactly.
Expressions are parsed and evaluated by the ``d20`` dice engine (full dice notation:
``1d20+3``, ``4d6kh3``, ``2d6+1d4-1`` ...); nothing here parses dice by hand.

The only module-level state ``d20`` has is the ``random`` it draws from. A roll swaps it for a
seeded generator (or for the faces a player entered) around one synchronous evaluation, which is
safe under asyncio because nothing awaits in between.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import d20
import msgspec
from d20 import expression as d20_expression

#: Largest expression accepted, in characters, and most dice in one roll.
MAX_EXPRESSION_LENGTH = 120
MAX_DICE = 100
#: The most sides of one die, and the largest total (either way) of an expression a stat block
#: gives (:func:`check_expression`).
MAX_SIDES = 1000
MAX_TOTAL = 1_000_000


class DiceError(ValueError):
    """An expression that is not valid dice notation, or faces that do not fit it."""


class Die(msgspec.Struct, frozen=True, gc=False):
    """One die rolled: its number of sides, the face shown, and whether it counts."""

    sides: int
    face: int
    kept: bool = True


class Roll(msgspec.Struct, frozen=True, gc=False):
    """A finished roll as it is recorded in an event.

    ``seed`` is the seed the server rolled with when the encounter fixed a dice seed (or, in
    logs from before verifiable dice, every server roll's seed); ``place`` the roll's place in
    the encounter's keyed dice streams (``"table:17"``), from which the revealed dice secret
    gives its faces again (``rules.verifiable_dice``). Both are ``None`` for physical dice
    entered by hand, which are marked ``manual``. ``text`` is the readable breakdown, e.g.
    ``1d20 (17) + 3 = 20``.
    """

    expr: str
    total: int
    dice: list[Die]
    text: str
    seed: int | None = None
    manual: bool = False
    place: str | None = None

    @property
    def natural(self) -> int | None:
        """The face of the first die when it is the only d20 kept: a "natural" roll."""
        kept = [d for d in self.dice if d.kept and d.sides == 20]
        return kept[0].face if len(kept) == 1 else None


class DiceRoller(Protocol):
    """What rules ask for when they need a roll. Implementations decide where faces come from."""

    def roll(self, expr: str) -> Roll: ...


class _FaceSource:
    """Stands in for ``random`` inside ``d20``: hands out faces entered by hand, in order,
    checking each against the die that asks for it."""

    def __init__(self, faces: Sequence[int]) -> None:
        self._faces = list(faces)
        self.used = 0

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if self.used >= len(self._faces):
            raise DiceError(f"too few faces: {len(self._faces)} given, more dice are rolled")
        face = self._faces[self.used]
        self.used += 1
        if isinstance(face, bool) or not isinstance(face, int):
            raise DiceError("faces must be whole numbers")
        if stop is None:  # d20 rolls a die of `start` sides as randrange(start) + 1
            if not 1 <= face <= start:
                raise DiceError(f"{face} is not a face of a d{start}")
            return face - 1
        if face not in range(start, stop, step):  # the percentile die: randrange(0, 100, 10)
            raise DiceError(f"{face} is not a face of a percentile die (0, 10 .. 90)")
        return face


class _KeyedSource:
    """Stands in for ``random`` inside ``d20``: each face drawn is HMAC-SHA256, keyed by
    ``key``, of the roll's ``place`` and the draw's number, made uniform by rejection (a
    block whose value falls in the incomplete last range of ``n`` is drawn again), so anyone
    holding the key draws the same faces, and nobody without it can tell them in advance."""

    def __init__(self, key: bytes, place: str) -> None:
        self._key = key
        self._place = place
        self.draws = 0

    def _below(self, n: int) -> int:
        """A uniform whole number in ``[0, n)``."""
        limit = (1 << 64) - (1 << 64) % n
        attempt = 0
        while True:
            block = hmac.new(self._key, f"{self._place}:{self.draws}:{attempt}".encode(),
                             hashlib.sha256).digest()
            value = int.from_bytes(block[:8], "big")
            if value < limit:
                self.draws += 1
                return value % n
            attempt += 1

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:  # d20 rolls a die of `start` sides as randrange(start) + 1
            return self._below(start)
        faces = range(start, stop, step)  # the percentile die: randrange(0, 100, 10)
        return faces[self._below(len(faces))]


@contextmanager
def _drawing_from(source: Any) -> Iterator[None]:
    saved = d20_expression.random
    d20_expression.random = source
    try:
        yield
    finally:
        d20_expression.random = saved


def _parse(expr: str) -> d20.Expression:
    if len(expr) > MAX_EXPRESSION_LENGTH:
        raise DiceError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    try:
        # Rolling with an exhausted face source would fail; parse alone first for a clear error.
        return d20.parse(expr, allow_comments=False)
    except d20.RollSyntaxError as exc:
        raise DiceError(f"not valid dice notation: {expr!r}") from exc


def dice_in(expr: str) -> list[int]:
    """The sides of every die the expression rolls before any reroll or explosion, in order.

    ``dice_in("2d6+1d20")`` is ``[6, 6, 20]`` (100 stands for the percentile die). A roll
    request shows this list so that the roller knows which physical dice to throw.
    """
    sides: list[int] = []

    def walk(node: Any) -> None:
        if isinstance(node, d20.ast.Dice):
            if len(sides) + int(node.num) > MAX_DICE:  # (before making a list that long)
                raise DiceError(f"more than {MAX_DICE} dice")
            sides.extend([100 if node.size == "%" else int(node.size)] * int(node.num))
        for child in node.children:
            walk(child)

    walk(_parse(expr))
    return sides


def check_expression(expr: str) -> list[int]:
    """:func:`dice_in` of an expression a stat block gives (a weapon's damage), refused
    (``DiceError``) unless every roll of it can be made and recorded: at most
    :data:`MAX_DICE` dice of 1 to :data:`MAX_SIDES` sides, no reroll or explosion that every
    face sets off (it would never stop), division only by a number other than 0 (not by dice,
    which may come up 0), and a total within :data:`MAX_TOTAL` either way."""
    sides = dice_in(expr)
    if _largest(_parse(expr)) > MAX_TOTAL:
        raise DiceError(f"{expr!r} may total more than {MAX_TOTAL:,} either way")
    return sides


#: Set operators that may roll more dice than the expression names.
_MORE_DICE = {"e", "ra"}
#: Set operators that roll again as long as the selected faces come up.
_UNTIL_NOT_SELECTED = {"e", "rr"}


def _largest(node: Any) -> float:
    """The largest magnitude ``node`` can evaluate to (``DiceError`` for what cannot always be
    rolled)."""
    ast = d20.ast
    if isinstance(node, ast.Expression):
        return _largest(node.roll)
    if isinstance(node, ast.Literal):
        return abs(float(node.value))
    if isinstance(node, ast.Parenthetical | ast.UnOp | ast.AnnotatedNumber):
        return _largest(node.value)
    if isinstance(node, ast.BinOp):
        left, right = _largest(node.left), _largest(node.right)
        if node.op in ("+", "-"):
            return left + right
        if node.op == "*":
            return left * right
        if node.op in ("/", "//", "%"):
            divisor = _constant(node.right)
            if divisor is None:
                raise DiceError("a divisor must be a number, not dice (which may come up 0)")
            if divisor == 0:
                raise DiceError("division by 0")
            return right if node.op == "%" else left / abs(divisor)
        return 1.0  # a comparison: 0 or 1
    if isinstance(node, ast.Dice):
        return float(int(node.num) * _faces(node.size)[-1])
    if isinstance(node, ast.OperatedDice):
        largest = _largest(node.value)
        faces = _faces(node.value.size)
        for operation in node.operations:
            if operation.op in _UNTIL_NOT_SELECTED and _every_face(operation.sels, faces):
                raise DiceError(f"{operation.op!r} is set off by every face: it never stops")
            if operation.op in _MORE_DICE:
                largest = max(largest, float(MAX_DICE * faces[-1]))
            if operation.op == "mi":
                largest = max([largest, *(float(int(node.value.num) * abs(int(sel.num)))
                                          for sel in operation.sels)])
        return largest
    if isinstance(node, ast.OperatedSet):
        return _largest(node.value)
    if isinstance(node, ast.NumberSet):
        return sum(_largest(value) for value in node.values)
    raise DiceError(f"unsupported dice notation: {type(node).__name__}")


def _faces(size: Any) -> range:
    """The faces of a die (``DiceError`` for a size a stat block may not give)."""
    if size == "%":
        return range(0, 100, 10)
    if not 1 <= int(size) <= MAX_SIDES:
        raise DiceError(f"a die has 1 to {MAX_SIDES} sides, not {size}")
    return range(1, int(size) + 1)


def _every_face(selectors: Any, faces: range) -> bool:
    """Whether ``selectors`` select a die whatever face it shows."""
    chosen: set[int] = set()
    for sel in selectors:
        n = int(sel.num)
        if sel.cat in ("l", "h"):  # the lowest or highest die: there always is one
            return True
        chosen |= {f for f in faces if (f < n if sel.cat == "<" else f > n if sel.cat == ">"
                                        else f == n)}
    return all(f in chosen for f in faces)


def _constant(node: Any) -> float | None:
    """The value of a part of an expression without dice, or ``None``."""
    ast = d20.ast
    if isinstance(node, ast.Literal):
        return float(node.value)
    if isinstance(node, ast.Parenthetical):
        return _constant(node.value)
    if isinstance(node, ast.UnOp):
        value = _constant(node.value)
        return None if value is None else -value if node.op == "-" else value
    return None


def _dice_of(result: d20.RollResult) -> list[Die]:
    found: list[Die] = []

    def walk(node: Any) -> None:
        if isinstance(node, d20_expression.Dice):
            size = 100 if node.size == "%" else int(node.size)
            for die in node.values:
                for face in die.values:  # every face thrown, rerolled ones included
                    found.append(Die(sides=size, face=int(face.values[0]),
                                     kept=bool(die.kept and face.kept)))
        for child in node.children:
            walk(child)

    walk(result.expr)
    return found


_ROLLER = d20.Roller(context=d20.RollContext(max_rolls=MAX_DICE))
_STRINGIFIER = d20.SimpleStringifier()


def _evaluate(expr: str, source: Any) -> d20.RollResult:
    _parse(expr)
    with _drawing_from(source):
        try:
            return _ROLLER.roll(expr, stringifier=_STRINGIFIER, allow_comments=False)
        except d20.TooManyRolls as exc:
            raise DiceError(f"more than {MAX_DICE} dice") from exc
        except d20.RollError as exc:
            raise DiceError(str(exc)) from exc


def _total(result: d20.RollResult) -> int:
    try:  # (evaluated here: 1/0 fails only now)
        return int(result.total)
    except d20.RollError as exc:
        raise DiceError(str(exc)) from exc


def roll_seeded(expr: str, seed: int) -> Roll:
    """Roll ``expr`` with a generator seeded by ``seed``: the same seed gives the same faces."""
    result = _evaluate(expr, random.Random(seed))
    dice = _dice_of(result)
    if len(dice) > MAX_DICE:
        raise DiceError(f"more than {MAX_DICE} dice")
    return Roll(expr=expr, total=_total(result), dice=dice, text=str(result), seed=seed)


def roll_keyed(expr: str, key: bytes, place: str) -> Roll:
    """Roll ``expr`` with faces drawn from the keyed stream ``key`` at ``place``
    (:class:`_KeyedSource`): the same key and place give the same faces."""
    result = _evaluate(expr, _KeyedSource(key, place))
    dice = _dice_of(result)
    if len(dice) > MAX_DICE:
        raise DiceError(f"more than {MAX_DICE} dice")
    return Roll(expr=expr, total=_total(result), dice=dice, text=str(result), place=place)


def roll_faces(expr: str, faces: Sequence[int]) -> Roll:
    """Evaluate ``expr`` with physical dice: ``faces`` in the order the dice are thrown
    (the order :func:`dice_in` lists, then any rerolls or explosions).

    Every face is checked against its die; too many or too few faces are refused.
    """
    if len(faces) > MAX_DICE:
        raise DiceError(f"more than {MAX_DICE} faces")
    source = _FaceSource(faces)
    result = _evaluate(expr, source)
    if source.used != len(faces):
        raise DiceError(f"{expr!r} used {source.used} faces, {len(faces)} were given")
    return Roll(
        expr=expr, total=_total(result), dice=_dice_of(result), text=str(result), manual=True
    )


#: Seeds stay below 2**53 so that every JSON reader (JavaScript too) holds them exactly.
SEED_BITS = 53


def new_seed() -> int:
    """A fresh seed from the operating system's generator."""
    return secrets.randbits(SEED_BITS)


class SeededRoller:
    """Rolls with a fresh seed per roll, drawn from ``seed_source`` (the OS by default).

    An encounter created with a fixed dice seed passes a deterministic source, which makes a
    whole scenario's dice reproducible for tests and demos.
    """

    def __init__(self, seed_source: Any = None) -> None:
        self._source = seed_source

    def roll(self, expr: str) -> Roll:
        seed = new_seed() if self._source is None else self._source()
        return roll_seeded(expr, seed)


def derived_seed(base: int, counter: int) -> int:
    """The seed of the ``counter``-th roll of an encounter that was given dice seed ``base``."""
    return random.Random(base * 1_000_003 + counter).getrandbits(SEED_BITS)


def screened_seed(base: int, counter: int) -> int:
    """The seed of the ``counter``-th roll made behind the GM's screen in an encounter given
    dice seed ``base``: a stream of its own, so that the dice of what is hidden never shift
    the dice of the rest (``derived_seed``)."""
    return random.Random(f"behind the screen:{base}:{counter}").getrandbits(SEED_BITS)
