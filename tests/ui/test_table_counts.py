"""A table's count columns (ui/common.show_table's `counts`), as Streamlit is handed them: whole numbers (so the
grid sorts them as numbers) with a number format grouping their thousands as the English page does,
an undefined count a missing value shown as the dash; a column that is not all counts is left as it is. What the
browser paints is checked in tests/e2e/test_results_large_counts_browser.py."""
from __future__ import annotations

import json

import pandas as pd
from streamlit.testing.v1 import AppTest


def _table():
    import pandas as pd

    from fairval.annotate.outputs.formats import DASH
    from fairval.ui.common import show_table

    show_table(pd.DataFrame({"groups": ["a vs b", "c vs d", "e vs f"],
                             "n_items": [12_500, 3, 1_000_000],               # readable: "items"
                             "pairs": [2_400, None, 7],
                             "short of it": [DASH, 1_200.0, 0],
                             "checks": ["80% (4 of 5)", "–", "0% (0 of 2)"],  # not counts alone: left as text
                             "note": ["", "few", ""]}),
               counts=("n_items", "pairs", "short of it", "checks", "absent"), narrow=("note",))


def test_count_columns_stay_numbers_shown_localized():
    at = AppTest.from_function(_table, default_timeout=30).run()
    assert not at.exception
    table = at.dataframe[0]
    shown = table.value
    assert list(shown.columns) == ["groups", "items", "pairs", "short of it", "checks", "note"]
    assert shown["items"].tolist() == [12_500, 3, 1_000_000]
    assert shown["pairs"].tolist()[0::2] == [2_400, 7] and pd.isna(shown["pairs"].tolist()[1])
    assert pd.isna(shown["short of it"].tolist()[0]) and shown["short of it"].tolist()[1:] == [1_200, 0]
    for column in ("items", "pairs", "short of it"):
        assert pd.api.types.is_integer_dtype(shown[column]), (column, shown[column].dtype)
    assert shown["checks"].tolist() == ["80% (4 of 5)", "–", "0% (0 of 2)"]
    config = json.loads(table.proto.columns)
    for column in ("items", "pairs", "short of it"):
        assert config[column]["type_config"] == {"type": "number", "format": "%,d"}, config
    assert "checks" not in config and "absent" not in config
    assert config["note"]["width"] == "medium"
    assert table.proto.placeholder == "–"          # an undefined count: the dash every table writes


def _amounts():
    import pandas as pd

    from fairval.ui.common import show_table

    show_table(pd.DataFrame({"rater_id": ["r1", "r2", "r3"], "judgments": [12, 1_208, 3],
                             "bonus_owed": [99.0, 1_208.5, 0],
                             "total": [100.25, 1_209.5, 1.0],
                             "note": [1.5, "two", 3.0]}),                          # not all amounts: left as it is
               counts=("judgments",), money=("bonus_owed", "total", "note", "absent"))


def test_money_columns_stay_numbers_shown_with_cents_and_grouped():
    """Pay's amounts were strings ("1208.00"): ungrouped, and sorting by them put "99.00" after "1208.00"."""
    at = AppTest.from_function(_amounts, default_timeout=30).run()
    assert not at.exception
    table = at.dataframe[0]
    shown = table.value
    assert shown["bonus owed"].tolist() == [99.0, 1_208.5, 0.0] and shown["total"].tolist() == [100.25, 1_209.5, 1.0]
    for column in ("bonus owed", "total"):
        assert pd.api.types.is_float_dtype(shown[column]), (column, shown[column].dtype)
    # as numbers they sort by amount, where the old strings sorted "99.00" last
    assert sorted(shown["bonus owed"]) == [0.0, 99.0, 1_208.5]
    assert sorted(f"{v:.2f}" for v in [99.0, 1_208.5, 0.0])[-1] == "99.00"
    config = json.loads(table.proto.columns)
    for column in ("bonus owed", "total"):
        assert config[column]["type_config"] == {"type": "number", "format": "%,.2f"}, config
    assert config["judgments"]["type_config"]["format"] == "%,d"
    assert "note" not in config and "absent" not in config
