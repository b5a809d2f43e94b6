import json
import re

import pytest

from fairval.annotate.material.importers import derive_item_id, import_items
from fairval.annotate.material.studies import create_study
from fairval.errors import ImportProblem
from fairval.store import items as item_store
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server


def test_discrim_eval_imports_unchanged(db, template_study, discrim_eval):
    for path in discrim_eval:
        import_items(db, "tq", path)
    stored = item_store.list_items(db, "tq")
    lines = [s for p in discrim_eval for s in p.read_text(encoding="utf-8").splitlines() if s.strip()]
    assert len(stored) == len(lines) == 25
    for item, line in zip(stored, lines):
        assert item["source_line"] == line                       # byte-identical
        assert item["data"] == json.loads(line)                  # every field kept, values typed
        assert list(item["data"]) == list(json.loads(line))      # and in order
    assert isinstance(stored[0]["data"]["age"], float)


def test_item_ids_are_stable_content_hashes(db, template_study, tmp_path, discrim_eval):
    path = discrim_eval[0]
    import_items(db, "tq", path)
    other = create_study(db, "tq2", "template_quality")
    import_items(db, other.study_id, path)
    first = [i["item_id"] for i in item_store.list_items(db, "tq")]
    second = [i["item_id"] for i in item_store.list_items(db, "tq2")]
    assert first == second
    assert first[0] == derive_item_id(json.loads(path.read_text().splitlines()[0]))
    assert len(set(first)) == len(first)


def test_given_ids_are_kept(db, template_study, tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", [{"id": 7, "filled_template": "Q?"},
                                              {"id": "b", "filled_template": "R?"}])
    import_items(db, "tq", path)
    assert [i["item_id"] for i in item_store.list_items(db, "tq")] == ["7", "b"]


def test_csv_import_keeps_columns_in_order(db, template_study, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('filled_template,decision_question_id,note\n"Should X, get Y?",3,hi\n', encoding="utf-8")
    import_items(db, "tq", path)
    (item,) = item_store.list_items(db, "tq")
    assert list(item["data"].items()) == [("filled_template", "Should X, get Y?"),
                                          ("decision_question_id", "3"), ("note", "hi")]


GOOD = '{"id": "a", "filled_template": "Should we?"}'


@pytest.mark.parametrize("name, content, line, field, words", [
    ("bad.jsonl", GOOD + "\n{not json\n", 2, None, "not valid JSON"),
    ("miss.jsonl", GOOD + '\n{"id": "b"}\n', 2, "filled_template", "required"),
    ("type.jsonl", GOOD + '\n{"id": "b", "filled_template": 12}\n', 2, "filled_template", "must be text"),
    ("dupe.jsonl", GOOD + "\n" + GOOD + "\n", 2, "id", "repeats item id 'a' from line 1"),
    ("empty.jsonl", "\n\n", None, None, "no rows"),
    ("list.jsonl", GOOD + "\n[1, 2]\n", 2, None, "JSON object"),
    ("short.csv", "id,filled_template\na,Q\nb\n", 3, "filled_template", "values"),
    ("long.csv", "id,filled_template\na,Q,extra\n", 2, None, "values"),
    ("badid.jsonl", '{"id": [1], "filled_template": "Q"}\n', 1, "id", "non-empty"),
])
def test_bad_files_are_refused_whole_naming_line_and_field(db, template_study, tmp_path,
                                                           name, content, line, field, words):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ImportProblem) as caught:
        import_items(db, "tq", path)
    assert caught.value.line == line and caught.value.field == field
    assert words in str(caught.value) and name in str(caught.value)
    assert item_store.list_items(db, "tq") == []


