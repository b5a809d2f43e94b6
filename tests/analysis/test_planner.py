"""The planner: widths shrink with more pairs and raters, ρ's width agrees with Fisher's closed form,
and the cheapest design is the cheapest that meets the target."""
import math

import numpy as np
import pandas as pd
import pytest

from fairval.analysis.planner import Assumptions, Pay, cheapest, fisher_width, plan, plan_assumed


def pilot(n_items=60, k=6, seed=0, noise=0.6):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(-1, 1, n_items)
    ratings = pd.DataFrame([(f"i{i}", f"r{r}", float(np.clip(np.round(truth[i] + rng.normal(0, noise)), -1, 1)))
                            for i in range(n_items) for r in range(k)], columns=["item_id", "rater_id", "score"])
    judge = pd.Series(truth + rng.normal(0, 0.2, n_items), index=[f"i{i}" for i in range(n_items)])
    return ratings, judge


def test_widths_shrink_with_pairs_and_with_raters():
    table = plan(*pilot(), pairs=(25, 100, 400, 1600), raters=(1, 3, 9), draws=60, seed=1)
    for _, by_k in table.groupby("raters_per_pair"):
        for column in ("rho_width", "sign_width", "harm_width"):
            assert list(by_k[column]) == sorted(by_k[column], reverse=True), column      # more pairs, narrower
    for _, by_n in table.groupby("pairs"):
        assert list(by_n["rho_width"]) == sorted(by_n["rho_width"], reverse=True)      # more raters, narrower


def test_rho_width_agrees_with_fishers_closed_form_at_the_pilots_correlation():
    """With raters who agree within each pair, resampling raters changes nothing, so the expected width
    is Fisher's at the pilot's ρ and the design's number of pairs."""
    ratings, judge = pilot(n_items=200, k=10, seed=2, noise=0.0)
    n = 400
    table = plan(ratings, judge, pairs=(n,), raters=(10,), draws=200, seed=3)
    human = ratings.groupby("item_id")["score"].mean()
    r = np.corrcoef(human, judge[human.index])[0, 1]
    closed = math.tanh(math.atanh(r) + 1.959964 / math.sqrt(n - 3)) - math.tanh(math.atanh(r) - 1.959964 / math.sqrt(n - 3))
    assert table["rho_width"].iloc[0] == pytest.approx(closed, rel=0.1)
    assert fisher_width(np.array([0.0]), 28)[0] == pytest.approx(2 * math.tanh(1.959964 / 5), abs=1e-6)


def test_the_cheapest_design_meeting_the_target():
    table = pd.DataFrame({"pairs": [50, 50, 100, 200], "raters_per_pair": [10, 20, 5, 1],
                          "rho_width": [0.19, 0.15, 0.18, 0.3], "sign_width": [0.3] * 4, "harm_width": [0.2] * 4})
    pay = Pay(per_judgment=0.5, per_rater=1.15, fee=0.43, judgments_per_rater=20)
    best = cheapest(table, "rho", 0.2, pay)
    # 50 x 10 = 500 judgments, 25 raters; 100 x 5 = 500 judgments, 25 raters: same cost, fewer pairs wins
    assert (best.pairs, best.raters_per_pair, best.judgments, best.raters) == (50, 10, 500, 25)
    assert best.cost == pytest.approx(round((500 * 0.5 + 25 * 1.15) * 1.43, 2))
    assert cheapest(table, "rho", 0.1, pay) is None


def test_a_pilot_too_small_is_refused():
    ratings, judge = pilot(n_items=2)
    with pytest.raises(ValueError, match="at least 3"):
        plan(ratings, judge)


def spearman_brown(alpha, k):
    return k * alpha / (1 + (k - 1) * alpha)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_assumed_values_agree_with_the_closed_forms(k):
    """Before any pilot: the judge's ρ with one k-rater mean is attenuated to ρ·√(Spearman–Brown), so
    the expected width is Fisher's there; H's interval is 2·1.96·√(sd²α + sd²(1 − α)/k)/√n."""
    a = Assumptions(rho=0.6, alpha=0.3, sd=0.8, harm=0.1)
    n = 200
    table = plan_assumed(a, pairs=(n,), raters=(k,), draws=400, seed=5)
    attenuated = a.rho * math.sqrt(spearman_brown(a.alpha, k))
    assert table["rho_width"].iloc[0] == pytest.approx(fisher_width(np.array([attenuated]), n)[0], rel=0.03)
    spread = math.sqrt(a.sd ** 2 * a.alpha + a.sd ** 2 * (1 - a.alpha) / k)
    assert table["harm_width"].iloc[0] == pytest.approx(2 * 1.959964 * spread / math.sqrt(n), rel=0.02)


def test_assumed_widths_shrink_with_pairs_and_with_raters():
    table = plan_assumed(Assumptions(rho=0.5, alpha=0.4), pairs=(25, 100, 400), raters=(1, 3, 9), draws=100)
    for _, by_k in table.groupby("raters_per_pair"):
        for column in ("rho_width", "sign_width", "harm_width"):
            assert list(by_k[column]) == sorted(by_k[column], reverse=True), column
    for _, by_n in table.groupby("pairs"):
        assert list(by_n["rho_width"]) == sorted(by_n["rho_width"], reverse=True)


def test_impossible_assumptions_are_refused_by_name():
    with pytest.raises(ValueError, match=r"rho must lie strictly between -1 and 1, not 1; alpha must be above 0"):
        plan_assumed(Assumptions(rho=1.0, alpha=0.0))
    with pytest.raises(ValueError, match="sd must be above 0"):
        plan_assumed(Assumptions(rho=0.5, alpha=0.5, sd=-1))
