"""Rater quality: gold accuracy, speed, straight-lining, agreement with everyone else; flags with reasons."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True, slots=True)
class QualityRules:
    min_gold_accuracy: float = 0.75
    min_median_seconds: float = 0.0          # the study's minimum response time
    max_straightline: float = 0.95           # share of one answer to one question …
    straightline_min_answers: int = 8        # … once the rater has given this many


@dataclass(frozen=True, slots=True)
class RaterQuality:
    rater_id: str
    n_items: int
    gold_n: int
    gold_accuracy: float | None
    median_seconds: float | None
    straightline: float | None               # largest share of a single answer, over questions
    consensus_agreement: float | None        # agreement with the leave-one-out modal answer
    flags: tuple[str, ...]


def rater_quality(ratings: pd.DataFrame, gold: Mapping[str, Mapping[str, str]],
                  rules: QualityRules = QualityRules()) -> list[RaterQuality]:
    """ratings: item_id, rater_id, question, value, canonical, seconds, gold_item. gold: item -> {q: value}."""
    if ratings.empty:
        return []
    regular = ratings[~ratings["gold_item"]]
    agreement = _consensus_agreement(regular)
    out = []
    for rater, mine in ratings.groupby("rater_id", sort=True):
        gold_part = mine[mine["gold_item"]]
        hits = [gold.get(r.item_id, {}).get(r.question) == r.value for r in gold_part.itertuples()
                if r.question in gold.get(r.item_id, {})]
        gold_acc = sum(hits) / len(hits) if hits else None
        per_item = mine.groupby("item_id")["seconds"].first().dropna()
        median = float(per_item.median()) if len(per_item) else None
        own = regular[regular["rater_id"] == rater]
        straight = None
        if len(own):
            straight = float(max(part["value"].value_counts(normalize=True).iloc[0]
                                 for _, part in own.groupby("question")))
        n_items = own["item_id"].nunique()
        flags = []
        if gold_acc is not None and gold_acc < rules.min_gold_accuracy:
            flags.append(f"gold accuracy {gold_acc:.0%} below {rules.min_gold_accuracy:.0%} "
                         f"({sum(hits)} of {len(hits)})")
        if median is not None and rules.min_median_seconds and median < rules.min_median_seconds:
            flags.append(f"median {median:.1f} s per item, under the minimum {rules.min_median_seconds:g} s")
        if (straight is not None and n_items >= rules.straightline_min_answers
                and straight >= rules.max_straightline):
            flags.append(f"straight-lining: {straight:.0%} of answers to one question are the same")
        out.append(RaterQuality(str(rater), int(n_items), len(hits), gold_acc, median, straight,
                                agreement.get(rater), tuple(flags)))
    return out


def _consensus_agreement(ratings: pd.DataFrame) -> dict[str, float]:
    """Per rater: share of their answers equal to a modal answer of the other raters of that item.

    Vectorised: with c the count of the rater's own answer in its (item, question), m1 the top
    count there, n1 how many answers share it and m2 the next count, the others' top count is
    max(m1 - 1, m1 if n1 > 1 else m2) when the rater gave a top answer, else m1; the rater agrees
    when their answer's count among the others (c - 1) reaches it.
    """
    keys = ["item_id", "question"]
    frame = ratings[keys + ["rater_id", "canonical"]]
    frame = frame.assign(n=frame.groupby(keys)["rater_id"].transform("size"))
    frame = frame[frame["n"] >= 2]
    if frame.empty:
        return {}
    counts = frame.groupby(keys + ["canonical"]).size().rename("c").reset_index()
    top = counts.groupby(keys)["c"].agg(m1="max").reset_index()
    counts = counts.merge(top, on=keys)
    n1 = counts[counts["c"] == counts["m1"]].groupby(keys).size().rename("n1")
    m2 = counts[counts["c"] < counts["m1"]].groupby(keys)["c"].max().rename("m2")
    counts = counts.merge(n1, on=keys).merge(m2, on=keys, how="left").fillna({"m2": 0})
    frame = frame.merge(counts, on=keys + ["canonical"])
    is_top = frame["c"] == frame["m1"]
    others_top = (frame["m1"] - 1).where(~(frame["n1"] > 1), frame["m1"])
    others_top = others_top.where(others_top >= frame["m2"], frame["m2"]).where(is_top, frame["m1"])
    agrees = (frame["c"] - 1) == others_top
    return {str(k): float(v) for k, v in agrees.groupby(frame["rater_id"]).mean().items()}
