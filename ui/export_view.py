"""The Export page: the validated set, raw ratings and the report, as downloads made on click."""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from fairval.annotate.material.pairs import scored_question
from fairval.annotate.material.studies import load_study
from fairval.annotate.outputs import formats
from fairval.annotate.outputs.export import (
    Thresholds,
    export_ratings,
    export_validated,
    template_texts,
    template_verdicts,
)
from fairval.annotate.outputs.report import write_report
from fairval.annotate.results.numbers import load_study_data
from fairval.errors import ExportRefused
from fairval.store import audit, open_db
from fairval.store.db import default_db_path
from fairval.ui.auth import allowed, session_token, signed_in
from fairval.ui.common import get_db, show_table
from fairval.ui.study_picker import study_header

MOVED_ON = ("the page now shows another study or setting than this button was drawn for: download again from the "
            "page as it is now")


def _on_click(write: Callable, suffix: str, view: tuple, on_screen: dict, *, sidecar: bool = False) -> Callable[[], bytes]:
    """Bytes made by the library's own writer when the button is clicked. Streamlit runs this on
    another thread, so it opens its own connection. The buttons use on_click="ignore": a rerun
    started by the click could drop the deferred file before it is fetched. `view` is what the button was
    drawn for (study, flagged raters left out or not); `on_screen` is what the page shows now, set at each run:
    Streamlit keeps an earlier run's buttons until the new ones are drawn, so a click just after the study was
    switched would otherwise give the previous study's file."""
    path = default_db_path()
    who = audit.actor()             # the signed-in researcher: the file is made on another thread
    token = session_token()

    def produce() -> bytes:
        audit.acting_as(*who)
        if on_screen.get("view") != view:
            raise ExportRefused(MOVED_ON)
        db = open_db(path)
        try:
            # checked when the file is made, not when the button was drawn: a sign-out in another tab, an
            # expired sign-in, a demotion or a removal since then gets no file
            if allowed(db, token, "editor") is None:
                raise ExportRefused("this sign-in has ended or no longer has the editor role: sign in again")
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / f"export{suffix}"
                write(db, out)
                if on_screen.get("view") != view:               # switched while the file was being made
                    raise ExportRefused(MOVED_ON)
                return (out.with_name(out.name + ".numbers.json") if sidecar else out).read_bytes()
        finally:
            db.close()
    return produce


def verdicts_for(study_id: str, exclude: bool, thresholds: Thresholds):
    """Per-template numbers and verdicts (template studies)."""
    return template_verdicts(load_study_data(get_db(), study_id, exclude_flagged=exclude), thresholds)


def render() -> None:
    chosen = study_header("Export")
    if chosen is None:
        return
    study_id, exclude = chosen
    # what the page shows, read by the downloads' thread (the same dict from run to run: session state keeps it)
    on_screen = st.session_state.setdefault("export-shown", {})
    on_screen["view"] = view = (study_id, exclude)
    st.subheader("Validated set")
    thresholds, passing = Thresholds(), None
    task = load_study(get_db(), study_id).task
    if task.rates_templates:
        st.caption("The rows of every template that passed, exactly as imported.")
        asked = task.likert_questions
        columns = st.columns(len(asked) + 1)
        words = {"quality": "Mean quality at least", "yes_positive": "Mean “Yes is positive” at least"}
        minimums = {q.id: column.number_input(words.get(q.id, f"Mean {q.id} at least"), 1.0, 5.0, 4.0, 0.1)
                    for q, column in zip(asked, columns)}
        thresholds = Thresholds(minimums.pop("quality", 4.0), minimums.pop("yes_positive", 4.0),
                                int(columns[-1].number_input("Ratings per question at least", 1, 1000, 3)),
                                others=minimums)
        numbers = verdicts_for(study_id, exclude, thresholds)
        passing = int(numbers["passed"].sum())
        texts = template_texts(load_study_data(get_db(), study_id, exclude_flagged=exclude))
        # which ones: the table's `passed` column beside each template's text (its id comes from the imported
        # file, so it is shown in the table as plain text, never in Markdown where a URL becomes a link)
        st.caption(f"{passing} of {len(numbers)} templates pass these thresholds"
                   + (": the table marks them in its “passed” column, beside each template's text." if passing
                      else "."))
        shown = numbers.assign(text=numbers["template"].map(texts))
        # the means and shares beside the text; the counts in an expander, so the table fits 1280 px unscrolled
        counts = ["n_items"] + [c for c in numbers.columns if c.startswith("n_") and c != "n_items"]
        table = formats.table(shown[["template", "text", "passed"]
                                    + [c for c in numbers.columns if c not in ("template", "passed", *counts)]])
        show_table(table.rename(columns=lambda c: c.replace("share_4_or_5_", "share 4–5 ")), narrow=("text",))
        with st.expander("Items and ratings per template"):
            show_table(formats.table(shown[["template", *counts]]))
        if not passing:
            st.info("No template passes these thresholds, so the validated set would be empty: lower them, or "
                    "collect more ratings. The numbers (JSON sidecar) say why each template failed.")
    elif scored_question(task) is not None:
        st.caption("Each pair with its groups, mean human score, raters and the judge's score.")
    else:
        st.caption("Each item with its text, the most common answer, its share and the raters' comments.")

    def validated(db, out):
        export_validated(db, study_id, out, thresholds=thresholds, exclude_flagged=exclude)

    def ratings(db, out):
        export_ratings(db, study_id, out, exclude_flagged=exclude)

    def report(db, out):
        write_report(db, study_id, out, exclude_flagged=exclude)

    sections = [(None, "Validated set", "validated", validated,
                 ((".jsonl", "application/jsonl"), (".csv", "text/csv"))),
                ("Raw ratings", "Ratings", "ratings", ratings,
                 ((".csv", "text/csv"), (".parquet", "application/octet-stream"))),
                ("Report", "Report", "report", report, ((".html", "text/html"), (".md", "text/markdown")))]
    empty = task.rates_templates and not passing
    who = signed_in()
    if who is None or not who.may("editor"):
        # the files carry rater ids (ratings, the report's rater table, the sidecar's exclusions)
        st.info("Downloads need the editor role or above: a viewer reads the pages but takes no file with rater "
                "ids away. An owner can change your role.")
        return
    for heading, label, name, write, files in sections:
        if heading:
            st.subheader(heading)
        for suffix, mime in files if not (empty and name == "validated") else ():
            st.download_button(f"{label} ({suffix})", _on_click(write, suffix, view, on_screen), on_click="ignore",
                               file_name=f"{study_id}-{name}{suffix}", mime=mime, key=f"{name}{suffix}")
        if name == "validated":
            st.download_button("Numbers (JSON sidecar)", _on_click(validated, ".jsonl", view, on_screen, sidecar=True),
                               on_click="ignore", file_name=f"{study_id}-validated.numbers.json",
                               mime="application/json", key="sidecar")
