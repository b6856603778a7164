"""Events in words: the ``summary`` a viewer with the ``summaries`` feature gets with each event.

The declaration of an event owns its words: the engine's own kinds are worded here
(:data:`ENGINE_WORDS`), each ruleset's in the ruleset (``Declaration.words``, by event type, and
by name for its ``ruleset_event`` events). A ruleset may also word an engine kind its own way
(Action Time's attacks roll an ability die against Defense and take Health, Dramatic's roll a
d20 against Reflex Defense and take fatigue points); the engine's words are for a ruleset that
does not.

A summary is made from the event as the viewer receives it (``encounter.views.view_event``):
it never says more than that event. Combatants go by the names the encounter gives them
(:class:`Names`); one the event does not name for this viewer (a hidden healer's ``origin``,
a hidden turn's ``after``) is "someone unseen"; a number the event does not carry (an NPC's
roll behind the GM's screen) is "behind the GM's screen". So equal redacted events have equal
summaries, whoever receives them, live, on resuming or in a history page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import msgspec

from encounter.registry import REGISTRY, declaration, names
from encounter.ruleset import EventWords
from protocol import events as ev
from protocol.summary import Summary, SummaryPart
from rules.modifiers import Modifier

#: A combatant the event does not name for this viewer.
UNSEEN = "someone unseen"
#: A number the event does not carry for this viewer.
SCREENED = "behind the GM's screen"
#: The place in the order of the hidden combatants' turns, as the table sees them (ruling
#: R99, ``encounter.screen_turn``): no combatant's, the GM's screen's.
SCREEN = "screen"
SCREEN_TURN = "someone behind the GM's screen"


class Names:
    """The combatants' names as the encounter gives them, by id (removed ones too); an id the
    event does not give (``None``, ``""``) is :data:`UNSEEN`."""

    __slots__ = ("_effects", "_names")

    def __init__(self, known: Mapping[str, str], effects: Mapping[str, str] | None = None
                 ) -> None:
        self._names = known
        self._effects = effects or {}

    def effect(self, effect: str) -> str | None:
        """The name of the effect ``effect`` (an ``effect_started``'s), if it is known."""
        return self._effects.get(effect)

    def __call__(self, cid: str | None) -> str:
        if not cid:
            return UNSEEN
        found = self._names.get(cid)
        if found is not None:
            return found
        return SCREEN_TURN if cid == SCREEN else cid

    def all(self, ids: Iterable[str]) -> str:
        return listed([self(c) for c in ids])


#: Words for one kind of event: the event (as the viewer receives it) and the names.
Wording = EventWords


def summarize(event: ev.Event, ruleset: str, known: Mapping[str, str],
              effects: Mapping[str, str] | None = None) -> Summary:
    """``event`` (as one viewer receives it) in words, in an encounter of ``ruleset``:
    combatants by ``known`` names, effects by their ``effects`` names (the state's ``names``
    and ``effect_names``)."""
    wording = words_for(event, ruleset)
    if wording is None:  # (never for a declared kind: tests/test_summaries.py)
        return Summary(text=sentence(human(str(event.__struct_config__.tag)).capitalize()))
    return wording(event, Names(known, effects))


def words_for(event: ev.Event, ruleset: str) -> Wording | None:
    """The words of ``event``'s kind: the ruleset's own first, then the engine's, then those of
    the ruleset that declares it (a log written before each ruleset's events were its own)."""
    if isinstance(event, ev.RulesetEvent):
        owner = event.ruleset if event.ruleset in REGISTRY else ruleset
        return declaration(owner).words.get(event.name) if owner in REGISTRY else None
    kind = type(event)
    found = declaration(ruleset).words.get(kind) if ruleset in REGISTRY else None
    if found is None:
        found = ENGINE_WORDS.get(kind)
    if found is None:
        for name in names():
            found = declaration(name).words.get(kind)
            if found is not None:
                break
    return found


# -- pieces of sentences -------------------------------------------------------------------------


def human(word: str) -> str:
    return word.replace("_", " ")


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"-{-value}"


def counted(number: int, points: str) -> str:
    """``number`` with its word, in the singular for one: ``1 fatigue point``, ``4 fatigue
    points``, ``3 Health``."""
    if abs(number) == 1 and points.endswith("points"):
        points = points[:-1]
    return f"{number} {points}"


def listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) < 3:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def terms(modifiers: Iterable[Modifier] | None) -> str:
    """Itemised modifiers: ``+6 Ranged skill -2 shooting into melee``."""
    return " ".join(f"{signed(m.value)} {m.name}" for m in modifiers or ())


