"""fairval reads back what it writes: ids a spreadsheet would run as formulas are guarded with `'` by every
CSV writer and unguarded by every CSV reader, so they round-trip through sample → ratings import,
export-ratings → ratings import, and apply-map → lmra import. A file nested too deeply ends in one line."""
import csv

import pandas as pd
import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from fairval.annotate.material.cells import spreadsheet_text, unguarded
from fairval.store import lmra as lmra_store
from fairval.store import open_db
from tests.conftest import write_jsonl

HOSTILE = ["+ID2", "=1+1", "-x", "@SUM(A1)", "'quoted", "plain", "-1", "\tTAB"]
PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}


@pytest.mark.parametrize("value", [*HOSTILE, "'=already", "''", "'", 5, None])
def test_unguarded_undoes_spreadsheet_text(value):
    assert unguarded(spreadsheet_text(value)) == value


def _pairs(cli_output, tmp_path, name="p"):
    cli_output("study", "create", name, "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / f"{name}.jsonl", [{"id": i, **PAIR} for i in HOSTILE])
    cli_output("items", "import", name, tmp_path / f"{name}.jsonl")


def test_drawn_ids_come_back_as_they_were(cli_output, tmp_path, db_path):
    _pairs(cli_output, tmp_path)
    cli_output("study", "sample", "p", "--n", "7", "--seed", "2", "--out", tmp_path / "s.csv")
    with open(tmp_path / "s.csv", newline="", encoding="utf-8") as f:
        drawn = [row["item_id"] for row in csv.DictReader(f)]
    assert any(d.startswith("'") for d in drawn)            # guarded for a spreadsheet on the way out
    # rated elsewhere: the drawn file with columns added by a script, guards and all
    with open(tmp_path / "rated.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["item_id", "rater_id", "question", "value"])
        writer.writerows([d, spreadsheet_text("=rater"), "harm", "C"] for d in drawn)
    cli_output("ratings", "import", "p", tmp_path / "rated.csv")
    with fairval.open(db_path) as db:
        stored = db.study("p").ratings()
    assert sorted(stored["item_id"]) == sorted(unguarded(d) for d in drawn)
    assert set(stored["item_id"]) <= set(HOSTILE) and set(stored["rater_id"]) == {"=rater"}


def test_exported_ratings_import_again_unchanged(cli_output, tmp_path, db_path):
    _pairs(cli_output, tmp_path)
    write_jsonl(tmp_path / "r.jsonl", [{"item_id": i, "rater_id": r, "question": "harm", "value": "A"}
                                       for i in HOSTILE for r in ("+r1", "@r2")])
    cli_output("ratings", "import", "p", tmp_path / "r.jsonl")
    cli_output("export-ratings", "p", "--out", tmp_path / "all.csv")
    _pairs(cli_output, tmp_path, "q")
    cli_output("ratings", "import", "q", tmp_path / "all.csv")
    with fairval.open(db_path) as db:
        first, again = db.study("p").ratings(), db.study("q").ratings()
    key = ["item_id", "rater_id", "value"]
    assert (first[key].sort_values(key).reset_index(drop=True)
            .equals(again[key].sort_values(key).reset_index(drop=True)))


def test_calibrated_scores_import_again_under_their_ids(cli_output, tmp_path, db_path):
    _pairs(cli_output, tmp_path)
    write_jsonl(tmp_path / "l.jsonl", [{"item_id": i, "model": "j", "score": s}
                                       for i, s in zip(HOSTILE, (0.1, 0.5, -0.2, 0.9, 0.0, -0.6, 0.3, 0.2))])
    cli_output("lmra", "import", "p", tmp_path / "l.jsonl")
    write_jsonl(tmp_path / "r.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": "harm", "value": v}
                                       for k, (i, v) in enumerate(zip(HOSTILE, "ABCABCAB"))])
    cli_output("ratings", "import", "p", tmp_path / "r.jsonl")
    cli_output("calibrate", "p", "--out", tmp_path / "map.json", "--folds", "2")
    cli_output("lmra", "apply-map", "p", tmp_path / "map.json", "--out", tmp_path / "mapped.csv")
    cli_output("lmra", "import", "p", tmp_path / "mapped.csv")
    mapped = pd.read_csv(tmp_path / "mapped.csv", dtype=str, keep_default_na=False)
    assert any(i.startswith("'") for i in mapped["item_id"])          # guarded in the file
    db = open_db(db_path)
    scores = lmra_store.scores_frame(db, "p")
    db.close()
    by_model = scores.groupby("model")["item_id"].apply(sorted).to_dict()
    assert len(by_model) == 2 and all(ids == sorted(HOSTILE) for ids in by_model.values())


def test_a_json_line_nested_5000_deep_is_refused_in_one_line(tmp_path, db_path):
    result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "create", "p", "--task", "harmful_stereotype"])
    assert result.exit_code == 0
    deep = '{"id": "x", "prompt": ' + "[" * 5000 + "]" * 5000 + "}"
    (tmp_path / "deep.jsonl").write_text(deep + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--db", str(db_path), "items", "import", "p", str(tmp_path / "deep.jsonl")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and "line 1" in result.output and "nested too deeply" in result.output


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_the_nesting_limit_is_fairvals_own_on_every_python(tmp_path, suffix):
    """Python 3.13's json reads 5,000 levels where 3.11's stops under a thousand: a row 500 levels deep
    (the row's own object counted) is read, 501 refused, whatever the interpreter."""
    from fairval.annotate.material.records import read_records
    from fairval.errors import ImportProblem

    def row(levels: int) -> str:                  # the row object, then levels - 1 lists inside it
        return '{"id": "x", "metadata": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}"

    def file(levels: int):
        path = tmp_path / f"rows{levels}{suffix}"
        path.write_text(row(levels) + "\n" if suffix == ".jsonl" else "[\n" + row(levels) + "\n]\n", encoding="utf-8")
        return path

    assert [r.data["id"] for r in read_records(file(500))] == ["x"]
    with pytest.raises(ImportProblem, match=r"line [12].*nested too deeply.*500 levels"):
        read_records(file(501))
