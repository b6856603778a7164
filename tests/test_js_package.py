"""The JavaScript package (``clients/js``): its tests run with Node's test runner, their
dependencies installed from its lock file first. Without Node and npm this fails, it does not
skip: the published schemas are checked by a strict validator only there."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "clients" / "js"


def _installed() -> None:
    """``npm ci`` unless node_modules holds what the lock file names (a stamp of its hash)."""
    lock = (PACKAGE / "package-lock.json").read_bytes()
    stamp = PACKAGE / "node_modules" / ".stablemaster-lock"
    want = hashlib.sha256(lock).hexdigest()
    if stamp.exists() and stamp.read_text() == want:
        return
    result = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PACKAGE,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    stamp.write_text(want)


def test_the_packages_node_tests_pass() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"{' and '.join(missing)} missing: install Node.js 18 or newer"
    _installed()
    result = subprocess.run(["node", "--test", "test/"], cwd=PACKAGE, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout
