"""A worker keeps the study it parsed while the study's version is the one it parsed (issue 58): the store draws
a new version in the statement of every change to the study's row, so a rerun reads one short row, not the
study's settings, and a change made by the researcher through any worker is seen by the very next load: the
bound is the next load (the rater page loads the study once per run), not a later rerun."""
import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.annotate.rating.submit import submit
from fairval.errors import StudyClosed
from fairval.store import immediate
from tests.annotate.rating.test_submit_statements import in_another_worker, statements_of
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

ANSWER = {"quality": "4", "yes_positive": "5"}
VERSION = "SELECT version FROM studies WHERE study_id = ?"


def _study(db, tmp_path):
    study = create_study(db, "tq", "template_quality", raters_per_item=2, seed=3, consent_text="First words.")
    import_items(db, "tq", write_jsonl(tmp_path / "tq.jsonl", [{"id": f"t{i}", "filled_template": f"Question {i}?"}
                                                                 for i in range(4)]))
    return study


def test_an_unchanged_study_is_known_by_its_version_and_read_whole_once_after_a_change(db, db_path, tmp_path):
    """The change is made by another worker: this one learns of it from the version."""
    _study(db, tmp_path)
    first = load_study(db, "tq")
    again, sent = statements_of(db, lambda: load_study(db, "tq"))
    assert again is first and sent == [VERSION]
    in_another_worker(db_path, lambda other: configure_study(other, "tq", consent_text="Second words."))
    changed, sent = statements_of(db, lambda: load_study(db, "tq"))
    assert changed.settings.consent_text == "Second words." and sent[0] == VERSION
    assert sum(s.startswith("SELECT * FROM studies") for s in sent) == 1, sent
    assert statements_of(db, lambda: load_study(db, "tq")) == (changed, [VERSION])


def test_a_study_closed_through_another_worker_stops_serving_and_takes_no_answer(db, db_path, tmp_path):
    """Worker A keeps the study parsed and a rater on an item; the researcher closes the study through worker B
    (its own connection). A's next load is the closed study, the rater's step says so, and the answer A sends
    with the study it kept is refused: nothing stored."""
    _study(db, tmp_path)
    session.arrive(db, "tq", "r1", source="link")
    session.give_consent(db, "tq", "r1", True)
    session.finish_instructions(db, "tq", "r1")
    kept = load_study(db, "tq")
    shown = session.serve_next_item(db, kept, "r1", now=1000.0)
    assert load_study(db, "tq") is kept and session.next_step(db, kept, "r1", loaded_now=True) == "item"
    in_another_worker(db_path, lambda other: configure_study(other, "tq", status="closed"))
    now = load_study(db, "tq")
    assert now.status == "closed" and session.next_step(db, now, "r1", loaded_now=True) == "closed"
    with pytest.raises(StudyClosed):
        submit(db, kept, "r1", shown.item_id, ANSWER, now=1010.0)
    assert db.scalar("SELECT COUNT(*) FROM ratings WHERE study_id = 'tq'") == 0


def test_a_change_undone_leaves_the_study_kept_as_stored(db, tmp_path):
    """The version is drawn in the change's own statement: a change that is rolled back takes its version
    with it, and the study kept is still the one stored."""
    _study(db, tmp_path)
    kept = load_study(db, "tq")
    with pytest.raises(RuntimeError), immediate(db, "tq"):
        configure_study(db, "tq", consent_text="Never kept.")
        assert load_study(db, "tq").settings.consent_text == "Never kept."    # seen inside its transaction
        raise RuntimeError("undone")
    assert load_study(db, "tq").settings.consent_text == "First words." == kept.settings.consent_text
