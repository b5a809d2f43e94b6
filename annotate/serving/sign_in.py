"""Researcher sign-in, without Streamlit: the signed token a cookie carries, the one-time grant that
turns a checked password into an HttpOnly cookie, and the back-off after wrong passwords.

A token is `<issued>.<nonce>.<signature>`, signed with a key derived from the server's secret
(FAIRVAL_COOKIE_SECRET, or one made on first use and kept in the database, so every worker and host
shares it) and the password: without the secret, a stolen cookie allows no offline guessing of the
password, and nobody can mint one. Its lifetime is the server's: a token is valid from the moment the
server issued it for LIFETIME, whatever the cookie says. Changing the password signs everyone out.
"""
from __future__ import annotations

import hashlib
import hmac
import math
import os
import secrets
import time
from pathlib import Path

from fairval.errors import ServeRefused
from fairval.store import Connection, sign_ins

LIFETIME = 12 * 3600                 # seconds a sign-in lasts, from the server's issue time
CLOCK_SKEW = 60                      # a token issued this far "in the future" (another host's clock) is accepted
GRANT_SECONDS = 60                   # a sign-in grant is redeemed within this, once
FREE_ATTEMPTS = 5                    # wrong passwords from a client before it must wait
WINDOW = 15 * 60                     # wrong passwords older than this are forgotten
MAX_WAIT = 15 * 60


def server_secret(db: Connection) -> str:
    """FAIRVAL_COOKIE_SECRET, or the contents of the file FAIRVAL_COOKIE_SECRET_FILE names; else one made on
    first use and kept in the database. Kept outside it, a copy of the database (a backup) mints no cookie."""
    return configured_secret() or sign_ins.secret(db, secrets.token_hex(32))


def configured_secret() -> str | None:
    given = os.environ.get("FAIRVAL_COOKIE_SECRET")
    if given:
        return given
    path = os.environ.get("FAIRVAL_COOKIE_SECRET_FILE")
    if not path:
        return None
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except OSError as e:
        raise ServeRefused(f"cannot read the cookie secret file {path} (FAIRVAL_COOKIE_SECRET_FILE): {e.strerror}") from None
    if len(text) < 32:
        raise ServeRefused(f"the cookie secret in {path} is {len(text)} characters; use at least 32 "
                           "(e.g. `openssl rand -hex 32`)")
    return text


def _key(secret: str, password: str) -> bytes:
    return hmac.new(secret.encode(), b"fairval researcher\x00" + password.encode(), hashlib.sha256).digest()


def issue_token(secret: str, password: str, now: float | None = None) -> str:
    issued = int(time.time() if now is None else now)
    nonce = secrets.token_hex(8)
    signature = hmac.new(_key(secret, password), f"{issued}.{nonce}".encode(), hashlib.sha256).hexdigest()
    return f"{issued}.{nonce}.{signature}"


def token_expires(token: str) -> float | None:
    issued = token.split(".", 1)[0]
    return float(issued) + LIFETIME if issued.isdigit() else None


def valid_token(token: str, secret: str, password: str, now: float | None = None) -> bool:
    parts = str(token).split(".")
    if len(parts) != 3 or not parts[0].isdigit():
        return False
    issued, nonce, signature = parts
    expected = hmac.new(_key(secret, password), f"{issued}.{nonce}".encode(), hashlib.sha256).hexdigest()
    now = time.time() if now is None else now
    return hmac.compare_digest(signature, expected) and int(issued) <= now + CLOCK_SKEW and now < int(issued) + LIFETIME


def revoke(db: Connection, token: str, now: float | None = None) -> None:
    """Sign a token out on every worker and host. Its row is kept until no host could take the token as
    valid any more: past its expiry by the clock skew a host may have either way (the revoking one too)."""
    expires = token_expires(token)
    if expires is None:
        return
    now = time.time() if now is None else now
    sign_ins.revoke(db, signature_of(token), expires, now, forget_before=now - 2 * CLOCK_SKEW)


def signature_of(token: str) -> str:
    return str(token).rpartition(".")[2]


# OWASP's Password Storage Cheat Sheet: scrypt with N=2^17, r=8, p=1 (128 MiB and about 0.3 s a check
# here). Hashes made at a lower cost still verify, and are made again at this one on a right password.
SCRYPT = {"n": 2 ** 17, "r": 8, "p": 1}
MAXMEM = 256 * 1024 * 1024                     # scrypt needs 128·N·r bytes; the standard library allows 32 MiB


