import pandas as pd
import pytest

from fairval.analysis.scores import likert_by_group, likert_summary


def test_summary_matches_a_hand_count():
    values = pd.Series(["5", "4", "4", "2", "5", "3"])
    s = likert_summary(values)
    assert s.n == 6
    assert s.mean == pytest.approx((5 + 4 + 4 + 2 + 5 + 3) / 6)
    assert s.share_4_or_5 == pytest.approx(4 / 6)
    assert s.distribution == {1: 0, 2: 1, 3: 1, 4: 2, 5: 2}


def test_empty_summary_has_no_mean():
    s = likert_summary(pd.Series([], dtype=str))
    assert s.n == 0 and s.mean is None and s.share_4_or_5 is None


def test_by_group():
    frame = pd.DataFrame({"template": ["0", "0", "1", "1"], "question": ["quality"] * 4,
                          "value": ["5", "3", "4", "4"]})
    table = likert_by_group(frame, "template").set_index("template")
    assert table.loc["0", "mean"] == 4.0 and table.loc["0", "share_4_or_5"] == 0.5
    assert table.loc["1", "n"] == 2 and table.loc["1", "share_4_or_5"] == 1.0


def test_as_numbers_converts_only_the_categories_in_use():
    import numpy as np

    from fairval.analysis.scores import as_numbers
    answers = pd.Series(pd.Categorical(["4", "-1", None, "a group", "4"]))
    numbers = as_numbers(answers[answers != "a group"])
    assert numbers.tolist()[:2] == [4.0, -1.0] and np.isnan(numbers.iloc[2]) and numbers.iloc[3] == 4.0
    assert as_numbers(pd.Series(["2", "3.5"])).tolist() == [2.0, 3.5]
