"""Per-viewer views: what each connection may see of the state and of each event.

One function decides for snapshots, live events and replays alike, so a viewer sees the same
thing whichever way it arrives. The GM sees everything; a player sees its own combatants in
full and the others as the table would (no hidden combatants, no GM-only rolls, no NPC stat
blocks); a spectator sees the public view.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import msgspec

from encounter.actors import Actor
from encounter.registry import declaration
from encounter.ruleset import ViewPart
from encounter.screen import screened_event
from encounter.screen_turn import anonymous, order_with_screen
from encounter.state import SCREEN, EncounterState, PendingRoll, Vitals
from protocol import events as ev
from protocol.events import Envelope
from protocol.model import CombatantProfile
from rules.condition_track import fatigue_band

#: The values of an NPC's vitals behind the GM's screen (R105: the table sees their band).
SECRET_POINTS = frozenset({"fatigue", "fatigue_max"})


def may_see(envelope: Envelope, viewer: Actor) -> bool:
    if envelope.vis is None:
        return True
    return not viewer.audiences().isdisjoint(envelope.vis)


def view_event(envelope: Envelope, viewer: Actor) -> ev.AnyEvent | None:
    """The event as ``viewer`` may see it, or ``None`` when it may not see it at all."""
    if not may_see(envelope, viewer):
        return None
    event = envelope.event
    if viewer.sees_all:
        return event
    if screened_event(event):
        return None
    if isinstance(event, ev.CombatantJoined):
        # hidden combatants take no place in the order this viewer sees
        return ev.CombatantJoined(entry=event.entry, position=event.public_position,
                                  public_position=event.public_position)
    if isinstance(event, ev.OrderChanged):
        return msgspec.structs.replace(event, position=event.public_position)
    if isinstance(event, ev.InitiativeSet):
        entries = [e for e in event.entries if not e.hidden]
        if len(entries) != len(event.entries):
            return ev.InitiativeSet(entries=entries)
    if isinstance(event, ev.VitalsChanged):
        if event.fatigue_secret and event.combatant not in viewer.combatants:
            return msgspec.structs.replace(event, fatigue=None, fatigue_max=None)
        return event
    if isinstance(event, ev.GmRuling):
        if event.fatigue_secret and event.combatant not in viewer.combatants:
            return msgspec.structs.replace(event, changes=[
                ch for ch in event.changes if ch.get("field") not in SECRET_POINTS])
        return _others_view(event, viewer)
    if isinstance(event, ev.AttackResolved):
        return _attack_view(event, viewer)
    if isinstance(event, ev.CommandsUndone):  # the seqs count what the table is not shown
        return msgspec.structs.replace(event, back_to=None, taken_back=[])
    if isinstance(event, ev.UndoRequested):
        return msgspec.structs.replace(event, back_to=None)
    if isinstance(event, ev.DamageDealt):
        if event.dice_secret and event.target not in viewer.combatants:
            # the GM's dice behind the screen: the loss is known, not how it was made up
            return msgspec.structs.replace(event, rolled=None, before_reduction=None,
                                           dice_parts=None)
        return event
    if isinstance(event, ev.CombatantAdded | ev.CombatantRevealed):
        c = event.combatant
        if c.id not in viewer.combatants:
            public = msgspec.structs.replace(c, stats={})
            return type(event)(combatant=public)
        return event
    return _others_view(event, viewer)


def _others_view(event: ev.AnyEvent, viewer: Actor) -> ev.AnyEvent:
    """What an event visible to ``viewer`` says of what it may not know: hidden combatants
    named in passing (whose turn it was, who healed), the server's bookkeeping of a roll, the
    GM's roll requests."""
    if isinstance(event, ev.RollRequested):
        if event.context is not None or event.hidden:
            return msgspec.structs.replace(
                event, context=None, combatant=None if event.hidden else event.combatant)
    elif isinstance(event, ev.DiceRolled):
        replace: dict[str, object] = {}
        if event.hidden:
            replace["combatant"] = None
        if event.gm_request and not viewer.answers_gm_rolls:
            replace["request"] = None
        if replace:
            return msgspec.structs.replace(event, **replace)
    elif isinstance(event, ev.ReadiedActionTriggered):
        if event.interrupting_hidden:
            return msgspec.structs.replace(event, interrupting=None)
    elif isinstance(event, ev.DelayedTurnRequested):
        if event.after_hidden:
            return msgspec.structs.replace(event, after=None)
    elif isinstance(event, ev.AtEffectStarted | ev.AtEffectEnded):
        if event.origin_hidden:
            return msgspec.structs.replace(
                event, effect=msgspec.structs.replace(event.effect, origin=""))
    elif isinstance(event, ev.EffectStarted) and event.origin_hidden:
        # nor the GM's words for where it comes from (R97: it goes by its name)
        return msgspec.structs.replace(event, origin=None, source="")
    elif isinstance(event, ev.SocialEventSet) and event.organizer_hidden:
        return msgspec.structs.replace(event, organizer=None)
    return event


