"""Big synthetic studies, written in bulk through the store (not through the app), in seconds.

A template-quality study: `n_items` filled questions in discrim-eval's layout (templates of equal
size), and `n_ratings` rating rows (two questions per judgment) from raters who each judged `per_rater` items, answers
drawn around a per-item true score so alpha is neither 0 nor 1. Some raters hold open slots.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from fairval.annotate.material.studies import create_study, load_study
from fairval.store import immediate, loads, open_db
from fairval.store import items as item_store

QUESTIONS = ("quality", "yes_positive")


def make_study(path: Path, n_items: int, n_ratings: int, *, per_rater: int = 100, open_slots: int = 500,
               raters_per_item: int | None = None, balanced: bool = False, seed: int = 0) -> Path:
    """Write the study 'big' into a new SQLite file at `path`; returns the path."""
    rng = np.random.default_rng(seed)
    judgments = n_ratings // len(QUESTIONS)
    per_rater = min(per_rater, n_items)
    n_raters = -(-judgments // per_rater) if judgments else 0
    per_item = -(-judgments // n_items) if n_items else 0
    # leave room for the raters the benchmark adds, so items stay open to them
    target = raters_per_item or max(3, 2 * per_item + 10)
    db = open_db(path)
    balance = {"balance_by": "gender", "balance_groups": ["female", "male"]} if balanced else {}
    create_study(db, "big", "template_quality", raters_per_item=target, seed=seed, timeout_seconds=1800, **balance)
    now = time.time()
    # templates of equal size (at most 135 fills each, as discrim-eval's largest): with unequal ones the rule
    # against two fills of one template in a row binds and serving spreads each rater's share of them
    # (annotate/rating/fills.py), so a bench rater would be served a few items, not what it asks for
    templates = -(-n_items // 135)
    with immediate(db):
        item_store.insert_items(db, "big", [
            {"item_id": f"q{k}", "source_format": "jsonl", "source_line": None,
             "data": {"filled_template": f"Synthetic decision question {k}: should the request be approved?",
                      "decision_question_id": k % templates, "age": 20.0 + k % 9 * 10, "gender": "female",
                      "race": "Asian", "fill_type": "explicit"}} for k in range(n_items)])
        genders = np.where(np.arange(n_raters) % 2 == 0, "female", "male")
        db.insert("raters", [{"study_id": "big", "rater_id": f"w{r}", "source": "import", "consent": "given",
                              "gender": str(genders[r]), "instructions_done": 1, "started_at": now}
                             for r in range(n_raters)])
        truth = rng.integers(1, 6, size=(n_items, len(QUESTIONS)))
        done = 0
        for r in range(n_raters):
            k = min(per_rater, judgments - done)
            if k <= 0:
                break
            start = (r * per_rater) % n_items        # raters sweep the items, so each is judged evenly
            chosen = (start + np.arange(k)) % n_items
            noise = rng.integers(-1, 2, size=(k, len(QUESTIONS)))
            values = np.clip(truth[chosen] + noise, 1, 5)
            rater = f"w{r}"
            served = now - 3600 - rng.uniform(0, 3600, size=k)
            db.executemany("INSERT INTO assignments (study_id, rater_id, item_id, flipped, served_at, answered_at, "
                           "counted) VALUES ('big', ?, ?, 0, ?, ?, 0)",
                           [(rater, f"q{i}", float(s), float(s) + 20) for i, s in zip(chosen, served)])
            db.executemany("INSERT INTO ratings (study_id, item_id, rater_id, question, value, canonical, flipped, "
                           "shown_at, answered_at, seconds, source) VALUES ('big', ?, ?, ?, ?, ?, NULL, ?, ?, 20, 'app')",
                           [(f"q{i}", rater, q, str(v), str(v), float(s), float(s) + 20)
                            for i, s, row in zip(chosen, served, values) for q, v in zip(QUESTIONS, row)])
            done += k
        # raters who are on an item right now (open slots, not yet answered)
        for j in range(min(open_slots, n_raters)):
            item = f"q{(j * 7919) % n_items}"
            db.execute("INSERT INTO assignments (study_id, rater_id, item_id, flipped, served_at, counted) "
                       "VALUES ('big', ?, ?, 0, ?, 1) ON CONFLICT DO NOTHING", [f"w{j}", item, now - 60])
        settings = load_study(db, "big").settings
        loads.rebuild(db, "big", settings.load_rules(), now - settings.timeout_seconds)
    db.close()
    return path


if __name__ == "__main__":
    import sys
    t = time.perf_counter()
    make_study(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
    print(f"made in {time.perf_counter() - t:.1f} s")
