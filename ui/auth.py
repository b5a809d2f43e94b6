"""Researcher sign-in: every researcher page calls require_researcher() first and stops without it.

The password is checked here (in constant time, with a back-off per client after repeated wrong
ones); the session is signed in at once. So that a reload or a typed address does not ask again, the
browser then takes a one-time grant to the server's cookie route (server/sign_in_routes.py), which sets
the signed token as an HttpOnly, SameSite=Strict cookie (Secure over https) and sends it back to the
page: page scripts never see it. Tokens are signed with the server's secret (annotate/serving/sign_in.py) and
expire by the server's clock; sign-out revokes the token in the database, on every worker and host.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import os
import time
from dataclasses import dataclass

import streamlit as st

from fairval.annotate.serving import origins, sign_in
from fairval.store import audit, researchers, sign_ins
from fairval.store.researchers import ROLES
from fairval.ui import sso as sso_view
from fairval.ui.common import RESEARCHER_CSS, get_db, no_uploads_here

PAGES = [("pages/1_Results.py", "Results"), ("pages/2_Calibration.py", "Calibration"),
         ("pages/3_Manage.py", "Manage"), ("pages/4_Export.py", "Export")]
COOKIE = sign_in.COOKIE
LIFETIME = sign_in.LIFETIME
SIGN_IN_ROUTE, SIGN_OUT_ROUTE = "/fairval/sign-in", "/fairval/sign-out"
_SIGNED_IN, _SIGNED_OUT = "researcher_key", "researcher_signed_out"
_GRANT, _CLEAR_COOKIE = "researcher_grant", "researcher_clear_cookie"    # done on the next run
_TOKEN = "researcher_token"              # this session's sign-in, to revoke on sign-out
HANDOVER_WAIT = 15.0                     # seconds a signed-in page waits for the browser to take its cookie
_SSO = "researcher_sso"                  # this run's sign-in through the lab's provider (ui/sso.py)

# Asks the server's cookie route in the background (the page stays as it is): the cookie comes in the
# route's HTTP response, HttpOnly, never from page script.
_go = st.components.v2.component(
    "fairval_cookie_route", html="<span hidden></span>",
    js="""export default function ({ data }) {
  if (data.binding) {          // the grant's other half, which a link from elsewhere cannot bring
    // under HTTPS a __Host- cookie (Secure, Path=/): annotate/serving/sign_in.py, cookie_names
    const where = location.protocol === "https:" ? "__Host-fairval_grant=%s; path=/; Secure"
                                                  : "fairval_grant=%s; path=/fairval/sign-in";
    document.cookie = `${where.replace("%s", data.binding)}; max-age=60; SameSite=Strict`;
  }
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


FRONT_HEADER = "X-Fairval-Front"


def client_of() -> str:
    """Who is trying a password, for the back-off: the peer's address, or the address a trusted front
    saw (the last X-Forwarded-For entry, the one that front added). Trusted are only the HAProxy that
    `fairval serve --workers` starts (it sends FAIRVAL_FRONT_SECRET, which only it and its workers know)
    and the addresses named in FAIRVAL_TRUSTED_PROXIES (a lab's own front on other hosts). Anyone else's
    X-Forwarded-For, a client's reaching a worker's port or a single `fairval serve` directly, is ignored."""
    peer = st.context.ip_address
    # Streamlit says None for a connection from this machine (a front on it, or a page run in-process)
    peer = peer if isinstance(peer, str) and peer else "127.0.0.1"
    headers = st.context.headers
    forwarded = headers.get("X-Forwarded-For")
    if not isinstance(forwarded, str) or not forwarded.strip() or not trusted_front(peer, headers.get(FRONT_HEADER)):
        return peer
    return forwarded.split(",")[-1].strip() or peer


def trusted_front(peer: str, front_secret) -> bool:
    secret = os.environ.get("FAIRVAL_FRONT_SECRET", "")
    if secret and isinstance(front_secret, str) and hmac.compare_digest(front_secret.encode(), secret.encode()):
        return True
    return peer in os.environ.get("FAIRVAL_TRUSTED_PROXIES", "").replace(",", " ").split()


@dataclass(frozen=True)
class Identity:
    """Who may sign in: a named researcher, or the one shared password (name "", an owner)."""
    name: str
    role: str
    key: str                 # what their tokens are signed with: changes when their password does

    def may(self, role: str) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)

    def label(self, client: str) -> str:
        return self.name or f"researcher at {client}"


def identities(db) -> list[Identity]:
    """Named researchers when there are any (then the shared password no longer signs in), else the
    shared password, else nobody."""
    named = researchers.every(db)
    if named:
        return [Identity(r["name"], r["role"], f"researcher\x00{r['name']}\x00{r['password_hash']}") for r in named]
    password = configured_password()
    return [Identity("", "owner", password)] if password else []


def is_researcher() -> bool:
    return signed_in() is not None


