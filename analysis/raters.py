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
    """ratings: item_id, rater_id, question, value, canonical, seconds, gold_item. gold: item -> {q: value}.

    Each measure is one grouped pass over all raters; only the flags are written rater by rater.
    """
    if ratings.empty:
        return []
    regular = ratings[~ratings["gold_item"]]
    agreement = _consensus_agreement(regular)
    raters = sorted(ratings["rater_id"].unique())
    hits, checked = _gold_hits(ratings, gold)
    first_seconds = ratings.groupby(["rater_id", "item_id"])["seconds"].first().dropna()
    median = first_seconds.groupby(level="rater_id").median()
    n_items = regular.groupby("rater_id")["item_id"].nunique()
    answers = regular.groupby(["rater_id", "question", "value"]).size()
    shares = answers / answers.groupby(level=["rater_id", "question"]).transform("sum")
    straight = shares.groupby(level="rater_id").max()
    out = []
    for rater in raters:
        n_hit, n_gold = int(hits.get(rater, 0)), int(checked.get(rater, 0))
        gold_acc = n_hit / n_gold if n_gold else None
        med = float(median[rater]) if rater in median.index else None
        line = float(straight[rater]) if rater in straight.index else None
        items = int(n_items.get(rater, 0))
        flags = []
        if gold_acc is not None and gold_acc < rules.min_gold_accuracy:
            flags.append(f"gold accuracy {gold_acc:.0%} below {rules.min_gold_accuracy:.0%} "
                         f"({n_hit} of {n_gold})")
        if med is not None and rules.min_median_seconds and med < rules.min_median_seconds:
            flags.append(f"median {med:.1f} s per item, under the minimum {rules.min_median_seconds:g} s")
        if line is not None and items >= rules.straightline_min_answers and line >= rules.max_straightline:
            flags.append(f"straight-lining: {line:.0%} of answers to one question are the same")
        out.append(RaterQuality(str(rater), items, n_gold, gold_acc, med, line, agreement.get(rater), tuple(flags)))
    return out


def _gold_hits(ratings: pd.DataFrame, gold: Mapping[str, Mapping[str, str]]) -> tuple[pd.Series, pd.Series]:
    """Per rater: gold answers matching the expected one, and gold answers checked."""
    expected = pd.DataFrame([(item, q, str(v)) for item, answers in gold.items() for q, v in answers.items()],
                            columns=["item_id", "question", "expected"])
    answered = ratings.loc[ratings["gold_item"], ["rater_id", "item_id", "question", "value"]]
    if expected.empty or answered.empty:
        return pd.Series(dtype=int), pd.Series(dtype=int)
    joined = answered.astype({"item_id": str, "question": str}).merge(expected, on=["item_id", "question"])
    hit = joined["value"].astype(str) == joined["expected"]
    return hit.groupby(joined["rater_id"]).sum(), hit.groupby(joined["rater_id"]).size()


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
