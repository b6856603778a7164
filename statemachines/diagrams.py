"""Diagrams of the statecharts, generated from the code into ``docs/statecharts.md``.

    python -m statemachines.diagrams           # write
    python -m statemachines.diagrams --check   # exit 1 when the committed file is stale

The diagrams are Mermaid ``stateDiagram-v2`` source (rendered by GitHub and most Markdown
viewers), produced by python-statemachine's own diagram extractor.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from statemachine.contrib.diagram import MermaidGraphMachine

from statemachines.condition_chart import ConditionChart
from statemachines.encounter_chart import EncounterChart

OUT = Path(__file__).resolve().parent.parent / "docs" / "statecharts.md"

CHARTS = [
    ("Encounter", EncounterChart,
     "The scene: setup, initiative (waiting in *rolling initiative* while physical dice are "
     "out), the running scene of turns, and the end. `statemachines/encounter_chart.py`."),
    ("Combatant condition", ConditionChart,
     "One per combatant, beside the turn flow: conscious (fit, or defenseless at 0 fatigue "
     "points), unconscious (awaiting its Constitution check, or out for the scene), dead, "
     "destroyed. `statemachines/condition_chart.py`."),
]


def render() -> str:
    parts = [
        "# Statecharts",
        "",
        "Generated from the code by `python -m statemachines.diagrams`; the test suite fails "
        "when this file is stale. Guards are shown in brackets.",
        "",
    ]
    for title, chart, description in CHARTS:
        parts += [f"## {title}", "", description, "", "```mermaid",
                  MermaidGraphMachine(chart).get_mermaid().rstrip(), "```", ""]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"stale: {OUT.relative_to(OUT.parent.parent)} "
                  "(run python -m statemachines.diagrams)")
            return 1
        print("statechart diagrams are current")
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(OUT.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