def parts_of(modifiers: Iterable[Modifier] | None) -> list[SummaryPart]:
    return [SummaryPart(label=m.name, value=m.value) for m in modifiers or ()]


def sentence(text: str) -> str:
    """``text`` as a sentence: with a full stop unless it ends with one. (Its first letter is
    left as it is: a sentence may begin with a name.)"""
    text = text.strip()
    if text.startswith((UNSEEN, SCREEN_TURN)):  # (not a name: the words of one)
        text = text[0].upper() + text[1:]
    return text if not text or text[-1] in ".!?" else text + "."


def said(text: str, parts: Iterable[SummaryPart] = ()) -> Summary:
    return Summary(text=sentence(text), parts=tuple(parts))


def dice_faces(roll: Any) -> str:
    """The faces of a roll: ``[d20: 14, d6: 3]``; a die that does not count is struck
    (``~d20: 3~``)."""
    return "[" + ", ".join(f"d{d.sides}: {d.face}" if d.kept else f"~d{d.sides}: {d.face}~"
                           for d in roll.dice) + "]"


_LASTS = {"start_of_next_turn": "until its holder's next turn",
          "end_of_round": "until the end of the round", "scene": "for the scene"}


def lasts(e: ev.EffectStarted) -> str:
    """How long an effect lasts, in words (R90)."""
    if e.until == "rounds":
        return (f"for {e.rounds} round{'s' if e.rounds != 1 else ''}, until round "
                f"{e.ends_round}")
    return _LASTS.get(e.until, "until it is ended")


def amount(value: int | str) -> str:
    return signed(value) if isinstance(value, int) else str(value)


# -- the engine's kinds ----------------------------------------------------------------------------


def _created(e: ev.EncounterCreated, n: Names) -> Summary:
    title = declaration(e.ruleset).title if e.ruleset in REGISTRY else e.ruleset
    return said(f"The GM creates the encounter “{e.name}” ({title})")


def _added(e: ev.CombatantAdded, n: Names) -> Summary:
    c = e.combatant
    return said(f"{c.name} joins the encounter" + (" (hidden)" if c.hidden else ""))


def _removed(e: ev.CombatantRemoved, n: Names) -> Summary:
    return said(f"{n(e.combatant)} leaves the encounter")


def _revealed(e: ev.CombatantRevealed, n: Names) -> Summary:
    return said(f"{e.combatant.name} is revealed!")


def _concealed(e: ev.CombatantConcealed, n: Names) -> Summary:
    return said(f"The GM hides {n(e.combatant)} again")


def _options(e: ev.OptionsChanged, n: Names) -> Summary:
    return said("The GM changes the encounter's options")


def _token_issued(e: ev.TokenIssued, n: Names) -> Summary:
    who = f" for {n.all(e.combatants)}" if e.combatants else ""
    label = f" “{e.label}”" if e.label else ""
    return said(f"The GM issues a {e.role} credential{label}{who}")


def _token_revoked(e: ev.TokenRevoked, n: Names) -> Summary:
    return said("The GM revokes a credential")


def _requested(e: ev.RollRequested, n: Names) -> Summary:
    who = "the GM" if e.roller == "gm" else UNSEEN if e.hidden else n(e.roller)
    whose = ""
    if e.combatant is not None and e.combatant != e.roller:
        whose = f" for {n(e.combatant)}"
    elif e.combatant is None and e.hidden:
        whose = f" for {UNSEEN}"
    return said(f"Waiting for {who} to roll {e.expr} ({human(e.purpose)}{whose})",
                [SummaryPart(label="dice", value=e.expr)])


