"""Calibration numbers against scipy/numpy computed independently here, and their invariants."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from fairval.analysis.calibration import calibrate, harm_rate, human_scores, sign_agreement
from fairval.analysis.lmra import combine_orders


def test_human_scores_are_means_of_canonical_values():
    ratings = pd.DataFrame({"item_id": ["a", "a", "a", "b", "b"], "canonical": ["1", "0", "1", "-1", "0"]})
    assert human_scores(ratings).to_dict() == pytest.approx({"a": 2 / 3, "b": -0.5})


def test_calibration_matches_scipy_and_a_hand_count():
    human = pd.Series({"a": 0.5, "b": -0.25, "c": 0.0, "d": 0.75, "e": -0.5})
    lmra = pd.Series({"a": 0.4, "b": 0.1, "c": 0.0, "d": 0.9, "e": -0.7, "z": 1.0})   # z: no humans
    c = calibrate(human, lmra)
    x, y = human.to_numpy(), lmra[human.index].to_numpy()
    r, p = np.corrcoef(x, y)[0, 1], stats.pearsonr(x, y).pvalue
    z, se = np.arctanh(r), 1 / np.sqrt(len(x) - 3)
    assert c.pearson_r == pytest.approx(r) and c.p_value == pytest.approx(p)
    assert c.pearson_ci == pytest.approx((np.tanh(z - 1.959964 * se), np.tanh(z + 1.959964 * se)), abs=1e-6)
    # people's mean 0 names no direction (issue 53): c is left out, b: - vs + disagrees
    assert c.sign_agreement == pytest.approx(3 / 4) and c.n_human_zero == 1
    assert c.n_items == 5


@pytest.mark.parametrize("human, lmra, reason", [
    ({"a": 0.1, "b": 0.2}, {"a": 0.1, "b": 0.3}, "at least 3"),
    ({"a": 0.5, "b": 0.5, "c": 0.5}, {"a": 0.1, "b": 0.2, "c": 0.3}, "every human score is the same"),
    ({"a": 0.1, "b": 0.2, "c": 0.3}, {"a": 0.0, "b": 0.0, "c": 0.0}, "every lmra score is the same"),
])
def test_degenerate_calibration_is_none_with_reason(human, lmra, reason):
    c = calibrate(pd.Series(human), pd.Series(lmra))
    assert c.pearson_r is None and c.pearson_ci is None and reason in c.reason


scores = st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=30)


@settings(max_examples=100, deadline=None)
@given(scores, st.data())
def test_negating_lmra_negates_rho_and_rho_is_bounded(human_values, data):
    lmra_values = data.draw(st.lists(st.floats(-1, 1, allow_nan=False), min_size=len(human_values),
                                     max_size=len(human_values)))
    human = pd.Series(human_values, index=[f"i{k}" for k in range(len(human_values))])
    lmra = pd.Series(lmra_values, index=human.index)
    assume(human.nunique() > 1 and lmra.nunique() > 1)
    assume(np.std(human_values) > 1e-6 and np.std(lmra_values) > 1e-6)
    c, neg = calibrate(human, lmra), calibrate(human, -lmra)
    assert -1 - 1e-9 <= c.pearson_r <= 1 + 1e-9
    assert neg.pearson_r == pytest.approx(-c.pearson_r, abs=1e-9)


def test_sign_agreement_and_harm_rate():
    assert sign_agreement(pd.Series([0.0, 1, -1]), pd.Series([0.0, 0.2, 0.3])) == pytest.approx(1 / 2)
    # a human mean of 0 is neither agreed with nor disagreed with: on main, 0 against a judge's 0.3 disagreed
    assert sign_agreement(pd.Series([0.0, 0.0, 1]), pd.Series([0.3, -0.1, 0.2])) == pytest.approx(1.0)
    assert sign_agreement(pd.Series([0.0]), pd.Series([0.4])) is None
    rate = harm_rate(pd.Series([0.5, -0.5, 1.0, None]))
    assert rate.value == pytest.approx(1 / 3) and rate.n_items == 3


def test_combine_orders_by_hand():
    # true order: judge says A 0.6, B 0.3, C 0.1; swapped: A 0.5, B 0.4, C 0.1
    s = combine_orders([0.6, 0.3, 0.1], [0.5, 0.4, 0.1])
    raw = [min(0.6, 0.4), min(0.3, 0.5), min(0.1, 0.1)]          # 0.4, 0.3, 0.1
    assert s.r == pytest.approx(tuple(v / sum(raw) for v in raw))
    assert s.score == pytest.approx((0.4 - 0.3) / 0.8)


def test_a_judge_that_always_says_a_scores_zero():
    # position bias: "A" whatever the order; the min-combination cancels it
    s = combine_orders([0.9, 0.05, 0.05], [0.9, 0.05, 0.05])
    assert s.score == pytest.approx(0.0)


def test_combine_orders_renormalises_and_refuses_nonsense():
    assert combine_orders([6, 3, 1], [5, 4, 1]).score == pytest.approx(combine_orders([.6, .3, .1], [.5, .4, .1]).score)
    with pytest.raises(ValueError, match="all zero"):
        combine_orders([0, 0, 0], [1, 0, 0])
    with pytest.raises(ValueError, match="disagree completely"):
        combine_orders([1, 0, 0], [1, 0, 0])


def test_holm_by_hand():
    from fairval.analysis.calibration import holm
    # sorted 0.01, 0.02, 0.04 times 3, 2, 1: 0.03, 0.04, 0.04 (kept monotone); None untouched
    assert holm([0.04, 0.01, None, 0.02]) == pytest.approx([0.04, 0.03, None, 0.04])
    assert holm([0.6, 0.5]) == pytest.approx([1.0, 1.0])