def signed_in() -> Identity | None:
    """Who is signed in in this session, or by a valid sign-in cookie that came with the page. Checked on
    every run: a removed researcher, a changed password or a sign-out elsewhere ends it at once. Nobody is
    signed in in a session another page opened (its Origin is not fairval's own: annotate/serving/origins.py)."""
    headers = st.context.headers
    if not origins.is_own(headers.get("Origin"), headers.get("Host")):
        return None
    db = get_db()
    through_provider, _ = sso_view.current(db)
    if through_provider is not None:            # checked on every run: expiry, sign-out, role
        if st.session_state.get(_SSO) != through_provider:      # this session's first run with it
            audit.acting_as(through_provider.name, "page")
            audit.record(db, "sign-in", client=client_of(), through="single sign-on", role=through_provider.role)
        st.session_state[_SSO] = through_provider
        return Identity(through_provider.name, through_provider.role, through_provider.key)
    st.session_state.pop(_SSO, None)
    everyone = identities(db)
    if not everyone:
        return None
    held = st.session_state.get(_SIGNED_IN)
    for identity in everyone:
        if held == _fingerprint(identity.key):
            # an open tab's sign-in ends when its token does: expired or revoked, checked on every run
            token = st.session_state.get(_TOKEN)
            if token is not None and _holds(db, token, identity):
                return identity
            break
    if held is not None:
        st.session_state.pop(_SIGNED_IN, None)
        st.session_state.pop(_TOKEN, None)
        st.session_state[_SIGNED_OUT] = True
        return None
    token = _cookie()
    if not isinstance(token, str) or st.session_state.get(_SIGNED_OUT):
        return None
    for identity in everyone:
        if _holds(db, token, identity):
            st.session_state[_SIGNED_IN] = _fingerprint(identity.key)
            st.session_state[_TOKEN] = token
            return identity
    return None


def _cookie() -> str | None:
    """The sign-in cookie that came with the page: under HTTPS (the front says so) only the __Host- one,
    which no page of another port or scheme can have set."""
    forwarded = st.context.headers.get("X-Forwarded-Proto")
    secure = isinstance(forwarded, str) and forwarded.strip().lower() == "https"
    return st.context.cookies.get(sign_in.cookie_names(secure)[0])


def session_token() -> str | sso_view.SsoSignIn | None:
    """This session's sign-in token (or sign-in through the provider), for work done later on another thread
    (a download made on click), which must check it again then (allowed)."""
    return st.session_state.get(_SSO) or st.session_state.get(_TOKEN)


def allowed(db, token: str | sso_view.SsoSignIn | None, role: str) -> Identity | None:
    """Who the token signs in, if it still does (unexpired, not signed out, the password and researcher
    unchanged) and their role now allows `role`; else None. Without Streamlit: any thread may ask."""
    if isinstance(token, sso_view.SsoSignIn):
        identity = Identity(token.name, token.role, token.key)
        return identity if token.holds(db) and identity.may(role) else None
    if not isinstance(token, str):
        return None
    return next((i for i in identities(db) if _holds(db, token, i) and i.may(role)), None)


def _holds(db, token: str, identity: Identity) -> bool:
    """The token is this identity's, unexpired by the server's clock, and not signed out."""
    return (sign_in.valid_token(token, sign_in.server_secret(db), identity.key)
            and not sign_ins.is_revoked(db, sign_in.signature_of(token)))


def require_researcher(role: str = "viewer") -> Identity:
    """Show a sign-in form and stop the page unless this browser signed in; then stop it, with a sentence,
    unless the researcher's role allows `role` (checked here, on the server, each run)."""
    no_uploads_here()                        # another page than Import's has no uploader
    st.html(RESEARCHER_CSS)
    db = get_db()
    everyone = identities(db)
    provider = sso_view.configured()
    if not everyone and provider is None:
        no_uploads_here(whatever_page=True)
        st.error("Researcher pages are locked: no password is configured. Set the environment "
                 "variable FAIRVAL_RESEARCHER_PASSWORD or `researcher_password` in "
                 ".streamlit/secrets.toml, add a researcher (`fairval researcher add NAME --role owner`), or name "
                 "the lab's identity provider (FAIRVAL_OIDC_METADATA_URL: docs/deployment.md), then reload.")
        st.stop()
    identity = signed_in()
    if identity is not None:
        # what this run changes is recorded as done by the signed-in researcher (one shared password:
        # named by the address they came from)
        audit.acting_as(identity.label(client_of()), "page")
        _navigation(st.session_state.get(_SSO))
        if not identity.may(role):
            no_uploads_here(whatever_page=True)
            who = (f"{sso_view.plain(identity.name) or 'you'} {'is' if identity.name else 'are'} "
                   f"{'an' if identity.role[0] in 'aeiou' else 'a'} {identity.role}")
            how = (f"{provider.name}'s role claim or fairval's lists (FAIRVAL_OIDC_EDITORS, …) decide it"
                   if provider is not None and st.session_state.get(_SSO) is not None
                   else "An owner can change it (`fairval researcher set NAME --role …`)")
            st.error(f"This page needs the {role} role or above; {who}. {how}.")
            st.stop()
        return identity
    no_uploads_here(whatever_page=True)                    # the sign-in form is all this page draws
    if st.session_state.pop(_CLEAR_COOKIE, False):        # just signed out: the server expires the cookie
        _go(data={"route": SIGN_OUT_ROUTE, "grant": None, "method": "POST"}, key="clear-researcher-cookie")
    st.title("Researcher sign-in")
    if provider is not None:
        _, refused = sso_view.current(db)
        if refused:
            st.error(refused)
        sso_view.offer(provider)
    if everyone:
        named = bool(everyone[0].name)
        with st.form("sign-in"):
            name = st.text_input("Name") if named else ""
            given = st.text_input("Password", type="password")
            if st.form_submit_button("Sign in"):
                _try(db, everyone, name.strip(), given)
    st.stop()


