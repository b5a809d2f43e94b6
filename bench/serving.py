"""Serving cost against study size: one judgment's work at 200, 10k and 100k items, with 0 and 1M ratings.

A judgment is what the rater's page asks of the store: serve the next item, count progress, record
the answer (the page's work), each timed for fresh raters arriving at a study others have rated.
Reported as p50/p95 in ms and as ratios to the 200-item study without ratings, measured in this run.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from bench.synth import make_study
from fairval.annotate.material.studies import load_study
from fairval.annotate.rating import rater_progress, session
from fairval.store import open_db

ANSWER = {"quality": "4", "yes_positive": "4"}
SIZES = [(200, 0), (10_000, 0), (100_000, 0), (200, 1_000_000), (10_000, 1_000_000), (100_000, 1_000_000)]
QUICK = [(200, 0), (2_000, 0), (2_000, 20_000)]


def judgments(path: Path, raters: int = 10, each: int = 20) -> dict[str, np.ndarray]:
    """Milliseconds per judgment: serve+record, and the page's work (serve, progress, record)."""
    db = open_db(path)
    study = load_study(db, "big")
    serve_record, page = [], []
    for r in range(raters):
        rater = f"bench-{r}"
        session.arrive(db, "big", rater, source="link")
        session.give_consent(db, "big", rater, True)
        session.finish_instructions(db, "big", rater)
        for _ in range(each):
            start = time.perf_counter()
            served = session.serve_next_item(db, study, rater)
            served_at = time.perf_counter()
            rater_progress.progress(db, study, rater)
            counted = time.perf_counter()
            session.record_answer(db, study, rater, served.item_id, ANSWER)
            done = time.perf_counter()
            serve_record.append((served_at - start) + (done - counted))
            page.append(done - start)
    db.close()
    return {"serve+record": np.array(serve_record) * 1000, "page": np.array(page) * 1000}


def run(folder: Path, quick: bool = False) -> list[str]:
    lines, base = [], None
    for n_items, n_ratings in (QUICK if quick else SIZES):
        made = time.perf_counter()
        path = make_study(folder / f"serve-{n_items}-{n_ratings}.db", n_items, n_ratings)
        made = time.perf_counter() - made
        ms = judgments(path, *((3, 5) if quick else (10, 20)))
        p50, p95 = np.percentile(ms["serve+record"], [50, 95])
        page95 = np.percentile(ms["page"], 95)
        base = base or (p50, p95)
        lines.append(f"serve+record {n_items:>7,} items {n_ratings:>9,} ratings: p50 {p50:5.2f} ms "
                     f"({p50 / base[0]:4.2f}x)  p95 {p95:5.2f} ms ({p95 / base[1]:4.2f}x)  "
                     f"page p95 {page95:5.2f} ms   [study made in {made:.1f} s]")
        path.unlink()
    return lines
