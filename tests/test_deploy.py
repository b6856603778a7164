"""The deployment files: docker-compose.yml, deploy/Dockerfile, deploy/nginx.conf and
.dockerignore.

Each is read the way its tool reads it and checked against the real command line
(``server.cli.build_parser``), and the compose topology is run for real without Docker: a Redis,
two ``serve`` processes with the compose command and environment, and nginx with
deploy/nginx.conf in front of them (its service names pointed at the local processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from clients.client import Client
from server import cli
from server.config import Settings
from server.creation import CreatePolicy
from tests.redis_procs import RedisProcess, free_port, stop_process

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
DOCKERIGNORE = ROOT / ".dockerignore"
PYPROJECT = ROOT / "pyproject.toml"

#: Values for the variables docker-compose.yml interpolates and requires.
COMPOSE_VARS = {"STABLEMASTER_SECRET": "deploy-test-secret",
                "STABLEMASTER_CREATOR_SECRET": "deploy-test-creator-secret"}
NGINX_INSTALL = "apt-get update && apt-get install -y --no-install-recommends nginx"


# -- docker-compose.yml ----------------------------------------------------------------------

_VARIABLE = re.compile(r"\$(?:(\$)|\{(\w+)(?:(:?[-?])([^}]*))?\}|(\w+))")


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's interpolation: ``$$``, ``$VAR``, ``${VAR}``, ``${VAR:-default}``,
    ``${VAR-default}``, ``${VAR:?error}`` and ``${VAR?error}``."""

    def substitute(m: re.Match[str]) -> str:
        if m.group(1):
            return "$"
        name = m.group(2) or m.group(5)
        op, arg = m.group(3), m.group(4)
        value = env.get(name)
        if op is None:
            return value or ""
        missing = value is None or (op.startswith(":") and value == "")
        if op.endswith("?") and missing:
            raise KeyError(f"required variable {name} is not set: {arg}")
        if op.endswith("-") and missing:
            return arg
        assert value is not None
        return value

    return _VARIABLE.sub(substitute, text)


def resolve(node: Any, env: dict[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, dict):
        return {key: resolve(value, env) for key, value in node.items()}
    if isinstance(node, list):
        return [resolve(value, env) for value in node]
    return node


def load_compose(env: dict[str, str] | None = None) -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    resolved: dict[str, Any] = resolve(data, COMPOSE_VARS if env is None else env)
    return resolved


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = load_compose()["services"]
    return found


def replica_names(svcs: dict[str, dict[str, Any]]) -> list[str]:
    """The services built from deploy/Dockerfile: the Stablemaster replicas."""
    return sorted(name for name, svc in svcs.items()
                  if isinstance(svc.get("build"), dict)
                  and svc["build"].get("dockerfile") == "deploy/Dockerfile")


def service_env(svc: dict[str, Any]) -> dict[str, str]:
    env = svc.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(key): str(value) for key, value in env.items()}


