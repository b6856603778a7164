"""``python -m bench.reads --quick`` runs a real server at its default limits, opens replays of
one spectator link and pages history with it beside another table, and reports that table's
figures, the replays welcomed and refused, the pages served and refused, and whether each of
issue 46's targets is met (not the figures' values: the machine running the tests is busy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def latency(figures: dict[str, Any], commands_at_least: int) -> None:
    assert isinstance(figures["commands"], int) and figures["commands"] >= commands_at_least
    for key in ("p50_ms", "p99_ms", "max_ms"):
        assert isinstance(figures[key], float | int) and figures[key] > 0, (key, figures)


def test_the_quick_run_reports_both_figures_and_their_targets(tmp_path: Path) -> None:
    out = tmp_path / "reads.json"
    run = subprocess.run([sys.executable, "-m", "bench.reads", "--quick", "--no-pin", "--out",
                          str(out)], capture_output=True, text=True, timeout=600,
                         cwd=Path(__file__).resolve().parent.parent)
    assert run.returncode == 0, run.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["config"]["quick"] is True
    result = data["result"]

    replays = result["replays"]
    assert replays["log_events"] >= data["config"]["events"]
    assert replays["welcomed"] >= 1 and not replays["other_answers"], replays
    assert replays["welcomed"] + replays["refused"] == replays["replays"], replays
    assert replays["ended"] == replays["welcomed"], replays
    latency(replays["other_table"], data["config"]["min_commands"])
    assert replays["other_table_during"]["commands"] <= replays["other_table"]["commands"]
    assert replays["server_cpu_s"] > 0 and replays["server_cpu_pct"] is not None
    assert isinstance(replays["met"], bool) and replays["p99_ms"] is not None

    history = result["history"]
    assert history["log_events"] > history["hidden_events"] == data["config"]["hidden"]
    latency(history["idle"], 1)
    latency(history["loaded"], 1)
    assert history["ratio"] == round(history["loaded"]["p50_ms"] / history["idle"]["p50_ms"], 3)
    assert history["pages_served"] > 0 and history["events_served"] > 0, history
    assert isinstance(history["pages_refused"], int) and not history["other_outcomes"], history
    assert isinstance(history["met"], bool)
    assert history["server_cpu_pct"] is not None
    assert not result["other_table_errors"], result["other_table_errors"]

    table = out.with_suffix(".md").read_text()
    assert table in run.stdout
    assert "p99" in table and "Median under the readers / idle median" in table
    for target in ("Replays", "History"):
        (verdict,) = [line for line in table.splitlines() if line.startswith(f"- {target}:")]
        assert verdict.endswith((": met", ": NOT met")), verdict
