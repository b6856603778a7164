"""The ruleset boundary (``encounter.boundary.Engine``): a ruleset's steps use the members of
the decision it lists and no others, none of them private, and the modules of the engine form
no import cycle, imports for the type checker included."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import grimp

from encounter.boundary import Engine
from encounter.decision import Decision

ROOT = Path(__file__).resolve().parent.parent


def _members(protocol: type) -> set[str]:
    names = {n for n in vars(protocol) if not n.startswith("_")}
    return names | set(getattr(protocol, "__annotations__", {}))


def test_the_decision_has_every_member_of_the_boundary() -> None:
    members = _members(Engine)
    assert {"s", "emit", "interrupt", "server_roll", "request_roll"} <= members
    assert len(members) <= 24, sorted(members)  # a small boundary, not the whole decision
    decision = Decision.__new__(Decision)
    for name in members - {"s", "result", "followups", "ctx", "ruleset", "rules"}:
        assert callable(getattr(decision, name)), name


def test_no_ruleset_touches_a_private_member_of_the_decision() -> None:
    found = []
    for path in sorted((ROOT / "rulesets").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__") and isinstance(node.value, ast.Name) \
                    and node.value.id == "d":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: d.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "encounter.decision" \
                    and any(a.name == "Decision" for a in node.names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports Decision")
    assert not found, found


def test_the_engine_has_no_import_cycle_counting_imports_for_the_type_checker() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert not config.get("exclude_type_checking_imports", False)
    acyclic = [c for c in config["contracts"] if c["type"] == "acyclic_siblings"
               and "encounter" in c["ancestors"]]
    assert acyclic, "no acyclic_siblings contract over encounter"
    graph = grimp.build_graph("encounter", "protocol", "rules", "statemachines",
                              include_external_packages=False,
                              exclude_type_checking_imports=False)
    # the four modules of the old cycle: none reaches back to one that reaches it
    old = ["encounter.decision", "encounter.fold", "encounter.ruleset", "encounter.declare"]
    for a in old:
        for b in old:
            if a != b and graph.chain_exists(importer=a, imported=b):
                assert not graph.chain_exists(importer=b, imported=a), (a, b)
    assert graph.chain_exists(importer="encounter.decision", imported="encounter.ruleset")
