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
    show_table(pd.DataFrame([calibration_row(model, chosen)]))
    if lmra.get("by_model"):
        st.subheader("Every judge (95% intervals)")
        show_table(pd.DataFrame([validity_row(m, c) for m, c in lmra["by_model"].items()]))
    else:
        st.subheader("Agreement, 95% intervals")
        show_table(pd.DataFrame([validity_row(model, chosen)]))
    key, label = rate_of(numbers)
    rate = chosen["rate"] if lmra.get("by_model") else numbers[key]     # this judge's H numbers
    for sentence in (chosen_pairs_sentence(rate, chosen.get("sign_agreement_cs")), ceiling_sentence(chosen),
                     alt_test_sentence(chosen), order_sentence(chosen)):
        if sentence:
            st.caption(inert(sentence))
    difference = rate.get("difference") or {}
    st.caption(inert(f"{label}: humans {with_ci(numbers[key]['human'], numbers[key].get('human_ci'))} over "
               f"{formats.count(numbers[key]['n_items_human'], 'pair')}; LMRA "
               f"{with_ci(rate['lmra'], rate.get('lmra_ci'))} over "
               f"{formats.count(rate['n_items_lmra'], 'pair')}; humans − LMRA "
               f"{with_ci(difference.get('value'), difference.get('ci'))} on the pairs both scored."))
    st.caption(inert(ppi_sentence(rate.get("ppi"), label)))
    if few_pairs_sentence(numbers[key]["n_items_human"]):
        st.caption(inert(few_pairs_sentence(numbers[key]["n_items_human"])))
    if numbers[key].get("escalation"):
        st.caption(inert(escalation_sentence(numbers[key]["escalation"], label)))
    groups_of_pairs = pair_group_rows(numbers[key].get("by_pair_group"))
    if groups_of_pairs:
        st.subheader("By group pair")
        show_table(pd.DataFrame(groups_of_pairs))
        st.caption(inert(stratified_sentence(numbers[key]["by_pair_group"], label)))
    groups = [calibration_row(f"{attr}: {g}", c) for attr, by in chosen["by_rater_group"].items()
              for g, c in by.items()]
    if groups:
        st.subheader("By rater group")
        show_table(pd.DataFrame(groups).rename(columns={"judge": "raters"}))
        st.caption("With several groups of one attribute compared, read p (Holm): p adjusted by Holm's "
                   "method over that attribute's groups.")
        show_table(pd.DataFrame([validity_row(f"{attr}: {g}", c) for attr, by in chosen["by_rater_group"].items()
                               for g, c in by.items()]).rename(columns={"judge": "raters"}))
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
    st.caption(inert(confidence_sentence(c.get("confidence"))))
    diagram = charts.reliability_diagram(c.get("confidence"))
    if diagram is not None:
        st.altair_chart(diagram)
    lean = length_sentence(c.get("length"))
    if lean:
        st.warning(inert(lean))


def calibration_row(label: str, c: dict) -> dict:
    return {"judge": label, **calibration_cells(c)}



def _scatter(items: pd.DataFrame) -> None:
    chart = charts.calibration_scatter(items)
    if chart is not None:
        st.subheader("Per pair")
        st.altair_chart(chart)
