"""Alpha checked against Krippendorff's published example and an independent pairwise computation."""
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairval.analysis.reliability import krippendorff_alpha

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 coders x 12 units example.
K2011 = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


def long(matrix) -> pd.DataFrame:
    return pd.DataFrame([(f"u{u}", f"c{c}", v) for c, row in enumerate(matrix)
                         for u, v in enumerate(row) if v is not None],
                        columns=["item_id", "rater_id", "value"])


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_published_example(level, published):
    result = krippendorff_alpha(long(K2011), level=level, domain=[1, 2, 3, 4, 5], n_boot=200)
    assert round(result.alpha, 3) == published
    assert result.n_items == 11 and result.n_raters == 4      # unit 12 has one value: not pairable
    low, high = result.interval
    assert low <= result.alpha <= high


def independent_nominal_alpha(frame: pd.DataFrame) -> float:
    """Alpha = 1 - D_o/D_e from pairable values, written from the definition without the library."""
    units = [g["value"].tolist() for _, g in frame.groupby("item_id") if len(g) >= 2]
    pairs_disagree = sum(sum(a != b for a, b in itertools.permutations(vals, 2)) / (len(vals) - 1)
                         for vals in units)
    values = [v for vals in units for v in vals]
    n = len(values)
    counts = pd.Series(values).value_counts()
    expected = (n * n - (counts ** 2).sum()) / (n - 1)
    return 1 - pairs_disagree / expected


def test_nominal_alpha_matches_the_definition_and_agreement_matches_pair_count():
    frame = long(K2011)
    result = krippendorff_alpha(frame, level="nominal", domain=[1, 2, 3, 4, 5], n_boot=0)
    assert result.alpha == pytest.approx(independent_nominal_alpha(frame))
    agree = total = 0
    for _, g in frame.groupby("item_id"):
        for a, b in itertools.permutations(g["value"].tolist(), 2):
            agree += a == b
            total += 1
    assert result.percent_agreement == pytest.approx(agree / total)


@pytest.mark.parametrize("rows, reason", [
    ([("a", "r1", 3), ("b", "r1", 4)], "fewer than two raters"),
    ([("a", "r1", 3), ("b", "r2", 4)], "no item was rated by two or more raters"),
    ([("a", "r1", 4), ("a", "r2", 4), ("b", "r1", 4), ("b", "r2", 4)], "without variation"),
    ([], "fewer than two raters"),
])
def test_undefined_cases_give_none_with_a_reason(rows, reason):
    frame = pd.DataFrame(rows, columns=["item_id", "rater_id", "value"])
    result = krippendorff_alpha(frame, level="ordinal", domain=[1, 2, 3, 4, 5])
    assert result.alpha is None and result.interval is None
    assert reason in str(result.reason)


def test_values_outside_the_scale_are_refused():
    frame = pd.DataFrame([("a", "r1", 6), ("a", "r2", 4)], columns=["item_id", "rater_id", "value"])
    with pytest.raises(ValueError, match="outside the domain"):
        krippendorff_alpha(frame, level="ordinal", domain=[1, 2, 3, 4, 5])


matrices = st.lists(st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=6, max_size=6),
                    min_size=2, max_size=5)


@settings(max_examples=60, deadline=None)
@given(matrix=matrices, seed=st.integers(0, 10_000), level=st.sampled_from(["nominal", "ordinal", "interval"]))
def test_alpha_is_unchanged_when_raters_or_items_are_permuted(matrix, seed, level):
    rng = np.random.default_rng(seed)
    frame = long(matrix)
    base = krippendorff_alpha(frame, level=level, domain=[1, 2, 3, 4, 5], n_boot=0)
    raters = {r: f"p{i}" for i, r in enumerate(rng.permutation(frame["rater_id"].unique()))}
    items = {u: f"q{i}" for i, u in enumerate(rng.permutation(frame["item_id"].unique()))} if len(frame) else {}
    moved = frame.assign(rater_id=frame["rater_id"].map(raters), item_id=frame["item_id"].map(items))
    moved = moved.sample(frac=1, random_state=seed)
    again = krippendorff_alpha(moved, level=level, domain=[1, 2, 3, 4, 5], n_boot=0)
    if base.alpha is None:
        assert again.alpha is None and again.reason == base.reason
    else:
        assert again.alpha == pytest.approx(base.alpha)


