""""Action Time" in words: the summaries of its events (``encounter.words``), named by its
declaration (``Declaration.words``). Its own words: an ability die (upgraded and downgraded in
steps, R30) against the one Defense (R29), Health, out of the fight at 0 Health until healed,
its lasting effects and marks (R51, R61), yards moved."""

from __future__ import annotations

from encounter.ruleset import EventWords
from encounter.words import (
    OUTCOMES,
    SCREENED,
    Names,
    human,
    listed,
    ruling_words,
    said,
    signed,
    vitals_words,
)
from protocol import events as ev
from protocol.summary import Summary, SummaryPart
from rules.modifiers import Modifier

#: Health (R29), in the vitals' ``fatigue`` fields.
POINTS = "Health"

#: Each attack's verb, and what follows its target.
_VERBS = {"melee_attack": ("attacks", " in melee"), "ranged_attack": ("shoots at", ""),
          "all_out_attack": ("goes all out against", ""), "charge": ("charges", "")}

#: 0 Health: out of the fight until healed (R29).
_CONDITIONS = {"active": "", "fit": "", "defenseless": "out of the fight (0 Health)",
               "unconscious": "unconscious", "dead": "dead", "destroyed": "destroyed"}

#: What an effect modifies (``effect.target``), in words.
_TARGETS = {"defense": "Defense", "test_steps": "tests", "attack_steps": "attacks",
            "damage_steps": "damage die"}
#: The marks, which modify nothing by a number.
_MARKS = {"struck": "struck in melee this turn", "healed": "healed (no more healing until "
          "damaged)", "stand_firm": "standing firm", "pursuit": "may pursue"}
_REASONS = {"turn_start": "at the start of the turn", "round_end": "at the end of the round",
            "used": "used", "damage": "cleared by damage", "out_of_fight": "out of the fight"}


def _steps(modifiers: list[Modifier] | None) -> str:
    """Upgrades and downgrades of a die (R30): `` (Aim (upgrade) +1, Guard Up (downgrade)
    -1)``."""
    shown = [f"{m.name} {signed(m.value)}" for m in modifiers or ()]
    return f" ({', '.join(shown)})" if shown else ""


def _step_parts(modifiers: list[Modifier] | None) -> list[SummaryPart]:
    return [SummaryPart(label=f"{m.name} (steps)", value=m.value) for m in modifiers or ()]


def _attack(e: ev.AttackResolved, n: Names) -> Summary:
    verb, after = _VERBS.get(e.action, (f"uses {human(e.action)} on", ""))
    text = f"{n(e.attacker)} {verb} {n(e.target)}{after}"
    if e.weapon:
        text += f" with {e.weapon}"
    die = e.die or "the die"
    parts: list[SummaryPart] = []
    text += f": {die}{_steps(e.modifiers)}"
    parts += _step_parts(e.modifiers)
    if e.natural is None:
        text += f" rolled {SCREENED}"
    else:
        text += f" rolled {e.natural}"
        parts.append(SummaryPart(label=die, value=e.natural))
    if e.total is not None and e.total != e.natural:
        text += f" = {e.total}"
    if e.total is not None:
        parts.append(SummaryPart(label="total", value=e.total))
    text += " against Defense"
    if e.defense_value is not None:
        text += f" {e.defense_value}"
        shown = [f"{p.name} {p.value}" for p in e.defense_parts or () if p.value]
        if len(shown) > 1:  # (one part is the Defense itself)
            text += f" ({', '.join(shown)})"
        parts.append(SummaryPart(label="Defense", value=e.defense_value))
    return said(f"{text}: {OUTCOMES.get(e.outcome, human(e.outcome))}", parts)


def _damage(e: ev.DamageDealt, n: Names) -> Summary:
    source = f" by {n(e.source)}" if e.source else ""
    text = f"{n(e.target)} is hit{source}: {e.dice}{_steps(e.dice_parts)}"
    parts = _step_parts(e.dice_parts)
    if e.rolled is None:
        text += f" rolled {SCREENED}"
    else:
        text += f" rolled {e.rolled}"
        parts.append(SummaryPart(label=e.dice, value=e.rolled))
    for m in e.bonuses:
        text += f" {signed(m.value)} {m.name}"
        parts.append(SummaryPart(label=m.name, value=m.value))
    parts.append(SummaryPart(label="loss", value=e.loss))
    return said(f"{text}: loses {e.loss} Health", parts)


