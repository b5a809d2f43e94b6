"""fairval's HAProxy front inside a network namespace of its own (`unshare -rn`, started by
test_front_networks.py), whose loopback may hold any IPv6 address: clients then connect from many addresses
of one /64, as a phone or a home on IPv6 can, which the machine's own loopback (::1 alone) cannot show.

Reads a job (JSON) on stdin: the IPv6 addresses to give the loopback, config()'s keyword arguments, and the
requests, each [source address, path, headers]; writes JSON on stdout: each answer's status and bytes, and
HAProxy's own session tables (`show table` on its admin socket), so the test reads the key HAProxy counted by.
A plain HTTP backend on 127.0.0.1 answers "ok"; HAProxy listens on both families (:::port)."""
from __future__ import annotations

import http.server
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from fairval.annotate.serving.front import config, haproxy_binary

PORT = 18080


class _Backend(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def ask(source: str, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    """One request from `source`: a websocket upgrade to Streamlit's stream when `path` is it."""
    lines = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    if path == "/_stcore/stream":
        lines += ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
    else:
        lines += "Connection: close\r\n"
    family, target = (socket.AF_INET6, "::1") if ":" in source else (socket.AF_INET, "127.0.0.1")
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.bind((source, 0))
        s.connect((target, PORT))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: study\r\n{lines}\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data or (data.startswith(b"HTTP/1.1 429") and b"</html>" not in data):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def show_table(sock: Path, table: str) -> str:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sock))
        s.sendall(f"show table {table}\n".encode())
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out.decode()


def main() -> None:
    job = json.load(sys.stdin)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for address in job["addresses"]:
        subprocess.run(["ip", "-6", "addr", "add", f"{address}/64", "dev", "lo", "nodad"], check=True)
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Backend)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        sock = Path(tmp) / "admin.sock"
        text = config(f":::{PORT}", [("w0", f"127.0.0.1:{backend.server_address[1]}")], maxconn=200,
                      **job["config"])
        # the admin socket only to read the tables back; the rest is fairval's configuration as it ships
        (Path(tmp) / "haproxy.cfg").write_text(text.replace("global\n", f"global\n    stats socket {sock} mode 600\n", 1))
        front = subprocess.Popen([haproxy_binary(), "-db", "-f", str(Path(tmp) / "haproxy.cfg")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 20
            while not sock.exists() or _refused():
                if time.monotonic() > deadline or front.poll() is not None:
                    raise SystemExit(f"HAProxy did not start: {front.stderr.read().decode() if front.stderr else ''}")
                time.sleep(0.05)
            answers = [ask(source, path, headers) for source, path, headers in job["requests"]]
            tables = {name: show_table(sock, name) for name in ("sessions_10s", "sessions_3min")}
        finally:
            front.terminate()
            front.wait(10)
    json.dump({"answers": [[status, data.decode("utf-8", "replace")] for status, data in answers],
               "tables": tables}, sys.stdout)


def _refused() -> bool:
    try:
        socket.create_connection(("127.0.0.1", PORT), timeout=1).close()
        return False
    except OSError:
        return True


if __name__ == "__main__":
    main()
