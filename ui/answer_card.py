"""The answer card: a task's questions with their options, chosen in the browser, sent once on Submit.

A Streamlit custom component (v2: plain HTML/JS/CSS in the page, no iframe, no build step). Choosing
an option never reaches the server, so it is acknowledged at once; Submit sends one trigger with
every answer (and the comment), which a callback records before the page is served again. All text
is set with textContent, never as HTML or Markdown, so imported fields stay inert. Labels wrap and
never truncate; every option shows the key that chooses it; a new item starts at the top.
"""
from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from importlib import resources

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from fairval.annotate.material.tasks import SHORTCUT_ROWS, Task
from fairval.annotate.rating.payload import COMMENT_LIMIT
from fairval.annotate.rating.session import Served
from fairval.ui.i18n import N_, Translate, direction, english

SUBMIT = "submit"
COMMENT_COUNT = N_("{count} of {limit} characters")


# The name pyproject.toml's [tool.streamlit.component] gives the card: Streamlit prefixes the project's name.
CARD = "fairval.fairval_answer_card"


def _asset(name: str) -> str:
    """The card's own CSS or script, a file in ui/card/ (in the wheel: pyproject package-data)."""
    return (resources.files("fairval.ui") / "card" / name).read_text(encoding="utf-8")


def _declare():
    """The card's component. Where Streamlit found ui/card/ as the card's asset directory (the runtime reads
    pyproject.toml's manifest as it starts), the script and CSS are files it serves over HTTP and the browser
    fetches once per page; each mount then carries only its data. Elsewhere (imported outside a server, or an
    install without the manifest) they go inline in every mount, as before."""
    from streamlit.components.v2.get_bidi_component_manager import get_bidi_component_manager
    if get_bidi_component_manager().get_component_asset_root(CARD) is not None:
        return st.components.v2.component(CARD, html='<div class="fv-card"></div>',
                                          css="answer_card.css", js="answer_card.js")
    return st.components.v2.component(CARD, html='<div class="fv-card"></div>',
                                      css=_asset("answer_card.css"), js=_asset("answer_card.js"))


_component = _declare()


HANDLED = "fv-card-handled"        # session state: the nonce of the last Submit the server took
UNREAD = "fv-card-unread"          # the key of a card whose Submit fired but whose payload was not readable


def unread_submit(drawn_key: str | None) -> str | None:
    """The key of a card whose Submit fired this run but which is not drawn again (`drawn_key`: the card the
    page is about to draw, or None): its answer was never read, so never stored, and the rater must be told.
    (A second tab's card, drawn in its session's first run, whose item the first tab answered meanwhile.)"""
    unread = st.session_state.get(UNREAD)
    if unread is None or unread == drawn_key:
        return None
    st.session_state.pop(UNREAD)
    return unread


def card_data(task: Task, served: Served, *, submit_label: str, locked: dict | None = None,
              handled: str | None = None, status: str = "", announce: str = "", t: Translate = english,
              language: str = "en") -> dict:
    """What the card shows: prompts, options with their keys, as plain strings. `locked`: answers
    already given, shown chosen and unchangeable, with practice feedback against served.expected.
    `status` is shown and read out; `announce` only read out (the progress line already shows it)."""
    questions = []
    for k, question in enumerate(task.questions):
        keys = SHORTCUT_ROWS[k] if k < len(SHORTCUT_ROWS) else ""
        options = []
        for i, option in enumerate(question.options):
            # no letter before the label: the key shown beside it is what a rater presses
            label = question.label_for(option.value, served.data)
            options.append({"value": option.value, "label": label, "key": keys[i] if i < len(keys) else ""})
        questions.append({"id": question.id, "prompt": question.prompt_for(served.data), "options": options,
                          "long": any(len(o["label"]) > 40 for o in options),
                          "scale": question.level != "nominal"})
    hint = hint_mac = t("Keys shown on each answer choose it; Enter submits.")
    if task.comment:            # the card shows the Mac's keys on a Mac only
        hint = t("Keys shown on each answer choose it; Enter submits. In the comment box, Enter starts a new "
                 "line and Ctrl+Enter submits.")
        hint_mac = t("Keys shown on each answer choose it; Enter submits. In the comment box, Enter starts a new "
                     "line and ⌘+Enter submits.")
    # `render` changes with every page the server sends: a card that sent its answer and is drawn again
    # with the same item knows the answer was not recorded and offers Submit again
    return {"item": served.item_id, "questions": questions, "submit": submit_label, "render": secrets.token_hex(6),
            "hint": hint, "hint_mac": hint_mac, "handled": handled, "status": status, "announce": announce,
            "lang": language,
            "dir": direction(language),
            "busy": t("Your last answer is still being saved; that key was not used. Please wait a moment."),
            "missing": t("Please answer every question before submitting."), "saving": t("Saving…"),
            "comment": t("Comment (optional)") if task.comment else None, "locked": locked,
            # the counter's words with {count} and {limit} left for the card to fill as the rater types
            "comment_count": t(COMMENT_COUNT), "comment_limit": COMMENT_LIMIT,
            "feedback": practice_feedback(task, served, locked, t) if locked else None}


