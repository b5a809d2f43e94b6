"""Single sign-on behind `fairval serve --tls-cert --tls-key` (HAProxy ends TLS): the identity cookies Streamlit sets
at the provider's answer (`_streamlit_user`, `_streamlit_user_tokens`) reach the browser marked Secure, keeping
HttpOnly and SameSite. Streamlit sets them without Secure and has no setting for it (1.67,
web/server/starlette/starlette_auth_routes.py, _set_single_cookie); HAProxy adds it to every cookie of an HTTPS
answer. In Debian's Chromium, against node-oidc-provider on 127.0.0.1 (tests/oidc/)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from fairval.annotate.material.demo import ensure_demo
from fairval.store import open_db
from tests.e2e.conftest import PASSWORD, ROOT, free_port, wait_text
from tests.e2e.test_https_browser import answers, self_signed
from tests.oidc.provider import OidcProvider

pytestmark = pytest.mark.e2e

PROVIDER_NAME = "Lab ID"
SECRET = "a client secret the provider and fairval share"


def test_the_identity_cookie_is_secure_over_https(browser, tmp_path):
    db = open_db(tmp_path / "d.db")
    ensure_demo(db)
    db.close()
    cert, key = self_signed(tmp_path)
    port, provider_port = free_port(), free_port()
    url = f"https://127.0.0.1:{port}"
    provider = OidcProvider(provider_port, clients=[{
        "client_id": "fairval", "client_secret": SECRET, "redirect_uris": [url + "/oauth2callback"],
        "post_logout_redirect_uris": [url + "/oauth2callback"]}],
        accounts={"ada": {"email": "ada@lab.example", "email_verified": True, "name": "Ada",
                          "fairval_role": "viewer"}})
    env = {**os.environ, "FAIRVAL_RESEARCHER_PASSWORD": PASSWORD, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none",
           "FAIRVAL_PUBLIC_URL": url, "FAIRVAL_COOKIE_SECRET": "sso-https-test-" + "k" * 32,
           "FAIRVAL_OIDC_METADATA_URL": provider.metadata_url, "FAIRVAL_OIDC_CLIENT_ID": "fairval",
           "FAIRVAL_OIDC_CLIENT_SECRET": SECRET, "FAIRVAL_OIDC_NAME": PROVIDER_NAME,
           "FAIRVAL_OIDC_ROLE_CLAIM": "fairval_role", "FAIRVAL_OIDC_PROMPT": "login"}
    log = open(tmp_path / "serve.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(tmp_path / "d.db"),
         "serve", "--port", str(port), "--address", "127.0.0.1", "--tls-cert", str(cert), "--tls-key", str(key)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    context = browser.new_context(ignore_https_errors=True)
    set_cookies: list[str] = []               # every Set-Cookie header fairval's HTTPS answers carried
    try:
        assert answers(url), (tmp_path / "serve.log").read_text()
        page = context.new_page()
        page.on("response", lambda r: set_cookies.extend(
            h["value"] for h in r.headers_array() if h["name"].lower() == "set-cookie" and r.url.startswith(url)))
        page.goto(url + "/Results")
        page.get_by_role("button", name=f"Sign in with {PROVIDER_NAME}").click()
        page.wait_for_url(provider.issuer + "/**", timeout=60_000)
        page.locator("input[name=login]").fill("ada")
        page.locator("input[name=password]").fill("any password: the provider's development sign-in page")
        page.locator("button[type=submit]").click()
        page.wait_for_url(url + "/Results**", timeout=60_000)
        wait_text(page, "Items complete")
        identity = [c for c in set_cookies if c.startswith("_streamlit_user=")]
        assert identity, set_cookies
        for header in identity + [c for c in set_cookies if c.startswith("_streamlit_user_tokens=")]:
            attributes = [a.strip().lower() for a in header.split(";")[1:]]
            assert "secure" in attributes and "httponly" in attributes and "samesite=lax" in attributes, header
            assert attributes.count("secure") == 1, header
        jar = next(c for c in context.cookies() if c["name"] == "_streamlit_user")
        assert jar["secure"] and jar["httpOnly"] and jar["sameSite"] == "Lax", jar
        # no cookie of an HTTPS answer goes without Secure (the worker's, the XSRF one, the researcher's)
        assert all("secure" in [a.strip().lower() for a in c.split(";")[1:]] for c in set_cookies), set_cookies
    finally:
        context.close()
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
        provider.stop()
