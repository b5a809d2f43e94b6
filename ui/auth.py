"""Researcher sign-in: every researcher page calls require_researcher() first and stops without it.

The password is checked here (in constant time, with a back-off per client after repeated wrong
ones); the session is signed in at once. So that a reload or a typed address does not ask again, the
browser then takes a one-time grant to the server's cookie route (ui/sign_in_routes.py), which sets
the signed token as an HttpOnly, SameSite=Strict cookie (Secure over https) and sends it back to the
page: page scripts never see it. Tokens are signed with the server's secret (annotate/serving/sign_in.py) and
expire by the server's clock; sign-out revokes the token in the database, on every worker and host.
"""
from __future__ import annotations

import hashlib
import os
import time

import streamlit as st

from fairval.annotate.serving import sign_in
from fairval.store import sign_ins
from fairval.ui.common import get_db

PAGES = [("pages/1_Results.py", "Results"), ("pages/2_Calibration.py", "Calibration"),
         ("pages/3_Manage.py", "Manage"), ("pages/4_Export.py", "Export")]
COOKIE = "fairval_researcher"
LIFETIME = sign_in.LIFETIME
SIGN_IN_ROUTE, SIGN_OUT_ROUTE = "/fairval/sign-in", "/fairval/sign-out"
_SIGNED_IN, _SIGNED_OUT = "researcher_key", "researcher_signed_out"
_GRANT, _CLEAR_COOKIE = "researcher_grant", "researcher_clear_cookie"    # done on the next run
_TOKEN = "researcher_token"              # this session's sign-in, to revoke on sign-out

# Asks the server's cookie route in the background (the page stays as it is): the cookie comes in the
# route's HTTP response, HttpOnly, never from page script.
_go = st.components.v2.component(
    "fairval_cookie_route", html="<span hidden></span>",
    js="""export default function ({ data }) {
  const query = data.grant ? `?grant=${encodeURIComponent(data.grant)}` : "";
  fetch(`${data.route}${query}`, { method: data.method || "GET", credentials: "same-origin", cache: "no-store" });
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


def _fingerprint(password: str) -> str:
    """What a signed-in session holds: changes with the password, so changing it signs sessions out."""
    return hashlib.sha256(b"fairval researcher session\x00" + password.encode()).hexdigest()


def client_of() -> str:
    """Who is trying a password, for the back-off: the address HAProxy saw (its X-Forwarded-For, when
    the request came through it on this host), else the peer's address."""
    peer = st.context.ip_address
    peer = peer if isinstance(peer, str) and peer else "unknown"      # (no address in-process)
    forwarded = st.context.headers.get("X-Forwarded-For") if peer in ("127.0.0.1", "::1") else None
    return forwarded.split(",")[-1].strip() if isinstance(forwarded, str) and forwarded else peer


def is_researcher() -> bool:
    """Signed in in this session, or a valid sign-in cookie came with the page."""
    password = configured_password()
    if password is None:
        return False
    if st.session_state.get(_SIGNED_IN) == _fingerprint(password):
        # every run checks the sign-in is still valid: a sign-out in another tab (or on another host)
        # revoked the token this session holds, and ends this session too, at its next interaction
        token = st.session_state.get(_TOKEN)
        if token is None or not sign_ins.is_revoked(get_db(), sign_in.signature_of(token)):
            return True
        st.session_state.pop(_SIGNED_IN, None)
        st.session_state.pop(_TOKEN, None)
        st.session_state[_SIGNED_OUT] = True
        return False
    token = st.context.cookies.get(COOKIE)
    if not isinstance(token, str) or st.session_state.get(_SIGNED_OUT):
        return False
    db = get_db()
    if sign_in.valid_token(token, sign_in.server_secret(db), password) and \
            not sign_ins.is_revoked(db, sign_in.signature_of(token)):
        st.session_state[_SIGNED_IN] = _fingerprint(password)
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
    if st.session_state.pop(_CLEAR_COOKIE, False):        # just signed out: the server expires the cookie
        _go(data={"route": SIGN_OUT_ROUTE, "grant": None, "method": "POST"}, key="clear-researcher-cookie")
    st.title("Researcher sign-in")
    with st.form("sign-in"):
        given = st.text_input("Password", type="password")
        if st.form_submit_button("Sign in"):
            _try(given, password)
    st.stop()


def _try(given: str, password: str) -> None:
    db, client = get_db(), client_of()
    wait = sign_in.wait_before_next_try(db, client)
    if wait > 0:
        st.error(f"Too many wrong passwords from this address: try again in {int(wait)} seconds.")
        return
    if not sign_in.password_matches(given, password):
        sign_in.wrong_password(db, client)
        st.error("That password is not right.")
        return
    sign_in.right_password(db, client)
    token = sign_in.issue_token(sign_in.server_secret(db), password)
    st.session_state[_SIGNED_IN] = _fingerprint(password)
    st.session_state.pop(_SIGNED_OUT, None)
    st.session_state[_TOKEN] = token
    st.session_state[_GRANT] = sign_in.grant(db, token)
    st.rerun()


def _navigation() -> None:
    code = st.session_state.pop(_GRANT, None)
    if code is not None:
        _go(data={"route": SIGN_IN_ROUTE, "grant": code}, key="set-researcher-cookie")
    with st.sidebar:
        for path, label in PAGES:
            st.page_link(path, label=label)
        if st.button("Sign out"):
            for token in {st.session_state.pop(_TOKEN, None), st.context.cookies.get(COOKIE)} - {None}:
                expires = sign_in.token_expires(token)
                if expires is not None:
                    sign_ins.revoke(get_db(), sign_in.signature_of(token), expires, time.time())
            st.session_state.pop(_SIGNED_IN, None)
            st.session_state[_SIGNED_OUT] = True
            st.session_state[_CLEAR_COOKIE] = True
            st.rerun()
