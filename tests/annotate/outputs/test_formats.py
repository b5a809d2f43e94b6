"""One printed form per kind of number."""
import math

from fairval.annotate.outputs import formats


def test_each_kind_has_its_form():
    assert formats.ratio(0.12345) == "0.123" and formats.mean(3.456) == "3.46"
    assert formats.interval((-0.4761, -0.0894)) == "[-0.476, -0.089]"
    assert formats.p_value(0.0004) == "< 0.001" and formats.p_value(0.0123) == "0.012"
    assert formats.ratio(None) == formats.mean(math.nan) == formats.interval(None) == "–"


def test_counts_agree_with_their_noun():
    assert formats.count(1, "rater") == "1 rater"
    assert formats.count(0, "rater") == "0 raters" and formats.count(2, "pair") == "2 pairs"


def test_table_cells_follow_their_column():
    assert formats.cell("mean", 4.0) == "4.00" and formats.cell("share_4_or_5", 2 / 3) == "0.667"
    assert formats.cell("n", 6) == 6 and formats.cell("flags", ["a", "b"]) == "a, b"
    assert formats.cell("median seconds", 12.345) == "12.3"


def test_a_count_the_data_leaves_undefined_is_a_dash_not_none():
    assert formats.count(None, "pair") == "– pairs" and formats.count(None, "rater", "raters") == "– raters"
    assert formats.count(1, "pair") == "1 pair" and formats.count(1200, "pair") == "1,200 pairs"
