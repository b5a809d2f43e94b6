"""Streamlit's own doors of `fairval serve`, tried as an attacker who reads Streamlit's source: its upload
route (a rater's session sending files its page never asked for), its websocket (a page on another port of
the same host), its look-up of the machine's external address. Driven as clients do: Streamlit's websocket
protocol and plain HTTP."""
from __future__ import annotations

import asyncio
import http.client
import http.server
import threading
from typing import ClassVar

import pytest
import websockets

from fairval.store import open_db
from tests.e2e.conftest import PASSWORD, Server
from tests.e2e.streamlit_client import Tab, connect
from tests.e2e.test_attacks_server import _memory

MIB = 1 << 20


class _RecordingProxy(http.server.BaseHTTPRequestHandler):
    """An HTTP proxy on 127.0.0.1 that answers nothing but writes down every address asked through it
    (a proxy is asked for the whole URL: RFC 9112, 3.2.2)."""
    asked: ClassVar[list[str]] = []          # one list for every request the server handles

    def do_GET(self):
        self.asked.append(self.path)
        self.send_error(502)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def proxy():
    served = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RecordingProxy)
    threading.Thread(target=served.serve_forever, daemon=True).start()
    yield served
    served.shutdown()


@pytest.fixture(scope="module")
def server(tmp_path_factory, proxy):
    from fairval.annotate.material.studies import create_study

    folder = tmp_path_factory.mktemp("doors")
    db = open_db(folder / "fairval.db")
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=5)
    db.close()
    address = f"http://127.0.0.1:{proxy.server_address[1]}"
    running = Server(folder / "fairval.db", env={"HTTP_PROXY": address, "HTTPS_PROXY": address,
                                                 "http_proxy": address, "https_proxy": address, "NO_PROXY": "",
                                                 "no_proxy": ""})
    yield running
    running.stop()


def _xsrf(port: int) -> str:
    """The XSRF cookie Streamlit gives any visitor (its health route sets it), as a page's script would read it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/_stcore/health")
    answer = conn.getresponse()
    answer.read()
    conn.close()
    cookie = next(c for c in answer.headers.get_all("Set-Cookie") if c.startswith("_streamlit_xsrf="))
    return cookie.split(";", 1)[0].split("=", 1)[1]


def _put(port: int, session_id: str, file_id: str, xsrf: str, size: int, cookie: str | None = None) -> int | None:
    """A file of `size` bytes to Streamlit's upload route, multipart as its frontend sends it: the status,
    or None when the server hung up before answering."""
    boundary = "fairval-test-boundary"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"items.jsonl\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.putrequest("PUT", f"/_stcore/upload_file/{session_id}/{file_id}")
        conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
        conn.putheader("Content-Length", str(len(head) + size + len(tail)))
        conn.putheader("X-Xsrftoken", xsrf)
        conn.putheader("Cookie", f"_streamlit_xsrf={cookie or xsrf}")
        conn.endheaders()
        conn.send(head)
        block = b'{"id": "x"}\n' * (MIB // 12) + b"\n" * (MIB % 12)
        for start in range(0, size, MIB):
            conn.send(block[:min(MIB, size - start)])
        conn.send(tail)
        return conn.getresponse().status
    except (BrokenPipeError, ConnectionResetError):
        return None
    finally:
        conn.close()


def test_a_raters_session_sends_no_file_to_the_worker(server):
    """A rater's page has no uploader: 20 uploads of 100 MiB from its own live session, XSRF token and all,
    are refused, and the worker's peak and resident memory grow by at most 40 MiB over the 20 (checked after
    each, so a server that keeps them stops the test after the first few)."""
    xsrf = _xsrf(server.port)

    async def attack():
        async with connect(server.url) as ws:
            tab = Tab(ws, query="study=tq")
            await tab.run()
            assert tab.session_id
            before = _memory(server)
            said = []
            for k in range(20):
                said.append(await asyncio.to_thread(_put, server.port, tab.session_id, f"f{k}", xsrf, 100 * MIB))
                after = _memory(server)
                grown = {key: (after[key] - before[key]) / 1024 for key in after}
                assert grown["VmHWM"] <= 40 and grown["VmRSS"] <= 40, (k, said, grown)
            print(f"\nafter 20 x 100 MiB: peak grown {grown['VmHWM']:.1f} MiB, resident {grown['VmRSS']:.1f} MiB")
            return said
    said = asyncio.run(attack())
    assert all(s in (403, None) for s in said), said


def test_the_researchers_import_takes_a_file_within_its_caps(server):
    """Manage's Import draws an uploader for a signed-in editor: a PUT without the XSRF cookie's token is
    refused (403), a small file is taken (204), one declared past 50 MiB is refused before it is read (413),
    and the session's share of files ends (403)."""
    from fairval.annotate.serving.uploads import MOST_SENT

    xsrf = _xsrf(server.port)

    async def researcher():
        async with connect(server.url, {"Cookie": f"_streamlit_xsrf={xsrf}"}) as ws:
            tab = Tab(ws, page="Manage", query="study=tq")
            await tab.run()
            await tab.submit_form({"Password": PASSWORD}, "Sign in")
            await tab.run()
            tab.widget("JSON Lines or CSV file")
            other = _xsrf(server.port)                     # another visitor's token, beside this browser's cookie
            assert other.split("|")[2] != xsrf.split("|")[2]
            forged = await asyncio.to_thread(_put, server.port, tab.session_id, "forged", other, 1000, xsrf)
            small = [await asyncio.to_thread(_put, server.port, tab.session_id, f"s{k}", xsrf, 1000)
                     for k in range(2)]
            huge = await asyncio.to_thread(_put, server.port, tab.session_id, "huge", xsrf, 60 * MIB)
            more = [await asyncio.to_thread(_put, server.port, tab.session_id, "s1", xsrf, 1000)
                    for _ in range(MOST_SENT)]
            return forged, small, huge, more
    forged, small, huge, more = asyncio.run(researcher())
    assert forged == 403                          # Streamlit's XSRF check, on: a token the cookie does not hold
    assert small == [204, 204], small
    assert huge in (413, None), huge
    # the forged one counted as sent: a session's share is what it sends, not what is kept
    # past the cap every one is refused: 403, or None where the server hung up on a body it would not read
    # (seen on a loaded machine, as for `huge` above); none is taken (204)
    # (a CI run of stop 68 saw all three end as None: a server that refuses without reading a 1,000-byte body
    # resets the connection before its 403 is read, so which of the two the client meets is the machine's timing)
    assert more[:MOST_SENT - 3] == [204] * (MOST_SENT - 3) and set(more[MOST_SENT - 3:]) <= {403, None}, more


