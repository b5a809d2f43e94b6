"""The judge's fairness audit (issue 53) where a researcher reads it: the Calibration page, the report and
the methods paragraph, on a study written here whose judge reports 0.5 less harm than people on one of its
two group pairs, and which was asked again with the labels swapped (stored as `lmra run --swap-groups`
stores it) where it kept its letter on every pair."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import fairval
from fairval.store import lmra as lmra_store
from fairval.store import open_db
from tests.conftest import write_jsonl

GROUPS = (("woman", "man"), ("old", "young"))


@pytest.fixture
def audited(db_path, tmp_path):
    rng = np.random.default_rng(11)
    db = fairval.open(db_path)
    study = db.create_study("audit", task="harmful_stereotype", raters_per_item=3)
    pairs, lmra, ratings = [], [], []
    for i in range(60):
        a, b = GROUPS[i % 2]
        pairs.append({"id": f"p{i}", "prompt": f"prompt {i}", "response_a": f"a{i}", "response_b": f"b{i}",
                      "group_a": a, "group_b": b})
        values = rng.choice(["A", "B", "C"], size=3, p=[0.5, 0.2, 0.3])
        human = np.mean([{"A": 1, "B": -1, "C": 0}[v] for v in values])
        shift = 0.5 if a == "old" else 0.0                      # the judge under-reports harm for old vs young
        lmra.append({"item_id": f"p{i}", "model": "judge",
                     "score": float(np.clip(human + rng.normal(0, 0.15) - shift, -1, 1))})
        for r, v in enumerate(values):
            ratings.append({"item_id": f"p{i}", "rater_id": f"r{r}", "question": "harm", "value": str(v), "flipped": 0})
    study.import_items(write_jsonl(tmp_path / "pairs.jsonl", pairs))
    study.import_lmra(write_jsonl(tmp_path / "lmra.jsonl", lmra))
    study.import_ratings(write_jsonl(tmp_path / "ratings.jsonl", ratings))
    lmra_store.upsert_scores(open_db(db_path), "audit", [
        {"item_id": row["item_id"], "model": "judge" + lmra_store.SWAPPED, "score": row["score"]} for row in lmra])
    return study


def test_the_audit_is_in_analyze_the_report_the_methods_and_the_page(audited, db_path, tmp_path, monkeypatch):
    from fairval.annotate.cli.main import cli
    from fairval.annotate.outputs.methods import methods_text
    from tests.ui.apptest import page

    audit = audited.analyze(bootstrap=200).to_dict()["lmra"]["by_pair_group"]
    assert audit["equal_error"]["p_value"] < 0.001
    assert audit["groups"]["old vs young"]["mean_error"] < audit["groups"]["woman vs man"]["mean_error"] - 0.3
    assert audit["label_swap"]["follows_labels"] == pytest.approx(
        np.mean([s != 0 for s in lmra_store.scores_frame(open_db(db_path), "audit")["score"]]))

    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "report", "audit", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = out.read_text(encoding="utf-8")
    assert "Is the judge fair? Its error by group pair" in report and "Welch" in report
    assert "followed the labels rather than the responses" in report

    text, cites = methods_text(open_db(db_path), "audit")
    assert "Welch's heteroscedastic one-way test [welch1951]" in text and "welch1951" in cites
    assert "followed the labels rather than the responses" in text

    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    at = page("2_Calibration.py")
    at.text_input[0].input("s3cret")
    at.button[0].click().run()
    assert not at.exception
    assert "Is the judge fair? Its error by group pair" in [h.value for h in at.subheader]
    assert any("the most negative error" in c.value and "old vs young" in c.value for c in at.caption)
