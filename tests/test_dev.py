"""``dev.py``: its own progress lines, pip's output kept in ``.venv/pip.log`` and shown only
when pip fails, nothing said of the install once it is done."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT


def dev_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_step_that_succeeds_prints_nothing_and_keeps_its_output_in_the_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = dev_module()
    log = tmp_path / "pip.log"
    dev.quietly("counting", [sys.executable, "-c", "for i in range(100): print('line', i)"],
                log)
    assert capsys.readouterr().out == ""
    assert "line 99" in log.read_text()


def test_a_step_that_fails_shows_the_end_of_its_log_and_where_the_log_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = dev_module()
    log = tmp_path / "pip.log"
    script = "import sys\nfor i in range(100): print('line', i)\nsys.exit(3)"
    with pytest.raises(SystemExit) as stopped:
        dev.quietly("counting", [sys.executable, "-c", script], log)
    shown = capsys.readouterr().out.splitlines()
    assert shown == [f"line {i}" for i in range(100 - dev.TAIL, 100)]
    assert str(stopped.value.code) == f"dev.py: counting failed (exit 3); the whole log: {log}"


def copy_of_dev(tmp_path: Path, pyproject: bytes) -> Path:
    shutil.copy(ROOT / "dev.py", tmp_path / "dev.py")
    (tmp_path / "pyproject.toml").write_bytes(pyproject)
    return tmp_path


def test_a_run_with_the_environment_installed_says_nothing_of_the_install(
        tmp_path: Path) -> None:
    copy = copy_of_dev(tmp_path, (ROOT / "pyproject.toml").read_bytes())
    dev = dev_module()
    (copy / ".venv" / "bin").mkdir(parents=True)
    (copy / ".venv" / "bin" / "python").touch()
    (copy / ".venv" / ".installed").write_text(hashlib.sha256(
        (copy / "pyproject.toml").read_bytes() + dev.EXTRAS.encode()).hexdigest())
    done = subprocess.run([sys.executable, "-c", "import dev; dev.ensure_env(dev.EXTRAS)"],
                          cwd=copy, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_first_run_whose_install_fails_prints_its_steps_then_the_end_of_pips_log(
        tmp_path: Path) -> None:
    """A real first run, in a copy whose pyproject.toml pip cannot read: the environment is
    created and pip upgraded without a line of pip's, then the failing install shows the
    end of pip's log and its path."""
    copy = copy_of_dev(tmp_path, b"[project\nname = 'broken'\n")
    done = subprocess.run([sys.executable, str(copy / "dev.py"), "serve"], cwd=copy,
                          capture_output=True, text=True, timeout=240)
    log = copy / ".venv" / "pip.log"
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[:2] == [
        f"dev.py: creating the virtual environment in {copy / '.venv'}",
        "dev.py: installing Stablemaster and its dependencies (this takes a minute the first "
        "time; pip's log: .venv/pip.log)"]
    text = log.read_text()
    assert "install --upgrade pip" in text and "install -e .[test,bench]" in text
    # what is shown of the log is its end: pip's own account of the failure
    shown = "\n".join(lines[2:])
    assert 0 < len(lines[2:]) <= 40 and text.rstrip("\n").endswith(shown)
    assert "TOMLDecodeError" in shown and "upgrade pip" not in shown
    assert re.fullmatch(rf"dev.py: installing Stablemaster failed \(exit [1-9]\d*\); the "
                        rf"whole log: {re.escape(str(log))}", done.stderr.strip()), done.stderr
    assert not (copy / ".venv" / ".installed").exists()
    assert "starting the server" not in done.stdout
