"""Running the app: one Streamlit process, or several behind HAProxy (annotate/serving/front.py) on one address.

The database holds all state that matters (slots, answers), so workers share nothing else: each is a
plain `streamlit run app.py` on a private port of 127.0.0.1, all with one cookie secret so a browser
moved to another worker keeps its XSRF cookie. SIGTERM or SIGINT stops HAProxy and every worker; a
worker that dies while serving is started again on its port (HAProxy's health check takes it back).
This process only supervises: it imports no analysis library.
"""
from __future__ import annotations

import ipaddress
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from fairval.annotate.serving import sso
from fairval.annotate.serving.origins import refuse_unreadable
from fairval.annotate.serving.uploads import MOST_BYTES
from fairval.errors import ServeRefused

MOST_UPLOAD_MB = MOST_BYTES // (1024 * 1024)


def app_file() -> Path:
    """serve.py: app.py and pages/ behind st.App, with the sign-in cookie routes (server/sign_in_routes.py),
    found in the package (fairval.files()) so an installed fairval serves as a checkout does."""
    import fairval
    return fairval.files() / "serve.py"


def database_env(location: str) -> str:
    """FAIRVAL_DB for the workers: a PostgreSQL URL as given, a SQLite file as an absolute path."""
    from fairval.store.db import is_url
    return location if is_url(location) else str(Path(location).resolve())


def streamlit_command(port: int | None, address: str | None) -> list[str]:
    # fastReruns off: a rerun asked for while a run is still busy (a Submit sent again, a second click)
    # waits for it in the same thread. With it on, Streamlit starts the new run in a new thread at once,
    # and two threads of one browser session then use its one database connection together (measured
    # at a launch: "sqlite3.DatabaseError: no more rows available" inside BEGIN IMMEDIATE).
    cmd = [sys.executable, "-m", "streamlit", "run", str(app_file()), "--browser.gatherUsageStats", "false",
           # the theme of .streamlit/config.toml, for any working folder: black text, a calm blue for what is
           # chosen (never the default red, the colour of an error)
           "--theme.textColor", "#000000", "--theme.primaryColor", "#1d4ed8",
           "--theme.codeTextColor", "#000000",
           "--server.headless", "true", "--server.fileWatcherType", "none", "--runner.fastReruns", "false",
           # no full garbage collection after every run: with the analysis libraries loaded it cost 0.04-0.08 s
           # of CPU per run, most of a Submit's (bench/run.py session); Python's own collector still runs
           "--runner.postScriptGC", "false",
           # as .streamlit/config.toml says, for any working folder: raters see no page list
           "--client.showSidebarNavigation", "false", "--client.toolbarMode", "minimal",
           # no "Download as CSV" on st.dataframe: it skips the role check and the formula guard of
           # Export's files (the same in .streamlit/config.toml)
           "--client.disableDataExport", "true",
           # Streamlit's own defaults, said aloud: the upload route and the websocket check the XSRF token,
           # and other origins get no CORS answer; Import's files are capped (annotate/serving/uploads.py)
           "--server.enableXsrfProtection", "true", "--server.enableCORS", "true",
           "--server.maxUploadSize", str(MOST_UPLOAD_MB)]
    if port:
        cmd += ["--server.port", str(port)]
    if address:
        cmd += ["--server.address", address]
    return cmd


def default_workers() -> int:
    """One worker per core this process may use (each is one Python process: one core at most), when HAProxy
    is there to put in front of them; else one."""
    from fairval.annotate.serving.admission import cores
    from fairval.annotate.serving.front import CANDIDATES
    return min(cores(), 8) if any(shutil.which(name) for name in CANDIDATES) else 1


def pool_size() -> int:
    """PostgreSQL connections per worker: one for each page run the worker lets through at once
    (annotate/serving/admission.py), two more for researchers' pages and the line."""
    from fairval.annotate.serving.admission import runs_at_once
    return runs_at_once() + 2


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999                 # Linux's default


