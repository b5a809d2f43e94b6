"""The Manage page's planner: how many pairs and raters per pair reach a target interval width, and what
the cheapest such design costs (the same numbers as `fairval plan`), from the ratings so far or, before
any pilot, from values the researcher assumes."""
from __future__ import annotations

import streamlit as st

from fairval.analysis.planner import Assumptions, Pay, cheapest
from fairval.annotate.judge.planning import StudyPlan, plan_from_assumptions, plan_study
from fairval.annotate.material.pairs import scored_question
from fairval.annotate.material.studies import load_study
from fairval.annotate.outputs import formats
from fairval.annotate.rating.fills import study_fill_plan
from fairval.annotate.rating.session_length import session_length
from fairval.errors import StudyError
from fairval.ui.common import get_db, inert, show_table

COLUMNS = {"r (judge vs people)": ("rho", "rho_width"), "sign agreement": ("sign", "sign_width"),
           "H": ("harm", "harm_width")}


@st.cache_data(ttl=60, show_spinner="Resampling the pilot…")
def _from_pilot(db_path: str, study_id: str) -> StudyPlan:
    return plan_study(get_db(), study_id)


@st.cache_data(show_spinner="Simulating the designs…")
def _from_assumptions(rho: float, alpha: float, sd: float, harm: float) -> StudyPlan:
    return plan_from_assumptions(Assumptions(rho, alpha, sd, harm))


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:]


def render(study_id: str, db_path: str) -> None:
    st.subheader("Plan the crowd study")
    study = load_study(get_db(), study_id)
    fills = study_fill_plan(get_db(), study).sentence(study_id, on_page=True)
    if fills:
        st.info(inert(fills[0].upper() + fills[1:] + "."))
    length = session_length(get_db(), study)          # every study: what one rater is in for
    st.info(inert(_sentence(length.sentence("Max items per rater")) + "."))
    for warning in length.warnings(study_id, on_page=True):
        st.warning(inert(_sentence(warning)))
    if scored_question(study.task) is None:
        st.info(f"Study {study_id!r} is {study.task.name}: the planner needs a pair study with a judge.")
        return
    try:
        planned = _from_pilot(db_path, study_id)
    except StudyError as e:
        planned = None
        st.info(f"No pilot to resample yet ({e}); plan from assumed values instead.")
    if st.toggle("Plan from assumed values", value=planned is None, key="plan-assume"):
        c1, c2, c3, c4 = st.columns(4)
        assumed = (c1.number_input("Judge's Pearson r with people", -0.99, 0.99, 0.6, 0.05, key="plan-rho"),
                   c2.number_input("Raters' agreement α", 0.01, 1.0, 0.4, 0.05, key="plan-alpha"),
                   c3.number_input("SD of one rating", 0.01, 10.0, 0.8, 0.05, key="plan-sd"),
                   c4.number_input("Expected H", -10.0, 10.0, 0.0, 0.05, key="plan-h"))
        planned = _from_assumptions(*assumed)
    if planned is None:
        return
    c1, c2 = st.columns(2)
    label = c1.selectbox("Statistic", list(COLUMNS), key="plan-statistic")
    target = c2.number_input("Target 95% interval width", 0.01, 2.0, 0.2, 0.01, key="plan-target")
    currency = load_study(get_db(), study_id).settings.currency
    # labels of one line, inputs aligned at the bottom: a longer label would push its input out of line
    c1, c2, c3, c4 = st.columns(4, vertical_alignment="bottom")
    pay = Pay(c1.number_input(f"Pay per judgment ({currency})", 0.0, 100.0, 0.50, 0.05, key="plan-judgment"),
              c2.number_input(f"Pay per rater ({currency})", 0.0, 100.0, 1.15, 0.05, key="plan-rater",
                              help="Paid once to each rater, for the consent, instructions and practice "
                                   "(`fairval plan --pay-per-rater`)."),
              c3.number_input("Platform fee", 0.0, 2.0, 0.43, 0.01, key="plan-fee"),
              int(c4.number_input("Judgments per rater", 1, 10000, 20, key="plan-per-rater")))
    statistic, column = COLUMNS[label]
    table = planned.designs
    best = cheapest(table, statistic, target, pay)
    if best is None:
        st.warning(f"No design up to {int(table['pairs'].max())} pairs reaches width {target:g}.")
    else:
        st.success(f"Cheapest: {best.pairs} pairs × {formats.count(best.raters_per_pair, 'rater')} = {best.judgments} "
                   f"judgments by about {best.raters} raters, {best.cost:.2f} {currency} with the fee "
                   f"(expected width {formats.ratio(best.expected_width)}).")
    grid = table.pivot(index="pairs", columns="raters_per_pair", values=column).map(formats.ratio)
    if planned.pilot_pairs is not None and planned.pilot_pairs < 30:
        st.warning(f"The pilot has only {formats.count(planned.pilot_pairs, 'rated pair')}: these widths are "
                   "rough. Rate 30 or more pairs in the pilot before choosing a design from them.")
    if planned.pilot_raters_per_pair is not None and int(table["raters_per_pair"].max()) > planned.pilot_raters_per_pair:
        st.info(f"Columns beyond {planned.pilot_raters_per_pair} raters per pair reuse the pilot's ratings (it has "
                f"no more per pair), so their widths are conservative: a wider interval there does not mean more "
                "raters make it worse.")
    st.caption(f"Expected interval width (rows: pairs; columns: raters per pair), {planned.source}.")
    show_table(grid.rename(columns=str))