def _rolled(e: ev.DiceRolled, n: Names) -> Summary:
    who = n(e.combatant) if e.combatant is not None else UNSEEN if e.hidden else "The GM"
    how = {"gm": ", the GM's physical dice", "player": ", physical dice"}.get(e.by, "")
    parts = [SummaryPart(label=f"d{d.sides}", value=d.face) for d in e.roll.dice if d.kept]
    parts.append(SummaryPart(label="total", value=e.roll.total))
    return said(f"{who} rolls {human(e.purpose)}: {e.roll.expr} {dice_faces(e.roll)} = "
                f"{e.roll.total}{how}", parts)


def _initiative(e: ev.InitiativeSet, n: Names) -> Summary:
    if not e.entries:
        return said("Initiative: nobody in the order yet")
    order = ", ".join(f"{n(x.combatant)} {x.total}" for x in e.entries)
    return said(f"Initiative: {order}",
                [SummaryPart(label=n(x.combatant), value=x.total) for x in e.entries])


def _joined(e: ev.CombatantJoined, n: Names) -> Summary:
    x = e.entry
    return said(f"{n(x.combatant)} joins the initiative order at {x.total}",
                [SummaryPart(label="initiative", value=x.total)])


def _aware(e: ev.AwarenessSet, n: Names) -> Summary:
    if e.in_scene:
        return said(f"{n(e.combatant)} is {'aware' if e.aware else 'unaware'} of the attacks "
                    "made on it")
    return said(f"{n(e.combatant)} is {'aware' if e.aware else 'unaware'} of its opponents")


def _scene(e: ev.SceneStarted, n: Names) -> Summary:
    return said("The scene begins with a surprise round!" if e.surprise else "The scene begins")


def _flat_footed(e: ev.FlatFooted, n: Names) -> Summary:
    state = "flat-footed" if e.flat_footed else "no longer flat-footed"
    return said(f"{n(e.combatant)} is {state}")


def _round(e: ev.RoundStarted, n: Names) -> Summary:
    return said("The surprise round begins" if e.surprise else f"Round {e.round} begins")


def _turn_started(e: ev.TurnStarted, n: Names) -> Summary:
    who = n(e.combatant)
    return said(f"The turn of {who}" if who == SCREEN_TURN else f"{who}'s turn")


def _turn_ended(e: ev.TurnEnded, n: Names) -> Summary:
    who = n(e.combatant)
    return said(f"The turn of {who} ends" if who == SCREEN_TURN else f"{who} ends the turn")


def _action(e: ev.ActionTaken, n: Names) -> Summary:
    text = f"{n(e.combatant)}: {human(e.action)}"
    if e.target:
        text += f" on {n(e.target)}"
    bits = []
    if e.needed > 1:
        bits.append(f"swift action {e.progress} of {e.needed}")
    if e.readied:
        bits.append("readied")
    elif e.out_of_turn:
        bits.append("out of turn")
    if bits:
        text += f" ({', '.join(bits)})"
    if e.note:
        text += f": {e.note}"
    return said(text)


def _delayed(e: ev.TurnDelayed, n: Names) -> Summary:
    until = f" until initiative count {e.until_count}" if e.until_count is not None else ""
    return said(f"{n(e.combatant)} delays{until}")


def _delay_requested(e: ev.DelayedTurnRequested, n: Names) -> Summary:
    after = "the current turn" if e.after is None else f"{n(e.after)}'s turn"
    return said(f"{n(e.combatant)} will act right after {after}")


_REASONS = {"delay": "after delaying", "ready": "after its readied action",
            "round_end": "as the round ends"}


def _order(e: ev.OrderChanged, n: Names) -> Summary:
    return said(f"{n(e.combatant)} moves to initiative count {e.count} "
                f"{_REASONS.get(e.reason, human(e.reason))}")


def _readied(e: ev.ActionReadied, n: Names) -> Summary:
    return said(f"{n(e.combatant)} readies {human(e.action)}: {e.trigger}")


def _triggered(e: ev.ReadiedActionTriggered, n: Names) -> Summary:
    whose = "the current turn" if e.interrupting is None else f"{n(e.interrupting)}'s turn"
    return said(f"{n(e.combatant)}'s readied action interrupts {whose}!")


def _interrupt_ended(e: ev.InterruptEnded, n: Names) -> Summary:
    return said(f"{n(e.combatant)}'s readied action is resolved; the turn resumes")