def _attack_view(event: ev.AttackResolved, viewer: Actor) -> ev.AttackResolved:
    """Players see every modifier and the outcome of an attack; not the numbers of a roll
    made behind the GM's screen, nor the defense of a stat block they do not hold."""
    replace: dict[str, object] = {}
    if event.roll_secret and event.attacker not in viewer.combatants:
        replace.update(natural=None, total=None)
    if event.defense_secret and event.target not in viewer.combatants:
        replace.update(defense_value=None, defense_parts=None)
    return msgspec.structs.replace(event, **replace) if replace else event


def _sees_request(state: EncounterState, viewer: Actor, roller: str) -> bool:
    """As the ``roll_requested`` event's visibility: a player character's request is public
    (unless it is hidden), the GM's is for the GM and ``roll`` integrations."""
    if viewer.sees_all:
        return True
    if roller == "gm":
        return "roll" in viewer.scopes
    return state.visible_combatant(roller)


def _pending_view(pending: PendingRoll, visible: set[str], full: bool) -> dict[str, Any]:
    """A roll request as in its ``roll_requested`` event for this viewer: its ``context`` is
    the GM's; a dice tower is not told whose hidden roll it answers."""
    view: dict[str, Any] = msgspec.to_builtins(pending)
    if not full:
        view["context"] = None
        if pending.combatant not in visible:
            view["combatant"] = None
    return view


def untagged(event: ev.Event) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("kind", None)
    return data


def _turn_view(state: EncounterState, visible: set[str],
               full: bool = False) -> dict[str, Any] | None:
    """The running turn: whose, what is left of its budget, whether a readied action
    interrupts it (everyone at the table sees this). While the screen takes its turn the
    table sees the screen's, untouched, whoever acts behind it (R99)."""
    turn = state.turn
    if turn is None:
        return None
    if state.screen_turn and not full and turn.combatant != SCREEN:
        budget = declaration(state.ruleset).rules.turn_budget(state.surprise)
        interrupter = turn.interrupted_by if turn.interrupted_by in visible else None
        return {"combatant": SCREEN, "budget": dict(budget), "acted": False,
                "interrupted_by": interrupter, "gone_at": None}
    if turn.combatant not in visible and turn.combatant != SCREEN:
        return None
    view: dict[str, Any] = msgspec.to_builtins(turn)
    if turn.interrupted_by is not None and turn.interrupted_by not in visible:
        view["interrupted_by"] = None
    del view["was_flat_footed"]
    return view


class Sight(NamedTuple):
    """What every part of one viewer's view is worked out from."""

    state: EncounterState
    viewer: Actor
    full: bool  # the viewer sees everything
    visible: set[str]  # the combatants it sees


def visible_to(state: EncounterState, viewer: Actor) -> set[str]:
    """The combatants ``viewer`` sees."""
    if viewer.sees_all:
        return set(state.combatants)
    return {cid for cid, c in state.combatants.items() if not c.hidden}


