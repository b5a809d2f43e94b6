"""A Submit's round trips to the database (issue 58): each statement is one round trip to PostgreSQL and a
share of a worker's CPU, so the Submit of a study without a stopping rule opens no savepoint for the rule,
reads the rater's row once, serves the next item without a savepoint of its own, and does not lock again the
study its transaction locked as it began. The study's row is never read whole while it is unchanged: its
status and its version (one short row each). What it stores is unchanged: the answer kept once, the next item
held."""
import pytest

from fairval.annotate.material import studies
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import rater_progress, session
from fairval.annotate.rating.submit import submit
from fairval.errors import AnswerError, StudyClosed
from fairval.store import open_db
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

ANSWER = {"quality": "4", "yes_positive": "5"}


def statements_of(db, call):
    """The statements the handle sends while `call` runs (each one a round trip on PostgreSQL): an executemany
    counts once per row, as psycopg sends one statement per row."""
    sent: list[str] = []
    execute, executemany = db.execute, db.executemany

    def counted(sql, params=()):
        sent.append(" ".join(sql.split()))
        return execute(sql, params)

    def counted_many(sql, rows):
        rows = list(rows)
        sent.extend(" ".join(sql.split()) for _ in rows)
        return executemany(sql, rows)
    db.execute, db.executemany = counted, counted_many
    try:
        result = call()
    finally:
        del db.execute, db.executemany
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
    # no savepoint: none for the answer or its ratings (a refused answer ends the Submit's transaction, which
    # nothing goes on from), none for a rule the study does not have, nor for the next item (served inside the
    # Submit's transaction, the study's row read once for its status and settings)
    assert not any(s.startswith("SAVEPOINT") for s in sent), sent
    # the study's row is not read whole: its version, once, under the lock and before anything else (the store
    # draws a new one with every change to the row, its status too: a closed study takes no answer), and
    # nothing before the lock (issue 58)
    assert not any(s.startswith("SELECT * FROM studies") for s in sent), sent
    assert not any(s == "SELECT status FROM studies WHERE study_id = ?" for s in sent), sent
    assert sum(s == "SELECT version FROM studies WHERE study_id = ?" for s in sent) == 1, sent
    # the lock first (SQLite's file, PostgreSQL's row of the study; psycopg's BEGIN is not sent through the handle)
    assert sent[0] == ("SELECT 1 FROM studies WHERE study_id = ? FOR UPDATE" if db.dialect == "postgresql"
                       else "BEGIN IMMEDIATE"), sent
    assert sent[1] == "SELECT version FROM studies WHERE study_id = ?", sent
    # the rater's row, read once in the whole Submit (its language, while the answer is recorded); a study that
    # balances no groups does not read it again to serve the next item
    assert sum(s == "SELECT * FROM raters WHERE study_id = ? AND rater_id = ?" for s in sent) == 1, sent
    # the answered slot read once; the slot it holds next is written, not read back
    assert sum(s == "SELECT * FROM assignments WHERE study_id = ? AND rater_id = ? AND item_id = ?"
               for s in sent) == 1, sent
    # items of no template: the templates of what the rater was served are not read (issue 58)
    assert db.scalar("SELECT COUNT(*) FROM items WHERE study_id = 'tq' AND template IS NOT NULL") == 0
    assert not any(s.startswith("SELECT i.template FROM assignments") for s in sent), sent
    # the next item's seeks (an item others started, one nobody holds, an attention check): one statement
    assert sum("FROM item_loads l WHERE" in s for s in sent) == 1, sent
    # PostgreSQL: the study's row locked once, as the transaction begins (its savepoints hold that lock)
    assert sum("FOR UPDATE" in s for s in sent) == (1 if db.dialect == "postgresql" else 0), sent
    # the item loads' rules checked once: serving the next item in the same transaction, under the same lock and
    # the same settings, does not read them again (issue 58)
    assert sum(s == "SELECT loads_key FROM studies WHERE study_id = ?" for s in sent) == 1, sent
    # PostgreSQL: the answers to the two questions go in one statement, one round trip (SQLite: in-process)
    if db.dialect == "postgresql":
        assert sum(s.startswith("INSERT INTO ratings") for s in sent) == 1, sent
    # what it stored: the answer once, and the next item held for the rater (another item)
    stored = db.query("SELECT item_id, question, value FROM ratings WHERE rater_id = 'r1' ORDER BY question")
    assert [(r["item_id"], r["question"], r["value"]) for r in stored] == [
        (first.item_id, "quality", "4"), (first.item_id, "yes_positive", "5")]
    held = session.serve_next_item(db, study, "r1", now=1011.0)
    assert held is not None and held.item_id != first.item_id and held.served_at == 1010.0
    again, _ = statements_of(db, lambda: submit(db, study, "r1", first.item_id, ANSWER, now=1012.0))
    assert not again.new
    assert db.scalar("SELECT COUNT(*) FROM ratings WHERE rater_id = 'r1'") == 2
    # without savepoints a refused answer still leaves nothing half-written: an item never served to the rater is
    # refused after its answer was validated, the transaction ends whole, and the handle goes on
    other = next(f"t{i}" for i in range(4) if f"t{i}" not in (first.item_id, held.item_id))
    with pytest.raises(AnswerError, match="never served"):
        submit(db, study, "r1", other, ANSWER, now=1013.0)
    assert not db.in_transaction
    assert db.scalar("SELECT COUNT(*) FROM ratings WHERE rater_id = 'r1'") == 2
    assert submit(db, study, "r1", held.item_id, ANSWER, now=1014.0).new
    assert db.scalar("SELECT COUNT(*) FROM ratings WHERE rater_id = 'r1'") == 4