def _lapsed(e: ev.ReadiedActionLost, n: Names) -> Summary:
    return said(f"{n(e.combatant)}'s readied action lapses")


def _effect_started(e: ev.EffectStarted, n: Names) -> Summary:
    mods = ", ".join(f"{human(m.target)} {amount(m.amount)}" for m in e.modifiers)
    text = e.name + (f" ({mods})" if mods else "")
    on = f" on {n(e.combatant)}" if e.combatant else ""
    by = f", from {n(e.origin)}" if e.origin else ""
    return said(f"{text} begins{on}{by}, {lasts(e)}",
                [SummaryPart(label=human(m.target), value=m.amount) for m in e.modifiers])


def _effect_ended(e: ev.EffectEnded, n: Names) -> Summary:
    name = n.effect(e.effect)
    if e.reason == "removed":
        return said(f"The GM removes {name}" if name else "The GM removes an effect")
    return said(f"{name} ends" if name else "An effect runs out")


def _vitals(e: ev.VitalsChanged, n: Names) -> Summary:
    return vitals_words(e, n, "fatigue points")


def vitals_words(e: ev.VitalsChanged, n: Names, points: str,
                 condition: Mapping[str, str] | None = None) -> Summary:
    """A change of vitals: why (its notes, rule by rule), then the new values the event
    carries (``points``: the ruleset's word for them)."""
    words = condition or CONDITIONS
    why = "; ".join(e.notes) if e.notes else human(e.cause)
    state: list[str] = []
    parts: list[SummaryPart] = []
    if e.fatigue is not None and e.fatigue_max:
        state.append(f"{points} {e.fatigue}/{e.fatigue_max}")
        parts += [SummaryPart(label=points, value=e.fatigue),
                  SummaryPart(label=f"{points} max", value=e.fatigue_max)]
    for name, track in (("physical", e.physical), ("mental", e.mental)):
        if track is not None and track.step:
            text = f"{name} track step {track.step} ({signed(track.penalty)})"
            if track.persistent:
                text += f", {track.persistent} persistent"
            if track.crippling:
                text += f", {track.crippling} crippling"
            state.append(text)
            parts.append(SummaryPart(label=f"{name} track step", value=track.step))
    state += [w for c in e.condition if (w := words.get(c, human(c)))]
    if e.prone:
        state.append("prone")
    if e.helpless:
        state.append("helpless")
    if e.check_round is not None:
        state.append(f"Constitution check in round {e.check_round}")
    tail = f" Now: {', '.join(state)}." if state else ""
    return Summary(text=sentence(f"{n(e.combatant)}: {why}") + tail, parts=tuple(parts))


#: The words of a condition chart's states (empty: not worth saying).
CONDITIONS = {"active": "", "fit": "", "defenseless": "defenseless",
              "unconscious": "unconscious", "awaiting_check": "awaiting a Constitution check",
              "out_for_scene": "out for the scene", "dead": "dead", "destroyed": "destroyed"}


def _check(e: ev.CheckMade, n: Names) -> Summary:
    return check_words(e, n, "d20")


def check_words(e: ev.CheckMade, n: Names, die: str, dc: str = "DC") -> Summary:
    """A check: the die (``die``), every modifier, the total against the number to reach."""
    if e.took_10:
        roll, parts = "takes 10", [SummaryPart(label="took 10", value=10)]
    elif e.natural is None:
        roll, parts = f"{die} {SCREENED}", []
    else:
        roll, parts = f"{die} {e.natural}", [SummaryPart(label=die, value=e.natural)]
    text = f"{n(e.combatant)}'s {human(e.check)} check: {roll}"
    mods = terms(e.modifiers)
    if mods:
        text += f" {mods}"
    parts += parts_of(e.modifiers)
    if e.total is not None:
        text += f" = {e.total}"
        parts.append(SummaryPart(label="total", value=e.total))
    if e.dc is not None:
        text += f" against {dc} {e.dc}"
        parts.append(SummaryPart(label=dc, value=e.dc))
    text += ": " + ("success" if e.success else "failure")
    if e.target:
        text += f" ({n(e.target)})"
    return said(text, parts)


