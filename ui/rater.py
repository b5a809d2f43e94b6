"""The rater's way through: link → consent → demographics → instructions → practice → items → code."""
from __future__ import annotations

import streamlit as st

from annotate import session
from annotate.studies import Study, StudyError, list_study_names, load_study
from ui.answers import choose_answers, forget_answers, show_item
from ui.common import get_db, literal_markdown

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc={code}"
GENDERS = ["female", "male", "non-binary", "prefer to self-describe", "prefer not to say"]
RACES = ["white", "Black", "Asian", "Hispanic", "Native American", "other", "prefer not to say"]


def run() -> None:
    st.set_page_config(page_title="fairval", layout="centered")
    db = get_db()
    params = st.query_params
    study_id = params.get("study") or _only_open_study(db)
    if study_id is None:
        _landing(db)
        return
    try:
        study = load_study(db, study_id)
    except StudyError:
        st.error("This link does not lead to a study. Please check the link you were given.")
        return
    rater_id = params.get("PROLIFIC_PID") or params.get("rater")
    if not rater_id:
        _ask_rater_id(study)
        return
    source = "prolific" if params.get("PROLIFIC_PID") else "link"
    try:
        rater = session.arrive(db, study.study_id, rater_id, source=source,
                               platform_study_id=params.get("STUDY_ID"),
                               platform_session_id=params.get("SESSION_ID"))
    except ValueError as e:
        st.error(str(e))
        return
    rater_id = rater["rater_id"]            # as stored (trimmed)
    step = session.next_step(db, study, rater_id)
    STEPS[step](db, study, rater_id)


def _only_open_study(db) -> str | None:
    names = list_study_names(db)
    open_ = [n for n in names if load_study(db, n).status == "open"]
    return open_[0] if len(open_) == 1 else None


def _landing(db) -> None:
    st.title("fairval")
    st.write("This page is opened from a study link. If you were given a link, please use it as it is.")
    names = [n for n in list_study_names(db) if load_study(db, n).status == "open"]
    if names:
        st.caption("Open studies (for in-house raters):")
        for name in names:
            st.page_link("app.py", label=name, query_params={"study": name})
    st.divider()
    st.page_link("pages/1_Results.py", label="Researchers: sign in")


def _ask_rater_id(study: Study) -> None:
    st.title(study.task.title or "Annotation study")
    with st.form("rater-id"):
        given = st.text_input("Your rater ID")
        if st.form_submit_button("Continue") and given.strip():
            st.query_params["rater"] = given.strip()
            st.rerun()


def _consent(db, study: Study, rater_id: str) -> None:
    st.title("Consent")
    st.markdown(study.settings.consent_text)
    agree, decline = st.columns(2)
    if agree.button("I agree to take part", type="primary", key="consent-yes"):
        session.give_consent(db, study.study_id, rater_id, True)
        st.rerun()
    if decline.button("I do not agree", key="consent-no"):
        session.give_consent(db, study.study_id, rater_id, False)
        st.rerun()


def _declined(db, study: Study, rater_id: str) -> None:
    st.title("Thank you")
    st.write("You chose not to take part; nothing else about you was recorded. "
             "You can close this page" + (" and return the study on Prolific." if
                                          st.query_params.get("PROLIFIC_PID") else "."))


def _demographics(db, study: Study, rater_id: str) -> None:
    st.title("About you")
    st.write("These questions help us check that people from different backgrounds are heard.")
    asks = study.settings.asks()
    with st.form("demographics"):
        answers = {}
        if "gender" in asks:
            answers["gender"] = st.selectbox("Gender", GENDERS, index=None, placeholder="Choose…")
        if "race" in asks:
            answers["race"] = st.selectbox("Race / ethnicity", RACES, index=None, placeholder="Choose…")
        if "country" in asks:
            answers["country"] = st.text_input("Country of residence")
        if st.form_submit_button("Continue", type="primary"):
            try:
                session.save_demographics(db, study, rater_id, {k: v or "" for k, v in answers.items()})
                st.rerun()
            except session.AnswerError as e:
                st.error(str(e))


def _instructions(db, study: Study, rater_id: str) -> None:
    st.title("Instructions")
    st.markdown(study.settings.instructions or study.task.instructions)
    st.info("Keyboard: the keys shown under each question choose an answer; Enter submits.")
    if st.button("Start", type="primary", key="start"):
        session.finish_instructions(db, study.study_id, rater_id)
        st.rerun()