def free_port() -> int:
    """A free port of 127.0.0.1 for a server this machine starts, outside the kernel's ephemeral range.
    Binding port 0 hands out a port from that range, and any outgoing connection (to PostgreSQL, a browser's,
    a client's) may take it as its local port before the server binds it: the server then cannot start."""
    low, high = _ephemeral_range()
    quiet = [(20000, low - 1)] if low > 21000 else []
    quiet += [(high + 1, 65535)] if high < 64535 else []
    for _ in range(50 if quiet else 0):
        start, end = random.choice(quiet)
        port = random.randint(start, end)
        if not port_taken("127.0.0.1", port):
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_taken(address: str | None, port: int) -> bool:
    """Whether something already listens on the port (binding as Streamlit's server does, address reused)."""
    with socket.socket(socket.AF_INET6 if ":" in (address or "") else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(((address or "").strip("[]") or "0.0.0.0", port))
        except OSError:
            return True
    return False


def loopback(address: str | None) -> bool:
    """Whether only this machine can reach the address (None is every interface)."""
    if not address:
        return False
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def refuse_exposure(address: str | None, env: dict, *, demo: bool = False, named: bool = False) -> None:
    """A server other machines can reach needs a researcher password of its own (or named researchers)."""
    if loopback(address) or (named and not demo):
        return
    where = address or "every interface"
    password = env.get("FAIRVAL_RESEARCHER_PASSWORD") or ""
    if demo and password == "demo":
        raise ServeRefused(f"the demo listens on {where}, reachable from other machines, with its published "
                           "password 'demo': set FAIRVAL_RESEARCHER_PASSWORD to a password of your own, or leave "
                           "--address at 127.0.0.1")
    if not password:
        raise ServeRefused(f"fairval serve would listen on {where}, reachable from other machines, with no "
                           "researcher password: set FAIRVAL_RESEARCHER_PASSWORD, or listen on this machine only "
                           "(--address 127.0.0.1, e.g. behind a proxy)")
    if password == "demo":
        raise ServeRefused(f"fairval serve would listen on {where} with the demo's published password 'demo': set "
                           "FAIRVAL_RESEARCHER_PASSWORD to a password of your own")


def _named_researchers(location: str) -> bool:
    from fairval.store import open_db, researchers
    db = open_db(location)
    try:
        return researchers.any_named(db)
    finally:
        db.close()


def run(location: str, *, port: int | None, address: str | None, workers: int = 1,
        extra_env: dict | None = None, demo: bool = False, tls: tuple[str, str] | None = None,
        http_port: int | None = None) -> int:
    """Serve until stopped; returns the exit code. `tls` (certificate file, key file): HTTPS at the HAProxy
    front, for one worker too; `http_port` then redirects plain HTTP there."""
    env = {**os.environ, "FAIRVAL_DB": database_env(location), **(extra_env or {})}
    env.setdefault("FAIRVAL_POOL_SIZE", str(pool_size()))
    # uvicorn (under Streamlit) would take the client's address from X-Forwarded-For whenever the peer is
    # 127.0.0.1, whoever sent it: the app decides whom to believe instead (ui/auth.py, client_of)
    env["FORWARDED_ALLOW_IPS"] = ""
    refuse_unreadable(env.get("FAIRVAL_PUBLIC_URL", ""))
    provider = sso.settings(env)               # incomplete settings are refused here, in one line
    if provider is not None:
        sso.require_authlib()
    # researchers signing in through the lab's provider need no shared password either
    refuse_exposure(address, env, demo=demo, named=provider is not None or _named_researchers(location))
    secrets_held = _Secrets()
    try:
        pem = secrets_held.add("front.pem", _pem(tls)) if tls else None
        if env.get("FAIRVAL_COOKIE_SECRET_FILE") and not env.get("FAIRVAL_COOKIE_SECRET"):
            from fairval.annotate.serving.sign_in import configured_secret
            configured_secret()                # an unreadable or short file is refused before anything starts
        if env.get("FAIRVAL_COOKIE_SECRET"):   # one secret on every host, so a moved browser keeps its XSRF cookie
            env["STREAMLIT_SERVER_COOKIE_SECRET"] = env["FAIRVAL_COOKIE_SECRET"]
        if workers <= 1 and pem is None:
            return _single(env, port, address)
        return _several(env, port or (8443 if pem else 8501), address or "0.0.0.0", workers, pem=pem,
                        http_port=http_port, secrets_held=secrets_held)
    finally:
        secrets_held.close()                   # the copy of the private key goes with the run


class _Secrets:
    """What HAProxy must read from a file but no disk may keep: the TLS key with its certificate, and the
    configuration that holds the front's secret. On Linux each is an anonymous in-memory file (memfd)
    that HAProxy opens as /dev/fd/N: nothing is ever written to a folder, and the kernel frees it with the
    last process holding it, however `serve` ends (SIGKILL, a refused start). Elsewhere: a private folder,
    removed when `serve` returns."""

    def __init__(self):
        self.fds: list[int] = []
        self.folder: Path | None = None

    def add(self, name: str, text: str) -> str:
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create(name, os.MFD_CLOEXEC)
            self.fds.append(fd)
            os.write(fd, text.encode())
            return f"/dev/fd/{fd}"
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="fairval-front-"))
        path = self.folder / name
        path.touch(mode=0o600)
        path.write_text(text)
        return str(path)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _pem(tls: tuple[str, str]) -> str:
    """HAProxy takes the certificate (and its chain) and the key in one file: its text."""
    certificate, key = (Path(p) for p in tls)
    texts = []
    for path, what in ((certificate, "certificate"), (key, "key")):
        try:
            text = path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as e:
            raise ServeRefused(f"cannot read the TLS {what} {path}: {getattr(e, 'strerror', None) or e}") from None
        if "-----BEGIN" not in text:
            raise ServeRefused(f"the TLS {what} {path} is not a PEM file (it has no -----BEGIN line)")
        texts.append(text.rstrip() + "\n")
    return "".join(texts)


def _die_with_parent() -> None:
    """In a worker, before exec: the kernel sends it SIGTERM if `fairval serve` dies (even by SIGKILL)."""
    if sys.platform.startswith("linux"):
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)     # PR_SET_PDEATHSIG