@pytest.mark.parametrize("origin", ["http://127.0.0.1:9999", "http://localhost:9999", "http://evil.example"])
def test_a_page_of_another_origin_gets_no_websocket_and_no_lookup(server, proxy, origin):
    """Streamlit took a websocket from any port of 127.0.0.1 or localhost, and for any other host asked the
    internet (through the proxy here) for this machine's external address: now only fairval's own Origin
    opens one, and nothing is asked."""
    _RecordingProxy.asked.clear()

    async def attempt():
        async with connect(server.url, {"Origin": origin}) as ws:
            tab = Tab(ws, page="Manage")
            await tab.run()
    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        asyncio.run(attempt())
    assert refused.value.response.status_code == 403
    assert _RecordingProxy.asked == [], _RecordingProxy.asked


def test_a_researcher_cookie_sent_by_another_ports_page_drives_nothing(server):
    """What Chromium sends from a page on 127.0.0.1:9999 to the server on 127.0.0.1 (same site: the
    SameSite=Strict cookie goes along): the researcher's sign-in cookie with that page's Origin. The session
    is refused; the same cookie from fairval's own page is signed in (so the refusal is the Origin's)."""
    from fairval.annotate.serving import sign_in

    db = open_db(server.db_path)
    try:
        token = sign_in.issue_token(sign_in.server_secret(db), PASSWORD)
    finally:
        db.close()

    async def manage(origin: str | None):
        headers = {"Cookie": f"fairval_researcher={token}"}
        if origin:
            headers["Origin"] = origin
        async with connect(server.url, headers) as ws:
            tab = Tab(ws, page="Manage", query="study=tq")
            await tab.run()
            return [getattr(e, "label", "") for e in tab.elements]
    own = asyncio.run(manage(None))
    assert "JSON Lines or CSV file" in own, own                      # fairval's own page: signed in
    with pytest.raises(websockets.exceptions.InvalidStatus):
        asyncio.run(manage("http://127.0.0.1:9999"))


def test_without_fairvals_gate_no_sign_in_is_honoured_for_another_pages_origin(tmp_path):
    """app.py run by plain `streamlit run` (no serve.py, so no gate in front of the websocket): Streamlit
    lets a page on 127.0.0.1:9999 in, and the researcher's cookie comes along; the page itself then signs
    nobody in (ui/auth.py), while the same cookie from fairval's own origin is signed in."""
    import sys

    from bench.streamlit_server import Running, free_port
    from fairval.annotate.material.studies import create_study
    from fairval.annotate.serving import sign_in
    from tests.conftest import ROOT

    db = open_db(tmp_path / "d.db")
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=5)
    token = sign_in.issue_token(sign_in.server_secret(db), PASSWORD)
    db.close()
    port = free_port()
    plain = Running([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
                     "--server.address", "127.0.0.1", "--server.headless", "true"], port,
                    {"FAIRVAL_DB": str(tmp_path / "d.db"), "FAIRVAL_RESEARCHER_PASSWORD": PASSWORD})

    async def manage(origin: str):
        async with connect(plain.url, {"Cookie": f"fairval_researcher={token}", "Origin": origin}) as ws:
            tab = Tab(ws, page="Manage", query="study=tq")
            await tab.run()
            return [getattr(e, "label", "") for e in tab.elements]
    try:
        own = asyncio.run(manage(plain.url))
        foreign = asyncio.run(manage("http://127.0.0.1:9999"))
    finally:
        plain.stop()
    assert "JSON Lines or CSV file" in own, own
    assert "JSON Lines or CSV file" not in foreign and "Password" in foreign, foreign
