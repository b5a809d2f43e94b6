"""Benchmarks, each reported as ratios of runs side by side on this machine (absolute times are noise
on a shared machine). See bench/README.md for what each measures and what was measured where.

    .venv/bin/python bench/run.py [serving] [analysis] [files] [processes] [choice] [workers] [launch]
        [startup] [active] [pages] [session] [trust] [adaptive] [stopping] [rater_model] [through_serving] [issue53]
        [adaptive_cost] [adaptive_knobs] [load] [--quick]

    FAIRVAL_BENCH_BASE=../other-checkout .venv/bin/python bench/run.py load   # beside another checkout's fairval
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import (
    active,
    adaptive,
    adaptive_cost,
    adaptive_knobs,
    analysis,
    choice,
    files,
    issue53,
    launch,
    load,
    pages,
    processes,
    rater_model,
    serving,
    session,
    startup,
    stopping,
    through_serving,
    trust,
    workers,
)

SUITES = {"serving": serving.run, "analysis": analysis.run, "files": files.run, "processes": processes.run,
          "choice": choice.run, "workers": workers.run, "launch": launch.run,
          "startup": startup.run, "active": active.run, "pages": pages.run, "session": session.run, "trust": trust.run,
          "adaptive": adaptive.run, "stopping": stopping.run, "rater_model": rater_model.run,
          "through_serving": through_serving.run, "issue53": issue53.run,
          "adaptive_cost": adaptive_cost.run, "adaptive_knobs": adaptive_knobs.run, "load": load.run}


def main(argv: list[str]) -> list[str]:
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return []
    quick = "--quick" in argv
    chosen = [a for a in argv if not a.startswith("--")] or list(SUITES)
    unknown = set(chosen) - set(SUITES)
    if unknown:
        raise SystemExit(f"unknown benchmark(s) {', '.join(sorted(unknown))}; choose from {', '.join(SUITES)}")
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in chosen:
            start = time.perf_counter()
            for line in SUITES[name](Path(tmp), quick=quick):
                print(line, flush=True)
                lines.append(line)
            print(f"  ({name}: {time.perf_counter() - start:.0f} s)", flush=True)
    return lines


if __name__ == "__main__":
    main(sys.argv[1:])
