"""Summaries of 1–5 agreement ratings: mean, distribution, share of 4s and 5s."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True, slots=True)
class LikertSummary:
    n: int
    mean: float | None
    share_4_or_5: float | None
    distribution: dict[int, int]          # value 1..5 -> count


def likert_summary(values: pd.Series) -> LikertSummary:
    v = pd.to_numeric(values, errors="raise").astype(int)
    dist = {k: int((v == k).sum()) for k in range(1, 6)}
    if len(v) == 0:
        return LikertSummary(0, None, None, dist)
    return LikertSummary(len(v), float(v.mean()), float((v >= 4).mean()), dist)


def likert_by_group(ratings: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per group (e.g. template) and question: n, mean, share_4_or_5. Expects columns by, question, value."""
    frame = ratings.assign(v=pd.to_numeric(ratings["value"]).astype(int))
    out = (frame.groupby([by, "question"], sort=True)["v"]
           .agg(n="size", mean="mean", share_4_or_5=lambda s: (s >= 4).mean())
           .reset_index())
    out["n"] = out["n"].astype(int)
    return out
