"""Soft labels: each answer's share per item and rater group, the form perspectivist datasets publish
(004's design splits each pair's raters between the two target groups, and their disagreement is the signal).
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

ALL = "all"


def soft_labels(ratings: pd.DataFrame, *, group_column: str | None = None,
                groups: Sequence[str] = ()) -> pd.DataFrame:
    """ratings: item_id, rater_id, question, canonical (and group_column, the raters' attribute). One row per
    item, question and rater group ("all", then each of `groups` in order): item_id, question, rater_group,
    n_raters, and share_<value> for every canonical value the question has in the study (0 where unseen).
    A group with no rater of an item gets no row for it."""
    columns = ["item_id", "question", "rater_group", "n_raters"]
    if ratings.empty:
        return pd.DataFrame(columns=columns)
    frame = ratings.assign(canonical=ratings["canonical"].astype(str), rater_group=ALL)
    parts = [frame]
    if group_column is not None:
        for group in groups:
            chosen = frame[frame[group_column].astype(str) == str(group)]
            parts.append(chosen.assign(rater_group=str(group)))
    every = pd.concat(parts, ignore_index=True)
    values = sorted(every["canonical"].unique(), key=_value_order)
    counts = (every.groupby(["item_id", "question", "rater_group", "canonical"], sort=False).size()
              .unstack("canonical", fill_value=0).reindex(columns=values, fill_value=0))
    n = every.groupby(["item_id", "question", "rater_group"], sort=False)["rater_id"].nunique()
    shares = counts.div(counts.sum(axis=1), axis=0)
    shares.columns = [f"share_{v}" for v in shares.columns]
    out = shares.assign(n_raters=n).reset_index()
    order = {g: k for k, g in enumerate([ALL, *map(str, groups)])}
    items = {item: k for k, item in enumerate(dict.fromkeys(ratings["item_id"]))}
    out = out.sort_values(["item_id", "question", "rater_group"], key=lambda c: c.map(
        items if c.name == "item_id" else order if c.name == "rater_group" else lambda x: x), kind="stable")
    return out[columns + list(shares.columns)].reset_index(drop=True)


def _value_order(value: str):
    """Numbers in numeric order (harm: 1, 0, -1 as -1, 0, 1; a scale 1–5), then words alphabetically."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)
