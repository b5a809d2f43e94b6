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


def test_template_means_carry_a_bounded_interval_never_of_zero_width():
    """A 1–5 mean's interval stays on the scale (Student's t on few ratings gave [2.9, 6.1]) and has width
    when every rating agrees (t gave [4, 4]); its ends are the betting set written out independently."""
    from tests.analysis.test_active_and_anytime import direct_capital

    ratings = pd.DataFrame({"template": ["t1"] * 5 + ["t2"] * 3 + ["t3"], "question": ["quality"] * 9,
                            "value": ["5", "4", "4", "2", "5", "4", "4", "4", "5"]})
    table = likert_by_group(ratings, "template").set_index("template")
    for name, values in (("t1", [5, 4, 4, 2, 5]), ("t2", [4, 4, 4]), ("t3", [5])):
        low, high = table.loc[name, "mean_ci_low"], table.loc[name, "mean_ci_high"]
        assert table.loc[name, "mean"] == pytest.approx(sum(values) / len(values))
        assert 1 <= low < sum(values) / len(values) <= high <= 5 and high - low > 0.5
        unit = [(v - 1) / 4 for v in values]
        kept = [m for m in (k / 400 for k in range(401))
                if max(direct_capital(unit, m, planned=len(values))) < 20 * 0.999]
        assert low <= 1 + 4 * min(kept) and 1 + 4 * max(kept) <= high
        assert high - (1 + 4 * max(kept)) < 0.03 and (1 + 4 * min(kept)) - low < 0.03
