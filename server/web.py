"""The web table's files and the shipped example encounters, for the HTTP side of the server.

``/table/<file>`` serves the files of ``server/static/table/`` (plain HTML, CSS and JavaScript
modules; no build step), ``/campaign/`` its campaign page (a campaign's GM link in the
fragment, ``#token=smc1.…``; without one, a new campaign or a lost GM link recovered),
``/table/examples.json`` lists the example encounters of ``server/examples/`` (with each
one's battle map as JSON, when it has one),
``/table/examples/<file>`` returns one of them as YAML and ``/table/rulesets.json`` names the
rulesets the server plays (the page's choice of ruleset and its titles come from it).

An example's ``map`` is either a ``BattleMap`` as JSON or YAML (``width``, ``height``,
``blocked``…) or a drawing: ``{drawing: <text>, walls: [...]}`` in the format of
``BattleMap.from_ascii``. :func:`example_map` turns either into the ``map`` of
``create_encounter``.

``/client/<file>.js`` serves the JavaScript client package's modules (``clients/js/src/``,
stablemaster-client), which the web table's pages load as they are, and which any page may
import.

``/schemas/args/<id>.json`` is the JSON Schema of the arguments of the ``legal_actions``
entries whose ``args_schema`` is ``<id>``, and ``/schemas/args.json`` all of them by id
(``encounter.schemas``); ``/schemas/stat-block.<ruleset>.json`` is a stat block's JSON Schema
for the ruleset (``docs/protocol/stat-block.<ruleset>.schema.json``'s, without its ``$id``),
from which the create page draws its stat-block editor.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

import msgspec
import orjson
import yaml

from encounter.gm import keeps_map
from encounter.registry import declaration, names
from encounter.schemas import args_schemas, stat_block_schema
from rules.battle_map import BattleMap

CONTENT_TYPES = {
    "html": "text/html; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
    "json": "application/json",
    "yaml": "application/yaml; charset=utf-8",
}
_FILE = re.compile(r"^[a-z0-9][a-z0-9_-]*\.(html|js|css|svg|yaml)$")
_MODULE = re.compile(r"^[a-z][a-z0-9-]*\.js$")


def example_names() -> list[str]:
    folder = resources.files("server").joinpath("examples")
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".yaml"))


def example_text(name: str) -> str:
    if name not in example_names():
        raise KeyError(name)
    return resources.files("server").joinpath("examples", name).read_text(encoding="utf-8")


def example_map(data: dict[str, Any]) -> dict[str, Any] | None:
    """The battle map of an example (its parsed YAML) as ``create_encounter`` takes it, or
    None; raises ``rules.battle_map.MapError`` for a map the rules cannot use."""
    raw = data.get("map")
    if raw is None:
        return None
    if isinstance(raw, dict) and "drawing" in raw:
        walls = [(tuple(a), tuple(b)) for a, b in raw.get("walls") or []]
        battle_map = BattleMap.from_ascii(str(raw["drawing"]), walls=walls)
    else:
        battle_map = BattleMap.from_dict(raw)
    built: dict[str, Any] = msgspec.to_builtins(battle_map)
    return built


def example_social(data: dict[str, Any]) -> tuple[list[tuple[str, dict[str, Any]]],
                                                  dict[str, tuple[str, str]]]:
    """A social example's set-up (its parsed YAML's ``social`` section): the GM's commands that
    set each one's situation and the event (``set_social_situation``, ``set_social_event``),
    and the statement (size, text) the GM gives each character. Empty for other examples."""
    social = data.get("social") or {}
    commands: list[tuple[str, dict[str, Any]]] = [
        ("set_social_situation", {"combatant": cid, **situation})
        for cid, situation in (social.get("situations") or {}).items()]
    if social.get("event"):
        commands.append(("set_social_event", dict(social["event"])))
    statements = {cid: (str(st.get("size", "medium")), str(st.get("text", "")))
                  for cid, st in (social.get("statements") or {}).items()}
    return commands, statements


@lru_cache(maxsize=1)
def examples() -> list[dict[str, Any]]:
    """The shipped example encounters: ``file``, ``name``, ``ruleset``, ``description``, the
    ``combatants`` (name, kind, hidden) each holds, its battle ``map`` (or None), its
    ``options`` and whether it is a ``social`` scene (:func:`example_social`)."""
    out = []
    for name in example_names():
        data = yaml.safe_load(example_text(name))
        out.append({
            "file": name,
            "name": data.get("name", name),
            "ruleset": data.get("ruleset", "dramatic"),
            "description": data.get("description", ""),
            "combatants": [{"name": c["name"], "kind": c.get("kind", "npc"),
                            "hidden": bool(c.get("hidden", False))}
                           for c in data.get("combatants", [])],
            "map": example_map(data),
            "options": data.get("options") or {},
            "social": bool(data.get("social")),
        })
    return out


def rulesets() -> list[dict[str, Any]]:
    """The rulesets this server plays, in the registry's order: each one's ``name``
    (``create_encounter.ruleset``), ``title``, the pages' word for fatigue points (``vitals``)
    and for each band of them (``bands``, ruling R105),
    the values ``adjust_combatant`` may set (``override_fields``; ``null``: every one) and
    whether its encounters have a battle map (``map``; none in Action Time, ruling R103)."""
    out: list[dict[str, Any]] = []
    for n in names():
        rules = declaration(n)
        out.append({"name": n, "title": rules.title, "vitals": rules.vitals_label,
                    "bands": dict(rules.vitals_bands),
                    "override_fields": None if rules.override_fields is None
                    else list(rules.override_fields), "map": keeps_map(n)})
    return out


@lru_cache(maxsize=1)
def _schema_bodies() -> dict[str, bytes]:
    """``/schemas/args.json`` and each ``/schemas/args/<id>.json``, by path."""
    schemas = args_schemas()
    bodies = {f"/schemas/args/{sid}.json": orjson.dumps(schema)
              for sid, schema in schemas.items()}
    bodies["/schemas/args.json"] = orjson.dumps(schemas)
    for n in names():  # a stat block's, for the create page's editor
        bodies[f"/schemas/stat-block.{n}.json"] = orjson.dumps(stat_block_schema(n))
    return bodies


def lookup(path: str) -> tuple[bytes, str] | None:
    """The body and content type for a ``/table/…``, ``/watch``, ``/campaign/``,
    ``/client/…`` or ``/schemas/args…`` path, or None."""
    if path.startswith("/client/"):
        return client_module(path[len("/client/"):])
    if path.startswith("/schemas/"):
        body = _schema_bodies().get(path)
        return None if body is None else (body, CONTENT_TYPES["json"])
    if path == "/watch":
        path = "/table/watch.html"
    if path in ("/campaign", "/campaign/"):
        path = "/table/campaign.html"
    if path == "/table":
        path = "/table/"
    if not path.startswith("/table/"):
        return None
    name = path[len("/table/"):] or "index.html"
    if name == "examples.json":
        return orjson.dumps({"examples": examples()}), CONTENT_TYPES["json"]
    if name == "rulesets.json":
        return orjson.dumps({"rulesets": rulesets()}), CONTENT_TYPES["json"]
    if name.startswith("examples/"):
        try:
            return example_text(name[len("examples/"):]).encode(), CONTENT_TYPES["yaml"]
        except KeyError:
            return None
    match = _FILE.match(name)
    if match is None:
        return None
    file = resources.files("server").joinpath("static", "table", name)
    if not file.is_file():
        return None
    return file.read_bytes(), CONTENT_TYPES[match.group(1)]


def client_module(name: str) -> tuple[bytes, str] | None:
    """A module of the JavaScript client package (``clients/js/src/<name>``), or None."""
    if _MODULE.match(name) is None:
        return None
    file = resources.files("clients").joinpath("js", "src", name)
    if not file.is_file():
        return None
    return file.read_bytes(), CONTENT_TYPES["js"]
