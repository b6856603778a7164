"""The registry the engine finds rulesets in: a ruleset's name to its declaration
(``encounter.ruleset.Declaration``).

:data:`REGISTRY` names the module of each ruleset; adding a ruleset is one line there (or one
call of :func:`register`, as the tests do for a toy ruleset). Every module of the engine that
reads a declaration reads it here; the declaration's own module names none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

import msgspec

from encounter.ruleset import Declaration

if TYPE_CHECKING:
    from encounter.declare import Catalog
    from encounter.state import EncounterState

#: The module that exports each ruleset's ``RULESET``.
REGISTRY: dict[str, str] = {
    "dramatic": "rulesets.dramatic",
    "action_time": "rulesets.action_time",
}


def register(name: str, module: str) -> None:
    """Add a ruleset (its module exports ``RULESET``); the tests' toy ruleset comes this way."""
    REGISTRY[name] = module
    declaration.cache_clear()


def unregister(name: str) -> None:
    REGISTRY.pop(name, None)
    declaration.cache_clear()


def names() -> list[str]:
    return list(REGISTRY)


@cache
def declaration(name: str) -> Declaration:
    """The declaration of the ruleset ``name`` (a key of :data:`REGISTRY`)."""
    found = importlib.import_module(REGISTRY[name]).RULESET
    assert isinstance(found, Declaration) and found.name == name, name
    return found


def catalog(ruleset: str) -> Catalog:
    """The actions of ``ruleset`` (a name of :data:`REGISTRY`)."""
    return declaration(ruleset).catalog


def effect_targets(ruleset: str) -> Mapping[str, str]:
    """What an effect may change in ``ruleset`` (``add_effect``'s targets, R90)."""
    return declaration(ruleset).effect_targets


_OPTIONS: dict[int, tuple[dict[str, Any], Any]] = {}


def ruleset_options(state: EncounterState) -> Any:
    """The encounter's ``options.ruleset_options`` as its ruleset's ``options`` struct
    (checked when they were set: see :func:`check_options`)."""
    raw = state.options.ruleset_options
    known = _OPTIONS.get(id(raw))
    if known is not None and known[0] is raw:
        return known[1]
    kind = declaration(state.ruleset).options
    value = msgspec.convert(raw, kind) if kind is not None else None
    if len(_OPTIONS) > 1024:
        _OPTIONS.clear()
    _OPTIONS[id(raw)] = (raw, value)
    return value


def check_options(name: str, raw: dict[str, Any]) -> str | None:
    """Why ``raw`` is not a valid ``ruleset_options`` for the ruleset ``name``, or ``None``."""
    kind = declaration(name).options
    if kind is None:
        return None if not raw else (f"{declaration(name).title} has no ruleset options: "
                                     "its options are the fields of `options`")
    try:
        msgspec.convert(raw, kind)
    except msgspec.ValidationError as exc:
        return str(exc).replace("$.", "").replace("$", "the options")
    return None
