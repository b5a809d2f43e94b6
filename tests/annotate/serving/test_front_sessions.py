"""New sessions per browser address at the HAProxy front (issue 58): made-up participant IDs from one address
cannot hold the line's places, while a classroom behind one NAT address and a launch from many addresses pass.
Real HAProxy, a plain HTTP backend on 127.0.0.1; the sources are loopback addresses bound by the client."""
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


def answer(port: int, source: str, path: str = "/_stcore/stream") -> tuple[int, bytes]:
    """One request from `source`, a websocket upgrade to Streamlit's stream unless `path` says otherwise."""
    upgrade = (b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" if path == "/_stcore/stream"
               else b"Connection: close\r\n")
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
