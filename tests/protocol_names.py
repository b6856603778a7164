"""The names a version of the published protocol documents: its message types, commands,
event kinds, fields, enumerated values, error codes, close codes, features, roll purposes,
each ruleset's actions and their arguments, encounter options, stat block fields and the
snapshot state's fields.

    python -m tests.protocol_names --commit 5433342 > tests/data/protocol-1-names.json

reads the documents of that commit (``docs/protocol/*`` and ``docs/protocol.md``) and writes
their names as JSON; without ``--commit`` it reads the working tree. The data file
``tests/data/protocol-1-names.json`` holds the names of the first published protocol (commit
5433342, 2026-11-29); ``tests/test_protocol_changelog.py`` reads today's documents with the
same functions and holds every name that is not protocol 1's to a mention in
``docs/protocol-changelog.md``.

Every name comes from the machine-readable schemas, but for three kinds the schemas leave
to prose: the error and close codes are read from the tables the AsyncAPI document carries,
the features from the description of ``hello``, and the roll purposes from the guide's table
of them (the first guide named its two in one sentence).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent

#: Reads a file of the repository by its path (``docs/protocol.md``); ``None`` when absent.
Reader = Callable[[str], str | None]

UNIONS = {
    "commands": "docs/protocol/client-messages.schema.json",
    "server_messages": "docs/protocol/server-messages.schema.json",
    "events": "docs/protocol/events.schema.json",
}
ASYNCAPI = "docs/protocol/asyncapi.yaml"
GUIDE = "docs/protocol.md"
SNAPSHOT_STATE = "docs/protocol/snapshot-state.schema.json"
RULESETS = ("dramatic", "action_time")


def tree_reader(root: Path = ROOT) -> Reader:
    """Read files from a working tree."""

    def read(path: str) -> str | None:
        file = root / path
        return file.read_text(encoding="utf-8") if file.is_file() else None

    return read


def commit_reader(commit: str, root: Path = ROOT) -> Reader:
    """Read files as they were at a commit."""

    def read(path: str) -> str | None:
        done = subprocess.run(
            ["git", "-C", str(root), "show", f"{commit}:{path}"],
            capture_output=True, text=True, check=False,
        )
        return done.stdout if done.returncode == 0 else None

    return read


def _json(read: Reader, path: str) -> dict[str, Any] | None:
    text = read(path)
    return None if text is None else dict(json.loads(text))


def _members(schema: dict[str, Any]) -> list[str]:
    """The names of the `$defs` a union schema lists as its alternatives."""
    union = schema.get("anyOf") or schema.get("oneOf") or []
    return [alt["$ref"].rsplit("/", 1)[-1] for alt in union if "$ref" in alt]


def _tag(definition: dict[str, Any]) -> str:
    """The constant `type` or `kind` of a union member."""
    props = definition["properties"]
    tag = props.get("type") or props["kind"]
    return str(tag["const"] if "const" in tag else tag["enum"][0])


def _strings(node: Any) -> list[str]:
    """The string values an enum or const of a property allows, looking into `anyOf`
    branches and array items (not into references)."""
    if not isinstance(node, dict):
        return []
    found: list[str] = []
    if "const" in node and isinstance(node["const"], str):
        found.append(node["const"])
    found.extend(v for v in node.get("enum", []) if isinstance(v, str))
    for branch in (*node.get("anyOf", []), *node.get("oneOf", [])):
        found.extend(_strings(branch))
    found.extend(_strings(node.get("items")))
    return found


def _add_fields(parent: str, definition: dict[str, Any], fields: set[str],
                values: set[str]) -> None:
    for name, prop in definition.get("properties", {}).items():
        if name in ("type", "kind"):
            continue
        fields.add(f"{parent}.{name}")
        values.update(f"{parent}.{name}={v}" for v in _strings(prop))


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The rows of the first markdown table at or after the line that starts with
    `heading`, without its header row."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith(heading)), None)
    if start is None:
        return []
    rows: list[list[str]] = []
    for line in lines[start:]:
        cells = line.strip()
        if not cells.startswith("|"):
            if rows:
                break
            continue
        row = [c.strip() for c in cells.strip("|").split("|")]
        if set("".join(row)) <= {"-", " "}:
            continue
        rows.append(row)
    return rows[1:]  # the header row


def _ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def union_names(read: Reader) -> dict[str, Any]:
    tags: dict[str, list[str]] = {}
    fields: set[str] = set()
    values: set[str] = set()
    hello: dict[str, Any] = {}
    for key, path in UNIONS.items():
        schema = _json(read, path)
        if schema is None:
            continue
        defs: dict[str, Any] = schema["$defs"]
        members = _members(schema)
        tags[key] = sorted(_tag(defs[m]) for m in members)
        for name, definition in defs.items():
            if "." in name:  # a part of the snapshot state, read from its own schema
                continue
            parent = _tag(definition) if name in members else name
            _add_fields(parent, definition, fields, values)
            if name == "Hello":
                hello = definition
    error_codes = set(values_of(values, "ErrorCode"))
    for path in (UNIONS["server_messages"],):
        schema = _json(read, path) or {}
        error_codes.update(_strings(schema.get("$defs", {}).get("ErrorCode")))
    return {**tags, "fields": sorted(fields), "values": sorted(values),
            "error_codes": sorted(error_codes), "features": sorted(features_of(hello))}


def values_of(values: Iterable[str], parent: str) -> list[str]:
    return [v.split("=", 1)[1] for v in values if v.startswith(parent + ".")]


def features_of(hello: dict[str, Any]) -> set[str]:
    """The features `hello`'s description names: each is told as "`name`, what it does",
    after the colon that opens the list or a semicolon."""
    if "features" not in hello.get("properties", {}):
        return set()
    text = " ".join(hello.get("description", "").split())
    start = text.find("`features`")
    return set(re.findall(r"(?:\): |; )`([a-z_]+)`, ", text[start:]))


def asyncapi_names(read: Reader) -> dict[str, list[str]]:
    """The error codes and close codes of the tables in the AsyncAPI document."""
    text = read(ASYNCAPI)
    if text is None:
        return {"error_codes": [], "close_codes": []}
    description = str(yaml.safe_load(text)["info"]["description"])
    errors = [_ticked(row[0])[0] for row in _table_rows(description, "## Error codes")]
    closes = [row[0] for row in _table_rows(description, "## Close codes")]
    return {"error_codes": sorted(errors), "close_codes": sorted(closes)}


def roll_purposes(read: Reader) -> list[str]:
    """The roll purposes of the guide's table of them (or, before it had one, of the
    sentence that named them)."""
    text = read(GUIDE) or ""
    rows = _table_rows(text, "| `purpose` | ruleset |")
    if rows:
        return sorted({p for row in rows for p in _ticked(row[0])})
    said = re.search(r"`purpose` \(([^)]*)\)", " ".join(text.split()))
    return sorted(_ticked(said.group(1))) if said else []


def ruleset_names(read: Reader, commands: Iterable[str]) -> dict[str, Any]:
    """Each ruleset's actions with their arguments, its options and its stat block fields.
    Before the rulesets had schemas of their own the guide's table of legal actions named
    the actions of both (those that are no command), under `*`."""
    actions: dict[str, list[str]] = {}
    args: set[str] = set()
    options: set[str] = set()
    stat_block: set[str] = set()
    for ruleset in RULESETS:
        schema = _json(read, f"docs/protocol/actions.{ruleset}.schema.json")
        if schema is not None:
            alternatives = schema.get("oneOf") or schema.get("anyOf") or []
            found = []
            for alt in alternatives:
                alt = schema["$defs"][alt["$ref"].rsplit("/", 1)[-1]] if "$ref" in alt else alt
                action = str(alt["properties"]["action"]["const"])
                found.append(action)
                args.update(f"{ruleset}.{action}.{a}" for a in alt.get("x-args", []))
            actions[ruleset] = sorted(found)
        for kind, into in (("options", options), ("stat-block", stat_block)):
            schema = _json(read, f"docs/protocol/{kind}.{ruleset}.schema.json")
            if schema is not None:
                into.update(f"{ruleset}.{p}" for p in schema.get("properties", {}))
    if not actions:
        guide = read(GUIDE) or ""
        named = {_ticked(row[0])[0] for row in _table_rows(guide, "| `action` |")}
        actions["*"] = sorted(named - set(commands))
    return {"actions": actions, "action_args": sorted(args), "options": sorted(options),
            "stat_block": sorted(stat_block)}


def state_names(read: Reader) -> list[str]:
    """The snapshot state's fields (`state.<field>`) and its combatants'
    (`state.combatants.<field>`), from its schema or, before it had one, the guide's table."""
    schema = _json(read, SNAPSHOT_STATE)
    found: set[str] = set()
    if schema is not None:
        defs = schema["$defs"]
        for name in _members(schema):
            found.update(f"state.{p}" for p in defs[name].get("properties", {}))
        combatant = defs.get("CombatantView", {})
        found.update(f"state.combatants.{p}" for p in combatant.get("properties", {}))
        return sorted(found)
    for row in _table_rows(read(GUIDE) or "", "| `state` field |"):
        tops = _ticked(row[0])
        found.update(f"state.{t}" for t in tops)
        if tops == ["combatants"]:
            found.update(f"state.combatants.{t}" for t in _ticked(row[1]))
    return sorted(found)


