"""Soft labels: each answer's share per item and rater group, the form perspectivist datasets publish
(004's design splits each pair's raters between the two target groups, and their disagreement is the signal).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

ALL = "all"


def soft_labels(ratings: pd.DataFrame, *, options: Mapping[str, Sequence[str]] | None = None,
                group_column: str | None = None, groups: Sequence[str] = ()) -> pd.DataFrame:
    """ratings: item_id, rater_id, question, canonical (and group_column, the raters' attribute). One row per
    item, question and rater group ("all", then each of `groups` in order): item_id, question, rater_group,
    n_raters, and share_<question>_<value> for each question's answers: `options` (its canonical values, in
    order), always present (0 where nobody chose it), then any other value met; empty in the rows of other
    questions, so two questions never share a column. A group with no rater of an item gets no row for it."""
    options = {str(q): [str(v) for v in vs] for q, vs in (options or {}).items()}
    columns = ["item_id", "question", "rater_group", "n_raters"]
    frame = ratings.assign(canonical=ratings["canonical"].astype(str), question=ratings["question"].astype(str),
                           rater_group=ALL)
    values = {q: list(vs) for q, vs in options.items()}
    for q, part in frame.groupby("question", sort=False):
        met = sorted(set(part["canonical"]) - set(values.get(q, ())), key=_value_order)
        values[str(q)] = values.get(str(q), []) + met
    share_columns = {(q, v): f"share_{q}_{v}" for q, vs in values.items() for v in vs}
    if ratings.empty:
        return pd.DataFrame(columns=columns + list(share_columns.values()))
    parts = [frame]
    if group_column is not None:
        for group in groups:
            chosen = frame[frame[group_column].astype(str) == str(group)]
            parts.append(chosen.assign(rater_group=str(group)))
    every = pd.concat(parts, ignore_index=True)
    keys = ["item_id", "question", "rater_group"]
    counts = every.groupby([*keys, "canonical"], sort=False).size().unstack("canonical", fill_value=0)
    shares = counts.div(counts.sum(axis=1), axis=0)
    question = shares.index.get_level_values("question")
    out = pd.DataFrame(index=shares.index)
    for (q, v), name in share_columns.items():
        column = shares[v] if v in shares.columns else pd.Series(0.0, index=shares.index)
        out[name] = column.where(question == q)          # empty where the row is another question's
    out = out.assign(n_raters=every.groupby(keys, sort=False)["rater_id"].nunique()).reset_index()
    order = {g: k for k, g in enumerate([ALL, *map(str, groups)])}
    items = {item: k for k, item in enumerate(dict.fromkeys(ratings["item_id"]))}
    out = out.sort_values(keys, key=lambda c: c.map(
        items if c.name == "item_id" else order if c.name == "rater_group" else lambda x: x), kind="stable")
    return out[columns + list(share_columns.values())].reset_index(drop=True)


def _value_order(value: str) -> tuple[int, float, str]:
    """Numbers in numeric order (harm: 1, 0, -1 as -1, 0, 1; a scale 1–5), then words alphabetically."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)
