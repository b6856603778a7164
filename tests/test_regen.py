"""``python3 dev.py regen --check``: every generated file is current on the tree, and a stale
one of each generator is named (exit 1). Run on a copy of the tree, so that the files altered
here are the copy's; the copy shares this environment's Python and the JavaScript package's
installed dependencies."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: One generated file of each generator (dev.py's GENERATORS, in their order).
STALE = (
    "docs/actions.md",
    "docs/statecharts.md",
    "clients/js/types/client-messages.d.ts",
    "clients/foundry/scripts/vendor/stablemaster-client/index.js",
)


def _copy(to: Path) -> ModuleType:
    """The tree copied to ``to`` (without git, the environments and caches), and its dev.py
    loaded, running this Python."""
    shutil.copytree(ROOT, to, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "__pycache__", ".*_cache", ".hypothesis",
        "test-artifacts"))
    modules = ROOT / "clients" / "js" / "node_modules"
    if modules.is_dir():
        (to / "clients" / "js" / "node_modules").symlink_to(modules, target_is_directory=True)
    spec = importlib.util.spec_from_file_location("dev_copy", to / "dev.py")
    assert spec is not None and spec.loader is not None
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    dev.PY = Path(sys.executable)
    dev.VENV = to / "test-artifacts"  # the log of npm ci, if it runs
    dev.VENV.mkdir()
    return dev


def test_regen_check_passes_on_the_tree_names_each_stale_file_and_regen_writes_it(
        tmp_path: Path, capfd: Any) -> None:
    dev = _copy(tmp_path / "tree")
    copy = tmp_path / "tree"
    assert copy == dev.ROOT
    assert [g[1].split()[0] for g in dev.GENERATORS] == ["python", "python", "npm", "node"]
    assert dev.regen(check=True) == 0, capfd.readouterr()
    out = capfd.readouterr()
    assert "every generated file is current" in out.out + out.err
    before = {name: (dev.ROOT / name).read_bytes() for name in STALE}
    for name in STALE:
        path = dev.ROOT / name
        path.write_text(path.read_text() + "\n// changed by hand\n")
    assert dev.regen(check=True) == 1
    out = capfd.readouterr()
    said = out.out + out.err
    for name in STALE:
        assert f"stale: {name}" in said, (name, said)
    assert "run `python3 dev.py regen`" in said
    # regen writes them again as they were
    assert dev.regen(check=False) == 0, capfd.readouterr()
    assert {name: (dev.ROOT / name).read_bytes() for name in STALE} == before
    # a file the vendored copy no longer has in the package is stale too
    (dev.VENDORED / "gone.js").write_text("export {};\n")
    assert "stale: clients/foundry/scripts/vendor/stablemaster-client/gone.js" in \
        "\n".join(f"stale: {p}" for p in dev.vendored_stale())


def test_the_ci_path_runs_the_check() -> None:
    """``.ci/run`` runs ``python3 dev.py test``, which runs the check before the tests."""
    assert "python3 dev.py test" in (ROOT / ".ci" / "run").read_text()
    source = (ROOT / "dev.py").read_text()
    test = source[source.index("ensure_test_tools()\n    run("):]
    assert test.index("regen(check=True)") < test.index('"-m", "pytest"')
