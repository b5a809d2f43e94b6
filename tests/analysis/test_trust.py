"""Trust or escalate: the fixed-sequence binomial test, checked against the binomial tail written out here,
and in simulated worlds: where the judge's confidence tracks its agreement the threshold holds the level in
at least 1 − risk of studies; where confidence says nothing, nothing is trusted more often than risk."""
import math

import numpy as np
import pytest

from fairval.analysis.trust import trust_threshold


def tail(errors: int, n: int, p: float) -> float:
    return sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(errors + 1))


def test_the_p_values_are_the_binomial_tail_and_testing_stops_at_the_first_failure():
    confidence = np.array([0.99] * 40 + [0.8] * 40 + [0.6] * 40)            # three thresholds, 40 pairs each
    agrees = np.array([True] * 40 + [True] * 38 + [False] * 2 + [True] * 20 + [False] * 20)
    found = trust_threshold(confidence, agrees, agreement=0.9, risk=0.05)
    assert [t.threshold for t in found.tested] == [0.99, 0.8, 0.6]
    for t in found.tested:
        assert t.p_value == pytest.approx(tail(t.disagreements, t.n, 0.1), rel=1e-9)
    assert found.tested[0].p_value == pytest.approx(0.9 ** 40)
    assert found.threshold == 0.8 and found.n_above == 80 and found.disagreements == 2
    assert found.tested[-1].p_value > 0.05                         # the first not rejected ends it


def test_nothing_is_trusted_without_evidence():
    assert trust_threshold(np.ones(5), np.ones(5, bool)).threshold is None          # too few pairs
    assert trust_threshold(np.linspace(0, 1, 50), np.zeros(50, bool)).threshold is None


def _world(rng, n, related: bool):
    confidence = rng.uniform(0.34, 1.0, n)
    # related: the judge agrees with people 98% of the time where it is confident (> 0.7), 60% elsewhere
    p_agree = np.where(confidence > 0.7, 0.98, 0.6) if related else np.full(n, 0.8)
    return confidence, rng.random(n) < p_agree, p_agree


@pytest.mark.parametrize("related, pairs", [(True, 300), (True, 1000), (False, 300)])
def test_the_guarantee_holds_over_simulated_studies(related, pairs):
    """The chosen threshold's true agreement (the mean chance above it, known in the simulation) is below
    0.9 in at most 5% of 400 studies (plus Monte-Carlo error). With 1,000 rated pairs it finds the confident
    pairs in most studies; with 300, the first test (29 pairs, no disagreement allowed) often ends it."""
    rng = np.random.default_rng(4)
    fails = trusted = 0
    for _ in range(400):
        confidence, agrees, p_agree = _world(rng, pairs, related)
        found = trust_threshold(confidence, agrees, agreement=0.9, risk=0.05)
        trusted += found.threshold is not None
        if found.threshold is not None and p_agree[confidence >= found.threshold].mean() < 0.9:
            fails += 1
    assert fails / 400 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400)
    if related and pairs == 1000:
        assert trusted / 400 > 0.8               # and it finds the confident pairs it may trust