counts_matrices = st.lists(st.lists(st.integers(0, 4), min_size=4, max_size=4), min_size=1, max_size=12)


@settings(max_examples=120, deadline=None)
@given(rows=counts_matrices, level=st.sampled_from(["nominal", "ordinal", "interval"]))
def test_alpha_from_coincidences_equals_the_krippendorff_package(rows, level):
    """The vectorised alpha used for bootstrap draws, against krippendorff.alpha on the same counts."""
    import krippendorff

    from fairval.analysis.reliability import alpha_from_coincidences, coincidences
    counts = np.array(rows, dtype=float)
    counts = counts[counts.sum(axis=1) >= 2]
    if len(counts) == 0 or np.count_nonzero(counts.sum(axis=0)) < 2:
        return
    domain = [1.0, 2.0, 4.0, 7.0]            # unevenly spaced, so interval and ordinal differ
    expected = krippendorff.alpha(value_counts=counts, value_domain=domain if level != "nominal" else None,
                                  level_of_measurement=level)
    o = coincidences(counts).sum(axis=0).reshape(1, 4, 4)
    assert alpha_from_coincidences(o, domain, level)[0] == pytest.approx(expected, abs=1e-9)


def loop_bootstrap(counts, domain, level, n_boot, seed):
    """The bootstrap as fairval first computed it: one resample at a time through krippendorff.alpha."""
    import krippendorff
    rng = np.random.default_rng(seed)
    codes = np.arange(len(domain)) if level == "nominal" else np.asarray(domain, dtype=float)
    draws = []
    for _ in range(n_boot):
        sample = counts[rng.integers(0, len(counts), len(counts))]
        if np.count_nonzero(sample.sum(axis=0)) >= 2:
            draws.append(krippendorff.alpha(value_counts=sample, value_domain=codes, level_of_measurement=level))
    if len(draws) < n_boot / 2:
        return None
    return tuple(np.percentile(draws, [2.5, 97.5]))


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", [0, 7])
def test_bootstrap_interval_equals_one_draw_at_a_time(level, seed):
    rng = np.random.default_rng(100 + seed)
    rows = [(f"u{u}", f"c{c}", int(rng.integers(1, 6))) for u in range(40) for c in range(int(rng.integers(1, 5)))
            if rng.random() < 0.9]
    frame = pd.DataFrame(rows, columns=["item_id", "rater_id", "value"])
    result = krippendorff_alpha(frame, level=level, domain=[1, 2, 3, 4, 5], n_boot=300, seed=seed)
    from fairval.analysis.reliability import value_counts
    expected = loop_bootstrap(value_counts(frame, [1, 2, 3, 4, 5]), [1, 2, 3, 4, 5], level, 300, seed)
    assert result.interval == pytest.approx(expected, abs=1e-9)


def test_bootstrap_with_few_varied_resamples_keeps_the_loop_rule():
    """Two items, one varied: most resamples have no variation, as in the loop; same verdict."""
    frame = long([[1, 3], [1, 3], [1, 3]]).assign(value=lambda f: f["value"].where(f["item_id"] == "u0", 3))
    frame.loc[(frame["item_id"] == "u0") & (frame["rater_id"] == "c0"), "value"] = 2
    from fairval.analysis.reliability import value_counts
    counts = value_counts(frame, [1, 2, 3, 4, 5])
    result = krippendorff_alpha(frame, level="ordinal", domain=[1, 2, 3, 4, 5], n_boot=200, seed=3)
    expected = loop_bootstrap(counts, [1, 2, 3, 4, 5], "ordinal", 200, 3)
    assert (result.interval is None) == (expected is None)
    if expected is not None:
        assert result.interval == pytest.approx(expected, abs=1e-9)
