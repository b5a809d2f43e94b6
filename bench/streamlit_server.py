"""Real servers for the browser and websocket benchmarks: `fairval serve`, or `streamlit run` on a file."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from fairval.store.db import is_url

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """The processes whose parent is pid, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def tree(pid: int) -> list[int]:
    """pid and every process below it, from /proc."""
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += children(found[-1])
    return found


def healthy(url: str, *, within: float, path: str = "/_stcore/health") -> bool:
    """Wait (up to `within` seconds: a loaded machine starts slowly) until the health check (Streamlit's, or
    `path` for another server) answers."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"{url}{path}", timeout=2).status == 200:
                return True
        except OSError:
            time.sleep(0.3)
    return False


class Running:
    """A server process group on 127.0.0.1, ready when its health check answers; stop() ends it whole."""

    def __init__(self, command: list[str], port: int, env: dict | None = None, *, health: str = "/_stcore/health",
                 cwd: Path | None = None):
        self.port, self.url = port, f"http://127.0.0.1:{port}"
        self.log = tempfile.NamedTemporaryFile("w+", prefix="fairval-bench-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            command, cwd=cwd or ROOT, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none",
                 "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env or {})})
        if not healthy(self.url, within=120, path=health):
            self.stop()
            raise RuntimeError(f"server did not start; log in {self.log.name}")

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server's whole process tree has used so far, from /proc."""
        total = 0
        for pid in tree(self.process.pid):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])  # utime stime, + reaped children
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()

    def __enter__(self) -> Running:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def fairval_serve(db_path: Path | str, *, workers: int = 1, env: dict | None = None) -> Running:
    port = free_port()
    if not is_url(db_path):
        db_path = Path(db_path).resolve()          # the server runs in the project folder
    command = [sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(db_path), "serve",
               "--port", str(port), "--address", "127.0.0.1", "--workers", str(workers)]
    return Running(command, port, {"FAIRVAL_DB": str(db_path), **(env or {})})


def streamlit_run(script: Path) -> Running:
    port = free_port()
    return Running([sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
                    "--server.address", "127.0.0.1", "--server.headless", "true"], port)
