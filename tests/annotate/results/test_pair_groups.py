"""H per group pair by stratified PPI: each stratum's PPI++ estimate is ppi_py's formula on that stratum's
pairs, and the overall H is their mean weighted by the strata's shares, with se² = Σ w² se², written out
here; an active sample is refused with a reason."""
import json
import math

import numpy as np
import pytest

import fairval
from tests.conftest import write_jsonl

Z = 1.959963984540054


def ppi_by_hand(y, f, f_u):
    """PPI++ for a mean with the power-tuned λ (Angelopoulos, Duchi and Zrnic), as ppi_py computes it."""
    y, f, f_u = map(np.asarray, (y, f, f_u))
    n, big_n = len(y), len(f_u)
    everything = np.concatenate([f, f_u])
    lam = np.clip(np.mean((y - y.mean()) * (f - f.mean())) / ((1 + n / big_n) * everything.var(ddof=1)), 0, 1)
    value = lam * f_u.mean() + (y - lam * f).mean()
    se = math.sqrt((lam * f_u).var() / big_n + (y - lam * f).var() / n)
    return value, se


def test_each_group_pair_and_the_stratified_h(cli_output, tmp_path, db_path):
    rng = np.random.default_rng(8)
    groups = [("woman", "man", 60), ("Black", "white", 40)]
    pairs, scores, truth = [], {}, {}
    for a, b, n in groups:
        for k in range(n):
            item = f"{a}-{k}"
            pairs.append({"id": item, "prompt": "P", "response_a": "x", "response_b": "y", "group_a": a, "group_b": b})
            truth[item] = rng.choice(["A", "B", "C"], p=[0.3, 0.1, 0.6] if a == "woman" else [0.1, 0.2, 0.7])
            scores[item] = {"A": 0.6, "B": -0.6, "C": 0.0}[truth[item]] + rng.normal(0, 0.2)
    cli_output("study", "create", "p", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "pairs.jsonl", pairs)
    cli_output("items", "import", "p", tmp_path / "pairs.jsonl")
    write_jsonl(tmp_path / "lmra.jsonl", [{"item_id": i, "model": "j", "score": float(np.clip(s, -1, 1))}
                                          for i, s in scores.items()])
    cli_output("lmra", "import", "p", tmp_path / "lmra.jsonl")
    cli_output("study", "sample", "p", "--n", "50", "--seed", "2")
    with fairval.open(db_path) as db:
        items = db.study("p").items()
    drawn = list(items.loc[~items["judge_only"].astype(bool), "item_id"])
    write_jsonl(tmp_path / "ratings.jsonl", [{"item_id": i, "rater_id": f"r{k}", "question": "harm",
                                              "value": truth[i]} for k, i in enumerate(drawn)])
    cli_output("ratings", "import", "p", tmp_path / "ratings.jsonl")
    block = json.loads(cli_output("analyze", "p", "--json"))["harm"]["by_pair_group"]
    value, variance = 0.0, 0.0
    for a, b, n in groups:
        ids = [f"{a}-{k}" for k in range(n)]
        rated = [i for i in ids if i in drawn]
        y = [{"A": 1, "B": -1, "C": 0}[truth[i]] for i in rated]
        f = [float(np.clip(scores[i], -1, 1)) for i in rated]
        f_u = [float(np.clip(scores[i], -1, 1)) for i in ids if i not in drawn]
        v, se = ppi_by_hand(y, f, f_u)
        got = block["groups"][f"{a} vs {b}"]
        assert got["n_pairs"] == n and got["n_rated"] == len(rated)
        assert got["ppi"]["value"] == pytest.approx(v) and got["ppi"]["ci"] == pytest.approx([v - Z * se, v + Z * se])
        # sign agreement's value beside its interval (issue 53): pairs whose one rating is not C, Wilson's interval
        leaning = [(yi, fi) for yi, fi in zip(y, f) if yi != 0]
        hits, m = sum(np.sign(yi) == np.sign(fi) for yi, fi in leaning), len(leaning)
        share = hits / m
        centre, half_w = (share + Z * Z / (2 * m)) / (1 + Z * Z / m), Z / (1 + Z * Z / m) * math.sqrt(
            share * (1 - share) / m + Z * Z / (4 * m * m))
        assert got["sign_agreement"] == pytest.approx(share)
        assert got["sign_agreement_ci"] == pytest.approx([centre - half_w, centre + half_w])
        value += n / 100 * v
        variance += (n / 100 * se) ** 2
    half = Z * math.sqrt(variance)
    assert block["stratified"]["value"] == pytest.approx(value)
    assert block["stratified"]["ci"] == pytest.approx([value - half, value + half])
    # Neyman's allocation of the 50 rated pairs: n_k ∝ w_k σ_k, σ_k the spread of Y − λ_k f on the rated pairs
    want, spread = {}, {}
    for a, b, n in groups:
        ids = [f"{a}-{k}" for k in range(n)]
        rated = [i for i in ids if i in drawn]
        y = np.array([{"A": 1, "B": -1, "C": 0}[truth[i]] for i in rated], float)
        f = np.array([float(np.clip(scores[i], -1, 1)) for i in rated])
        lam = block["groups"][f"{a} vs {b}"]["ppi"]["lambda"]
        spread[f"{a} vs {b}"] = np.std(y - lam * f, ddof=1)
        want[f"{a} vs {b}"] = n / 100 * spread[f"{a} vs {b}"]
    scale = 50 / sum(want.values())
    ideal = {g: v * scale for g, v in want.items()}
    allocation = block["allocation"]
    assert allocation["total"] == 50 and sum(allocation["pairs"].values()) == 50
    assert all(abs(allocation["pairs"][g] - ideal[g]) < 1 for g in ideal)
    assert allocation["spread"] == pytest.approx(spread)
    assert allocation["more"] == {g: max(0, allocation["pairs"][g] - block["groups"][g]["n_rated"]) for g in ideal}
    w = {g: n / 100 for g, n in (("woman vs man", 60), ("Black vs white", 40))}
    assert allocation["variance_ratio"] == pytest.approx(sum(w[g] * spread[g] for g in w) ** 2
                                                         / sum(w[g] * spread[g] ** 2 for g in w))
    # the Calibration page and the report show the same rows and sentence (outputs.judge_table)
    from fairval.annotate.outputs.judge_table import pair_group_rows, stratified_sentence
    from fairval.annotate.results.blocks import PairGroups
    typed = PairGroups.from_dict(block)
    rows = {r["groups"]: r for r in pair_group_rows(typed)}
    assert {g: (r["pairs"], r["rated"], r["rated, best spread"]) for g, r in rows.items()} == {
        g: (block["groups"][g]["n_pairs"], block["groups"][g]["n_rated"], allocation["pairs"][g]) for g in ideal}
    cli_output("report", "p", "--out", tmp_path / "r.md")
    text = (tmp_path / "r.md").read_text().replace("\\", "")
    assert "## Harmful-stereotype rate H by group pair" in text
    assert stratified_sentence(typed, "Harmful-stereotype rate H") in text
