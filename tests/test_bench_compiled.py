"""``python -m bench --mypyc`` measures the server with some of its modules compiled: the
copy it builds must run those modules compiled, and they must do what the Python ones do."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from bench import compiled
from server.wire import delta_items

pytestmark = pytest.mark.skipif(
    not (shutil.which("cc") or shutil.which("gcc"))
    or not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists(),
    reason="no C compiler, or no Python headers")

_PROBE = """
import json, sys
import server.wire as w
prev = [b'{"a":1}', b'{"b":2}', b'{"c":3}', b'{"b":2}']
cur = [b'{"b":2}', b'{"x":9}', b'{"c":3}', b'{"a":1}', b'{"b":2}']
print(json.dumps({"file": w.__file__, "items": [i.decode() for i in w.delta_items(prev, cur)]}))
"""


def test_built_copy_runs_the_module_compiled(tmp_path: Path) -> None:
    tree = compiled.build(tmp_path / "tree", modules=("server/wire.py",))
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=tree, capture_output=True,
                         text=True, check=True)
    got = json.loads(out.stdout)
    assert got["file"].endswith(".so") and got["file"].startswith(str(tree))
    prev = [b'{"a":1}', b'{"b":2}', b'{"c":3}', b'{"b":2}']
    cur = [b'{"b":2}', b'{"x":9}', b'{"c":3}', b'{"a":1}', b'{"b":2}']
    assert got["items"] == [i.decode() for i in delta_items(prev, cur)]


def test_a_module_that_does_not_compile_is_refused(tmp_path: Path) -> None:
    with pytest.raises(compiled.BuildFailed):
        compiled.build(tmp_path / "tree", modules=("encounter/fold.py",))
