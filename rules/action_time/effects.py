"""Effects and the stacking rule (Stacking Effects; rulings R51 and R61).

"The effects of different talents, specials, spells, stunts, items of equipment, and the like
stack with each other when they apply to the same test or circumstance, but the effects of
multiple instances of the very same thing do not stack."

This module is the one place that rule lives. Every bonus, penalty, upgrade or downgrade —
Defend's +2, Guard Up's downgrades, Aim's upgrade, a talent's +1 — is a :class:`Modifier`
(what it is: ``source_kind`` and ``source``; how much: ``value``), and :func:`stack` adds them
up: modifiers with different identities add; of several with the same identity
(``source_kind``, ``source``) only the largest in size counts, the first listed on a tie (R61).
Every contribution is itemised, counted or not, so a player sees why.

An :class:`Effect` is a modifier that lasts: it has a ``holder`` (the combatant it applies to),
a ``target`` (what it modifies, see the ``DEFENSE`` … constants) and an ``expiry``:

- ``"end_of_round"`` — ends when the round ends (Guard Up);
- ``"start_of_next_turn:<combatant>"`` — ends when that combatant's next turn starts (Defend,
  All-Out Attack's penalty, Prepare, Press the Attack, Stand Firm); see :func:`start_of_next_turn`;
- ``"next_attack"`` — used up by the holder's next attack;
- ``"next_action"`` — used up by the holder's next major or minor action (Aim, R35);
- ``"until_removed"`` — ends when the server removes it (a talent, an item held).

Public API: :class:`Modifier`, :class:`Contribution`, :class:`Net`, :func:`stack`;
:class:`Effect`, :func:`add_effect`, :func:`net`, :func:`net_all`; :class:`Expired`,
:func:`at_turn_start`, :func:`at_round_end`, :func:`on_action`, :func:`remove`,
:func:`start_of_next_turn`, :class:`EffectError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import msgspec

#: Targets an effect can modify. Defense adds to the Defense value; the ``*_steps`` targets are
#: upgrades (+) and downgrades (-) of a die (R30).
DEFENSE = "defense"
TEST_STEPS = "test_steps"  # every test the holder makes, opposed tests and attacks included
ATTACK_STEPS = "attack_steps"  # the holder's attack die only
DAMAGE_STEPS = "damage_steps"  # the holder's damage die
PREPARED = "prepared"  # Prepare: ``detail`` is the prepared major action (R36)
PURSUIT = "pursuit"  # Press the Attack: ``detail`` is the enemy, ``value`` the yards (R37)
STAND_FIRM = "stand_firm"  # Stand Firm: stunts that move the holder need an opposed test

END_OF_ROUND = "end_of_round"
NEXT_ATTACK = "next_attack"
NEXT_ACTION = "next_action"
UNTIL_REMOVED = "until_removed"
_TURN_START = "start_of_next_turn:"


class EffectError(ValueError):
    """An effect that is not well formed (an unknown expiry)."""


def start_of_next_turn(combatant: str) -> str:
    """The expiry of an effect that lasts until ``combatant``'s next turn starts."""
    return f"{_TURN_START}{combatant}"


class Modifier(msgspec.Struct, frozen=True, gc=False):
    """One bonus or penalty and what it comes from. ``source_kind`` is what sort of thing it
    is ("action", "talent", "spell", "stunt", "item", ...), ``source`` which one ("Defend",
    "Champion"); the two together are its identity for the stacking rule."""

    source_kind: str
    source: str
    value: int


class Contribution(msgspec.Struct, frozen=True, gc=False):
    """A modifier as :func:`stack` used it: ``counted`` or not, with ``note`` saying why not."""

    source_kind: str
    source: str
    value: int
    counted: bool = True
    note: str = ""


class Net(msgspec.Struct, frozen=True, gc=False):
    """The sum of the counted contributions to one ``target``, itemised."""

    target: str
    total: int
    contributions: tuple[Contribution, ...] = ()

    def explain(self) -> str:
        """``"Defend +2, Guard Up +1 = +3"``; uncounted contributions in brackets."""
        if not self.contributions:
            return "none = +0"
        parts = [f"{c.source} {c.value:+d}" if c.counted else f"({c.source} {c.value:+d}: {c.note})"
                 for c in self.contributions]
        return f"{', '.join(parts)} = {self.total:+d}"


