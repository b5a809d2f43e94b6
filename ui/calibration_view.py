"""The Calibration page: LMRA against mean human scores per pair (004 Table 1 and Fig. 6)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from annotate import charts
from annotate.results import calibration_items, load_study_data, rate_of
from annotate import formats
from ui.common import formatted, get_db
from ui.studies import results_for, study_header


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
    st.table(pd.DataFrame([calibration_row(model, chosen)]))
    key, label = rate_of(numbers)
    st.caption(f"{label}: humans {formats.ratio(numbers[key]['human'])} over "
               f"{formats.count(numbers[key]['n_items_human'], 'pair')}; LMRA {formats.ratio(chosen['rate_lmra'])} "
               f"over {formats.count(chosen['rate_lmra_n_items'], 'pair')}.")
    groups = [calibration_row(f"{attr}: {g}", c) for attr, by in chosen["by_rater_group"].items()
              for g, c in by.items()]
    if groups:
        st.subheader("By rater group")
        st.table(pd.DataFrame(groups).rename(columns={"judge": "raters"}))
        bars = charts.group_bars(chosen)
        if bars is not None:
            st.altair_chart(bars)
    items = calibration_items(load_study_data(get_db(), study_id, exclude_flagged=exclude), model)
    _scatter(items)
    st.subheader("Where they disagree most")
    top = items.dropna(subset=["gap"]).head(10)
    st.table(formatted(top[["item_id", "human", "lmra", "n_raters", "prompt", "response_a", "response_b"]]))


def calibration_row(label: str, c: dict) -> dict:
    ci = c.get("pearson_ci")
    return {"judge": label, "ρ": formats.ratio(c["pearson_r"]), "95% CI": formats.interval(ci),
            "p": formats.p_value(c["p_value"]), "sign agreement": formats.ratio(c["sign_agreement"]),
            "n items": c["n_items"],
            "note": c.get("reason") or ""}



def _scatter(items: pd.DataFrame) -> None:
    chart = charts.calibration_scatter(items)
    if chart is not None:
        st.subheader("Per pair")
        st.altair_chart(chart)