OUTCOMES = {"hit": "hit", "critical": "critical hit!", "miss": "miss",
            "automatic_miss": "automatic miss (natural 1)"}


def _attack(e: ev.AttackResolved, n: Names) -> Summary:
    return attack_words(e, n, {}, f"{human(e.defense).title()} Defense", "d20")


def attack_words(e: ev.AttackResolved, n: Names, verbs: Mapping[str, str], defense: str,
                 die: str) -> Summary:
    """An attack roll: who attacks whom with what, the die, every modifier, the total against
    the defense with its parts, and the outcome."""
    if e.action == "fall":
        head = f"{n(e.attacker)} falls"
    else:
        verb = verbs.get(e.action, f"uses {human(e.action)} on")
        head = f"{n(e.attacker)} {verb} {n(e.target)}"
    if e.weapon:
        head += f" with {e.weapon}"
    parts: list[SummaryPart] = []
    if e.natural is None:
        roll = f"{die} {SCREENED}"
    else:
        roll = f"{die} {e.natural}"
        parts.append(SummaryPart(label=die, value=e.natural))
    text = f"{head}: {roll}"
    mods = terms(e.modifiers)
    if mods:
        text += f" {mods}"
    parts += parts_of(e.modifiers)
    if e.total is not None:
        text += f" = {e.total}"
        parts.append(SummaryPart(label="total", value=e.total))
    text += f" against {defense}"
    if e.defense_value is not None:
        text += f" {e.defense_value}"
        shown = [p for p in e.defense_parts or () if p.value]
        if len(shown) > 1:  # (one part is the defense itself)
            text += " (" + ", ".join(f"{p.name} {p.value}" for p in shown) + ")"
        parts.append(SummaryPart(label=defense, value=e.defense_value))
    return said(f"{text}: {OUTCOMES.get(e.outcome, human(e.outcome))}", parts)


def _grab(e: ev.GrabChanged, n: Names) -> Summary:
    if e.held:
        return said(f"{n(e.grabber)} grabs {n(e.target)}")
    return said(f"{n(e.grabber)} no longer holds {n(e.target)}")


def _damage(e: ev.DamageDealt, n: Names) -> Summary:
    return damage_words(e, n, "fatigue points")


def damage_words(e: ev.DamageDealt, n: Names, points: str) -> Summary:
    """A damage: the dice and what was added, doubled or halved, the reduction, the loss."""
    source = f" from {n(e.source)}" if e.source else ""
    parts: list[SummaryPart] = []
    kind = f"{e.damage} damage" if e.damage != "physical" or points == "fatigue points" \
        else "damage"
    text = f"{n(e.target)} takes {kind}{source}: {e.dice}"
    if e.rolled is None:
        text += f" rolled {SCREENED}"
    else:
        text += f" rolled {e.rolled}"
        parts.append(SummaryPart(label=e.dice, value=e.rolled))
    for m in e.dice_parts or ():
        text += f" ({m.name} {signed(m.value)})"
    bonuses = terms(e.bonuses)
    if bonuses:
        text += f" {bonuses}"
    parts += parts_of(e.bonuses)
    if e.critical:
        text += ", doubled by the critical hit"
    if e.halved:
        text += ", halved"
    if e.before_reduction is not None and (e.reduction or e.bonuses or e.critical or e.halved):
        text += f" = {e.before_reduction}"
        parts.append(SummaryPart(label="before reduction", value=e.before_reduction))
    if e.reduction:
        label = e.reduction_label or "damage reduction"
        text += f", less {label} {e.reduction}"
        parts.append(SummaryPart(label=label, value=-e.reduction))
    types = f" ({', '.join(e.types)})" if e.types else ""
    parts.append(SummaryPart(label="loss", value=e.loss))
    return said(f"{text}: loses {counted(e.loss, points)}{types}", parts)


