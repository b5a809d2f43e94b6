"""Single sign-on for researchers, in Debian's Chromium, against a real OpenID Connect provider the test starts on
127.0.0.1 (node-oidc-provider, tests/oidc/), through `fairval serve --workers 2` (HAProxy in front):
- a researcher whose ID token's role claim says viewer reads Results and is refused Manage (editors') in one
  sentence naming the role; one on the owners' allow-list opens Manage. The provider's answer is taken by the
  other worker than the one that sent the browser there (the worker cookie is switched in between);
- a researcher the provider knows but no claim or list gives a role is told so in one line, and is not in (a
  name with Markdown and HTML in it is shown as written);
- an expired sign-in (the browser's identity cookie as it is after the ID token's `exp`, re-signed with the
  server's secret the way Streamlit signs it) is refused with a line saying it expired;
- Sign out ends the sign-in through the provider's end-session page; the identity cookie taken before it, played
  back in another browser, no longer signs anyone in;
- the password sign-in stays beside the provider's button, and the rater's page shows neither."""
from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.serving.sso import derived_cookie_secret
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import Server, free_port, wait_text
from tests.oidc.provider import OidcProvider

pytestmark = pytest.mark.e2e

PROVIDER_NAME = "Lab ID"
COOKIE_SECRET = "sso-browser-test-" + "k" * 32
HOSTILE = "![eve](http://127.0.0.1:9/x.png) **Eve** <b>x</b>"
ACCOUNTS = {
    "ada": {"email": "ada@lab.example", "email_verified": True, "name": "Ada", "fairval_role": "viewer"},
    "olu": {"email": "olu@lab.example", "email_verified": True, "name": "Olu"},              # on the owners' list
    "mal": {"email": "mal@elsewhere.example", "email_verified": True, "name": "Mal"},        # on no list, no claim
    "eve": {"name": HOSTILE},                              # a display name a researcher may set herself, no email
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from fairval.store import open_db

    folder = tmp_path_factory.mktemp("e2e-sso")
    db = open_db(folder / "fairval.db")
    ensure_demo(db)
    db.close()
    port, provider_port = free_port(), free_port()
    url = f"http://127.0.0.1:{port}"
    provider = OidcProvider(provider_port, clients=[{
        "client_id": "fairval", "client_secret": "a client secret the provider and fairval share",
        "redirect_uris": [url + "/oauth2callback"], "post_logout_redirect_uris": [url + "/oauth2callback"]}],
        accounts=ACCOUNTS)
    env = {"FAIRVAL_PUBLIC_URL": url, "FAIRVAL_COOKIE_SECRET": COOKIE_SECRET,
           "FAIRVAL_OIDC_METADATA_URL": provider.metadata_url, "FAIRVAL_OIDC_CLIENT_ID": "fairval",
           "FAIRVAL_OIDC_CLIENT_SECRET": "a client secret the provider and fairval share",
           "FAIRVAL_OIDC_NAME": PROVIDER_NAME, "FAIRVAL_OIDC_ROLE_CLAIM": "fairval_role",
           "FAIRVAL_OIDC_OWNERS": "olu@lab.example",
           # node-oidc-provider takes prompt none, login or consent (not Streamlit's default select_account)
           "FAIRVAL_OIDC_PROMPT": "login"}
    try:
        fairval = Server(folder / "fairval.db", env=env, workers=2, port=port)
    except Exception:
        provider.stop()
        raise
    fairval.provider = provider
    yield fairval
    fairval.stop()
    provider.stop()


def _sign_in(page, server, account: str, *, other_worker: bool = False) -> None:
    """From a researcher page, through the provider's own sign-in page and back."""
    page.goto(server.url + "/Results")
    _to_provider(page, server)
    if other_worker:
        _switch_worker(page, server)
    page.locator("input[name=login]").fill(account)
    page.locator("input[name=password]").fill("any password: the provider's development sign-in page")
    page.locator("button[type=submit]").click()
    page.wait_for_url(server.url + "/Results**", timeout=60_000)


def _to_provider(page, server) -> None:
    """Click the provider's button once the page has settled. On a loaded machine a click was once seen to leave
    the browser on /Results for 60 s (CI, stop 68: no navigation at all). While the page still shows the button,
    it is clicked again, three times at most: what these tests check is where the sign-in leads."""
    button = page.get_by_role("button", name=f"Sign in with {PROVIDER_NAME}")
    for attempt in range(3):
        bot.settle(page)
        button.click()
        try:
            page.wait_for_url(server.provider.issuer + "/**", timeout=20_000)
            return
        except PlaywrightTimeout:
            if attempt == 2 or not page.url.startswith(server.url):
                raise


def _switch_worker(page, server) -> None:
    """HAProxy's worker cookie (w0/w1, front.py) turned to the other worker: the provider's answer lands there."""
    cookies = page.context.cookies(server.url)
    sticky = next(c for c in cookies if c["name"] == "fairval_worker")
    page.context.add_cookies([{**sticky, "value": "w1" if sticky["value"] == "w0" else "w0"}])


def _alerts(page) -> list[str]:
    bot.settle(page)
    return [a.inner_text().strip() for a in page.get_by_test_id("stAlert").filter(visible=True).all()]


def test_the_role_claim_and_the_allow_list_give_roles(server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(server.url + "/")                              # the rater's way: no sign-in of any kind
        wait_text(page, "opened from a study link")
        assert page.get_by_role("button", name=f"Sign in with {PROVIDER_NAME}").count() == 0
        _sign_in(page, server, "ada", other_worker=True)
        wait_text(page, "Items complete")
        expect(page.get_by_role("button", name="Sign out")).to_be_visible()
        page.goto(server.url + "/Manage")
        wait_text(page, "needs the editor role")
        assert _alerts(page) == ["This page needs the editor role or above; ada@lab.example is a viewer. "
                                 f"{PROVIDER_NAME}'s role claim or fairval's lists (FAIRVAL_OIDC_EDITORS, …) "
                                 "decide it."]
    finally:
        context.close()
    context = browser.new_context()
    page = context.new_page()
    try:
        _sign_in(page, server, "olu")
        page.goto(server.url + "/Manage")
        wait_text(page, "Manage studies")
        assert _alerts(page) == [] or all("needs the" not in a for a in _alerts(page))
    finally:
        context.close()


def test_a_user_no_list_holds_is_told_in_one_line(server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        _sign_in(page, server, "mal")
        wait_text(page, "none of fairval's researcher lists")
        assert _alerts(page) == [f"mal@elsewhere.example signed in through {PROVIDER_NAME}, but is on none of "
                                 "fairval's researcher lists: ask the lab's owner to add you."]
        # not in: the sign-in form stays, with the password beside the provider's button
        expect(page.get_by_role("textbox", name="Password")).to_be_visible()     # drawn after the alert
        assert page.get_by_text("Items complete").count() == 0
    finally:
        context.close()
    context = browser.new_context()
    page = context.new_page()
    try:
        _sign_in(page, server, "eve")                  # her name is shown as she wrote it: no image, no bold
        wait_text(page, "none of fairval's researcher lists")
        assert _alerts(page) == [f"{HOSTILE} signed in through {PROVIDER_NAME}, but is on none of fairval's "
                                 "researcher lists: ask the lab's owner to add you."]
        alert = page.get_by_test_id("stAlert")
        assert alert.locator("img, a, strong, b").count() == 0
    finally:
        context.close()


def _identity_cookie(context, server) -> dict:
    return next(c for c in context.cookies(server.url) if c["name"] == "_streamlit_user")


def test_an_expired_sign_in_is_refused(server, browser):
    """The identity cookie of a browser whose ID token has expired: Streamlit keeps such a cookie for 30 days, so
    this is what the researcher's browser holds after `exp`. Its claims are back-dated by an hour and it is signed
    again with the server's secret (as Streamlit's callback signs it), standing for the clock an hour on."""
    from streamlit.web.server.starlette.starlette_app_utils import create_signed_value, decode_signed_value

    context = browser.new_context()
    page = context.new_page()
    try:
        _sign_in(page, server, "ada")
        wait_text(page, "Items complete")
        cookie = _identity_cookie(context, server)
        secret = derived_cookie_secret(COOKIE_SECRET)
        claims = json.loads(decode_signed_value(secret, "_streamlit_user", cookie["value"].encode("latin-1")))
        assert claims["exp"] > time.time()                       # the provider's token was valid when given
        lifetime = claims["exp"] - claims["iat"]
        claims.update(iat=int(time.time()) - 3600 - lifetime, exp=int(time.time()) - 3600)
        expired = create_signed_value(secret, "_streamlit_user", json.dumps(claims)).decode("latin-1")
        context.add_cookies([{**cookie, "value": expired}])
        page.goto(server.url + "/Results")
        wait_text(page, "has expired")
        assert _alerts(page) == [f"The sign-in of ada@lab.example through {PROVIDER_NAME} has expired: sign in again."]
        assert page.get_by_text("Items complete").count() == 0
    finally:
        context.close()


def test_sign_out_ends_the_sign_in_everywhere(server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        _sign_in(page, server, "ada")
        wait_text(page, "Items complete")
        taken = _identity_cookie(context, server)
        page.get_by_role("button", name="Sign out").click()
        # the provider's end-session page asks, then sends the browser back through the callback
        page.wait_for_url(server.provider.issuer + "/**", timeout=60_000)
        page.get_by_role("button", name="Yes, sign me out").click()
        page.wait_for_url(server.url + "/Results**", timeout=60_000)
        page.get_by_role("button", name=f"Sign in with {PROVIDER_NAME}").wait_for(timeout=60_000)
        assert "_streamlit_user" not in {c["name"] for c in context.cookies(server.url)}
        assert page.get_by_text("Items complete").count() == 0
    finally:
        context.close()
    # the cookie taken before the sign-out, played back: Streamlit would still take it, fairval does not
    context = browser.new_context()
    page = context.new_page()
    try:
        context.add_cookies([taken])
        page.goto(server.url + "/Results")
        page.get_by_role("button", name=f"Sign in with {PROVIDER_NAME}").wait_for(timeout=60_000)
        bot.settle(page)
        assert page.get_by_text("Items complete").count() == 0
        assert _alerts(page) == []
    finally:
        context.close()
