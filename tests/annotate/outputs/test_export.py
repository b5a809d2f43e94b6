"""Export: thresholds select exactly the right templates; rows come out as they went in; tidy ratings."""
import json

import pandas as pd
import pytest

from fairval.annotate.material.importers import import_items, import_ratings
from fairval.annotate.material.studies import create_study
from fairval.annotate.outputs.export import Thresholds, export_ratings, export_validated
from fairval.errors import OutputError
from fairval.store import items as item_store
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

# template -> (quality ratings, yes_positive ratings)
SCORES = {
    "t-pass": ([5, 4, 4], [4, 4, 5]),        # means 4.33 / 4.33
    "t-edge": ([4, 4, 4], [4, 4, 4]),        # exactly at the threshold: passes
    "t-lowq": ([3, 4, 4], [5, 5, 5]),        # quality 3.67
    "t-lowy": ([5, 5, 5], [3, 4, 4]),        # yes 3.67
    "t-few": ([5, 5], [5, 5]),               # only 2 ratings each
}


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "tq", "template_quality")
    rows, ratings = [], []
    for t, (quality, yes) in SCORES.items():
        for fill in range(2):
            item_id = f"{t}-{fill}"
            rows.append({"id": item_id, "filled_template": f"{t} fill {fill}?", "decision_question_id": t,
                         "age": 20.0, "extra": {"nested": [1, 2]}})
        for k, (q, y) in enumerate(zip(quality, yes)):
            item_id = f"{t}-{k % 2}"
            ratings += [{"item_id": item_id, "rater_id": f"r{k}", "question": "quality", "value": q},
                        {"item_id": item_id, "rater_id": f"r{k}", "question": "yes_positive", "value": y}]
    import_items(db, "tq", write_jsonl(tmp_path / "items.jsonl", rows))
    import_ratings(db, "tq", write_jsonl(tmp_path / "ratings.jsonl", ratings))
    return tmp_path / "items.jsonl"


def test_thresholds_select_exactly_the_right_templates(db, study, tmp_path):
    side = export_validated(db, "tq", tmp_path / "out.jsonl")
    assert side["templates_passed"] == ["t-edge", "t-pass"]
    kept = [json.loads(row)["id"] for row in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert kept == ["t-pass-0", "t-pass-1", "t-edge-0", "t-edge-1"]
    numbers = json.loads((tmp_path / "out.jsonl.numbers.json").read_text())
    assert numbers["thresholds"] == {"quality_min": 4.0, "yes_positive_min": 4.0, "min_ratings": 3}
    lowq = next(t for t in numbers["templates"] if t["template"] == "t-lowq")
    assert lowq["mean_quality"] == pytest.approx(11 / 3) and lowq["passed"] is False
    looser = export_validated(db, "tq", tmp_path / "loose.jsonl", thresholds=Thresholds(3.5, 3.5, 2))
    assert looser["templates_passed"] == ["t-edge", "t-few", "t-lowq", "t-lowy", "t-pass"]


def test_jsonl_rows_are_byte_identical_and_reimport_losslessly(db, tmp_path, discrim_eval):
    create_study(db, "de", "template_quality")
    source = discrim_eval[0]
    import_items(db, "de", source)
    ids = [i["item_id"] for i in item_store.list_items(db, "de")]
    import_ratings(db, "de", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": i, "rater_id": f"r{k}", "question": q, "value": 5} for i in ids for k in range(3)
        for q in ("quality", "yes_positive")]))
    export_validated(db, "de", tmp_path / "valid.jsonl")
    assert (tmp_path / "valid.jsonl").read_bytes() == source.read_bytes()
    create_study(db, "again", "template_quality")
    import_items(db, "again", tmp_path / "valid.jsonl")
    before = item_store.list_items(db, "de")
    after = item_store.list_items(db, "again")
    assert [(i["item_id"], i["data"], i["source_line"]) for i in before] == \
           [(i["item_id"], i["data"], i["source_line"]) for i in after]


