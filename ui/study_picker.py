"""Study picker and cached numbers shared by the researcher pages."""
from __future__ import annotations

import streamlit as st

from fairval.annotate.material.studies import list_study_names
from fairval.annotate.results.numbers import StudyData, load_study_data, study_numbers
from fairval.annotate.results.progress import study_progress
from fairval.annotate.results.result import StudyNumbers
from fairval.store.db import default_db_path
from fairval.ui.common import get_db, inert

CHOSEN = "_fairval_study"          # the study last chosen on any researcher page, carried to the next


def pick_study(*, key: str = "study") -> str | None:
    """The study the page shows: the one its address names, else the one chosen on the last page."""
    names = list_study_names(get_db())
    if not names:
        st.info("No studies yet: create one on the Manage page or with `fairval study create`.")
        return None
    wanted = st.query_params.get("study") or st.session_state.get(CHOSEN)
    if wanted is not None and wanted not in names:
        # a link to a study this database does not have: say so, and show no other study's numbers
        st.error(f"There is no study named “{inert(wanted)}” in this database. Choose one below.")
        chosen = st.selectbox("Study", names, index=None, key=f"{key}-unknown", placeholder="Choose a study")
        if chosen is not None:
            st.query_params["study"] = chosen
            st.rerun()
        return None
    else:
        index = names.index(wanted) if wanted in names else 0
        chosen = st.selectbox("Study", names, index=index, key=key)
    if chosen is not None and chosen != st.query_params.get("study"):
        st.query_params["study"] = chosen              # the address names the study on screen
    if chosen is not None:
        st.session_state[CHOSEN] = chosen
    return chosen


def exclude_flagged_switch() -> bool:
    return st.toggle("Exclude flagged raters", key="exclude_flagged",
                     help="Recompute every number without raters flagged for quality.")


def study_header(title: str) -> tuple[str, bool] | None:
    """A researcher page's top: its title, the study picker and the flagged-raters switch. The page uses the
    window's width: its tables are wide (sign agreement, rater flags, the export's columns)."""
    st.set_page_config(page_title=f"{title} · fairval", layout="wide")
    st.title(title)
    study_id = pick_study()
    if study_id is None:
        return None
    return study_id, exclude_flagged_switch()


@st.cache_data(ttl=5, show_spinner="Computing…")
def cached_study(db_path: str, study_id: str, exclude_flagged: bool) -> tuple[dict, StudyNumbers, StudyData]:
    """(progress, numbers, calibration items) from one read of the study's data (two when flagged raters
    are left out of the numbers: progress counts every rater). BOOTSTRAP_DRAWS, as the CLI."""
    db = get_db()
    data = load_study_data(db, study_id)
    progress = study_progress(db, study_id, data=data)
    numbers_data = load_study_data(db, study_id, exclude_flagged=True) if exclude_flagged else data
    numbers = study_numbers(db, study_id, exclude_flagged=exclude_flagged, data=numbers_data)
    return progress, numbers, numbers_data


def numbers_for(study_id: str, exclude_flagged: bool) -> StudyNumbers:
    """The study's numbers, typed (the pages read the pair blocks by attribute)."""
    return cached_study(default_db_path(), study_id, exclude_flagged)[1]


def progress_for(study_id: str) -> dict:
    return cached_study(default_db_path(), study_id, False)[0]


def data_for(study_id: str, exclude_flagged: bool):
    """The study's data as the numbers on the page were computed from (cached with them)."""
    return cached_study(default_db_path(), study_id, exclude_flagged)[2]
