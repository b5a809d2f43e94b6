"""The calibrated judge: isotonic fit checked by hand, and the held-out map beating a judge miscalibrated
by a known monotone map."""
import numpy as np
import pytest

from fairval.analysis.judge_map import apply_isotonic, cross_validate, fit_isotonic, fit_linear


def test_isotonic_pools_adjacent_violators_by_hand():
    # judge 0,1,2,3 with human 1, 3, 2, 4: the violating pair (3, 2) pools to 2.5
    table = fit_isotonic(np.array([0.0, 1, 2, 3]), np.array([1.0, 3, 2, 4]))
    assert table == {"x": [0.0, 1.0, 2.0, 3.0], "y": pytest.approx([1.0, 2.5, 2.5, 4.0])}
    assert apply_isotonic(table, np.array([-5, 0.5, 9])) == pytest.approx([1.0, 1.75, 4.0])


def test_tied_judge_scores_become_one_knot():
    table = fit_isotonic(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 2.0]))
    assert table["x"] == [0.0, 1.0] and table["y"] == pytest.approx([0.5, 2.0])


def test_the_line_is_least_squares():
    line = fit_linear(np.array([0.0, 1, 2]), np.array([1.0, 3, 5]))
    assert line == pytest.approx({"slope": 2.0, "intercept": 1.0})


def test_the_held_out_map_beats_a_judge_miscalibrated_by_a_known_monotone_map():
    rng = np.random.default_rng(0)
    human = rng.uniform(-1, 1, 400)
    judge = np.tanh(3 * human) * 0.5 + 0.4 + rng.normal(0, 0.05, 400)     # squashed and shifted
    cv = cross_validate(judge, human, folds=5, seed=1)
    assert cv.isotonic.mae < 0.5 * cv.raw.mae
    assert cv.isotonic.pearson_r > cv.raw.pearson_r
    assert cv.linear.mae < cv.raw.mae
    assert "needs" in str(cross_validate(judge[:6], human[:6]).reason)
