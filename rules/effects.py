"""Effects that change numbers, for both rulesets (rulings R90-R95).

An effect is what a GM's ``add_effect``, a feat, a talent, a species or a spell grants: one or
more :class:`EffectModifier` (``target``: what it changes, ``amount``: by how much), a
``source`` (the thing it comes from: "Champion", "Frost Weapons", "GM"), a ``kind`` (what sort
of thing that is: a talent, a spell, cover, a condition...) and a duration (R90):

- ``rounds``: N rounds, ending just before the same initiative count N rounds later ("MLP
  Dramatic Systems", THE COMBAT ROUND);
- ``start_of_next_turn``: until the holder's next turn starts ("until the beginning of your
  next turn", Defend);
- ``end_of_round``: until the end of the round (Guard Up's "until the end of this round");
- ``scene``: until the scene ends; ``ended``: until the GM ends it.

The engine gathers the modifiers a combatant holds on one target as :class:`Held` and the
ruleset's stacking rule decides which of them count:

- :func:`stack_same_source` — "Action Time", Stacking Effects: "the effects of different
  talents, specials, spells, stunts, items of equipment, and the like stack [...] but the
  effects of multiple instances of the very same thing do not stack" (R61, R91): of several
  with the same ``(kind, source)`` only the largest counts.
- :func:`stack_dramatic` — "MLP Dramatic Systems" (R92): one cover bonus "no matter how many"
  sources (COVER), "Multiple sources of concealment [...] do not apply additional penalties"
  (CONCEALMENT), condition penalties add (R15), and the rest as Action Time's general rule
  (same source: the largest counts; different sources add), Star Wars Saga Edition's too.

Every contribution is itemised, counted or not, as a :class:`rules.modifiers.Modifier` naming
its source, so that a result says what changed it.

Public API: :class:`EffectModifier`, :class:`Held`, :data:`DURATIONS`, :data:`KINDS`,
:func:`stack_same_source`, :func:`stack_dramatic`, :func:`normalise_name`, :func:`is_die`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Annotated, Literal

import msgspec

from rules.modifiers import Modifier

Duration = Literal["rounds", "start_of_next_turn", "end_of_round", "scene", "ended"]
DURATIONS: tuple[str, ...] = ("rounds", "start_of_next_turn", "end_of_round", "scene", "ended")
#: What sort of thing an effect comes from; the stacking rules read ``cover``, ``concealment``
#: and ``condition`` ("MLP Dramatic Systems", R92).
Kind = Literal["gm", "feat", "talent", "species", "spell", "item", "stunt", "cover",
               "concealment", "condition"]
KINDS: tuple[str, ...] = ("gm", "feat", "talent", "species", "spell", "item", "stunt", "cover",
                          "concealment", "condition")

#: A target name: one the ruleset lists (docs/actions.md) or ``gm:<name>``, a quantity the GM
#: names and reads (R90).
TargetName = Annotated[str, msgspec.Meta(
    pattern=r"^[a-z_]{1,40}$|^gm:[A-Za-z0-9 _-]{1,40}$",
    description="What the modifier changes: a target the ruleset lists (docs/actions.md, "
                "\"Effects\"), or gm:<name>, a quantity the GM names and reads (ruling R90).")]
#: A die, for targets that add one ("Action Time" ``extra_damage_die``: "d6").
DieText = Annotated[str, msgspec.Meta(pattern=r"^[dD](4|6|8|10|12|20)$")]


class EffectModifier(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                     gc=False):
    """What an effect changes and by how much: a number (a bonus or penalty; for the
    ``*_steps`` targets of "Action Time", upgrades + and downgrades -), or a die (``"d6"``) for
    a target that adds a die."""

    target: TargetName
    amount: Annotated[int, msgspec.Meta(ge=-100, le=100)] | DieText


class Held(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One modifier a combatant holds now: its ``target`` and ``amount``, the effect's
    ``source``, ``kind`` and ``name`` (what the itemised modifiers show), and ``section`` (the
    rule text or ruling it comes from)."""

    target: str
    amount: int
    source: str
    kind: str = "gm"
    name: str = ""
    section: str = "add_effect (R90)"
    #: results name it by ``name`` alone: its source is not for everyone who reads them (a
    #: hidden combatant's doing, ruling R97); the stacking rules still read it
    source_unseen: bool = False

    @property
    def label(self) -> str:
        if self.source_unseen:
            return self.name or "an effect"
        return self.name if not self.name or self.name == self.source else \
            f"{self.source}: {self.name}"


@lru_cache(maxsize=4096)
def normalise_name(name: str) -> str:
    """A feat's or talent's name as it is matched (R93): case and spaces do not matter, nor
    punctuation: "Precise Shot", "precise shot" and "precise_shot" are one name."""
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


def is_die(amount: int | str) -> bool:
    return isinstance(amount, str)


def _itemise(held: Sequence[Held], chosen: set[int], note: dict[int, str]) -> list[Modifier]:
    out = []
    for i, h in enumerate(held):
        label = h.label or h.source
        if i in chosen:
            out.append(Modifier(label, h.amount, h.section))
        else:
            out.append(Modifier(f"{label} - not counted: {note.get(i, '')}", 0, h.section))
    return out


def _largest_per(held: Sequence[Held], key: Iterable[tuple[int, object]]) -> set[int]:
    best: dict[object, int] = {}
    for i, k in key:
        if k not in best or abs(held[i].amount) > abs(held[best[k]].amount):
            best[k] = i
    return set(best.values())


def stack_same_source(held: Sequence[Held]) -> list[Modifier]:
    """Stacking Effects ("Action Time", R61, R91): different sources add; of several instances
    of the very same thing (same ``kind`` and ``source``) only the largest counts, the first
    listed on a tie."""
    chosen = _largest_per(held, ((i, (h.kind, normalise_name(h.source)))
                                 for i, h in enumerate(held)))
    return _itemise(held, chosen, {i: f"same {held[i].kind} as another, does not stack"
                                   for i in range(len(held))})


def stack_dramatic(held: Sequence[Held]) -> list[Modifier]:
    """"MLP Dramatic Systems" (R92): of cover effects only the largest counts (COVER: "+2 cover
    bonus [...] no matter how many creatures and terrain features"); of concealment effects only
    the largest penalty (CONCEALMENT: "Multiple sources of concealment [...] do not apply
    additional penalties"); conditions all add (R15); any other: the same source counts once
    (the largest), different sources add."""
    def key(i: int, h: Held) -> object:
        if h.kind in ("cover", "concealment"):
            return h.kind
        if h.kind == "condition":
            return ("condition", i)
        return (h.kind, normalise_name(h.source))
    chosen = _largest_per(held, ((i, key(i, h)) for i, h in enumerate(held)))
    notes = {i: ("only one cover bonus counts (COVER)" if h.kind == "cover" else
                 "several sources of concealment give one penalty (CONCEALMENT)"
                 if h.kind == "concealment" else f"same {h.kind} as another, does not stack")
             for i, h in enumerate(held)}
    return _itemise(held, chosen, notes)
