"""Every ``act`` the test suite sends, checked against the published JSON Schemas.

``tests/conftest.py`` registers :func:`observe` as a ``Client`` observer: each ``act`` sent
through ``clients.client.Client`` (the ``Scene`` helper's, the table helpers', every test's),
and each one a scenario sends to the in-process table (``tests.scene.LocalScene``), is
checked, with the server's answer, against ``docs/protocol/actions.<ruleset>.schema.json`` (as
committed: the drift check keeps them equal to the declarations) with the ``jsonschema``
library. The schema and the server must agree:

- an act the schema refuses must be refused by the server (an ``error``): a test may send a
  wrong act on purpose, but the server may not accept one the published schema calls wrong;
- an act the schema accepts must not be refused with ``invalid_payload`` for its ``args``: the
  published schema would be missing a rule the server applies.

A disagreement fails the test that sent the act (at its teardown, naming the act).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from clients.client import Client

DOCS = Path(__file__).resolve().parent.parent / "docs" / "protocol"
RULESETS = ("dramatic", "action_time")

#: Disagreements found since the current test began (``conftest`` empties it per test).
problems: list[str] = []
#: How many acts were checked, and how many of them were refused by both the schema and the
#: server, over the whole run.
counts = {"checked": 0, "refused_by_both": 0, "unknown_ruleset": 0}


@cache
def validator(ruleset: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((DOCS / f"actions.{ruleset}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def ruleset_of(client: Client) -> str | None:
    """The ruleset of the client's encounter: from its snapshot, else from the ``args_schema``
    ids of its legal actions."""
    if client.snapshot is not None:
        found = client.snapshot.get("state", {}).get("ruleset")
        if found in RULESETS:
            return str(found)
    for entry in client.legal:
        prefix = str(entry.get("args_schema", "")).split(".", 1)[0]
        if prefix in RULESETS:
            return prefix
    return None


def check(ruleset: str, command: dict[str, Any], reply: dict[str, Any]) -> str | None:
    """Why the published schema and the server's ``reply`` disagree about the ``act``
    ``command``, or ``None`` when they agree."""
    instance = {"action": command.get("action"), "args": command.get("args", {})}
    error = best_match(validator(ruleset).iter_errors(instance))
    shown = json.dumps(instance, ensure_ascii=False)[:300]
    if error is not None:
        if reply.get("type") == "ack":
            return (f"{ruleset} act {shown} was accepted by the server, but the published "
                    f"schema refuses it: {error.message}")
        counts["refused_by_both"] += 1
        return None
    field = str((reply.get("details") or {}).get("field", ""))
    if reply.get("type") == "error" and reply.get("code") == "invalid_payload" \
            and field.startswith("args"):
        return (f"{ruleset} act {shown} passes the published schema, but the server refused "
                f"it: {reply.get('message')}")
    return None


def observe(client: Client, command: dict[str, Any], reply: dict[str, Any]) -> None:
    if command.get("type") != "act":
        return
    observed(ruleset_of(client), command, reply)


def observed(ruleset: str | None, command: dict[str, Any], reply: dict[str, Any]) -> None:
    """An ``act`` sent in an encounter of ``ruleset`` (over the network, or on the in-process
    table of ``tests.scene.LocalScene``), and its answer."""
    if ruleset not in RULESETS:
        counts["unknown_ruleset"] += 1
        return
    counts["checked"] += 1
    problem = check(ruleset, command, reply)
    if problem is not None:
        problems.append(problem)
