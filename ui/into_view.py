"""Where the rater is looking, kept there by two components-v2 scripts run in the page itself, drawing nothing.

A new screen of the rater's way starts at its heading. Streamlit draws the next screen in place of the one a
button left: the browser's place in the page stays where that button was, so a keyboard user's first Tab
after "I agree" went to About you's Continue, past every question (and the second left the page). The
heading takes the focus (tabindex -1, read out by a screen reader) and the page goes to its top, so Tab
reaches the first question. The answer card moves the focus on an item itself (ui/card).

A form's error is brought to where the rater is looking. When an error appears, Streamlit's page grows below
the focused button but nothing scrolls: on a laptop the line a keyboard user's Enter brought can stand under
the fold, unseen (Streamlit gives it role="alert", so a screen reader hears it; a sighted keyboard user may
not see it). A components-v2 script, run in the page itself and drawing nothing, scrolls it to the middle
of the screen, the button that sent the form just under it."""
from __future__ import annotations

import streamlit as st

_JS = """
export default function ({ data }) {
  let tries = 0;
  const bring = () => {
    const alerts = document.querySelectorAll('[data-testid="stForm"] [data-testid="stAlertContentError"]');
    if (alerts.length) alerts[0].scrollIntoView({ block: "center" });
    else if (tries++ < 60) requestAnimationFrame(bring);
  };
  bring();
}
"""

_component = st.components.v2.component("fairval_error_into_view", html="<span hidden></span>", js=_JS)

_START_JS = """
export default function ({ data }) {
  let tries = 0;
  const start = () => {
    const heading = document.querySelector('[data-testid="stMain"] h1');
    if (!heading) { if (tries++ < 60) requestAnimationFrame(start); return; }
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
    const main = document.querySelector('[data-testid="stMain"]');
    if (main) main.scrollTop = 0;
  };
  start();
}
"""

_start = st.components.v2.component("fairval_screen_start", html="<span hidden></span>", js=_START_JS)
SCREEN = "rater_screen"          # the rater's step this session last drew
OWN_FOCUS = ("item", "practice")  # the answer card puts the focus on the question itself


def screen_start(step: str) -> None:
    """On a new screen of this session (not the first drawn, where the browser starts at the top), the focus
    goes to its heading."""
    last, st.session_state[SCREEN] = st.session_state.get(SCREEN), step
    if last is not None and last != step and step not in OWN_FOCUS:
        _start(data={"screen": step}, key="fairval-screen-start")


def error_into_view(times: int) -> None:
    """Scroll the page's first form error into view; `times` counts the errors shown this session, so a
    second press of the same button, with the same line, scrolls again."""
    _component(data={"shown": times}, key="fairval-error-into-view")
