"""Summaries of 1–5 agreement ratings: mean, distribution, share of 4s and 5s."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True, slots=True)
class LikertSummary:
    n: int
    mean: float | None
    share_4_or_5: float | None
    distribution: dict[int, int]          # value 1..5 -> count


def as_numbers(values: pd.Series) -> pd.Series:
    """Text answers ("4", "-1") as floats; a categorical column converts its few categories, not every row."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.cat.remove_unused_categories()     # other questions' answers may be text
        categories = pd.to_numeric(np.asarray(values.cat.categories), errors="raise").astype(float)
        codes = values.cat.codes.to_numpy()
        numbers = np.where(codes >= 0, np.append(categories, np.nan)[codes], np.nan)
        return pd.Series(numbers, index=values.index, name=values.name)
    return pd.to_numeric(values, errors="raise").astype(float)


def likert_summary(values: pd.Series) -> LikertSummary:
    v = as_numbers(values).astype(int)
    dist = {k: int((v == k).sum()) for k in range(1, 6)}
    if len(v) == 0:
        return LikertSummary(0, None, None, dist)
    return LikertSummary(len(v), float(v.mean()), float((v >= 4).mean()), dist)


def likert_by_group(ratings: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per group (e.g. template) and question: n, mean, share_4_or_5. Expects columns by, question, value."""
    v = as_numbers(ratings["value"])
    frame = pd.DataFrame({by: ratings[by].astype(str), "question": ratings["question"].astype(str),
                          "v": v, "high": (v >= 4).astype(float)})
    out = (frame.groupby([by, "question"], sort=True)
           .agg(n=("v", "size"), mean=("v", "mean"), sd=("v", "std"), share_4_or_5=("high", "mean"))
           .reset_index())
    out["n"] = out["n"].astype(int)
    # A 95% interval for the mean of a bounded 1–5 scale that never leaves it and is never of zero width
    # (a betting confidence interval, Waudby-Smith and Ramdas 2024, bets sized for the group's n): where
    # Student's t on 3 ratings gave [2.9, 6.1], or [4, 4] when all three agreed.
    from fairval.analysis.sequential import confidence_sequence
    ends = {key: confidence_sequence(part.to_numpy(float), lower=1, upper=5, planned=len(part)).ci
            for key, part in frame.dropna(subset=["v"]).groupby([by, "question"], sort=True)["v"]}
    keys = list(zip(out[by], out["question"]))
    out["mean_ci_low"] = [ci[0] if (ci := ends.get(k)) else None for k in keys]
    out["mean_ci_high"] = [ci[1] if (ci := ends.get(k)) else None for k in keys]
    return out.drop(columns="sd")
