"""Single sign-on for researchers, without Streamlit: the settings (environment), what Streamlit's st.login is
given for them (its `[auth]` secrets), and which fairval role a provider's claims give.

A lab names its OpenID Connect provider in the environment (FAIRVAL_OIDC_*, docs/deployment.md); `fairval serve`
hands it to Streamlit as programmatic secrets (serve.py), so nothing is written to a secrets file. Streamlit runs
the protocol (Authlib: the code flow with PKCE, the ID token's signature, issuer, audience, nonce and expiry
checked at the callback) and keeps the ID token's claims in a signed cookie for 30 days. fairval decides on every
run: a sign-in holds until the ID token's `exp` (the provider's word for how long it stands), unless signed out
in fairval, and gives the highest role that the role claim names or an allow-list holds the researcher in;
nobody else is signed in. A password sign-in stays for labs without a provider, and beside it.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from pathlib import Path

from fairval.errors import ServeRefused
from fairval.store.researchers import ROLES

CALLBACK = "/oauth2callback"           # Streamlit's route for the provider's answer
LANDING = "/Results"                   # where a researcher lands after signing in or out (server/sso_landing.py)
_LISTS = {role: f"FAIRVAL_OIDC_{role.upper()}S" for role in ROLES}     # FAIRVAL_OIDC_VIEWERS, …_EDITORS, …_OWNERS


@dataclass(frozen=True)
class Settings:
    metadata_url: str
    client_id: str
    client_secret: str
    redirect_uri: str
    name: str                           # the provider as the button names it
    role_claim: str | None
    lists: dict[str, frozenset[str]]    # role -> emails and subjects (lower case)
    prompt: str | None


def settings(env: os._Environ | dict | None = None) -> Settings | None:
    """The lab's provider, or None when no FAIRVAL_OIDC_METADATA_URL is set. Incomplete settings are refused in
    one line naming what is missing (ServeRefused), as `fairval serve` says before it starts."""
    env = os.environ if env is None else env
    url = env.get("FAIRVAL_OIDC_METADATA_URL", "").strip()
    if not url:
        stray = sorted(k for k in env if k.startswith("FAIRVAL_OIDC_") and env[k].strip())
        if stray:
            raise ServeRefused(f"{stray[0]} is set but FAIRVAL_OIDC_METADATA_URL is not: name the provider's "
                               "discovery document (https://…/.well-known/openid-configuration)")
        return None
    if not url.startswith(("https://", "http://127.0.0.1:", "http://localhost:")):
        raise ServeRefused(f"FAIRVAL_OIDC_METADATA_URL {url!r}: a provider is reached over https (plain http only "
                           "on this machine)")
    client_id = env.get("FAIRVAL_OIDC_CLIENT_ID", "").strip()
    secret = _client_secret(env)
    public = env.get("FAIRVAL_PUBLIC_URL", "").split()
    for missing, value in (("FAIRVAL_OIDC_CLIENT_ID", client_id),
                           ("FAIRVAL_OIDC_CLIENT_SECRET (or FAIRVAL_OIDC_CLIENT_SECRET_FILE)", secret),
                           ("FAIRVAL_PUBLIC_URL (the address the provider sends researchers back to)", public)):
        if not value:
            raise ServeRefused(f"single sign-on needs {missing}")
    lists = {role: frozenset(_entries(env.get(var, ""))) for role, var in _LISTS.items()}
    claim = env.get("FAIRVAL_OIDC_ROLE_CLAIM", "").strip() or None
    if claim is None and not any(lists.values()):
        raise ServeRefused("single sign-on gives nobody a role: set FAIRVAL_OIDC_ROLE_CLAIM (a claim naming viewer, "
                           "editor or owner) or an allow-list (FAIRVAL_OIDC_VIEWERS, _EDITORS, _OWNERS)")
    return Settings(url, client_id, secret, public[0].rstrip("/") + CALLBACK,
                    env.get("FAIRVAL_OIDC_NAME", "").strip() or "single sign-on", claim, lists,
                    env.get("FAIRVAL_OIDC_PROMPT", "").strip() or None)


def _client_secret(env) -> str:
    given = env.get("FAIRVAL_OIDC_CLIENT_SECRET", "").strip()
    path = env.get("FAIRVAL_OIDC_CLIENT_SECRET_FILE", "").strip()
    if given or not path:
        return given
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as e:
        raise ServeRefused(f"cannot read FAIRVAL_OIDC_CLIENT_SECRET_FILE {path}: {e.strerror}") from None


def _entries(text: str) -> list[str]:
    return [e.lower() for e in re.split(r"[\s,]+", text) if e]


def require_authlib() -> None:
    """Streamlit's st.login needs Authlib (the `sso` extra): refused before anything starts when it is missing."""
    try:
        import authlib  # noqa: F401
    except ImportError:
        raise ServeRefused("single sign-on needs Authlib: pip install 'fairval[sso]'") from None


def streamlit_secrets(given: Settings, server_secret: str) -> dict:
    """Streamlit's `[auth]` section for the provider. Its cookie secret is derived from fairval's server secret
    (FAIRVAL_COOKIE_SECRET or the database's), so every worker and host signs and reads the same identity
    cookie, and a restart keeps researchers signed in."""
    auth: dict = {"redirect_uri": given.redirect_uri, "cookie_secret": derived_cookie_secret(server_secret),
                  "client_id": given.client_id, "client_secret": given.client_secret,
                  "server_metadata_url": given.metadata_url}
    if given.prompt:
        auth["client_kwargs"] = {"prompt": given.prompt}
    return {"auth": auth}


def derived_cookie_secret(server_secret: str) -> str:
    return hmac.new(server_secret.encode(), b"fairval streamlit identity cookie", hashlib.sha256).hexdigest()


def who(claims: dict) -> str:
    """How the audit trail and the pages name a signed-in researcher: their email, else their name, else subject."""
    for key in ("email", "name", "preferred_username", "sub"):
        value = claims.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:200]
    return "a researcher without a name"


def role_for(claims: dict, given: Settings) -> str | None:
    """The highest role the claims give: the role claim's value(s) that name a role, and each allow-list holding
    the researcher's email (unless the provider says it is unverified) or subject. None: refused."""
    found: set[str] = set()
    if given.role_claim:
        value = claims.get(given.role_claim)
        values = value if isinstance(value, list) else [value]
        found |= {v.strip().lower() for v in values if isinstance(v, str)} & set(ROLES)
    names = set()
    if isinstance(claims.get("sub"), str):
        names.add(claims["sub"].lower())
    if isinstance(claims.get("email"), str) and claims.get("email_verified") is not False:
        names.add(claims["email"].strip().lower())
    found |= {role for role, listed in given.lists.items() if names & listed}
    return max(found, key=ROLES.index) if found else None


def expires(claims: dict) -> float | None:
    """When the sign-in ends: the ID token's `exp`; None when it has none (then it is refused)."""
    exp = claims.get("exp")
    return float(exp) if isinstance(exp, int | float) and not isinstance(exp, bool) else None


def revocation_key(claims: dict) -> str:
    """What a sign-out in fairval revokes (store/sign_ins, until `exp`): this one ID token's sign-in, in every
    tab and on every worker that holds its cookie."""
    parts = [str(claims.get(k, "")) for k in ("iss", "sub", "iat", "exp", "nonce")]
    return "sso-" + hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:40]
