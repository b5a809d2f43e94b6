"""The fairness judge's own audit (issue 53): its error per group pair, Welch's test of equal error across
group pairs, and whether its verdict follows the group labels when they are swapped.

Worlds written here: 200 pairs in 4 group pairs of 50; on each pair people's answer distribution over
A, B, C is drawn, H_i = P(A) − P(B), and 3 raters answer from it; the judge scores H_i plus noise (sd 0.2),
clipped to [−1, 1]. A judge that under-reports harm for one group pair subtracts 0.3 there. 100 studies:
the test must reject equal error at 5% in ≥ 80% of them (Monte-Carlo standard error of a rejection rate
near 0.8 over 100 studies: √(0.8·0.2/100) = 0.04); for the honest judge it must reject in ≤ 12% (the
test's size is 5%; √(0.05·0.95/100) = 0.022, so 12% is 3 standard errors above it).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairval.analysis.judge_fairness import error_by_group, label_swap, welch_anova

GROUPS = ("woman vs man", "old vs young", "Black vs white", "gay vs straight")


def study(rng, under_report: float):
    ids = [f"p{i}" for i in range(200)]
    strata = pd.Series({i: GROUPS[k % 4] for k, i in enumerate(ids)})
    pi = rng.dirichlet([1.0, 0.6, 1.2], size=200)
    truth = pi[:, 0] - pi[:, 1]
    answers = [rng.choice([1.0, -1.0, 0.0], size=3, p=p) for p in pi]
    human = pd.Series([a.mean() for a in answers], index=ids)
    shift = np.array([under_report if strata[i] == GROUPS[2] else 0.0 for i in ids])
    judge = pd.Series(np.clip(truth + rng.normal(0, 0.2, 200) - shift, -1, 1), index=ids)
    return human, judge, strata


@pytest.mark.parametrize("under_report, least, most", [(0.3, 0.80, 1.0), (0.0, 0.0, 0.12)],
                         ids=["under-reports one group pair", "honest"])
def test_the_equal_error_test_finds_a_judge_that_under_reports_one_group_pair(under_report, least, most):
    rng = np.random.default_rng(53)
    rejected = 0
    for _ in range(100):
        human, judge, strata = study(rng, under_report)
        audit = error_by_group(human, judge, strata, n_boot=0, seed=0)
        rejected += audit.equal_error.p_value < 0.05
    assert least <= rejected / 100 <= most, rejected


def test_each_group_pairs_error_and_the_test_equal_independent_computations():
    human, judge, strata = study(np.random.default_rng(7), 0.3)
    audit = error_by_group(human, judge, strata, n_boot=500, seed=1)
    errors = {}
    for i in human.index:                                  # loops: judge minus people, per group pair
        errors.setdefault(strata[i], []).append(judge[i] - human[i])
    for name, values in errors.items():
        group = audit.groups[name]
        assert group.n_rated == len(values)
        assert group.mean_error == pytest.approx(sum(values) / len(values), abs=1e-12)
        low, high = group.mean_error_ci
        assert -2 <= low < group.mean_error < high <= 2
        directed = [i for i in human.index if strata[i] == name and human[i] != 0]
        hits = sum((human[i] > 0) == (judge[i] > 0) and judge[i] != 0 for i in directed)
        assert group.sign_agreement == pytest.approx(hits / len(directed))
    assert audit.groups[GROUPS[2]].mean_error < audit.groups[GROUPS[0]].mean_error - 0.15
    scipy_welch = stats.f_oneway(*[np.array(errors[g]) for g in sorted(errors)], equal_var=False)
    assert audit.equal_error.f == pytest.approx(scipy_welch.statistic, rel=1e-9)
    assert audit.equal_error.p_value == pytest.approx(scipy_welch.pvalue, rel=1e-6)
    assert list(audit.equal_error.group_pairs) == sorted(GROUPS)


def test_welch_matches_its_textbook_formula_on_a_small_case():
    groups = [np.array([0.1, 0.4, -0.2]), np.array([0.5, 0.9, 0.7, 0.6]), np.array([-0.3, 0.0])]
    n = np.array([3, 4, 2])
    m = np.array([g.mean() for g in groups])
    v = np.array([g.var(ddof=1) for g in groups])
    w = n / v
    mw = (w * m).sum() / w.sum()
    a = ((1 - w / w.sum()) ** 2 / (n - 1)).sum()
    f = ((w * (m - mw) ** 2).sum() / 2) / (1 + 2 * 1 * a / 8)
    got = welch_anova(groups)
    assert got.f == pytest.approx(f) and got.df == pytest.approx((2, 8 / (3 * a)))


def test_a_judge_that_follows_the_labels_is_reported_as_such():
    ids = [f"p{i}" for i in range(40)]
    score = pd.Series(np.linspace(-0.9, 0.9, 40), index=ids)
    labels = label_swap(score, score * 0.8)                   # keeps its letter when the labels swap
    responses = label_swap(score, -score)                     # names the same response for the same group
    assert labels.follows_labels == 1.0 and labels.follows_responses == 0.0
    assert responses.follows_labels == 0.0 and responses.follows_responses == 1.0
    assert labels.follows_labels_ci.low > 0.9
    mixed = label_swap(score, pd.Series([s if k % 4 == 0 else -s for k, s in enumerate(score)], index=ids))
    assert mixed.follows_labels == pytest.approx(10 / 40)


def test_too_few_group_pairs_say_why():
    human = pd.Series([0.5, -0.2, 0.1], index=["a", "b", "c"])
    judge = pd.Series([0.4, 0.1, 0.0], index=["a", "b", "c"])
    audit = error_by_group(human, judge, pd.Series({"a": "x vs y", "b": "x vs y", "c": "x vs y"}), n_boot=0, seed=0)
    assert audit.equal_error.p_value is None and "at least 2 group pairs" in str(audit.equal_error.reason)
