"""``python -m bench``: the whole benchmark in one command.

For each mode and size it runs the same workload against Stablemaster and against the two
floors (each on a fresh process, and a fresh redis-server where one is used), then prints a
Markdown table and writes it to ``bench/results/latest.md`` and the raw figures to
``bench/results/<timestamp>.json``. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import compiled, procs, report
from bench.loadgen import PLANS, Generator, RunResult
from clients.client import REFERENCE_FEATURES
from server.loop import LOOPS, factory

RESULTS = Path(__file__).resolve().parent / "results"
FULL = {"human": [100, 500, 1000], "saturation": [1, 100, 500]}
QUICK = {"human": [20], "saturation": [1, 10]}
TARGETS = ["stablemaster", "redis-relay", "bare-relay"]


def _sizes(text: str) -> list[int]:
    return [int(x) for x in text.replace(" ", "").split(",") if x]


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="smoke run: small sizes (human 20; saturation 1, 10), 3 s windows")
    p.add_argument("--modes", default="human,saturation",
                   help="comma-separated: human, saturation (default both)")
    p.add_argument("--sizes", type=_sizes,
                   help="encounter counts for every mode, e.g. 100,500 (default: human "
                   "100,500,1000; saturation 1,100,500)")
    p.add_argument("--human-sizes", type=_sizes, help="encounter counts at human pace")
    p.add_argument("--saturation-sizes", type=_sizes, help="encounter counts at saturation")
    p.add_argument("--duration", type=float,
                   help="measured seconds per run (default: human 30, saturation 15; quick 3)")
    p.add_argument("--warmup", type=float,
                   help="seconds before measuring (default: human 4, saturation 3; quick 1)")
    p.add_argument("--period", type=float, default=2.0,
                   help="seconds between two actions of one encounter at human pace (default 2)")
    p.add_argument("--server-url",
                   help="benchmark an already running Stablemaster (ws://host:port/ws) instead "
                   "of starting one; CPU and memory are read from --server-pid, or from the "
                   "process listening on the URL's port when it is on this machine")
    p.add_argument("--server-pid", type=int, help="pid of the server given by --server-url")
    p.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for the self-started `python -m server serve` "
                   "(repeatable), e.g. --server-arg=--log-level=INFO")
    p.add_argument("--targets", default=",".join(TARGETS),
                   help=f"comma-separated subset of {','.join(TARGETS)}")
    p.add_argument("--skip-floors", action="store_true", help="benchmark Stablemaster only")
    p.add_argument("--connect-concurrency", type=int, default=50,
                   help="connections being opened and greeted at once (default 50)")
    p.add_argument("--no-pin", action="store_true",
                   help="do not pin (default: server and Redis on core 0, generator on core 1)")
    p.add_argument("--no-uvloop", action="store_true", help="generator on the asyncio loop")
    p.add_argument("--server-loop", choices=LOOPS, default="auto",
                   help="the event loop of the servers started here, Stablemaster's and the "
                   "floors' alike (default auto: uvloop where it is installed, as `stablemaster "
                   "serve` runs by default)")
    p.add_argument("--profile", action="store_true",
                   help="sample the Stablemaster server with py-spy during each measured window "
                   "and write the top functions next to the results")
    p.add_argument("--quiet-limit", type=float, default=15.0,
                   help="before each run, wait until other processes use less than this "
                   "percentage of one core (default 15)")
    p.add_argument("--quiet-wait", type=float, default=60.0,
                   help="longest wait for a quiet machine before each run, s (default 60)")
    p.add_argument("--noise-limit", type=float, default=20.0,
                   help="a run during which other processes used more than this percentage of "
                   "one core is noisy (default 20)")
    p.add_argument("--retries", type=int, default=1,
                   help="times a noisy run is run again (default 1)")
    p.add_argument("--retry-until", type=float, default=12.0,
                   help="no more retries once the benchmark has run this many minutes "
                   "(default 12), so that the whole stays bounded")
    p.add_argument("--gc-log", action="store_true",
                   help="start the servers under bench.gcwatch and report their garbage-collector "
                   "pauses (≥ 2 ms) in each measured window")
    p.add_argument("--durability", default="everysec",
                   help="comma-separated durability settings of the server (`--durability` of "
                   "`stablemaster serve`): everysec, always (Redis runs with appendfsync "
                   "always), replicas (a replica on the same core, each append waits for it); "
                   "Stablemaster runs once per setting, the floors once (default everysec)")
    p.add_argument("--mypyc", action="store_true",
                   help="also run Stablemaster with the modules of bench/compiled.py compiled by "
                   "mypyc (target stablemaster+mypyc; needs a C compiler): what compiling "
                   "would give")
    p.add_argument("--view", action="store_true",
                   help="also run Stablemaster with every client asking for the view feature "
                   "(target stablemaster+view: a patch of its state after each change); with "
                   "--server-url, that server's clients ask for it")
    p.add_argument("--no-framing", action="store_true",
                   help="clients ask for no feature (one websocket message per server "
                   "message, full legal action lists, no view, no words)")
    p.add_argument("--features", type=_names, default=list(REFERENCE_FEATURES),
                   help="comma-separated features the clients ask for in hello (default: "
                   "the reference clients', " + ",".join(REFERENCE_FEATURES) + "), e.g. "
                   "batch,legal_delta to measure an older mix")
    p.add_argument("--workloads", default="end_turn,mix,attack,move,map_end_turn",
                   help="comma-separated: end_turn (today's table, no map, with the floors), "
                   "and on a battle map (Stablemaster only): mix (move, attack, end of turn), "
                   "attack (attack, end of turn), move (move, end of turn), map_end_turn")
    p.add_argument("--map-sides", type=_sizes, default=[12, 40, 100],
                   help="sides of the battle maps of the map workloads (default 12,40,100)")
    p.add_argument("--map-saturation-sizes", type=_sizes,
                   help="encounter counts of the map workloads at saturation (default 100; "
                   "quick 10)")
    p.add_argument("--map-human-sizes", type=_sizes,
                   help="encounter counts of the mix at human pace (default 500; quick 20)")
    p.add_argument("--map-human-sides", type=_sizes, default=[40, 100],
                   help="map sides on which the mix also runs at human pace (default 40,100)")
    p.add_argument("--out", type=Path,
                   help="JSON results file (default bench/results/<timestamp>.json)")
    return p


def loop_label(choice: str) -> str:
    """The loop ``--server-loop`` (or ``--loop``) ``choice`` runs on here, with its version."""
    name, _ = factory(choice)
    if name == "uvloop":
        import uvloop

        return f"uvloop {uvloop.__version__}"
    return name


def environment(server_core: int | None, gen_core: int | None, loop_name: str,
                server_loop: str = "auto") -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import websockets

    def git(*cmd: str) -> str:
        try:
            return subprocess.run(["git", *cmd], cwd=procs.ROOT, capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    code = ["server", "protocol", "encounter", "rules", "statemachines"]
    revision = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--", *code):
        revision += " (with uncommitted changes to the server's code)"
    return {"revision": revision,"cpu": cpu or "unknown CPU", "cores": os.cpu_count(),
            "python": platform.python_version(),
            "websockets": websockets.__version__, "generator_loop": loop_name,
            "server_loop": loop_label(server_loop),
            "server_core": server_core, "redis_core": server_core, "generator_core": gen_core,
            "platform": platform.platform()}


class Profiler:
    """py-spy sampling the server for one measured window; top functions to a text file."""

    def __init__(self, pid: int, out: Path) -> None:
        self.pid, self.out = pid, out
        self.raw = out.with_suffix(".folded")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, duration: float) -> None:
        exe = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        self.proc = subprocess.Popen(
            [exe, "record", "--pid", str(self.pid), "--duration", str(max(1, int(duration))),
             "--rate", "100", "--nolineno", "--format", "raw",
             "-o", str(self.raw)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def finish(self, title: str) -> str | None:
        if self.proc is None:
            return None
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if not self.raw.exists():
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            return f"py-spy produced nothing: {err.strip()}"
        text = summarize_folded(self.raw.read_text(), title)
        self.out.write_text(text)
        return text


def folded_samples(folded: str) -> tuple[dict[str, int], dict[str, int], int]:
    """Self and inclusive samples per function of py-spy's collapsed stacks, and their
    total."""
    own: dict[str, int] = {}
    incl: dict[str, int] = {}
    total = 0
    for line in folded.splitlines():
        stack, _, tail = line.rpartition(" ")
        if not stack or not tail.isdigit():
            continue
        count = int(tail)
        total += count
        frames = [f.strip() for f in stack.split(";") if f.strip()]
        if frames and frames[0].startswith(("process ", "thread ")):
            frames = frames[1:]
        if not frames:
            continue
        own[frames[-1]] = own.get(frames[-1], 0) + count
        for f in set(frames):
            incl[f] = incl.get(f, 0) + count
    return own, incl, total


def summarize_folded(folded: str, title: str, top: int = 30) -> str:
    """Self and inclusive sample shares per function, from py-spy's collapsed stacks."""
    own, incl, total = folded_samples(folded)

    def share(n: int) -> str:
        return f"{100 * n / max(total, 1):6.2f}%"

    packages: dict[str, int] = {}
    for name, samples in own.items():
        where = name.rpartition("(")[2].rstrip(")")
        package = where.split("/", 1)[0] if "/" in where else where
        packages[package] = packages.get(package, 0) + samples
    lines = [f"# {title}", f"# {total} samples of busy (non-idle) time", "",
             "## self time by package (where the leaf frame is)", ""]
    lines += [f"{share(n)}  {name}" for name, n in sorted(packages.items(), key=lambda kv: -kv[1])]
    lines += ["", "## self time (top functions)", ""]
    lines += [f"{share(n)}  {name}" for name, n in sorted(own.items(), key=lambda kv: -kv[1])[:top]]
    lines += ["", "## inclusive time (frames on every stack left out)", ""]
    ranked = [(name, n) for name, n in sorted(incl.items(), key=lambda kv: -kv[1])
              if n < 0.98 * total]
    lines += [f"{share(n)}  {name}" for name, n in ranked[:top + 10]]
    return "\n".join(lines) + "\n"