def test_the_progress_counts_the_item_just_served_without_reading_it_again(db, tmp_path):
    """The rater page shows the progress right after serving: given the item served, the progress neither
    seeks the rater's open slot nor reads its item again, and counts as it does when it reads them (a regular
    item and an attention check on screen)."""
    create_study(db, "tq", "template_quality", raters_per_item=1, seed=3, gold_rate=0.25)
    import_items(db, "tq", write_jsonl(tmp_path / "tq.jsonl", [
        *({"id": f"t{i}", "filled_template": f"Question {i}?"} for i in range(6)),
        *({"id": f"g{i}", "filled_template": "Attention: choose 1 and 1.", "_gold": {"quality": 1, "yes_positive": 1}}
          for i in range(2))]))
    study = load_study(db, "tq")
    session.arrive(db, "tq", "r1", source="link")
    session.give_consent(db, "tq", "r1", True)
    session.finish_instructions(db, "tq", "r1")
    seen_gold = seen_regular = False
    for k in range(8):
        shown = session.serve_next_item(db, study, "r1", now=1000.0 + k)
        if shown is None:
            break
        read = rater_progress.progress(db, study, "r1", now=1000.5 + k)      # its slot sought, its item read
        given, sent = statements_of(db, lambda at=1000.5 + k, shown=shown: rater_progress.progress(
            db, study, "r1", now=at, shown=shown))
        assert given == read, (k, shown.item_id)
        assert not any(s.startswith("SELECT * FROM items WHERE") for s in sent), sent
        assert not any("answered_at IS NULL AND served_at >=" in s for s in sent), sent
        seen_gold, seen_regular = seen_gold or shown.gold, seen_regular or not shown.gold
        submit(db, study, "r1", shown.item_id, {"quality": "5", "yes_positive": "5"}, now=1000.8 + k)
    assert seen_gold and seen_regular


def test_a_few_rows_go_in_one_insert_and_a_clash_is_kept_as_stored(db):
    """PostgreSQL: an insert of a few rows is one statement; `ignore` keeps a clashing row as it was stored and
    counts only the rows written, as row by row (SQLite and PostgreSQL alike)."""
    db.ddl("CREATE TABLE few (k TEXT PRIMARY KEY, v TEXT, k_1 TEXT)")
    db.insert("few", [{"k": "a", "v": "first", "k_1": None}])
    rows = [{"k": "a", "v": "second", "k_1": "x"}, {"k": "b", "v": "b", "k_1": "y"}, {"k": "c", "v": "c", "k_1": "z"}]
    written, sent = statements_of(db, lambda: db.insert("few", rows, ignore=True))
    assert written == 2
    assert sorted(tuple(r) for r in db.execute("SELECT k, v, k_1 FROM few")) == [
        ("a", "first", None), ("b", "b", "y"), ("c", "c", "z")]
    if db.dialect == "postgresql":
        assert len(sent) == 1, sent


