"""`fairval backup DEST` while raters answer: the copy passes SQLite's integrity check and holds every answer
acknowledged before the backup began; PostgreSQL is pointed to pg_dump in one sentence."""
import sqlite3
import threading

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from fairval.store import open_db
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl

ANSWER = {"quality": "4", "yes_positive": "5"}


def test_a_backup_under_answers_loses_nothing_acknowledged(tmp_path):
    path = tmp_path / "live.db"
    db = open_db(path)
    create_study(db, "tq", "template_quality", raters_per_item=1)
    import_items(db, "tq", write_jsonl(tmp_path / "items.jsonl", [
        {"id": f"q{k}", "filled_template": f"Question {k}? " + "text " * 400} for k in range(3000)]))
    db.close()
    acknowledged, stop, errors = [], threading.Event(), []

    def rater(k: int) -> None:
        mine = open_db(path)
        study = load_study(mine, "tq")
        try:
            session.arrive(mine, "tq", f"r{k}", source="link")
            session.give_consent(mine, "tq", f"r{k}", True)
            session.finish_instructions(mine, "tq", f"r{k}")
            while not stop.is_set():
                served = session.serve_next_item(mine, study, f"r{k}")
                if served is None:
                    return
                session.record_answer(mine, study, f"r{k}", served.item_id, ANSWER)
                acknowledged.append(served.item_id)
        except Exception as e:
            errors.append(e)
        finally:
            mine.close()

    threads = [threading.Thread(target=rater, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    while len(acknowledged) < 30:
        pass
    before = set(acknowledged)
    result = CliRunner().invoke(cli, ["--db", str(path), "backup", str(tmp_path / "copy.db")])
    stop.set()
    for t in threads:
        t.join()
    assert result.exit_code == 0, result.output
    assert errors == [] and "integrity checked" in result.output
    copy = sqlite3.connect(tmp_path / "copy.db")
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    held = {r[0] for r in copy.execute("SELECT DISTINCT item_id FROM ratings")}
    copy.close()
    assert before <= held                                          # every answer acknowledged before
    live = open_db(path)
    assert rating_store.rating_count(live, "tq") >= len(held) * 2
    live.close()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_postgresql_is_pointed_to_pg_dump_and_the_database_itself_is_refused(db, tmp_path):
    from fairval.errors import StoreError
    from fairval.store.backup import backup

    if db.dialect == "postgresql":
        with pytest.raises(StoreError, match="pg_dump"):
            backup(db, tmp_path / "x.db")
    else:
        with pytest.raises(StoreError, match="is the database itself"):
            backup(db, db.path)
