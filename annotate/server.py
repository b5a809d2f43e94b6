"""Running the app: one Streamlit process, or several behind annotate/proxy.py on one address.

The database holds all state that matters (slots, answers), so workers share nothing else: each is a
plain `streamlit run app.py` on a private port of 127.0.0.1, all with one cookie secret so a browser
moved to another worker keeps its XSRF cookie. SIGTERM or SIGINT stops the proxy and every worker; a
worker that dies while serving is started again on its port.
"""
from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app.py"


def database_env(location: str) -> str:
    """FAIRVAL_DB for the workers: a PostgreSQL URL as given, a SQLite file as an absolute path."""
    from store.db import is_url
    return location if is_url(location) else str(Path(location).resolve())


def streamlit_command(port: int | None, address: str | None) -> list[str]:
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP), "--browser.gatherUsageStats", "false",
           "--server.headless", "true", "--server.fileWatcherType", "none"]
    if port:
        cmd += ["--server.port", str(port)]
    if address:
        cmd += ["--server.address", address]
    return cmd


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(location: str, *, port: int | None, address: str | None, workers: int = 1,
        extra_env: dict | None = None) -> int:
    """Serve until stopped; returns the exit code."""
    env = {**os.environ, "FAIRVAL_DB": database_env(location), **(extra_env or {})}
    if workers <= 1:
        return _single(env, port, address)
    return _several(env, port or 8501, address or "0.0.0.0", workers)


def _die_with_parent() -> None:
    """In a worker, before exec: the kernel sends it SIGTERM if `fairval serve` dies (even by SIGKILL)."""
    if sys.platform.startswith("linux"):
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)     # PR_SET_PDEATHSIG


def _single(env: dict, port: int | None, address: str | None) -> int:
    child = subprocess.Popen(streamlit_command(port, address), env=env, cwd=APP.parent,
                             preexec_fn=_die_with_parent)

    def stop(signum, _frame):
        child.send_signal(signum)          # streamlit shuts down on SIGTERM and SIGINT

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    code = child.wait()
    return code if code >= 0 else 0        # stopped by the signal we forwarded


class _Worker:
    def __init__(self, env: dict, port: int, cookie_secret: str):
        # Streamlit takes its cookie secret only from its environment (or a config file)
        self.env, self.port = {**env, "STREAMLIT_SERVER_COOKIE_SECRET": cookie_secret}, port
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(streamlit_command(self.port, "127.0.0.1"), env=self.env, cwd=APP.parent,
                                        preexec_fn=_die_with_parent)

    def healthy(self) -> bool:
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2).status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()


def _several(env: dict, port: int, address: str, count: int) -> int:
    import uvicorn

    from annotate.proxy import Proxy

    cookie_secret = env.get("FAIRVAL_COOKIE_SECRET") or secrets.token_hex(32)
    # SIGTERM/SIGINT unwind through `finally` (uvicorn re-raises the signal it caught after its own
    # graceful shutdown, which with the default handlers would end this process before the workers)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _exit)
    workers = [_Worker(env, free_port(), cookie_secret) for _ in range(count)]
    for worker in workers:
        worker.start()
    stopping = threading.Event()
    try:
        deadline = time.monotonic() + 120
        while not all(w.healthy() for w in workers):
            if time.monotonic() > deadline or any(w.process.poll() is not None for w in workers):
                print("fairval: a worker did not start; stopping", file=sys.stderr)
                return 1
            time.sleep(0.3)
        threading.Thread(target=_restart_dead, args=(workers, stopping), daemon=True).start()
        print(f"fairval: {count} workers behind http://{address}:{port}", file=sys.stderr, flush=True)
        # uvicorn stops on SIGTERM/SIGINT and returns here; the workers are stopped below
        server = uvicorn.Server(uvicorn.Config(Proxy([w.port for w in workers]), host=address, port=port,
                                               log_level="warning", ws="websockets-sansio", lifespan="on"))
        server.run()
        return 0
    finally:
        stopping.set()
        for worker in workers:
            worker.stop()
        for worker in workers:
            try:
                worker.process.wait(20)
            except subprocess.TimeoutExpired:
                worker.process.kill()


def _exit(signum, _frame) -> None:
    raise SystemExit(0)


def _restart_dead(workers: list[_Worker], stopping: threading.Event) -> None:
    while not stopping.wait(1.0):
        for worker in workers:
            if worker.process.poll() is not None and not stopping.is_set():
                print(f"fairval: worker on port {worker.port} exited ({worker.process.returncode}); "
                      "starting it again", file=sys.stderr, flush=True)
                worker.start()
