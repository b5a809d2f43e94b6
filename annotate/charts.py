"""Altair charts shared by the researcher pages and the HTML report (rendered there to inline SVG)."""
from __future__ import annotations

import altair as alt
import pandas as pd


def distributions(numbers: dict) -> alt.Chart | None:
    rows = [{"question": qid, "answer": str(v), "count": c}
            for qid, q in numbers["questions"].items() for v, c in q.get("distribution", {}).items()]
    if not rows or not any(r["count"] for r in rows):
        return None
    return (alt.Chart(pd.DataFrame(rows)).mark_bar()
            .encode(x=alt.X("answer:N", sort=None), y="count:Q", color=alt.Color("question:N", legend=None),
                    column=alt.Column("question:N", title=None), tooltip=["question", "answer", "count"])
            .properties(width=220, height=180))


def calibration_scatter(items: pd.DataFrame) -> alt.LayerChart | None:
    points = items.dropna(subset=["human", "lmra"])
    if points.empty:
        return None
    base = alt.Chart(points).mark_circle(size=80).encode(
        x=alt.X("lmra:Q", title="LMRA score", scale=alt.Scale(domain=[-1, 1])),
        y=alt.Y("human:Q", title="mean human score", scale=alt.Scale(domain=[-1, 1])),
        tooltip=["item_id", "human", "lmra", "n_raters", "prompt", "response_a", "response_b"])
    diagonal = alt.Chart(pd.DataFrame({"x": [-1, 1], "y": [-1, 1]})).mark_line(
        strokeDash=[4, 4], color="gray").encode(x="x", y="y")
    return (diagonal + base).properties(width=380, height=380)


def group_bars(lmra: dict) -> alt.Chart | None:
    rows = [{"raters": f"{attr}: {g}", "ρ": c["pearson_r"], "sign agreement": c["sign_agreement"]}
            for attr, by in lmra.get("by_rater_group", {}).items() for g, c in by.items()]
    rows = [r for r in rows if r["ρ"] is not None]
    if not rows:
        return None
    frame = pd.DataFrame(rows).melt("raters", var_name="measure")
    return (alt.Chart(frame).mark_bar()
            .encode(x=alt.X("raters:N", title=None), y=alt.Y("value:Q", scale=alt.Scale(domain=[-1, 1])),
                    color="measure:N", xOffset="measure:N", tooltip=["raters", "measure", "value"])
            .properties(width=320, height=220))


def confusion_heatmap(matrix: dict, attribute: str) -> alt.Chart | None:
    rows = [{"intended": i, "perceived": p, "count": c} for i, row in matrix.items() for p, c in row.items()]
    if not rows:
        return None
    return (alt.Chart(pd.DataFrame(rows)).mark_rect()
            .encode(x=alt.X("perceived:N", sort=None), y=alt.Y("intended:N", sort=None),
                    color="count:Q", tooltip=["intended", "perceived", "count"])
            .properties(width=300, height=200, title=f"{attribute}: intended vs perceived"))
