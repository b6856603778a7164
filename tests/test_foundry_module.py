"""The Foundry VTT module (``clients/foundry``): its Node tests run against a real server
started here (``python -m server serve`` on the suite's Redis, as for the JavaScript package),
with Foundry's documents stood in for by plain objects, and its JavaScript is type-checked
against the Foundry types package (``tsc --noEmit`` with ``checkJs``). Its development
dependencies come from its lock file. Without Node and npm this fails, it does not skip."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.test_js_package import _installed

MODULE = Path(__file__).resolve().parent.parent / "clients" / "foundry"


def _node_tools() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"{' and '.join(missing)} missing: install Node.js 18 or newer"


def test_the_modules_node_tests_pass_against_a_real_server(spawn: Any) -> None:
    _node_tools()
    _installed(MODULE)
    server = spawn()
    env = {**os.environ, "STABLEMASTER_URL": server.url}
    result = subprocess.run(["node", "--test", "test/"], cwd=MODULE, env=env,
                            capture_output=True, text=True, timeout=600)
    report = result.stdout[-8000:] + result.stderr[-3000:]
    assert result.returncode == 0, report + "\nserver log:\n" + server.output()[-3000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout
    assert "# skipped 0" in result.stdout and "# todo 0" in result.stdout, result.stdout


def test_the_module_type_checks_against_the_foundry_types() -> None:
    _node_tools()
    _installed(MODULE)
    tsc = MODULE / "node_modules" / ".bin" / "tsc"
    result = subprocess.run([str(tsc), "--noEmit", "-p", "tsconfig.json"], cwd=MODULE,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-3000:]