def _try(db, everyone: list[Identity], name: str, given: str) -> None:
    client = client_of()
    wait = sign_in.wait_before_next_try(db, client, name)
    if wait > 0:
        st.error(f"Too many wrong passwords from this address or for this name: try again in {int(wait)} seconds.")
        return
    identity = _check(db, everyone, name, given)
    # a failed sign-in is nobody yet: the typed name is not its actor (it could be anything, a line break
    # and a forged line included); it is kept only when it names a researcher (not a password typed there)
    audit.acting_as(identity.label(client) if identity else f"unknown name at {client}", "page")
    if identity is None:
        sign_in.wrong_password(db, client, name)
        known = name if name and researchers.get(db, name) is not None else None
        audit.record(db, "sign-in.failed", client=client, name=known)
        st.error("That name and password do not match." if everyone[0].name else "That password is not right.")
        return
    audit.record(db, "sign-in", client=client)
    token = sign_in.issue_token(sign_in.server_secret(db), identity.key)
    st.session_state[_SIGNED_IN] = _fingerprint(identity.key)
    st.session_state.pop(_SIGNED_OUT, None)
    st.session_state[_TOKEN] = token
    st.session_state[_GRANT] = sign_in.grant(db, token)
    st.rerun()


def _check(db, everyone: list[Identity], name: str, given: str) -> Identity | None:
    if not everyone[0].name:                                     # the shared password
        return everyone[0] if sign_in.password_matches(given, everyone[0].key) else None
    found = researchers.get(db, name)
    # an unknown name costs the same scrypt as a known one: the answer's time says nothing about names
    stored = found["password_hash"] if found else _decoy()
    matches = sign_in.hash_matches(given, stored)
    if found is None or not matches:
        return None
    if sign_in.outdated(stored):
        # made at an older, cheaper cost: made again at today's. The key their tokens are signed with
        # changes with the hash, so this sign-in's token is made from the new one.
        researchers.change(db, name, password_hash=sign_in.hash_password(given))
        audit.record(db, "researcher.rehash", name=name)
        everyone = identities(db)
    return next((i for i in everyone if i.name == name), None)


@functools.cache
def _decoy() -> str:
    return sign_in.hash_password("not a password anyone has")


def _navigation(through_provider: sso_view.SsoSignIn | None) -> None:
    granted = st.session_state.get(_GRANT)
    if granted is not None:
        code, binding = granted
        _go(data={"route": SIGN_IN_ROUTE, "grant": code, "binding": binding}, key="set-researcher-cookie")
        # The page is drawn once the browser holds the cookie: drawn before, a reload or an address typed the
        # moment it showed found the sign-in form (the cookie's request was seen 0.2 s after the page's text on
        # a phone). A browser slower than HANDOVER_WAIT gets the page anyway, and the handover is drawn again on
        # each run until its grant is used or expired (a run that dropped it could end it before it ran).
        # (A session with no Host header has no browser to take a cookie: AppTest's; it does not wait.)
        waits = bool(st.context.headers.get("Host"))
        db, deadline = get_db(), time.monotonic() + (HANDOVER_WAIT if waits else 0)
        while not sign_in.handed_over(db, code, binding) and time.monotonic() < deadline:
            time.sleep(0.05)
        if sign_in.handed_over(db, code, binding) or not waits:
            st.session_state.pop(_GRANT, None)
    with st.sidebar:
        for path, label in PAGES:
            st.page_link(path, label=label)
        if st.button("Sign out"):
            if through_provider is not None:
                audit.record(get_db(), "sign-out")
                sso_view.sign_out(get_db(), through_provider)
            for token in {st.session_state.pop(_TOKEN, None), _cookie()} - {None}:
                sign_in.revoke(get_db(), token)
            audit.record(get_db(), "sign-out")
            st.session_state.pop(_SIGNED_IN, None)
            st.session_state[_SIGNED_OUT] = True
            st.session_state[_CLEAR_COOKIE] = True
            st.rerun()
