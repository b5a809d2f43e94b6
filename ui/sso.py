"""Researcher sign-in through the lab's OpenID Connect provider (annotate/serving/sso.py), the Streamlit side:
who st.user is as a fairval sign-in, checked on every run (expired, signed out, refused); the button that
starts st.login; and the sign-out, which ends this ID token's sign-in in every tab and on every worker before
Streamlit's st.logout clears the cookie and asks the provider to end its session too."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass

import streamlit as st

from fairval.annotate.serving import sign_in, sso
from fairval.errors import ServeRefused
from fairval.store import sign_ins


@dataclass(frozen=True)
class SsoSignIn:
    """A researcher signed in through the provider: what a download made later on another thread checks again."""
    name: str
    role: str
    expires: float          # the ID token's exp
    key: str                # what a sign-out revokes (sso.revocation_key)

    def holds(self, db, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        return now < self.expires and not sign_ins.is_revoked(db, self.key)


def configured() -> sso.Settings | None:
    try:
        return sso.settings()
    except ServeRefused:            # `fairval serve` refused to start with these; an in-process page shows no button
        return None


def current(db, now: float | None = None) -> tuple[SsoSignIn | None, str | None]:
    """This session's sign-in through the provider, or None and, when someone is signed in there but not here,
    the one line that says why (expired, or on none of the lists)."""
    given = configured()
    if given is None:
        return None, None
    user = st.user
    if not user.get("is_logged_in"):
        return None, None
    claims = {k: v for k, v in user.to_dict().items() if k != "tokens"}
    name = sso.who(claims)
    end = sso.expires(claims)
    now = time.time() if now is None else now
    if end is None or now >= end:
        return None, f"The sign-in of {plain(name)} through {given.name} has expired: sign in again."
    key = sso.revocation_key(claims)
    if sign_ins.is_revoked(db, key):
        return None, None                                   # signed out in fairval: the form, as after any sign-out
    role = sso.role_for(claims, given)
    if role is None:
        return None, (f"{plain(name)} signed in through {given.name}, but is on none of fairval's researcher lists: "
                      "ask the lab's owner to add you.")
    return SsoSignIn(name, role, end, key), None


def plain(text: str) -> str:
    """A name the provider gave (a researcher may set their own) shown as written, in a code span: no Markdown or
    address in it is read, so no image is fetched and no link drawn. The fence is longer than any run of
    backticks in it (CommonMark)."""
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if "`" in text else f"{fence}{text}{fence}"


def offer(given: sso.Settings) -> None:
    """The button that sends the browser to the provider (Streamlit's /auth/login, then its /oauth2callback)."""
    if st.button(f"Sign in with {given.name}", type="primary"):
        st.login()
        st.stop()


def sign_out(db, signed: SsoSignIn) -> None:
    """Revoked until the ID token would have expired anyway (then its row is forgotten), then Streamlit clears
    its identity cookie and sends the browser to the provider's end-session page, which returns to fairval."""
    now = time.time()
    sign_ins.revoke(db, signed.key, signed.expires, now, forget_before=now - 2 * sign_in.CLOCK_SKEW)
    st.logout()
    st.stop()
