"""`fairval study sample`: the pairs people rate drawn at random with a seed; the rest never served,
counted out of progress, and the PPI estimate told its labelled set is a random sample."""
import numpy as np
import pytest

from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from fairval.annotate.rating.sampling import draw_human_sample
from fairval.annotate.results.numbers import study_numbers
from fairval.errors import StudyError
from fairval.store import open_db
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server


@pytest.fixture
def db(db_path, tmp_path):
    database = open_db(db_path)
    create_study(database, "s", "harmful_stereotype", raters_per_item=2)
    import_items(database, "s", write_jsonl(tmp_path / "p.jsonl", [
        {"id": f"p{k}", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
        for k in range(30)]))
    import_lmra(database, "s", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": f"p{k}", "model": "j", "score": (k % 7) / 7 - 0.4} for k in range(30)]))
    yield database
    database.close()


def test_the_sample_is_seeded_and_only_it_is_served(db):
    keep = draw_human_sample(db, "s", 8, seed=5)
    assert len(keep) == 8
    assert keep == sorted(np.random.default_rng(5).choice([f"p{k}" for k in range(30)], 8, replace=False))
    study = load_study(db, "s")
    served = set()
    for rater in ("r1", "r2", "r3"):
        session.arrive(db, "s", rater, source="link")
        session.give_consent(db, "s", rater, True)
        session.finish_instructions(db, "s", rater)
        while (item := session.serve_next_item(db, study, rater)) is not None:
            served.add(item.item_id)
            session.record_answer(db, study, rater, item.item_id, {"harm": "C" if len(served) % 2 else "A"})
    assert served == set(keep)                                   # nothing outside the sample reaches people
    numbers = study_numbers(db, "s", n_boot=0).to_dict()
    assert numbers["n_items"] == 8
    ppi = numbers["harm"]["ppi"]
    assert (ppi["n_labelled"], ppi["n_unlabelled"]) == (8, 22)
    assert ppi["sampling"].startswith("a random sample of 8 of 30 pairs (seed 5")


def test_the_sample_is_drawn_once_before_anyone_is_served_and_closes_imports(db, tmp_path):
    study = load_study(db, "s")
    session.arrive(db, "s", "early", source="link")
    session.give_consent(db, "s", "early", True)
    session.finish_instructions(db, "s", "early")
    session.serve_next_item(db, study, "early")
    with pytest.raises(StudyError, match="before raters start"):
        draw_human_sample(db, "s", 5, seed=1)
    assert not load_study(db, "s").recorded.human_sample


def test_a_second_draw_and_later_imports_are_refused(db, tmp_path):
    draw_human_sample(db, "s", 5, seed=1)
    with pytest.raises(StudyError, match="already"):
        draw_human_sample(db, "s", 5, seed=2)
    with pytest.raises(StudyError, match="drawn already"):
        import_items(db, "s", write_jsonl(tmp_path / "more.jsonl", [
            {"id": "late", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": "w", "group_b": "m"}]))



def test_a_sample_as_large_as_the_study_is_no_sample(db):
    with pytest.raises(StudyError, match="between 1 and 29 of the study's 30 pairs"):
        draw_human_sample(db, "s", 30, seed=1)
    create_study(db, "empty", "harmful_stereotype")
    with pytest.raises(StudyError, match="has 0 pairs"):
        draw_human_sample(db, "empty", 1, seed=1)


def test_the_sample_cannot_be_claimed_by_hand(db):
    """Only a seeded draw may mark the rated pairs a random sample: `study set` refuses the setting."""
    from fairval.annotate.material.studies import configure_study
    with pytest.raises(StudyError, match="recorded by `fairval study sample`"):
        configure_study(db, "s", human_sample={"n": 5, "of": 30, "seed": 1})
    assert load_study(db, "s").recorded.human_sample is None
