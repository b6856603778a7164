"""Run a server module with a log line for every garbage-collector pause over a threshold.

    python -m bench.gcwatch serve --port ...                 # python -m server serve --port ...
    python -m bench.gcwatch --module bench.floors --kind bare --port ...

A diagnostic for ``python -m bench --gc-log``: the server is unchanged; ``gc.callbacks`` time
each collection and the long ones go to stderr as
``gcwatch: t=<monotonic s> gen=2 ms=312.4 cpu_ms=310.9 collected=0`` (``ms`` on the wall
clock, ``cpu_ms`` the thread's CPU time: less when the process was preempted meanwhile).
"""

from __future__ import annotations

import gc
import os
import runpy
import sys
import time

THRESHOLD_MS = float(os.environ.get("BENCH_GC_THRESHOLD_MS", "2"))
_started = 0.0
_started_cpu = 0.0


def _callback(phase: str, info: dict[str, int]) -> None:
    global _started, _started_cpu
    if phase == "start":
        _started = time.perf_counter()
        _started_cpu = time.thread_time()
        return
    ms = (time.perf_counter() - _started) * 1000
    if ms >= THRESHOLD_MS:
        cpu_ms = (time.thread_time() - _started_cpu) * 1000
        sys.stderr.write(f"gcwatch: t={time.monotonic():.3f} gen={info['generation']} "
                         f"ms={ms:.1f} cpu_ms={cpu_ms:.1f} collected={info['collected']}\n")
        sys.stderr.flush()


def main() -> None:
    gc.callbacks.append(_callback)
    args = sys.argv[1:]
    module = "server"
    if args[:1] == ["--module"]:
        module, args = args[1], args[2:]
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
