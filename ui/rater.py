"""The rater's way through: link → consent → demographics → instructions → practice → items → code.

An answer is recorded by the answer card's callback at the start of the rerun its Submit causes, for
the item the rater saw, before the page decides what comes next: so it is kept even if the study was
paused meanwhile or the slot timed out, and when it cannot be kept (the study closed) the rater is
told so in plain words on the next screen. When the database cannot be reached (a full or read-only
disk, a server restarting) the rater reads a plain sentence, never a traceback, and the page tries
again by itself every few seconds until it can go on.
"""
from __future__ import annotations

import dataclasses
import functools
from importlib import resources

import streamlit as st

from fairval.annotate.rating import session
from fairval.annotate.serving import rater_links
from fairval.annotate.material.studies import DEFAULT_CONSENTS, Study, list_study_names, load_study
from fairval.errors import FairvalError, RaterSourceError, StudyError
from fairval.annotate.serving import admission
from fairval.store.engine import busy, unavailable_errors
from fairval.ui import line
from fairval.ui.answer_card import answer_card, unread_submit
from fairval.ui.answers import show_item
from fairval.ui.auth import is_researcher
from fairval.ui.common import get_db, no_uploads_here, researcher_markdown
from fairval.ui.demographics import demographics_form
from fairval.ui.i18n import LANGUAGES, N_, direction, translator
from fairval.ui.page_language import page_language
from fairval.ui.rater_submit import (ANSWER_WAITS, LANGUAGE, NOT_KEPT, NOTICE, PENDING, SAVED, record_submit,
                                     retry_pending)

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc={code}"
RATER_PARAMS = ("rater", "PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "sig", "lang")
LANG_PARAM = "lang"             # the language picked on the consent screen, kept in the link until consent
GROUP_FIELDS = ("group_a", "group_b")      # an item's fields that name a group (filled into the questions)


REFUSED = N_("This link is not one this study gave out. Please use the link you were given, as it is.")

RETRY_SECONDS = 5
UNAVAILABLE = N_("The study's server cannot store or show answers just now. Nothing is lost: this page tries "
                 "again by itself in a few seconds, and you can go on where you were.")


def _title(text: str) -> None:
    # no anchor: its "Link to heading" is an English word for a screen reader, and a rater has nothing to link
    st.title(text, anchor=False)


def _language(study: Study) -> str:
    """The language this run shows the study in (chosen once per run by _run)."""
    return study.settings.rater_language(st.session_state.get(LANGUAGE))


def _t(study: Study):
    return translator(_language(study))


def _browser_t():
    """Words shown before (or without) a study: in the language of the study last shown, else the browser's."""
    return translator(st.session_state.get(LANGUAGE) or st.context.locale)


KEYS_HINT = "fv-keys-hint"        # the instructions' keyboard line (rater.css hides it on a touch screen)


@functools.cache
def _style() -> str:
    """The rater page's own CSS (ui/rater.css: alignment right to left, touch screens, the keys' badges)."""
    return "<style>" + (resources.files("fairval.ui") / "rater.css").read_text(encoding="utf-8") + "</style>"


def run() -> None:
    no_uploads_here()                        # a rater's page never takes a file
    st.set_page_config(page_title="fairval", layout="centered")
    st.html(_style())
    try:
        with admission.gate().turn():       # this worker's runs a few at a time, in order (issue 58)
            if line.admitted():             # else the line page is drawn: the participant waits in order
                _run()
    except unavailable_errors() as e:
        if busy(e):                         # a lock or a pool kept it waiting: it waits on, told so plainly
            line.busy(_browser_t())
        else:
            st.warning(_browser_t()(ANSWER_WAITS if st.session_state.get(PENDING) else UNAVAILABLE))
        _try_again_soon()


@st.fragment(run_every=RETRY_SECONDS)
def _try_again_soon() -> None:
    """Runs again every few seconds while the page shows the warning; once the database answers, the
    whole page is drawn again (the rater's answers and place are in the database, not here)."""
    if st.session_state.pop("_fairval_retry_armed", False):
        st.rerun(scope="app")
    st.session_state["_fairval_retry_armed"] = True


def _run() -> None:
    db = get_db()
    params = st.query_params
    study_id = params.get("study") or _only_open_study(db)
    if study_id is None:
        _landing(db)
        return
    try:
        study = load_study(db, study_id)
    except StudyError:
        t = _browser_t()
        st.error(t("This link does not lead to a study. Please check the link you were given."))
        return
    rater_id, source = _who(db, study, params)
    # the rater's language: the one kept with their consent, else the one picked (in the link), else the
    # browser's when the study offers it, else the study's own
    st.session_state[LANGUAGE] = session.rater_language(db, study, rater_id if source else None,
                                                        params.get(LANG_PARAM) or st.context.locale)
    t = _t(study)
    page_language(_language(study), direction(_language(study)), t,
                  {LANGUAGES[code][0]: code for code in study.settings.offered()} if study.settings.languages else None)
    if source is None:
        st.error(t(REFUSED))
        return
    if not rater_id:
        _ask_rater_id(study)
        return
    try:
        rater = session.arrive(db, study.study_id, rater_id, source=source,
                               platform_study_id=params.get("STUDY_ID"),
                               platform_session_id=params.get("SESSION_ID"))
    except RaterSourceError:
        st.error(t(REFUSED))
        return
    except FairvalError as e:
        st.error(t("The participant ID in this link cannot be used ({reason}). Please check the link you were "
                   "given.", reason=str(e)))
        return
    rater_id = rater["rater_id"]            # as stored (trimmed)
    retry_pending(study.study_id, rater_id)
    _notice()
    STEPS[session.next_step(db, study, rater_id)](db, study, rater_id)


def _who(db, study: Study, params) -> tuple[str | None, str | None]:
    """The rater id this link carries and how it came ('prolific', 'signed', 'link'); source None when the
    study refuses the link. A signed_links study is for its list of in-house raters only: every way in needs
    the link's signature, and Prolific's parameters (which cannot carry one) are refused. A link naming both
    a Prolific participant and an in-house rater names nobody."""
    prolific, rater_id = params.get("PROLIFIC_PID"), params.get("rater")
    if prolific and rater_id:
        return None, None
    if study.settings.signed_links:
        if prolific or not (rater_id and rater_links.signed(db, study.study_id, rater_id, params.get(rater_links.PARAM))):
            return None, None
        return rater_id, "signed"
    return (prolific, "prolific") if prolific else (rater_id, "link")


def _notice() -> None:
    """A refusal is shown at the top of the page. "Answer saved" is said by the next item's card, in its
    status line (read out by screen readers): a toast would cover the progress line on a phone."""
    notice = st.session_state.pop(NOTICE, None)
    if notice is None:
        return
    kind, text = notice
    if kind == "saved":
        st.session_state[SAVED] = text
    else:
        st.warning(text)


def _only_open_study(db) -> str | None:
    names = list_study_names(db)
    open_ = [n for n in names if load_study(db, n).status == "open"]
    return open_[0] if len(open_) == 1 else None


def _landing(db) -> None:
    """Without a study in the link: raters see only how to proceed; researchers also see the open studies."""
    _title("fairval")
    t = _browser_t()
    st.write(t("This page is opened from a study link. If you were given a link, please use it as it is."))
    if is_researcher():
        names = [n for n in list_study_names(db) if load_study(db, n).status == "open"]
        if names:
            st.caption("Open studies (links keep the rater's parameters):")
            keep = {k: st.query_params[k] for k in RATER_PARAMS if k in st.query_params}
            for name in names:
                st.page_link("app.py", label=name, query_params={"study": name, **keep})
    st.divider()
    st.page_link("pages/1_Results.py", label="Researcher pages" if is_researcher() else "Researchers: sign in")


def _ask_rater_id(study: Study) -> None:
    t = _t(study)
    # not the task's title: a rater should not read what is being tested, nor a study's internal name
    _title(t("Annotation study"))
    with st.form("rater-id"):
        given = st.text_input(t("Your rater ID"))
        if st.form_submit_button(t("Continue")) and given.strip():
            st.query_params["rater"] = given.strip()
            st.rerun()


def _consent(db, study: Study, rater_id: str) -> None:
    t = _t(study)
    _title(t("Consent"))
    _language_picker(study, t)
    text = study.settings.consent_text
    st.markdown(researcher_markdown(t(text) if text in DEFAULT_CONSENTS else text))
    agree, decline = st.columns(2)
    if agree.button(t("I agree to take part"), type="primary", key="consent-yes"):
        session.give_consent(db, study.study_id, rater_id, True, language=_language(study))
        st.rerun()
    if decline.button(t("I do not agree"), key="consent-no"):
        session.give_consent(db, study.study_id, rater_id, False)
        st.rerun()


def _language_picker(study: Study, t) -> None:
    """A study in several languages: the rater picks one, each named in its own language; the page is drawn
    again in it, and the link keeps it (a reload keeps it) until consent stores it with the rater."""
    offered = study.settings.offered()
    if len(offered) < 2:
        return
    current = _language(study)
    chosen = st.radio(t("Language"), offered, index=offered.index(current), horizontal=True,
                      format_func=lambda code: LANGUAGES[code][0], key="rater-language")
    if chosen != current:
        st.query_params[LANG_PARAM] = chosen
        st.rerun()


def _declined(db, study: Study, rater_id: str) -> None:
    t = _t(study)
    _title(t("Thank you"))
    st.write(t("You chose not to take part; nothing else about you was recorded. You can close this page and "
               "return the study on Prolific.") if st.query_params.get("PROLIFIC_PID") else
             t("You chose not to take part; nothing else about you was recorded. You can close this page."))


def _demographics(db, study: Study, rater_id: str) -> None:
    demographics_form(db, study, rater_id, _t(study))


def _instructions_text(study: Study) -> str:
    if study.settings.instructions:
        return researcher_markdown(study.settings.instructions)
    return _t(study)(study.task.instructions)


def _instructions(db, study: Study, rater_id: str) -> None:
    t = _t(study)
    _title(t("Instructions"))
    st.markdown(_instructions_text(study))
    with st.container(key=KEYS_HINT):
        st.info(t("Keyboard: the key shown on each answer chooses it; Enter submits."))
    if st.button(t("Start"), type="primary", key="start", shortcut="Enter"):
        session.finish_instructions(db, study.study_id, rater_id)
        st.rerun()


def _practice(db, study: Study, rater_id: str) -> None:
    items = session.practice_items(db, study)
    index = session.practice_step(db, study.study_id, rater_id)
    if index >= len(items):
        session.finish_practice(db, study.study_id, rater_id)
        st.rerun()
    served = _as_shown(study, items[index])
    t = _t(study)
    task = study.task.translated(t)
    _title(t("Practice {number} of {total}", number=index + 1, total=len(items)))
    st.caption(t("Practice answers are not recorded."))
    show_item(task, served, t)
    st.divider()
    chosen_key = f"practice-chosen:{served.item_id}"
    chosen = st.session_state.get(chosen_key)
    if chosen is None:
        answer_card(task, served, key=f"practice:{index}", submit_label=t("Check my answer"), t=t,
                    language=_language(study),
                    on_submit=lambda payload: st.session_state.__setitem__(chosen_key, payload.get("answers")))
        return
    answer_card(task, served, key=f"practice-feedback:{index}", locked=chosen, t=t, language=_language(study))
    if st.button(t("Next"), type="primary", key=f"practice-next:{index}", shortcut="Enter"):
        session.next_practice(db, study.study_id, rater_id, index)
        st.session_state.pop(chosen_key, None)
        st.rerun()


def _item(db, study: Study, rater_id: str) -> None:
    served = session.serve_next_item(db, study, rater_id)
    if unread_submit(f"card:{served.item_id}" if served is not None else None):
        st.warning(_t(study)(NOT_KEPT))       # a second tab's answer, never read: told it was not saved
    if served is None:
        if session.progress(db, study, rater_id).answered:
            session.finish(db, study.study_id, rater_id)
            st.rerun()
        _no_items(db, study, rater_id)
        return
    served = _as_shown(study, served)
    answered, total = _progress(db, study, rater_id)
    t = _t(study)
    done = t("{done} of {total} done", done=answered, total=total)
    st.progress(min(1.0, answered / max(total, 1)), text=done)
    with st.expander(t("Instructions")):
        st.markdown(_instructions_text(study))
    task = study.task.translated(t)
    show_item(task, served, t)
    st.divider()
    saved = st.session_state.pop(SAVED, None)
    answer_card(task, served, key=f"card:{served.item_id}", on_submit=record_submit(study.study_id, rater_id),
                status=f"{saved}." if saved else "", announce=t("New item; {progress}.", progress=done), t=t,
                language=_language(study))


def _progress(db, study: Study, rater_id: str) -> tuple[int, int]:
    """Done, and the total as this rater has been told it: a total never shrinks under a rater (others
    taking the items left can end their session early, at "5 of 8 done"; it never reads "3 of 4" after
    "3 of 8")."""
    progress = session.progress(db, study, rater_id)
    key = f"rater-total:{study.study_id}:{rater_id}"
    total = max(progress.expected, st.session_state.get(key, 0))
    st.session_state[key] = total
    return progress.answered, total


def _as_shown(study: Study, served: session.Served) -> session.Served:
    """The item with its groups named as the study's raters read them (settings.group_labels); what is
    stored and counted keeps the groups as imported."""
    data = {k: study.settings.group_label(v, _language(study)) if k in GROUP_FIELDS and isinstance(v, str) else v
            for k, v in served.data.items()}
    return dataclasses.replace(served, data=data)


def _no_items(db, study: Study, rater_id: str) -> None:
    t, prolific = _t(study), st.query_params.get("PROLIFIC_PID")
    vacancy = session.vacancy(db, study)      # reserved by raters mid-item (for now), or complete (for good)
    if vacancy.busy and not (study.settings.balance_by and vacancy.open):
        _title(t("No items left for you just now"))
        st.write(t("Thank you for your interest. Every item left in this study is being rated by someone else "
                   "just now; if one of them leaves, their item comes free again. Please try again in about "
                   "{minutes} min with the same link.", minutes=vacancy.minutes_left()))
        if prolific:
            st.write(t("If you would rather not wait, you may return the study on Prolific."))
        return
    _title(t("No items left for you"))
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
        _code(code)
        st.link_button(t("Return to Prolific"), PROLIFIC_COMPLETE.format(code=code), type="primary")
        return
    st.write(t("Nothing further is needed from you, and you may return the study on Prolific.")
             if prolific else t("Nothing further is needed from you."))


def _code(code: str) -> None:
    """A code to copy: as plain text in a box that does not scroll (a scrolling box must take the focus)."""
    st.code(code, language=None, wrap_lines=True)


def _done(db, study: Study, rater_id: str) -> None:
    t = _t(study)
    _title(t("Thank you, you have finished"))
    code = study.settings.completion_code
    if code:
        st.write(t("Your completion code:"))
        _code(code)
    if study.settings.prolific_redirect and code:
        st.link_button(t("Return to Prolific"), PROLIFIC_COMPLETE.format(code=code), type="primary")


def _paused(db, study: Study, rater_id: str) -> None:
    t = _t(study)
    _title(t("This study is paused"))
    answered = session.progress(db, study, rater_id).answered
    if answered:
        st.write(t("Your answers so far ({count}) are saved. Please come back later with the same link to go on.",
                   count=answered))
    else:
        st.write(t("Please come back later with the same link."))


def _closed(db, study: Study, rater_id: str) -> None:
    t = _t(study)
    _title(t("This study is closed"))
    st.write(t("It is no longer taking answers. Thank you for your interest."))


STEPS = {"consent": _consent, "declined": _declined, "demographics": _demographics,
         "instructions": _instructions, "practice": _practice, "item": _item, "done": _done,
         "no_items": _no_items, "paused": _paused, "closed": _closed}