def combatant_view(state: EncounterState, c: CombatantProfile, viewer: Actor,
                   full: bool) -> dict[str, Any]:
    """One combatant as ``viewer`` sees it (its entry in the snapshot's ``combatants``)."""
    rules = declaration(state.ruleset)
    entry = msgspec.to_builtins(c)
    if not (full or c.id in viewer.combatants):
        entry["stats"] = {}
    entry["controlled"] = viewer.controls(state, c.id)
    # the size of its space is there for all to see on the map
    entry["size"] = rules.size_of(c) if rules.size_of is not None else None
    v = state.vitals.get(c.id)
    if v is not None:
        entry["vitals"] = vitals_view(c, v, viewer, full)
    return entry


def vitals_view(c: CombatantProfile, v: Vitals, viewer: Actor, full: bool) -> dict[str, Any]:
    """A combatant's vitals as ``viewer`` sees them (its entry's ``vitals``)."""
    vitals: dict[str, Any] = msgspec.to_builtins(v)
    # the band is for everyone, the points only for those behind the screen (R105)
    vitals["band"] = fatigue_band(v.fatigue, v.fatigue_max)
    if c.kind == "npc" and not (full or c.id in viewer.combatants):
        vitals["fatigue"] = vitals["fatigue_max"] = None  # behind the GM's screen
    return vitals


def _initiative(s: Sight) -> list[Any]:
    state = s.state
    return [msgspec.to_builtins(state.initiative[cid])
            for cid in state.order if cid in s.visible and cid in state.initiative]


def _readied(s: Sight) -> dict[str, Any]:
    state = s.state
    return {cid: msgspec.to_builtins(r) for cid, r in state.readied.items()
            if cid in s.visible and (s.full or s.viewer.controls(state, cid))}


def _effects(s: Sight) -> list[Any]:
    """The effects on the combatants the viewer sees; one a combatant it does not see caused
    names neither that one nor (in the GM's words) where it comes from (R97)."""
    return [untagged(e if e.origin is None or e.origin in s.visible
                     else msgspec.structs.replace(e, origin=None, source=""))
            for e in s.state.effects.values()
            if e.combatant is None or e.combatant in s.visible]


def _pending(s: Sight) -> list[Any]:
    return [_pending_view(p, s.visible, s.full) for p in s.state.pending_rolls.values()
            if _sees_request(s.state, s.viewer, p.roller)]


def _options(s: Sight) -> dict[str, Any]:
    options = s.state.options
    if s.full:
        return msgspec.to_builtins(options)
    told: dict[str, Any] = {"players_roll": options.players_roll,
                            "npc_rolls_public": options.npc_rolls_public}
    if options.anonymous_hidden_turns:  # the table knows of the screen's turn (R99)
        told.update(anonymous_hidden_turns=True, screen_count=options.screen_count)
    return told


def _phase(s: Sight) -> list[str]:
    """The chart's configuration; for the table, the screen's turn's budget untouched while
    it runs, whatever is done behind it (R99)."""
    chart = s.state.chart
    if s.state.screen_turn and not s.full:
        return [_UNTOUCHED.get(at, at) for at in chart]
    return chart


_UNTOUCHED = {"underway": "fresh", "spent": "fresh"}


def _current(s: Sight) -> str | None:
    """Whose turn it is; for the table, the screen's while it runs, whoever acts behind it
    (R99)."""
    state = s.state
    if state.screen_turn and not s.full:
        return SCREEN
    current = state.current
    return current if current in s.visible or current == SCREEN else None


def _order(s: Sight) -> list[str]:
    """The order the viewer sees; with anonymous hidden turns, the screen in it (R99)."""
    state = s.state
    order = order_with_screen(state) if anonymous(state) else state.order
    return [cid for cid in order if cid in s.visible or cid == SCREEN]


