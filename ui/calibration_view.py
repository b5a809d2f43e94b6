"""The Calibration page: LMRA against mean human scores per pair (004 Table 1 and Fig. 6)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from fairval.annotate.outputs import charts, formats
from fairval.annotate.outputs.judge_audit import audit_rows, audit_sentence
from fairval.annotate.outputs.judge_table import (
    alt_test_sentence,
    calibration_cells,
    ceiling_sentence,
    chosen_pairs_sentence,
    confidence_sentence,
    escalation_sentence,
    few_pairs_sentence,
    length_sentence,
    order_sentence,
    pair_group_rows,
    ppi_sentence,
    rater_allocation_sentence,
    stratified_sentence,
    validity_row,
    with_ci,
)
from fairval.annotate.results.blocks import Estimate, Judge
from fairval.annotate.results.numbers import calibration_items, rate_of
from fairval.ui.common import inert, show_table
from fairval.ui.study_picker import data_for, numbers_for, study_header


def render() -> None:
    picked = study_header("Calibration")
    if picked is None:
        return
    study_id, exclude = picked
    numbers = numbers_for(study_id, exclude)
    main = numbers.rate                     # the per-pair mean block: harm or feature_difference
    if main is None:
        st.info("Calibration compares the LMRA with people on pair studies (harmful stereotypes or "
                f"feature labels); this study's task is {numbers.task}.")
        return
    lmra = numbers.lmra
    if lmra is None:
        st.info("No LMRA scores yet: import them with `fairval lmra import STUDY FILE`.")
        return
    models = list(lmra.by_model) if lmra.by_model else [lmra.model or ""]      # the main judge has its model's name
    model: str = st.selectbox("Judge model", models) if len(models) > 1 else models[0]
    chosen = lmra.by_model[model] if lmra.by_model else lmra
    st.subheader("LMRA vs mean human rating")
    show_table(agreement_table(list(lmra.by_model.items()) if lmra.by_model else [(model, chosen)]), counts=("pairs",))
    label = rate_of(numbers)[1]
    rate = (chosen.rate if lmra.by_model else main) or main             # this judge's H numbers
    gap = rate.difference or Estimate()          # humans − LMRA, or nothing to show
    # what a reader needs, in sentences; the other checks and how each number is made, in the expander
    st.markdown(inert(ceiling_sentence(chosen)))
    st.markdown(inert(f"{label}: humans {with_ci(main.human, main.human_ci, main.human_reason)} over "
                      f"{formats.count(main.n_items_human, 'pair')}; LMRA "
                      f"{with_ci(rate.lmra, rate.lmra_ci)} over "
                      f"{formats.count(rate.n_items_lmra, 'pair')}; humans − LMRA "
                      f"{with_ci(gap.value, gap.ci, gap.reason)} on the pairs both scored."))
    with st.expander("More checks, and how these numbers are made"):
        st.caption("One row a judge: r is Pearson's correlation of the judge's score with people's mean "
                   "score per pair, with its 95% interval and p; Spearman and CCC (Lin's "
                   "concordance) with theirs; sign agreement is the share of pairs where both lean the same "
                   "way. Docs: docs/calibration.md.")
        for sentence in (chosen_pairs_sentence(rate, chosen.sign_agreement_cs), alt_test_sentence(chosen),
                         order_sentence(chosen), ppi_sentence(rate.ppi, label),
                         few_pairs_sentence(main.n_items_human), escalation_sentence(main.escalation, label)):
            if sentence:
                st.caption(inert(sentence))
    groups_of_pairs = pair_group_rows(main.by_pair_group)
    if groups_of_pairs:
        st.subheader("By group pair")
        show_table(_without_empty(pd.DataFrame(groups_of_pairs)), narrow=("note",), wrap=True,
                   counts=("pairs", "rated", "rated, best spread", "short of it"))
        st.caption(inert(stratified_sentence(main.by_pair_group, label)))
    audit = audit_rows(lmra.by_pair_group) if chosen is lmra else []       # the main judge's audit
    if audit:
        st.subheader("Is the judge fair? Its error by group pair")
        show_table(pd.DataFrame(audit), counts=("rated",))
        st.caption(inert(audit_sentence(lmra.by_pair_group)))
    groups = [(f"{attr}: {g}", c) for attr, by in (chosen.by_rater_group or {}).items() for g, c in by.items()]
    if groups:
        st.subheader("By rater group")
        show_table(agreement_table(groups).rename(columns={"judge": "raters"}), counts=("pairs",))
        if any(c.has("p_holm") for _, c in groups):
            st.caption("p (Holm): p adjusted over the groups of one attribute; read it when comparing them.")
        allocation = rater_allocation_sentence(chosen.rater_group_allocation)
        if allocation:
            st.caption(inert(allocation))
        bars = charts.group_bars(chosen)
        if bars is not None:
            st.altair_chart(bars)
    _judge_card(chosen)
    items = calibration_items(data_for(study_id, exclude), model)
    _scatter(items)
    st.subheader("Where they disagree most")
    top = items.dropna(subset=["gap"]).head(10)
    # the responses in an expander: nine columns would not fit 1280 px without the table scrolling
    shown = top.assign(groups=top["group_a"].astype(str) + " vs " + top["group_b"].astype(str))
    show_table(formats.table(shown[["item_id", "groups", "human", "lmra", "n_raters", "prompt"]]), narrow=("prompt",),
               wrap=True, counts=("n_raters",))     # a prompt is read whole, not cut at the edge
    with st.expander("The responses of these pairs"):
        show_table(formats.table(top[["item_id", "response_a", "response_b"]]), narrow=("response_a", "response_b"))


def _judge_card(c: Judge) -> None:
    """Is the judge's confidence worth anything (a reliability diagram), and does it reward length?"""
    st.subheader("The judge's confidence against people")
    confidence = c.confidence
    if confidence is None or (confidence.ece is None and not confidence.n_pairs):
        st.caption("Not drawn: no pair has both the judge's probabilities for both orders of its responses and a "
                   "rating by people (`fairval lmra run` records them when the judge returns log-probabilities).")
    else:
        st.caption(inert(confidence_sentence(confidence)))
    diagram = charts.reliability_diagram(c.confidence)
    if diagram is not None:
        st.altair_chart(diagram, width=460, height=420)    # about square at 1280 px; the screen's width on a phone
        st.caption(charts.RELIABILITY_NOTE)
    lean = length_sentence(c.length)
    if lean:
        st.warning(inert(lean))


def agreement_table(rows: list[tuple[str, Judge]]) -> pd.DataFrame:
    """One row a judge (or rater group): 004 Table 1's Pearson's r with its interval and p, then the other agreement
    numbers with their intervals (Kendall's τ is in `analyze --json`: the table fits 1280 px); a column
    nobody has a value in (ω, the note) is left out."""
    table = []
    for label, c in rows:
        cells, validity = calibration_cells(c), validity_row(label, c)
        table.append({"judge": label, "r": cells["r"], "95% CI": cells["95% CI"], "p": cells["p"],
                      **({"p (Holm)": cells["p (Holm)"]} if "p (Holm)" in cells else {}),
                      **{k: validity[k] for k in ("Spearman", "CCC", "sign agreement", "ω (alt-test)")},
                      "pairs": c.n_items, "note": cells["note"]})
    return _without_empty(pd.DataFrame(table))


def _without_empty(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[[c for c in frame.columns if frame[c].map(lambda v: v not in ("", None, formats.DASH)).any()]]


def _scatter(items: pd.DataFrame) -> None:
    chart = charts.calibration_scatter(items)
    if chart is not None:
        st.subheader("Per pair")
        st.altair_chart(chart)
