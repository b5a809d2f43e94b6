"""The line page (issue 58): a participant who arrives while the server is saturated reads their place and the
wait, in the study's language, and the page goes on by itself when their turn comes. Nothing on it takes the
focus or a key: it is text, asked again every few seconds (a fragment's timer, not a page reload).

The decisions are annotate/serving/admission.py's; this module only draws them.
"""
from __future__ import annotations

import html

import streamlit as st

from fairval.annotate.material.studies import load_study
from fairval.annotate.serving import admission
from fairval.errors import StudyError
from fairval.ui.common import get_db
from fairval.ui.i18n import N_, direction, translator
from fairval.ui.page_language import page_language
from fairval.ui.rater_submit import LANGUAGE

ADMITTED = "_fairval_admitted"     # (study, participant) let in, and when their place was last renewed
TICKET = "_fairval_ticket"         # the ticket the page's full run just took, for its line's first draw
AHEAD = "_fairval_ahead"           # how many were ahead at the line page's last look, how many this worker
                                   # had let in by then, and the places freed then if every place was taken
PERIOD = "_fairval_line_period"    # the line page's timer, as its full run set it
ENTERED = "_fairval_entered"       # the (study, participant) this browser session last took a place for

IN_LINE = N_("You are in line")
BUSY = N_("Many people are taking part just now. This page goes on by itself in a few seconds, where you were; "
          "nothing you answered is lost.")


def admitted() -> bool:
    """First thing of a rater page's run: whether this participant may go on. When not, the line page is
    drawn instead. A link naming nobody yet (the rater-id form) goes on: that page costs next to nothing."""
    params = st.query_params
    who = (params.get("PROLIFIC_PID") or params.get("rater") or "").strip()
    if not who or len(who) > 256:              # the page itself refuses an id it cannot use
        return True
    key = (params.get("study") or "", who)
    db = get_db()
    held = st.session_state.get(ADMITTED)
    if held is not None and held[0] == key:
        if admission.clock() - held[1] >= admission.TOUCH_SECONDS:
            admission.still_here(db, *key)
            st.session_state[ADMITTED] = (key, admission.clock())
        return True
    t = _study_t(db, key[0])                   # first: a store that refuses the write below is said in it too
    # one place per browser session: a client that lies could rerun one session with a new made-up ID each
    # time (the query string is the client's to send) and hold a place with every one (issue 58)
    before = st.session_state.get(ENTERED)
    if before is not None and before != key:
        admission.give_up(db, *before)
        st.session_state.pop(ADMITTED, None)
    ticket = admission.enter(db, *key)
    st.session_state[ENTERED] = key
    if ticket.admitted:
        st.session_state[ADMITTED] = (key, admission.clock())
        return True
    st.session_state[TICKET] = ticket
    page_language(t.language, direction(t.language), t)
    st.title(t(IN_LINE), anchor=False)
    st.session_state[PERIOD] = admission.poll_seconds(ticket.ahead)
    st.fragment(_place, run_every=st.session_state[PERIOD])(key)
    return False


def _place(key: tuple[str, str]) -> None:
    """The place and the wait, asked again at each tick; the whole page is drawn again once let in. Its own
    rerun (the timer's) first waits, outside the gate and the store, until the line may have reached this
    participant and the worker has room (a place freed is taken at once, not at the next tick), for a little
    less than the timer's period."""
    db = get_db()
    ticket = st.session_state.pop(TICKET, None)
    if ticket is None:
        period = st.session_state.get(PERIOD, admission.poll_seconds(0))
        ahead, since, held = st.session_state.get(AHEAD, (0, 0, None))
        admission.wait_for_turn(ahead, since, max(0.0, period - 1), held)
        ticket = admission.enter(db, *key)
    # at the front with room, yet not let in: every place is taken, so it waits for one to be freed
    full = ticket.ahead < admission.runs_at_once() and not admission.gate().saturated()
    st.session_state[AHEAD] = (ticket.ahead, admission.line_moved(), admission.places_freed() if full else None)
    if ticket.admitted:
        st.session_state[ADMITTED] = (key, admission.clock())
        st.rerun(scope="app")
    t = translator(st.session_state.get(LANGUAGE) or st.context.locale)
    place = ticket.ahead + 1
    said = [t("Many people are taking part just now, so they start in the order they arrived. You are number "
              "{place} in line.", place=place)]
    minutes = admission.minutes_to_wait(db, place)
    if minutes is not None:
        said.append(t("About {minutes} min to wait.", minutes=minutes))
    # a polite live region, the fragment's first element at every tick: the browser keeps the one node and a
    # screen reader says the new place (a region drawn anew, or a place outside one, would go unsaid)
    st.markdown(f'<div role="status" aria-live="polite">{html.escape(" ".join(said))}</div>',
                unsafe_allow_html=True)
    st.write(t("This page goes on by itself when it is your turn: please keep it open. If you leave and come back "
               "with the same link, you keep your place."))


def busy(t) -> None:
    """The store kept this run waiting too long (a lock, a pool): the participant waits, told so plainly."""
    st.title(t(IN_LINE), anchor=False)
    st.info(t(BUSY))


def _study_t(db, study_id: str):
    language = st.session_state.get(LANGUAGE)
    if not language and study_id:
        try:
            language = load_study(db, study_id).settings.language
            st.session_state[LANGUAGE] = language
        except StudyError:
            language = None
    return translator(language or st.context.locale)
