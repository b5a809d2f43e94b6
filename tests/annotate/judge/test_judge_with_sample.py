"""A human sample and the judge on every pair: PPI++ in `analyze --json` from the files as written, and a
calibration map fitted with `fairval calibrate`, applied with `fairval lmra apply-map`, imported back."""
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from fairval.analysis.ppi import ppi_mean
from tests.conftest import write_jsonl

ANSWER = {1: "A", -1: "B", 0: "C"}


@pytest.fixture
def study(cli_output, tmp_path):
    """60 pairs, people rated the first 30 (4 raters each), a judge that squashes and shifts the truth."""
    rng = np.random.default_rng(11)
    truth = rng.uniform(-1, 1, 60)
    cli_output("study", "create", "s", "--task", "harmful_stereotype")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k}", "prompt": "P", "response_a": "a", "response_b": "b",
                                            "group_a": "woman", "group_b": "man"} for k in range(60)])
    cli_output("items", "import", "s", tmp_path / "pairs.jsonl")
    ratings = [{"item_id": f"p{k}", "rater_id": f"r{r}", "question": "harm", "flipped": False,
                "value": ANSWER[int(np.clip(np.round(truth[k] + rng.normal(0, 0.4)), -1, 1))]}
               for k in range(30) for r in range(4)]
    write_jsonl(tmp_path / "ratings.jsonl", ratings)
    cli_output("ratings", "import", "s", tmp_path / "ratings.jsonl")
    judge = np.clip(0.3 * truth + 0.5 + rng.normal(0, 0.05, 60), -1, 1)
    pd.DataFrame({"item_id": [f"p{k}" for k in range(60)], "model": "j", "score": judge}).to_csv(
        tmp_path / "lmra.csv", index=False)
    cli_output("lmra", "import", "s", tmp_path / "lmra.csv")
    score = {"A": 1.0, "B": -1.0, "C": 0.0}
    human = pd.DataFrame(ratings).assign(score=lambda f: f["value"].map(score)).groupby("item_id")["score"].mean()
    return human, pd.Series(judge, index=[f"p{k}" for k in range(60)])


def test_ppi_in_analyze_uses_the_rated_pairs_as_labelled_and_the_rest_as_unlabelled(cli_output, study):
    human, judge = study
    ppi = json.loads(cli_output("analyze", "s", "--json", "--bootstrap", "0"))["harm"]["ppi"]
    labelled = human.index
    want = ppi_mean(human.to_numpy(), judge[labelled].to_numpy(), judge.drop(labelled).to_numpy())
    assert ppi["value"] == pytest.approx(want.value) and ppi["ci"] == pytest.approx(list(want.ci))
    assert (ppi["n_labelled"], ppi["n_unlabelled"]) == (30, 30)
    assert ppi["human_only"]["value"] == pytest.approx(human.mean())
    assert "not known to be random" in ppi["sampling"]


def test_a_calibration_map_puts_the_judge_on_the_human_scale(cli_output, study, tmp_path):
    human, judge = study
    said = cli_output("calibrate", "s", "--out", tmp_path / "map.json", "--folds", "3")
    table = json.loads((tmp_path / "map.json").read_text())
    assert table["model"] == "j" and table["n_pairs"] == 30 and "isotonic r" in said
    cv = table["cross_validation"]
    assert cv["isotonic"]["mae"] < cv["raw"]["mae"] and cv["linear"]["mae"] < cv["raw"]["mae"]
    cli_output("lmra", "apply-map", "s", tmp_path / "map.json", "--out", tmp_path / "calibrated.csv")
    calibrated = pd.read_csv(tmp_path / "calibrated.csv").set_index("item_id")
    assert len(calibrated) == 60 and set(calibrated["model"]) == {"j calibrated"}
    assert (calibrated["raw_score"] - judge[calibrated.index]).abs().max() < 1e-9
    labelled = human.index
    raw_error = (judge[labelled] - human).abs().mean()
    assert (calibrated.loc[labelled, "score"] - human).abs().mean() < raw_error
    cli_output("lmra", "import", "s", tmp_path / "calibrated.csv")       # back in, as a judge of its own
    numbers = json.loads(cli_output("analyze", "s", "--json", "--bootstrap", "0"))
    assert set(numbers["lmra"]["by_model"]) == {"j", "j calibrated"}


def test_plan_answers_how_many_pairs_and_raters_with_a_number_and_a_cost(cli_output, study):
    said = cli_output("plan", "s", "--target-ci-width", "0.2")
    best = re.search(r"cheapest reaching 0.2: (\d+) pairs x (\d+) raters? = (\d+) judgments by about (\d+) raters, "
                     r"([\d.]+) USD with the fee", said)
    assert best, said
    pairs, per_pair, judgments, raters, cost = map(float, best.groups())
    assert judgments == pairs * per_pair and raters == max(per_pair, math.ceil(judgments / 20))
    assert cost == pytest.approx(round((judgments * 0.5 + raters * 1.15) * 1.43, 2))
    planned = json.loads(cli_output("plan", "s", "--target-ci-width", "0.2", "--json"))
    assert planned["cheapest"]["pairs"] == pairs and len(planned["designs"]) == 9 * 8
    assert "no design" in cli_output("plan", "s", "--target-ci-width", "0.0001")


def test_plan_before_any_pilot_from_assumed_values_opens_no_database(cli_output, db_path):
    """No study yet: how many pairs and raters for ρ within ±0.1, from an assumed ρ and rater agreement."""
    planned = json.loads(cli_output("plan", "--target-ci-width", "0.2", "--assume-rho", "0.6",
                                    "--assume-alpha", "0.3", "--json"))
    assert "assumed values" in planned["source"] and not db_path.exists()
    best = planned["cheapest"]
    row = next(d for d in planned["designs"]
               if (d["pairs"], d["raters_per_pair"]) == (best["pairs"], best["raters_per_pair"]))
    assert row["rho_width"] <= 0.2 and best["expected_width"] == pytest.approx(row["rho_width"])
    said = cli_output("plan", "--target-ci-width", "0.2", "--assume-rho", "0.6", "--assume-alpha", "0.3")
    per_pair = f"{best['raters_per_pair']} rater" + ("s" if best["raters_per_pair"] > 1 else "")
    assert f"cheapest reaching 0.2: {best['pairs']} pairs x {per_pair} = " in said
    assert "simulated from assumed values" in said
