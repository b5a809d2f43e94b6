"""Bring a form's error to where the rater is looking. When an error appears, Streamlit's page grows below
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


def error_into_view(times: int) -> None:
    """Scroll the page's first form error into view; `times` counts the errors shown this session, so a
    second press of the same button, with the same line, scrolls again."""
    _component(data={"shown": times}, key="fairval-error-into-view")
