"""The crowd's own model (analysis.rater_model): Dawid–Skene against an EM written here as plain loops, and
the random answerers of a simulated crowd flagged while honest raters, who see a harm that runs one way,
are not."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bench.rater_model import simulated_crowd
from fairval.analysis.rater_model import SMOOTHING, chance_test, dawid_skene
from fairval.analysis.raters import rater_quality


def loop_em(rows: list[tuple[str, str, str]], rounds: int) -> tuple[dict, dict, dict]:
    """Dawid and Skene's EM as plain loops: prior, confusion per rater, posterior per item."""
    classes = sorted({v for _, _, v in rows})
    items = sorted({i for i, _, _ in rows})
    raters = sorted({r for _, r, _ in rows})
    post = {}
    for i in items:
        answers = [v for it, _, v in rows if it == i]
        post[i] = {c: answers.count(c) / len(answers) for c in classes}
    for _ in range(rounds):
        prior = {c: sum(post[i][c] for i in items) / len(items) for c in classes}
        theta = {}
        for r in raters:
            theta[r] = {}
            for k in classes:
                counts = dict.fromkeys(classes, SMOOTHING)
                for i, rr, v in rows:
                    if rr == r:
                        counts[v] += post[i][k]
                total = sum(counts.values())
                theta[r][k] = {c: counts[c] / total for c in classes}
        for i in items:
            logs = {k: math.log(prior[k]) + sum(math.log(theta[r][k][v]) for it, r, v in rows if it == i)
                    for k in classes}
            top = max(logs.values())
            norm = sum(math.exp(x - top) for x in logs.values())
            post[i] = {k: math.exp(logs[k] - top) / norm for k in classes}
    prior = {c: sum(post[i][c] for i in items) / len(items) for c in classes}
    return prior, theta, post


def test_dawid_skene_equals_the_loop_written_here():
    rng = np.random.default_rng(3)
    rows = []
    for i in range(15):
        truth = rng.choice(["a", "b", "c"])
        for r in ("r1", "r2", "r3", "r4"):
            if rng.random() < 0.8:
                rows.append((f"i{i}", r, truth if rng.random() < 0.7 else str(rng.choice(["a", "b", "c"]))))
    frame = pd.DataFrame(rows, columns=["item_id", "rater_id", "value"])
    model = dawid_skene(frame)
    prior, theta, post = loop_em(rows, model.rounds)
    assert model.prior == pytest.approx([prior[c] for c in model.classes], abs=1e-9)
    for r in theta:
        assert model.confusion[r] == pytest.approx(
            np.array([[theta[r][k][c] for c in model.classes] for k in model.classes]), abs=1e-9)
        assert model.competence()[r] == pytest.approx(sum(prior[k] * theta[r][k][k] for k in model.classes), abs=1e-9)
    for i, p in post.items():
        assert list(model.posterior.loc[i]) == pytest.approx([p[c] for c in model.classes], abs=1e-9)


def poisson_binomial_tail(chances, hits):
    """P(X ≥ hits) by enumerating every outcome (small n)."""
    from itertools import product
    total = 0.0
    for outcome in product((0, 1), repeat=len(chances)):
        if sum(outcome) >= hits:
            total += math.prod(c if o else 1 - c for c, o in zip(chances, outcome))
    return total


def test_the_chance_test_is_the_exact_tail_of_a_random_answerer():
    rows = [(f"i{i}", r, v) for i, answers in enumerate(["aab", "abb", "aaa", "bba", "aba", "bbb", "aab", "bab"])
            for r, v in zip(("r1", "r2", "r3"), answers)]
    frame = pd.DataFrame(rows, columns=["item_id", "rater_id", "value"])
    model = dawid_skene(frame)
    for t in chance_test(model, frame):
        own = frame[frame["rater_id"] == t.rater_id]
        shares = own["value"].value_counts(normalize=True)
        theta = model.confusion[t.rater_id]
        labels, hits = [], 0
        for item, value in zip(own["item_id"], own["value"]):
            weights = [model.posterior.loc[item, k] / theta[j, model.classes.index(value)]
                       for j, k in enumerate(model.classes)]
            label = model.classes[int(np.argmax(weights))]
            labels.append(label)
            hits += value == label
        chances = [shares.get(lbl, 0.0) for lbl in labels]
        assert (t.n, t.agreed) == (len(own), hits)
        assert t.expected == pytest.approx(sum(chances))
        assert t.p_value == pytest.approx(poisson_binomial_tail(chances, hits), abs=1e-12)


def test_random_answerers_are_flagged_and_honest_raters_who_see_the_harm_are_not():
    frame, careless = simulated_crowd(11)
    quality = rater_quality(frame, {}, pair_questions={"harm": "C"}, nominal_questions=("harm",))
    flagged = {q.rater_id for q in quality if q.flags}
    assert careless <= flagged
    assert flagged == careless            # no honest rater of this crowd carries any flag (README: 0.10 a crowd)
    honest = [q for q in quality if q.rater_id not in careless]
    assert not any("straight-lining" in f for q in honest for f in q.flags)
    competence = {q.rater_id: q.competence["harm"] for q in quality}
    assert max(competence[r] for r in careless) < min(competence[q.rater_id] for q in honest)


def test_the_crowd_model_is_checked_against_the_attention_checks(db_path, tmp_path):
    """A scenario study with attention checks: questions.keep.crowd_model.gold_agreement is the share of checks
    whose model label (fitted on every answer, checks included) is the expected answer."""
    import fairval
    from tests.conftest import write_jsonl

    rng = np.random.default_rng(4)
    study = fairval.open(db_path).create_study("sc", task="scenario_select", raters_per_item=5)
    truth = {f"s{i}": str(rng.choice(["yes", "no"], p=[0.7, 0.3])) for i in range(30)}
    items = [{"id": i, "scenario": f"A decision about case {i}"} for i in truth]
    checks = {"g0": "yes", "g1": "no", "g2": "no", "g3": "yes"}
    items += [{"id": g, "scenario": f"Check {g}", "_gold": {"keep": v}} for g, v in checks.items()]
    study.import_items(write_jsonl(tmp_path / "items.jsonl", items))
    rows = []
    for item, value in {**truth, **checks}.items():
        for r in range(5):
            careless = r == 4
            answer = str(rng.choice(["yes", "no"])) if careless else (
                value if rng.random() < 0.85 else ("no" if value == "yes" else "yes"))
            rows.append({"item_id": item, "rater_id": f"r{r}", "question": "keep", "value": answer})
    study.import_ratings(write_jsonl(tmp_path / "ratings.jsonl", rows))
    block = study.analyze(bootstrap=0).to_dict()["questions"]["keep"]["crowd_model"]
    answers = pd.DataFrame(rows).rename(columns={"value": "value"})[["item_id", "rater_id", "value"]]
    labels = dawid_skene(answers).labels()
    expected = sum(labels[g] == v for g, v in checks.items()) / len(checks)
    assert block["gold_n"] == len(checks) and block["gold_agreement"] == pytest.approx(expected)
    assert block["n_items"] == len(truth) + len(checks)
