"""The HAProxy front: the configuration `fairval serve --workers N` writes and the one shipped for several
hosts are the same text, and HAProxy itself accepts them."""
import subprocess
from pathlib import Path

import pytest

from fairval.annotate.serving.front import COOKIE, config, deploy_config, haproxy_binary
from tests.conftest import ROOT


def check(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(text)
    try:
        binary = haproxy_binary()
    except Exception:
        pytest.fail("haproxy is not installed: run the README's test command (make test), which installs it")
    return subprocess.run([binary, "-c", "-f", str(cfg)], capture_output=True, text=True)


def test_the_shipped_deploy_config_is_the_one_fairval_writes_and_haproxy_accepts_it(tmp_path):
    shipped = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert shipped == deploy_config(), "deploy/haproxy.cfg is stale: regenerate it from annotate.serving.front.deploy_config()"
    result = check(tmp_path, shipped)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_serve_config_sticks_by_cookie_and_checks_liveness_by_connect(tmp_path):
    text = config("127.0.0.1:8080", [("w0", "127.0.0.1:9001"), ("w1", "127.0.0.1:9002")], maxconn=500)
    assert check(tmp_path, text).returncode == 0
    assert f"cookie {COOKIE} insert" in text
    assert "server w0 127.0.0.1:9001 cookie w0" in text and "server w1 127.0.0.1:9002 cookie w1" in text
    # A worker busy with a launch answers HTTP slowly but is alive: only a refused connect marks it down,
    # and marking it down never cuts the pages it is still sending.
    assert "httpchk" not in text and "shutdown-sessions" not in text
    assert "option redispatch" in text and "maxconn 500" in text


def idle_connection_answer(tmp_path: Path, text: str, port: int) -> bytes:
    """Run HAProxy with `text`, open a connection to it and send nothing, as a browser's speculative
    connection does: what HAProxy sends before it closes the connection."""
    import socket
    import time

    cfg = tmp_path / "front.cfg"
    cfg.write_text(text)
    front = subprocess.Popen([haproxy_binary(), "-db", "-f", str(cfg)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or front.poll() is not None:
                    raise
                time.sleep(0.1)
        with conn:
            conn.settimeout(60)           # only a guard: HAProxy's own 1 s timeout ends the wait
            got = b""
            while chunk := conn.recv(4096):
                got += chunk
        return got
    finally:
        front.terminate()
        front.wait(20)


def test_a_connection_the_browser_has_not_used_yet_is_closed_without_a_408(tmp_path):
    """Chromium opens connections before it needs them; under a launch's load it may send its request
    on one after `timeout http-request`. A 408 there is read as the script's answer (the page stays
    blank); a silent close makes the browser send again on a new connection."""
    from fairval.annotate.serving.server import free_port

    port = free_port()
    text = config(f"127.0.0.1:{port}", [("w0", f"127.0.0.1:{free_port()}")], maxconn=100, request_timeout="1s")
    assert idle_connection_answer(tmp_path, text, port) == b""
    # the control: the same configuration without the option answers the idle connection 408
    without = text.replace("    option http-ignore-probes\n", "")
    assert without != text
    assert idle_connection_answer(tmp_path, without, port).startswith(b"HTTP/1.1 408")


def test_a_client_cannot_choose_the_address_the_app_sees(tmp_path):
    """Through the real HAProxy: a request carrying its own X-Forwarded-For, -Proto and Forwarded reaches the
    worker with one X-Forwarded-For, the peer's address, and none of the client's."""
    import http.server
    import socket
    import threading
    import time
    import urllib.request

    seen = []

    class Echo(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append([(k.lower(), v) for k, v in self.headers.items()])
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    worker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=worker.serve_forever, daemon=True).start()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "front.cfg"
    cfg.write_text(config(f"127.0.0.1:{port}", [("w0", f"127.0.0.1:{worker.server_address[1]}")], maxconn=100))
    front = subprocess.Popen([haproxy_binary(), "-db", "-f", str(cfg)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={
            "X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https", "Forwarded": "for=198.51.100.7"})
        deadline = time.monotonic() + 60
        while True:
            try:
                assert urllib.request.urlopen(request, timeout=5).read() == b"ok"
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        front.terminate()
        front.wait(10)
        worker.shutdown()
    headers = seen[-1]
    assert [v for k, v in headers if k == "x-forwarded-for"] == ["127.0.0.1"]
    assert not [v for k, v in headers if k in ("x-forwarded-proto", "forwarded")]


def test_only_the_front_fairval_starts_vouches_for_a_forwarded_address(tmp_path):
    """The workers believe X-Forwarded-For only beside the secret `fairval serve` gives HAProxy; a client's
    own X-Fairval-Front is replaced (or removed, for a front without one), never passed on. Under TLS the
    worker cookie is Secure too."""
    plain = config("127.0.0.1:8080", [("w0", "127.0.0.1:9001")])
    assert "http-request del-header X-Fairval-Front" in plain
    assert "secure" not in plain.split("cookie fairval_worker")[1].split("\n")[0]
    vouched = config("127.0.0.1:8080", [("w0", "127.0.0.1:9001")], front_secret="f" * 64)
    assert "http-request set-header X-Fairval-Front " + "f" * 64 in vouched
    assert check(tmp_path, vouched).returncode == 0
    pem = tmp_path / "front.pem"
    pem.write_text("")
    tls = config("127.0.0.1:8443", [("w0", "127.0.0.1:9001")], tls_pem=str(pem))
    assert "cookie fairval_worker insert indirect nocache httponly secure" in tls


def test_the_several_host_template_speaks_https_to_the_hosts_and_checks_them():
    """Across a network the workers are reached over TLS with their certificates verified (plain HTTP there
    lets anyone on the network read sign-in cookies), and the workers are told whom to believe."""
    shipped = (ROOT / "deploy" / "haproxy.cfg").read_text()
    servers = [line for line in shipped.splitlines() if line.strip().startswith("server ")]
    assert servers and all(line.endswith("ssl verify required ca-file @system-ca") for line in servers)
    assert "FAIRVAL_TRUSTED_PROXIES" in shipped
