"""The engine as a ruleset's steps see it: the members of the decision
(``encounter.decision.Decision``) a ruleset may use, and no others.

A ruleset's declaration (``encounter.ruleset.Declaration``) and its actions
(``encounter.declare``) are typed against :class:`Engine`, not against the decision itself, as
the server's rooms are typed against ``Member``, ``Hub``, ``Host`` and ``Sender``. So this
module names no other module of the engine but the state, and the engine's modules form no
cycle (the import contracts in pyproject.toml hold it, imports for the type checker included).
A ruleset that needs more of the engine adds a member here, and the decision has it already
or gains it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from encounter.state import EncounterState
    from protocol import events as ev
    from protocol.model import CombatantProfile
    from rules.dice import Roll
    from rules.rulesets import Ruleset


class Ids(Protocol):
    """The decision's context, as far as a ruleset reads it: fresh ids."""

    @property
    def new_id(self) -> Callable[[], str]: ...


class Declared(Protocol):
    """The ruleset's own declaration (``encounter.ruleset.Declaration``), as far as its steps
    read it back through the engine: what follows its dice, and the size of a combatant's
    space."""

    @property
    def after_roll(self) -> Callable[[Engine, str, dict[str, Any], Roll], None]: ...
    @property
    def size_of(self) -> Callable[[CombatantProfile], str | None] | None: ...


class Engine(Protocol):
    """One command being decided, as a ruleset's steps use it."""

    #: The working state (changed by :meth:`emit` alone).
    s: EncounterState
    #: What the command answers its sender (``result`` of the reply).
    result: dict[str, Any]
    #: Steps to run once the chart has taken the action (a turn that ends with it).
    followups: list[Callable[[], None]]

    @property
    def ctx(self) -> Ids: ...
    @property
    def ruleset(self) -> Declared: ...
    @property
    def rules(self) -> Ruleset: ...

    # recording
    def emit(self, event: ev.AnyEvent, vis: ev.Visibility = None,
             change: Callable[[], None] | None = None) -> None: ...
    def send(self, chart_event: str, refusal: str) -> None: ...
    def interrupt(self, cid: str) -> None: ...

    # visibility
    def combatant_vis(self, cid: str | None) -> ev.Visibility: ...
    def hidden(self, cid: str | None) -> bool: ...
    def public_name(self, cid: str, about: str | None = None,
                    unseen: str = "someone unseen") -> str: ...
    def actor_sees(self, cid: str) -> bool: ...
    def name_for_actor(self, cid: str, unseen: str = "another combatant") -> str: ...
    def may_aim(self, actor: str, target: str) -> bool: ...
    def dice_vis(self, cid: str | None) -> ev.Visibility: ...

    # dice
    def server_roll(self, expr: str, purpose: str, cid: str | None,
                    request: str | None = None, behind: bool = False) -> Roll: ...
    def is_manual(self, cid: str) -> bool: ...
    def request_roll(self, expr: str, purpose: str, cid: str | None,
                     context: dict[str, Any] | None = None) -> None: ...

    # the order and the rounds
    def join_scene(self, cid: str, roll: Roll) -> None: ...
    def check_round_for(self, cid: str) -> int: ...
