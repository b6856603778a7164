"""The JavaScript package (``clients/js``): its tests run with Node's test runner against a
real server started here (``python -m server serve`` on the suite's Redis; its websocket URL
in ``STABLEMASTER_URL``), their dependencies installed from its lock file first. Without Node
and npm this fails, it does not skip: the package, and the published schemas' strict
validation, are tested only there."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from server.app import Server

PACKAGE = Path(__file__).resolve().parent.parent / "clients" / "js"


def _installed(package: Path = PACKAGE) -> None:
    """``npm ci`` in ``package`` unless its node_modules holds what its lock file names (a
    stamp of its hash)."""
    lock = (package / "package-lock.json").read_bytes()
    stamp = package / "node_modules" / ".stablemaster-lock"
    want = hashlib.sha256(lock).hexdigest()
    if stamp.exists() and stamp.read_text() == want:
        return
    result = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=package,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    stamp.write_text(want)


def test_the_packages_node_tests_pass(spawn: Any) -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"{' and '.join(missing)} missing: install Node.js 18 or newer"
    _installed()
    server = spawn()
    env = {**os.environ, "STABLEMASTER_URL": server.url}
    result = subprocess.run(["node", "--test", "test/"], cwd=PACKAGE, env=env,
                            capture_output=True, text=True, timeout=600)
    report = result.stdout[-8000:] + result.stderr[-3000:]
    assert result.returncode == 0, report + "\nserver log:\n" + server.output()[-3000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout
    assert "# skipped 0" in result.stdout and "# todo 0" in result.stdout, result.stdout


async def test_the_server_serves_the_packages_modules_for_the_pages(server: Server) -> None:
    """The web table's pages import the package from ``/client/``: every module of
    ``clients/js/src`` as it is, and nothing else."""
    port = server.settings.port

    def get(path: str) -> tuple[int, str, bytes]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
                return r.status, r.headers["Content-Type"], r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], e.read()

    modules = sorted((PACKAGE / "src").glob("*.js"))
    assert {m.name for m in modules} >= {"index.js", "client.js", "patch.js", "legal.js"}
    for module in modules:
        status, ctype, body = await asyncio.to_thread(get, f"/client/{module.name}")
        assert (status, ctype.split(";")[0]) == (200, "text/javascript"), module.name
        assert body == module.read_bytes(), module.name
    for path in ("/client/", "/client/nope.js", "/client/../web.py", "/client/%2e%2e/app.py",
                 "/client/README.md", "/client/x/y.js", "/client/.hidden.js"):
        status, _, _ = await asyncio.to_thread(get, path)
        assert status == 404, path