def _dice(state: EncounterState) -> dict[str, Any] | None:
    """The verifiable dice (R101): the same for every viewer."""
    if state.dice_commitment is None:
        return None
    dice: dict[str, Any] = {"commitment": state.dice_commitment, "chain": state.dice_chain,
                            "entropy": state.dice_entropy, "secret": state.dice_secret}
    if state.dice_renewed:  # (R117; absent, as before it, for dice never renewed)
        dice["renewed"] = list(state.dice_renewed)
    return dice


def _timer(s: Sight) -> dict[str, Any] | None:
    """The running turn timer, for a viewer who sees whose turn it counts (R102)."""
    timer = s.state.timer
    if timer is None or timer.combatant not in s.visible:
        return None
    return {"number": timer.number, "combatant": timer.combatant, "deadline": timer.deadline,
            "warn_at": timer.warn_at, "remaining": timer.remaining}


def _undo_requests(s: Sight) -> list[Any]:
    """The players' requests to undo waiting for the GM (R108): all of them to the GM (with
    where each goes back to), a player's own to the player."""
    asked = s.state.undo_requests
    if not asked:
        return []
    return [{"request": r.request, "combatant": r.combatant, "reason": r.reason,
             "back_to": r.back_to if s.full else None}
            for r in asked.values() if s.full or s.viewer.controls(s.state, r.combatant)]


def _nothing(value: list[Any] | dict[str, Any]) -> Callable[[Sight], Any]:
    """A part that is the same for every state: protocol 1's parts of the view that are
    Dramatic's (``rulesets.dramatic.views``) for every ruleset, empty unless the ruleset's view
    parts fill them."""
    kind = type(value)
    return lambda _s: kind()


#: The engine's parts of a view, in the snapshot's order (the combatants aside): each key,
#: the fields of the state it is worked out from (beside the combatants the viewer sees: a
#: change of those changes every part), and how; ``True``/``False``: only for a viewer who
#: sees everything / only for one who does not.
ViewPartOf = Callable[[Sight], Any]
#: The engine's parts that are one of the state's mappings, entry by entry (the entry's value
#: made by the function), for the combatants seen: when some of its entries change, those
#: alone need working out again (``encounter.patches``).
BY_ENTRY: dict[str, tuple[str, Callable[[Any], Any]]] = {"positions": ("positions", list)}


def _by_entry(s: Sight, key: str) -> dict[str, Any]:
    name, of = BY_ENTRY[key]
    return {cid: of(v) for cid, v in getattr(s.state, name).items() if cid in s.visible}


ENGINE_PARTS: tuple[tuple[str, tuple[str, ...], ViewPartOf, bool | None], ...] = (
    ("id", (), lambda s: s.state.id, None),
    ("name", ("name",), lambda s: s.state.name, None),
    ("ruleset", (), lambda s: s.state.ruleset, None),
    ("phase", ("chart", "screen_turn"), lambda s: _phase(s), None),
    ("round", ("round",), lambda s: s.state.round, None),
    ("current", ("current", "screen_turn"), _current, None),
    ("combatants", (), lambda s: None, None),  # (one entry per combatant: ``combatant_view``)
    # the states of a conscious combatant's condition that put it out of the fight
    ("out_of_fight", (), lambda s: list(declaration(s.state.ruleset).out_of_fight), None),
    ("order", ("order", "options", "screened", "screen_count", "initiative"), _order, None),
    ("initiative", ("order", "initiative"), _initiative, None),
    ("flat_footed", ("flat_footed",),
     lambda s: [cid for cid in s.state.flat_footed if cid in s.visible], None),
    ("flying", (), _nothing([]), None),
    ("turn", ("turn", "screen_turn", "surprise"),
     lambda s: _turn_view(s.state, s.visible, s.full), None),
    ("timer", ("timer",), lambda s: _timer(s), None),
    ("dice", ("dice_commitment", "dice_chain", "dice_entropy", "dice_secret", "dice_renewed"),
     lambda s: _dice(s.state), None),
    ("delaying", ("delaying",),
     lambda s: [cid for cid in s.state.delaying if cid in s.visible], None),
    ("readied", ("readied", "combatants"), _readied, None),
    ("effects", ("effects",), _effects, None),
    ("pending_rolls", ("pending_rolls", "combatants"), _pending, None),
    ("map", ("battle_map",),
     lambda s: msgspec.to_builtins(s.state.battle_map) if s.state.battle_map else None, None),
    ("positions", ("positions",), lambda s: _by_entry(s, "positions"), None),
    ("grabs", (), _nothing({}), None),
    ("arguments", (), _nothing({}), None),
    ("attitudes", (), _nothing({}), None),
    ("blocking", (), _nothing([]), None),
    ("answers", (), _nothing({}), None),
    ("debate_over", (), lambda s: False, None),
    # a part of protocol 1's view for every ruleset; its value is a ruleset's (Dramatic's)
    ("social", (), lambda s: None, None),
    ("ended", ("ended",), lambda s: s.state.ended, None),
    ("end_reason", ("end_reason",), lambda s: s.state.end_reason, None),
    ("created_ts", ("created_ts",), lambda s: s.state.created_ts, None),
    # unaware of the attacks made on them (R82): the GM's call, as ``awareness_set`` is
    ("unaware", ("unaware",), lambda s: list(s.state.unaware), True),
    ("undo_requests", ("undo_requests", "combatants", "tokens"), _undo_requests, None),
    ("options", ("options",), _options, None),
    ("tokens", ("tokens",),
     lambda s: [msgspec.to_builtins(t) for t in s.state.tokens.values()], True),
)

