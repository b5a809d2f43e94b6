"""Rater quality against hand counts and, for consensus agreement, a plain loop written here."""
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairval.analysis.raters import QualityRules, rater_quality

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


def reference_quality(ratings: pd.DataFrame, gold: dict, rules: QualityRules) -> dict:
    """Gold accuracy, median seconds, straight-lining, items and flags rater by rater, as a plain loop."""
    out = {}
    regular = ratings[~ratings["gold_item"]]
    for rater, mine in ratings.groupby("rater_id", sort=True):
        gold_part = mine[mine["gold_item"]]
        hits = [gold.get(r.item_id, {}).get(r.question) == r.value for r in gold_part.itertuples()
                if r.question in gold.get(r.item_id, {})]
        accuracy = sum(hits) / len(hits) if hits else None
        per_item = mine.groupby("item_id")["seconds"].first().dropna()
        median = float(per_item.median()) if len(per_item) else None
        own = regular[regular["rater_id"] == rater]
        # (share of the top answer, answers) per question; questions answered often enough count first
        tops = [(part["value"].value_counts(normalize=True).iloc[0], len(part)) for _, part in own.groupby("question")]
        enough = [share for share, n in tops if n >= rules.straightline_min_answers]
        straight = max(enough) if enough else max((share for share, _ in tops), default=None)
        n_items = own["item_id"].nunique()
        flags = 0
        flags += accuracy is not None and accuracy < rules.min_gold_accuracy
        flags += median is not None and bool(rules.min_median_seconds) and median < rules.min_median_seconds
        flags += bool(enough) and max(enough) >= rules.max_straightline
        out[rater] = (len(hits), accuracy, median, straight, n_items, flags)
    return out


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 4), st.sampled_from(["q1", "q2"]),
                          st.sampled_from(["a", "b", "c"]), st.one_of(st.none(), st.floats(0.5, 20))),
                min_size=1, max_size=80, unique_by=lambda t: (t[0], t[1], t[2])),
       st.floats(0, 10))
def test_quality_measures_match_a_plain_loop(rows, min_seconds):
    gold = {"i8": {"q1": "a"}, "i9": {"q1": "b", "q2": "c"}}
    ratings = frame([(f"i{i}", f"r{r}", q, v, v, s, f"i{i}" in gold) for i, r, q, v, s in rows])
    rules = QualityRules(min_median_seconds=min_seconds, straightline_min_answers=2)
    got = {q.rater_id: (q.gold_n, q.gold_accuracy, q.median_seconds, q.straightline, q.n_items, len(q.flags))
           for q in rater_quality(ratings, gold, rules)}
    want = reference_quality(ratings, gold, rules)
    assert set(got) == set(want)
    for rater, measures in want.items():
        assert list(got[rater]) == [pytest.approx(m) if m is not None else None for m in measures], rater


def pair_rows(rater, shown_and_flipped):
    """A harm question answered on pairs: shown A/B/C and whether the pair was swapped for this rater."""
    from fairval.annotate.material.pairs import canonical_value
    from fairval.annotate.material.tasks import get_task
    harm = get_task("harmful_stereotype").questions[0]
    return [(f"i{k}", rater, "harm", shown, canonical_value(harm, shown, flipped), 6.0, False)
            for k, (shown, flipped) in enumerate(shown_and_flipped)]


PAIRS = {"harm": "C"}


def test_a_pair_rater_answering_no_stereotype_throughout_is_not_straight_lining():
    quality = rater_quality(frame(pair_rows("honest", [("C", k % 2 == 1) for k in range(10)])), {},
                            pair_questions=PAIRS)
    assert quality[0].flags == () and quality[0].straightline is None


def test_a_pair_rater_always_choosing_response_1_is_flagged_with_the_reason():
    swapped = [k % 2 == 1 for k in range(12)]
    rows = pair_rows("lazy", [("A", f) for f in swapped[:10]] + [("C", f) for f in swapped[10:]])
    (lazy,) = rater_quality(frame(rows), {}, pair_questions=PAIRS)
    assert lazy.flags == ("straight-lining: Response 1 in 100% of answers naming a response (10 of 10)",)
    assert lazy.straightline == 1.0


def test_a_pair_rater_who_sees_the_harm_run_one_way_is_not_flagged():
    # answers follow the true order (always "stereotype as assigned") whichever side it was shown on: where a
    # study's harm runs one way this is what an honest rater does, so it is no habit of the screen
    rows = pair_rows("sees-it", [("B" if k % 2 else "A", bool(k % 2)) for k in range(10)])
    (rater,) = rater_quality(frame(rows), {}, pair_questions=PAIRS)
    assert rater.flags == () and rater.straightline == 0.5


def test_a_mixed_pair_rater_is_not_flagged():
    rows = pair_rows("mixed", [("A", False), ("B", False), ("A", True), ("B", True)] * 3)
    (rater,) = rater_quality(frame(rows), {}, pair_questions=PAIRS)
    assert rater.flags == () and rater.straightline == 0.5


def test_flags_group_the_thousands_of_a_large_study():
    """A rater of 2,400 items read "(2400 of 2400)" beside the pages' "2,400": their counts are grouped too."""
    n, gold = 2_400, 1_200
    rows = [(f"i{i}", "lazy", "quality", "5", "5", 1.0, False) for i in range(n)]
    rows += [(f"g{k}", "lazy", "quality", "5", "5", 1.0, True) for k in range(gold)]
    (lazy,) = rater_quality(frame(rows), {f"g{k}": {"quality": "1"} for k in range(gold)}, QualityRules())
    assert lazy.flags[0] == "gold accuracy 0% below " + f"{QualityRules().min_gold_accuracy:.0%} (0 of 1,200)"
    straight = next(f for f in lazy.flags if f.startswith("straight-lining"))
    assert straight.endswith(f"({n:,} of {n:,})"), straight
