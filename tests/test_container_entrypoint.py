"""The container's command (deploy/container/entrypoint.py) outside a container: which `fairval serve` it runs
for the environment a lab gives it (issue 57). tests/e2e/test_container_server.py runs it in the image."""
from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT


@pytest.fixture
def entrypoint(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("fairval_container", ROOT / "deploy" / "container" / "entrypoint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # the image's mount points, here in a folder of the test's own
    monkeypatch.setattr(module, "CERT", str(tmp_path / "fullchain.pem"))
    monkeypatch.setattr(module, "KEY", str(tmp_path / "privkey.pem"))
    return module


def test_no_certificate_mounted_serves_plain_http_on_8080(entrypoint):
    assert entrypoint.serve_command({}, []) == ["fairval", "serve", "--workers", "2", "--port", "8080"]
    assert entrypoint.serve_command({"FAIRVAL_WORKERS": "4"}, ["--address", "0.0.0.0"]) == [
        "fairval", "serve", "--workers", "4", "--port", "8080", "--address", "0.0.0.0"]


def test_a_mounted_certificate_serves_https_on_443_with_a_redirect_on_80(entrypoint, tmp_path):
    (tmp_path / "fullchain.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (tmp_path / "privkey.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    assert entrypoint.serve_command({}, []) == [
        "fairval", "serve", "--workers", "2", "--tls-cert", entrypoint.CERT, "--tls-key", entrypoint.KEY,
        "--port", "443", "--http-port", "80"]


def test_a_certificate_named_but_missing_is_passed_on_for_serve_to_refuse(entrypoint):
    """Never plain HTTP instead of the HTTPS the lab asked for: `fairval serve` refuses the missing file."""
    command = entrypoint.serve_command({"FAIRVAL_TLS_CERT": "/tls/cert.pem"}, [])
    assert command[command.index("--tls-cert") + 1] == "/tls/cert.pem"
    assert command[command.index("--tls-key") + 1] == entrypoint.KEY


def test_other_commands_are_fairval_commands(entrypoint, monkeypatch):
    ran = []
    monkeypatch.setattr(entrypoint.os, "execvp", lambda name, args: ran.append(args))
    entrypoint.main(["study", "list"])
    entrypoint.main([])
    assert ran == [["fairval", "study", "list"], ["fairval", "serve", "--workers", "2", "--port", "8080"]]


@pytest.mark.parametrize("status, healthy", [(200, True), (503, False), (None, False)],
                         ids=["answers", "no-worker-behind-the-front", "nothing-listening"])
def test_the_health_check_passes_only_when_the_front_answers_200(entrypoint, monkeypatch, status, healthy):
    """What the image's HEALTHCHECK runs, against a server on 127.0.0.1 standing in for the front: HAProxy
    answers 503 when no worker is left behind it, and nothing listens when `fairval serve` has stopped."""
    import http.server
    import socket
    import threading

    class Front(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(status if self.path == "/_stcore/health" else 404)
            self.end_headers()

        def log_message(self, *args):
            pass

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(entrypoint, "PLAIN_PORT", port)
    server = http.server.HTTPServer(("127.0.0.1", port), Front) if status else None
    if server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert (entrypoint.health({}) == 0) is healthy
    finally:
        if server:
            server.shutdown()
            server.server_close()