#: Where the ruleset's parts come in a snapshot's order (after ``created_ts``).
RULESET_PARTS_AT = next(i for i, p in enumerate(ENGINE_PARTS) if p[0] == "created_ts") + 1


#: The engine's parts that differ between viewers who see the same combatants (what they
#: control, the rolls they are asked for); the others are the same for all of them.
VIEWER_PARTS = frozenset({"readied", "pending_rolls", "undo_requests"})
#: The engine's parts shown to every viewer that differ between one who sees everything and
#: one who does not, when they see the same combatants; the others are the same for both.
#: (With anonymous hidden turns the table's ``phase``, ``current`` and ``turn`` are the
#: screen's while it runs, R99: there the GM and the table never share their parts at all,
#: ``encounter.patches.Memo.visible``.)
FULL_PARTS = frozenset({"options"})


def view_state(state: EncounterState, viewer: Actor) -> dict[str, Any]:
    """The snapshot of ``state`` for ``viewer``, as plain JSON-ready data."""
    full = viewer.sees_all
    rules = declaration(state.ruleset)
    sight = Sight(state, viewer, full, visible_to(state, viewer))
    view: dict[str, Any] = {}
    for key, _reads, part, only in ENGINE_PARTS[:RULESET_PARTS_AT]:
        if only is None or only == full:
            view[key] = part(sight)
    view["combatants"] = [combatant_view(state, c, viewer, full)
                          for c in state.combatants.values() if c.id in sight.visible]
    for found in ruleset_parts(sight, rules.views):
        if found is not None:
            view[found[0]] = found[1]
    stats = seen_stats(sight)
    for key, of in rules.combatant_views:
        view[key] = {cid: value for cid in state.combatants
                     if cid in stats and (value := of(state, cid)) is not None}
    for key, _reads, part, only in ENGINE_PARTS[RULESET_PARTS_AT:]:
        if only is None or only == full:
            view[key] = part(sight)
    return view


def seen_stats(sight: Sight) -> set[str]:
    """The combatants whose stat blocks the viewer sees (``entry["stats"]``): it sees their
    computed numbers too."""
    return {cid for cid in sight.visible if sight.full or cid in sight.viewer.combatants}


def ruleset_parts(sight: Sight, parts: Iterable[ViewPart]) -> Iterator[tuple[str, Any] | None]:
    """The ruleset's parts of ``sight``'s view (``Declaration.views``)."""
    state, viewer, full, visible = sight
    stats = seen_stats(sight)
    for part in parts:
        yield part(state, visible, lambda c: viewer.controls(state, c), full, stats)
