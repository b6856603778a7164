"""What a statechart did, remembered: a table of its transitions, learnt from the library.

Sending an event to a ``python-statemachine`` chart costs far more than the callbacks it runs
(selecting transitions, computing exit and entry sets, binding every callback's signature).
Yet what the chart does is a function of little: the configuration, the history states, the
event, and the answers of the guards it asks. Its actions change the model, never the chart.
So the first time the chart takes an event from a configuration, its model records every
callback the library calls, in order (a *trace*); later sends with the same configuration,
history and event ask the same guards in the same order and, when every answer matches a
path already learnt, run the recorded actions and land in the recorded configuration without
the library. An answer never seen before sends the event through the library again, which
extends the table.

This holds only for charts whose guards are pure (they read the model, change nothing) and
are all asked before the first action runs; so no eventless transitions and no events sent
from callbacks. A trace that breaks this is never remembered: that key always goes through
the library. The test suite plays scenes with and without the table and compares the logs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: One callback the library called: a guard with its answer, or an action (``None``).
Call = tuple[str, bool | None]
#: A configuration, the history states' values, and the event.
Key = tuple[tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...], str]


@dataclass(frozen=True)
class Landing:
    """Where the chart ends up: the actions it runs, in order, and the configuration and
    history after them; or ``refused`` (no transition for the event)."""

    actions: tuple[str, ...]
    configuration: tuple[str, ...]
    history: tuple[tuple[str, tuple[str, ...]], ...]
    refused: bool = False


class Branch:
    """The next guard the library asks, and where each answer leads (``None``: not learnt)."""

    __slots__ = ("guard", "if_false", "if_true")

    def __init__(self, guard: str) -> None:
        self.guard = guard
        self.if_true: Branch | Landing | None = None
        self.if_false: Branch | Landing | None = None


class Refused(Exception):
    """The remembered answer to this event from this configuration is: no transition."""


MISS = object()


class TransitionTable:
    """Learnt transitions of one chart class, shared by every instance in the process."""

    def __init__(self, max_keys: int = 4096) -> None:
        self.max_keys = max_keys
        self._roots: dict[Key, Branch | Landing] = {}
        self._unlearnable: set[Key] = set()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._roots)

    def replay(self, key: Key, model: Any) -> Landing | object:
        """Ask ``model`` the guards along the learnt path and run the actions at its end;
        ``MISS`` when the path is not learnt yet (only guards were asked: nothing changed).
        Raises :class:`Refused` where the chart refuses the event."""
        node = self._roots.get(key)
        while isinstance(node, Branch):
            node = node.if_true if getattr(model, node.guard)() else node.if_false
        if node is None:
            self.misses += 1
            return MISS
        self.hits += 1
        if node.refused:
            raise Refused
        for action in node.actions:
            getattr(model, action)()
        return node

    def learn(self, key: Key, trace: list[Call], landing: Landing) -> None:
        """Remember what the library did for ``key``: ``trace`` is every callback it called."""
        if key in self._unlearnable:
            return
        guards: list[tuple[str, bool]] = []
        actions: list[str] = []
        for name, answer in trace:
            if answer is None:
                actions.append(name)
            elif actions:  # a guard asked after an action: not a function of the key
                self._unlearnable.add(key)
                self._roots.pop(key, None)
                return
            else:
                guards.append((name, answer))
        if tuple(actions) != landing.actions:
            raise ValueError("the landing's actions are not the trace's")
        if key not in self._roots and len(self._roots) >= self.max_keys:
            return
        self._graft(key, guards, landing)

    def _graft(self, key: Key, guards: list[tuple[str, bool]], landing: Landing) -> None:
        parent: Branch | None = None
        answer = False
        node = self._roots.get(key)
        for guard, value in guards:
            if node is None:
                node = Branch(guard)
                _attach(self._roots, key, parent, answer, node)
            if not isinstance(node, Branch) or node.guard != guard:
                # the library asked something else than it did before: do not trust the key
                self._unlearnable.add(key)
                self._roots.pop(key, None)
                return
            parent, answer = node, value
            node = node.if_true if value else node.if_false
        _attach(self._roots, key, parent, answer, landing)


def _attach(roots: dict[Key, Branch | Landing], key: Key, parent: Branch | None, answer: bool,
            node: Branch | Landing) -> None:
    if parent is None:
        roots[key] = node
    elif answer:
        parent.if_true = node
    else:
        parent.if_false = node


def recording(guards: tuple[str, ...], actions: tuple[str, ...]) -> Callable[[type], type]:
    """Class decorator for a relay model: every guard and action in the lists forwards to
    ``self.target`` and appends to ``self.trace``."""

    def make_guard(name: str) -> Callable[[Any], bool]:
        def guard(self: Any) -> bool:
            answer = bool(getattr(self.target, name)())
            self.trace.append((name, answer))
            return answer

        guard.__name__ = name
        return guard

    def make_action(name: str) -> Callable[[Any], None]:
        def action(self: Any) -> None:
            self.trace.append((name, None))
            getattr(self.target, name)()

        action.__name__ = name
        return action

    def decorate(cls: type) -> type:
        for name in guards:
            setattr(cls, name, make_guard(name))
        for name in actions:
            setattr(cls, name, make_action(name))
        return cls

    return decorate
