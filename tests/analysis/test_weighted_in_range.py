"""The weighted (active) PPI estimate with few rated pairs: 1/π weights can carry the raw estimate past H's
range; the estimate is cut to [−1, 1] and its interval keeps a positive width around it (issue 45: 148 of
1,500 random cases with 2–9 rated pairs gave e.g. 1.149 with ci [1.0, 1.0])."""
import numpy as np

from fairval.analysis.active import active_ppi_mean, inclusion_probabilities


def test_weighted_estimates_stay_in_range_with_an_interval_of_positive_width():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(1500):
        pairs, rated = int(rng.integers(20, 200)), int(rng.integers(2, 10))
        y = rng.choice([-1.0, 0.0, 1.0], pairs)
        f = np.clip(y + rng.normal(0, 0.5, pairs), -1, 1)
        pi = inclusion_probabilities(rng.uniform(0.01, 1, pairs), rated, floor=0.25)
        drawn = rng.choice(pairs, rated, replace=False)
        out = active_ppi_mean(y[drawn], f[drawn], pi[drawn], f, pi)
        raw = out.lambda_ * f.mean() + np.mean(pi.sum() / (pairs * pi[drawn]) * (y[drawn] - out.lambda_ * f[drawn]))
        assert out.value == np.clip(raw, -1, 1)
        assert -1 <= out.ci[0] <= out.value <= out.ci[1] <= 1 and out.ci[1] > out.ci[0]
        checked += abs(raw) > 1
    assert checked >= 5                 # the cases that went wrong are among those drawn
