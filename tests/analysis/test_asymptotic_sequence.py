"""The asymptotic confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas 2024, Theorem 2.2),
checked against the boundary written out here from the paper, against its own incremental form, and by
simulated studies looked at after every observation."""
import json
import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import lambertw

from fairval.analysis.sequential import ASYMPTOTIC_FROM, RunningCS, mixture_margin, mixture_rho2, running_asymptotic, step


def paper_boundary(t, var, rho2_sigma, alpha):
    """Theorem 2.2's half-width with the running variance inside: sqrt(2(tσ̂²ρ²+1)/(t²ρ²) log(sqrt(tσ̂²ρ²+1)/α))."""
    a = t * var * rho2_sigma + 1
    return math.sqrt(2 * a / (t * t * rho2_sigma) * math.log(math.sqrt(a) / alpha))


@pytest.mark.parametrize("planned, alpha", [(200, 0.05), (50, 0.1), (5000, 0.01)])
def test_rho_makes_the_unit_boundary_narrowest_at_the_planned_sample(planned, alpha):
    exact = (-lambertw(-alpha ** 2 / math.e, k=-1).real - 1) / planned
    assert mixture_rho2(planned, alpha) == pytest.approx(exact, rel=1e-10)
    best = minimize_scalar(lambda r: paper_boundary(planned, 1.0, r, alpha), bounds=(1e-6 / planned, 100 / planned),
                           method="bounded", options={"xatol": 1e-12})
    assert mixture_rho2(planned, alpha) == pytest.approx(best.x, rel=1e-3)
    closed_form = (-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / planned   # the paper's approximation
    assert mixture_rho2(planned, alpha) == pytest.approx(closed_form, rel=0.08)


def test_the_running_interval_is_the_papers_boundary_intersected_from_the_first_look():
    x = np.random.default_rng(7).normal(0.2, 0.4, 120)
    planned, alpha, start = 80, 0.05, 10
    rho2 = mixture_rho2(planned, alpha)
    low, high = -math.inf, math.inf
    lows, highs = running_asymptotic(x, planned=planned, alpha=alpha, start=start)
    for t in range(1, len(x) + 1):
        seen = x[:t]
        var = float(np.mean((seen - seen.mean()) ** 2))          # the paper's 1/t variance
        if t < start:
            assert math.isnan(lows[t - 1]) and math.isnan(highs[t - 1])
            continue
        half = paper_boundary(t, var, rho2 / var, alpha)         # ρ scaled by σ̂: tuned on the unit boundary
        low, high = max(low, seen.mean() - half), min(high, seen.mean() + half)
        assert lows[t - 1] == pytest.approx(low, abs=1e-12) and highs[t - 1] == pytest.approx(high, abs=1e-12)
    assert float(mixture_margin(50, 0.16, planned=planned, alpha=alpha)) == pytest.approx(
        paper_boundary(50, 0.16, rho2 / 0.16, alpha), rel=1e-12)


def test_the_incremental_state_gives_the_vectorised_numbers_and_survives_json():
    x = np.random.default_rng(11).uniform(-2, 2, 300)
    lows, highs = running_asymptotic(x, planned=150)
    state = RunningCS()
    for i, xi in enumerate(x):
        state = RunningCS.from_dict(json.loads(json.dumps(step(state, xi, planned=150).to_dict())))
        if i + 1 < ASYMPTOTIC_FROM:
            assert state.interval is None
        else:
            assert state.interval == pytest.approx((lows[i], highs[i]), abs=1e-12)
    assert state.n == 300 and state.mean == pytest.approx(x.mean()) and state.var == pytest.approx(x.var())


def test_the_running_interval_covers_the_mean_at_every_look_in_simulated_studies():
    """600 studies of 400 skewed observations (PPI-like terms: a wide range, a small spread), looked at after
    every observation from ASYMPTOTIC_FROM on: the interval ever misses the mean in at most α plus 2 MC errors."""
    rng = np.random.default_rng(2024)
    studies, n, alpha = 600, 400, 0.05
    misses = 0
    for _ in range(studies):
        x = 0.25 * rng.standard_t(5, n) + np.where(rng.random(n) < 0.02, 1.5, 0.0)     # mean 0.03
        low, high = running_asymptotic(x, planned=200, alpha=alpha)
        misses += bool(np.any((low[ASYMPTOTIC_FROM - 1:] > 0.03) | (high[ASYMPTOTIC_FROM - 1:] < 0.03)))
    assert misses / studies <= alpha + 2 * math.sqrt(alpha * (1 - alpha) / studies)
