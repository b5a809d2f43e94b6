"""`fairval serve --tls-cert --tls-key --http-port`: HTTPS at the HAProxy front with a self-signed
certificate, in a real Chromium: the study runs, plain HTTP is redirected to HTTPS, the responses carry
HSTS, and the researcher's sign-in cookie is Secure and __Host- prefixed, Streamlit's XSRF cookie Secure."""
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.request

import pytest

from fairval.annotate.material.demo import ensure_demo
from fairval.store import open_db
from tests.e2e.conftest import PASSWORD, ROOT, free_port, wait_text

pytestmark = pytest.mark.e2e


def self_signed(folder):
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


def answers(url: str, within: float = 120) -> bool:
    unverified = ssl._create_unverified_context()                      # the test's own self-signed certificate
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2, context=unverified).status == 200:
                return True
        except OSError:
            time.sleep(0.3)
    return False


def test_a_study_over_https(browser, tmp_path):
    db = open_db(tmp_path / "d.db")
    ensure_demo(db)
    db.close()
    cert, key = self_signed(tmp_path)
    port, plain = free_port(), free_port()
    log = open(tmp_path / "serve.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(tmp_path / "d.db"),
         "serve", "--port", str(port), "--address", "127.0.0.1", "--tls-cert", str(cert), "--tls-key", str(key),
         "--http-port", str(plain)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "FAIRVAL_RESEARCHER_PASSWORD": PASSWORD, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"})
    url = f"https://127.0.0.1:{port}"
    try:
        assert answers(url), (tmp_path / "serve.log").read_text()
        unverified = ssl._create_unverified_context()
        page_answer = urllib.request.urlopen(f"{url}/", context=unverified, timeout=10)
        assert page_answer.headers["Strict-Transport-Security"] == "max-age=31536000"

        class Stay(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None
        with pytest.raises(urllib.error.HTTPError) as moved:
            urllib.request.build_opener(Stay).open(f"http://127.0.0.1:{plain}/?study=demo-templates", timeout=10)
        assert moved.value.code == 301
        assert moved.value.headers["Location"] == f"https://127.0.0.1:{port}/?study=demo-templates"

        context = browser.new_context(ignore_https_errors=True)
        page = context.new_page()
        page.goto(f"{url}/?study=demo-templates&rater=tls-rater")
        page.get_by_role("button", name="I agree to take part").click()
        wait_text(page, "About you")
        page.goto(f"{url}/Results")
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        wait_text(page, "Items complete")
        deadline = time.monotonic() + 30
        while not [c for c in context.cookies() if c["name"] == "__Host-fairval_researcher"] and time.monotonic() < deadline:
            time.sleep(0.2)
        cookie = next(c for c in context.cookies() if c["name"] == "__Host-fairval_researcher")
        assert cookie["secure"] and cookie["httpOnly"] and cookie["path"] == "/"
        assert not [c for c in context.cookies() if c["name"] == "fairval_researcher"]
        xsrf = next(c for c in context.cookies() if c["name"] == "_streamlit_xsrf")
        assert xsrf["secure"], xsrf
        again = context.new_page()                       # a new tab: signed in by the __Host- cookie alone
        again.goto(f"{url}/Results")
        wait_text(again, "Items complete")
        context.close()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
