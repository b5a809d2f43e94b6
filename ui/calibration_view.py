"""The Calibration page: LMRA against mean human scores per pair (004 Table 1 and Fig. 6)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from fairval.annotate.outputs import charts

from fairval.annotate.outputs import formats
from fairval.annotate.outputs.judge_table import (alt_test_sentence, calibration_cells, ceiling_sentence,
                                                  chosen_pairs_sentence, confidence_sentence, escalation_sentence,
                                                  few_pairs_sentence, length_sentence, order_sentence, pair_group_rows,
                                                  ppi_sentence, rater_allocation_sentence, stratified_sentence, validity_row,
                                                  with_ci)
from fairval.annotate.results.numbers import calibration_items, rate_of
from fairval.ui.common import inert, show_table
from fairval.ui.studies import data_for, results_for, study_header


def render() -> None:
    chosen = study_header("Calibration")
    if chosen is None:
        return
    study_id, exclude = chosen
    numbers = results_for(study_id, exclude)
    if "lmra" not in numbers:
        st.info("Calibration compares the LMRA with people on pair studies (harmful stereotypes or "
                f"feature labels); this study's task is {numbers['task']}.")
        return
    if not numbers.get("lmra"):
        st.info("No LMRA scores yet: import them with `fairval lmra import STUDY FILE`.")
        return
    lmra = numbers["lmra"]
    models = list(lmra["by_model"]) if lmra.get("by_model") else [lmra["model"]]
    model = st.selectbox("Judge model", models) if len(models) > 1 else models[0]
    chosen = lmra["by_model"][model] if lmra.get("by_model") else lmra
    st.subheader("LMRA vs mean human rating")
    show_table(agreement_table([(m, c) for m, c in lmra["by_model"].items()] if lmra.get("by_model")
                               else [(model, chosen)]))
    key, label = rate_of(numbers)
    rate = chosen["rate"] if lmra.get("by_model") else numbers[key]     # this judge's H numbers
    difference = rate.get("difference") or {}
    # what a reader needs, in sentences; the other checks and how each number is made, in the expander
    st.markdown(inert(ceiling_sentence(chosen)))
    st.markdown(inert(f"{label}: humans {with_ci(numbers[key]['human'], numbers[key].get('human_ci'))} over "
                      f"{formats.count(numbers[key]['n_items_human'], 'pair')}; LMRA "
                      f"{with_ci(rate['lmra'], rate.get('lmra_ci'))} over "
                      f"{formats.count(rate['n_items_lmra'], 'pair')}; humans − LMRA "
                      f"{with_ci(difference.get('value'), difference.get('ci'))} on the pairs both scored."))
    with st.expander("More checks, and how these numbers are made"):
        st.caption("One row a judge: ρ is Pearson's correlation of the judge's score with people's mean "
                   "score per pair, with its 95% interval and p; Spearman and CCC (Lin's "
                   "concordance) with theirs; sign agreement is the share of pairs where both lean the same "
                   "way. Docs: docs/calibration.md.")
        for sentence in (chosen_pairs_sentence(rate, chosen.get("sign_agreement_cs")), alt_test_sentence(chosen),
                         order_sentence(chosen), ppi_sentence(rate.get("ppi"), label),
                         few_pairs_sentence(numbers[key]["n_items_human"]),
                         numbers[key].get("escalation") and escalation_sentence(numbers[key]["escalation"], label)):
            if sentence:
                st.caption(inert(sentence))
    groups_of_pairs = pair_group_rows(numbers[key].get("by_pair_group"))
    if groups_of_pairs:
        st.subheader("By group pair")
        show_table(_without_empty(pd.DataFrame(groups_of_pairs)))
        st.caption(inert(stratified_sentence(numbers[key]["by_pair_group"], label)))
    groups = [(f"{attr}: {g}", c) for attr, by in chosen["by_rater_group"].items() for g, c in by.items()]
    if groups:
        st.subheader("By rater group")
        show_table(agreement_table(groups).rename(columns={"judge": "raters"}))
        if any("p_holm" in c for _, c in groups):
            st.caption("p (Holm): p adjusted over the groups of one attribute; read it when comparing them.")
        allocation = rater_allocation_sentence(chosen.get("rater_group_allocation"))
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
    show_table(formats.table(top[["item_id", "group_a", "group_b", "human", "lmra", "n_raters", "prompt", "response_a",
                            "response_b"]]))


def _judge_card(c: dict) -> None:
    """Is the judge's confidence worth anything (a reliability diagram), and does it reward length?"""
    st.subheader("The judge's confidence against people")
    confidence = c.get("confidence") or {}
    if confidence.get("ece") is None and not confidence.get("n_pairs"):
        st.caption("Not drawn: no pair has both the judge's probabilities for both orders of its responses and a "
                   "rating by people (`fairval lmra run` records them when the judge returns log-probabilities).")
    else:
        st.caption(inert(confidence_sentence(confidence)))
    diagram = charts.reliability_diagram(c.get("confidence"))
    if diagram is not None:
        st.altair_chart(diagram)
    lean = length_sentence(c.get("length"))
    if lean:
        st.warning(inert(lean))


def agreement_table(rows: list[tuple[str, dict]]) -> pd.DataFrame:
    """One row a judge (or rater group): 004 Table 1's ρ with its interval and p, then the other agreement
    numbers with their intervals (Kendall's τ is in `analyze --json`: the table fits 1280 px); a column
    nobody has a value in (ω, the note) is left out."""
    table = []
    for label, c in rows:
        cells, validity = calibration_cells(c), validity_row(label, c)
        table.append({"judge": label, "ρ": cells["ρ"], "95% CI": cells["95% CI"], "p": cells["p"],
                      **({"p (Holm)": cells["p (Holm)"]} if "p (Holm)" in cells else {}),
                      **{k: validity[k] for k in ("Spearman", "CCC", "sign agreement", "ω (alt-test)")},
                      "pairs": c.get("n_items"), "note": cells["note"]})
    return _without_empty(pd.DataFrame(table))


def _without_empty(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[[c for c in frame.columns if frame[c].map(lambda v: v not in ("", None, formats.DASH)).any()]]


def _scatter(items: pd.DataFrame) -> None:
    chart = charts.calibration_scatter(items)
    if chart is not None:
        st.subheader("Per pair")
        st.altair_chart(chart)
