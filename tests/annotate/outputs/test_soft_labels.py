"""Soft labels (`fairval export-ratings NAME --soft-labels`): each answer's share per item and rater group,
checked against counts made here from the ratings export, row by row."""
from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_soft_label_shares_equal_the_counts(db_path, tmp_path, suffix):
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db_path), "demo", "--no-serve"]).exit_code == 0
    out = tmp_path / f"soft.{suffix}"
    said = runner.invoke(cli, ["--db", str(db_path), "export-ratings", "demo-pairs", "--soft-labels", "--out", str(out)])
    assert said.exit_code == 0, said.output
    soft = pd.read_csv(out, dtype={"item_id": str}) if suffix == "csv" else pd.read_parquet(out)
    study = fairval.open(db_path).study("demo-pairs")
    items = study.items()
    real = set(items.loc[~items["practice"].astype(bool) & items["gold"].isna(), "item_id"])
    ratings = study.ratings()
    ratings = ratings[ratings["item_id"].isin(real)]
    values = ["-1", "0", "1"]          # the harm question's answers in true order, each a column, chosen or not
    assert [c for c in soft.columns if c.startswith("share_")] == [f"share_harm_{v}" for v in values]
    expected_rows = 0
    for (item, question), part in ratings.groupby(["item_id", "question"]):
        for group in ("all", "female", "male"):
            chosen = part if group == "all" else part[part["rater_gender"] == group]
            if chosen.empty:
                continue
            expected_rows += 1
            row = soft[(soft["item_id"] == item) & (soft["question"] == question) & (soft["rater_group"] == group)]
            assert len(row) == 1, (item, group)
            counts = Counter(str(v) for v in chosen["canonical"])
            assert int(row["n_raters"].iloc[0]) == chosen["rater_id"].nunique()
            for v in values:
                assert row[f"share_harm_{v}"].iloc[0] == pytest.approx(counts[v] / len(chosen), abs=1e-12)
    assert len(soft) == expected_rows
    assert set(soft["item_id"]) == real


def test_a_pair_export_gives_the_crowd_models_label_beside_the_mean(db_path, tmp_path):
    from fairval.analysis.rater_model import dawid_skene

    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db_path), "demo", "--no-serve"]).exit_code == 0
    out = tmp_path / "pairs.csv"
    assert runner.invoke(cli, ["--db", str(db_path), "export", "demo-pairs", "--out", str(out)]).exit_code == 0
    table = pd.read_csv(out, dtype={"item_id": str, "model_label": str}).set_index("item_id")
    study = fairval.open(db_path).study("demo-pairs")
    items = study.items()
    real = set(items.loc[~items["practice"].astype(bool) & items["gold"].isna(), "item_id"])
    ratings = study.ratings()
    ratings = ratings[ratings["item_id"].isin(real) & (ratings["question"] == "harm")]
    labels = dawid_skene(ratings[["item_id", "rater_id", "canonical"]].rename(columns={"canonical": "value"})).labels()
    assert set(table.index) == real
    for item in real:
        assert table.loc[item, "model_label"] == str(labels[item])


def test_each_question_has_its_own_columns_over_all_its_answers(db, tmp_path):
    """A names study asks race and gender: their shares never share a column (a race row read
    share_male = 0), and an answer nobody chose still has its column (0), so two exports of the same
    study design have the same columns whatever the raters answered (issue 54)."""
    from fairval.annotate.material.importers import import_items, import_ratings
    from fairval.annotate.material.studies import create_study
    from fairval.annotate.outputs.export import soft_label_table
    from tests.conftest import write_jsonl

    create_study(db, "names", "name_perception", raters_per_item=3)
    import_items(db, "names", write_jsonl(tmp_path / "i.jsonl", [
        {"id": "n1", "name": "Keisha", "race": "Black", "gender": "female"},
        {"id": "n2", "name": "Connor", "race": "white", "gender": "male"}]))
    answers = {("n1", "r1"): ("Black", "female"), ("n1", "r2"): ("Black", "female"), ("n1", "r3"): ("white", "male"),
               ("n2", "r1"): ("white", "male"), ("n2", "r2"): ("white", "male")}
    import_ratings(db, "names", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": i, "rater_id": r, "question": q, "value": v}
        for (i, r), (race, gender) in answers.items() for q, v in (("race", race), ("gender", gender))]))
    soft = soft_label_table(db, "names")
    race = ["white", "Black", "Asian", "Hispanic", "Native American", "can't tell"]
    gender = ["male", "female", "non-binary", "can't tell"]
    assert [c for c in soft.columns if c.startswith("share_")] == (
        [f"share_race_{v}" for v in race] + [f"share_gender_{v}" for v in gender])
    for (item, question), row in soft.set_index(["item_id", "question"]).iterrows():
        mine, other = (race, gender) if question == "race" else (gender, race)
        chosen = Counter(a[0 if question == "race" else 1] for (i, _r), a in answers.items() if i == item)
        for v in mine:                                      # counted here, from the answers written above
            assert row[f"share_{question}_{v}"] == pytest.approx(chosen[v] / sum(chosen.values()), abs=1e-12)
        other_question = "gender" if question == "race" else "race"
        assert all(pd.isna(row[f"share_{other_question}_{v}"]) for v in other), (item, question)
