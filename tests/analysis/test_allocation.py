"""Neyman's allocation across strata (analysis.allocation) against a search over every whole allocation:
it sums to the total, keeps every bound, and its stratified variance Σ w²σ²/n is within rounding of the
least; the variance ratio is the two variances written out."""
import itertools

import numpy as np
import pytest

from fairval.analysis.allocation import neyman_allocation, variance_ratio


def variance(w, s, n):
    return sum(wk ** 2 * sk ** 2 / nk for wk, sk, nk in zip(w, s, n))


@pytest.mark.parametrize("seed", range(12))
def test_it_is_the_best_whole_allocation_up_to_rounding(seed):
    rng = np.random.default_rng(seed)
    k = 3
    w = rng.dirichlet(np.ones(k))
    s = rng.uniform(0.05, 1.0, k)
    cap = rng.integers(3, 30, k)
    total = int(rng.integers(2 * k, cap.sum() + 1))
    got = neyman_allocation(w, s, total, cap)
    assert got.sum() == total and (got <= cap).all() and (got >= np.minimum(2, cap)).all()
    best = min(variance(w, s, n) for n in itertools.product(*(range(2, c + 1) for c in cap)) if sum(n) == total)
    # rounding moves each stratum by less than one pair from the continuous optimum
    assert variance(w, s, got) <= best * 1.01
    assert variance(w, s, got) >= best - 1e-12


def test_a_stratum_with_no_room_gives_its_share_to_the_others():
    got = neyman_allocation([0.5, 0.3, 0.2], [0.2, 0.6, 0.4], 100, [500, 30, 200])
    assert list(got) == [39, 30, 31]            # 30 capped; 70 over 0.10 : 0.08 is 38.9 and 31.1
    assert list(neyman_allocation([0.5, 0.3, 0.2], [0.2, 0.6, 0.4], 100, [500, 300, 200])) == [28, 50, 22]
    with pytest.raises(ValueError):
        neyman_allocation([0.5, 0.5], [1, 1], 3, [10, 10])      # 2 each is the least


def test_the_ratio_is_the_two_variances():
    w, s, n = np.array([0.6, 0.4]), np.array([0.1, 0.9]), 1000.0
    neyman = variance(w, s, n * w * s / (w * s).sum())
    proportional = variance(w, s, n * w)
    assert variance_ratio(w, s) == pytest.approx(neyman / proportional) and variance_ratio(w, s) < 1
    assert variance_ratio(w, [0.3, 0.3]) == pytest.approx(1.0)
