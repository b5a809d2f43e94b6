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
    values = sorted({str(v) for v in ratings["canonical"]}, key=float)
    assert [c for c in soft.columns if c.startswith("share_")] == [f"share_{v}" for v in values]
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
                assert row[f"share_{v}"].iloc[0] == pytest.approx(counts[v] / len(chosen), abs=1e-12)
    assert len(soft) == expected_rows
    assert set(soft["item_id"]) == real
