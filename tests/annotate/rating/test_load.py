"""Many raters at once from several processes (as several servers would be) on one database, SQLite or
PostgreSQL: every answer a rater saw acknowledged is stored exactly once, no item gets more raters than
its target or a group more than its quota, and every item fills."""
import multiprocessing

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.load_worker import rater_process  # a module of its own: the spawned processes import it

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

def test_raters_in_four_processes_store_every_acknowledged_answer_once(db_path, tmp_path):
    n_items, target = 30, 4
    db = open_db(db_path)
    create_study(db, "load", "template_quality", raters_per_item=target, balance_by="gender",
                 balance_groups=["female", "male"])
    import_items(db, "load", write_jsonl(tmp_path / "items.jsonl",
                                         [{"id": f"q{k}", "filled_template": f"Q{k}?"} for k in range(n_items)]))
    raters = [(f"p{p}-r{r}", ("female", "male")[r % 2]) for p in range(4) for r in range(4)]
    context = multiprocessing.get_context("spawn")      # no pool or connection crosses a fork
    with context.Pool(4) as pool:
        results = pool.starmap(rater_process, [(str(db_path), raters[p::4]) for p in range(4)])
    acknowledged = [pair for part in results for pair in part]

    stored = db.execute("SELECT rater_id, item_id, COUNT(*) FROM ratings GROUP BY rater_id, item_id").fetchall()
    assert sorted((r, i) for r, i, _n in stored) == sorted(acknowledged)       # none lost, none extra
    assert {n for _r, _i, n in stored} == {2}                                 # both questions, once each
    per_item = db.execute("""SELECT t.item_id, r.gender, COUNT(DISTINCT t.rater_id) FROM ratings t
                             JOIN raters r ON r.study_id = t.study_id AND r.rater_id = t.rater_id
                             GROUP BY t.item_id, r.gender""").fetchall()
    assert {(i, g): n for i, g, n in per_item} == {(f"q{k}", g): target // 2
                                                   for k in range(n_items) for g in ("female", "male")}
    db.close()
