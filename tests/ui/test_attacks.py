"""The researcher side tried as an attacker would: a sign-out link on another site, a page framed by another
origin, and a tab left signed in after its researcher signed out in another."""
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from fairval.server.headers import SecurityHeaders
from fairval.server.sign_in_routes import COOKIE, ROUTES
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


def test_an_open_tab_is_signed_out_when_its_sign_in_expires(db, monkeypatch):
    """The tab's session holds a sign-in issued LIFETIME ago (a tab left open overnight): its next run
    shows the sign-in form, though nothing revoked it."""
    from fairval.annotate.serving import sign_in
    from fairval.ui import auth

    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    tab = page("1_Results.py")
    tab.text_input[0].input("s3cret")
    tab.button[0].click().run()
    assert titles(tab) != ["Researcher sign-in"]
    issued = int(sign_in.token_expires(tab.session_state[auth._TOKEN])) - sign_in.LIFETIME
    # the same sign-in as the server issued it, back-dated by a lifetime and a second
    tab.session_state[auth._TOKEN] = sign_in.issue_token(sign_in.server_secret(db), "s3cret",
                                                         now=issued - sign_in.LIFETIME - 1)
    tab.run()
    assert titles(tab) == ["Researcher sign-in"]


def test_a_sign_out_holds_on_a_host_whose_clock_is_behind(db):
    """Revocation rows are forgotten only once no host could take the token as valid: a host 30 s behind
    the one that purges still refuses the signed-out token."""
    from fairval.annotate.serving import sign_in
    from fairval.store import sign_ins

    now = 1_800_000_000.0
    token = sign_in.issue_token("secret", "s3cret", now=now)
    sign_in.revoke(db, token, now=now + 60)
    expires = sign_in.token_expires(token)
    sign_in.revoke(db, sign_in.issue_token("secret", "other", now=expires), now=expires + 1)   # purges old rows
    behind = expires - 30
    assert sign_in.valid_token(token, "secret", "s3cret", now=behind)          # that host would take it …
    assert sign_ins.is_revoked(db, sign_in.signature_of(token))                 # … but it stays signed out
    sign_in.revoke(db, sign_in.issue_token("secret", "other", now=expires), now=expires + 10 * sign_in.CLOCK_SKEW)
    assert not sign_ins.is_revoked(db, sign_in.signature_of(token))             # and is forgotten after


def test_an_insiders_guesses_between_its_own_sign_ins_are_held_back(db, monkeypatch):
    """A viewer guesses the owner's password four times, then signs in as itself, and again: its own right
    password clears nothing, so the owner's name is held back after five wrong ones."""
    from fairval.annotate.serving.sign_in import hash_password
    from fairval.store import audit, researchers

    researchers.add(db, "olga", "owner", hash_password("owner-pass"))
    researchers.add(db, "vera", "viewer", hash_password("viewer-pass"))
    told = []
    for round_ in range(3):
        for k in range(4):
            tab = page("1_Results.py")
            tab.text_input[0].input("olga")
            tab.text_input[1].input(f"guess-{round_}-{k}")
            tab.button[0].click().run()
            told.append(" ".join(e.value for e in tab.error))
        own = page("1_Results.py")
        own.text_input[0].input("vera")
        own.text_input[1].input("viewer-pass")
        own.button[0].click().run()
    held = [t for t in told if "Too many wrong passwords" in t]
    checked = [r for r in audit.entries(db) if r["action"] == "sign-in.failed"]
    assert len(told) == 12 and len(held) >= 3 and len(checked) <= 9, told


FORGED = "olga\n2026-11-26 09:00:00 UTC  olga (cli)  researcher.remove  name=vera\x1b[2J\x1b]0;owned\x07"


