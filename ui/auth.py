"""Researcher sign-in: every researcher page calls require_researcher() first and stops without it.

After the password is given, the browser keeps a signed, expiring cookie (set by a one-line custom
component, since Streamlit has no API to set one), so a reload or a typed address does not ask again.
The signature is keyed by the password itself: changing the password signs everyone out.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import time

import streamlit as st

from store import sign_ins
from ui.common import get_db

PAGES = [("pages/1_Results.py", "Results"), ("pages/2_Calibration.py", "Calibration"),
         ("pages/3_Manage.py", "Manage"), ("pages/4_Export.py", "Export")]
COOKIE = "fairval_researcher"
LIFETIME = 12 * 3600                     # seconds a sign-in lasts
_SIGNED_IN, _SIGNED_OUT = "researcher_key", "researcher_signed_out"
_SET_COOKIE, _CLEAR_COOKIE = "researcher_set_cookie", "researcher_clear_cookie"    # done on the next run
_TOKEN = "researcher_token"              # this session's sign-in, to revoke on sign-out

_cookie_writer = st.components.v2.component(
    "fairval_cookie", html="<span hidden></span>",
    js="""export default function ({ data }) {
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${data.name}=${data.value}; Path=/; Max-Age=${data.max_age}; SameSite=Strict${secure}`;
}""")


def configured_password() -> str | None:
    """From the environment (FAIRVAL_RESEARCHER_PASSWORD) or Streamlit secrets (researcher_password)."""
    password = os.environ.get("FAIRVAL_RESEARCHER_PASSWORD")
    if password:
        return password
    try:
        return st.secrets.get("researcher_password") or None
    except Exception:  # no secrets file at all: Streamlit raises rather than returning empty
        return None


def _key(password: str) -> bytes:
    return hashlib.sha256(b"fairval researcher\x00" + password.encode()).digest()


def issue_token(password: str, now: float | None = None) -> str:
    """`<expiry>.<signature>`: valid until expiry for this password, and nothing else."""
    expires = int((time.time() if now is None else now) + LIFETIME)
    signature = hmac.new(_key(password), str(expires).encode(), hashlib.sha256).hexdigest()
    return f"{expires}.{signature}"


def valid_token(token: str, password: str, now: float | None = None) -> bool:
    expires, _, signature = token.partition(".")
    if not expires.isdigit():
        return False
    expected = hmac.new(_key(password), expires.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(signature, expected) and int(expires) > (time.time() if now is None else now)


def revoke_token(db, token: str) -> None:
    """Sign-out: the token stops working everywhere at once (the cookie's removal may not reach the
    browser before the tab closes)."""
    expires, _, signature = token.partition(".")
    if expires.isdigit() and signature:
        sign_ins.revoke(db, signature, float(expires), time.time())


def _revoked(token: str) -> bool:
    return sign_ins.is_revoked(get_db(), token.partition(".")[2])


def is_researcher() -> bool:
    """Signed in in this session, or a valid sign-in cookie came with the page."""
    password = configured_password()
    if password is None:
        return False
    fingerprint = _key(password).hex()
    if st.session_state.get(_SIGNED_IN) == fingerprint:
        return True
    token = st.context.cookies.get(COOKIE)
    if (isinstance(token, str) and not st.session_state.get(_SIGNED_OUT) and valid_token(token, password)
            and not _revoked(token)):
        st.session_state[_SIGNED_IN] = fingerprint
        st.session_state[_TOKEN] = token
        return True
    return False


def require_researcher() -> None:
    """Show a sign-in form and stop the page unless this browser signed in with the password."""
    password = configured_password()
    if password is None:
        st.error("Researcher pages are locked: no password is configured. Set the environment "
                 "variable FAIRVAL_RESEARCHER_PASSWORD or `researcher_password` in "
                 ".streamlit/secrets.toml, then reload.")
        st.stop()
    if is_researcher():
        _navigation()
        return
    if st.session_state.pop(_CLEAR_COOKIE, False):        # just signed out: forget the cookie too
        _cookie_writer(data={"name": COOKIE, "value": "", "max_age": 0}, key="clear-researcher-cookie")
    st.title("Researcher sign-in")
    with st.form("sign-in"):
        given = st.text_input("Password", type="password")
        if st.form_submit_button("Sign in"):
            if hmac.compare_digest(given.encode(), password.encode()):
                st.session_state[_SIGNED_IN] = _key(password).hex()
                st.session_state.pop(_SIGNED_OUT, None)
                st.session_state[_SET_COOKIE] = st.session_state[_TOKEN] = issue_token(password)
                st.rerun()
            st.error("That password is not right.")
    st.stop()


def _navigation() -> None:
    token = st.session_state.pop(_SET_COOKIE, None)
    if token is not None:
        _cookie_writer(data={"name": COOKIE, "value": token, "max_age": LIFETIME}, key="set-researcher-cookie")
    with st.sidebar:
        for path, label in PAGES:
            st.page_link(path, label=label)
        if st.button("Sign out"):
            for token in {st.session_state.pop(_TOKEN, None), st.context.cookies.get(COOKIE)} - {None}:
                revoke_token(get_db(), token)
            st.session_state.pop(_SIGNED_IN, None)
            st.session_state[_SIGNED_OUT] = True
            st.session_state[_CLEAR_COOKIE] = True
            st.rerun()
