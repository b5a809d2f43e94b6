"""The Manage page's planner: from the ratings so far, how many pairs and raters per pair reach a target
interval width, and what the cheapest such design costs (the same numbers as `fairval plan`)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.planner import Pay, cheapest
from annotate import formats
from annotate.planning import plan_study
from annotate.studies import StudyError
from ui.common import get_db

COLUMNS = {"ρ (judge vs people)": ("rho", "rho_width"), "sign agreement": ("sign", "sign_width"),
           "H": ("harm", "harm_width")}


@st.cache_data(ttl=60, show_spinner="Resampling the pilot…")
def _designs(db_path: str, study_id: str) -> pd.DataFrame:
    return plan_study(get_db(), study_id)


def render(study_id: str, db_path: str) -> None:
    st.subheader("Plan the crowd study")
    try:
        table = _designs(db_path, study_id)
    except StudyError as e:
        st.info(f"The planner resamples a pilot: {e}.")
        return
    c1, c2 = st.columns(2)
    label = c1.selectbox("Statistic", list(COLUMNS), key="plan-statistic")
    target = c2.number_input("Target 95% interval width", 0.01, 2.0, 0.2, 0.01, key="plan-target")
    c1, c2, c3, c4 = st.columns(4)
    pay = Pay(c1.number_input("Pay per judgment", 0.0, 100.0, 0.50, 0.05, key="plan-judgment"),
              c2.number_input("Pay for instructions", 0.0, 100.0, 1.15, 0.05, key="plan-rater"),
              c3.number_input("Platform fee", 0.0, 2.0, 0.43, 0.01, key="plan-fee"),
              int(c4.number_input("Judgments per rater", 1, 10000, 20, key="plan-per-rater")))
    statistic, column = COLUMNS[label]
    best = cheapest(table, statistic, target, pay)
    if best is None:
        st.warning(f"No design up to {int(table['pairs'].max())} pairs reaches width {target:g}.")
    else:
        st.success(f"Cheapest: {best['pairs']} pairs × {best['raters_per_pair']} raters = {best['judgments']} "
                   f"judgments by about {best['raters']} raters, {best['cost']:.2f} with the fee "
                   f"(expected width {formats.ratio(best['expected_width'])}).")
    grid = table.pivot(index="pairs", columns="raters_per_pair", values=column).map(formats.ratio)
    st.caption("Expected interval width (rows: pairs; columns: raters per pair)")
    st.table(grid.rename(columns=str))
