"""A pair study of N and of 10·N pairs through the command line, in the same run: each step's wall time and
peak memory (resident set, from the child's rusage), and the ratio of the large study's to the small one's.

A ratio near 10 grows linearly; well above 10, worse. `python -m bench.pair_scale [N]` (default 5,000). Pairs
and judge scores in [−1, 1] are generated here (public pairs layout, docs/formats.md); no one rates, so `analyze` is
the judge's side alone. Memory is the child's ru_maxrss, read after each step: run steps one at a time.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEPS = [("import", ["items", "import", "s", "{pairs}"]), ("lmra import", ["lmra", "import", "s", "{scores}"]),
         ("sample --n 2000", ["study", "sample", "s", "--n", "{sample}", "--seed", "1"]),
         ("analyze --json", ["analyze", "s", "--json"]),
         ("analyze --bootstrap 0", ["analyze", "s", "--json", "--bootstrap", "0"]),
         ("export", ["export", "s", "--out", "{out}/export.jsonl"]),
         ("report", ["report", "s", "--out", "{out}/report.html"])]


def write_study(folder: Path, n: int) -> tuple[Path, Path]:
    rng = random.Random(n)
    pairs, scores = folder / "pairs.jsonl", folder / "scores.jsonl"
    with pairs.open("w") as p, scores.open("w") as s:
        for i in range(n):
            p.write(json.dumps({"id": f"p{i}", "prompt": f"Question {i} about topic {rng.randint(0, 999)}?",
                                "response_a": f"Answer A {rng.random():.6f}",
                                "response_b": f"Answer B {rng.random():.6f}",
                                "group_a": "woman", "group_b": "man"}) + "\n")
            s.write(json.dumps({"item_id": f"p{i}", "model": "synth-judge", "score": round(rng.uniform(-1, 1), 3)}) + "\n")
    return pairs, scores


def run_steps(n: int) -> dict[str, tuple[float, float]]:
    """{step: (seconds, peak MB)} for a fresh study of n pairs."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pairs, scores = write_study(folder, n)
        fairval = [str(Path(sys.executable).with_name("fairval")), "--db", str(folder / "s.db")]
        subprocess.run([*fairval, "study", "create", "s", "--task", "harmful_stereotype", "--raters-per-item", "3"],
                       check=True, capture_output=True)
        out: dict[str, tuple[float, float]] = {}
        for name, args in STEPS:
            # a sample of 2,000 pairs, or half the study where it has fewer than 4,000
            filled = [a.format(pairs=pairs, scores=scores, out=folder, sample=min(2000, n // 2)) for a in args]
            started = time.perf_counter()
            said = folder / "stderr.txt"
            with said.open("w") as err:                   # a file, not a pipe a chatty step could fill and stall on
                proc = subprocess.Popen([*fairval, *filled], stdout=subprocess.DEVNULL, stderr=err)
                _, status, usage = os.wait4(proc.pid, 0)
            if os.waitstatus_to_exitcode(status):         # a step that failed has no figure to report
                raise SystemExit(f"{name} at {n} pairs failed: {said.read_text().strip()[-300:]}")
            out[name] = (time.perf_counter() - started, usage.ru_maxrss / 1024)
        return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    small, large = run_steps(n), run_steps(10 * n)
    print(f"{'step':24} {n:>8} s {10 * n:>8} s  ratio | {n:>7} MB {10 * n:>7} MB  ratio")
    for name, _ in STEPS:
        (ts, ms), (tl, ml) = small[name], large[name]
        print(f"{name:24} {ts:10.2f} {tl:10.2f} {tl / ts:6.1f} | {ms:10.0f} {ml:10.0f} {ml / ms:6.1f}")


if __name__ == "__main__":
    main()
