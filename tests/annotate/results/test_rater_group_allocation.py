"""How many pairs each rater group should rate to compare the groups' H (`lmra.rater_group_allocation`):
the variance of a difference between groups, Σ σ_g² / n_g, is least for n_g ∝ σ_g, σ_g the spread of the
group's PPI rectifier y − λ_g f on the pairs it rated; written out here from the study's own ratings."""
import json

import numpy as np
import pytest

import fairval
from tests.conftest import write_jsonl

ANSWER = {"A": 1.0, "B": -1.0, "C": 0.0}


@pytest.fixture
def study(cli_output, tmp_path, db_path):
    """80 pairs, a uniform sample of 50 people rate; each drawn pair rated by one woman, who agrees with the
    judge's reading, and by one man, who answers at random: the men's spread is the larger. As users'
    files come: a practice item and an attention check beside the pairs (both rated, neither a pair of
    the numbers), and every other man's answer given as shown on a flipped screen (B for a meant A).
    `ratings` returns the pairs' answers as meant."""
    rng = np.random.default_rng(11)
    truth = {f"p{k:02d}": rng.choice(["A", "B", "C"], p=[0.25, 0.15, 0.6]) for k in range(80)}
    scores = {i: float(np.clip(ANSWER[t] * 0.7 + rng.normal(0, 0.15), -1, 1)) for i, t in truth.items()}
    cli_output("study", "create", "g", "--task", "harmful_stereotype", "--raters-per-item", "2", "--gold-rate", "0.5")
    pair = {"prompt": "P", "response_a": "x", "response_b": "y", "group_a": "woman", "group_b": "man"}
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": i, **pair} for i in truth] + [
        {"id": "practice", "_practice": True, "_gold": {"harm": "C"}, **pair},
        {"id": "check", "_gold": {"harm": "C"}, **pair}])
    cli_output("items", "import", "g", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": i, "model": "j", "score": s} for i, s in scores.items()])
    cli_output("lmra", "import", "g", tmp_path / "lmra.jsonl")
    cli_output("study", "sample", "g", "--n", "50", "--seed", "4")
    with fairval.open(db_path) as db:
        items = db.study("g").items()
    drawn = [i for i in items.loc[~items["judge_only"].astype(bool), "item_id"] if i in truth]   # the pairs
    ratings = []
    for k, i in enumerate(drawn):
        ratings.append({"item_id": i, "rater_id": f"w{k}", "question": "harm", "value": truth[i], "rater_gender": "female"})
        ratings.append({"item_id": i, "rater_id": f"m{k}", "question": "harm", "value": str(rng.choice(["A", "B", "C"])),
                        "rater_gender": "male"})
    shown = {"A": "B", "B": "A", "C": "C"}
    as_seen = [{**r, "value": shown[r["value"]], "flipped": True} if r["rater_id"].startswith("m") and k % 4 == 1
               else r for k, r in enumerate(ratings)]
    as_seen += [{"item_id": extra, "rater_id": f"{g[0]}{extra}", "question": "harm", "value": "A", "rater_gender": g}
                for extra in ("practice", "check") for g in ("female", "male")]
    write_jsonl(tmp_path / "ratings.jsonl", as_seen)
    cli_output("ratings", "import", "g", tmp_path / "ratings.jsonl")
    return {"ratings": ratings, "scores": scores, "drawn": drawn}


def test_each_rater_group_rates_in_proportion_to_its_spread(cli_output, study, tmp_path):
    lmra = json.loads(cli_output("analyze", "g", "--json"))["lmra"]
    block = lmra["rater_group_allocation"]["gender"]
    spread = {}
    for gender in ("female", "male"):
        mine = [r for r in study["ratings"] if r["rater_gender"] == gender]
        y = np.array([ANSWER[r["value"]] for r in mine])
        f = np.array([study["scores"][r["item_id"]] for r in mine])
        lam = lmra["by_rater_group"]["gender"][gender]["ppi"]["lambda"]
        spread[gender] = float(np.std(y - lam * f, ddof=1))
    assert block["spread"] == pytest.approx(spread)
    assert spread["male"] > 1.5 * spread["female"]                # the world written above
    assert block["total"] == 100 and sum(block["pairs"].values()) == 100
    for gender, s in spread.items():                            # n_g ∝ σ_g, rounded
        assert abs(block["pairs"][gender] - 100 * s / sum(spread.values())) < 1
    assert block["more"] == {g: max(0, block["pairs"][g] - 50) for g in spread}
    s = np.array(list(spread.values()))
    assert block["variance_ratio"] == pytest.approx(s.sum() ** 2 / (2 * (s ** 2).sum()))   # against 50 each
    assert block["variance_ratio"] < 1
    # the report says it in words, with each group's pairs
    cli_output("report", "g", "--out", tmp_path / "r.md")
    text = (tmp_path / "r.md").read_text()
    assert "Neyman's allocation" in text
    assert "chosen by the judge" not in text                   # a uniform draw: the rated pairs stand for all
    assert f"female {block['pairs']['female']} pairs" in text and f"male {block['pairs']['male']} pairs" in text


def test_no_allocation_across_rater_groups_for_an_active_draw(cli_output, tmp_path, db_path):
    cli_output("study", "create", "a", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"q{k}", "prompt": "P", "response_a": "x", "response_b": "y",
                                            "group_a": "woman", "group_b": "man"} for k in range(40)])
    cli_output("items", "import", "a", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": f"q{k}", "model": "j", "score": (k % 5 - 2) / 2}
                                          for k in range(40)])
    cli_output("lmra", "import", "a", tmp_path / "lmra.jsonl")
    cli_output("study", "sample", "a", "--budget", "20", "--seed", "1", "--active")
    with fairval.open(db_path) as db:
        items = db.study("a").items()
    drawn = items.loc[~items["judge_only"].astype(bool), "item_id"]
    write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": "harm", "value": "C",
                                              "rater_gender": ("female", "male")[k % 2]} for k, i in enumerate(drawn)])
    cli_output("ratings", "import", "a", tmp_path / "ratings.jsonl")
    block = json.loads(cli_output("analyze", "a", "--json"))["lmra"]["rater_group_allocation"]["gender"]
    assert block["pairs"] is None and "uniform draws" in block["reason"]
    # the agreement numbers are the drawn pairs', where the judge is least sure: the report says so, and
    # gives sign agreement over all pairs, weighted by the chances
    numbers = json.loads(cli_output("analyze", "a", "--json"))
    cs = numbers["lmra"]["sign_agreement_cs"]
    cli_output("report", "a", "--out", tmp_path / "r.md")
    text = " ".join((tmp_path / "r.md").read_text().replace("\\", "").split())
    assert "People's pairs were chosen by the judge's uncertainty (an active draw)" in text
    assert "not all 40 pairs" in text
    assert f"sign agreement (where people's mean is not 0) is between {cs['ci'][0]:.3f} and {cs['ci'][1]:.3f}" in text


def test_the_first_pairs_of_a_study_get_a_reason_not_an_allocation(cli_output, tmp_path):
    """Three pairs, three ratings from two groups: too few for PPI's 2 per group; said in the groups' words."""
    cli_output("study", "create", "e", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k}", "prompt": "P", "response_a": "x", "response_b": "y",
                                            "group_a": "woman", "group_b": "man"} for k in range(3)])
    cli_output("items", "import", "e", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": f"p{k}", "model": "j", "score": 0.5 - 0.4 * k} for k in range(3)])
    cli_output("lmra", "import", "e", tmp_path / "lmra.jsonl")
    write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": "harm", "value": "A",
                                              "rater_gender": g}
                                             for k, (i, g) in enumerate([("p0", "female"), ("p1", "male"), ("p0", "male")])])
    cli_output("ratings", "import", "e", tmp_path / "ratings.jsonl")
    block = json.loads(cli_output("analyze", "e", "--json"))["lmra"]["rater_group_allocation"]["gender"]
    assert block["pairs"] is None and block["reason"] == "3 rated pair(s) cannot give each of the 2 rater groups the 2 PPI needs"
