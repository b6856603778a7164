"""The web table's check of a form's arguments (``server/static/table/argcheck.js``) refuses
exactly what the server refuses.

The page checks the arguments of an entry against its ``args_schema`` before sending them; the
server decodes them (``encounter.declare.convert_args`` for an ``act``'s ``args``, the message
decoder for another command's fields). For every schema of both rulesets, the values tried are
a valid one made from the schema (with its ``examples``), and mutations of it: each required
argument left out, an argument the entry does not take, each argument of the wrong type, out of
range, too short or too long. argcheck.js runs in Node over all of them at once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from encounter.declare import convert_args
from encounter.registry import catalog
from encounter.rejected import Rejected
from encounter.schemas import args_schemas
from protocol import messages as msg

ROOT = Path(__file__).resolve().parent.parent
ARGCHECK = ROOT / "server" / "static" / "table" / "argcheck.js"
NODE = shutil.which("node")

RUNNER = """
import { argProblems } from "./argcheck.mjs";
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const schemas = JSON.parse(readFileSync(process.argv[3], "utf8"));
process.stdout.write(JSON.stringify(cases.map(([id, value]) => argProblems(schemas[id], value))));
"""

_decode = msgspec.json.Decoder(msg.AnyClientMessage)


def server_refusal(sid: str, value: Any) -> str | None:
    """How the server refuses ``value`` as the arguments of the entry ``sid``, or ``None``."""
    kind, name = sid.split(".", 1)
    if kind == "command":
        wire = json.dumps({**value, "type": name, "id": "c1"})
    else:
        wire = json.dumps({"type": "act", "id": "c1", "combatant": "ace", "action": name,
                           "args": value})
    try:
        decoded = _decode.decode(wire)
    except msgspec.ValidationError as exc:
        return str(exc)
    if kind == "command":
        return None
    action = catalog(kind).get(name)
    assert action is not None and isinstance(decoded, msg.Act)
    try:
        convert_args(action, decoded.args)
    except Rejected as exc:
        return exc.message
    return None


def resolve(schema: Any, root: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def sample(schema: Any, root: dict[str, Any]) -> Any:
    """A value ``schema`` accepts."""
    schema = resolve(schema, root)
    if schema is True or not isinstance(schema, dict):
        return None
    if "examples" in schema:
        return schema["examples"][0]
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        alts = [resolve(a, root) for a in schema["anyOf"]]
        return sample(next((a for a in alts if a.get("type") != "null"), alts[0]), root)
    kind = schema.get("type")
    if kind == "integer":
        return max(schema.get("minimum", 1), min(1, schema.get("maximum", 1)))
    if kind == "number":
        return max(schema.get("minimum", 1.5), min(1.5, schema.get("maximum", 1.5)))
    if kind == "string":
        return "a" * max(1, schema.get("minLength", 1))
    if kind == "boolean":
        return True
    if kind == "array":
        first = [sample(s, root) for s in schema.get("prefixItems", [])]
        more = max(0, schema.get("minItems", 1) - len(first))
        items = schema.get("items")
        return first + ([sample(items, root)] * more if isinstance(items, dict) else [])
    if kind == "object":
        return {k: sample(v, root) for k, v in schema.get("properties", {}).items()
                if k in schema.get("required", [])}
    return None


def wrong(schema: Any, root: dict[str, Any]) -> list[Any]:
    """Values of the wrong type or out of the bounds of ``schema`` (and some right ones)."""
    schema = resolve(schema, root)
    out: list[Any] = [None, 7, 2.5, "x", "", True, [], {}, [[]], [7], {"x": 1}, -1, 0]
    alts = [resolve(a, root) for a in schema.get("anyOf", [])] or [schema]
    for s in alts:
        if not isinstance(s, dict):
            continue
        for bound in ("minimum", "exclusiveMinimum"):
            if bound in s:
                out += [s[bound] - 1, s[bound], s[bound] + 0.5]
        for bound in ("maximum", "exclusiveMaximum"):
            if bound in s:
                out += [s[bound] + 1, s[bound], s[bound] - 0.5]
        if "maxLength" in s:
            out += ["a" * s["maxLength"], "a" * (s["maxLength"] + 1),
                    "\U0001f434" * s["maxLength"]]
        if "minLength" in s:
            out += ["a" * max(0, s["minLength"] - 1), " "]
        if s.get("type") == "array":
            good = sample(s, root)
            out += [good, good * 2, good[:-1] if good else [], [good], [None],
                    [*good, *good[:1]] * (s.get("maxItems", 1) + 1)]
            if good and isinstance(good[0], list):
                out += [[good[0][:-1]], [[*good[0], 0]], [["a"] * len(good[0])],
                        [[0.5] * len(good[0])], [[10001] * len(good[0])]]
        if s.get("type") == "object":
            out += [sample(s, root), {**sample(s, root), "zzz": 1}]
        out += [*s.get("enum", [])[:1], "not_one_of_them"]
    return out


def cases(sid: str, schema: dict[str, Any]) -> list[Any]:
    full = {k: sample(v, schema) for k, v in schema.get("properties", {}).items()}
    base = sample(schema, schema)
    found: list[Any] = [base, full, {}, {**base, "not_an_argument": 1}]
    found += [{k: v for k, v in base.items() if k != name} for name in schema["required"]]
    for name, prop in schema.get("properties", {}).items():
        if sid.startswith("command.") and name in ("type", "id", "expect_turn"):
            continue
        found += [{**base, name: value} for value in wrong(prop, schema)]
    return found


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_argcheck_refuses_exactly_what_the_server_refuses(tmp_path: Path) -> None:
    schemas = args_schemas()
    rulesets = {sid.split(".", 1)[0] for sid in schemas}
    assert {"dramatic", "action_time", "command"} <= rulesets
    tried = [(sid, value) for sid, schema in schemas.items() for value in cases(sid, schema)]
    (tmp_path / "argcheck.mjs").write_text(ARGCHECK.read_text(encoding="utf-8"))
    (tmp_path / "run.mjs").write_text(RUNNER)
    (tmp_path / "cases.json").write_text(json.dumps(tried))
    (tmp_path / "schemas.json").write_text(json.dumps(schemas))
    assert NODE is not None
    done = subprocess.run([NODE, "run.mjs", "cases.json", "schemas.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=True)
    answers = json.loads(done.stdout)
    assert len(answers) == len(tried) > 2000
    disagree = []
    refused = 0
    for (sid, value), problems in zip(tried, answers, strict=True):
        server = server_refusal(sid, value)
        refused += server is not None
        if (server is None) != (not problems):
            disagree.append(f"{sid} {json.dumps(value, ensure_ascii=False)[:160]}: server "
                            f"{server or 'accepts'}; argcheck "
                            f"{'; '.join(p['text'] for p in problems) or 'accepts'}")
    assert not disagree, f"{len(disagree)} disagreements:\n" + "\n".join(disagree[:40])
    assert 0 < refused < len(tried)  # both kinds were tried
