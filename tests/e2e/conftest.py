"""A real Streamlit server on 127.0.0.1 and Debian's Chromium driven by Playwright."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bench.streamlit_server import healthy
from fairval.annotate.serving.server import free_port
from tests.conftest import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PASSWORD = "e2e-pass"


class Server:
    def __init__(self, db_path: Path | str, env: dict | None = None, workers: int = 1, port: int | None = None):
        self.db_path = db_path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environment = {**os.environ, "FAIRVAL_DB": str(db_path), "FAIRVAL_RESEARCHER_PASSWORD": PASSWORD,
                       **(env or {})}
        self.log_path = Path(tempfile.mkstemp(prefix="fairval-serve-", suffix=".log")[1])
        self.log = open(self.log_path, "w")
        # The real command a researcher runs: `fairval serve`.
        fairval = [sys.executable, "-c", "from fairval.annotate.cli.main import main; main()"]
        self.process = subprocess.Popen(
            [*fairval, "--db", str(db_path), "serve", "--port", str(self.port), "--address", "127.0.0.1",
             "--workers", str(workers)],
            cwd=ROOT, env={**environment, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"},
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        if healthy(self.url, within=120, process=self.process):
            return
        self.stop()
        raise RuntimeError(f"streamlit did not start; log: {self.log_path.read_text()}")

    def stop(self) -> None:
        # `fairval serve` waits on streamlit: end the whole process group it leads
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test says what its pages showed then, and the server's last lines: CI keeps only
    the output, and a wait that timed out names a locator, not the page it looked at."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    browser = item.funcargs.get("browser")
    for context in getattr(browser, "contexts", []):
        for page in context.pages:
            with contextlib.suppress(Exception):
                hidden = page.evaluate("""() => [...document.querySelectorAll('[data-testid]')]
                    .filter(e => e.offsetParent === null && e.dataset.testid.startsWith('st'))
                    .map(e => e.dataset.testid).slice(0, 40).join(' ')""")
                text = page.inner_text("body", timeout=2_000)[:3_000]
                report.sections.append((f"page {page.url}", f"{text}\n-- hidden st elements: {hidden}"))
    for server in [v for v in item.funcargs.values() if isinstance(v, Server)]:
        with contextlib.suppress(OSError):
            report.sections.append(("server log (last lines)", "\n".join(
                server.log_path.read_text(errors="replace").splitlines()[-30:])))


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run the README's test command (make test), which installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def wait_text(page, text: str, timeout: float = 60_000) -> None:
    """Wait for text to show; generous, as a page on a loaded 2-core machine can take a while to run.

    Only a visible match counts: on a phone the collapsed sidebar holds the pages' names hidden, and whether
    it or the page's own heading comes first depends on which rendered first."""
    page.get_by_text(text, exact=False).filter(visible=True).first.wait_for(timeout=timeout)


def idle(page, timeout: float = 60_000) -> None:
    """Wait until the app has stopped running: Streamlit marks its root with the script's state (the attribute
    its own tests read) and shows its status widget ("Running...") while a script runs, removing it when the
    run is over; no element of the page is left stale then."""
    from playwright.sync_api import expect

    expect(page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]')).to_have_count(1, timeout=timeout)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=timeout)
    expect(page.locator('[data-stale="true"]')).to_have_count(0, timeout=timeout)


def frames(page, count: int = 2) -> None:
    """Wait until the browser has drawn `count` more frames: what a page's script does in its next frame (the
    answer card fits its options, CSS applies after a run or a resize) is done then, however loaded the machine."""
    page.evaluate("""n => new Promise(done => {
        const step = k => k ? requestAnimationFrame(() => step(k - 1)) : done();
        step(n); })""", count)


def charts_drawn(page, timeout: float = 60_000, *, some: bool = True) -> None:
    """Wait until the app is idle and every Vega-Lite chart on the page has drawn its marks (vega draws a moment
    after Streamlit adds the chart's element), then for the frames after. some=False: a page with no chart is
    drawn too."""
    idle(page, timeout)
    page.wait_for_function("""some => { const all = [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')];
        return (all.length > 0 || !some) && all.every(c => c.querySelector('svg .mark-group')); }""", arg=some,
                           timeout=timeout)
    frames(page)


def serve_studies(tmp_path_factory, name: str, make):
    """A module's server: a new database, the studies `make(db, folder)` creates in it, `fairval serve` on it."""
    from fairval.store import open_db

    folder = tmp_path_factory.mktemp(name)
    db = open_db(folder / "fairval.db")
    make(db, folder)
    db.close()
    server = Server(folder / "fairval.db")
    yield server
    server.stop()