def test_a_submit_gives_the_page_the_study_and_the_next_item_as_its_transaction_left_them(db, tmp_path):
    """The page drawn after a Submit in the same run reads neither the study's version nor the rater's next item
    again (issue 58): the Submit hands over the study as read under its lock, after any change made before it
    (another handle pauses the study: the Submit's own read says paused, and nothing new is held), and the slot
    it held, as serving would give it back."""
    study = create_study(db, "tq", "template_quality", raters_per_item=2, seed=3)
    import_items(db, "tq", write_jsonl(tmp_path / "tq.jsonl", [{"id": f"t{i}", "filled_template": f"Question {i}?"}
                                                                 for i in range(4)]))
    for step in (lambda: session.arrive(db, "tq", "r1", source="link"), lambda: session.give_consent(db, "tq", "r1", True),
                 lambda: session.finish_instructions(db, "tq", "r1")):
        step()
    first = session.serve_next_item(db, study, "r1", now=1000.0)
    done = submit(db, study, "r1", first.item_id, ANSWER, now=1010.0)
    assert done.study is not None and done.study.status == "open" and done.served is not None
    again = session.serve_next_item(db, study, "r1", now=1011.0)
    assert (done.served.item_id, done.served.served_at, done.served.flipped, done.served.data) == (
        again.item_id, again.served_at, again.flipped, again.data)
    other = open_db(db.path)                   # the researcher, elsewhere, pauses the study
    try:
        configure_study(other, "tq", status="paused")
    finally:
        other.close()
    paused = submit(db, study, "r1", again.item_id, ANSWER, now=1020.0)
    assert paused.new and paused.study is not None and paused.study.status == "paused" and paused.served is None
    assert session.next_step(db, paused.study, "r1", loaded_now=True) == "paused"


def in_another_worker(db_path, change) -> None:
    """A change made by another worker process: its own connection, and its own studies parsed."""
    kept, studies._PARSED = studies._PARSED, {}
    other = open_db(db_path)
    try:
        change(other)
    finally:
        other.close()
        studies._PARSED = kept


SAME_RUN = ("SELECT * FROM raters WHERE study_id = ? AND rater_id = ?",
            "SELECT EXISTS (SELECT 1 FROM items WHERE study_id = ? AND practice = 1)")


def _onboarded(db, tmp_path, rows=None, **settings):
    create_study(db, "tq", "template_quality", raters_per_item=2, seed=3, **settings)
    import_items(db, "tq", write_jsonl(tmp_path / "tq.jsonl", rows or [
        {"id": f"t{i}", "filled_template": f"Question {i}?"} for i in range(6)]))
    session.arrive(db, "tq", "r1", source="link")
    session.give_consent(db, "tq", "r1", True)
    session.finish_instructions(db, "tq", "r1")


def test_the_page_after_a_submit_reads_nothing_the_submit_read(db, tmp_path):
    """What the rater page does after a Submit, in the same run (issue 58): the study is read under the Submit's
    lock and not before it (the page hands over the study's name); the step is decided from the rater's row as
    the Submit read it, without asking whether the study has practice items (settled when the rater finished the
    instructions); the progress counts the rater's answers and the study's templates as serving counted them in
    that transaction, and does not ask whether the item loads follow the study's rules (the transaction brought
    them up to those rules). Each of these is one statement more on main's code."""
    _onboarded(db, tmp_path)
    first = session.serve_next_item(db, load_study(db, "tq"), "r1", now=1000.0)
    done, in_submit = statements_of(db, lambda: submit(db, "tq", "r1", first.item_id, ANSWER, now=1010.0))
    assert done.new and done.served is not None and done.rater is not None and done.rater["rater_id"] == "r1"
    assert sum(s == "SELECT version FROM studies WHERE study_id = ?" for s in in_submit) == 1, in_submit
    assert sum(s == SAME_RUN[0] for s in in_submit) == 1, in_submit          # the rater's row, once
    counted = ("SELECT COUNT(*) FILTER", "SELECT (SELECT MIN(template)")
    assert [sum(s.startswith(c) for s in in_submit) for c in counted] == [1, 1], in_submit

    def page():
        step = session.next_step(db, done.study, "r1", loaded_now=True, rater=done.rater)
        return step, rater_progress.progress(db, done.study, "r1", now=1010.5, shown=done.served)
    (step, shown), after = statements_of(db, page)
    assert step == "item", after
    assert not any(s in SAME_RUN for s in after), after
    assert not any(s.startswith(counted) for s in after), after
    assert "SELECT loads_key FROM studies WHERE study_id = ?" not in after, after     # brought up to date there
    # the same numbers as a page that reads everything again: 1 answered, of the 6 items nobody else holds (no cap)
    assert session.next_step(db, load_study(db, "tq"), "r1") == "item"
    assert shown == rater_progress.progress(db, load_study(db, "tq"), "r1", now=1010.5) == rater_progress.Progress(1, 6)
    # drawn with the study as changed since (other rules for the loads: 1 rater per item), nothing is taken over
    # from the Submit: the loads are brought up to the new rules and everything is counted afresh
    configure_study(db, "tq", raters_per_item=1, now=1010.2)
    changed = load_study(db, "tq")
    given, sent = statements_of(db, lambda: rater_progress.progress(db, changed, "r1", now=1010.5, shown=done.served))
    assert "SELECT loads_key FROM studies WHERE study_id = ?" in sent and any(s.startswith(counted) for s in sent)
    assert given == rater_progress.progress(db, changed, "r1", now=1010.5)


