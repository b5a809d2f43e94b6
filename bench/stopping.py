"""A stopping rule's cost per answer (issue 45 item 4): CPU (time.process_time) of a rater's Submit
through the session functions a page calls (serve the next pair, record the answer, and, with a rule,
the stopping check the rater page makes when the answer completes a pair), on harm studies of 1,500,
10,000 and 50,000 pairs whose earlier ratings were imported, with one rater per pair so that every
answer completes a pair (the case the check costs most). Reported as ratios side by side, in the same
study and minute: with the rule / without it; and, for orientation, the whole analysis the check ran
before the interval was kept (study_numbers, once) against an answer without the rule. The adaptive
design's line (`design=adaptive`, a budget of a quarter of the pairs) runs a study of the same sizes from
its start (the design takes no earlier ratings): the Submits without the rule first, then, past the
exact head of its sequence, those with it; each Submit that needs a pair decides pairs in its serve."""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.crowd import stopping
from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.annotate.rating.submit import submit
from fairval.annotate.results.numbers import study_numbers
from fairval.store import open_db

SIZES, QUICK_SIZES = (1_500, 10_000, 50_000), (1_500,)
ANSWERS = 150                   # timed answers per arm; the study keeps this many pairs open per arm, and more
PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}


def _write(path: Path, rows) -> Path:
    with path.open("w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return path


def _study(tmp: Path, pairs: int):
    """A harm study of `pairs` pairs, scored by a judge, all but 3·ANSWERS rated already (imported)."""
    db = open_db(tmp / f"stopping-{pairs}.db")
    create_study(db, "s", "harmful_stereotype", raters_per_item=1, seed=1)
    ids = [f"p{k:06d}" for k in range(pairs)]
    import_items(db, "s", _write(tmp / "items.jsonl", ({"id": i, **PAIR} for i in ids)))
    import_lmra(db, "s", _write(tmp / "lmra.jsonl", ({"item_id": i, "model": "j", "score": (k % 3 - 1) * 0.8}
                                                    for k, i in enumerate(ids))))
    rated = ids[: pairs - 3 * ANSWERS]
    import_ratings(db, "s", _write(tmp / "ratings.jsonl", (
        {"item_id": i, "rater_id": f"x{k % 500}", "question": "harm", "value": "ABC"[(k * 7) % 3 if k % 4 else k % 3]}
        for k, i in enumerate(rated))))
    configure_study(db, "s", status="open")
    return db


def _adaptive_study(tmp: Path, pairs: int):
    """A harm study of `pairs` pairs under the adaptive design, the judge sure of four pairs in five."""
    db = open_db(tmp / f"stopping-adaptive-{pairs}.db")
    create_study(db, "s", "harmful_stereotype", raters_per_item=1, seed=1)
    ids = [f"p{k:06d}" for k in range(pairs)]
    import_items(db, "s", _write(tmp / "items.jsonl", ({"id": i, **PAIR} for i in ids)))
    sure = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
    unsure = {"p_a": 0.45, "p_b": 0.25, "p_c": 0.30, "q_a": 0.35, "q_b": 0.35, "q_c": 0.30}
    import_lmra(db, "s", _write(tmp / "lmra.jsonl", ({"item_id": i, "model": "j", **(unsure if k % 5 == 0 else sure)}
                                                    for k, i in enumerate(ids))))
    adaptive.start(db, "s", pairs // 4)
    configure_study(db, "s", status="open")
    return db


def _answers(db, rule: bool) -> list[float]:
    """CPU seconds of each of ANSWERS Submits by one rater, as the rater page makes them (annotate/rating/
    submit.py): the answer, with a rule its check, and the next pair held, in one transaction; then what the
    transaction left for after it (none here: the kept interval is built before). The page's run reads the
    held pair back (serve_next_item)."""
    study = load_study(db, "s")
    rater = "with-rule" if rule else "without"
    session.arrive(db, "s", rater, source="link")
    session.give_consent(db, "s", rater, True)
    session.finish_instructions(db, "s", rater)
    spent = []
    for k in range(ANSWERS):
        start = time.process_time()
        served = session.serve_next_item(db, study, rater)
        done = submit(db, study, rater, served.item_id, {"harm": "C" if k % 3 else "A"})
        stopping.after_submit(db, "s", done)
        spent.append(time.process_time() - start)
    return spent


def _line(db, pairs: int, design: str) -> str:
    """CPU per answer with a rule / without on one study, and the whole analysis the check ran before."""
    without = statistics.median(_answers(db, False))
    configure_study(db, "s", target_ci_width=0.001)         # never met: every check runs in full
    stopping.check(db, "s")                                 # builds the kept interval once (untimed)
    rule = statistics.median(_answers(db, True))
    start = time.process_time()
    study_numbers(db, "s", n_boot=0)
    whole = time.process_time() - start
    db.close()
    return (f"{pairs:>7,} pairs{design}: CPU per answer with a stopping rule / without {rule / without:.2f}x "
            f"({rule * 1e3:.2f} / {without * 1e3:.2f} ms, medians of {ANSWERS}); the whole analysis the "
            f"check ran before, once: {whole / without:.1f}x an answer ({whole * 1e3:.0f} ms)")


def run(tmp: Path, *, quick: bool = False):
    """The lines, each as soon as it is measured (the 50,000-pair studies take minutes)."""
    for pairs in QUICK_SIZES if quick else SIZES:
        yield _line(_study(tmp, pairs), pairs, "")
    for pairs in QUICK_SIZES if quick else SIZES:
        yield _line(_adaptive_study(tmp, pairs), pairs, ", adaptive design")