def stack(modifiers: Iterable[Modifier], target: str = "") -> Net:
    """Stacking Effects (R51, R61): modifiers of different identities add; of modifiers with the
    same ``(source_kind, source)`` only the largest in size counts (the first listed on a tie).
    The result lists every modifier in the order given."""
    mods = list(modifiers)
    best: dict[tuple[str, str], int] = {}
    for index, mod in enumerate(mods):
        key = (mod.source_kind, mod.source)
        if key not in best or abs(mod.value) > abs(mods[best[key]].value):
            best[key] = index
    chosen = set(best.values())
    items = tuple(
        Contribution(m.source_kind, m.source, m.value) if i in chosen else
        Contribution(m.source_kind, m.source, m.value, counted=False,
                     note=f"same {m.source_kind} as another, does not stack")
        for i, m in enumerate(mods))
    return Net(target=target, total=sum(mods[i].value for i in chosen), contributions=items)


class Effect(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A lasting modifier on ``holder``. ``origin`` is the combatant whose action, talent or
    spell created it; ``detail`` carries what some effects need (the prepared action, the
    pursued enemy)."""

    holder: str
    target: str
    value: int
    source_kind: str
    source: str
    expiry: str
    origin: str = ""
    detail: str = ""

    def __post_init__(self) -> None:
        known = (END_OF_ROUND, NEXT_ATTACK, NEXT_ACTION, UNTIL_REMOVED)
        if self.expiry not in known and not (
                self.expiry.startswith(_TURN_START) and len(self.expiry) > len(_TURN_START)):
            raise EffectError(f"unknown expiry {self.expiry!r}")

    @property
    def modifier(self) -> Modifier:
        return Modifier(self.source_kind, self.source, self.value)


def add_effect(effects: Sequence[Effect], new: Effect) -> tuple[Effect, ...]:
    """The effects with ``new`` added. An earlier instance of the very same thing from the same
    origin on the same holder and target is replaced (a second Guard Up replaces the first,
    R51); instances from different origins are all kept, and :func:`stack` counts one."""
    def same(e: Effect) -> bool:
        return (e.holder, e.target, e.source_kind, e.source, e.origin) == (
            new.holder, new.target, new.source_kind, new.source, new.origin)
    return (*(e for e in effects if not same(e)), new)


def net(effects: Iterable[Effect], holder: str, target: str,
        extra: Iterable[Modifier] = ()) -> Net:
    """The net modifier of ``holder``'s ``target`` from its effects plus ``extra`` modifiers
    that apply only now (Charge's upgrade), all under the one stacking rule."""
    mods = [e.modifier for e in effects if e.holder == holder and e.target == target]
    return stack([*mods, *extra], target)


def net_all(effects: Iterable[Effect], holder: str) -> dict[str, Net]:
    """:func:`net` for every target the holder has an effect on."""
    mine = [e for e in effects if e.holder == holder]
    return {t: net(mine, holder, t) for t in dict.fromkeys(e.target for e in mine)}


class Expired(msgspec.Struct, frozen=True, gc=False):
    """Effects split into those that go on and those that just ended."""

    kept: tuple[Effect, ...]
    ended: tuple[Effect, ...]


def _split(effects: Iterable[Effect], test: Callable[[Effect], bool]) -> Expired:
    kept: list[Effect] = []
    ended: list[Effect] = []
    for e in effects:
        (ended if test(e) else kept).append(e)
    return Expired(tuple(kept), tuple(ended))


def at_turn_start(effects: Iterable[Effect], combatant: str) -> Expired:
    """Effects that end as ``combatant``'s turn starts: those lasting "until the beginning of
    your next turn" (Defend, All-Out Attack, Prepare, Press the Attack, Stand Firm)."""
    expiry = start_of_next_turn(combatant)
    return _split(effects, lambda e: e.expiry == expiry)


def at_round_end(effects: Iterable[Effect]) -> Expired:
    """Effects that end with the round ("until the end of this round": Guard Up)."""
    return _split(effects, lambda e: e.expiry == END_OF_ROUND)


def on_action(effects: Iterable[Effect], holder: str, *, attack: bool) -> Expired:
    """Effects of ``holder`` used up by its major or minor action (free actions use nothing,
    R35): ``"next_action"`` effects by any such action, ``"next_attack"`` ones by an attack."""
    used = {NEXT_ACTION, NEXT_ATTACK} if attack else {NEXT_ACTION}
    return _split(effects, lambda e: e.holder == holder and e.expiry in used)


def remove(effects: Iterable[Effect], effect: Effect) -> tuple[Effect, ...]:
    """The effects without ``effect`` (a Prepare taken, a pursuit made)."""
    return tuple(e for e in effects if e != effect)
