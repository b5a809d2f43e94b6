"""Active sampling (Zrnic and Candès) and anytime-valid intervals (Waudby-Smith and Ramdas's betting
confidence sequences), checked against formulas written out here and against simulated studies the way a
methods paper would, in worlds chosen to break them as well as to suit them."""
import math

import numpy as np
import pytest

from bench import active as simulation
from fairval.analysis.active import (
    active_ppi_mean,
    choose_floor,
    inclusion_probabilities,
    judge_uncertainties,
    judge_uncertainty,
    ppi_terms,
)
from fairval.analysis.projection import observations_needed, projected_width
from fairval.analysis.sequential import confidence_sequence, running_sets


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
    with pytest.raises(ValueError, match=r"budget|floor"):
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
        values.append(active_ppi_mean(y[drawn], f[drawn], pi[drawn], f, pi).value)
    assert abs(np.mean(values) - y.mean()) < 3 * np.std(values) / math.sqrt(400)
    uniform = np.full(2000, 0.1)
    drawn = rng.random(2000) < uniform
    plain = active_ppi_mean(y[drawn], f[drawn], uniform[drawn], f, uniform)
    assert plain.n_labelled == drawn.sum() and plain.ci[0] < plain.value < plain.ci[1]


def direct_capital(x, m, alpha=0.05, planned=None):
    """The hedged capital K_t(m) after each x, written out term by term (WSR 2024, Theorem 3 with the
    predictable plug-in bets): an independent check of analysis.sequential's vectorised grid."""
    mu, var, up, down, out = 0.5, 0.25, 1.0, 1.0, []
    total, squares = 0.0, 0.0
    for i, xi in enumerate(x, start=1):
        scale = planned if planned else i * math.log(1 + i)
        bet = math.sqrt(2 * math.log(2 / alpha) / (var * scale))
        up *= 1 + min(bet, 0.5 / m if m > 0 else math.inf) * (xi - m)
        down *= 1 - min(bet, 0.5 / (1 - m) if m < 1 else math.inf) * (xi - m)
        out.append(max(0.5 * up, 0.5 * down))
        squares += (xi - mu) ** 2                      # σ̂²_i uses μ̂_{i−1}
        total += xi
        mu, var = (0.5 + total) / (i + 1), (0.25 + squares) / (i + 1)
    return out


@pytest.mark.parametrize("planned", [None, 40])
def test_the_betting_set_is_the_means_whose_capital_stays_below_1_over_alpha(planned):
    x = np.random.default_rng(4).beta(2, 5, 40)
    low, high = running_sets(x, planned=planned)
    grid = np.linspace(0, 1, 2001)
    for t in (1, 5, 20, 40):
        capital = {m: max(direct_capital(x[:t], m, planned=planned)) for m in grid[::4]}
        inside = [m for m, c in capital.items() if c < 20 * 0.999]        # clear of the 1/α line (ties aside)
        outside = [m for m, c in capital.items() if c > 20 * 1.001]
        assert all(low[t - 1] <= m <= high[t - 1] for m in inside)
        assert not any(low[t - 1] < m < high[t - 1] for m in outside)
        assert high[t - 1] - max(inside) <= 0.003 and min(inside) - low[t - 1] <= 0.003   # widened a step or two


def test_two_pairs_give_a_wide_interval_not_a_zero_width_one():
    """The issue's study: 2 pairs whose raters all answered C (score 0). The asymptotic sequence said
    [0, 0]; the betting sequence stays wide, inside H's range, and narrows only with evidence."""
    at_two = confidence_sequence(np.zeros(2), lower=-2, upper=2)
    assert at_two.ci[1] - at_two.ci[0] > 1
    at_many = confidence_sequence(np.zeros(400), lower=-2, upper=2)
    assert 0 < at_many.ci[1] - at_many.ci[0] < at_two.ci[1] - at_two.ci[0]
    assert at_many.ci[0] < 0 < at_many.ci[1]


