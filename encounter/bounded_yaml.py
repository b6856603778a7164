"""YAML from clients (``create_encounter.combatants_yaml``), read within bounds.

YAML aliases (``*name``) repeat what an anchor (``&name``) names without repeating its text,
so a few hundred bytes of anchors and aliases can stand for gigabytes of data (the "billion
laughs"); and nesting makes the parser recurse. Before anything is built, one pass over the
parser's events (no recursion) measures the document as the aliases expand it, and refuses:

- nesting deeper than :data:`MAX_DEPTH` levels of mappings and sequences;
- an expanded size over :data:`MAX_EXPANDED`: every node counts 1, every scalar also its
  length, and an alias counts as much as the node it repeats (merge keys, ``<<: *name``,
  included) — a document without aliases is never larger than its text;
- an alias inside the node it names (a structure that contains itself).

Only plain data is built: mappings, sequences, strings, numbers, booleans and null. A date
stays a string, and explicit tags for binary data, sets, ordered maps and timestamps are
refused, so that what is read is what JSON can hold: a number of more than
:data:`MAX_DIGITS` digits, and ``.inf`` and ``.nan``, are refused too (JSON has no such
numbers, and a stat block none).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

#: Levels of mappings and sequences a document may nest (a stat block needs about 8).
MAX_DEPTH = 32
#: The largest document, as aliases expand it (nodes plus the characters of scalars).
MAX_EXPANDED = 256 * 1024
#: The most digits a number may have (a stat block's largest are six).
MAX_DIGITS = 30

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed
#: A plain scalar YAML would read as a number, with more than MAX_DIGITS digits.
_LONG_NUMBER = re.compile(
    rf"[-+]?[0-9_.]*(?:[0-9][_.]*){{{MAX_DIGITS + 1},}}(?:[eE][-+]?[0-9]+)?")
_REFUSED_TAGS = {f"tag:yaml.org,2002:{name}" for name in
                 ("binary", "timestamp", "set", "omap", "pairs")}


class YamlBoundError(ValueError):
    """A document beyond the bounds; the message says which."""


class _PlainLoader(_Base):
    """The safe loader without dates, binary data, sets and ordered maps."""


_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _REFUSED_TAGS]
    for first, resolvers in _Base.yaml_implicit_resolvers.items()
}
_PlainLoader.yaml_constructors = {
    tag: constructor for tag, constructor in _Base.yaml_constructors.items()
    if tag not in _REFUSED_TAGS
}


def measure(text: str, max_depth: int = MAX_DEPTH, max_expanded: int = MAX_EXPANDED) -> int:
    """The expanded size of ``text``; raises :class:`YamlBoundError` past a bound (and
    ``yaml.YAMLError`` when it is not YAML)."""
    depth = size = 0
    sizes: dict[str, int] = {}  # anchor -> the expanded size of the node it names
    open_nodes: list[tuple[str | None, int]] = []  # (anchor, size when it started)
    for event in yaml.parse(text, Loader=_PlainLoader):
        if isinstance(event, yaml.ScalarEvent):
            if event.implicit[0] and _LONG_NUMBER.fullmatch(event.value):
                raise YamlBoundError(f"a number of more than {MAX_DIGITS} digits")
            grown = 1 + len(event.value)
            if event.anchor is not None:
                sizes[event.anchor] = grown
            size += grown
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            depth += 1
            if depth > max_depth:
                raise YamlBoundError(f"nested more than {max_depth} levels deep")
            open_nodes.append((event.anchor, size))
            size += 1
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            depth -= 1
            anchor, start = open_nodes.pop()
            if anchor is not None:
                sizes[anchor] = size - start
        elif isinstance(event, yaml.AliasEvent):
            if any(anchor == event.anchor for anchor, _start in open_nodes):
                raise YamlBoundError(f"the alias *{event.anchor} is inside the node it names")
            size += sizes.get(event.anchor or "", 0)  # an unknown alias: the loader says so
        if size > max_expanded:
            raise YamlBoundError(f"its aliases expand it past {max_expanded} characters "
                                 "(write the repeated parts out, or repeat less)")
    return size


def load(text: str) -> Any:
    """The data of one YAML document, within the bounds (see the module docstring)."""
    measure(text)
    data = yaml.load(text, Loader=_PlainLoader)  # a safe loader with fewer types
    pending = [data]
    while pending:  # (no recursion: the nesting is bounded, but the walk need not be)
        node = pending.pop()
        if isinstance(node, dict):
            pending.extend(node.keys())
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, float) and not math.isfinite(node):
            raise YamlBoundError(f"{node} is not a number a stat block holds (nor JSON)")
    return data
