"""The answer card: a task's questions with their options, chosen in the browser, sent once on Submit.

A Streamlit custom component (v2: plain HTML/JS/CSS in the page, no iframe, no build step). Choosing
an option never reaches the server, so it is acknowledged at once; Submit sends one trigger with
every answer (and the comment), which a callback records before the page is served again. All text
is set with textContent, never as HTML or Markdown, so imported fields stay inert. Labels wrap and
never truncate; every option shows the key that chooses it; a new item starts at the top.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable

import streamlit as st

from fairval.annotate.rating.session import Served
from fairval.annotate.material.tasks import SHORTCUT_ROWS, Task
from fairval.ui.i18n import Translate, direction, english

SUBMIT = "submit"

_CSS = """
.fv-card { font-family: var(--st-font, inherit); color: var(--st-text-color, inherit); }
.fv-question { margin: 0 0 1.25rem 0; }
.fv-prompt { font-weight: 600; margin: 0 0 0.5rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.fv-options { display: grid; gap: 0.5rem; grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); }
.fv-options.fv-long { grid-template-columns: 1fr; }
/* an ordered scale reads as one row, from one end to the other; on a phone, as one column */
.fv-options.fv-scale { grid-template-columns: repeat(var(--fv-steps), minmax(0, 1fr)); }
@media (max-width: 640px) { .fv-options.fv-scale { grid-template-columns: 1fr; } }
/* a row too narrow for a label's longest word: smaller text first, then one option a line (fit() in the script) */
.fv-options.fv-compact .fv-option { font-size: 0.85rem; padding: 0.45rem 0.5rem; gap: 0.35rem; }
.fv-options.fv-stacked { grid-template-columns: 1fr; }
.fv-option { display: flex; align-items: flex-start; gap: 0.5rem; text-align: start; cursor: pointer;
  padding: 0.55rem 0.7rem; border-radius: 0.5rem; font: inherit; line-height: 1.35;
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  background: var(--st-secondary-background-color, #f0f2f6); color: inherit; }
/* chosen: a calm blue (6.7:1 with white), never an alarm colour, whatever the theme's primary colour */
.fv-option:hover { border-color: #1d4ed8; }
.fv-option:focus-visible { outline: 2px solid #1d4ed8; outline-offset: 2px; }
.fv-option[aria-pressed="true"] { background: #1d4ed8; color: #fff; border-color: #1d4ed8; }
.fv-option:disabled { cursor: default; opacity: 0.85; }
.fv-key { flex: none; min-width: 1.4rem; text-align: center; font-size: 0.8rem; font-weight: 600;
  border: 1px solid currentColor; border-radius: 0.3rem; padding: 0 0.25rem; opacity: 0.75; }
/* labels break between words, never inside one (fit() makes room); a word wider than a whole line breaks */
.fv-label { flex: 1 1 auto; min-width: 0; white-space: normal; overflow-wrap: normal; }
.fv-options.fv-stacked .fv-label { overflow-wrap: anywhere; }
/* a touch screen has no keys to press: no key badges, no key hints */
@media (hover: none) and (pointer: coarse) { .fv-key, .fv-note { display: none; } }
.fv-status { margin: 0 0 0.75rem 0; font-weight: 600; min-height: 1.2em; }
.fv-prompt:focus { outline: none; }
.fv-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.fv-comment { width: 100%; min-height: 4.5rem; box-sizing: border-box; font: inherit; padding: 0.5rem;
  border-radius: 0.5rem; border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); }
.fv-submit { font: inherit; font-weight: 600; padding: 0.55rem 1.4rem; border-radius: 0.5rem; cursor: pointer;
  border: 1px solid #1d4ed8; background: #1d4ed8; color: #fff; }
.fv-submit:disabled { opacity: 0.6; cursor: default; }
.fv-footer { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; }
.fv-note { font-size: 0.9rem; }
.fv-alert { color: #b91c1c; font-weight: 600; }
/* practice feedback: the expected answer in green, a different answer chosen in red, each with its mark;
   the sentence under the options says it in words (green 5.0:1, red 6.5:1 on white: WCAG AA for text) */
.fv-option.fv-expected, .fv-option.fv-expected[aria-pressed="true"] { background: #f0fdf4; color: #14532d;
  border: 2px solid #15803d; }
.fv-option.fv-wrong[aria-pressed="true"] { background: #fef2f2; color: #7f1d1d; border: 2px solid #b91c1c; }
.fv-mark { flex: none; font-weight: 700; }
.fv-feedback { margin: 0.5rem 0 0 0; font-weight: 600; overflow-wrap: break-word; }
.fv-feedback.fv-right { color: #15803d; }
.fv-feedback.fv-wrong { color: #b91c1c; }
"""

_JS = """
const STATE = new WeakMap();       // per mounted card: the item shown and the answers chosen so far
const RESEND_MS = [4000, 8000, 15000, 30000];   // after a Submit with no new page: when to send it again

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;       // text only: imported fields are never markup
  return node;
}

const RESIZE = new WeakMap();      // per card: the observer that fits its options again when its width changes

// No label may break inside a word: where a row of options is too narrow for a label's longest word,
// the row's text gets smaller; where it still is, the options stand one a line.
function fit(root) {
  const overflows = (group) => [...group.querySelectorAll(".fv-label")].some(
    (label) => label.scrollWidth > label.clientWidth + 1);
  root.querySelectorAll(".fv-options").forEach((group) => {
    group.classList.remove("fv-compact", "fv-stacked");
    if (!overflows(group)) return;
    group.classList.add("fv-compact");
    if (overflows(group)) group.classList.add("fv-stacked");
  });
}

function scrollToTop() {
  for (const node of [document.querySelector('[data-testid="stMain"]'), document.scrollingElement]) {
    if (node) node.scrollTop = 0;
  }
  window.scrollTo(0, 0);
}

export default function ({ data, parentElement, setTriggerValue }) {
  const root = parentElement.querySelector(".fv-card");
  let state = STATE.get(parentElement);
  let fresh = false;
  if (!state || state.item !== data.item) {
    state = { item: data.item, chosen: Object.assign({}, data.locked || {}), sent: false };
    STATE.set(parentElement, state);
    scrollToTop();
    fresh = true;
  } else if (state.sent && state.sentWith !== data.render) {
    if (data.handled === state.payload.nonce) {
      // The server took our Submit and drew this item again: it refused the answer, and the page says
      // why above the card. Offer Submit again, with the answers still chosen.
      state.sent = false;
    } else {
      // A page came back without our Submit having reached the server (a worker gone, the connection
      // lost while it was on its way): send it again now. An answer is stored once, so a Submit that
      // did arrive and is sent again changes nothing, and the page then says it is saved.
      state.attempt = (state.attempt || 0) + 1;
      state.sentWith = data.render;
      setTriggerValue("submit", Object.assign({}, state.payload, { attempt: state.attempt }));
    }
  }
  if (state.sent) resendLater();
  const locked = !!data.locked;
  root.textContent = "";
  root.setAttribute("lang", data.lang || "en");
  root.setAttribute("dir", data.dir || "ltr");
  // what a screen reader hears when a new item comes: the answer saved, and which item this is
  const status = el("p", "fv-status", data.status || "");
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  root.appendChild(status);
  const buttons = {};
  data.questions.forEach((question) => {
    const block = el("div", "fv-question");
    const prompt = el("p", "fv-prompt", question.prompt);
    prompt.id = `${data.item}-${question.id}-prompt`;
    prompt.tabIndex = -1;              // focus lands here on a new item: on the question, not on an answer
    const options = el("div", "fv-options" + (question.long ? " fv-long" : question.scale ? " fv-scale" : ""));
    options.style.setProperty("--fv-steps", String(question.options.length));
    options.setAttribute("role", "group");
    options.setAttribute("aria-labelledby", prompt.id);
    buttons[question.id] = {};
    question.options.forEach((option) => {
      const button = el("button", "fv-option");
      button.type = "button";
      button.dataset.question = question.id;
      button.dataset.value = option.value;
      if (option.key) {
        const badge = el("span", "fv-key", option.key.toUpperCase());
        badge.setAttribute("aria-hidden", "true");               // announced as the shortcut instead
        button.appendChild(badge);
      }
      button.appendChild(el("span", "fv-label", option.label));
      if (option.key) button.setAttribute("aria-keyshortcuts", option.key.toUpperCase());
      button.setAttribute("aria-pressed", String(state.chosen[question.id] === option.value));
      button.disabled = locked || state.sent;
      button.addEventListener("click", () => choose(question.id, option.value));
      buttons[question.id][option.value] = button;
      options.appendChild(button);
    });
    block.appendChild(prompt);
    block.appendChild(options);
    const feedback = (data.feedback || {})[question.id];
    if (feedback) {        // practice: what was chosen against what was expected, in colour, marks and words
      const expected = buttons[question.id][feedback.expected];
      const wrong = feedback.expected != null && !feedback.right;
      if (expected) {
        expected.classList.add("fv-expected");
        expected.appendChild(mark("\u2713"));
      }
      const chosen = buttons[question.id][state.chosen[question.id]];
      if (wrong && chosen) {
        chosen.classList.add("fv-wrong");
        chosen.appendChild(mark("\u2717"));
      }
      const line = el("p", "fv-feedback" + (feedback.right ? " fv-right" : wrong ? " fv-wrong" : ""));
      if (feedback.expected != null) line.appendChild(mark(feedback.right ? "\u2713 " : "\u2717 "));
      line.appendChild(document.createTextNode(feedback.text));
      line.setAttribute("role", "status");
      block.appendChild(line);
    }
    root.appendChild(block);
  });
  let comment = null;
  if (data.comment && !locked) {
    const block = el("div", "fv-question");
    const label = el("label", "fv-prompt", data.comment);
    comment = el("textarea", "fv-comment");
    comment.id = `${data.item}-comment`;
    label.htmlFor = comment.id;
    comment.value = state.comment || "";
    comment.addEventListener("input", () => { state.comment = comment.value; });
    block.appendChild(label);
    block.appendChild(comment);
    root.appendChild(block);
  }
  const alert = el("p", "fv-alert");
  alert.setAttribute("role", "alert");
  let submit = null;
  if (!locked) {
    const footer = el("div", "fv-footer");
    submit = el("button", "fv-submit", state.sent ? data.saving : data.submit);
    submit.type = "button";
    submit.disabled = state.sent;
    submit.setAttribute("aria-keyshortcuts", "Enter");
    submit.addEventListener("click", send);
    footer.appendChild(submit);
    // the keys of the rater's own keyboard: ⌘ only on a Mac
    const mac = /Mac|iPhone|iPad/.test(navigator.platform || "");
    footer.appendChild(el("span", "fv-note", mac && data.hint_mac ? data.hint_mac : data.hint));
    root.appendChild(footer);
  }
  root.appendChild(alert);
  fit(root);
  requestAnimationFrame(() => fit(root));        // once the page's fonts and width are settled
  if (!RESIZE.has(root)) {                       // and again whenever the card's width changes
    let width = root.clientWidth;
    const observer = new ResizeObserver(() => {
      if (root.clientWidth !== width) { width = root.clientWidth; fit(root); }
    });
    observer.observe(root);
    RESIZE.set(root, observer);
  }
  if (fresh && !data.feedback) {      // a new item: keyboard and screen reader start at its first question
    const first = root.querySelector(".fv-prompt");
    if (first) requestAnimationFrame(() => first.focus({ preventScroll: true }));
  }
  if (data.feedback) {       // practice: the answer's feedback is what the rater came to read, on a phone too
    const first = root.querySelector(".fv-feedback");
    if (first) requestAnimationFrame(() => first.scrollIntoView({ block: "center" }));
  }

  function mark(text) {
    const node = el("span", "fv-mark", text);
    node.setAttribute("aria-hidden", "true");      // the sentence under the options says it in words
    return node;
  }

  function choose(qid, value) {
    if (locked || state.sent) return;
    state.chosen[qid] = value;
    for (const [v, button] of Object.entries(buttons[qid])) button.setAttribute("aria-pressed", String(v === value));
    alert.textContent = "";
  }

  function send() {
    if (locked || state.sent) return;
    const missing = data.questions.filter((q) => !(q.id in state.chosen));
    if (missing.length) { alert.textContent = data.missing; return; }
    state.sent = true;
    state.sentWith = data.render;
    state.attempt = 0;
    state.payload = { item: data.item, answers: state.chosen, comment: comment ? comment.value : null,
                      nonce: Math.random().toString(36).slice(2) };
    submit.disabled = true;
    submit.textContent = data.saving;
    Object.values(buttons).forEach((row) => Object.values(row).forEach((b) => { b.disabled = true; }));
    setTriggerValue("submit", state.payload);
    resendLater();
  }

  // A Submit sent while the connection was down is dropped by Streamlit ("Cannot send rerun
  // backMessage when disconnected"), and after it reconnects (to another worker) nothing is rerun, so
  // no new page would ever come. Until one comes, send the same answers again, less and less often:
  // the server stores an answer once, so a repeat that crosses a slow reply changes nothing.
  function resendLater() {
    clearTimeout(state.timer);
    const wait = RESEND_MS[Math.min(state.attempt || 0, RESEND_MS.length - 1)];
    state.timer = setTimeout(() => {
      if (!state.sent || STATE.get(parentElement) !== state) return;
      state.attempt = (state.attempt || 0) + 1;
      setTriggerValue("submit", Object.assign({}, state.payload, { attempt: state.attempt }));
      resendLater();
    }, wait);
  }

  // The key a rater pressed, by where it is on the keyboard (KeyboardEvent.code): the badges show the
  // keys of a US layout, and "1" or "a" is the same key on an AZERTY, Cyrillic or Arabic keyboard.
  function keyOf(event) {
    const code = event.code || "";
    if (/^Key[A-Z]$/.test(code)) return code.slice(3).toLowerCase();
    if (/^(Digit|Numpad)[0-9]$/.test(code)) return code.slice(-1);
    return (event.key || "").toLowerCase();
  }

  function onKey(event) {
    if (locked) return;
    // The card lives in a shadow root: at the document, event.target is its host, so ask the path
    // where the key really went. Keys typed into a text field belong to the text.
    const target = (event.composedPath && event.composedPath()[0]) || event.target;
    const typing = !!target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT"
      || target.tagName === "SELECT" || target.isContentEditable);
    if (event.key === "Enter" || event.key === " ") {
      if (typing) {              // Enter adds a line; Ctrl+Enter (⌘+Enter) submits from the comment
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target === comment) {
          event.preventDefault(); send();
        }
        return;
      }
      // A focused control does what it does (an option is chosen, the expander opens, Submit submits);
      // Enter submits only when the focus is on no control.
      const control = target && target.closest && target.closest(
        'button, a[href], summary, [role="button"], [role="tab"], input, select, textarea');
      if (control || event.key === " ") return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
      event.preventDefault(); send(); return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = keyOf(event);
    for (const question of data.questions) {
      const option = question.options.find((o) => o.key === key);
      if (!option) continue;
      event.preventDefault(); event.stopPropagation();
      if (state.sent) { alert.textContent = data.busy; return; }      // not lost without a word
      choose(question.id, option.value);
      return;
    }
  }
  document.addEventListener("keydown", onKey, true);
  return () => {
    document.removeEventListener("keydown", onKey, true);
    clearTimeout(state.timer);
  };
}
"""

_component = st.components.v2.component("fairval_answer_card", html='<div class="fv-card"></div>', css=_CSS, js=_JS)


HANDLED = "fv-card-handled"        # session state: the nonce of the last Submit the server took


def card_data(task: Task, served: Served, *, submit_label: str, locked: dict | None = None,
              handled: str | None = None, status: str = "", t: Translate = english, language: str = "en") -> dict:
    """What the card shows: prompts, options with their keys, as plain strings. `locked`: answers
    already given, shown chosen and unchangeable, with practice feedback against served.expected."""
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
            "hint": hint, "hint_mac": hint_mac, "handled": handled, "status": status, "lang": language,
            "dir": direction(language),
            "busy": t("Your last answer is still being saved; that key was not used. Please wait a moment."),
            "missing": t("Please answer every question before submitting."), "saving": t("Saving…"),
            "comment": t("Comment (optional)") if task.comment else None, "locked": locked,
            "feedback": practice_feedback(task, served, locked, t) if locked else None}


def practice_feedback(task: Task, served: Served, chosen: dict, t: Translate = english) -> dict:
    """Per question: the expected answer and a sentence comparing it with the one chosen."""
    out = {}
    for question in task.questions:
        got = question.label_for(chosen[question.id], served.data)
        want = (served.expected or {}).get(question.id)
        if want is None:
            out[question.id] = {"expected": None, "right": False, "text": t("You chose “{answer}”.", answer=_bare(got))}
        elif str(want) == chosen[question.id]:
            out[question.id] = {"expected": str(want), "right": True,
                                "text": t("“{answer}” is the expected answer.", answer=_bare(got))}
        else:
            out[question.id] = {"expected": str(want), "right": False,
                                "text": t("You chose “{answer}”; the expected answer is “{expected}”.",
                                          answer=_bare(got),
                                          expected=_bare(question.label_for(str(want), served.data)))}
    return out


def _bare(label: str) -> str:
    """A label quoted inside a sentence: without its own full stop, so the sentence ends once."""
    return label.rstrip().rstrip(".")


def answer_card(task: Task, served: Served, *, key: str, submit_label: str | None = None,
                on_submit: Callable[[dict], None] | None = None, locked: dict | None = None, status: str = "",
                t: Translate = english, language: str = "en"):
    """Mount the card. `on_submit(payload)` runs at the start of the rerun the Submit causes, before the
    page decides what to show, with payload {item, answers, comment}."""
    handled = []

    def callback() -> None:
        payload = (st.session_state.get(key) or {}).get(SUBMIT)
        if payload and on_submit is not None:
            handled.append(payload)
            st.session_state[HANDLED] = payload.get("nonce")
            on_submit(payload)
    result = _component(data=card_data(task, served, submit_label=submit_label or t("Submit"), locked=locked,
                                       handled=st.session_state.get(HANDLED), status=status, t=t,
                                       language=language),
                        key=key, on_submit_change=callback)
    # A Submit that arrives as a session's first message (the browser reconnected to another worker)
    # finds no callback registered yet: record it here, then draw the page that follows from it.
    payload = getattr(result, SUBMIT, None)
    if payload and on_submit is not None and not handled:
        st.session_state[HANDLED] = payload.get("nonce")
        on_submit(payload)
        st.rerun()
    return result
