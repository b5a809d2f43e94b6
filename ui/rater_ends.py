"""The screens that end a rater's way, or pause it: declined, nothing left to rate, finished (with the
completion code), the study paused or closed."""
from __future__ import annotations

import streamlit as st

from fairval.annotate.material.studies import LoadedStudy
from fairval.annotate.rating import rater_progress, session
from fairval.ui.i18n import translator
from fairval.ui.rater_submit import LANGUAGE

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc={code}"


def rater_language(study: LoadedStudy) -> str:
    """The language this run shows the study in (chosen by ui/rater.py at the page's run, kept in the session)."""
    return study.settings.rater_language(st.session_state.get(LANGUAGE))


def study_words(study: LoadedStudy):
    """The study's words in the rater's language."""
    return translator(rater_language(study))


def title(text: str) -> None:
    # no anchor: its "Link to heading" is an English word for a screen reader, and a rater has nothing to link
    st.title(text, anchor=False)


def declined(db, study: LoadedStudy, rater_id: str) -> None:
    t = study_words(study)
    title(t("Thank you"))
    st.write(t("You chose not to take part; nothing else about you was recorded. You can close this page and "
               "return the study on Prolific.") if st.query_params.get("PROLIFIC_PID") else
             t("You chose not to take part; nothing else about you was recorded. You can close this page."))


def no_items(db, study: LoadedStudy, rater_id: str) -> None:
    t, prolific = study_words(study), st.query_params.get("PROLIFIC_PID")
    vacancy = session.vacancy(db, study)      # reserved by raters mid-item (for now), or complete (for good)
    if vacancy.busy and not (study.settings.balance_by and vacancy.open):
        title(t("No items left for you just now"))
        st.write(t("Thank you for your interest. Every item left in this study is being rated by someone else "
                   "just now; if one of them leaves, their item comes free again. Please try again in about "
                   "{minutes} min with the same link.", minutes=vacancy.minutes_left()))
        if prolific:
            st.write(t("If you would rather not wait, you may return the study on Prolific."))
        return
    title(t("No items left for you"))
    if study.settings.balance_by and vacancy.open:
        st.write(t("Thank you for your interest. Every item in this study already has the raters it needs from "
                   "people with your background, so there is nothing left to show you."))
    else:
        st.write(t("Thank you for your interest. Every item in this study already has all the ratings it needs, so "
                   "there is nothing left to show you."))
    code = study.settings.screen_out_code
    if prolific and code:
        # Prolific's "no longer needed" path: this code screens the participant out, paid as the study says
        st.write(t("Please use this code on Prolific, so the study closes for you properly:"))
        show_code(code)
        st.link_button(t("Return to Prolific"), PROLIFIC_COMPLETE.format(code=code), type="primary")
        return
    st.write(t("Nothing further is needed from you, and you may return the study on Prolific.")
             if prolific else t("Nothing further is needed from you."))


def show_code(code: str) -> None:
    """A code to copy: as plain text in a box that does not scroll (a scrolling box must take the focus)."""
    st.code(code, language=None, wrap_lines=True)


def finished(db, study: LoadedStudy, rater_id: str) -> None:
    t = study_words(study)
    title(t("Thank you, you have finished"))
    code = study.settings.completion_code
    if code:
        st.write(t("Your completion code:"))
        show_code(code)
    if study.settings.prolific_redirect and code:
        st.link_button(t("Return to Prolific"), PROLIFIC_COMPLETE.format(code=code), type="primary")


def paused(db, study: LoadedStudy, rater_id: str) -> None:
    t = study_words(study)
    title(t("This study is paused"))
    answered = rater_progress.progress(db, study, rater_id).answered
    if answered:
        st.write(t("Your answers so far ({count}) are saved. Please come back later with the same link to go on.",
                   count=answered))
    else:
        st.write(t("Please come back later with the same link."))


def closed(db, study: LoadedStudy, rater_id: str) -> None:
    t = study_words(study)
    title(t("This study is closed"))
    st.write(t("It is no longer taking answers. Thank you for your interest."))