def _practice(db, study: Study, rater_id: str) -> None:
    items = session.practice_items(db, study)
    index = st.session_state.get("practice_index", 0)
    if index >= len(items):
        session.finish_practice(db, study.study_id, rater_id)
        st.session_state.pop("practice_index", None)
        st.rerun()
    served = items[index]
    st.title(f"Practice {index + 1} of {len(items)}")
    st.caption("Practice answers are not recorded.")
    show_item(study.task, served)
    chosen = choose_answers(study.task, served, prefix="practice:")
    feedback = st.session_state.get("practice_feedback")
    if feedback is None:
        if st.button("Check my answer", type="primary", shortcut="Enter", key="practice-check"):
            if len(chosen) < len(study.task.questions):
                st.warning("Please answer every question.")
            else:
                st.session_state["practice_feedback"] = chosen
                st.rerun()
        return
    expected = served.expected or {}
    for k, q in enumerate(study.task.questions, start=1):
        want = str(expected.get(q.id, "")) or None
        got = literal_markdown(q.label_for(feedback[q.id], served.data))
        where = f"Question {k}" if len(study.task.questions) > 1 else "Your answer"
        if want is None:
            st.info(f"{where}: you chose “{got}”.")
        elif want == feedback[q.id]:
            st.success(f"{where}: “{got}” is the expected answer.")
        else:
            st.warning(f"{where}: you chose “{got}”; the expected answer is "
                       f"“{literal_markdown(q.label_for(want, served.data))}”.")
    if st.button("Next", type="primary", key="practice-next"):
        forget_answers(study.task, served, prefix="practice:")
        st.session_state.pop("practice_feedback", None)
        st.session_state["practice_index"] = index + 1
        st.rerun()


def _item(db, study: Study, rater_id: str) -> None:
    if st.session_state.pop("saved", False):
        st.toast("Answer saved", icon="✅")
    served = session.serve_next_item(db, study, rater_id)
    if served is None:
        done = session.progress(db, study, rater_id).answered
        if done:
            session.finish(db, study.study_id, rater_id)
            st.rerun()
        _no_items(db, study, rater_id)
        return
    progress = session.progress(db, study, rater_id)
    st.progress(min(1.0, progress.answered / max(progress.expected, 1)),
                text=f"{progress.answered} of {progress.expected} done")
    with st.expander("Instructions"):
        st.markdown(study.settings.instructions or study.task.instructions)
    show_item(study.task, served)
    st.divider()
    chosen = choose_answers(study.task, served)
    comment = None
    if study.task.comment:
        comment = st.text_area("Comment (optional)", key=f"comment:{served.item_id}")
    if st.button("Submit", type="primary", shortcut="Enter", key=f"submit:{served.item_id}"):
        missing = [q.id for q in study.task.questions if q.id not in chosen]
        if missing:
            st.warning("Please answer every question before submitting.")
            return
        session.record_answer(db, study, rater_id, served.item_id, chosen, comment=comment)
        forget_answers(study.task, served)
        st.session_state["saved"] = True
        st.rerun()


def _no_items(db, study: Study, rater_id: str) -> None:
    st.title("No items left for you")
    if study.settings.balance_by:
        st.write("Thank you for your interest. Every item in this study already has the raters it "
                 "needs from people with your background, so there is nothing left to show you.")
    else:
        st.write("Thank you for your interest. Every item in this study already has all the ratings "
                 "it needs, so there is nothing left to show you.")
    st.write("Nothing further is needed from you" + (", and you may return the study on Prolific."
                                                      if st.query_params.get("PROLIFIC_PID") else "."))


def _done(db, study: Study, rater_id: str) -> None:
    st.title("Thank you, you have finished")
    code = study.settings.completion_code
    if code:
        st.write("Your completion code:")
        st.code(code, language=None)
    if study.settings.prolific_redirect and code:
        st.link_button("Return to Prolific", PROLIFIC_COMPLETE.format(code=code), type="primary")


def _paused(db, study: Study, rater_id: str) -> None:
    st.title("This study is paused")
    st.write("Your answers so far are saved. Please come back later with the same link.")


def _closed(db, study: Study, rater_id: str) -> None:
    st.title("This study is closed")
    st.write("It is no longer taking answers. Thank you for your interest.")


STEPS = {"consent": _consent, "declined": _declined, "demographics": _demographics,
         "instructions": _instructions, "practice": _practice, "item": _item, "done": _done,
         "no_items": _no_items, "paused": _paused, "closed": _closed}
