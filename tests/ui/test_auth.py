"""The researcher's sign-in: a token signed with the server's secret and the password, valid for the
server's lifetime from the server's issue time and for nothing else; a one-time grant turned into an
HttpOnly cookie by the server's route; a back-off after repeated wrong passwords; revocation shared by
every process."""
import hashlib
import hmac

import pytest
from starlette.testclient import TestClient

from fairval.annotate.serving import sign_in
from fairval.annotate.serving.sign_in import LIFETIME, issue_token, valid_token
from fairval.store import open_db, sign_ins

NOW = 1_800_000_000.0
SECRET = "server-secret"


def test_a_token_is_valid_for_the_servers_lifetime_from_its_issue():
    token = issue_token(SECRET, "s3cret", now=NOW)
    assert valid_token(token, SECRET, "s3cret", now=NOW)
    assert valid_token(token, SECRET, "s3cret", now=NOW + LIFETIME - 1)
    assert not valid_token(token, SECRET, "s3cret", now=NOW + LIFETIME)


def test_a_token_is_bound_to_the_password_and_the_servers_secret():
    token = issue_token(SECRET, "s3cret", now=NOW)
    assert not valid_token(token, SECRET, "changed", now=NOW)
    assert not valid_token(token, "another-server", "s3cret", now=NOW)


def test_knowing_the_password_is_not_enough_to_mint_a_token():
    """The old scheme's attack: an HMAC keyed by the password alone, with any expiry one likes."""
    issued, nonce = str(int(NOW + 3 * 365 * 86400)), "00"
    key = hashlib.sha256(b"fairval researcher\x00" + b"s3cret").digest()
    forged = f"{issued}.{nonce}.{hmac.new(key, f'{issued}.{nonce}'.encode(), hashlib.sha256).hexdigest()}"
    assert not valid_token(forged, SECRET, "s3cret", now=NOW)
    real = issue_token(SECRET, "s3cret", now=NOW)
    _, nonce, signature = real.split(".")
    assert not valid_token(f"{int(NOW) + 3 * 365 * 86400}.{nonce}.{signature}", SECRET, "s3cret", now=NOW)
    for junk in ("garbage", "", f"{int(NOW)}.{nonce}", f"{int(NOW)}.{nonce}.{'0' * 64}"):
        assert not valid_token(junk, SECRET, "s3cret", now=NOW)


def test_the_secret_is_made_once_and_shared_by_every_process(db_path, monkeypatch):
    monkeypatch.delenv("FAIRVAL_COOKIE_SECRET", raising=False)
    first, second = open_db(db_path), open_db(db_path)
    made = sign_in.server_secret(first)
    assert len(made) == 64 and sign_in.server_secret(second) == made
    monkeypatch.setenv("FAIRVAL_COOKIE_SECRET", "from-the-environment")
    assert sign_in.server_secret(second) == "from-the-environment"
    first.close(), second.close()


def test_a_revoked_sign_in_stays_revoked_for_every_process(db_path):
    first, second = open_db(db_path), open_db(db_path)
    token = issue_token(SECRET, "s3cret")
    sign_ins.revoke(first, sign_in.signature_of(token), sign_in.token_expires(token), NOW)
    assert sign_ins.is_revoked(second, sign_in.signature_of(token))
    assert not sign_ins.is_revoked(second, sign_in.signature_of(issue_token(SECRET, "s3cret")))
    first.close(), second.close()


def test_wrong_passwords_from_one_client_make_it_wait_longer_and_longer(db):
    waits = []
    for k in range(8):
        now = NOW + k
        waits.append(sign_in.wait_before_next_try(db, "203.0.113.9", f"name-{k}", now=now))   # a new name each
        sign_in.wrong_password(db, "203.0.113.9", f"name-{k}", now=now)
    assert waits[:5] == [0] * 5 and waits[5] > 0 and waits[7] > waits[6] > 0
    assert sign_in.wait_before_next_try(db, "198.51.100.1", "name-0", now=NOW + 8) == 0   # another client is free
    assert sign_in.wait_before_next_try(db, "203.0.113.9", "x", now=NOW + 8 + 15 * 60) == 0   # forgotten in time


