"""`fairval serve` attacked from outside, as a client would: Streamlit's websocket protocol with headers of
the attacker's choosing, and plain HTTP requests. Nothing here signs in first."""
from __future__ import annotations

import asyncio

import pytest

from fairval.store import open_db
from tests.e2e.conftest import Server
from tests.e2e.streamlit_client import Tab, connect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("attacked")
    open_db(folder / "fairval.db").close()
    running = Server(folder / "fairval.db")          # `fairval serve --address 127.0.0.1`, one process
    yield running
    running.stop()


async def _guess(url: str, password: str, forwarded_for: str) -> list[str]:
    async with connect(url, {"X-Forwarded-For": forwarded_for}) as ws:
        tab = Tab(ws, page="Results")
        await tab.run()
        await tab.submit_form({"Password": password}, "Sign in")
        return tab.texts()


def test_guesses_from_rotating_forwarded_addresses_are_held_back(server):
    """14 wrong passwords, each claiming another address in X-Forwarded-For: a single `fairval serve` has no
    front of its own, so the header is nobody's word and every guess counts against the real peer."""
    said = [asyncio.run(_guess(server.url, f"guess-{k}", f"198.51.100.{k}")) for k in range(14)]
    held = [k for k, texts in enumerate(said) if any("Too many wrong passwords" in t for t in texts)]
    checked = [k for k, texts in enumerate(said) if any("not right" in t for t in texts)]
    assert len(held) + len(checked) == 14, said
    # five free tries, then waits doubling from 2 s: however slow this machine, most guesses wait
    assert checked[:5] == [0, 1, 2, 3, 4] and len(held) >= 3, said
    db = open_db(server.db_path)
    try:
        counted = {r[0] for r in db.execute("SELECT DISTINCT client FROM sign_in_failures").fetchall()}
    finally:
        db.close()
    assert counted == {"address 127.0.0.1", "account "}, counted         # no forwarded address believed


def test_no_table_is_offered_for_download_by_streamlit_itself(server):
    """st.dataframe's own "Download as CSV" skips fairval's role check and its formula guard: the server
    tells every page to leave it out (rater-level files come from Export, for editors, guarded)."""
    async def config():
        async with connect(server.url) as ws:
            tab = Tab(ws, page="Results")
            await tab.run()
            return tab.config
    assert asyncio.run(config()).disable_data_export is True


@pytest.fixture(scope="module")
def named_server(tmp_path_factory):
    from fairval.annotate.material.studies import create_study
    from fairval.annotate.serving.sign_in import hash_password
    from fairval.store import researchers

    folder = tmp_path_factory.mktemp("named")
    db = open_db(folder / "fairval.db")
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=5)
    researchers.add(db, "olga", "owner", hash_password("owner-pass"))
    researchers.add(db, "eddie", "editor", hash_password("editor-pass"))
    db.close()
    running = Server(folder / "fairval.db")
    yield running
    running.stop()


def test_a_download_is_made_only_for_a_sign_in_that_still_allows_it(named_server):
    """Export's files are made when the button is pressed, on another thread: the editor's tab is demoted to
    viewer after the page was drawn, and the same button then gets no file."""
    from fairval.store import researchers

    async def attempt():
        async with connect(named_server.url) as ws:
            tab = Tab(ws, page="Results")
            await tab.run()
            await tab.submit_form({"Name": "eddie", "Password": "editor-pass"}, "Sign in")
            tab.page = "Export"
            await tab.run()
            button = tab.widget("Ratings (.csv)")
            assert button.deferred_file_id, "the ratings file is made on click"
            before = await tab.download(button.deferred_file_id)
            db = open_db(named_server.db_path)
            try:
                researchers.change(db, "eddie", role="viewer")
            finally:
                db.close()
            after = await tab.download(button.deferred_file_id)
            return before, after
    before, after = asyncio.run(attempt())
    assert before.deferred_file.url and not before.error_msg                      # the editor's file
    assert after.error_msg and not after.deferred_file.url                       # the viewer's: none


