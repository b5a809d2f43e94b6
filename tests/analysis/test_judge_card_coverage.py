"""The judge card's ECE interval holds the judge's true ECE against people (issue 53), ties in the judge's
probabilities are split, and a constant judge's Brier interval has width.

Worlds written here: each pair has people's answer distribution π (Dirichlet), k = 3 raters draw from it; a
calibrated judge states π itself (true ECE 0), an overconfident one states π sharpened (r ∝ π³, true ECE
computed in the test with plain loops over the bins from π, not from the raters). 200 replicates each of
200 pairs; the coverage must be ≥ 90% (the interval's nominal level is 95%): the Monte-Carlo standard
error of a coverage near 0.95 over 200 replicates is √(0.95·0.05/200) = 0.015, so 90% is 3 standard
errors below nominal. On main, the percentile bootstrap of the plug-in ECE against people's majority held
a calibrated judge's true ECE 0 in 0 of 200.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from fairval.analysis.judge_card import confidence_numbers

REPLICATES, PAIRS, RATERS = 200, 200, 3
VALUES = (1.0, -1.0, 0.0)


def true_ece(r, pi):
    """Σ_b n_b/n |mean over the bin of (π of the judge's answer − confidence)|, by loops (ties split)."""
    bins = [[] for _ in range(10)]
    for row, p in zip(r, pi):
        top = max(row)
        tied = [k for k in range(3) if row[k] >= top - 1e-12]
        agree = sum(p[k] for k in tied) / len(tied)
        b = min(max(math.ceil(top * 10) - 1, 0), 9)
        bins[b].append(agree - top)
    return sum(len(b) / len(r) * abs(sum(b) / len(b)) for b in bins if b)


def world(rng, sharpen):
    pi = rng.dirichlet([0.7, 0.7, 0.7], size=PAIRS)
    r = pi ** sharpen / (pi ** sharpen).sum(axis=1, keepdims=True)
    people = [np.array(VALUES)[rng.choice(3, size=RATERS, p=p)] for p in pi]
    return r, pi, people


@pytest.mark.parametrize("sharpen", [1, 3], ids=["calibrated", "overconfident"])
def test_the_ece_interval_holds_the_true_ece_in_200_replicates(sharpen):
    rng = np.random.default_rng(53 + sharpen)
    held, truths, plug_in, debiased = 0, [], [], []
    for _ in range(REPLICATES):
        r, pi, people = world(rng, sharpen)
        truth = true_ece(r, pi)
        card = confidence_numbers(r, people, n_boot=1, seed=0)
        low, high = card.ece_ci
        assert 0 <= low < high <= 1
        assert low <= card.ece_debiased <= card.ece <= high
        held += low <= truth <= high
        truths.append(truth)
        plug_in.append(card.ece)
        debiased.append(card.ece_debiased)
    if sharpen == 1:
        assert max(truths) < 1e-12                  # the calibrated judge's true ECE is 0
    else:
        assert min(truths) > 0.05
    assert held / REPLICATES >= 0.90, (held, REPLICATES)
    # the debiased estimate is closer to the truth on average than the plug-in
    assert abs(np.mean(debiased) - np.mean(truths)) < abs(np.mean(plug_in) - np.mean(truths))


def test_a_tie_is_split_not_given_to_a():
    """A judge torn between A and B (0.5, 0.5, 0) on pairs where every person answers B agrees half the time:
    confidence 0.5, agreement 0.5, ECE 0 (on main the tie went to A: agreement 0, ECE 0.5)."""
    r = np.tile([0.5, 0.5, 0.0], (40, 1))
    people = [np.array([-1.0, -1.0, -1.0])] * 40
    card = confidence_numbers(r, people, n_boot=200, seed=1)
    assert card.ece == pytest.approx(0.0, abs=1e-12)
    assert card.n_ties == 40
    assert [b.agreement for b in card.bins if b.n] == [pytest.approx(0.5)]


def test_a_constant_judge_gets_a_brier_interval_with_width():
    """Every pair scored the same (a constant judge, people all answering neither): Brier (1/3)²·2 + (2/3)²
    = 2/3 on every pair; its interval is not of zero width and stays in [0, 2]."""
    r = np.tile([1 / 3, 1 / 3, 1 / 3], (60, 1))
    people = [np.array([0.0, 0.0, 0.0])] * 60
    card = confidence_numbers(r, people, n_boot=200, seed=1)
    assert card.brier == pytest.approx(2 * (1 / 3) ** 2 + (2 / 3) ** 2)
    low, high = card.brier_ci
    assert 0 <= low < card.brier < high <= 2
    assert card.ece_ci[1] > card.ece_ci[0]


def test_brier_is_against_a_random_person_not_the_majority():
    """Two raters A, one B: the Brier of r against each rater's answer, averaged (loops here)."""
    r = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
    people = [np.array([1.0, 1.0, -1.0]), np.array([0.0, -1.0])]
    expected = []
    for row, values in zip(r, people):
        per_rater = [sum((row[k] - (VALUES[k] == v)) ** 2 for k in range(3)) for v in values]
        expected.append(sum(per_rater) / len(per_rater))
    card = confidence_numbers(r, people, n_boot=0, seed=0)
    assert card.brier == pytest.approx(sum(expected) / 2, abs=1e-12)
