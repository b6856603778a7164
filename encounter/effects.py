"""The effects a combatant holds, as the rules read them (``add_effect``, rulings R90-R92).

The GM's effects are in the state as the ``effect_started`` events that began them
(``EncounterState.effects``); :func:`held` lists the modifiers of those a combatant holds on
some targets, as :class:`rules.effects.Held`, in the order they began. A ruleset adds what its
stat blocks grant (feats, talents, species) and stacks them by its own rule
(``rules.effects``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.effects import Held, is_die

if TYPE_CHECKING:
    from encounter.state import EncounterState
    from protocol.events import EffectStarted


def held(s: EncounterState, cid: str, *targets: str) -> list[Held]:
    """The number modifiers on ``targets`` of the effects ``cid`` holds now."""
    out = []
    for e in s.effects.values():
        if e.combatant != cid:
            continue
        for m in e.modifiers:
            if m.target in targets and not is_die(m.amount):
                assert isinstance(m.amount, int)
                out.append(Held(target=m.target, amount=m.amount, source=e.source or e.name,
                                kind=e.source_kind, name=e.name,
                                source_unseen=source_unseen(s, e)))
    return out


def source_unseen(s: EncounterState, e: EffectStarted) -> bool:
    """Whether the table sees the effect ``e`` but may not read its source: a combatant it
    does not see caused it (its ``origin``) on one it sees (rulings R79, R97). The GM's words
    for where it comes from would name the creature the screen hides: the table reads the
    effect by its name, in its ``effect_started``, in the snapshot and in every itemised
    result (the stacking rules still read the source)."""
    return e.origin is not None and not s.visible_combatant(e.origin) and (
        e.combatant is None or s.visible_combatant(e.combatant))
