"""Researcher sign-in: every researcher page calls require_researcher() first and stops without it."""
from __future__ import annotations

import hmac
import os

import streamlit as st

PAGES = [("pages/1_Results.py", "Results"), ("pages/2_Calibration.py", "Calibration"),
         ("pages/3_Manage.py", "Manage"), ("pages/4_Export.py", "Export")]


def configured_password() -> str | None:
    """From the environment (FAIRVAL_RESEARCHER_PASSWORD) or Streamlit secrets (researcher_password)."""
    password = os.environ.get("FAIRVAL_RESEARCHER_PASSWORD")
    if password:
        return password
    try:
        return st.secrets.get("researcher_password") or None
    except Exception:  # no secrets file at all: Streamlit raises rather than returning empty
        return None


def require_researcher() -> None:
    """Show a sign-in form and stop the page unless this session signed in with the password."""
    password = configured_password()
    if password is None:
        st.error("Researcher pages are locked: no password is configured. Set the environment "
                 "variable FAIRVAL_RESEARCHER_PASSWORD or `researcher_password` in "
                 ".streamlit/secrets.toml, then reload.")
        st.stop()
    if st.session_state.get("researcher") == password:
        _navigation()
        return
    st.title("Researcher sign-in")
    with st.form("sign-in"):
        given = st.text_input("Password", type="password")
        if st.form_submit_button("Sign in"):
            if hmac.compare_digest(given.encode(), password.encode()):
                st.session_state["researcher"] = password
                st.rerun()
            st.error("That password is not right.")
    st.stop()


def _navigation() -> None:
    with st.sidebar:
        for path, label in PAGES:
            st.page_link(path, label=label)
        if st.button("Sign out"):
            st.session_state.pop("researcher", None)
            st.rerun()
