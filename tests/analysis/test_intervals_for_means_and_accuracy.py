"""The intervals beside name accuracy and per-template means, against the formulas written out here."""
import math

import pandas as pd
import pytest

from fairval.analysis.names import accuracy_by_intended
from fairval.analysis.scores import likert_by_group


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_name_accuracy_carries_wilsons_interval():
    ratings = pd.DataFrame({"intended": ["Black"] * 7 + ["White"] * 10,
                            "value": ["Black"] * 5 + ["White"] * 2 + ["White"] * 10})
    acc = accuracy_by_intended(ratings)
    assert acc["Black"].share == pytest.approx(5 / 7) and acc["Black"].n == 7
    assert acc["Black"].ci == pytest.approx(wilson(5, 7), abs=1e-9)
    assert acc["White"].ci == pytest.approx(wilson(10, 10), abs=1e-9)       # all right: the upper end is 1
    assert acc["White"].ci[1] == pytest.approx(1.0)


def test_template_means_carry_students_t_interval_and_none_below_two_ratings():
    ratings = pd.DataFrame({"template": ["t1"] * 5 + ["t2"], "question": ["quality"] * 6,
                            "value": ["5", "4", "4", "2", "5", "3"]})
    table = likert_by_group(ratings, "template").set_index("template")
    values = [5, 4, 4, 2, 5]
    mean = sum(values) / 5
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 4)
    t_975_df4 = 2.7764451051977987                                          # Student's t table, 4 df
    assert table.loc["t1", "mean"] == pytest.approx(mean)
    assert table.loc["t1", "mean_ci_low"] == pytest.approx(mean - t_975_df4 * sd / math.sqrt(5))
    assert table.loc["t1", "mean_ci_high"] == pytest.approx(mean + t_975_df4 * sd / math.sqrt(5))
    assert math.isnan(table.loc["t2", "mean_ci_low"]) and table.loc["t2", "n"] == 1