def test_a_submit_obeys_a_change_made_after_the_page_read_the_study(db, db_path, tmp_path):
    """The Submit reads the study under its lock: a cap on items per rater set by another handle after the page
    was drawn is obeyed at once (the answer kept, nothing new held), and a close refuses the answer, nothing
    written (the page gives the Submit only the study's name)."""
    _onboarded(db, tmp_path)
    shown = load_study(db, "tq")                                  # what the page was drawn with
    first = session.serve_next_item(db, shown, "r1", now=1000.0)
    in_another_worker(db_path, lambda other: configure_study(other, "tq", max_items_per_rater=1))
    done = submit(db, "tq", "r1", first.item_id, ANSWER, now=1010.0)
    assert done.new and done.served is None and done.study.settings.max_items_per_rater == 1
    session.arrive(db, "tq", "r2", source="link")
    session.give_consent(db, "tq", "r2", True)
    session.finish_instructions(db, "tq", "r2")
    other = session.serve_next_item(db, load_study(db, "tq"), "r2", now=1020.0)
    in_another_worker(db_path, lambda other_db: configure_study(other_db, "tq", status="closed"))
    with pytest.raises(StudyClosed):
        submit(db, "tq", "r2", other.item_id, ANSWER, now=1030.0)
    assert not db.in_transaction
    assert db.scalar("SELECT COUNT(*) FROM ratings WHERE rater_id = 'r2'") == 0


def test_practice_is_settled_when_the_instructions_are_read(db, tmp_path):
    """A study with practice items sends the rater to them after the instructions, whatever the row read; one
    without marks the rater past the practice in the same statement, so no later step asks for the study's
    practice items again (a study whose practice items arrive after a rater has started the items does not send
    that rater back to practise)."""
    _onboarded(db, tmp_path, rows=[{"id": "w0", "filled_template": "Practice?", "_practice": True,
                                    "_gold": {"quality": 1, "yes_positive": 1}},
                                   *({"id": f"t{i}", "filled_template": f"Question {i}?"} for i in range(4))])
    study = load_study(db, "tq")
    assert session.next_step(db, study, "r1", loaded_now=True) == "practice"
    other = tmp_path / "other"
    other.mkdir()
    create_study(db, "plain", "template_quality", raters_per_item=2, seed=3)
    import_items(db, "plain", write_jsonl(other / "p.jsonl", [{"id": "t0", "filled_template": "Question?"}]))
    session.arrive(db, "plain", "r1", source="link")
    session.give_consent(db, "plain", "r1", True)
    _, sent = statements_of(db, lambda: session.finish_instructions(db, "plain", "r1"))
    assert sum(s.startswith("UPDATE raters") for s in sent) == 1, sent
    plain = load_study(db, "plain")
    step, sent = statements_of(db, lambda: session.next_step(db, plain, "r1", loaded_now=True))
    assert step == "item" and SAME_RUN[1] not in sent, sent
    import_items(db, "plain", write_jsonl(other / "late.jsonl", [{"id": "w9", "filled_template": "Late practice?",
                                                                  "_practice": True}]))
    assert session.next_step(db, load_study(db, "plain"), "r1") == "item"
