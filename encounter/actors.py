"""Who sends a command or watches an encounter, and what that credential may do."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from encounter.state import EncounterState
from protocol.events import Role


@dataclass(frozen=True)
class Actor:
    """An authenticated connection's rights in one encounter (from its token grant). What
    follows from the grant is worked out once per connection (the properties are cached: a
    connection's actor is asked for every event and legal action it is sent)."""

    role: Role
    token_id: str
    combatants: frozenset[str] = field(default_factory=frozenset)
    scopes: frozenset[str] = field(default_factory=frozenset)

    @cached_property
    def is_gm(self) -> bool:
        return self.role == "gm" or "command:gm" in self.scopes

    @cached_property
    def sees_all(self) -> bool:
        return self.role == "gm" or "view:gm" in self.scopes

    @cached_property
    def answers_gm_rolls(self) -> bool:
        """May answer the roll requests addressed to the GM (and so know them)."""
        return self.is_gm or "roll" in self.scopes

    @cached_property
    def may_command(self) -> bool:
        return self.role in ("gm", "player") or bool(
            self.scopes & {"command:gm", "command:players", "roll"}
        )

    def controls(self, state: EncounterState, combatant: str) -> bool:
        """The GM controls every combatant (it runs the NPCs and may adjudicate for anyone);
        a player its own; an integration with ``command:players`` every player character."""
        if self.is_gm:
            return True
        if combatant in self.combatants:
            return True
        c = state.combatants.get(combatant)
        return "command:players" in self.scopes and c is not None and c.kind == "pc"

    def controller(self, state: EncounterState) -> Callable[[str], bool]:
        """:meth:`controls` for many combatants of ``state`` in turn."""
        if self.is_gm:
            return lambda _cid: True
        if "command:players" not in self.scopes:
            return self.combatants.__contains__
        return lambda cid: self.controls(state, cid)

    def audiences(self) -> frozenset[str]:
        """The visibility tags of events this viewer sees (see ``protocol.events.Visibility``)."""
        return self._audiences

    @cached_property
    def _audiences(self) -> frozenset[str]:
        tags = {f"c:{c}" for c in self.combatants}
        if self.sees_all:
            tags.add("gm")
        if "roll" in self.scopes:
            tags.add("roll")  # sees the GM's dice: it may be the one entering them
        return frozenset(tags)
