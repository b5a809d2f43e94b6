"""The researcher side tried as an attacker would: a sign-out link on another site, a page framed by another
origin, and a tab left signed in after its researcher signed out in another."""
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from fairval.ui.headers import SecurityHeaders
from fairval.ui.sign_in_routes import COOKIE, ROUTES
from tests.ui.apptest import page, titles


def test_sign_out_is_a_post_from_the_apps_own_pages():
    client = TestClient(Starlette(routes=ROUTES), base_url="http://lab.example")
    assert client.get("/fairval/sign-out").status_code == 405                  # a link cannot do it
    foreign = client.post("/fairval/sign-out", headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403 and COOKIE not in foreign.headers.get("set-cookie", "")
    assert client.post("/fairval/sign-out", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    own = client.post("/fairval/sign-out", headers={"Origin": "http://lab.example"})
    assert own.status_code == 204 and f"{COOKIE}=" in own.headers["set-cookie"] and "Max-Age=0" in own.headers["set-cookie"]


def test_no_other_site_may_frame_a_page(monkeypatch):
    app = Starlette(routes=[Route("/", lambda r: PlainTextResponse("page"))], middleware=[Middleware(SecurityHeaders)])
    headers = TestClient(app).get("/").headers
    assert headers["content-security-policy"] == "frame-ancestors 'self'" and headers["x-frame-options"] == "SAMEORIGIN"
    assert headers["x-content-type-options"] == "nosniff"
    monkeypatch.setenv("FAIRVAL_FRAME_ANCESTORS", "https://lab.example")
    app = Starlette(routes=[Route("/", lambda r: PlainTextResponse("page"))], middleware=[Middleware(SecurityHeaders)])
    headers = TestClient(app).get("/").headers
    assert headers["content-security-policy"] == "frame-ancestors 'self' https://lab.example"
    assert "x-frame-options" not in headers


def test_signing_out_in_one_tab_ends_the_other(db, monkeypatch):
    from fairval.ui import auth

    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    first = page("1_Results.py")
    first.text_input[0].input("s3cret")
    first.button[0].click().run()
    assert titles(first) != ["Researcher sign-in"]
    # a second tab of the same browser, signed in by the same cookie (the same token)
    second = page("1_Results.py")
    second.session_state[auth._SIGNED_IN] = first.session_state[auth._SIGNED_IN]
    second.session_state[auth._TOKEN] = first.session_state[auth._TOKEN]
    second.run()
    assert titles(second) != ["Researcher sign-in"]
    first.sidebar.button[0].click().run()                                        # Sign out
    assert titles(first) == ["Researcher sign-in"]
    second.run()                                                                  # its next interaction
    assert titles(second) == ["Researcher sign-in"]
