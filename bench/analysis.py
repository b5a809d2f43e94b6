"""`analyze --json` on 1M ratings over 10k items with 1,000 bootstrap draws, against the floor it cannot
beat: loading the same ratings and calling the krippendorff package once per question on the
raters × items matrix (no interval, no other number). Both run here, in this process, side by side.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import krippendorff
import pandas as pd

from bench.synth import QUESTIONS, make_study
from fairval.annotate.results.numbers import study_numbers
from fairval.store import open_db


def bare_krippendorff(path: Path) -> None:
    """Load (item, rater, question, value) with one query, pivot per question, krippendorff.alpha."""
    db = open_db(path)
    rows = db.execute("SELECT item_id, rater_id, question, value FROM ratings WHERE study_id = 'big'").fetchall()
    frame = pd.DataFrame.from_records(rows, columns=["item", "rater", "question", "value"])
    frame["value"] = frame["value"].astype(float)
    for question in QUESTIONS:
        matrix = frame[frame["question"] == question].pivot(index="rater", columns="item", values="value")
        krippendorff.alpha(reliability_data=matrix.to_numpy(), level_of_measurement="ordinal",
                           value_domain=[1, 2, 3, 4, 5])
    db.close()


def fairval_analyze(path: Path, n_boot: int) -> None:
    db = open_db(path)
    json.dumps(study_numbers(db, "big", n_boot=n_boot).to_dict())
    db.close()


def timed(fn, *args, repeat: int = 3) -> float:
    best = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best.append(time.perf_counter() - start)
    return sorted(best)[len(best) // 2]          # the median of the repeats


def run(folder: Path, quick: bool = False) -> list[str]:
    n_items, n_ratings, n_boot = (1_000, 50_000, 200) if quick else (10_000, 1_000_000, 1_000)
    path = make_study(folder / "analysis.db", n_items, n_ratings, per_rater=100, raters_per_item=10**6)
    repeat = 1 if quick else 3
    floor = timed(bare_krippendorff, path, repeat=repeat)
    ours = timed(fairval_analyze, path, n_boot, repeat=repeat)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(path), "analyze",
                    "big", "--json", "--bootstrap", str(n_boot)], check=True, capture_output=True)
    command = time.perf_counter() - start
    return [f"analyze {n_ratings:,} ratings over {n_items:,} items, {n_boot:,} draws: {ours:.2f} s, "
            f"{ours / floor:.2f}x the bare load + krippendorff ({floor:.2f} s); "
            f"the whole `fairval analyze --json` command {command:.2f} s"]
