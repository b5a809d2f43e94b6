"""Text no database keeps the same way, in every importer's files: JSON's escaped lone surrogate (\\ud800, half
of a character, which UTF-8 cannot encode), a NUL character (PostgreSQL's text never holds one) and an id past
what PostgreSQL can index. Each is refused in one line naming the line and the field, nothing written, on
SQLite and on a real PostgreSQL server alike (where these were a UnicodeEncodeError, a DataError or a
ProgramLimitExceeded traceback)."""
import json

import pytest

from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.records import MOST_KEY_CHARS
from fairval.annotate.material.studies import create_study
from fairval.errors import ImportProblem
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import ratings as rating_store

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

LONG = "i" * 9000                          # past PostgreSQL's 8 KB page, as the attack sent
SURROGATE, NUL = "\ud800", "\x00"


def _jsonl(path, rows: list[dict]):
    # json.dumps writes a lone surrogate and a NUL as the escapes \ud800 and \u0000: the file is plain ASCII
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=5)
    import_items(db, "tq", _jsonl(tmp_path / "first.jsonl", [{"id": "a", "filled_template": "Q?"}]))
    return "tq"


def _refused(run, line: int, field: str, words: str) -> None:
    with pytest.raises(ImportProblem) as caught:
        run()
    said = str(caught.value)
    assert (caught.value.line, caught.value.field) == (line, field), said
    assert words in said and "\n" not in said, said
    said.encode("utf-8")                   # printable as it is: no half character in the sentence itself


ITEM = {"id": "b", "filled_template": "Q?"}


@pytest.mark.parametrize("row, field, words", [
    ({**ITEM, "filled_template": "Q" + SURROGATE}, "filled_template", "lone surrogate (U+D800)"),
    ({**ITEM, "note" + SURROGATE: 1}, "note" + SURROGATE, "lone surrogate"),
    ({**ITEM, "extra": {"k": ["fine", "\udfff"]}}, "extra", "lone surrogate (U+DFFF)"),
    ({**ITEM, "filled_template": "Q" + NUL}, "filled_template", "NUL character"),
    ({**ITEM, "id": LONG}, "id", f"an id is at most {MOST_KEY_CHARS}"),
    ({**ITEM, "decision_question_id": LONG}, "decision_question_id", "an id is at most"),
])
def test_items(db, study, tmp_path, row, field, words):
    path = _jsonl(tmp_path / "items.jsonl", [{"id": "ok", "filled_template": "fine"}, row])
    _refused(lambda: import_items(db, study, path), 2, field, words)
    assert [i["item_id"] for i in item_store.list_items(db, study)] == ["a"]


def test_items_from_csv_with_a_nul(db, study, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text(f"id,filled_template\nok,fine\nb,Q{NUL}\n", encoding="utf-8")
    _refused(lambda: import_items(db, study, path), 3, "filled_template", "NUL character")
    assert [i["item_id"] for i in item_store.list_items(db, study)] == ["a"]


def test_items_handed_over_as_rows(db, study):
    _refused(lambda: import_items(db, study, [{"id": "ok", "filled_template": "fine"},
                                              {"id": "b", "filled_template": SURROGATE}]),
             2, "filled_template", "lone surrogate")


RATING = {"item_id": "a", "rater_id": "r1", "question": "quality", "value": "4"}


@pytest.mark.parametrize("row, field, words", [
    ({**RATING, "rater_gender": "f" + SURROGATE}, "rater_gender", "lone surrogate"),
    ({**RATING, "comment": "fine" + NUL}, "comment", "NUL character"),
    ({**RATING, "item_id": LONG}, "item_id", "an id is at most"),
    ({**RATING, "question": "q" + SURROGATE}, "question", "lone surrogate"),
])
def test_ratings(db, study, tmp_path, row, field, words):
    path = _jsonl(tmp_path / "ratings.jsonl", [{**RATING, "rater_id": "r0"}, row])
    _refused(lambda: import_ratings(db, study, path), 2, field, words)
    assert rating_store.ratings_frame(db, study).empty


@pytest.mark.parametrize("row, field, words", [
    ({"item_id": "y", "model": "m" + SURROGATE, "score": 0.1}, "model", "lone surrogate"),
    ({"item_id": "y", "model": "m" + NUL, "score": 0.1}, "model", "NUL character"),
    ({"item_id": "y", "model": LONG, "score": 0.1}, "model", "an id is at most"),
])
def test_lmra_scores(db, tmp_path, row, field, words):
    create_study(db, "fp", "harmful_stereotype")
    import_items(db, "fp", _jsonl(tmp_path / "p.jsonl", [
        {"id": i, "prompt": "p", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
        for i in ("x", "y")]))
    path = _jsonl(tmp_path / "lmra.jsonl", [{"item_id": "x", "model": "m", "score": 0.5}, row])
    _refused(lambda: import_lmra(db, "fp", path), 2, field, words)
    assert lmra_store.scores_frame(db, "fp").empty


def test_an_integer_past_pythons_digit_limit(db, study, tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "ok", "filled_template": "fine"}\n{"id": ' + "9" * 5000 + ', "filled_template": "Q"}\n')
    _refused(lambda: import_items(db, study, path), 2, None, "cannot be read")
