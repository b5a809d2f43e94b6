"""Name perception (001 Table 2): does the name signal the intended group?"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True, slots=True)
class Accuracy:
    share: float | None
    n: int
    ci: tuple[float, float] | None = None      # Wilson 95% interval over the ratings


def accuracy_by_intended(ratings: pd.DataFrame) -> dict[str, Accuracy]:
    """Per intended group: share of ratings naming that group, with its Wilson interval (scipy's).
    Columns intended, value."""
    from scipy.stats import binomtest

    out = {}
    for group, part in ratings.groupby("intended", sort=True):
        hits = int((part["value"] == group).sum())
        interval = binomtest(hits, len(part)).proportion_ci(confidence_level=0.95, method="wilson")
        out[str(group)] = Accuracy(hits / len(part), len(part), (float(interval.low), float(interval.high)))
    return out


def confusion(ratings: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Counts: rows the intended group, columns the perceived one, in the scale's order."""
    table = pd.crosstab(ratings["intended"], ratings["value"])
    rows = [g for g in labels if g in table.index] + sorted(set(table.index) - set(labels))
    return table.reindex(index=rows, columns=labels, fill_value=0)