def gc_pauses(log: Path, start: float, end: float) -> dict[str, Any]:
    """The ``bench.gcwatch`` lines of a server log that fall in [start, end)."""
    pauses: list[tuple[int, float]] = []
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return {}
    for line in lines:
        if not line.startswith("gcwatch:"):
            continue
        fields = dict(kv.split("=", 1) for kv in line.split()[1:])
        if start <= float(fields["t"]) < end:
            pauses.append((int(fields["gen"]), float(fields["ms"])))
    by_gen: dict[str, list[float]] = {}
    for gen_, ms in pauses:
        by_gen.setdefault(f"gen{gen_}", []).append(ms)
    return {
        "count": len(pauses), "total_ms": round(sum(ms for _g, ms in pauses), 1),
        "max_ms": round(max((ms for _g, ms in pauses), default=0.0), 1),
        "by_gen": {g: {"count": len(v), "total_ms": round(sum(v), 1), "max_ms": round(max(v), 1)}
                   for g, v in sorted(by_gen.items())},
    }


def _keep_log(stack: procs.Stack, dest: Path) -> None:
    """Keep the server's log next to the results when it said anything (warnings, errors)."""
    if stack.server is None:
        return
    try:
        text = stack.server.log.read_text(errors="replace") if stack.server.log.exists() else ""
    except OSError:
        return
    if text.strip():
        dest.write_text(text)


