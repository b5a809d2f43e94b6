"""The judge's card on a pair study written here with the judge's probabilities in both orders: ECE and Brier
against people's answers (issue 53: not their majority) and both length correlations equal values computed
in this test with plain loops, to 1e-9."""
from __future__ import annotations

import math

import numpy as np
import pytest

import fairval
from tests.conftest import write_jsonl


def pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


def combined(p, q):
    p, q = [x / sum(p) for x in p], [x / sum(q) for x in q]          # each order renormalised (App. H)
    raw = [min(p[0], q[1]), min(p[1], q[0]), min(p[2], q[2])]
    return [x / sum(raw) for x in raw]


@pytest.fixture
def study(db_path, tmp_path):
    rng = np.random.default_rng(5)
    db = fairval.open(db_path)
    study = db.create_study("card", task="harmful_stereotype", raters_per_item=3)
    pairs, lmra, ratings = [], [], []
    for i in range(40):
        a, b = "x" * int(rng.integers(20, 400)), "y" * int(rng.integers(20, 400))
        pairs.append({"id": f"p{i}", "prompt": "Plan my week", "response_a": a, "response_b": b,
                      "group_a": "woman", "group_b": "man"})
        p = rng.dirichlet([2, 1, 1]).round(4) + 0.001
        q = rng.dirichlet([1, 2, 1]).round(4) + 0.001
        lmra.append({"item_id": f"p{i}", "model": "judge", **dict(zip(("p_a", "p_b", "p_c"), p.tolist())),
                     **dict(zip(("q_a", "q_b", "q_c"), q.tolist()))})
        for r in range(3 if i % 7 else 2):                       # every 7th pair: 2 raters, so ties happen
            ratings.append({"item_id": f"p{i}", "rater_id": f"r{r}", "question": "harm",
                            "value": str(rng.choice(["A", "B", "C"], p=[0.5, 0.2, 0.3])), "flipped": 0})
    study.import_items(write_jsonl(tmp_path / "pairs.jsonl", pairs))
    study.import_lmra(write_jsonl(tmp_path / "lmra.jsonl", lmra))
    study.import_ratings(write_jsonl(tmp_path / "ratings.jsonl", ratings))
    return study, pairs, lmra, ratings


def test_ece_brier_and_length_leans_equal_the_loops_here(study):
    study, pairs, lmra, ratings = study
    card = study.analyze(bootstrap=0).to_dict()["lmra"]
    canonical = {"A": 1, "B": -1, "C": 0}                                  # shown unflipped: true order
    per_pair = {}
    for r in ratings:
        per_pair.setdefault(r["item_id"], []).append(canonical[r["value"]])
    bins = [[] for _ in range(10)]
    brier, ties = 0.0, 0
    for row in lmra:            # against people's answers: each rater's answer, not the majority (issue 53)
        values = per_pair[row["item_id"]]
        r = combined([row["p_a"], row["p_b"], row["p_c"]], [row["q_a"], row["q_b"], row["q_c"]])
        confidence = max(r)
        tied = [k for k in range(3) if r[k] == confidence]
        ties += len(tied) > 1
        agree = sum(values.count((1, -1, 0)[k]) / len(values) for k in tied) / len(tied)
        b = min(max(math.ceil(confidence * 10) - 1, 0), 9)
        bins[b].append((confidence, agree))
        brier += sum(sum((r[j] - (1 if (1, -1, 0)[j] == v else 0)) ** 2 for j in range(3)) for v in values) / len(values)
    kept = len(lmra)
    ece = sum(len(b) / kept * abs(sum(h for _, h in b) / len(b) - sum(c for c, _ in b) / len(b)) for b in bins if b)
    confidence = card["confidence"]
    assert (confidence["n_pairs"], confidence["n_ties"]) == (kept, ties)
    assert confidence["ece"] == pytest.approx(ece, abs=1e-9)
    assert confidence["brier"] == pytest.approx(brier / kept, abs=1e-9)
    assert [b["n"] for b in confidence["bins"]] == [len(b) for b in bins]

    score = {row["item_id"]: (lambda r: r[0] - r[1])(combined([row["p_a"], row["p_b"], row["p_c"]],
                                                                [row["q_a"], row["q_b"], row["q_c"]])) for row in lmra}
    human = {i: sum(v) / len(v) for i, v in per_pair.items()}
    diff = {p["id"]: len(p["response_a"]) - len(p["response_b"]) for p in pairs}
    ids = [p["id"] for p in pairs]
    length = card["length"]
    assert length["judge_r"] == pytest.approx(pearson([score[i] for i in ids], [diff[i] for i in ids]), abs=1e-9)
    assert length["human_r"] == pytest.approx(pearson([human[i] for i in ids], [diff[i] for i in ids]), abs=1e-9)
    assert length["difference"] == pytest.approx(length["judge_r"] - length["human_r"], abs=1e-12)


def test_intervals_come_with_bootstrap_draws(study):
    study, *_ = study
    card = study.analyze(bootstrap=200).to_dict()["lmra"]
    for key in ("ece", "brier"):
        low, high = card["confidence"][f"{key}_ci"]
        assert low <= card["confidence"][key] <= high and high > low
    low, high = card["length"]["difference_ci"]
    assert low < high


def test_the_calibration_page_and_the_report_show_the_card(study, db_path, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    from tests.ui.apptest import page

    study, *_ = study
    out = tmp_path / "report.html"
    assert CliRunner().invoke(cli, ["--db", str(db_path), "report", "card", "--out", str(out)]).exit_code == 0
    assert "expected calibration error" in out.read_text(encoding="utf-8")
    assert "Reliability diagram" in out.read_text(encoding="utf-8")
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    at = page("2_Calibration.py")
    at.text_input[0].input("s3cret")
    at.button[0].click().run()
    assert not at.exception
    assert any("expected calibration error" in c.value for c in at.caption)
    assert "The judge's confidence against people" in [h.value for h in at.subheader]
