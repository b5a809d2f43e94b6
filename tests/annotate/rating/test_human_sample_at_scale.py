"""Issue 11's "done when": a researcher with 5,050 pairs the judge scored draws 50 for people at random,
has them rated, and gets H by PPI++ with an interval narrower than the 50 pairs alone give, from one
command and on the Calibration page, told that the human subset is a random sample."""
import csv
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from fairval.analysis.ppi import ppi_mean
from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl
from tests.ui.apptest import plain
from tests.ui.test_researcher_pages import sign_in

PAIRS, SAMPLE, RATERS = 5050, 50, 3
ANSWER = {1: "A", -1: "B", 0: "C"}


@pytest.fixture
def study(cli_output, tmp_path):
    rng = np.random.default_rng(21)
    ids = [f"p{k}" for k in range(PAIRS)]
    truth = pd.Series(rng.uniform(-1, 1, PAIRS), index=ids)
    cli_output("study", "create", "s", "--task", "harmful_stereotype")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": i, "prompt": "P", "response_a": "a", "response_b": "b",
                                            "group_a": "woman", "group_b": "man"} for i in ids])
    cli_output("items", "import", "s", tmp_path / "pairs.jsonl")
    judge = (0.6 * truth + 0.2 + rng.normal(0, 0.1, PAIRS)).clip(-1, 1)      # a good judge, biased
    judge.rename("score").rename_axis("item_id").reset_index().assign(model="j").to_csv(
        tmp_path / "lmra.csv", index=False)
    cli_output("lmra", "import", "s", tmp_path / "lmra.csv")
    said = cli_output("study", "sample", "s", "--n", SAMPLE, "--seed", 3, "--out", tmp_path / "sample.csv")
    assert f"drew {SAMPLE} pairs" in said
    with open(tmp_path / "sample.csv", newline="") as f:
        drawn = [row["item_id"] for row in csv.DictReader(f)]
    assert len(set(drawn)) == SAMPLE and set(drawn) <= set(ids)
    ratings = [{"item_id": i, "rater_id": f"r{r}", "question": "harm", "flipped": False,
                "value": ANSWER[int(np.clip(np.round(truth[i] + rng.normal(0, 0.4)), -1, 1))]}
               for i in drawn for r in range(RATERS)]
    write_jsonl(tmp_path / "ratings.jsonl", ratings)
    cli_output("ratings", "import", "s", tmp_path / "ratings.jsonl")
    score = {"A": 1.0, "B": -1.0, "C": 0.0}
    human = pd.DataFrame(ratings).assign(score=lambda f: f["value"].map(score)).groupby("item_id")["score"].mean()
    return human, judge


def test_ppi_is_narrower_than_the_sample_alone_and_says_the_sample_is_random(cli_output, study):
    human, judge = study
    ppi = json.loads(cli_output("analyze", "s", "--json", "--bootstrap", "0"))["harm"]["ppi"]
    assert (ppi["n_labelled"], ppi["n_unlabelled"]) == (SAMPLE, PAIRS - SAMPLE)
    want = ppi_mean(human.to_numpy(), judge[human.index].to_numpy(), judge.drop(human.index).to_numpy())
    assert ppi["value"] == pytest.approx(want.value) and ppi["ci"] == pytest.approx(list(want.ci))
    width = lambda ci: ci[1] - ci[0]                                     # noqa: E731
    assert width(ppi["ci"]) < 0.8 * width(ppi["human_only"]["ci"])
    assert ppi["sampling"].startswith(f"a random sample of {SAMPLE} of {PAIRS:,} pairs (seed 3")


def test_the_calibration_page_says_it_in_a_sentence(study, monkeypatch):
    at = sign_in("2_Calibration.py", monkeypatch)
    at.selectbox(key="study").set_value("s").run()
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "by prediction-powered inference (PPI++" in captions
    assert f"{SAMPLE} pairs rated by people and 5,000 pairs by the judge alone" in captions
    assert f"a random sample of {SAMPLE} of {PAIRS:,} pairs" in captions


def test_ratings_for_pairs_left_to_the_judge_are_refused_whole(db_path, study, tmp_path):
    human, judge = study
    outside = next(i for i in judge.index if i not in human.index)
    write_jsonl(tmp_path / "late.jsonl", [
        {"item_id": human.index[0], "rater_id": "late", "question": "harm", "value": "A"},
        {"item_id": outside, "rater_id": "late", "question": "harm", "value": "A"}])
    result = CliRunner().invoke(cli, ["--db", str(db_path), "ratings", "import", "s", str(tmp_path / "late.jsonl")])
    assert result.exit_code != 0
    assert "late.jsonl" in result.output and "line 2" in result.output and outside in result.output
    assert "outside the study's random human sample" in result.output
    numbers = json.loads(CliRunner().invoke(cli, ["--db", str(db_path), "analyze", "s", "--json",
                                                  "--bootstrap", "0"]).output)
    assert numbers["harm"]["ppi"]["n_labelled"] == SAMPLE                 # nothing of the file was written