def _single(env: dict, port: int | None, address: str | None) -> int:
    child = subprocess.Popen(streamlit_command(port, address), env=env, cwd=app_file().parent,
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
        self.process = subprocess.Popen(streamlit_command(self.port, "127.0.0.1"), env=self.env, cwd=app_file().parent,
                                        preexec_fn=_die_with_parent)

    def exit_code(self) -> int | None:
        """None while its process runs (it is started before anyone asks)."""
        assert self.process is not None, "a worker is started before it is watched"
        return self.process.poll()

    def healthy(self) -> bool:
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2).status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()


def _session_bounds(env: dict) -> tuple[int, int]:
    """New sessions one browser address may open in 10 s and in 3 min (front.py's unless the environment says)."""
    from fairval.annotate.serving.front import SESSIONS_PER_3MIN, SESSIONS_PER_10S

    bounds = []
    for name, default in (("FAIRVAL_SESSIONS_PER_10S", SESSIONS_PER_10S),
                          ("FAIRVAL_SESSIONS_PER_3MIN", SESSIONS_PER_3MIN)):
        raw = (env.get(name) or "").strip()
        if raw and (not raw.isdigit() or int(raw) < 1):
            raise ServeRefused(f"{name}={raw!r}: a whole number of sessions, at least 1")
        bounds.append(int(raw) if raw else default)
    return bounds[0], bounds[1]


def _several(env: dict, port: int, address: str, count: int, *, pem: str | None = None,
             http_port: int | None = None, secrets_held: _Secrets) -> int:
    from fairval.annotate.serving.front import config, connection_limit, haproxy_binary

    binary = haproxy_binary()                 # refused before anything starts when it is missing
    bounds = _session_bounds(env)             # so is a bound that is not a number
    cookie_secret = env.get("FAIRVAL_COOKIE_SECRET") or secrets.token_hex(32)
    # SIGTERM/SIGINT unwind through `finally`, which stops HAProxy and the workers
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _exit)
    # the workers believe X-Forwarded-For only beside this secret, which only this HAProxy sends
    front_secret = secrets.token_hex(32)
    workers = [_Worker({**env, "FAIRVAL_FRONT_SECRET": front_secret}, free_port(), cookie_secret) for _ in range(count)]
    front: subprocess.Popen | None = None
    stopping = threading.Event()
    try:
        for worker in workers:
            worker.start()
        if not _all_answer(workers, time.monotonic() + 120):
            print("fairval: a worker did not start; stopping", file=sys.stderr)
            return 1
        servers = [(f"w{k}", f"127.0.0.1:{w.port}") for k, w in enumerate(workers)]
        cfg = secrets_held.add("haproxy.cfg", config(
            f"{address}:{port}", servers, maxconn=connection_limit(), tls_pem=pem, front_secret=front_secret,
            redirect_bind=f"{address}:{http_port}" if pem and http_port else None,
            sessions_per_10s=bounds[0], sessions_per_3min=bounds[1]))
        front = subprocess.Popen([binary, "-db", "-f", cfg], preexec_fn=_die_with_parent, pass_fds=secrets_held.fds)
        threading.Thread(target=_restart_dead, args=(workers, stopping), daemon=True).start()
        print(f"fairval: {count} worker(s) behind {'https' if pem else 'http'}://{address}:{port} (HAProxy)",
              file=sys.stderr, flush=True)
        code = front.wait()
        print(f"fairval: HAProxy stopped ({code}); stopping the workers", file=sys.stderr, flush=True)
        return 1
    finally:
        stopping.set()
        if front is not None and front.poll() is None:
            front.terminate()
        for worker in workers:
            worker.stop()
        for process in [w.process for w in workers] + [front]:
            if process is None:
                continue
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()


def _all_answer(workers: list[_Worker], deadline: float, *, tries: int = 3) -> bool:
    """Wait until every worker answers its health check. One that exits first (its port taken after it was
    chosen, by a program this one does not know) starts again on another port, up to `tries` starts."""
    started = {id(w): 1 for w in workers}
    while not all(w.healthy() for w in workers):
        if time.monotonic() > deadline:
            return False
        for worker in workers:
            if (code := worker.exit_code()) is None:
                continue
            if started[id(worker)] >= tries:
                return False
            old, worker.port = worker.port, free_port()
            print(f"fairval: worker on port {old} exited ({code}) before it answered; starting it on port "
                  f"{worker.port}", file=sys.stderr, flush=True)
            worker.start()
            started[id(worker)] += 1
        time.sleep(0.3)
    return True


def _exit(signum, _frame) -> None:
    raise SystemExit(0)


def _restart_dead(workers: list[_Worker], stopping: threading.Event) -> None:
    while not stopping.wait(1.0):
        for worker in workers:
            if (code := worker.exit_code()) is not None and not stopping.is_set():
                print(f"fairval: worker on port {worker.port} exited ({code}); "
                      "starting it again", file=sys.stderr, flush=True)
                worker.start()