def as_argv(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


def published_ports(svc: dict[str, Any]) -> list[tuple[int, int]]:
    """(published, container) pairs of a service's ``ports``, short or long syntax."""
    pairs = []
    for entry in svc.get("ports") or []:
        if isinstance(entry, dict):
            pairs.append((int(entry["published"]), int(entry["target"])))
            continue
        parts = str(entry).split("/")[0].split(":")
        assert len(parts) >= 2, f"port {entry!r} is not published on a fixed host port"
        pairs.append((int(parts[-2]), int(parts[-1])))
    return pairs


def duration(text: str) -> float:
    """A compose duration such as ``30s`` or ``1m30s``, in seconds."""
    units = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
    parts = re.findall(r"(\d+(?:\.\d+)?)(us|ms|s|m|h)", str(text))
    assert parts and "".join(n + u for n, u in parts) == str(text), f"bad duration {text!r}"
    return sum(float(n) * units[u] for n, u in parts)


def argv_of(svc: dict[str, Any]) -> list[str]:
    """What a replica's container runs: the image's ENTRYPOINT and the service's command
    (or the image's CMD), as compose combines them."""
    image = dockerfile()
    if "entrypoint" in svc:
        return as_argv(svc["entrypoint"]) + as_argv(svc.get("command"))
    return image.entrypoint + (as_argv(svc["command"]) if "command" in svc else image.cmd)


def cli_args(argv: list[str]) -> list[str]:
    """The arguments of a ``stablemaster`` command line (its console script)."""
    scripts = tomllib.loads(PYPROJECT.read_text())["project"]["scripts"]
    assert argv, "empty command"
    assert argv[0] == "stablemaster" and scripts.get("stablemaster") == "server.cli:main", argv
    return argv[1:]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No Stablemaster variable from the environment the tests run in."""
    for name in cli.ENV.values():
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_compose_has_redis_two_replicas_and_a_proxy_on_the_only_public_port() -> None:
    svcs = services()
    replicas = replica_names(svcs)
    assert replicas == ["stablemaster-1", "stablemaster-2"]
    assert set(svcs) == {"redis", "proxy", *replicas}
    published = {name: published_ports(svc) for name, svc in svcs.items()}
    assert {name for name, ports in published.items() if ports} == {"proxy"}
    assert len(published["proxy"]) == 1
    assert svcs["proxy"]["image"].startswith("nginx:")
    # one image for both replicas
    assert len({svcs[name]["image"] for name in replicas}) == 1


def test_redis_keeps_an_append_only_file_on_a_named_volume() -> None:
    compose = load_compose()
    redis = compose["services"]["redis"]
    assert re.fullmatch(r"redis:7(\.\d+)*(-\w+)?", redis["image"]), redis["image"]
    command = as_argv(redis["command"])
    assert command[0] == "redis-server"
    options = dict(zip(command[1::2], command[2::2], strict=True))
    assert options["--appendonly"] == "yes"
    assert options["--appendfsync"] == "everysec"
    mounts = [str(v).split(":") for v in redis["volumes"]]
    assert [m[:2] for m in mounts] == [["redis-data", "/data"]]
    assert "redis-data" in compose["volumes"]
    check = " ".join(as_argv(redis["healthcheck"]["test"]))
    assert "redis-cli ping" in check


@pytest.mark.parametrize("name", ["stablemaster-1", "stablemaster-2"])
def test_replica_command_parses_with_the_real_cli(name: str, clean_env: pytest.MonkeyPatch
                                                  ) -> None:
    args = cli.build_parser().parse_args(cli_args(argv_of(services()[name])))
    assert args.command == "serve"
    assert args.host == "0.0.0.0"
    assert args.port == 8765


@pytest.mark.parametrize("name", ["stablemaster-1", "stablemaster-2"])
def test_replica_environment_is_what_the_cli_reads(name: str, clean_env: pytest.MonkeyPatch
                                                   ) -> None:
    env = service_env(services()[name])
    unknown = set(env) - set(cli.ENV.values())
    assert not unknown, f"variables the CLI does not read: {sorted(unknown)}"
    for key, value in env.items():
        clean_env.setenv(key, value)
    args = cli.build_parser().parse_args(["serve"])
    assert args.redis_url == "redis://redis:6379/0"
    assert args.log_format == "json"
    assert args.log_level == "INFO"
    assert args.secret == COMPOSE_VARS["STABLEMASTER_SECRET"]
    assert args.public_url == "http://localhost:8765"
    # and the whole command line with that environment
    full = cli.build_parser().parse_args(cli_args(argv_of(services()[name])))
    assert (full.host, full.port, full.redis_url, full.log_format) == (
        "0.0.0.0", 8765, "redis://redis:6379/0", "json")
    settings = cli.settings_from(full)
    assert settings.secret == COMPOSE_VARS["STABLEMASTER_SECRET"]
    # on 0.0.0.0, encounters are created only with the creator secret
    assert settings.creator_secrets == (COMPOSE_VARS["STABLEMASTER_CREATOR_SECRET"],)
    assert CreatePolicy.of(settings).mode == "secret"


def test_the_secret_is_required_and_shared_by_the_replicas() -> None:
    with pytest.raises(KeyError, match="STABLEMASTER_SECRET"):
        load_compose({})
    with pytest.raises(KeyError, match="STABLEMASTER_CREATOR_SECRET"):
        load_compose({"STABLEMASTER_SECRET": "x"})
    svcs = services()
    envs = [service_env(svcs[name]) for name in replica_names(svcs)]
    assert envs[0]["STABLEMASTER_SECRET"] == COMPOSE_VARS["STABLEMASTER_SECRET"]
    assert envs[0] == envs[1]


@pytest.mark.parametrize("name", ["stablemaster-1", "stablemaster-2"])
def test_replica_waits_for_redis_is_health_checked_and_stops_gracefully(
        name: str, clean_env: pytest.MonkeyPatch) -> None:
    svc = services()[name]
    assert svc["build"]["context"] == "."
    assert svc["depends_on"]["redis"]["condition"] == "service_healthy"
    assert svc["stop_signal"] == "SIGTERM"
    assert duration(svc["stop_grace_period"]) >= 10
    port = cli.build_parser().parse_args(cli_args(argv_of(svc))).port
    check = as_argv(svc["healthcheck"]["test"])
    assert check[0] == "CMD" and check[1] == "python", check
    assert f"http://127.0.0.1:{port}/healthz" in check[-1]


# -- deploy/Dockerfile -----------------------------------------------------------------------

@dataclass
class Image:
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)  # the final stage
    build: list[tuple[str, str]] = field(default_factory=list)  # every stage

    def last(self, name: str) -> str | None:
        found = [args for instr, args in self.instructions if instr == name]
        return found[-1] if found else None

    def exec_form(self, name: str) -> list[str]:
        args = self.last(name)
        if args is None:
            return []
        assert args.startswith("["), f"{name} must be in exec form (JSON), not {args!r}"
        value = json.loads(args)
        assert isinstance(value, list)
        return [str(v) for v in value]

    @property
    def entrypoint(self) -> list[str]:
        return self.exec_form("ENTRYPOINT")

    @property
    def cmd(self) -> list[str]:
        return self.exec_form("CMD")

    @property
    def env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for instr, args in self.instructions:
            if instr == "ENV":
                for word in shlex.split(args):
                    key, _, value = word.partition("=")
                    env[key] = value
        return env


def dockerfile() -> Image:
    lines = [line for line in DOCKERFILE.read_text().splitlines()
             if not line.lstrip().startswith("#")]
    instructions: list[tuple[str, str]] = []
    pending = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text = (pending + line).strip()
        pending = ""
        if text:
            instr, _, args = text.partition(" ")
            instructions.append((instr.upper(), args.strip()))
    build_args: dict[str, str] = {}
    image = Image(base="")
    for instr, rest in instructions:
        if instr == "ARG" and not image.base:
            key, _, value = rest.partition("=")
            build_args[key] = value
        elif instr == "FROM":
            base = rest.split()[0]
            image.base = re.sub(r"\$\{(\w+)\}", lambda m: build_args[m.group(1)], base)
            image.instructions = []
        else:
            image.instructions.append((instr, rest))
        image.build.append((instr, rest))
    return image


def test_dockerfile_installs_the_project_and_runs_it_unprivileged() -> None:
    image = dockerfile()
    assert re.fullmatch(r"python:3\.1[1-9]-slim(-\w+)?", image.base), image.base
    assert any(instr == "RUN" and re.search(r"\bpip install \.(\s|$)", args)
               for instr, args in image.build), "the project is installed with `pip install .`"
    user = image.last("USER")
    assert user is not None and user.split(":")[0] not in ("root", "0")
    assert image.last("EXPOSE") == str(Settings().port)
    stop = image.last("STOPSIGNAL")
    assert stop in (None, "SIGTERM")


def test_dockerfile_entrypoint_and_cmd_form_a_command_the_cli_accepts(
        clean_env: pytest.MonkeyPatch) -> None:
    image = dockerfile()
    assert image.entrypoint == ["stablemaster"]
    variables = {k: v for k, v in image.env.items() if k.startswith("STABLEMASTER_")}
    assert set(variables) <= set(cli.ENV.values())
    for key, value in variables.items():
        clean_env.setenv(key, value)
    args = cli.build_parser().parse_args(cli_args(image.entrypoint + image.cmd))
    assert args.command == "serve"
    assert args.host == "0.0.0.0"
    assert args.port == Settings().port == 8765
    if "STABLEMASTER_DATA_DIR" in variables:
        assert args.data_dir == Path(variables["STABLEMASTER_DATA_DIR"])


# -- .dockerignore ---------------------------------------------------------------------------

def _ignore_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out)


def dockerignored(path: str, patterns: list[str]) -> bool:
    """Whether Docker leaves ``path`` (relative, with ``/``) out of the build context: the
    last pattern matching it or a folder above it decides; ``!`` patterns put it back."""
    parts = path.split("/")
    candidates = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    excluded = False
    for raw in patterns:
        keep = raw.startswith("!")
        regex = _ignore_regex(raw.lstrip("!").strip("/"))
        if any(regex.fullmatch(c) for c in candidates):
            excluded = not keep
    return excluded


def test_dockerignore_keeps_what_pip_install_needs_and_leaves_out_the_rest() -> None:
    patterns = [line.strip() for line in DOCKERIGNORE.read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    project = tomllib.loads(PYPROJECT.read_text())
    needed = ["pyproject.toml", project["project"]["readme"],
              *project["project"].get("license-files", [])]
    for include in project["tool"]["setuptools"]["packages"]["find"]["include"]:
        package = include.rstrip("*")
        files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / package).rglob("*.py"))
        assert files, f"package {package} has no files"
        needed += [f for f in files if "__pycache__" not in f]
    for package, globs in project["tool"]["setuptools"].get("package-data", {}).items():
        needed += [f"{package}/{g.replace('*', 'file.txt')}" for g in globs]
    kept_out = [path for path in needed if dockerignored(path, patterns)]
    assert not kept_out, f".dockerignore leaves out what the image needs: {kept_out}"
    for path in [".venv/bin/python", ".git/HEAD", "data/redis/appendonly.aof",
                 "server/__pycache__/app.cpython-312.pyc", ".pytest_cache/v/x",
                 ".mypy_cache/x", ".ruff_cache/x", "tests/test_deploy.py",
                 "test-artifacts/x.log", ".env", "stablemaster.egg-info/PKG-INFO"]:
        assert dockerignored(path, patterns), f"{path} would be sent to the image build"


# -- deploy/nginx.conf -----------------------------------------------------------------------

@dataclass
class Directive:
    name: str
    args: list[str]
    block: list[Directive] | None = None

    def all(self, name: str) -> list[Directive]:
        return [d for d in self.block or [] if d.name == name]

    def one(self, name: str) -> Directive:
        found = self.all(name)
        assert len(found) == 1, f"expected one {name} in {self.name}, found {len(found)}"
        return found[0]


def _nginx_tokens(text: str) -> Iterator[str]:
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "#":
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif ch in "{};":
            yield ch
            i += 1
        elif ch in "'\"":
            end = text.index(ch, i + 1)
            yield "\0" + text[i + 1:end]  # quoted: never a brace or semicolon
            i = end + 1
        else:
            j = i
            while j < len(text) and not text[j].isspace() and text[j] not in "{};#":
                j += 1
            yield text[i:j]
            i = j


def parse_nginx(text: str) -> Directive:
    root = Directive("main", [], [])
    stack = [root]
    words: list[str] = []
    for token in _nginx_tokens(text):
        if token == ";":
            assert stack[-1].block is not None
            stack[-1].block.append(Directive(words[0], words[1:]))
            words = []
        elif token == "{":
            block = Directive(words[0], words[1:], [])
            assert stack[-1].block is not None
            stack[-1].block.append(block)
            stack.append(block)
            words = []
        elif token == "}":
            assert not words, f"unterminated directive {words}"
            stack.pop()
        else:
            words.append(token.lstrip("\0"))
    assert len(stack) == 1 and not words, "unbalanced braces in nginx.conf"
    return root


def effective(name: str, *scopes: Directive) -> list[Directive]:
    """A directive's value as nginx inherits it: from the innermost of ``scopes`` (outermost
    first) that sets it at all."""
    for scope in reversed(scopes):
        found = scope.all(name)
        if found:
            return found
    return []


def location_for(server: Directive, uri: str) -> Directive:
    """The location nginx picks for ``uri`` (exact and prefix locations)."""
    best: Directive | None = None
    for loc in server.all("location"):
        if loc.args[:1] == ["="] and loc.args[1] == uri:
            return loc
        if len(loc.args) == 1 and uri.startswith(loc.args[0]) and (
                best is None or len(loc.args[0]) > len(best.args[0])):
            best = loc
    assert best is not None, f"no location for {uri}"
    return best


def nginx_seconds(value: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
    m = re.fullmatch(r"(\d+)(ms|s|m|h|d)?", value)
    assert m, value
    return int(m.group(1)) * units[m.group(2) or "s"]


def upstream_servers(conf: Directive) -> tuple[str, list[tuple[str, int]]]:
    http = conf.one("http")
    upstream = http.one("upstream")
    servers = []
    for server in upstream.all("server"):
        host, _, port = server.args[0].rpartition(":")
        servers.append((host, int(port)))
    return upstream.args[0], servers


def test_nginx_balances_over_exactly_the_replicas_on_their_port(
        clean_env: pytest.MonkeyPatch) -> None:
    conf = parse_nginx(NGINX_CONF.read_text())
    svcs = services()
    replicas = replica_names(svcs)
    ports = {name: cli.build_parser().parse_args(cli_args(argv_of(svcs[name]))).port
             for name in replicas}
    _, servers = upstream_servers(conf)
    assert sorted(servers) == sorted(ports.items())


def test_nginx_proxies_websockets_and_http_on_the_published_port() -> None:
    conf = parse_nginx(NGINX_CONF.read_text())
    main_names = {d.name for d in conf.block or []}
    assert not main_names & {"daemon", "pid"}, "the image's command sets these"
    http = conf.one("http")
    assert conf.one("events").block is not None
    upstream, _ = upstream_servers(conf)
    mapping = http.one("map")
    assert mapping.args == ["$http_upgrade", "$connection_upgrade"]
    assert {d.name: d.args for d in mapping.block or []} == {"default": ["upgrade"],
                                                             "": ["close"]}
    server = http.one("server")
    listens = [d.args[0] for d in server.all("listen")]
    (published, target), = published_ports(services()["proxy"])
    assert listens == [str(target)], f"nginx listens on {listens}, compose maps to {target}"
    assert published == 8765

    ws = location_for(server, "/ws")
    scopes = (http, server, ws)
    assert [d.args for d in effective("proxy_pass", *scopes)] == [[f"http://{upstream}"]]
    assert [d.args for d in effective("proxy_http_version", *scopes)] == [["1.1"]]
    headers = {d.args[0].lower(): d.args[1] for d in effective("proxy_set_header", *scopes)}
    assert headers["upgrade"] == "$http_upgrade"
    assert headers["connection"] == "$connection_upgrade"
    assert headers["host"] == "$http_host"
    for timeout in ("proxy_read_timeout", "proxy_send_timeout"):
        found = effective(timeout, *scopes)
        assert len(found) == 1, f"{timeout} is not set for /ws"
        value = found[0].args[0]
        assert nginx_seconds(value) >= 600, f"{timeout} {value} would cut idle websockets"
    retry = {arg for d in effective("proxy_next_upstream", *scopes) for arg in d.args}
    assert {"error", "timeout"} <= retry

    for uri in ("/healthz", "/metrics", "/"):
        loc = location_for(server, uri)
        assert [d.args for d in effective("proxy_pass", http, server, loc)] == [
            [f"http://{upstream}"]], uri


def test_proxy_mounts_the_config_read_only_and_waits_for_healthy_replicas() -> None:
    svcs = services()
    proxy = svcs["proxy"]
    mounts = [str(v).split(":") for v in proxy["volumes"]]
    assert ["./deploy/nginx.conf", "/etc/nginx/nginx.conf", "ro"] in mounts
    assert (ROOT / "deploy" / "nginx.conf").is_file()
    depends = proxy["depends_on"]
    for name in replica_names(svcs):
        assert depends[name]["condition"] == "service_healthy"


def nginx_binary() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)
    if found is None:
        pytest.fail(f"nginx is needed to check deploy/nginx.conf; install it: {NGINX_INSTALL}")
    return found


def local_nginx_conf(prefix: Path, listen: int, replicas: dict[str, int]) -> Path:
    """A copy of deploy/nginx.conf for a local nginx: the replicas' service names replaced by
    127.0.0.1 and their local ports, listening on ``listen``, temporary files under
    ``prefix``."""
    text = NGINX_CONF.read_text()
    _, servers = upstream_servers(parse_nginx(text))
    for host, port in servers:
        text, n = re.subn(rf"(\bserver\s+){re.escape(host)}:{port}(?=[\s;])",
                          rf"\g<1>127.0.0.1:{replicas[host]}", text)
        assert n == 1, f"server {host}:{port} not found once in the upstream"
    text, n = re.subn(r"(\blisten\s+)\d+(?=\s*;)", rf"\g<1>127.0.0.1:{listen}", text)
    assert n == 1
    temp = "".join(f"    {kind}_temp_path {prefix / kind};\n"
                   for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text, n = re.subn(r"^http\s*\{\n", "http {\n" + temp, text, count=1, flags=re.M)
    assert n == 1
    conf = prefix / "nginx.conf"
    conf.write_text(text)
    return conf


def nginx_command(binary: str, prefix: Path, conf: Path, directives: str = "") -> list[str]:
    """nginx run on ``conf`` with its pid file and logs under ``prefix``; ``directives`` are
    added to the main context (nginx takes one ``-g``)."""
    directives += f" pid {prefix / 'nginx.pid'};"
    if os.geteuid() == 0:  # workers run as this user, so they can use the temporary folders
        directives += f" user {pwd.getpwuid(0).pw_name};"
    return [binary, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "error.log"),
            "-g", directives.strip()]


def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    binary = nginx_binary()
    conf = local_nginx_conf(tmp_path, free_port(), {"stablemaster-1": 8765,
                                                    "stablemaster-2": 8765})
    result = subprocess.run([*nginx_command(binary, tmp_path, conf), "-t"], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


# -- the whole topology, without Docker ------------------------------------------------------

def _with_option(args: list[str], flag: str, value: str) -> list[str]:
    out = list(args)
    for i, arg in enumerate(out):
        if arg == flag:
            out[i + 1] = value
            return out
        if arg.startswith(flag + "="):
            out[i] = f"{flag}={value}"
            return out
    raise AssertionError(f"the compose command has no {flag}: {args}")


def http_get(url: str, timeout: float = 5) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as err:
        with err:
            return int(err.code), bytes(err.read())


async def aget(url: str) -> tuple[int, bytes]:
    return await asyncio.to_thread(http_get, url)


class Proc:
    """A subprocess with its output in a file, ended on ``stop`` if still running."""

    def __init__(self, name: str, argv: list[str], logdir: Path, env: dict[str, str] | None
                 = None) -> None:
        self.name = name
        self.argv = argv
        self.log = logdir / f"{name}.log"
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None

    def start(self) -> None:
        self._out = self.log.open("ab")
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdout=self._out,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout)

    def stop(self) -> None:
        stop_process(self.proc)
        if self._out is not None:
            self._out.close()


class Replica(Proc):
    """A ``serve`` process run with a compose service's command and environment; only its
    address (127.0.0.1 and a free port) and its Redis URL are local."""

    def __init__(self, name: str, svc: dict[str, Any], redis_url: str, logdir: Path) -> None:
        self.port = free_port()
        args = cli_args(argv_of(svc))
        args = _with_option(_with_option(args, "--host", "127.0.0.1"), "--port", str(self.port))
        env = {k: v for k, v in os.environ.items() if k not in cli.ENV.values()}
        env.update(service_env(svc))
        env["REDIS_URL"] = redis_url
        super().__init__(name, [sys.executable, "-m", "server", *args], logdir, env)

    async def ready(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise AssertionError(f"{self.name} exited:\n{self.output()}")
            with contextlib.suppress(OSError):
                status, _ = await aget(f"http://127.0.0.1:{self.port}/healthz")
                if status == 200:
                    return
            await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name} not healthy in {timeout} s:\n{self.output()}")

    async def connections(self) -> float:
        status, body = await aget(f"http://127.0.0.1:{self.port}/metrics")
        assert status == 200
        m = re.search(rb"^stablemaster_connections (\S+)$", body, re.M)
        assert m, body[:500]
        return float(m.group(1))


def healthcheck(svc: dict[str, Any], port: int) -> int:
    """Run a replica service's compose healthcheck against a local port; its exit code."""
    test = as_argv(svc["healthcheck"]["test"])
    assert test[:2] == ["CMD", "python"]
    argv = [sys.executable, *(arg.replace(":8765/", f":{port}/") for arg in test[2:])]
    return subprocess.run(argv, capture_output=True, timeout=30).returncode