def names(read: Reader) -> dict[str, Any]:
    """Every name of the published protocol that `read` reads."""
    found = union_names(read)
    codes = asyncapi_names(read)
    found["error_codes"] = sorted(set(found["error_codes"]) | set(codes["error_codes"]))
    found["close_codes"] = codes["close_codes"]
    found["roll_purposes"] = roll_purposes(read)
    found.update(ruleset_names(read, found.get("commands", [])))
    found["state"] = state_names(read)
    return found


def mentions(text: str) -> set[str]:
    """What a text names in backticks: each span whole, and each name in it (`hello.features:
    ["view"]` names `hello.features`, `hello`, `features` and `view`)."""
    found: set[str] = set()
    for span in _ticked(text):
        found.add(span.strip())
        for word in re.findall(r"[A-Za-z0-9_:.\-]+", span):
            word = word.strip(".:-")
            found.add(word)
            found.update(word.split("."))
    return found


FLAT = ("commands", "server_messages", "events", "error_codes", "close_codes", "features",
        "roll_purposes")


def unmentioned(today: dict[str, Any], first: dict[str, Any], text: str) -> list[str]:
    """The names of `today`'s protocol that are not the `first` protocol's and that `text`
    (the changelog) does not name in backticks. A field counts only when what holds it
    (a message, an event kind, a nested object) was the first protocol's too: the fields
    of something new come with it, in its schema."""
    said = mentions(text)
    missing: list[str] = []

    def check(name: str, *ways: str) -> None:
        if not said.intersection(ways):
            missing.append(name)

    for key in FLAT:
        for name in sorted(set(today.get(key, [])) - set(first.get(key, []))):
            check(f"{key}: {name}", name)
    old_fields = set(first.get("fields", []))
    old_holders = {f.rsplit(".", 1)[0] for f in old_fields}
    for name in today.get("fields", []):
        holder, leaf = name.rsplit(".", 1)
        if holder in old_holders and name not in old_fields:
            check(f"field: {name}", leaf, name)
    old_values = set(first.get("values", []))
    for name in today.get("values", []):
        field, value = name.split("=", 1)
        if field in old_fields and name not in old_values:
            check(f"value: {name}", value)
    old_actions = first.get("actions", {})
    for ruleset, actions in today.get("actions", {}).items():
        known = set(old_actions.get(ruleset, [])) | set(old_actions.get("*", []))
        for action in actions:
            if action not in known:
                check(f"action: {ruleset}.{action}", action)
    old_args = set(first.get("action_args", []))
    for name in today.get("action_args", []):
        ruleset, action, arg = name.split(".")
        known = set(old_actions.get(ruleset, [])) | set(old_actions.get("*", []))
        if name not in old_args and action in known:
            check(f"argument: {name}", arg, f"{action}.{arg}")
    for key, holder in (("options", "EncounterOptions"), ("stat_block", "StatBlock")):
        for name in today.get(key, []):
            leaf = name.split(".", 1)[1]
            if f"{holder}.{leaf}" not in old_fields:
                check(f"{key}: {name}", leaf)
    old_state = set(first.get("state", []))
    for name in today.get("state", []):
        if name not in old_state:
            check(f"state: {name}", name.rsplit(".", 1)[1], name.removeprefix("state."))
    return sorted(set(missing))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", help="read the documents of this commit")
    ns = parser.parse_args(argv)
    read = commit_reader(ns.commit) if ns.commit else tree_reader()
    found = names(read)
    if ns.commit:
        found = {"commit": ns.commit, **found}
    json.dump(found, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
