"""Altair charts shared by the researcher pages and the HTML report (rendered there to inline SVG).

Readable at 1280 px: bars run horizontally so answer labels are never rotated, each question gets its
own panel with only its own answers in scale order, and heatmaps are sized per row and column (a
band never collapses to nothing), with the count written in each cell.
"""
from __future__ import annotations

import altair as alt
import pandas as pd

from fairval.annotate.results.blocks import Confidence, Judge
from fairval.annotate.results.result import StudyNumbers

ROW = 26                  # pixels per bar or heatmap row
CELL = 74                 # pixels per heatmap column
RELIABILITY_NOTE = ("Each point is a bin of the judge's confidence; the number beside it (and its size) is how many "
                    "pairs fall in the bin. On the dashed line the share of people giving the judge's answer is as high as the "
                    "judge is confident.")
LABEL_FONT = 11           # px: a count written beside a mark, as small as the axis labels
HARM_LABELS = {"-1": "−1 reverse stereotype", "0": "0 no harmful stereotype", "1": "+1 stereotype as assigned"}
# multi-word axis labels on separate lines, never rotated
SPLIT_WORDS = "split(datum.label, ' ')"


def _answer_label(question: str, answer: str) -> str:
    return HARM_LABELS.get(answer, answer) if question == "harm" else answer


def _order(question: str, answers: list[str]) -> list[str]:
    """Scale order: harm runs −1, 0, +1; every other question keeps its options' order."""
    if question == "harm":
        return [a for a in ("-1", "0", "1") if a in answers]
    return answers


def distribution_panels(numbers: StudyNumbers) -> list[alt.Chart]:
    """One bar panel per question (the pages lay them out in columns, which stack on a phone)."""
    panels = []
    for qid, q in numbers.questions.items():
        counts = q.distribution
        if not counts or not any(counts.values()):
            continue
        order = _order(qid, list(counts))
        frame = pd.DataFrame([{"answer": _answer_label(qid, a), "count": counts[a]} for a in order])
        panels.append(alt.Chart(frame, title=qid).mark_bar().encode(
            y=alt.Y("answer:N", sort=list(frame["answer"]), title=None, axis=alt.Axis(labelLimit=160)),
            x=alt.X("count:Q", title="ratings"), tooltip=["answer", "count"],
        ).properties(width=220, height=alt.Step(ROW)))
    return panels


def distributions(numbers: StudyNumbers) -> alt.HConcatChart | None:
    """The panels side by side (the report's figure)."""
    panels = distribution_panels(numbers)
    return alt.hconcat(*panels, spacing=40) if panels else None


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


def reliability_diagram(confidence: Confidence | None) -> alt.LayerChart | None:
    """The judge's confidence against people's agreement per bin (lmra.confidence): each bin a point sized by
    its pairs, their count written small beside it (a text mark of its own, so the points' size scale never
    reaches its font) and in the tooltip. No size legend: the written counts say it, and a legend beside a
    narrow plot is cut off (RELIABILITY_NOTE is the figure's caption)."""
    bins = [b.to_dict() for b in ((confidence and confidence.bins) or ()) if b.n]
    if not bins:
        return None
    frame = pd.DataFrame(bins).assign(bin=lambda f: [f"{lo:.1f}–{hi:.1f}" for lo, hi in zip(f["low"], f["high"])])
    base = alt.Chart(frame).encode(
        x=alt.X("confidence:Q", title="the judge's confidence in its answer", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("agreement:Q", title="share of people giving its answer", scale=alt.Scale(domain=[0, 1])))
    points = base.mark_circle(opacity=0.8).encode(
        size=alt.Size("n:Q", scale=alt.Scale(range=[40, 400]), legend=None),
        tooltip=[alt.Tooltip("bin", title="confidence bin"), alt.Tooltip("confidence:Q", format=".2f"),
                 alt.Tooltip("agreement:Q", format=".2f"), alt.Tooltip("n:Q", title="pairs")])
    counts = base.mark_text(fontSize=LABEL_FONT, dx=9, dy=-9, align="left", color="#444").encode(text="n:Q")
    diagonal = alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]})).mark_line(
        strokeDash=[4, 4], color="gray").encode(x="x", y="y")
    return (diagonal + points + counts).properties(width=280, height=280)     # whole on a phone (343 px)


def group_bars(lmra: Judge) -> alt.Chart | None:
    rows = [{"raters": f"{attr}: {g}", "measure": measure, "value": value}
            for attr, by in (lmra.by_rater_group or {}).items() for g, c in by.items()
            for measure, value in (("Pearson r", c.pearson_r), ("sign agreement", c.sign_agreement))]
    rows = [r for r in rows if r["value"] is not None]
    if not rows:
        return None
    return (alt.Chart(pd.DataFrame(rows)).mark_bar()
            .encode(y=alt.Y("raters:N", title=None, axis=alt.Axis(labelLimit=220)),
                    yOffset="measure:N", x=alt.X("value:Q", scale=alt.Scale(domain=[-1, 1]), title=None),
                    color=alt.Color("measure:N", legend=alt.Legend(orient="bottom", title=None)),
                    tooltip=["raters", "measure", alt.Tooltip("value:Q", format=".3f")])
            .properties(width=320, height=alt.Step(ROW // 2 + 2)))


def confusion_heatmap(matrix: dict, attribute: str) -> alt.LayerChart | None:
    rows = [{"intended": i, "perceived": p, "count": c} for i, row in matrix.items() for p, c in row.items()]
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    intended, perceived = list(matrix), list(next(iter(matrix.values())))
    base = alt.Chart(frame).encode(
        # every column named, even where a phone narrows the cells: no label is hidden for overlapping
        x=alt.X("perceived:N", sort=perceived, axis=alt.Axis(labelAngle=0, labelExpr=SPLIT_WORDS, orient="top",
                                                            labelOverlap=False, labelFontSize=10)),
        y=alt.Y("intended:N", sort=intended, axis=alt.Axis(labelLimit=200)))
    cells = base.mark_rect().encode(color=alt.Color("count:Q", legend=None), tooltip=["intended", "perceived", "count"])
    counts = base.mark_text(fontSize=13).encode(
        text="count:Q", color=alt.condition(alt.datum.count > frame["count"].max() / 2, alt.value("white"),
                                            alt.value("black")))
    return (cells + counts).properties(width=alt.Step(CELL), height=alt.Step(ROW + 8),
                                       title=[f"{attribute}: intended (rows)", "against perceived (columns)"])
