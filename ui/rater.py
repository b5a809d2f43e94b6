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

from fairval.annotate.material.studies import LoadedStudy, list_study_names, load_study
from fairval.annotate.material.study_settings import DEFAULT_CONSENTS
from fairval.annotate.rating import rater_progress, session
from fairval.annotate.serving import admission, rater_links
from fairval.errors import FairvalError, RaterSourceError, StudyError
from fairval.store.engine import busy, unavailable_errors
from fairval.ui import line
from fairval.ui.answer_card import answer_card
from fairval.ui.answers import show_item
from fairval.ui.auth import is_researcher
from fairval.ui.common import get_db, no_uploads_here, researcher_markdown
from fairval.ui.demographics import demographics_form
from fairval.ui.i18n import LANGUAGES, N_, direction, translator
from fairval.ui.into_view import screen_start
from fairval.ui.page_language import page_language
from fairval.ui.rater_ends import closed, declined, finished, no_items, paused, rater_language, study_words, title
from fairval.ui.rater_submit import (
    ANSWER_WAITS,
    LANGUAGE,
    NOTICE,
    PENDING,
    SAVED,
    record_submit,
    retry_pending,
    this_run_submit,
    unread_told,
)

RATER_PARAMS = ("rater", "PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "sig", "lang")
LANG_PARAM = "lang"             # the language picked on the consent screen, kept in the link until consent
GROUP_FIELDS = ("group_a", "group_b")      # an item's fields that name a group (filled into the questions)


REFUSED = N_("This link is not one this study gave out. Please use the link you were given, as it is.")

RETRY_SECONDS = 5
UNAVAILABLE = N_("The study's server cannot store or show answers just now. Nothing is lost: this page tries "
                 "again by itself in a few seconds, and you can go on where you were.")


_title, _language, _t = title, rater_language, study_words

def _browser_t():
    """Words shown before (or without) a study: in the language of the study last shown, else the browser's."""
    return translator(st.session_state.get(LANGUAGE) or st.context.locale)


KEYS_HINT = "fv-keys-hint"        # the instructions' keyboard line (rater.css hides it on a touch screen)


@functools.cache
def _style() -> str:
    """The rater page's own CSS (ui/rater.css: alignment right to left, touch screens, the keys' badges)."""
    return "<style>" + (resources.files("fairval.ui") / "rater.css").read_text(encoding="utf-8") + "</style>"


PAGE_LANGUAGE = "rater_page_language"     # what the page's language component last set in this session


def _page_language(study: LoadedStudy, t) -> None:
    """The document's language, direction and Streamlit's own words (and the picker's language names), set
    by a script that keeps them for the browser session: sent again only when they change (the rater picks
    another language), not on every run."""
    language = _language(study)
    names = {LANGUAGES[code][0]: code for code in study.settings.offered()} if study.settings.languages else None
    sent = (language, tuple(sorted((names or {}).items())))
    if st.session_state.get(PAGE_LANGUAGE) != sent:
        page_language(language, direction(language), t, names)
        st.session_state[PAGE_LANGUAGE] = sent


def run() -> None:
    no_uploads_here()                        # a rater's page never takes a file
    this_run_submit("", "")                  # a whole page reads the study afresh (a Submit kept by this run dropped)
    st.set_page_config(page_title="fairval", layout="centered")
    st.html(_style())
    try:
        with admission.gate().turn():       # this worker's runs a few at a time, in order (issue 58)
            if line.admitted():             # else the line page is drawn: the participant waits in order
                _run()
    except unavailable_errors() as e:
        # a lock or a pool kept it waiting: it waits on, told so plainly; unless a whole-page Submit's answer
        # waits in the session (its callback ran before this run failed): then the rater is told it is kept
        if busy(e) and not st.session_state.get(PENDING):
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
    _page_language(study, t)
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
    _flow(study.study_id, rater["rater_id"])          # the id as stored (trimmed)


@st.fragment
def _flow(study_id: str, rater_id: str) -> None:
    """The rater's steps, from consent to the last item, as a fragment: a press or a Submit reruns only this
    part of the page. What the rest did once per browser session (the link's checks, the rater's row, the
    page's language and style) is neither run nor sent again; each run reads the study and the rater's step
    afresh, so a researcher's change (a pause, a setting) reaches the rater's next screen."""
    submitted = this_run_submit(study_id, rater_id)     # this run's Submit: the study and next item it left
    try:
        with admission.gate().turn():   # a fragment's own rerun (a press, a Submit) waits its turn too
            db = get_db()
            retry_pending(study_id, rater_id)   # first: an answer it stores may stop (pause) the study
            try:
                # the study as this run's Submit read it under its lock, else read now (its version, issue 58)
                study = submitted.study if submitted is not None and submitted.study else load_study(db, study_id)
            except StudyError:
                st.rerun(scope="app")           # the study is gone: the whole page says so
            _notice()
            # its status as loaded just above; the rater's row as this run's Submit read it under its lock
            step = session.next_step(db, study, rater_id, loaded_now=True,
                                     rater=submitted.rater if submitted is not None else None)
            pressed = next((act for key, act in PRESSES.get(step, ()) if st.session_state.get(key)), None)
            if pressed is not None:     # the button this step drew was pressed: acted on, the next step drawn
                pressed(db, study, rater_id)
                step = session.next_step(db, study, rater_id)
            if step == "item" and pressed is None and submitted is not None and submitted.served is not None:
                _item(db, study, rater_id, submitted.served)    # the item the Submit held: not sought again
            else:
                STEPS[step](db, study, rater_id)
            screen_start(step)
    except unavailable_errors() as e:
        if busy(e) and not st.session_state.get(PENDING):   # kept waiting by a lock or a pool: it waits on
            line.busy(_browser_t())
        else:
            st.warning(_browser_t()(ANSWER_WAITS if st.session_state.get(PENDING) else UNAVAILABLE))
        _try_again_soon()
    finally:
        # a Submit the card recorded itself, then asking for a rerun (no callback found), is not taken by that rerun
        this_run_submit("", "")


def _who(db, study: LoadedStudy, params) -> tuple[str | None, str | None]:
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


def _ask_rater_id(study: LoadedStudy) -> None:
    t = _t(study)
    # not the task's title: a rater should not read what is being tested, nor a study's internal name
    _title(t("Annotation study"))
    with st.form("rater-id"):
        given = st.text_input(t("Your rater ID"))
        if st.form_submit_button(t("Continue")) and given.strip():
            st.query_params["rater"] = given.strip()
            st.rerun()


def _consent(db, study: LoadedStudy, rater_id: str) -> None:
    t = _t(study)
    _title(t("Consent"))
    _language_picker(study, t)
    text = study.settings.consent_text
    st.markdown(researcher_markdown(t(text) if text in DEFAULT_CONSENTS else text))
    agree, decline = st.columns(2)
    agree.button(t("I agree to take part"), type="primary", key="consent-yes")       # acted on by _flow (PRESSES)
    decline.button(t("I do not agree"), key="consent-no")


def _language_picker(study: LoadedStudy, t) -> None:
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


def _demographics(db, study: LoadedStudy, rater_id: str) -> None:
    demographics_form(db, study, rater_id, _t(study))


def _instructions_text(study: LoadedStudy) -> str:
    if study.settings.instructions:
        return researcher_markdown(study.settings.instructions)
    return _t(study)(study.task.instructions)


def _instructions(db, study: LoadedStudy, rater_id: str) -> None:
    t = _t(study)
    _title(t("Instructions"))
    st.markdown(_instructions_text(study))
    with st.container(key=KEYS_HINT):
        st.info(t("Keyboard: the key shown on each answer chooses it; Enter submits."))
    st.button(t("Start"), type="primary", key="start", shortcut="Enter")               # acted on by _run (PRESSES)


def _practice(db, study: LoadedStudy, rater_id: str) -> None:
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


def _item(db, study: LoadedStudy, rater_id: str, held: session.Served | None = None) -> None:
    """`held`: the item this run's Submit held for the rater (what serving would give them back now)."""
    served = held if held is not None else session.serve_next_item(db, study, rater_id)
    unread_told(_t(study), f"card:{served.item_id}" if served is not None else None)
    if served is None:
        if rater_progress.progress(db, study, rater_id).answered:
            session.finish(db, study.study_id, rater_id)
            admission.place_freed()           # a line page held by the active cap may go on now
            finished(db, study, rater_id)     # what a run of the whole page would draw next, drawn here
            return
        no_items(db, study, rater_id)
        return
    answered, total = _progress(db, study, rater_id, served)
    served = _as_shown(study, served)
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
                language=_language(study), rerun="fragment")