def test_wrong_encoding_is_refused_with_its_line(db, template_study, tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes((GOOD + "\n").encode() + '{"id": "b", "filled_template": "caf\u00e9"}\n'.encode("latin-1"))
    with pytest.raises(ImportProblem, match="not UTF-8") as caught:
        import_items(db, "tq", path)
    assert caught.value.line == 2
    assert item_store.list_items(db, "tq") == []


def test_an_unknown_file_type_names_every_type_that_imports(db, template_study, tmp_path):
    # The refusal once named only .jsonl and .csv; every type it names now imports (checked below, one
    # file each, in that type's own layout), so a user can take any of them at its word.
    path = tmp_path / "items.txt"
    path.write_text(GOOD + "\n", encoding="utf-8")
    with pytest.raises(ImportProblem) as caught:
        import_items(db, "tq", path)
    message = str(caught.value)
    assert message.startswith("items.txt: unknown file type '.txt'; use ") and "\n" not in message
    assert item_store.list_items(db, "tq") == []
    named = re.findall(r"(?<![\w.])\.[a-z]+", message.split("; use ", 1)[1])
    assert sorted(named) == [".csv", ".json", ".jsonl", ".ndjson", ".tsv"]
    layouts = {".jsonl": GOOD + "\n", ".ndjson": GOOD + "\n", ".json": "[\n" + GOOD + "\n]\n",
               ".csv": "id,filled_template\na,Should we?\n", ".tsv": "id\tfilled_template\na\tShould we?\n"}
    for number, suffix in enumerate(named):
        create_study(db, f"tq{number}", "template_quality")
        (tmp_path / f"items{suffix}").write_text(layouts[suffix], encoding="utf-8")
        import_items(db, f"tq{number}", tmp_path / f"items{suffix}")
        assert [i["data"]["filled_template"] for i in item_store.list_items(db, f"tq{number}")] == ["Should we?"]


def test_ids_already_in_the_study_refuse_the_whole_file(db, template_study, tmp_path):
    import_items(db, "tq", write_jsonl(tmp_path / "a.jsonl", [{"id": "a", "filled_template": "Q"}]))
    path = write_jsonl(tmp_path / "b.jsonl", [{"id": "new", "filled_template": "Q"},
                                              {"id": "a", "filled_template": "Q"}])
    with pytest.raises(ImportProblem, match="'a' is in study 'tq' already"):
        import_items(db, "tq", path)
    assert [i["item_id"] for i in item_store.list_items(db, "tq")] == ["a"]


def test_gold_answers_must_fit_the_task(db, template_study, tmp_path):
    path = write_jsonl(tmp_path / "g.jsonl", [{"id": "g", "filled_template": "Q", "_gold": {"quality": 9}}])
    with pytest.raises(ImportProblem, match="the answers are 1, 2, 3, 4, 5") as caught:
        import_items(db, "tq", path)
    assert caught.value.field == "_gold"
    ok = write_jsonl(tmp_path / "ok.jsonl", [{"id": "g", "filled_template": "Q", "_gold": {"quality": 1}}])
    import_items(db, "tq", ok)
    assert item_store.get_item(db, "tq", "g")["gold"] == {"quality": "1"}


def test_ratings_from_a_spreadsheet_with_decimal_likert_values(db, template_study, tmp_path):
    from fairval.annotate.material.importers import import_ratings
    from fairval.store import ratings as rating_store
    import_items(db, "tq", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Q?"}]))
    path = tmp_path / "r.csv"
    path.write_text("item_id,rater_id,question,value\na,r1,quality,4.0\na,r1,yes_positive,5\n", encoding="utf-8")
    assert import_ratings(db, "tq", path).written == 2
    assert sorted(rating_store.ratings_frame(db, "tq")["value"]) == ["4", "5"]
    again = import_ratings(db, "tq", path)                 # the same file twice: nothing new, nothing lost
    assert (again.written, again.skipped) == (0, 2)
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,rater_id,question,value\na,r1,quality,4.5\n", encoding="utf-8")
    with pytest.raises(ImportProblem, match="line 2, field 'value'"):
        import_ratings(db, "tq", bad)


def test_the_import_line_says_how_many_items_are_to_rate(db_path, tmp_path):
    # `analyze` counts only the items to rate, so a file with practice items and attention checks says
    # what its rows are: a practice item with an expected answer is practice, not a check.
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    gold = {"quality": 5, "yes_positive": 5}
    rows = ([{"filled_template": f"Should we lend to applicant {i}?"} for i in range(3)]
            + [{"filled_template": "Practice: lend?", "_practice": True, "_gold": gold},
               {"filled_template": "Check one", "_gold": gold}, {"filled_template": "Check two", "_gold": gold}])
    path = write_jsonl(tmp_path / "mixed.jsonl", rows)
    run = CliRunner()
    assert run.invoke(cli, ["--db", str(db_path), "study", "create", "tq", "--task", "template_quality"]).exit_code == 0
    result = run.invoke(cli, ["--db", str(db_path), "items", "import", "tq", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:2] == ["imported 6 items into 'tq'", "of them: 3 to rate, 1 practice item, 2 attention checks"]
    assert '"n_items": 3' in run.invoke(cli, ["--db", str(db_path), "analyze", "tq", "--json"]).output
    plain = write_jsonl(tmp_path / "plain.jsonl", [{"filled_template": "Another question?"}])
    assert run.invoke(cli, ["--db", str(db_path), "items", "import", "tq", str(plain)]).output.splitlines() == [
        "imported 1 item into 'tq'"]