async def run_one(args: argparse.Namespace, stamp: str, mode: str, e: int, label: str,
                  server_core: int | None, external_pid: int | None, warmup: float,
                  duration: float, workload: str = "end_turn", side: int = 0) -> RunResult:
    """One run: a fresh server (and Redis) for ``label`` (a target, with ``+<durability>``
    for Stablemaster with another durability than everysec, ``+mypyc`` for its compiled
    copy), the workload, the figures."""
    target, _, variant = label.partition("+")
    durability = "everysec" if variant in ("mypyc", "view") else variant or "everysec"
    stack = None
    try:
        if target == "stablemaster" and args.server_url:
            url, pid, rpid = args.server_url, external_pid, None
            redis_url = None
        else:
            sm = target == "stablemaster"
            stack = await procs.start_stack(target, server_core, args.server_arg if sm else [],
                                            gc_log=args.gc_log, durability=durability,
                                            root=args.compiled_root if variant == "mypyc"
                                            else procs.ROOT, loop=args.server_loop)
            url, pid, rpid = stack.url, stack.server_pid, stack.redis_pid
            redis_url = stack.redis_url
        profiler = None
        if args.profile and target == "stablemaster" and pid:
            what = "" if workload == "end_turn" else f"-{workload}-{side}"
            what += f"-{variant}" if variant else ""  # (one file per variant of a run)
            profiler = Profiler(pid, RESULTS / f"{stamp}-profile-{mode}-E{e}{what}.txt")
        gen = Generator(url, mode, e, warmup=warmup, duration=duration, period=args.period,
                        connect_concurrency=args.connect_concurrency, server_pid=pid,
                        redis_pid=rpid, target=target,
                        log=lambda s: print(s, file=sys.stderr, flush=True),
                        on_window=profiler.start if profiler else None, redis_url=redis_url,
                        workload=workload, side=side, framing=not args.no_framing,
                        view=True if variant == "view" else None,
                        features=[] if args.no_framing else args.features)
        result = await gen.run()
        result.target = label
        if stack is None:
            # A server that was running before keeps the heap it grew in earlier runs.
            args.external_runs = getattr(args, "external_runs", 0) + 1
            if args.external_runs > 1:
                result.mem_per_conn_kib = result.mem_per_conn_end_kib = None
                result.notes.append("memory per connection is measured on the first run "
                                    "against --server-url only")
        if profiler is not None:
            summary = profiler.finish(f"Stablemaster server, {mode}, E={e}")
            if summary:
                result.notes.append(f"profiled with py-spy: {profiler.out.name}")
        if args.gc_log and stack is not None and stack.server is not None:
            result.server_gc = gc_pauses(stack.server.log, gen.measure_from, gen.stop_at)
        if stack is not None and stack.server is not None \
                and stack.server.popen.poll() is not None:
            result.notes.append(f"server exited: {stack.server.tail(5)}")
    except Exception as exc:  # one failed run must not lose the others
        result = RunResult(target=label, mode=mode, encounters=e, workload=workload,
                           map_side=side or None, framing=not args.no_framing)
        result.notes.append(f"run failed: {type(exc).__name__}: {exc}")
        if stack is not None:
            print(stack.logs(), file=sys.stderr)
    finally:
        if stack is not None:
            stack.stop()
            what = "" if workload == "end_turn" else f"-{workload}-{side}"
            _keep_log(stack, RESULTS / f"{stamp}-{label}-{mode}-E{e}{what}.log")
            stack.cleanup()
    if result.throttled and target == "stablemaster":
        result.notes.append(
            f"{result.throttled} actions waited for the server's per-connection rate limit "
            "(20 commands/s, burst 60): this figure is bounded by that limit, not by the server")
    return result