def ruling_words(points: str) -> Wording:
    """The words of a GM's ruling, in a ruleset whose vitals' ``fatigue`` fields are
    ``points`` ("fatigue points"; "Action Time": "Health")."""
    fields = {"fatigue": points, "fatigue_max": f"{points} max"}

    def value(v: Any) -> str:
        return "yes" if v is True else "no" if v is False else human(str(v))

    def ruling(e: ev.GmRuling, n: Names) -> Summary:
        about = f" for {n(e.combatant)}" if e.combatant else ""
        if e.ruling == "override":
            changes = ", ".join(
                f"{fields.get(str(c.get('field')), human(str(c.get('field', ''))))} "
                f"{value(c.get('value'))}" for c in e.changes)
            text = f"The GM overrides{about}: {e.description}" + (
                f" ({changes})" if changes else "")
        else:
            text = f"The GM adjudicates{about}: {e.description}"
        return said(text + (f". Reason: {e.reason}" if e.reason else ""))

    return ruling


_ruling = ruling_words("fatigue points")


def _map(e: ev.MapSet, n: Names) -> Summary:
    m = e.map
    if m is None:
        return said("The GM takes the battle map away")
    return said(f"The GM sets a battle map of {m.width} by {m.height} squares")


def _placed(e: ev.CombatantPlaced, n: Names) -> Summary:
    if e.at is None:
        return said(f"{n(e.combatant)} is taken off the map")
    return said(f"{n(e.combatant)} is placed at ({e.at[0]}, {e.at[1]})")


def _ended(e: ev.EncounterEnded, n: Names) -> Summary:
    return said("The scene ends" + (f": {e.reason}" if e.reason else ""))


def _timer_started(e: ev.TurnTimerStarted, n: Names) -> Summary:
    return said(f"{n(e.combatant)}'s turn timer starts: {e.seconds} seconds",
                [SummaryPart(label="seconds", value=e.seconds)])


def _timer_warned(e: ev.TurnTimerWarned, n: Names) -> Summary:
    return said(f"{n(e.combatant)}'s turn timer is running out")


def _timer_paused(e: ev.TurnTimerPaused, n: Names) -> Summary:
    left = round(e.remaining / 1000)
    return said(f"The GM pauses {n(e.combatant)}'s turn timer with {left} seconds left",
                [SummaryPart(label="seconds left", value=left)])


def _timer_resumed(e: ev.TurnTimerResumed, n: Names) -> Summary:
    return said(f"The GM resumes {n(e.combatant)}'s turn timer")


_THEN = {"notify": "", "end_turn": ": the turn ends", "delay": ": the turn is delayed"}


def _timer_expired(e: ev.TurnTimerExpired, n: Names) -> Summary:
    then = _THEN.get(e.then, "")
    if e.why:
        then += f" ({e.why})"
    return said(f"{n(e.combatant)}'s turn timer runs out{then}")


def _screen_moved(e: ev.ScreenMoved, n: Names) -> Summary:
    return said(f"The GM's screen moves to initiative count {e.count} from round {e.round} on")


def _undone(e: ev.CommandsUndone, n: Names) -> Summary:
    what = (f"everything after event {e.back_to} ({len(e.taken_back)} "
            f"event{'s' if len(e.taken_back) != 1 else ''})" if e.back_to is not None
            else f"{e.seen} event{'s' if e.seen != 1 else ''} of the log" if e.seen
            else "what came last")
    asked = f", as {n(e.requested_by)}'s player asked" if e.requested_by else ""
    why = f" ({e.reason})" if e.reason else ""
    return said(f"The GM takes back {what}{asked}{why}")


def _undo_requested(e: ev.UndoRequested, n: Names) -> Summary:
    why = f" ({e.reason})" if e.reason else ""
    return said(f"{n(e.combatant)}'s player asks the GM to take back its last action{why}")


def _undo_refused(e: ev.UndoRefused, n: Names) -> Summary:
    why = f" ({e.reason})" if e.reason else ""
    return said(f"The GM keeps {n(e.combatant)}'s last action{why}")


def _dice_committed(e: ev.DiceCommitted, n: Names) -> Summary:
    return said(f"The server commits to its dice: SHA-256 {e.commitment} (its secret comes "
                "when the encounter ends)")


def _dice_entropy(e: ev.DiceEntropyAdded, n: Names) -> Summary:
    who = "The GM" if e.by == "gm" else "A player"
    return said(f"{who} adds entropy to the server's dice: “{e.entropy}”")


