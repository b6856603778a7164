"""The server with its busiest modules compiled by mypyc, for ``python -m bench --mypyc``: what
compiling would give, measured beside the server as it runs.

The server, its tests and ``python3 dev.py serve`` run every module as Python; nothing here
changes that. :func:`build` copies the working tree into a directory of its own and compiles
:data:`MODULES` there, unchanged, with the project's mypy settings; the benchmark then starts
that copy's server as the target ``stablemaster+mypyc``. It needs a C compiler and mypy (a
development dependency, which brings mypyc).

Modules that mypyc does not compile as they are, and so are left as Python:

- those that define ``msgspec`` structs (``encounter/state.py``, ``encounter/declare.py``,
  ``protocol/``): a compiled class takes the struct's field defaults for its own, and the
  module fails at import;
- ``encounter/fold.py``: it registers a fold by the annotation of its function, which the
  compiled function does not carry;
- ``statemachines/memo.py``: python-statemachine reads the ``__qualname__`` of the callbacks it
  makes, which compiled closures lack;
- ``rulesets/dramatic/views.py``: mypyc stops with an internal error on it.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from bench.procs import ROOT

#: The modules compiled: the command path, the delivery and the legal actions.
MODULES = (
    "encounter/legal.py",
    "encounter/views.py",
    "encounter/turns.py",
    "encounter/decision.py",
    "encounter/engine.py",
    "encounter/rolls.py",
    "rules/turn_order.py",
    "rules/initiative.py",
    "rulesets/dramatic/flow.py",
    "server/wire.py",
    "server/rooms.py",
    "server/commands.py",
    "server/session.py",
    "server/store.py",
    "server/fanout.py",
)

_LEAVE = (".git", ".venv", "build", "data", "results", "test-artifacts", "*.egg-info",
          "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
          ".hypothesis", "*.so")


class BuildFailed(RuntimeError):
    pass


def build(dest: Path, modules: tuple[str, ...] = MODULES) -> Path:
    """Copy the working tree to ``dest`` (which must not exist) and compile ``modules`` there;
    returns ``dest``. Raises :class:`BuildFailed` with mypyc's output when it cannot."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        raise BuildFailed("compiling with mypyc needs a C compiler (cc or gcc on PATH)")
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(*_LEAVE))
    done = subprocess.run([sys.executable, "-m", "mypyc", *modules], cwd=dest,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildFailed(f"mypyc failed ({done.returncode}):\n{done.stdout[-4000:]}"
                          f"{done.stderr[-4000:]}")
    names = [m.removesuffix(".py").replace("/", ".") for m in modules]
    # what a server started in ``dest`` (``python -m server``) imports
    probe = subprocess.run([sys.executable, "-c", "import importlib, sys\n"
                            "for n in sys.argv[1:]: print(importlib.import_module(n).__file__)",
                            *names], cwd=dest, capture_output=True, text=True)
    files = probe.stdout.split()
    if probe.returncode != 0 or len(files) != len(names):
        raise BuildFailed(f"the compiled modules do not import:\n{probe.stderr[-4000:]}")
    left = [n for n, f in zip(names, files, strict=True)
            if not (f.endswith(".so") and Path(f).resolve().is_relative_to(dest.resolve()))]
    if left:
        raise BuildFailed(f"these modules would not run compiled: {', '.join(left)}")
    return dest


def mypyc_version() -> str:
    try:
        from mypy.version import __version__
    except ImportError:
        return "unknown"
    return str(__version__)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compiled", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", type=Path, help="a directory that does not exist yet")
    args = parser.parse_args()
    try:
        build(args.dest)
    except BuildFailed as exc:
        raise SystemExit(str(exc)) from None
    print(f"compiled {len(MODULES)} modules in {args.dest}")


if __name__ == "__main__":
    main()
