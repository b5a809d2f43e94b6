"""Active sampling (Zrnic and Candès) and anytime-valid intervals (Waudby-Smith et al.), checked against
formulas written out here and against simulated studies the way a methods paper would."""
import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from fairval.analysis.active import (active_ppi_mean, inclusion_probabilities, judge_uncertainties, judge_uncertainty,
                             ppi_terms)
from fairval.analysis.sequential import best_rho2, confidence_sequence, margin, running_intervals, terms_needed
from bench import active as simulation


@pytest.mark.parametrize("budget, floor", [(50, 0.5), (300, 0.2), (10, 1.0), (999, 0.5)])
def test_inclusion_probabilities_spend_the_budget_and_keep_the_floor(budget, floor):
    u = np.random.default_rng(3).gamma(0.5, 0.2, 1000)
    pi = inclusion_probabilities(u, budget, floor=floor)
    assert pi.sum() == pytest.approx(budget, rel=1e-6)
    assert pi.min() >= floor * budget / 1000 - 1e-12 and pi.max() <= 1
    ranked = np.argsort(u)
    assert np.all(np.diff(pi[ranked]) >= -1e-12)          # a less sure judge never lowers a pair's chance


@pytest.mark.parametrize("budget, floor", [(0, 0.5), (1000, 0.5), (10, 0.0)])
def test_a_budget_outside_the_pairs_or_no_floor_is_refused(budget, floor):
    with pytest.raises(ValueError, match="budget|floor"):
        inclusion_probabilities(np.ones(1000), budget, floor=floor)


def test_the_judges_uncertainty_is_its_score_variance_plus_what_the_orders_disagree_on():
    probs = {"p_a": 0.6, "p_b": 0.1, "p_c": 0.3, "q_a": 0.2, "q_b": 0.5, "q_c": 0.3}   # q in the swapped order
    r = [min(0.6, 0.5), min(0.1, 0.2), min(0.3, 0.3)]                                    # true terms: q_b is A
    kept = sum(r)
    a, b = r[0] / kept, r[1] / kept
    assert judge_uncertainty(probs, a - b) == pytest.approx(a + b - (a - b) ** 2 + (1 - kept))
    assert judge_uncertainty(None, 0.6) == pytest.approx(1 - 0.36)
    assert judge_uncertainties(np.array([[1, 0, 0]]), np.array([[1, 0, 0]]))[0] == pytest.approx(0.0)


def test_the_weighted_estimate_is_unbiased_whatever_the_judges_errors():
    """A fixed study of 2,000 pairs whose judge is badly biased where it is sure: over 400 active draws the
    estimate averages the pairs' true mean (its spread over draws bounds the check)."""
    rng = np.random.default_rng(5)
    y = rng.uniform(-1, 1, 2000)
    f = np.clip(0.5 * y + 0.4, -1, 1)
    u = rng.uniform(0.01, 1, 2000)
    pi = inclusion_probabilities(u, 200)
    values = []
    for _ in range(400):
        drawn = rng.random(2000) < pi
        values.append(active_ppi_mean(y[drawn], f[drawn], pi[drawn], f, pi)["value"])
    assert abs(np.mean(values) - y.mean()) < 3 * np.std(values) / math.sqrt(400)
    uniform = np.full(2000, 0.1)
    drawn = rng.random(2000) < uniform
    plain = active_ppi_mean(y[drawn], f[drawn], uniform[drawn], f, uniform)
    assert plain["n_labelled"] == drawn.sum() and plain["ci"][0] < plain["value"] < plain["ci"][1]


def test_the_margin_is_the_normal_mixture_and_tightest_at_t_opt():
    for t_opt in (50, 400, 5000):
        rho2 = best_rho2(t_opt)
        numeric = minimize_scalar(lambda r: float(margin(t_opt, r)), bounds=(1e-9, 1.0), method="bounded",
                                  options={"xatol": 1e-12}).x
        assert rho2 == pytest.approx(numeric, rel=1e-3)
    t, r = 300, best_rho2(300)
    assert float(margin(t, r)) == pytest.approx(math.sqrt(2 * (t * r + 1) / (t * t * r) * math.log(math.sqrt(t * r + 1) / 0.05)))
    assert float(margin(t, r)) > 1.96 / math.sqrt(t)          # wider than the fixed-n interval, the price of looking


def test_the_running_intervals_agree_with_the_interval_at_each_time():
    x = np.random.default_rng(1).normal(0.2, 1, 60)
    mean, half = running_intervals(x, t_opt=30)
    for t in (2, 17, 60):
        at = confidence_sequence(x[:t], t_opt=30)
        assert at["ci"] == pytest.approx([mean[t - 1] - half[t - 1], mean[t - 1] + half[t - 1]])


def test_the_pairs_needed_are_the_first_at_which_the_width_reaches_the_target():
    need = terms_needed(0.6, 0.1, t_opt=200, now=10)
    rho2 = best_rho2(200)
    assert 2 * 0.6 * float(margin(need, rho2)) <= 0.1 < 2 * 0.6 * float(margin(need - 1, rho2))
    assert terms_needed(0.6, 1e-6, t_opt=200, now=10, limit=10_000) is None


def test_the_terms_use_lambda_from_earlier_pairs_only():
    y, f = np.array([1.0, -1, 0.5, 0.2]), np.array([0.8, -0.6, 0.1, 0.3])
    terms = ppi_terms(y, f, np.ones(4), judge_mean=0.25)
    assert terms[0] == pytest.approx(y[0])                     # no earlier pair: λ = 0
    changed = ppi_terms(np.array([1.0, -1, 0.5, 9.0]), f, np.ones(4), judge_mean=0.25)
    assert changed[:3] == pytest.approx(terms[:3])             # a later answer changes no earlier term


def test_in_simulated_studies_the_active_design_saves_people_and_every_interval_covers():
    """A smaller run of bench/active.py (which uses 500 studies per judge): at ρ ≈ 0.8 fewer judgments than
    uniform PPI++ for the same width, at ρ ≈ 0.5 at most 5% more, and coverage near 95% throughout."""
    good = simulation.sizes_and_coverage(0.8, studies=150, seed=2)
    assert 0.75 < good["rho"] < 0.86
    assert good["judgments"]["active"] < 0.92 * good["judgments"]["uniform PPI++"] < good["judgments"]["people only"]
    assert all(c >= 0.9 for c in good["coverage"].values()), good["coverage"]
    poor = simulation.sizes_and_coverage(0.5, studies=100, seed=3)
    assert poor["judgments"]["active"] <= 1.05 * poor["judgments"]["uniform PPI++"]
    stop = simulation.stopping(0.8, studies=150, seed=4)
    assert stop["active, anytime"]["coverage"] >= 0.93 and stop["uniform PPI++, anytime"]["coverage"] >= 0.93


def test_looking_again_and_again_until_a_finding_breaks_the_fixed_n_interval_but_not_the_anytime_one():
    """Stop at the first look whose interval excludes 0, in studies with no harm on average: the
    fixed-n interval's coverage falls well below 95%; the anytime interval's does not."""
    peek = simulation.stopping(0.8, studies=120, seed=5, rule="finding")
    for design in ("uniform PPI++", "active"):
        anytime, fixed = peek[f"{design}, anytime"]["coverage"], peek[f"{design}, fixed-n"]["coverage"]
        assert anytime >= 0.93 and fixed <= anytime - 0.05, peek