def _dice_revealed(e: ev.DiceRevealed, n: Names) -> Summary:
    return said(f"The server reveals the secret of its dice: {e.secret}")


def _dice_renewed(e: ev.DiceRenewed, n: Names) -> Summary:
    return said(f"The server's store went back to before its dice were revealed: it shows that "
                f"secret again ({e.revealed}) and commits to a new one, SHA-256 {e.commitment} "
                "(revealed when the encounter ends)")


def _ruleset_event(e: ev.RulesetEvent, n: Names) -> Summary:
    about = f" ({n(e.combatant)})" if e.combatant else ""
    return said(f"{human(e.name).capitalize()}{about}")


#: The words of the engine's own kinds (those ``encounter.fold`` folds).
ENGINE_WORDS: dict[type, Wording] = {
    ev.EncounterCreated: _created,
    ev.RulesetEvent: _ruleset_event,
    ev.CombatantAdded: _added,
    ev.CombatantRemoved: _removed,
    ev.CombatantRevealed: _revealed,
    ev.CombatantConcealed: _concealed,
    ev.OptionsChanged: _options,
    ev.TokenIssued: _token_issued,
    ev.TokenRevoked: _token_revoked,
    ev.RollRequested: _requested,
    ev.DiceRolled: _rolled,
    ev.InitiativeSet: _initiative,
    ev.CombatantJoined: _joined,
    ev.RoundStarted: _round,
    ev.TurnStarted: _turn_started,
    ev.TurnEnded: _turn_ended,
    ev.EncounterEnded: _ended,
    ev.AwarenessSet: _aware,
    ev.SceneStarted: _scene,
    ev.FlatFooted: _flat_footed,
    ev.ActionTaken: _action,
    ev.TurnDelayed: _delayed,
    ev.DelayedTurnRequested: _delay_requested,
    ev.OrderChanged: _order,
    ev.ActionReadied: _readied,
    ev.ReadiedActionTriggered: _triggered,
    ev.InterruptEnded: _interrupt_ended,
    ev.ReadiedActionLost: _lapsed,
    ev.EffectStarted: _effect_started,
    ev.EffectEnded: _effect_ended,
    ev.VitalsChanged: _vitals,
    ev.CheckMade: _check,
    ev.AttackResolved: _attack,
    ev.GrabChanged: _grab,
    ev.DamageDealt: _damage,
    ev.GmRuling: _ruling,
    ev.MapSet: _map,
    ev.CombatantPlaced: _placed,
    ev.ScreenMoved: _screen_moved,
    ev.CommandsUndone: _undone,
    ev.UndoRequested: _undo_requested,
    ev.UndoRefused: _undo_refused,
    ev.TurnTimerStarted: _timer_started,
    ev.TurnTimerWarned: _timer_warned,
    ev.TurnTimerPaused: _timer_paused,
    ev.TurnTimerResumed: _timer_resumed,
    ev.TurnTimerExpired: _timer_expired,
    ev.DiceCommitted: _dice_committed,
    ev.DiceEntropyAdded: _dice_entropy,
    ev.DiceRevealed: _dice_revealed,
    ev.DiceRenewed: _dice_renewed,
}


def kind_tag(kind: type) -> str:
    """The ``kind`` an event type is tagged with."""
    return str(cast("type[msgspec.Struct]", kind).__struct_config__.tag)


def engine_kinds() -> list[type]:
    """The engine's own event kinds: those ``encounter.fold`` folds."""
    from encounter.fold import engine_folds

    return engine_folds()


def unworded(ruleset: str) -> list[str]:
    """The event kinds of the engine and of ``ruleset`` without words: each of the engine's
    kinds, each kind the ruleset folds (``Declaration.folds``, worded by the ruleset) and each
    of its ``ruleset_event`` events by name (``Declaration.events``)."""
    rules = declaration(ruleset)
    missing = [kind_tag(k) for k in engine_kinds()
               if k not in ENGINE_WORDS and k not in rules.words]
    missing += [kind_tag(k) for k in rules.folds if k not in rules.words]
    missing += [f"ruleset_event {name}" for name in rules.events if name not in rules.words]
    return missing