def test_csv_export_round_trips(db, study, tmp_path):
    export_validated(db, "tq", tmp_path / "out.csv")
    create_study(db, "back", "template_quality")
    import_items(db, "back", tmp_path / "out.csv")
    back = item_store.list_items(db, "back")
    assert [i["item_id"] for i in back] == ["t-pass-0", "t-pass-1", "t-edge-0", "t-edge-1"]
    assert back[0]["data"]["extra"] == '{"nested": [1, 2]}'        # CSV carries JSON values as text
    assert list(back[0]["data"]) == ["id", "filled_template", "decision_question_id", "age", "extra"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_tidy_ratings(db, study, tmp_path, suffix):
    out = tmp_path / f"ratings{suffix}"
    n = export_ratings(db, "tq", out)
    frame = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
    assert n == len(frame) == 28
    for column in ("study_id", "item_id", "rater_id", "question", "value", "canonical", "flipped", "seconds",
                   "rater_gender", "rater_race", "rater_country"):
        assert column in frame.columns
    assert set(frame["question"]) == {"quality", "yes_positive"}


def test_unknown_output_type_is_refused(db, study, tmp_path):
    with pytest.raises(OutputError, match=r"\.jsonl or \.csv"):
        export_validated(db, "tq", tmp_path / "out.xlsx")


def test_other_tasks_export_each_items_top_answer_with_comments(db, tmp_path):
    create_study(db, "sc", "scenario_select")
    import_items(db, "sc", write_jsonl(tmp_path / "s.jsonl", [{"id": "s1", "scenario": "A"},
                                                              {"id": "s2", "scenario": "B"}]))
    import_ratings(db, "sc", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": "s1", "rater_id": "r1", "question": "keep", "value": "yes", "comment": "realistic"},
        {"item_id": "s1", "rater_id": "r2", "question": "keep", "value": "yes"},
        {"item_id": "s1", "rater_id": "r3", "question": "keep", "value": "no", "comment": "too vague"},
        {"item_id": "s2", "rater_id": "r1", "question": "keep", "value": "no"}]))
    side = export_validated(db, "sc", tmp_path / "out.csv")
    table = pd.read_csv(tmp_path / "out.csv").set_index("item_id")
    assert side["n_rows"] == 2
    assert table.loc["s1", "top_answer"] == "yes" and table.loc["s1", "top_share"] == pytest.approx(2 / 3)
    assert table.loc["s1", "comments"] == "realistic | too vague" and table.loc["s2", "n"] == 1
    assert table.loc["s1", "scenario"] == "A" and table.loc["s2", "scenario"] == "B"     # the item's text
    # the crowd model's label beside the majority: Dawid–Skene's most probable class for each item
    from fairval.analysis.rater_model import dawid_skene
    answers = pd.DataFrame([("s1", "r1", "yes"), ("s1", "r2", "yes"), ("s1", "r3", "no"), ("s2", "r1", "no")],
                           columns=["item_id", "rater_id", "value"])
    labels = dawid_skene(answers).labels()
    assert table.loc["s1", "model_label"] == labels["s1"] and table.loc["s2", "model_label"] == labels["s2"]


def test_a_pair_export_names_each_pairs_groups(db, tmp_path):
    create_study(db, "hp", "harmful_stereotype")
    import_items(db, "hp", write_jsonl(tmp_path / "p.jsonl", [
        {"id": f"p{k}", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": g, "group_b": h}
        for k, (g, h) in enumerate([("female", "male"), ("Asian", "white")])]))
    import_ratings(db, "hp", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": "p0", "rater_id": "r1", "question": "harm", "value": "A"},
        {"item_id": "p1", "rater_id": "r1", "question": "harm", "value": "C"}]))
    export_validated(db, "hp", tmp_path / "out.jsonl")
    rows = {r["item_id"]: r for r in map(json.loads, (tmp_path / "out.jsonl").read_text().splitlines())}
    assert (rows["p0"]["group_a"], rows["p0"]["group_b"]) == ("female", "male")
    assert (rows["p1"]["group_a"], rows["p1"]["group_b"]) == ("Asian", "white")
    assert rows["p0"]["human_score"] == 1.0 and rows["p1"]["human_score"] == 0.0


def test_a_name_export_carries_the_name(db, tmp_path):
    create_study(db, "nm", "name_perception")
    import_items(db, "nm", write_jsonl(tmp_path / "n.jsonl", [{"id": "a", "name": "Ana Diaz", "race": "Hispanic",
                                                               "gender": "female"}]))
    import_ratings(db, "nm", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": "a", "rater_id": "r1", "question": "race", "value": "Hispanic"}]))
    export_validated(db, "nm", tmp_path / "out.csv")
    row = pd.read_csv(tmp_path / "out.csv").iloc[0]
    assert (row["name"], row["race"], row["gender"], row["top_answer"]) == ("Ana Diaz", "Hispanic", "female", "Hispanic")


def test_name_study_report_draws_both_confusion_matrices(db, tmp_path):
    from fairval.annotate.outputs.report import write_report
    create_study(db, "n", "name_perception")
    import_items(db, "n", write_jsonl(tmp_path / "n.jsonl", [{"id": "a", "name": "A", "race": "Black",
                                                              "gender": "female"}]))
    import_ratings(db, "n", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": "a", "rater_id": r, "question": q, "value": v}
        for r, race, gender in (("r1", "Black", "female"), ("r2", "white", "female"))
        for q, v in (("race", race), ("gender", gender))]))
    html = write_report(db, "n", tmp_path / "n.html").read_text()
    for heading in ("Name perception: race accuracy", "Name perception: race confusion",
                    "Name perception: gender confusion"):
        assert f"<h2>{heading}</h2>" in html
    assert html.count("<svg") >= 3
    assert "<td>0.500</td>" in html          # race accuracy for Black: 1 of 2


def test_an_empty_validated_set_still_has_its_csv_header(db, study, tmp_path):
    """No template passes: the CSV has the imported columns (a spreadsheet opens it with its header) and
    no row; the JSONL has no line; the sidecar says none passed."""
    out = tmp_path / "none.csv"
    sidecar = export_validated(db, "tq", out, thresholds=Thresholds(5.0, 5.0, 3))
    assert sidecar["n_rows"] == 0 and sidecar["templates_passed"] == []
    assert out.read_text(encoding="utf-8").splitlines() == ["id,filled_template,decision_question_id,age,extra"]
    empty = tmp_path / "none.jsonl"
    export_validated(db, "tq", empty, thresholds=Thresholds(5.0, 5.0, 3))
    assert empty.read_bytes() == b""
