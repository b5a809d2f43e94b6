"""One item once (issue 54): the same rows imported as CSV and then as JSON Lines (a CSV's values are text,
a JSON line's are numbers) are one study's items once; the second file is refused in one line naming how
many of its rows the study has already. Item ids are derived as they always were."""
import csv
import json

import pytest

from fairval.annotate.material.importers import derive_item_id, import_items
from fairval.errors import ImportProblem
from fairval.store import items as item_store

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server


def rows_of(paths) -> list[dict]:
    return [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_csv(path, rows: list[dict]):
    """As a spreadsheet saves the rows: one header, every value as text (30.0 becomes "30.0")."""
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fields)
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_jsonl(path, rows: list[dict]):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("first", ["csv", "jsonl"])
def test_the_same_rows_as_csv_then_jsonl_leave_one_item_each(db, template_study, tmp_path, discrim_eval, first):
    rows = rows_of(discrim_eval)
    assert len(rows) == 25
    files = {"csv": write_csv(tmp_path / "rows.csv", rows), "jsonl": write_jsonl(tmp_path / "rows.jsonl", rows)}
    second = "jsonl" if first == "csv" else "csv"
    assert import_items(db, "tq", files[first]).written == 25
    before = sorted(i["item_id"] for i in item_store.list_items(db, "tq"))
    with pytest.raises(ImportProblem) as refused:
        import_items(db, "tq", files[second])
    assert "25 of the file's 25 rows are items of study 'tq' already" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert sorted(i["item_id"] for i in item_store.list_items(db, "tq")) == before      # nothing written
    if first == "jsonl":                     # ids derived as before from the typed rows: stored studies keep theirs
        assert before == sorted(derive_item_id(r) for r in rows)


def test_a_file_with_some_rows_already_in_is_refused_whole_naming_how_many(db, template_study, tmp_path,
                                                                             discrim_eval):
    rows = rows_of(discrim_eval)
    import_items(db, "tq", write_csv(tmp_path / "first.csv", rows[:10]))
    new = {**rows[10], "age": rows[10]["age"] + 1}          # one value differs: another item
    more = write_jsonl(tmp_path / "more.jsonl", [*rows[:3], new])
    with pytest.raises(ImportProblem, match=r"3 of the file's 4 rows are items of study 'tq' already.*line 1 is item"):
        import_items(db, "tq", more)
    assert len(item_store.list_items(db, "tq")) == 10
    assert import_items(db, "tq", write_jsonl(tmp_path / "new.jsonl", [new, *rows[10:]])).written == 16
    assert len(item_store.list_items(db, "tq")) == 26


def test_text_that_only_looks_alike_is_not_the_same_row(db, template_study, tmp_path):
    rows = [{"filled_template": "Should the bank approve the loan?", "decision_question_id": 3, "age": 30.0}]
    import_items(db, "tq", write_csv(tmp_path / "a.csv", rows))
    other = [{"filled_template": "Should the bank approve the loan? ", "decision_question_id": 3, "age": 30.5},
             {"filled_template": "Should the bank approve the loan?", "decision_question_id": "3b", "age": 30}]
    assert import_items(db, "tq", write_jsonl(tmp_path / "b.jsonl", other)).written == 2
