"""The "no better than at random" flag spares honest raters (issue 53): among raters right 80% of the time
(wrong evenly among the other two answers), with 20 answers or more shared with other raters, at most 5%
are flagged; raters answering at random are still flagged more often than not.

Worlds written here, on one three-answer question: (a) 300 items, 3 raters each from 40 honest raters and
5 answering at random, true answers 40/25/35%; (b) 300 items, 2 raters each from 25 honest and 5 random,
30/30/40%. 8 studies of each. On main, where a rater was flagged whenever their agreement did not beat
chance at 5%, 8% of (a)'s and 26% of (b)'s honest raters were flagged. Monte-Carlo error: the pooled rate
comes from about 280 honest raters, so a true rate of 5% would show within ±2.6% (2 standard errors of
√(0.05·0.95/280) = 0.013); the test asks for ≤ 5% observed, which a true rate of 3% (what 30 studies of
each world measured while writing this: 2.4% and 3.3%) passes with room.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairval.analysis.rater_model import dawid_skene
from fairval.analysis.raters import QualityRules, rater_quality

WORLDS = {"a": (300, 3, 40, (0.4, 0.25, 0.35)), "b": (300, 2, 25, (0.3, 0.3, 0.4))}


def study(rng, n_items, per_item, n_honest, prior, n_random=5, accuracy=0.8):
    truth = rng.choice(3, size=n_items, p=prior)
    raters = [f"honest{i}" for i in range(n_honest)] + [f"random{i}" for i in range(n_random)]
    rows = []
    for i in range(n_items):
        for r in rng.choice(len(raters), size=per_item, replace=False):
            if raters[r].startswith("honest"):
                answer = truth[i] if rng.random() < accuracy else rng.choice([c for c in range(3) if c != truth[i]])
            else:
                answer = rng.choice(3)
            rows.append({"item_id": f"i{i}", "rater_id": raters[r], "question": "harm", "value": "ABC"[answer],
                         "canonical": "ABC"[answer], "seconds": 10.0, "gold_item": False})
    return pd.DataFrame(rows)


def test_honest_raters_right_80_percent_of_the_time_are_flagged_in_at_most_5_percent():
    rng = np.random.default_rng(53)
    honest = flagged = random_raters = random_flagged = 0
    for n_items, per_item, n_honest, prior in WORLDS.values():
        for _ in range(8):
            ratings = study(rng, n_items, per_item, n_honest, prior)
            shared = ratings.groupby("item_id")["rater_id"].transform("size") > 1
            answers = ratings[shared].groupby("rater_id").size()
            quality = rater_quality(ratings, {}, QualityRules(), nominal_questions=("harm",))
            for q in quality:
                if answers.get(q.rater_id, 0) < 20:
                    continue
                at_random = any("no better than at random" in f for f in q.flags)
                if q.rater_id.startswith("honest"):
                    honest, flagged = honest + 1, flagged + at_random
                else:
                    random_raters, random_flagged = random_raters + 1, random_flagged + at_random
    assert honest >= 250
    assert flagged / honest <= 0.05, (flagged, honest)
    assert random_flagged / random_raters >= 0.5, (random_flagged, random_raters)


def test_the_flag_says_its_test_and_the_raters_competence():
    rng = np.random.default_rng(3)
    ratings = study(rng, 300, 3, 20, (0.4, 0.3, 0.3), n_random=3)
    quality = {q.rater_id: q for q in rater_quality(ratings, {}, QualityRules(), nominal_questions=("harm",))}
    model = dawid_skene(ratings[["item_id", "rater_id", "canonical"]].rename(columns={"canonical": "value"}))
    flags = [(r, f) for r, q in quality.items() for f in q.flags if "no better than at random" in f]
    assert flags
    for rater, flag in flags:
        assert "right 80% of the time" in flag
        assert f"Dawid–Skene competence {model.competence()[rater]:.2f}" in flag
        assert quality[rater].competence["harm"] == pytest.approx(model.competence()[rater])