def test_wrong_passwords_are_counted_at_the_name_too(db):
    """Guesses at one name from a new address each: the name's count holds them back."""
    waits = []
    for k in range(8):
        waits.append(sign_in.wait_before_next_try(db, f"198.51.100.{k}", "olga", now=NOW + k))
        sign_in.wrong_password(db, f"198.51.100.{k}", "olga", now=NOW + k)
    assert waits[:5] == [0] * 5 and waits[5] > 0 and waits[7] > waits[6] > 0
    assert sign_in.wait_before_next_try(db, "198.51.100.99", "vera", now=NOW + 8) == 0   # another name is free


def test_the_route_turns_a_grant_into_an_httponly_cookie_once(db, db_path, monkeypatch):
    monkeypatch.setenv("FAIRVAL_DB", str(db_path))
    from starlette.applications import Starlette

    from fairval.server.sign_in_routes import ROUTES
    client = TestClient(Starlette(routes=ROUTES))
    token = issue_token(SECRET, "s3cret")
    code, binding = sign_in.grant(db, token)
    client.cookies.set(sign_in.BINDING_COOKIE, binding, path="/fairval/sign-in")
    answer = client.get(f"/fairval/sign-in?grant={code}")
    assert answer.status_code == 204
    cookie = answer.headers["set-cookie"]
    assert f"fairval_researcher={token}" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Secure" not in cookie                                             # plain http here
    again = client.get(f"/fairval/sign-in?grant={code}")
    assert again.status_code == 403 and "fairval_researcher" not in again.headers.get("set-cookie", "")  # used once
    code, binding = sign_in.grant(db, token)
    client.cookies.set(sign_in.BINDING_COOKIE, binding, path="/fairval/sign-in")
    # under HTTPS only __Host- cookies count: a binding without the prefix (any page of the host, any port,
    # could have set it) redeems nothing, and the sign-in cookie is __Host-, Secure, for Path=/
    plain = client.get(f"/fairval/sign-in?grant={code}", headers={"X-Forwarded-Proto": "https"})
    assert plain.status_code == 403
    client.cookies.set("__Host-" + sign_in.BINDING_COOKIE, binding, path="/")
    secure = client.get(f"/fairval/sign-in?grant={code}", headers={"X-Forwarded-Proto": "https"})
    set_cookie = next(c for c in secure.headers.get_list("set-cookie") if c.startswith("__Host-fairval_researcher="))
    assert set_cookie.startswith(f"__Host-fairval_researcher={token};") and "Secure" in set_cookie, set_cookie
    assert "Path=/;" in set_cookie and "Domain" not in set_cookie, set_cookie
    out = client.post("/fairval/sign-out", headers={"Origin": str(client.base_url).rstrip("/")})
    assert 'fairval_researcher=""' in out.headers["set-cookie"] and "Max-Age=0" in out.headers["set-cookie"]


@pytest.mark.parametrize("expired_by", [1, LIFETIME])
def test_an_old_grant_is_refused(db, expired_by):
    code, binding = sign_in.grant(db, issue_token(SECRET, "s3cret"), now=NOW)
    assert sign_in.redeem(db, code, binding, now=NOW + sign_in.GRANT_SECONDS + expired_by) is None


def test_a_grant_is_handed_over_once_redeemed_or_expired(db):
    """What a signed-in page waits for before it draws (ui/auth.py, _navigation): the browser took its cookie."""
    code, binding = sign_in.grant(db, issue_token(SECRET, "s3cret"), now=NOW)
    assert not sign_in.handed_over(db, code, binding, now=NOW + 1)
    assert sign_in.handed_over(db, code, binding, now=NOW + sign_in.GRANT_SECONDS + 1)      # expired
    assert sign_in.redeem(db, code, binding, now=NOW + 1) is not None
    assert sign_in.handed_over(db, code, binding, now=NOW + 1)                              # redeemed


def test_a_download_checks_a_single_sign_on_again_when_it_is_made(db):
    """A sign-in through the provider, held by a session (ui/sso.py) and checked again on the thread that makes a
    file (allowed): not past the ID token's expiry, not signed out, and the role still enough."""
    import time

    from fairval.ui.auth import allowed
    from fairval.ui.sso import SsoSignIn

    now = time.time()
    editor = SsoSignIn("ada@lab.example", "editor", now + 600, "sso-key-ada")
    assert allowed(db, editor, "editor").name == "ada@lab.example"
    assert allowed(db, editor, "owner") is None                                   # the role is not enough
    assert allowed(db, SsoSignIn("ada@lab.example", "editor", now - 1, "sso-key-ada"), "viewer") is None   # expired
    sign_ins.revoke(db, "sso-key-ada", now + 600, now)                             # signed out
    assert allowed(db, editor, "viewer") is None
