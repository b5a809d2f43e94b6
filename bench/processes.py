"""Several processes sharing one SQLite file: throughput of 4 worker processes over 1, with the check
that every slot was filled exactly once (no lost or doubled rating under contention)."""
from __future__ import annotations

import time
from multiprocessing import Pool
from pathlib import Path

from bench.synth import make_study
from fairval.annotate.material.studies import load_study
from fairval.annotate.rating import session
from fairval.store import open_db

ANSWER = {"quality": "4", "yes_positive": "5"}


def rate(db_path: str, rater: str) -> int:
    db = open_db(db_path)
    study = load_study(db, "big")
    session.arrive(db, "big", rater, source="link")
    session.give_consent(db, "big", rater, True)
    session.finish_instructions(db, "big", rater)
    done = 0
    while served := session.serve_next_item(db, study, rater):
        session.record_answer(db, study, rater, served.item_id, ANSWER)
        done += 1
    db.close()
    return done


def throughput(db_path: Path, workers: int, raters: int) -> tuple[float, int]:
    start = time.perf_counter()
    with Pool(workers) as pool:
        counts = pool.starmap(rate, [(str(db_path), f"r{k}") for k in range(raters)])
    return sum(counts) / (time.perf_counter() - start), sum(counts)


def run(folder: Path, quick: bool = False) -> list[str]:
    n_items, per_item, raters = (40, 3, 6) if quick else (150, 4, 8)
    expected = n_items * per_item
    one, n1 = throughput(make_study(folder / "p1.db", n_items, 0, raters_per_item=per_item), 1, raters)
    four, n4 = throughput(make_study(folder / "p4.db", n_items, 0, raters_per_item=per_item), 4, raters)
    if n1 != expected or n4 != expected:
        raise SystemExit(f"lost or doubled judgments under contention: {n1} and {n4}, expected {expected}")
    return [f"4 processes / 1 process throughput on one SQLite file: {four / one:.2f}x "
            f"(judgments stored: {n1} and {n4}, expected {expected} each)"]
