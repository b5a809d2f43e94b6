"""Pair-study imports: LMRA scores and ratings are refused whole, with line and field named."""
import pytest

from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import create_study
from fairval.errors import ImportProblem
from fairval.store import lmra as lmra_store
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server


@pytest.fixture
def pairs(db, tmp_path):
    create_study(db, "fp", "harmful_stereotype")
    import_items(db, "fp", write_jsonl(tmp_path / "p.jsonl", [
        {"id": i, "prompt": "p", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
        for i in ("x", "y")]))
    return "fp"


OK_SCORE = {"item_id": "x", "model": "m", "score": 0.5}


@pytest.mark.parametrize("row, field, words", [
    ({"item_id": "y", "model": "m", "score": 1.5}, "score", "[-1, 1]"),
    ({"item_id": "nope", "model": "m", "score": 0.1}, "item_id", "no item 'nope'"),
    ({"item_id": "y", "model": "m", "score": 0.1, "p_a": 0.5}, "score", "not both"),
    ({"item_id": "y", "model": "m", "p_a": .5, "p_b": .3, "p_c": .2, "q_a": .1, "q_b": .1}, "q_c", "required"),
    ({"item_id": "y", "model": "m", "p_a": 1.5, "p_b": .3, "p_c": .2, "q_a": .1, "q_b": .1, "q_c": .1},
     "p_a", "probability"),
    ({"item_id": "x", "model": "m", "score": 0.1}, "item_id", "repeats item 'x' for model 'm'"),
    ({"item_id": "y", "model": "m", "score": "high"}, "score", "must be a number"),
])
def test_bad_lmra_files(db, pairs, tmp_path, row, field, words):
    path = write_jsonl(tmp_path / "lmra.jsonl", [OK_SCORE, row])
    with pytest.raises(ImportProblem) as caught:
        import_lmra(db, pairs, path)
    assert (caught.value.line, caught.value.field) == (2, field) and words in str(caught.value)
    assert lmra_store.scores_frame(db, pairs).empty


def test_lmra_probabilities_are_combined_and_kept(db, pairs, tmp_path):
    import_lmra(db, pairs, write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": "x", "model": "m", "p_a": .6, "p_b": .3, "p_c": .1, "q_a": .5, "q_b": .4, "q_c": .1}]))
    assert lmra_store.scores_frame(db, pairs)["score"].tolist() == pytest.approx([(0.4 - 0.3) / 0.8])
    row = db.execute("SELECT probabilities FROM lmra_scores").fetchone()[0]
    assert '"q_b": 0.4' in row


OK_RATING = {"item_id": "x", "rater_id": "r1", "question": "harm", "value": "A", "flipped": 1,
             "rater_gender": "female"}


@pytest.mark.parametrize("row, field, words", [
    ({**OK_RATING, "item_id": "nope"}, "item_id", "no item 'nope'"),
    ({**OK_RATING, "question": "quality"}, "question", "has no question 'quality'"),
    ({**OK_RATING, "value": "D"}, "value", "answers are A, B, C"),
    ({**OK_RATING, "flipped": "maybe"}, "flipped", "true/false or 1/0"),
    ({**OK_RATING, "item_id": "y", "rater_gender": "male"}, "rater_gender", "earlier line"),
    (OK_RATING, "question", "already at line 1"),
    ({**OK_RATING, "rater_id": None}, "rater_id", "non-empty"),
    ({**OK_RATING, "rater_id": "r2", "seconds": "fast"}, "seconds", "must be a number"),
])
def test_bad_rating_files(db, pairs, tmp_path, row, field, words):
    path = write_jsonl(tmp_path / "r.jsonl", [OK_RATING, row])
    with pytest.raises(ImportProblem) as caught:
        import_ratings(db, pairs, path)
    assert (caught.value.line, caught.value.field) == (2, field) and words in str(caught.value)
    assert rating_store.rating_count(db, pairs) == 0
    assert db.execute("SELECT COUNT(*) FROM raters").fetchone()[0] == 0


def test_flipped_is_refused_outside_pair_studies(db, template_study, tmp_path):
    import_items(db, "tq", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Q?"}]))
    path = write_jsonl(tmp_path / "r.jsonl", [{"item_id": "a", "rater_id": "r", "question": "quality",
                                               "value": 4, "flipped": 1}])
    with pytest.raises(ImportProblem, match="only pair studies"):
        import_ratings(db, "tq", path)
