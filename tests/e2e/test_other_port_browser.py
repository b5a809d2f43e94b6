"""A page on another port of the same host, in a real Chromium, where the browser's own cookie rules are the
point: to Chromium 127.0.0.1:9999 and 127.0.0.1:PORT are one *site*, so the researcher's SameSite=Strict
cookie goes with that page's websocket, and a cookie that page sets is sent to fairval too (cookies are not
kept apart by port). Neither may sign anyone in or drive a researcher's session."""
import http.server
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.studies import create_study
from fairval.annotate.serving import sign_in
from fairval.store import open_db
from tests.e2e.conftest import PASSWORD, ROOT, Server, free_port, wait_text

pytestmark = pytest.mark.e2e


def _other_port(html: str):
    """A plain HTTP server on another port of 127.0.0.1 that sends one page: the attacker's."""
    body = html.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    served = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=served.serve_forever, daemon=True).start()
    return served


def _sign_in(page, url: str) -> None:
    page.goto(f"{url}/Results")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "Results")


def test_a_page_on_another_port_gets_no_websocket_with_the_researchers_cookie(browser, tmp_path):
    """The researcher is signed in (cookie held); a page on another port of 127.0.0.1 opens Streamlit's
    websocket, as Streamlit's own frontend does, from the same browser: the handshake is refused, so no
    message of that page reaches a session (on main it opened, and a study was paused as the owner)."""
    db = open_db(tmp_path / "d.db")
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=5)
    db.close()
    server = Server(tmp_path / "d.db")
    attacker = _other_port(f"""<!doctype html><script>
      const ws = new WebSocket("ws://127.0.0.1:{server.port}/_stcore/stream", ["streamlit"]);
      ws.onopen = () => {{ document.title = "opened"; }};
      ws.onclose = () => {{ if (document.title !== "opened") document.title = "refused"; }};
    </script>""")
    try:
        context = browser.new_context()
        page = context.new_page()
        _sign_in(page, server.url)
        deadline = time.monotonic() + 30
        while not [c for c in context.cookies() if c["name"] == "fairval_researcher"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [c for c in context.cookies() if c["name"] == "fairval_researcher"], "the researcher is not signed in"
        other = context.new_page()
        other.goto(f"http://127.0.0.1:{attacker.server_address[1]}/")
        other.wait_for_function("document.title === 'opened' || document.title === 'refused'", timeout=30_000)
        assert other.title() == "refused"
        context.close()
    finally:
        attacker.shutdown()
        server.stop()


def test_under_https_a_cookie_planted_from_another_port_signs_nobody_in(browser, tmp_path):
    """An HTTP page on another port of the lab's host plants the attacker's own valid sign-in token, under
    the plain name and under the __Host- one; the same browser then opens fairval over HTTPS. Chromium keeps
    no Secure (so no __Host-) cookie from a plain-HTTP page of a named host, and fairval under HTTPS reads no
    other: the browser is not signed in. (The host is named, fairval.test mapped to 127.0.0.1: Chromium
    trusts http://127.0.0.1 and localhost as if they were HTTPS and keeps Secure cookies from them, which
    docs/security.md says.)"""
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.e2e.test_https_browser import answers, self_signed

    db = open_db(tmp_path / "d.db")
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=5)
    token = sign_in.issue_token(sign_in.server_secret(db), PASSWORD)
    db.close()
    cert, key = self_signed(tmp_path)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(tmp_path / "d.db"),
         "serve", "--port", str(port), "--address", "127.0.0.1", "--tls-cert", str(cert), "--tls-key", str(key)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "FAIRVAL_RESEARCHER_PASSWORD": PASSWORD, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"})
    attacker = _other_port(f"""<!doctype html><script>
      document.cookie = "fairval_researcher={token}; path=/; max-age=3600";
      document.cookie = "__Host-fairval_researcher={token}; path=/; max-age=3600; Secure";
      document.title = "planted";
    </script>""")
    url = f"https://fairval.test:{port}"
    try:
        assert answers(f"https://127.0.0.1:{port}")
        named = browser.browser_type.launch(            # a Chromium that finds fairval.test at 127.0.0.1
            executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP fairval.test 127.0.0.1"])
        try:
            _planted_cookie_signs_nobody_in(named, url, f"http://fairval.test:{attacker.server_address[1]}/")
        finally:
            named.close()
    finally:
        attacker.shutdown()
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)


def _planted_cookie_signs_nobody_in(browser, url: str, attacker_url: str) -> None:
    context = browser.new_context(ignore_https_errors=True)
    plant = context.new_page()
    plant.goto(attacker_url)
    plant.wait_for_function("document.title === 'planted'", timeout=30_000)
    names = {c["name"] for c in context.cookies()}
    assert "fairval_researcher" in names and "__Host-fairval_researcher" not in names, names
    page = context.new_page()
    page.goto(f"{url}/Results")
    form, signed_in = page.get_by_label("Password", exact=True), page.get_by_role("button", name="Sign out")
    form.or_(signed_in).first.wait_for(timeout=60_000)
    expect(form).to_be_visible()                                     # the sign-in form: nobody is signed in
    expect(signed_in).to_have_count(0)
    context.close()