def _vitals(e: ev.VitalsChanged, n: Names) -> Summary:
    return vitals_words(e, n, POINTS, _CONDITIONS)


def _check(e: ev.CheckMade, n: Names) -> Summary:
    """A test of "Action Time": the die's face, its upgrades and downgrades, the total against
    the difficulty (a heal's is 4, R33)."""
    text = f"{n(e.combatant)}'s {human(e.check)} test{_steps(e.modifiers)}"
    parts = _step_parts(e.modifiers)
    if e.natural is None:
        text += f": rolled {SCREENED}"
    else:
        text += f": rolled {e.natural}"
        parts.append(SummaryPart(label="die", value=e.natural))
    if e.total is not None and e.total != e.natural:
        text += f" = {e.total}"
    if e.total is not None:
        parts.append(SummaryPart(label="total", value=e.total))
    if e.dc is not None:
        text += f" against difficulty {e.dc}"
        parts.append(SummaryPart(label="difficulty", value=e.dc))
    text += ": " + ("success" if e.success else "failure")
    if e.target:
        text += f" ({n(e.target)})"
    return said(text, parts)


def _effect(e: ev.AtEffectStarted | ev.AtEffectEnded, n: Names) -> tuple[str, list[SummaryPart]]:
    f = e.effect
    mark = _MARKS.get(f.target)
    if mark is not None:
        what = f"{f.source}: {mark}" if f.source and f.source not in mark else mark
        return what, []
    target = _TARGETS.get(f.target, human(f.target))
    steps = f.target.endswith("_steps")
    value = f"{signed(f.value)} step{'s' if abs(f.value) != 1 else ''}" if steps \
        else signed(f.value)
    return f"{f.source} ({target} {value})", [SummaryPart(label=target, value=f.value)]


def _effect_started(e: ev.AtEffectStarted, n: Names) -> Summary:
    what, parts = _effect(e, n)
    by = ""
    if e.origin_hidden or (e.effect.origin and e.effect.origin != e.effect.holder):
        by = f", from {n(e.effect.origin)}"  # (a hidden healer: someone unseen)
    return said(f"{n(e.effect.holder)}: {what} begins{by}", parts)


def _effect_ended(e: ev.AtEffectEnded, n: Names) -> Summary:
    what, parts = _effect(e, n)
    return said(f"{n(e.effect.holder)}: {what} ends ({_REASONS.get(e.reason, human(e.reason))})",
                parts)


def _moved(e: ev.AtMoved, n: Names) -> Summary:
    text = (f"{n(e.combatant)}: {human(e.action)}, {e.yards} of {e.max_yards} yards "
            f"({e.reason})")
    if e.away_from:
        text += f", away from {n.all(e.away_from)}"
    return said(text, [SummaryPart(label="yards", value=e.yards),
                       SummaryPart(label="at most", value=e.max_yards)])


def _readied(e: ev.ItemsReadied, n: Names) -> Summary:
    bits = []
    if e.drawn:
        bits.append(f"draws {e.drawn}")
    if e.stowed:
        bits.append(f"stows {e.stowed}")
    held = listed(list(e.in_hoof)) or "nothing"
    return said(f"{n(e.combatant)} {' and '.join(bits) or 'readies'}; holds {held}")


WORDS: dict[type | str, EventWords] = {
    ev.AttackResolved: _attack,
    ev.DamageDealt: _damage,
    ev.VitalsChanged: _vitals,
    ev.CheckMade: _check,
    ev.AtEffectStarted: _effect_started,
    ev.AtEffectEnded: _effect_ended,
    ev.AtMoved: _moved,
    ev.ItemsReadied: _readied,
    ev.GmRuling: ruling_words(POINTS),
}
