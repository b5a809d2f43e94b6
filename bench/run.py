"""Benchmarks, reported as ratios of runs side by side on this machine (absolute times are noise here).

1. Serving cost against study size: seconds per serve+record with 5,000 items over 200 items.
   Near 1 means serving does not slow down as studies grow; the O(items) ledger read makes it grow.
2. Several processes sharing one SQLite file: throughput of 4 worker processes over 1, with the
   check that every slot was filled exactly once (no lost or doubled rating under contention).
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotate import session  # noqa: E402
from annotate.importers import import_items  # noqa: E402
from annotate.studies import create_study, load_study  # noqa: E402
from store import open_db  # noqa: E402

ANSWER = {"quality": "4", "yes_positive": "5"}


def make_study(folder: Path, n_items: int, raters_per_item: int) -> Path:
    path = folder / f"bench-{n_items}-{raters_per_item}-{time.monotonic_ns()}.db"
    db = open_db(path)
    create_study(db, "b", "template_quality", raters_per_item=raters_per_item, seed=1)
    items = folder / f"items-{n_items}.jsonl"
    items.write_text("".join(json.dumps({"id": f"i{k}", "filled_template": f"Question {k}?"}) + "\n"
                             for k in range(n_items)))
    import_items(db, "b", items)
    db.close()
    return path


def rate(db_path: str, rater: str, limit: int | None = None) -> int:
    db = open_db(db_path)
    study = load_study(db, "b")
    session.arrive(db, "b", rater, source="link")
    session.give_consent(db, "b", rater, True)
    session.finish_instructions(db, "b", rater)
    done = 0
    while (limit is None or done < limit) and (served := session.serve_next_item(db, study, rater)):
        session.record_answer(db, study, rater, served.item_id, ANSWER)
        done += 1
    db.close()
    return done


def per_judgment(db_path: Path, judgments: int) -> float:
    start = time.perf_counter()
    n = rate(str(db_path), "solo", judgments)
    return (time.perf_counter() - start) / n


def throughput(db_path: Path, workers: int, raters: int) -> tuple[float, int]:
    start = time.perf_counter()
    with Pool(workers) as pool:
        counts = pool.starmap(rate, [(str(db_path), f"r{k}") for k in range(raters)])
    return sum(counts) / (time.perf_counter() - start), sum(counts)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small, large = per_judgment(make_study(folder, 200, 1), 200), per_judgment(make_study(folder, 5000, 1), 200)
        print(f"serve+record, 5000 items / 200 items: {large / small:.2f}x "
              f"({small * 1000:.1f} ms vs {large * 1000:.1f} ms per judgment)")
        n_items, per_item, raters = 150, 4, 8
        one, n1 = throughput(make_study(folder, n_items, per_item), 1, raters)
        four, n4 = throughput(make_study(folder, n_items, per_item), 4, raters)
        expected = n_items * per_item
        print(f"4 processes / 1 process throughput: {four / one:.2f}x "
              f"(judgments stored: {n1} and {n4}, expected {expected} each)")
        if n1 != expected or n4 != expected:
            raise SystemExit("lost or doubled judgments under contention")


if __name__ == "__main__":
    main()
