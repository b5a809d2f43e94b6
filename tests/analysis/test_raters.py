"""Rater quality against hand counts and, for consensus agreement, a plain loop written here."""
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.raters import QualityRules, rater_quality

COLUMNS = ["item_id", "rater_id", "question", "value", "canonical", "seconds", "gold_item"]


def frame(rows):
    return pd.DataFrame(rows, columns=COLUMNS)


def reference_agreement(ratings: pd.DataFrame) -> dict[str, float]:
    """For each rating, is its answer among the most common answers of the item's other raters?"""
    hits: dict[str, list[bool]] = {}
    for _, part in ratings.groupby(["item_id", "question"]):
        if len(part) < 2:
            continue
        for r in part.itertuples():
            others = part[part.index != r.Index]["canonical"].value_counts()
            hits.setdefault(r.rater_id, []).append(r.canonical in set(others[others == others.max()].index))
    return {k: sum(v) / len(v) for k, v in hits.items()}


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5), st.sampled_from(["q1", "q2"]),
                          st.sampled_from(["a", "b", "c"])), min_size=1, max_size=60,
                unique_by=lambda t: (t[0], t[1], t[2])))
def test_consensus_agreement_matches_a_plain_loop(rows):
    ratings = frame([(f"i{i}", f"r{r}", q, v, v, 1.0, False) for i, r, q, v in rows])
    got = {q.rater_id: q.consensus_agreement for q in rater_quality(ratings, {})}
    want = reference_agreement(ratings)
    assert {k: v for k, v in got.items() if v is not None} == pytest.approx(want)
    assert all(got[k] is None for k in got if k not in want)


def test_gold_accuracy_speed_and_straight_lining_flags():
    rows = []
    for i in range(10):     # "lazy" answers 5 to everything, fast; "good" varies, slow
        rows.append((f"i{i}", "lazy", "quality", "5", "5", 1.0, False))
        rows.append((f"i{i}", "good", "quality", str(1 + i % 5), str(1 + i % 5), 12.0, False))
    rows += [("g1", "lazy", "quality", "5", "5", 1.0, True), ("g1", "good", "quality", "1", "1", 9.0, True),
             ("g2", "lazy", "quality", "1", "1", 1.0, True), ("g2", "good", "quality", "1", "1", 9.0, True)]
    quality = {q.rater_id: q for q in rater_quality(frame(rows), {"g1": {"quality": "1"}, "g2": {"quality": "1"}},
                                                    QualityRules(min_median_seconds=3))}
    lazy, good = quality["lazy"], quality["good"]
    assert (lazy.gold_n, lazy.gold_accuracy, good.gold_accuracy) == (2, 0.5, 1.0)
    assert lazy.median_seconds == 1.0 and good.median_seconds == 12.0
    assert lazy.straightline == 1.0 and good.straightline == pytest.approx(0.2)
    assert lazy.n_items == 10
    assert [f.split(" ")[0] for f in lazy.flags] == ["gold", "median", "straight-lining:"]
    assert good.flags == ()
