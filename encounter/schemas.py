"""The JSON Schema of every entry ``legal_actions`` may list, by a short id (``args_schema``).

An ``act`` action's id is ``<ruleset>.<action>`` (``dramatic.attack``, ``action_time.attack``:
the same name, other arguments); the schema is that of the action's ``args``, from its
declaration (``encounter.declare``). Another command's id is ``command.<type>``
(``command.submit_roll``, ``command.adjudicate``); its schema is that of the command's fields
but ``type``, ``id`` and ``expect_turn``. A client draws a form for any entry from its schema
alone, without knowing the ruleset. The server serves them over HTTP (``server.web``); ``python
-m protocol.docs`` publishes the same as ``docs/protocol/args-schemas.json``.

A stat block's schema for a ruleset (:func:`stat_block_schema`: ``docs/protocol/stat-block.<ruleset>
.schema.json`` publishes it with its title) is served too: the web table's stat-block editor is
drawn from it.

Public API: :func:`action_schema_id`, :func:`command_schema_id`, :func:`action_args_schema`,
:func:`args_schemas`, :func:`stats_schema`, :func:`stat_block_schema`, :data:`COMMANDS`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from encounter.declare import Action
from encounter.registry import catalog, declaration, names
from protocol.model import StatBlock
from protocol.reference import command_args_schema, merge_defs, struct_schema
from protocol.strict import strict

#: The commands other than ``act`` that ``legal_actions`` may list.
COMMANDS = ("start_encounter", "end_encounter", "submit_roll", "server_roll", "adjudicate",
            "adjust_combatant", "set_map", "place_combatant", "fall", "collide", "load_object",
            "size_argument", "set_attitude", "rule_doubt", "set_social_event",
            "set_social_situation", "add_effect")


def action_schema_id(ruleset: str, action: str) -> str:
    return f"{ruleset}.{action}"


def command_schema_id(command: str) -> str:
    return f"command.{command}"


def action_args_schema(ruleset: str, action: Action) -> dict[str, Any]:
    """The JSON Schema of ``action``'s ``args`` (``act``), with what the action is."""
    cat = catalog(ruleset)
    schema = struct_schema(action.args)
    schema.update({
        "title": f"{action.label} ({cat.title})",
        "description": f"The `args` of `act` `{action.name}` in {cat.title}: "
        f"{schema.get('description', '')} Rule: {action.section}. Costs: "
        f"{cat.cost_name(action)}; when: {action.timing.value}.",
        "x-action": action.name,
        "x-ruleset": ruleset,
        "x-section": action.section,
        "x-cost": cat.cost_name(action),
        "x-group": cat.group_of(action),
        "x-when": action.timing.value,
    })
    return schema


@cache
def args_schemas() -> dict[str, dict[str, Any]]:
    """Every ``args_schema`` id and its JSON Schema: each ruleset's actions, then the other
    commands."""
    out: dict[str, dict[str, Any]] = {}
    for ruleset in names():
        for action in catalog(ruleset).actions:
            out[action_schema_id(ruleset, action.name)] = action_args_schema(ruleset, action)
    for command in COMMANDS:
        schema = command_args_schema(command)
        schema["x-command"] = command
        out[command_schema_id(command)] = schema
    return {sid: strict(schema) for sid, schema in out.items()}


__all__ = ["COMMANDS", "action_args_schema", "action_schema_id", "args_schemas",
           "command_schema_id"]


def stats_schema(ruleset: str) -> dict[str, Any]:
    """The ``stats`` of a stat block of ``ruleset``: its declaration's ``stats_schema``, else the
    schema of its ``stats`` struct, else any object."""
    rules = declaration(ruleset)
    if rules.stats_schema is not None:
        return rules.stats_schema()
    about = f'The statistics of a "{rules.title}" combatant (a stat block\'s `stats`).'
    if rules.stats is None:
        return {"type": "object", "description": about}
    schema = struct_schema(rules.stats)
    schema.setdefault("description", about)
    return schema


def stat_block_schema(ruleset: str) -> dict[str, Any]:
    """A combatant of ``ruleset`` as the GM writes it: a ``StatBlock`` whose ``stats`` are the
    ruleset's."""
    schema = struct_schema(StatBlock)
    defs = schema.pop("$defs", {})
    stats = merge_defs(defs, stats_schema(ruleset))
    schema["properties"]["stats"] = {**stats, "default": {}}
    schema["title"] = f"A stat block of {declaration(ruleset).title}"
    if defs:
        schema["$defs"] = defs
    return schema
