"""New sessions per browser address at the HAProxy front (issue 58): made-up participant IDs from one address
cannot hold the line's places, while a classroom behind one NAT address and a launch from many addresses pass.
Real HAProxy, a plain HTTP backend on 127.0.0.1; the sources are loopback addresses bound by the client."""
import html.parser
import http.server
import socket
import subprocess
import threading
import time

import pytest

from fairval.annotate.serving.front import SESSIONS_PER_10S, config, haproxy_binary
from fairval.annotate.serving.server import free_port


class _Backend(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


@pytest.fixture
def front(tmp_path):
    """Start HAProxy with the given bounds in front of a backend; yields a function making it."""
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Backend)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    started = []

    def start(**bounds) -> int:
        port = free_port()
        cfg = tmp_path / f"haproxy{len(started)}.cfg"
        cfg.write_text(config(f"127.0.0.1:{port}", [("w0", f"127.0.0.1:{backend.server_address[1]}")],
                              maxconn=200, **bounds))
        started.append(subprocess.Popen([haproxy_binary(), "-db", "-f", str(cfg)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return port
            except OSError:
                time.sleep(0.1)
        raise AssertionError("HAProxy did not start")

    yield start
    for process in started:
        process.terminate()
        process.wait(10)
    backend.shutdown()


def answer(port: int, source: str, path: str = "/_stcore/stream", headers: str = "") -> tuple[int, bytes]:
    """One request from `source`, a websocket upgrade to Streamlit's stream unless `path` says otherwise;
    `headers`: further header lines, each ending in CRLF."""
    upgrade = (b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" if path == "/_stcore/stream"
               else b"Connection: close\r\n") + headers.encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as s:
        s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: study\r\n" + upgrade + b"\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        while data.startswith(b"HTTP/1.1 429") and b"</html>" not in data and (chunk := s.recv(65536)):
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def test_a_flood_of_new_sessions_from_one_address_is_turned_back_and_another_address_is_not(front):
    port = front(sessions_per_10s=5, sessions_per_3min=1000)
    assert [answer(port, "127.0.0.2")[0] for _ in range(5)] == [200] * 5
    status, page = answer(port, "127.0.0.2")
    assert status == 429 and b"retry-after: 60" in page.lower() and b"reload this page" in page
    assert answer(port, "127.0.0.2", "/")[0] == 429         # its page loads too: the participant reads why
    assert answer(port, "127.0.0.3")[0] == 200              # a participant elsewhere is not held back
    assert answer(port, "127.0.0.3", "/")[0] == 200


def test_the_longer_window_bounds_a_slower_flood(front):
    port = front(sessions_per_10s=1000, sessions_per_3min=4)
    assert [answer(port, "127.0.0.4")[0] for _ in range(5)] == [200] * 4 + [429]


def test_with_the_shipped_bounds_a_classroom_behind_one_address_gets_in_twice_over(front):
    """30 raters behind one NAT address, each opening their session and reconnecting once (60 in 10 s),
    and 500 participants from distinct addresses (sampled: 20 of them here), are never turned back."""
    port = front()
    assert SESSIONS_PER_10S >= 60
    assert [answer(port, "127.0.0.5")[0] for _ in range(60)] == [200] * 60
    assert all(answer(port, f"127.0.1.{k}")[0] == 200 for k in range(1, 21))
    assert answer(port, "127.0.0.5")[0] == 429              # the 61st from the classroom's address


def test_the_bounds_are_changed_from_the_environment_and_a_bad_one_is_refused_in_one_line():
    from fairval.annotate.serving.server import _session_bounds
    from fairval.errors import ServeRefused

    assert _session_bounds({"FAIRVAL_SESSIONS_PER_10S": "120"}) == (120, 150)
    assert "gt 400\n" in config("127.0.0.1:1", [("w0", "127.0.0.1:2")], sessions_per_3min=400)
    with pytest.raises(ServeRefused, match="FAIRVAL_SESSIONS_PER_3MIN='lots'"):
        _session_bounds({"FAIRVAL_SESSIONS_PER_3MIN": "lots"})


class _Page(html.parser.HTMLParser):
    """The wait page as a reader gets it: the document's language, its title, and each section's lang, dir,
    heading and text."""

    def __init__(self):
        super().__init__()
        self.lang, self.title, self.sections, self._in = "", "", [], ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang") or ""
        elif tag == "section":
            self.sections.append({"lang": attrs.get("lang"), "dir": attrs.get("dir"), "h1": "", "p": ""})
        self._in = tag

    def handle_endtag(self, tag):
        self._in = ""

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in in ("h1", "p") and self.sections:
            self.sections[-1][self._in] += data


# a browser's Accept-Language as browsers send it -> the shipped language it asks for
BROWSERS = {"en-US,en;q=0.9": "en", "es-MX,es;q=0.9,en;q=0.8": "es", "fr-CA,fr;q=0.9": "fr", "de-DE,de;q=0.9": "de",
            "pt-BR,pt;q=0.9,en;q=0.8": "pt-BR", "hi-IN,hi;q=0.9,en;q=0.8": "hi", "zh-CN,zh;q=0.9": "zh-Hans",
            "ja": "ja", "sw-KE,sw;q=0.9": "sw", "ar-EG,ar;q=0.9,en;q=0.5": "ar",
            "fr;q=0.1, ja": "ja", "it-IT,it;q=0.9": "en", "": "en"}


def test_the_wait_page_says_it_in_every_shipped_language_the_browsers_own_named_first(front):
    """Through real HAProxy, over the bound: every language fairval ships is on the page in its catalogue's words,
    each section marked with its lang (Arabic right to left); the document's language, its title and
    Content-Language are the browser's (by Accept-Language and its q-factors), English when it asks for none of
    them. On main the page was English only."""
    from fairval.annotate.material.languages import LANGUAGES, direction
    from fairval.annotate.serving.front import WAIT_TEXT, WAIT_TITLE
    from fairval.ui.i18n import translator

    port = front(sessions_per_10s=1, sessions_per_3min=1000)
    assert [answer(port, "127.0.0.6")[0] for _ in range(2)] == [200, 429]
    expected = [{"lang": code, "dir": "rtl" if direction(code) == "rtl" else None, "h1": translator(code)(WAIT_TITLE),
                 "p": translator(code)(WAIT_TEXT)} for code in LANGUAGES]
    assert len({s["h1"] for s in expected}) == len(LANGUAGES) == 10        # each catalogue has its own words
    for accept, code in BROWSERS.items():
        status, data = answer(port, "127.0.0.6", "/", f"Accept-Language: {accept}\r\n" if accept else "")
        head, body = data.split(b"\r\n\r\n", 1)
        assert status == 429 and b"retry-after: 60" in head.lower(), accept
        page = _Page()
        page.feed(body.decode("utf-8"))
        assert sorted(page.sections, key=lambda s: s["lang"]) == sorted(expected, key=lambda s: s["lang"]), accept
        primary = code.split("-")[0]
        assert (page.lang, page.title) == (primary, translator(code)(WAIT_TITLE)), accept
        assert f"content-language: {primary}".encode() in head.lower(), accept