def _progress(db, study: LoadedStudy, rater_id: str, shown: session.Served) -> tuple[int, int]:
    """Done, and the total as this rater has been told it: a total never shrinks under a rater (others
    taking the items left can end their session early, at "5 of 8 done"; it never reads "3 of 4" after
    "3 of 8"). `shown`: the item just served, which the progress counts without reading it again."""
    progress = rater_progress.progress(db, study, rater_id, shown=shown)
    key = f"rater-total:{study.study_id}:{rater_id}"
    total = max(progress.expected, st.session_state.get(key, 0))
    st.session_state[key] = total
    return progress.answered, total


def _as_shown(study: LoadedStudy, served: session.Served) -> session.Served:
    """The item with its groups named as the study's raters read them (settings.group_labels); what is
    stored and counted keeps the groups as imported."""
    data = {k: study.settings.group_label(v, _language(study)) if k in GROUP_FIELDS and isinstance(v, str) else v
            for k, v in served.data.items()}
    return dataclasses.replace(served, data=data)


def _consented(agreed: bool):
    def consent(db, study: LoadedStudy, rater_id: str) -> None:
        session.give_consent(db, study.study_id, rater_id, agreed, **({"language": _language(study)} if agreed else {}))
        if not agreed:
            admission.place_freed()           # declined: their place is free for the line
    return consent


# The buttons a step draws, acted on at the start of the run their press causes (before anything is drawn), so
# the press draws the next step in that same run rather than a second one (st.rerun).
PRESSES = {"consent": (("consent-yes", _consented(True)), ("consent-no", _consented(False))),
           "instructions": (("start", lambda db, study, rater_id: session.finish_instructions(db, study.study_id,
                                                                                               rater_id)),)}

STEPS = {"consent": _consent, "declined": declined, "demographics": _demographics,
         "instructions": _instructions, "practice": _practice, "item": _item, "done": finished,
         "no_items": no_items, "paused": paused, "closed": closed}