async def run_all(args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in ("human", "saturation"):
            raise SystemExit(f"unknown mode {m!r}")
    base = QUICK if args.quick else FULL
    sizes = {m: list(base[m]) for m in modes}
    if args.sizes:
        sizes = {m: list(args.sizes) for m in modes}
    if args.human_sizes and "human" in sizes:
        sizes["human"] = args.human_sizes
    if args.saturation_sizes and "saturation" in sizes:
        sizes["saturation"] = args.saturation_sizes
    durations = {"human": 3.0 if args.quick else 30.0, "saturation": 3.0 if args.quick else 15.0}
    warmups = {"human": 1.0 if args.quick else 4.0, "saturation": 1.0 if args.quick else 3.0}
    if args.duration:
        durations = dict.fromkeys(durations, args.duration)
    if args.warmup is not None:
        warmups = dict.fromkeys(warmups, args.warmup)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    if args.skip_floors:
        targets = [t for t in targets if t == "stablemaster"]
    for t in targets:
        if t not in TARGETS:
            raise SystemExit(f"unknown target {t!r}")
    durabilities = [d.strip() for d in args.durability.split(",") if d.strip()]
    for d in durabilities:
        if d not in ("everysec", "always", "replicas"):
            raise SystemExit(f"unknown durability {d!r}")
    if args.mypyc and args.server_url:
        raise SystemExit("--mypyc starts a server of its own: it does not go with --server-url")
    if "stablemaster" in targets and args.server_url and args.view:
        targets[targets.index("stablemaster")] = "stablemaster+view"  # (its clients ask for it)
    if "stablemaster" in targets and not args.server_url:
        at = targets.index("stablemaster")
        targets[at:at + 1] = ["stablemaster" if d == "everysec" else f"stablemaster+{d}"
                              for d in durabilities]
        if args.mypyc:
            targets.insert(at + 1, "stablemaster+mypyc")
        if args.view:
            targets.insert(at + 1, "stablemaster+view")
    args.compiled_root = None
    if "stablemaster+mypyc" in targets:
        args.compiled_root = Path(tempfile.mkdtemp(prefix="bench-mypyc-")) / "tree"
        print(f"compiling {len(compiled.MODULES)} modules with mypyc in {args.compiled_root} ...",
              file=sys.stderr, flush=True)
        try:
            compiled.build(args.compiled_root)
        except compiled.BuildFailed as exc:
            raise SystemExit(str(exc)) from None
        args.env["mypyc"] = {"version": compiled.mypyc_version(),
                             "modules": list(compiled.MODULES)}
    server_core = None if args.no_pin else 0
    data: dict[str, Any] = {
        "started": stamp,
        "config": {
            "modes": modes, "sizes": sizes, "targets": targets, "period": args.period,
            "human_duration": durations["human"], "human_warmup": warmups["human"],
            "saturation_duration": durations["saturation"],
            "saturation_warmup": warmups["saturation"], "server_url": args.server_url,
            "server_args": args.server_arg, "connect_concurrency": args.connect_concurrency,
            "quick": args.quick, "durability": durabilities,
        },
        "environment": args.env,
        "results": [],
    }
    external_pid = args.server_pid
    if args.server_url and external_pid is None:
        from urllib.parse import urlsplit

        parts = urlsplit(args.server_url)
        if parts.hostname in ("127.0.0.1", "localhost", "::1") and parts.port:
            external_pid = procs.pid_listening_on(parts.port)
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    for w in workloads:
        if w not in PLANS:
            raise SystemExit(f"unknown workload {w!r}")
    map_sat = args.map_saturation_sizes or ([10] if args.quick else [100])
    map_human = args.map_human_sizes or ([20] if args.quick else [500])
    # (mode, E, targets, workload, map side)
    plan: list[tuple[str, int, list[str], str, int]] = []
    if "end_turn" in workloads:
        plan += [(mode, e, targets, "end_turn", 0) for mode in modes for e in sizes[mode]]
    sm = [t for t in targets if t.startswith("stablemaster")]
    for side in args.map_sides:
        for w in (w for w in workloads if w != "end_turn"):
            if "saturation" in modes:
                plan += [("saturation", e, sm, w, side) for e in map_sat]
            if "human" in modes and w == "mix" and side in args.map_human_sides:
                plan += [("human", e, sm, w, side) for e in map_human]
    data["config"].update(workloads=workloads, map_sides=args.map_sides,
                          map_saturation_sizes=map_sat, map_human_sizes=map_human,
                          map_human_sides=args.map_human_sides, framing=not args.no_framing,
                          features=[] if args.no_framing else args.features)
    begun = time.monotonic()
    for mode, e, run_targets, workload, side in plan:
        for target in run_targets:
            what = "" if workload == "end_turn" else f" {workload}@{side}"
            label = f"{mode:<10} E={e:<5} {target:<13}{what}"
            for attempt in range(args.retries + 1):
                waited = await procs.wait_quiet(args.quiet_limit, args.quiet_wait)
                print(f"[{time.monotonic() - begun:6.0f} s] {label} ..."
                      + (f" (waited {waited:g} s for other work to finish)" if waited > 1
                         else ""), file=sys.stderr, flush=True)
                result = await run_one(args, stamp, mode, e, target, server_core,
                                       external_pid, warmups[mode], durations[mode],
                                       workload, side)
                if waited > 1:
                    result.notes.append(f"waited {waited:g} s for the machine to be quiet")
                noisy = (result.other_cpu_pct or 0) > args.noise_limit
                if noisy:
                    result.notes.append(
                        f"other processes used {result.other_cpu_pct}% of a core during the "
                        "window" + ("; run again" if attempt < args.retries else ""))
                lat = result.latency_ms
                print(f"           {label} {result.actions_per_s:>8} actions/s  "
                      f"p50 {lat.get('p50')} p99 {lat.get('p99')} max {lat.get('max')} ms  "
                      f"server CPU {result.server_cpu_pct}% "
                      f"({result.server_cpu_ms_per_action} ms/action)  gen CPU "
                      f"{result.generator_cpu_pct}%  other CPU {result.other_cpu_pct}%  "
                      f"frames/action {result.frames_per_action}  "
                      f"bytes/action {result.bytes_per_action}  "
                      f"KiB/conn {result.mem_per_conn_kib}  errors {result.errors}"
                      + (f"  notes {result.notes}" if result.notes else ""),
                      file=sys.stderr, flush=True)
                if not noisy or time.monotonic() - begun > 60 * args.retry_until:
                    break
            data["results"].append(asdict(result))
            await asyncio.sleep(0.5)
    data["elapsed_s"] = round(time.monotonic() - begun, 1)
    if args.compiled_root is not None:
        shutil.rmtree(args.compiled_root.parent, ignore_errors=True)
    return data


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    procs.raise_nofile()
    gen_core = None
    server_core = None if args.no_pin else 0
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) >= 2 and 0 in cores:
            gen_core = 1 if 1 in cores else cores[-1]
            os.sched_setaffinity(0, {gen_core})
        else:
            server_core = None
    loop_name = "asyncio"
    if not args.no_uvloop:
        try:
            import uvloop

            loop_name = f"uvloop {uvloop.__version__}"
        except ImportError:
            uvloop = None  # type: ignore[assignment]
    args.env = environment(server_core, gen_core, loop_name, args.server_loop)
    if server_core is None:
        args.no_pin = True
    stamp = time.strftime("%Y%m%d-%H%M%S")
    RESULTS.mkdir(parents=True, exist_ok=True)
    if loop_name.startswith("uvloop"):
        data = uvloop.run(run_all(args, stamp))
    else:
        data = asyncio.run(run_all(args, stamp))
    out = args.out or RESULTS / f"{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n")
    md = report.markdown(data)
    (RESULTS / "latest.md").write_text(md)
    print(md)
    print(f"raw figures: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