def test_a_name_typed_on_the_sign_in_form_forges_no_audit_line(db, db_path, monkeypatch, tmp_path):
    """A failed sign-in with a line break and terminal escapes in its name: `fairval audit` prints it as
    "unknown name at CLIENT", one line, with no escape reaching the terminal. A backup is in the trail."""
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    from fairval.annotate.serving.sign_in import hash_password
    from fairval.store import researchers

    researchers.add(db, "olga", "owner", hash_password("owner-pass"))
    tab = page("1_Results.py")
    tab.text_input[0].input(FORGED)
    tab.text_input[1].input("guess")
    tab.button[0].click().run()
    assert tab.error, "the sign-in was refused"
    backup = CliRunner().invoke(cli, ["--db", str(db_path), "backup", str(tmp_path / "copy.db")])
    assert backup.exit_code == 0, backup.output
    printed = CliRunner().invoke(cli, ["--db", str(db_path), "audit"]).output
    lines = printed.splitlines()
    assert not any(line.startswith("2026-11-26 09:00:00 UTC") for line in lines), printed
    assert "\x1b" not in printed and "\x07" not in printed
    failed = [line for line in lines if "sign-in.failed" in line]
    assert len(failed) == 1 and "unknown name at 127.0.0.1 (page)" in failed[0], printed
    assert "name=" not in failed[0]                  # not a researcher's name: not kept (it may be a password)
    backed_up = [line for line in lines if "  backup  " in line]
    assert len(backed_up) == 1 and str((tmp_path / "copy.db").resolve()) in backed_up[0], printed


def test_a_known_name_is_kept_with_a_failed_sign_in_and_printed_escaped(db, db_path):
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    from fairval.annotate.serving.sign_in import hash_password
    from fairval.store import audit, researchers

    name = "o\u202eaglo"                              # a right-to-left override inside a researcher's name
    researchers.add(db, name, "owner", hash_password("owner-pass"))
    tab = page("1_Results.py")
    tab.text_input[0].input(name)
    tab.text_input[1].input("guess")
    tab.button[0].click().run()
    assert [r["details"]["name"] for r in audit.entries(db) if r["action"] == "sign-in.failed"] == [name]
    printed = CliRunner().invoke(cli, ["--db", str(db_path), "audit"]).output
    assert "name=o\\u202eaglo" in printed and "\u202e" not in printed


def test_with_the_cookie_secret_in_a_file_a_copy_of_the_database_mints_no_sign_in(db, monkeypatch, tmp_path):
    """FAIRVAL_COOKIE_SECRET_FILE: the secret that signs sign-in cookies is read from a file outside the
    database, so a backup of it holds no key to a cookie; the page's tokens are signed with the file's."""
    from fairval.annotate.serving import sign_in
    from fairval.ui import auth

    secret = "a" * 64
    (tmp_path / "cookie-secret").write_text(secret + "\n")
    monkeypatch.delenv("FAIRVAL_COOKIE_SECRET", raising=False)
    monkeypatch.setenv("FAIRVAL_COOKIE_SECRET_FILE", str(tmp_path / "cookie-secret"))
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    tab = page("1_Results.py")
    tab.text_input[0].input("s3cret")
    tab.button[0].click().run()
    assert titles(tab) != ["Researcher sign-in"]
    assert db.scalar("SELECT COUNT(*) FROM server_secrets") == 0                 # nothing in the database
    assert sign_in.valid_token(tab.session_state[auth._TOKEN], secret, "s3cret")
    (tmp_path / "cookie-secret").write_text("short\n")
    with pytest.raises(Exception, match="at least 32"):
        sign_in.server_secret(db)


def test_a_link_with_someone_elses_grant_signs_no_browser_in(db, db_path, monkeypatch):
    """Login CSRF: an attacker signs in, keeps the grant's code and sends a victim the route's link. The
    victim's browser has not the grant's binding cookie (only the page that asked set it): no cookie. The
    attacker's own browser, with it, still redeems the grant."""
    from fairval.annotate.serving import sign_in

    monkeypatch.setenv("FAIRVAL_DB", str(db_path))
    code, binding = sign_in.grant(db, sign_in.issue_token("secret", "attacker's"))
    victim = TestClient(Starlette(routes=ROUTES), base_url="http://lab.example")
    lured = victim.get(f"/fairval/sign-in?grant={code}", headers={"Sec-Fetch-Site": "cross-site"})
    assert lured.status_code == 403 and COOKIE not in lured.headers.get("set-cookie", "")
    victim.cookies.set(sign_in.BINDING_COOKIE, "a guess", path="/fairval/sign-in")
    assert victim.get(f"/fairval/sign-in?grant={code}").status_code == 403
    attacker = TestClient(Starlette(routes=ROUTES), base_url="http://lab.example")
    attacker.cookies.set(sign_in.BINDING_COOKIE, binding, path="/fairval/sign-in")
    assert attacker.get(f"/fairval/sign-in?grant={code}").status_code == 204
