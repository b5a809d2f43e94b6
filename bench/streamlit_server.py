"""Real servers for the browser and websocket benchmarks: `fairval serve`, or `streamlit run` on a file."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from fairval.annotate.serving.server import free_port
from fairval.store.db import is_url

ROOT = Path(__file__).resolve().parent.parent


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


def healthy(url: str, *, within: float, path: str = "/_stcore/health",
            process: subprocess.Popen | None = None) -> bool:
    """Wait (up to `within` seconds: a loaded machine starts slowly) until the health check (Streamlit's, or
    `path` for another server) answers; no longer once the server's process has ended."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and (process is None or process.poll() is None):
        try:
            if urllib.request.urlopen(f"{url}{path}", timeout=2).status == 200:
                return True
        except OSError:
            time.sleep(0.3)
    return False


PORT_TAKEN = ("is not available", "cannot bind socket")    # what Streamlit, and HAProxy, log when the port is taken


class PortTaken(RuntimeError):
    """The server's port was taken between choosing and binding it."""


def on_a_free_port(start) -> Running:
    """start(port), on another free port if something took the first before the server bound it."""
    for _ in range(2):
        try:
            return start(free_port())
        except PortTaken:
            continue
    return start(free_port())


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
        if not healthy(self.url, within=120, path=health, process=self.process):
            code = self.process.poll()
            self.stop()
            lines = [line.strip() for line in Path(self.log.name).read_text(errors="replace").splitlines()]
            last = next((line for line in reversed(lines) if line), "no output")
            why = "no answer in 120 s" if code is None else f"exited {code}"
            error = PortTaken if any(mark in line for line in lines for mark in PORT_TAKEN) else RuntimeError
            raise error(f"server did not start ({why}: {last[:120]}); log in {self.log.name}")

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
    if not is_url(db_path):
        db_path = Path(db_path).resolve()          # the server runs in the project folder
    command = [sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db", str(db_path), "serve",
               "--address", "127.0.0.1", "--workers", str(workers), "--port"]
    return on_a_free_port(lambda port: Running([*command, str(port)], port, {"FAIRVAL_DB": str(db_path), **(env or {})}))


def streamlit_run(script: Path) -> Running:
    return on_a_free_port(lambda port: Running(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
         "--server.headless", "true", "--server.port", str(port)], port))
