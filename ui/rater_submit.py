"""The rater's Submit: the answer card's payload stored for the item the rater saw, and what the rater is
told of it. A payload a lying client shapes wrong is refused in one sentence (annotate/rating/payload.py).
When the database cannot take the answer just now (a full disk, a PostgreSQL server restarting) it is kept
in the session and stored by the page's next run, which the rater page's own timer brings: stored once when
the database is back, and "saved" when a Submit whose acknowledgement was lost had been stored after all."""
from __future__ import annotations

import streamlit as st

from fairval.annotate.material.studies import LoadedStudy, load_study
from fairval.annotate.rating import session
from fairval.annotate.rating.payload import answers_of as payload_answers
from fairval.annotate.rating.submit import Submitted, submit
from fairval.errors import AnswerError, SlotTaken, StudyClosed, StudyError
from fairval.store.engine import unavailable_errors
from fairval.ui.answer_card import unread_submit
from fairval.ui.common import get_db
from fairval.ui.i18n import N_, translator

NOTICE = "rater_notice"          # what the last Submit came to: ("saved" | "refused", text)
SAVED = "rater_saved"            # "Answer saved", for the next card's status line
LANGUAGE = "rater_language"      # the rater's language this run, also for the line shown when the database is away
PENDING = "rater_pending"        # (study, rater, payload): an answer the database could not take yet
SUBMITTED = "rater_submitted"    # (study, rater, Submitted): this run's Submit, for the rest of this run alone
STORED = "rater_stored"          # the cards (keys) whose answers this session's own Submits stored
NOT_KEPT = N_("This item was already answered in another tab or window; the answer given there is kept, and "
              "this one was not saved.")
SLOT_TAKEN = N_("Your last answer was not saved: your time for this item ran out and other raters answered it "
                "meanwhile.")
ANSWER_WAITS = N_("The study's server cannot store your answer just now. It is kept on this page, which tries "
                  "again by itself every few seconds; please keep this page open.")


def _t(study: LoadedStudy):
    """The rater's language as the page's full run read it from their row (kept with their consent, which this
    session made or found): not read again at each Submit (issue 58); the study's languages apply now."""
    return translator(study.settings.rater_language(st.session_state.get(LANGUAGE)))


def record_submit(study_id: str, rater_id: str):
    """The answer card's Submit: store the answers to the item the rater saw, then say how it went. When the
    database cannot take it just now (a full disk, a server restarting) the answer is kept in the session
    and stored by the page's next run (retry_pending), which the page's own timer brings."""
    def record(payload: dict) -> None:
        try:
            _store(study_id, rater_id, payload)
        except unavailable_errors():
            st.session_state[PENDING] = (study_id, rater_id, payload)
    return record


def this_run_submit(study_id: str, rater_id: str) -> Submitted | None:
    """The Submit this run's card callback made, once: callbacks run at the start of a run, and the page's
    and the steps' code take this at their very start, so what an earlier run left is dropped before it could be
    taken (issue 58). None after a Submit that leaves a check, and while an answer waits in the session."""
    kept = st.session_state.pop(SUBMITTED, None)
    if kept is None or kept[:2] != (study_id, rater_id) or kept[2].study is None or st.session_state.get(PENDING):
        return None
    return kept[2]


def retry_pending(study_id: str, rater_id: str) -> None:
    """Store the answer the database could not take at its Submit; an unavailable database raises on (the
    page says so in one sentence and comes back here a few seconds later)."""
    pending = st.session_state.get(PENDING)
    if pending is None or pending[:2] != (study_id, rater_id):
        return
    _store(study_id, rater_id, pending[2])
    st.session_state.pop(PENDING, None)


def _store(study_id: str, rater_id: str, payload: dict) -> None:
    db = get_db()
    # the rater's language as the page's full run read it (LANGUAGE); the study is read by the Submit under its
    # lock, not before it (issue 58)
    t = translator(st.session_state.get(LANGUAGE))
    try:
        answers = payload_answers(payload)
        item, comment = str(payload.get("item")), payload.get("comment")
        submitted = submit(db, study_id, rater_id, item, answers, comment=comment)
        study = submitted.study or load_study(db, study_id)    # a check still to make: read after the lock
        t = _t(study)
        # the study, the rater's row and the next item as the Submit's transaction left them: the page drawn
        # next in this run reads none of them again (taken, or dropped, at the start of the page's and the
        # steps' code: this_run_submit)
        st.session_state[SUBMITTED] = (study_id, rater_id, submitted)
        if submitted.new or session.answer_is_stored(db, study, rater_id, item, answers, comment):
            st.session_state[NOTICE] = ("saved", t("Answer saved"))
            st.session_state.setdefault(STORED, set()).add(f"card:{item}")
            if submitted.stopped or submitted.check:
                _after_submit(db, study, submitted)
        else:                           # the same link open twice: the first answer is the one kept
            st.session_state[NOTICE] = ("refused", t(NOT_KEPT))
    except (StudyClosed, SlotTaken) as refused:
        if _stored_already(db, study_id, rater_id, payload):    # the same Submit again: it was saved, once
            st.session_state[NOTICE] = ("saved", t("Answer saved"))
        elif isinstance(refused, StudyClosed):
            st.session_state[NOTICE] = ("refused", t("Your last answer was not saved: the study closed before "
                                                     "it arrived."))
        else:
            st.session_state[NOTICE] = ("refused", t(SLOT_TAKEN))
    except (AnswerError, StudyError):
        st.session_state[NOTICE] = ("refused", t("Your last answer was not saved. Please answer every question "
                                                 "and press Submit again."))


def _stored_already(db, study_id: str, rater_id: str, payload: dict) -> bool:
    """Whether a Submit refused as too late (the study closed, the slot taken) repeats answers already stored
    for the rater's item, this very answer sent again by the client: it is saved, and the rater is told so."""
    study = load_study(db, study_id)
    answers = payload_answers(payload)
    return session.answer_is_stored(db, study, rater_id, str(payload.get("item")), answers, payload.get("comment"))


def unread_told(t, drawn_key: str | None) -> None:
    """A card's Submit that fired but whose payload the page could not read (answer_card.unread_submit). A
    card this session's own Submit stored is that Submit sent again (a client repeating its last message):
    its answer is saved, and the next card says so. Any other is a second tab's, never stored: told so."""
    unread = unread_submit(drawn_key)
    if unread is None:
        return
    if unread in st.session_state.get(STORED, ()):
        st.session_state[SAVED] = t("Answer saved")
    else:
        st.warning(t(NOT_KEPT))


def _after_submit(db, study: LoadedStudy, submitted: Submitted) -> None:
    """What the Submit's transaction left for after it (Prolific told of a stop, or a check with no kept
    interval to read): it must never cost the rater their answer, so a failure is logged."""
    from fairval.annotate.crowd import stopping

    try:
        stopping.after_submit(db, study.study_id, submitted)
    except Exception:
        import logging
        logging.getLogger("fairval").exception("the stopping rule of %s could not be checked", study.study_id)