def practice_feedback(task: Task, served: Served, chosen: dict, t: Translate = english) -> dict:
    """Per question: the expected answer and a sentence comparing it with the one chosen."""
    out, bare = {}, functools.partial(_bare, language=t.language)
    for question in task.questions:
        got = question.label_for(chosen[question.id], served.data)
        want = (served.expected or {}).get(question.id)
        if want is None:
            out[question.id] = {"expected": None, "right": False, "text": t("You chose “{answer}”.", answer=bare(got))}
        elif str(want) == chosen[question.id]:
            out[question.id] = {"expected": str(want), "right": True,
                                "text": t("“{answer}” is the expected answer.", answer=bare(got))}
        else:
            out[question.id] = {"expected": str(want), "right": False,
                                "text": t("You chose “{answer}”; the expected answer is “{expected}”.",
                                          answer=bare(got),
                                          expected=bare(question.label_for(str(want), served.data)))}
    return out


# Each language's quotation marks and the ones a quotation inside them takes (the feedback's sentence quotes
# the label in the outer ones; a pair option's label quotes its groups in them too).
_NESTED = str.maketrans({"\u201c": "\u2018", "\u201d": "\u2019", "\u201e": "\u201a", "\u00ab": "\u201c",
                         "\u00bb": "\u201d", "\u300c": "\u300e", "\u300d": "\u300f"})
# Arabic's curly quotes open with ” and close with “ (CLDR's ar delimiters): unlike « », they are not mirrored
# right to left, so English's “…” inside an Arabic sentence shows its marks reversed.
_NESTED_IN = {"ar": str.maketrans({"\u00ab": "\u201d", "\u00bb": "\u201c", "\u201d": "\u2019",
                                   "\u201c": "\u2018"})}


def _bare(label: str, language: str = "en") -> str:
    """A label quoted inside a sentence: without its own full stop, so the sentence ends once, and with the
    quotes it holds made inner ones, so quotes never nest in quotes of their kind."""
    return label.rstrip().rstrip(".").replace("\u00ab\u00a0", "\u00ab").replace("\u00a0\u00bb", "\u00bb") \
        .replace("\u00ab ", "\u00ab").replace(" \u00bb", "\u00bb").translate(_NESTED_IN.get(language, _NESTED))


def answer_card(task: Task, served: Served, *, key: str, submit_label: str | None = None,
                on_submit: Callable[[dict], None] | None = None, locked: dict | None = None, status: str = "",
                announce: str = "", t: Translate = english, language: str = "en", rerun: str = "app"):
    """Mount the card. `on_submit(payload)` runs at the start of the rerun the Submit causes, before the
    page decides what to show, with payload {item, answers, comment}. `rerun`: what a Submit recorded here
    (not by the callback) runs again, "app" or "fragment" (a card drawn in one: the page around it stands)."""
    handled = []

    def callback() -> None:
        payload = (st.session_state.get(key) or {}).get(SUBMIT)
        if payload and on_submit is not None:
            handled.append(payload)
            st.session_state[HANDLED] = payload.get("nonce")
            on_submit(payload)
        elif on_submit is not None:
            # the Submit fired, but its payload is readable only from the card drawn again with this key
            # (a card first drawn in its session's first run): see unread_submit
            st.session_state[UNREAD] = key
    result = _component(data=card_data(task, served, submit_label=submit_label or t("Submit"), locked=locked,
                                       handled=st.session_state.get(HANDLED), status=status, announce=announce, t=t,
                                       language=language),
                        key=key, on_submit_change=callback)
    # A Submit that arrives as a session's first message (the browser reconnected to another worker)
    # finds no callback registered yet, and so does the first Submit of a card in a fragment drawn by a
    # run of the whole page (with a pages/ folder, the callback does not find the card's state under its
    # key then): record it here, then draw what follows from it.
    payload = getattr(result, SUBMIT, None)
    if st.session_state.get(UNREAD) == key:
        st.session_state.pop(UNREAD)
    if payload and on_submit is not None and not handled:
        st.session_state[HANDLED] = payload.get("nonce")
        on_submit(payload)
        # a fragment may rerun itself only in its own rerun: drawn by a run of the whole page (a Submit as the
        # session's first message, after a reconnect to another worker), Streamlit refuses scope="fragment"
        ctx = get_script_run_ctx()
        st.rerun(scope=rerun if ctx is not None and ctx.fragment_ids_this_run else "app")
    return result
