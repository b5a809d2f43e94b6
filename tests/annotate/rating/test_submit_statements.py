"""A Submit's round trips to the database (issue 58): each statement is one round trip to PostgreSQL and a
share of a worker's CPU, so the Submit of a study without a stopping rule opens no savepoint for the rule,
reads the rater's row once, serves the next item without a savepoint of its own, and does not lock again the
study its transaction locked as it began. The study's row is never read whole while it is unchanged: its
status and its version (one short row each). What it stores is unchanged: the answer kept once, the next item
held."""
import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.annotate.rating import session
from fairval.annotate.rating.submit import submit
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

ANSWER = {"quality": "4", "yes_positive": "5"}


def statements_of(db, call):
    """The statements the handle sends while `call` runs (each one a round trip on PostgreSQL)."""
    sent: list[str] = []
    execute = db.execute

    def counted(sql, params=()):
        sent.append(" ".join(sql.split()))
        return execute(sql, params)
    db.execute = counted
    try:
        result = call()
    finally:
        del db.execute
    return result, sent


def test_a_submit_without_a_rule_sends_no_savepoint_nor_second_lock_or_rater_read(db, tmp_path):
    study = create_study(db, "tq", "template_quality", raters_per_item=2, seed=3)
    import_items(db, "tq", write_jsonl(tmp_path / "tq.jsonl", [{"id": f"t{i}", "filled_template": f"Question {i}?"}
                                                                 for i in range(4)]))
    session.arrive(db, "tq", "r1", source="link")
    session.give_consent(db, "tq", "r1", True)
    session.finish_instructions(db, "tq", "r1")
    first = session.serve_next_item(db, study, "r1", now=1000.0)
    done, sent = statements_of(db, lambda: submit(db, study, "r1", first.item_id, ANSWER, now=1010.0))
    assert done.new and done.stopped is None and not done.check
    # savepoints: record_answer's and its ratings'; none for a rule the study does not have, nor for the next item
    # (served inside the Submit's transaction, the study's row read once for its status and settings)
    assert sum(s.startswith("SAVEPOINT") for s in sent) == 2, sent
    # the study's row is not read whole: its status under the lock (a closed study takes no answer), and its
    # version for the study parsed before (the store draws a new one with every change to the row)
    assert not any(s.startswith("SELECT * FROM studies") for s in sent), sent
    assert sum(s == "SELECT status FROM studies WHERE study_id = ?" for s in sent) == 1, sent
    assert sum(s == "SELECT version FROM studies WHERE study_id = ?" for s in sent) == 1, sent
    # the rater's row, read once in the whole Submit (its language, while the answer is recorded); a study that
    # balances no groups does not read it again to serve the next item
    assert sum(s == "SELECT * FROM raters WHERE study_id = ? AND rater_id = ?" for s in sent) == 1, sent
    # the next item's seeks (an item others started, one nobody holds, an attention check): one statement
    assert sum("FROM item_loads l WHERE" in s for s in sent) == 1, sent
    # PostgreSQL: the study's row locked once, as the transaction begins (its savepoints hold that lock)
    assert sum("FOR UPDATE" in s for s in sent) == (1 if db.dialect == "postgresql" else 0), sent
    # what it stored: the answer once, and the next item held for the rater (another item)
    stored = db.query("SELECT item_id, question, value FROM ratings WHERE rater_id = 'r1' ORDER BY question")
    assert [(r["item_id"], r["question"], r["value"]) for r in stored] == [
        (first.item_id, "quality", "4"), (first.item_id, "yes_positive", "5")]
    held = session.serve_next_item(db, study, "r1", now=1011.0)
    assert held is not None and held.item_id != first.item_id
    again, _ = statements_of(db, lambda: submit(db, study, "r1", first.item_id, ANSWER, now=1012.0))
    assert not again.new
    assert db.scalar("SELECT COUNT(*) FROM ratings WHERE rater_id = 'r1'") == 2