def _memory(server) -> dict[str, int]:
    """Peak (VmHWM) and resident (VmRSS) KiB of the Streamlit process `fairval serve` runs."""
    from pathlib import Path

    from bench.streamlit_server import tree

    found = {}
    for pid in tree(server.process.pid)[1:]:                   # below `fairval serve` itself
        status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        if "streamlit" in Path(f"/proc/{pid}/cmdline").read_text():
            found = {k: int(status[k].split()[0]) for k in ("VmHWM", "VmRSS")}
    assert found, "no streamlit process under fairval serve"
    return found


def _post_huge(port: int, chunked: bool) -> int | None:
    """100 MiB to the webhook, as fast as the server takes it: its status, or None if it hung up first."""
    import http.client

    block, blocks = b"x" * (1 << 20), 100
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("POST", "/fairval/prolific-hook")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Transfer-Encoding" if chunked else "Content-Length", "chunked" if chunked else str(len(block) * blocks))
        conn.endheaders()
        for _ in range(blocks):
            conn.send(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
        if chunked:
            conn.send(b"0\r\n\r\n")
        return conn.getresponse().status
    except (BrokenPipeError, ConnectionResetError):
        return None
    finally:
        conn.close()


def _made_up_paths(port: int, count: int, connections: int = 16) -> None:
    """GET count made-up /static/ paths over several keep-alive connections (one alone waits on delayed
    ACKs, about 40 ms a request)."""
    import http.client
    from concurrent.futures import ThreadPoolExecutor

    def some(first: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for k in range(first, count, connections):
            conn.request("GET", f"/static/js/made-up-{k}.js", headers={"Accept-Encoding": "gzip"})
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 200
        conn.close()
    with ThreadPoolExecutor(connections) as pool:
        list(pool.map(some, range(connections)))


def test_nobody_fills_the_servers_memory_without_signing_in(server):
    """A 100 MiB webhook body (declared, and chunked) and 8,000 made-up /static/ paths: the server's peak
    grows by at most 40 MiB and what it keeps by at most 6 MiB (the figures: bench/ and docs/security.md)."""
    import http.client

    port = server.port
    warm = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for path in ("/", "/static/made-up-warm.js"):                          # the page's first answers
        warm.request("GET", path, headers={"Accept-Encoding": "gzip"})
        warm.getresponse().read()
    before = _memory(server)
    said = [_post_huge(port, chunked=False), _post_huge(port, chunked=True)]
    assert all(s in (413, None) for s in said), said
    warm.close()
    _made_up_paths(port, 8000)
    after = _memory(server)
    grown = {k: (after[k] - before[k]) / 1024 for k in after}
    print(f"\nmemory grown (MiB): peak {grown['VmHWM']:.1f}, resident {grown['VmRSS']:.1f}")
    assert grown["VmHWM"] <= 40 and grown["VmRSS"] <= 6, grown


def _serve_tls(tmp_path, temporary, port: int, env: dict | None = None):
    import os
    import subprocess
    import sys

    from tests.e2e.conftest import PASSWORD, ROOT
    from tests.e2e.test_https_browser import self_signed

    open_db(tmp_path / "d.db").close()
    cert, key = self_signed(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(tmp_path / "d.db"),
         "serve", "--port", str(port), "--address", "127.0.0.1", "--tls-cert", str(cert), "--tls-key", str(key)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "TMPDIR": str(temporary), "FAIRVAL_RESEARCHER_PASSWORD": PASSWORD,
             "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none", **(env or {})})
    return process, key.read_text().strip()


def _holding(folder, secret_lines: list[str]) -> list[str]:
    """Every file under `folder` that holds one of the lines (a key's, a front secret's)."""
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            if any(line in text for line in secret_lines):
                found.append(str(path))
    return found


def test_no_key_or_front_secret_is_ever_on_disk_and_none_outlives_a_sigkill(tmp_path):
    """HAProxy reads the certificate with its key and its configuration (which holds the front's secret)
    from in-memory files: none is in TMPDIR while `serve` runs, and nothing is left after `serve` is killed
    by SIGKILL, when no `finally` of its own runs. The worker cookie and Streamlit's XSRF cookie are Secure."""
    import contextlib
    import os
    import signal
    import ssl
    import time
    import urllib.request

    from tests.e2e.conftest import free_port
    from tests.e2e.test_https_browser import answers

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    port = free_port()
    process, key = _serve_tls(tmp_path, temporary, port)
    key_line = key.splitlines()[1]                                 # the first line of the key's own text
    try:
        assert answers(f"https://127.0.0.1:{port}")
        page = urllib.request.urlopen(f"https://127.0.0.1:{port}/_stcore/health",
                                      context=ssl._create_unverified_context(), timeout=10)
        cookies = page.headers.get_all("Set-Cookie")
        worker_cookie = [c for c in cookies if c.startswith("fairval_worker=")]
        assert worker_cookie and "Secure" in worker_cookie[0], cookies
        xsrf_cookie = [c for c in cookies if c.startswith("_streamlit_xsrf=")]
        assert xsrf_cookie and "secure" in xsrf_cookie[0].lower(), cookies
        assert _holding(temporary, [key_line, "X-Fairval-Front"]) == []         # while it runs
        os.kill(process.pid, signal.SIGKILL)                       # `serve` alone: its children follow it
        process.wait(10)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
                time.sleep(0.3)
            except ProcessLookupError:
                break
        else:
            raise AssertionError("HAProxy or a worker outlived `fairval serve`")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert _holding(temporary, [key_line, "X-Fairval-Front"]) == [], list(temporary.rglob("*"))


def test_a_start_refused_after_the_key_is_read_leaves_no_copy(tmp_path):
    """A cookie secret file that cannot be read refuses the start after the TLS files were read: nothing of
    them is left in TMPDIR."""
    from tests.e2e.conftest import free_port

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process, key = _serve_tls(tmp_path, temporary, free_port(),
                              env={"FAIRVAL_COOKIE_SECRET_FILE": str(tmp_path / "no-such-secret")})
    assert process.wait(60) != 0
    assert _holding(temporary, [key.splitlines()[1]]) == [], list(temporary.rglob("*"))


def test_a_button_drawn_for_the_previous_study_gives_no_file(named_server):
    """Streamlit keeps a run's download buttons until the next run has drawn its own, so a click just after the
    study was switched pressed the previous study's button and got that study's file. Here the click comes
    while the new run is drawing (after its heading, before its buttons), as a quick researcher's does: no
    file. The new button gives the new study's file."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    from fairval.annotate.material.studies import create_study

    db = open_db(named_server.db_path)
    try:
        if "other" not in {r[0] for r in db.execute("SELECT study_id FROM studies").fetchall()}:
            create_study(db, "other", "template_quality", raters_per_item=1, seed=6)
    finally:
        db.close()

    async def attempt():
        async with connect(named_server.url) as ws:
            tab = Tab(ws, page="Results")
            await tab.run()
            await tab.submit_form({"Name": "olga", "Password": "owner-pass"}, "Sign in")
            tab.page, tab.query = "Export", "study=tq"
            await tab.run()
            old = tab.widget("Ratings (.csv)").deferred_file_id
            picker = WidgetState(id=tab.widget("Study").id)
            picker.string_value = "other"
            await tab.ask([picker])
            while True:                          # the new run's deltas, up to its "Validated set" heading
                forward = ForwardMsg()
                forward.ParseFromString(await asyncio.wait_for(ws.recv(), 60))
                if forward.WhichOneof("type") == "delta" and "Validated set" in str(forward.delta):
                    break
            stale = await tab.download(old)      # (the run's other messages are read past meanwhile)
            await tab.run()
            new = tab.widget("Ratings (.csv)")
            return stale, await tab.download(new.deferred_file_id)
    stale, fresh = asyncio.run(attempt())
    assert stale.error_msg and not stale.deferred_file.url                        # the previous study's: none
    assert fresh.deferred_file.url and not fresh.error_msg