def hash_password(password: str) -> str:
    """A salted scrypt hash, as stored for a named researcher: scrypt$n$r$p$salt$hash (hex)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, maxmem=MAXMEM, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${salt.hex()}${digest.hex()}"


def hash_matches(given: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        found = hashlib.scrypt(given.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32,
                               maxmem=MAXMEM)
    except ValueError:
        return False
    return hmac.compare_digest(found.hex(), digest)


def outdated(stored: str) -> bool:
    """Whether a stored hash was made at a lower cost than SCRYPT (made again at the next right password)."""
    parts = stored.split("$")
    try:
        return len(parts) != 6 or parts[0] != "scrypt" or [int(x) for x in parts[1:4]] != [SCRYPT[k] for k in "nrp"]
    except ValueError:
        return True


def password_matches(given: str, password: str) -> bool:
    """In constant time (of the password's length: both are hashed first)."""
    return hmac.compare_digest(hashlib.sha256(given.encode()).digest(), hashlib.sha256(password.encode()).digest())


BINDING_COOKIE = "fairval_grant"
COOKIE = "fairval_researcher"
HOST_ONLY = "__Host-"


def cookie_names(secure: bool) -> tuple[str, str]:
    """The sign-in cookie's and the grant binding's names. Under HTTPS they carry the __Host- prefix: a
    browser takes such a cookie only when it is Secure, for Path=/, with no Domain, from an HTTPS page, so
    no plain-HTTP page on another port of the host (cookies are not kept apart by port) and no sibling
    domain can plant one to sign a researcher's browser into the attacker's account. Plain HTTP cannot be
    defended so (docs/security.md)."""
    return (HOST_ONLY + COOKIE, HOST_ONLY + BINDING_COOKIE) if secure else (COOKIE, BINDING_COOKIE)


def grant(db: Connection, token: str, now: float | None = None) -> tuple[str, str]:
    """A one-time (code, binding) the page takes to the cookie route, which sets the token as an HttpOnly
    cookie. The code goes in the route's address, the binding in a short-lived cookie the page sets first:
    only the browser whose page asked holds both, so a link with someone else's code (a login CSRF: signing
    a victim into the attacker's account) redeems nothing. Only their hash is stored."""
    now = time.time() if now is None else now
    code, binding = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    sign_ins.add_grant(db, _grant_key(code, binding), token, now + GRANT_SECONDS, now)
    return code, binding


def redeem(db: Connection, code: str, binding: str | None, now: float | None = None) -> str | None:
    if not code or not binding:
        return None
    return sign_ins.redeem_grant(db, _grant_key(str(code), str(binding)), time.time() if now is None else now)


def handed_over(db: Connection, code: str, binding: str, now: float | None = None) -> bool:
    """Whether the grant is done with: redeemed by the browser (it holds the cookie now) or expired."""
    return not sign_ins.grant_open(db, _grant_key(code, binding), time.time() if now is None else now)


def _grant_key(code: str, binding: str) -> str:
    return hashlib.sha256(f"{code}\x00{binding}".encode()).hexdigest()


def _counted(client: str, account: str) -> tuple[str, str]:
    """What wrong passwords are counted against: the address they came from and the name they were for
    (the shared password's is ""), so neither rotating addresses nor rotating names escapes the back-off."""
    return f"address {client}", f"account {account[:200]}"


def wait_before_next_try(db: Connection, client: str, account: str = "", now: float | None = None) -> float:
    """Seconds before a password for this name from this client is checked again: none for the first few
    wrong ones at either, then doubling (2, 4, 8 … s, at most 15 min) from the last one."""
    now = time.time() if now is None else now
    return max(_wait(sign_ins.failures(db, key, now - WINDOW), now) for key in _counted(client, account))


def _wait(failed: list[float], now: float) -> float:
    if len(failed) < FREE_ATTEMPTS:
        return 0.0
    wait = min(MAX_WAIT, 2.0 ** (len(failed) - FREE_ATTEMPTS + 1))
    return max(0.0, math.ceil(failed[-1] + wait - now))


def wrong_password(db: Connection, client: str, account: str = "", now: float | None = None) -> None:
    """Counted at the address and at the name. A right password clears neither: an insider's own
    sign-ins between guesses at another name, or the owner's, must not give the guesser more tries;
    wrong passwords are forgotten after WINDOW instead."""
    now = time.time() if now is None else now
    for key in _counted(client, account):
        sign_ins.record_failure(db, key, now, now - WINDOW)