async def test_compose_topology_serves_through_the_proxy_and_survives_a_replica(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    binary = nginx_binary()
    svcs = services()
    names = replica_names(svcs)
    replicas = {name: Replica(name, svcs[name], redis_server.url, tmp_path) for name in names}
    proxy_port = free_port()
    conf = local_nginx_conf(tmp_path, proxy_port, {n: r.port for n, r in replicas.items()})
    nginx = Proc("nginx", nginx_command(binary, tmp_path, conf, "daemon off;"), tmp_path)
    procs: list[Proc] = [*replicas.values(), nginx]
    opened: list[Client] = []

    async def client(token: str | None = None) -> tuple[Client, dict[str, Any]]:
        c = await Client.open(f"ws://127.0.0.1:{proxy_port}/ws")
        opened.append(c)
        return c, await c.hello(token)

    try:
        for proc in procs:
            proc.start()
        await asyncio.gather(*(r.ready() for r in replicas.values()))
        deadline = time.monotonic() + 10
        while True:
            assert nginx.alive(), f"nginx exited:\n{nginx.output()}"
            try:
                socket.create_connection(("127.0.0.1", proxy_port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "nginx does not listen"
                await asyncio.sleep(0.05)

        base = f"http://127.0.0.1:{proxy_port}"
        status, body = await aget(f"{base}/healthz")
        assert status == 200, body
        assert json.loads(body)["status"] == "ok"
        status, body = await aget(f"{base}/metrics")
        assert status == 200 and b"stablemaster_connections" in body

        creator, welcome = await client()
        assert welcome["role"] is None
        ack = await creator.command("create_encounter", name="x",
                                    creator_secret=COMPOSE_VARS["STABLEMASTER_CREATOR_SECRET"])
        encounter, gm_token = ack["result"]["encounter"], ack["result"]["gm_token"]

        # SIGKILL the replica the creator's websocket went to: the other one must serve the
        # encounter from Redis.
        counts = {name: await r.connections() for name, r in replicas.items()}
        serving = [name for name, count in counts.items() if count == 1]
        assert len(serving) == 1 and sum(counts.values()) == 1, counts
        victim = replicas[serving[0]]
        survivor = next(r for r in replicas.values() if r is not victim)
        victim.signal(signal.SIGKILL)
        assert victim.wait(10) == -signal.SIGKILL
        await asyncio.wait_for(asyncio.shield(creator.closed), 10)

        gms = []
        for _ in range(3):  # round robin: some of these are offered to the dead one first
            gm, welcome = await client(gm_token)
            assert welcome["role"] == "gm" and welcome["encounter"] == encounter
            snapshot = await gm.wait_for(lambda m: m["type"] == "snapshot")
            assert snapshot["encounter"] == encounter
            gms.append(gm)
        assert await survivor.connections() == 3
        for _ in range(3):
            status, _ = await aget(f"{base}/healthz")
            assert status == 200

        # the compose healthcheck tells the two apart
        assert healthcheck(svcs[survivor.name], survivor.port) == 0
        assert healthcheck(svcs[victim.name], victim.port) != 0

        # SIGTERM (the compose stop signal): clients are told to reconnect, through the proxy
        survivor.signal(signal.SIGTERM)
        for gm in gms:
            goodbye = await gm.wait_for(lambda m: m["type"] == "goodbye")
            assert goodbye["reconnect"] is True
            await asyncio.wait_for(asyncio.shield(gm.closed), 10)
            assert gm.ws.close_code == 1012
        assert survivor.wait(20) == 0
        status, _ = await aget(f"{base}/healthz")
        assert status == 502  # no replica left
    except BaseException:
        for proc in procs:
            print(f"--- {proc.name}\n{proc.output() if proc.log.exists() else ''}")
        raise
    finally:
        await asyncio.gather(*(c.close() for c in opened), return_exceptions=True)
        for proc in procs:
            proc.stop()


def test_replicas_trust_the_forwarded_for_of_the_proxy_network_only() -> None:
    """The proxy sits on the compose network, whose subnet is fixed; the replicas trust that
    network's X-Forwarded-For (and nothing wider), and limit connections per address."""
    import ipaddress

    compose = load_compose()
    subnets = [ipaddress.ip_network(c["subnet"])
               for c in compose["networks"]["default"]["ipam"]["config"]]
    svcs = services()
    for name in replica_names(svcs):
        env = service_env(svcs[name])
        trusted = [ipaddress.ip_network(p) for p in cli.proxy_list(
            env["STABLEMASTER_TRUSTED_PROXIES"])]
        assert trusted == subnets
        assert int(env["STABLEMASTER_MAX_CONNECTIONS_PER_ADDRESS"]) > 0
        assert float(env["STABLEMASTER_HELLO_TIMEOUT"]) > 0
    assert not svcs["proxy"].get("networks"), "the proxy is on the default network"


async def test_the_proxy_forwards_the_client_address_to_the_per_address_limit(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """deploy/nginx.conf in a real nginx in front of a replica with the compose environment
    (the proxy trusted at its local address, and a limit of 2): clients from two loopback
    addresses each get 2 websockets, whatever X-Forwarded-For they send themselves."""
    from websockets.asyncio.client import ClientConnection, connect
    from websockets.exceptions import InvalidStatus

    binary = nginx_binary()
    svcs = services()
    name = replica_names(svcs)[0]
    replica = Replica(name, svcs[name], redis_server.url, tmp_path)
    assert replica.env is not None
    replica.env.update(STABLEMASTER_TRUSTED_PROXIES="127.0.0.1",
                       STABLEMASTER_MAX_CONNECTIONS_PER_ADDRESS="2")
    proxy_port = free_port()
    conf = local_nginx_conf(tmp_path, proxy_port, dict.fromkeys(replica_names(svcs),
                                                                replica.port))
    nginx = Proc("nginx", nginx_command(binary, tmp_path, conf, "daemon off;"), tmp_path)
    opened: list[ClientConnection] = []

    async def status_from(source: str, spoof: str | None = None) -> int:
        headers = {"X-Forwarded-For": spoof} if spoof else None
        try:
            ws = await connect(f"ws://127.0.0.1:{proxy_port}/ws", compression=None,
                               local_addr=(source, 0), additional_headers=headers)
        except InvalidStatus as exc:
            return exc.response.status_code
        opened.append(ws)
        return 101

    try:
        replica.start()
        nginx.start()
        await replica.ready()
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", proxy_port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"nginx does not listen:\n{nginx.output()}"
                await asyncio.sleep(0.05)
        first = [await status_from("127.0.0.5", spoof=f"198.51.100.{i}") for i in range(3)]
        assert first == [101, 101, 429]
        assert [await status_from("127.0.0.6") for _ in range(3)] == [101, 101, 429]
    except BaseException:
        for proc in (replica, nginx):
            print(f"--- {proc.name}\n{proc.output() if proc.log.exists() else ''}")
        raise
    finally:
        await asyncio.gather(*(ws.close() for ws in opened), return_exceptions=True)
        for proc in (replica, nginx):
            proc.stop()


async def test_the_proxy_logs_no_token_and_pages_send_no_referrer(
        server: Any, tmp_path: Path) -> None:
    """A spectator link carries its token in the URL: nginx's access log writes the path
    without the query, and every response says ``Referrer-Policy: no-referrer`` (a page's
    links and fetches do not pass its URL on), from the server and through the proxy."""
    from tests.conftest import ws_url
    from tests.helpers import create_table

    binary = nginx_binary()
    _, servers = upstream_servers(parse_nginx(NGINX_CONF.read_text()))
    port = server.settings.port
    proxy_port = free_port()
    conf = local_nginx_conf(tmp_path, proxy_port, {host: port for host, _ in servers})
    nginx = Proc("nginx", nginx_command(binary, tmp_path, conf, "daemon off;"), tmp_path)
    opened: list[Client] = []
    try:
        table = await create_table(ws_url(server), opened)
        nginx.start()
        deadline = time.monotonic() + 10
        while True:
            assert nginx.alive(), f"nginx exited:\n{nginx.output()}"
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", proxy_port), timeout=0.5).close()
                break
            assert time.monotonic() < deadline, "nginx does not listen"
            await asyncio.sleep(0.05)
        watcher = await Client.open(
            f"ws://127.0.0.1:{proxy_port}/ws?spectate={table.spectator_token}")
        opened.append(watcher)
        await watcher.wait_for(lambda m: m["type"] == "snapshot")
        for base in (f"http://127.0.0.1:{port}", f"http://127.0.0.1:{proxy_port}"):
            for path in ("/", "/healthz", "/nowhere"):
                request = urllib.request.Request(f"{base}{path}?spectate={table.spectator_token}")
                try:
                    response = await asyncio.to_thread(urllib.request.urlopen, request, timeout=5)
                except urllib.error.HTTPError as err:
                    response = err
                with response:
                    assert response.headers.get("Referrer-Policy") == "no-referrer", (base, path)
        await watcher.close()
        await asyncio.sleep(0.2)
    finally:
        await asyncio.gather(*(c.close() for c in opened), return_exceptions=True)
        nginx.stop()
    logged = nginx.log.read_text(errors="replace")
    assert "GET /ws " in logged and "GET /healthz " in logged, logged
    assert table.spectator_token not in logged and "spectate=" not in logged, logged
