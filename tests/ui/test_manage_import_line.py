"""Manage's Import says what it wrote with the noun's number right: "1 row", "2 rows" (issue left at stop 65)."""
from fairval.annotate.material.importers import ImportResult, import_items
from fairval.annotate.material.studies import create_study
from fairval.ui.manage_view import imported_line
from tests.conftest import write_jsonl


def _names(n: int) -> list[dict]:
    return [{"id": f"n{i}", "name": f"Name {i}", "race": "white", "gender": "female"} for i in range(n)]


def test_one_imported_row_is_said_in_the_singular_and_two_in_the_plural(db, tmp_path):
    create_study(db, "names-1", "name_perception")
    one = import_items(db, "names-1", write_jsonl(tmp_path / "one.jsonl", _names(1)))
    assert imported_line(one, "names-1") == "Imported 1 row into 'names-1'."
    create_study(db, "names-2", "name_perception")
    two = import_items(db, "names-2", write_jsonl(tmp_path / "two.jsonl", _names(2)))
    assert imported_line(two, "names-2") == "Imported 2 rows into 'names-2'."


def test_identical_rows_left_as_stored_are_counted_with_their_verb_in_number():
    assert imported_line(ImportResult(0, 1), "s") == "Imported 0 rows into 's'; 1 identical row was stored already."
    assert imported_line(ImportResult(1, 2), "s") == "Imported 1 row into 's'; 2 identical rows were stored already."


def test_practice_items_and_attention_checks_are_counted_apart_as_the_cli_does(db, tmp_path):
    create_study(db, "mixed", "template_quality")
    rows = [{"id": f"t{i}", "filled_template": f"Should the bank lend applicant {i} money?"} for i in range(4)]
    rows += [{"id": "p0", "filled_template": "Should the shop open late?", "_practice": True},
             {"id": "g0", "filled_template": "Should the clinic see this patient?", "_gold": {"quality": "5"}}]
    result = import_items(db, "mixed", write_jsonl(tmp_path / "mixed.jsonl", rows))
    assert imported_line(result, "mixed") == ("Imported 6 rows into 'mixed'. Of them: 4 to rate, 1 practice item, "
                                              "1 attention check.")
