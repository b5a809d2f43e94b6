"""PPI++ against the formulas written out here, and its interval's coverage by simulation."""
import math
import statistics

import numpy as np
import pytest

from fairval.analysis.ppi import classical_mean, ppi_mean


def written_out(y, f, fu):
    """ppi_py's power-tuned mean, step by step with the standard library."""
    n, big_n = len(y), len(fu)
    y_bar, f_bar = statistics.fmean(y), statistics.fmean(f)
    cov = sum((a - y_bar) * (b - f_bar) for a, b in zip(y, f)) / n
    var_all = statistics.variance(list(f) + list(fu))                 # divisor n + N − 1
    lam = min(1.0, max(0.0, cov / ((1 + n / big_n) * var_all)))
    theta = lam * statistics.fmean(fu) + statistics.fmean([a - lam * b for a, b in zip(y, f)])
    se = math.sqrt(statistics.pvariance([lam * b for b in fu]) / big_n
                   + statistics.pvariance([a - lam * b for a, b in zip(y, f)]) / n)
    return theta, (theta - 1.959963984540054 * se, theta + 1.959963984540054 * se), lam


def synthetic(rng, n, big_n, judge_noise, bias=0.3):
    truth = rng.uniform(-1, 1, n + big_n)
    human = np.clip(truth + rng.normal(0, 0.3, n + big_n), -1, 1)
    judge = np.clip(0.8 * truth + bias + rng.normal(0, judge_noise, n + big_n), -1, 1)   # biased judge
    return human[:n], judge[:n], judge[n:], human


@pytest.mark.parametrize("noise", [0.05, 0.4, 5.0])
def test_ppi_matches_the_formulas_written_out(noise):
    y, f, fu, _ = synthetic(np.random.default_rng(1), 50, 5000, noise)
    got = ppi_mean(y, f, fu)
    theta, ci, lam = written_out(y, f, fu)
    assert got.value == pytest.approx(theta, abs=1e-9) and got.lambda_ == pytest.approx(lam, abs=1e-9)
    assert got.ci == pytest.approx(list(ci), abs=1e-9)
    assert (got.n_labelled, got.n_unlabelled) == (50, 5000)


def test_ppi_matches_the_reference_implementation_on_a_published_example():
    """Values printed by ppi_py 0.2.3 (`ppi_mean_pointestimate`, `ppi_mean_ci`, alpha=0.05) for these
    ten human-rated and fifteen judge-only pairs; the issue asks for agreement to 1e-6."""
    y = [1, 0, 1, 1, 0, 1, 0, 1, 1, 0]
    f = [0.9, 0.2, 0.7, 0.8, 0.4, 0.6, 0.1, 0.9, 0.5, 0.3]
    fu = [0.8, 0.1, 0.6, 0.9, 0.3, 0.7, 0.2, 0.4, 0.5, 0.9, 0.0, 0.6, 0.7, 0.3, 0.8]
    got = ppi_mean(y, f, fu)
    assert got.value == pytest.approx(0.5826937422295898, abs=1e-6)
    assert got.ci == pytest.approx([0.3555091592428874, 0.8098783252162922], abs=1e-6)


def test_a_good_judge_narrows_the_interval_and_a_useless_one_costs_nothing():
    y, f, fu, _ = synthetic(np.random.default_rng(2), 50, 5000, 0.05)
    width = lambda ci: ci[1] - ci[0]                                   # noqa: E731
    assert width(ppi_mean(y, f, fu).ci) < 0.75 * width(classical_mean(y).ci)
    y, f, fu, _ = synthetic(np.random.default_rng(3), 50, 5000, 50.0)  # pure noise: λ near 0
    got = ppi_mean(y, f, fu)
    assert got.lambda_ < 0.1 and got.value == pytest.approx(np.mean(y), abs=0.02)


def test_the_interval_covers_the_true_mean_in_at_least_90_percent_of_200_studies():
    rng = np.random.default_rng(4)
    covered = 0
    for _ in range(200):
        y, f, fu, _everyone = synthetic(rng, 60, 3000, 0.2)
        true_mean = 0.0                  # E[clip(U(-1,1) + N(0, .3))] = 0 by symmetry
        lo, hi = ppi_mean(y, f, fu).ci
        covered += lo <= true_mean <= hi
    assert covered >= 180, covered


def test_too_few_pairs_is_undefined_with_a_reason():
    got = ppi_mean([0.5], [0.4], [0.1, 0.2])
    assert got.value is None and "at least 2" in str(got.reason)
