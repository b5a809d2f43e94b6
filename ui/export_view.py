"""The Export page: the validated set, raw ratings and the report, as downloads."""
from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from annotate.export import Thresholds, export_ratings, export_validated
from annotate.report import write_report
from ui.common import get_db
from ui.studies import exclude_flagged_switch, pick_study


def _download(label: str, study_id: str, suffix: str, write, mime: str, key: str) -> None:
    """Write to a temporary file with the library's own writer, then offer its bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{study_id}{suffix}"
        write(path)
        data = path.read_bytes()
        sidecar = path.with_name(path.name + ".numbers.json")
        extra = sidecar.read_bytes() if sidecar.exists() else None
    st.download_button(label, data, file_name=f"{study_id}{suffix}", mime=mime, key=key)
    if extra is not None:
        st.download_button("Numbers (JSON sidecar)", extra, file_name=f"{study_id}{suffix}.numbers.json",
                           mime="application/json", key=f"{key}-numbers")


def render() -> None:
    st.title("Export")
    study_id = pick_study()
    if study_id is None:
        return
    exclude = exclude_flagged_switch()
    db = get_db()
    st.subheader("Validated set")
    c1, c2, c3 = st.columns(3)
    thresholds = Thresholds(c1.number_input("Mean quality at least", 1.0, 5.0, 4.0, 0.1),
                            c2.number_input("Mean “Yes is positive” at least", 1.0, 5.0, 4.0, 0.1),
                            int(c3.number_input("Ratings per question at least", 1, 1000, 3)))
    for suffix, mime in ((".jsonl", "application/jsonl"), (".csv", "text/csv")):
        _download(f"Validated set ({suffix})", study_id, suffix,
                  lambda p: export_validated(db, study_id, p, thresholds=thresholds, exclude_flagged=exclude),
                  mime, f"validated{suffix}")
    st.subheader("Raw ratings")
    for suffix, mime in ((".csv", "text/csv"), (".parquet", "application/octet-stream")):
        _download(f"Ratings ({suffix})", study_id, suffix,
                  lambda p: export_ratings(db, study_id, p, exclude_flagged=exclude), mime, f"ratings{suffix}")
    st.subheader("Report")
    for suffix, mime in ((".html", "text/html"), (".md", "text/markdown")):
        _download(f"Report ({suffix})", study_id, f"-report{suffix}",
                  lambda p: write_report(db, study_id, p, exclude_flagged=exclude), mime, f"report{suffix}")