@pytest.mark.parametrize("world", ["skewed", "two points", "drifting order"])
def test_from_the_first_look_the_running_interval_ever_misses_in_at_most_5_percent(world):
    """Time-uniform coverage, looking after every observation from the first: bounded observations with a
    common mean, in worlds unkind to a normal approximation (skewed, two-point, many identical values)."""
    rng = np.random.default_rng({"skewed": 1, "two points": 2, "drifting order": 3}[world])
    missed = zero = 0
    runs = 300
    for _ in range(runs):
        if world == "skewed":
            x, mean = rng.beta(0.3, 3.0, 150), 0.3 / 3.3
        elif world == "two points":
            x, mean = (rng.random(150) < 0.03).astype(float), 0.03
        else:
            x, mean = np.where(rng.random(150) < 0.5, 0.5, rng.choice([0.0, 1.0], 150)), 0.5
        low, high = running_sets(x)
        missed += bool(np.any((low > mean) | (high < mean)))
        zero += bool(np.any(high - low <= 0))
    assert missed / runs <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs), missed
    assert zero == 0


def test_the_pairs_needed_are_the_first_at_which_the_projected_width_reaches_the_target():
    need = observations_needed(0.1, 0.05, now=10, planned=300)
    assert projected_width(0.1, need, planned=300) <= 0.05 < projected_width(0.1, need - 1, planned=300)
    assert observations_needed(0.3, 1e-6, now=10, limit=10_000) is None
    assert observations_needed(0.1, 0.99, now=100) == 100               # reached already


@pytest.mark.parametrize("sure", [195, 199, 150])
def test_a_judge_sure_of_most_pairs_still_spends_the_budget_with_every_chance_in_range(sure):
    """The issue's draw: scores of ±1 without probabilities (no uncertainty) on most pairs."""
    u = np.r_[np.full(200 - sure, 0.96), np.zeros(sure)]
    pi = inclusion_probabilities(u, 40)
    assert np.isfinite(pi).all() and pi.sum() == pytest.approx(40)
    assert pi.min() >= 0.5 * 40 / 200 - 1e-12 and pi.max() <= 1
    assert np.all(pi[: 200 - sure] >= pi[200 - sure:].max() - 1e-12)   # an unsure pair is never less likely


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


def _pilot(rng, related: bool, n: int = 200):
    """A pilot's pairs: uncertainty u and residual y − f whose size grows with √u (related) or not."""
    u = rng.uniform(0.0, 1.0, n)
    scale = np.sqrt(u) if related else np.full(n, 0.6)
    return u, rng.normal(0, 1, n) * scale


def test_the_mix_is_chosen_from_a_pilot_that_shows_the_judges_uncertainty_tracking_its_error():
    rng = np.random.default_rng(11)
    study_u = rng.beta(0.3, 2.0, 3000)                  # most pairs sure, a few unsure
    u, residual = _pilot(rng, related=True)
    found = choose_floor(u, residual, study_u, 300)
    assert found.floor < 1 and found.slope_lower > 0
    # the predicted variances, written out: expected e² = a + b √u with the pilot's line through its means
    level = max((residual ** 2).mean() - found.slope_lower * np.sqrt(u).mean(), 1e-6)
    expected = level + found.slope_lower * np.sqrt(study_u)
    for floor, ratio in found.relative_variance.items():
        pi = inclusion_probabilities(study_u, 300, floor=floor)
        want = np.sum(expected * (1 - pi) / pi) / np.sum(expected * (1 - 0.1) / 0.1)
        assert ratio == pytest.approx(want, rel=1e-9)
    assert found.relative_variance[found.floor] == min(found.relative_variance.values()) < 1
    u, residual = _pilot(rng, related=False)
    unrelated = choose_floor(u, residual, study_u, 300)
    assert unrelated.floor == 1.0            # a uniform draw: the pilot shows no reason to lean on u


def test_a_pilot_too_small_to_judge_is_refused():
    with pytest.raises(ValueError, match="at least 30"):
        choose_floor(np.ones(29), np.ones(29), np.ones(100), 10)
