"""`fairval serve` is stopped whole by SIGTERM or SIGINT sent to it alone: no Streamlit worker or proxy
is left holding the port."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from fairval.annotate.material.demo import ensure_demo
from fairval.store import open_db
from tests.e2e.conftest import Server


def descendants(pid: int) -> set[int]:
    """Every process below pid, from /proc (children of children too)."""
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            children = (task / "children").read_text().split() if (task / "children").exists() else []
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper is no longer running)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("workers,sig", [(1, signal.SIGTERM), (2, signal.SIGTERM), (2, signal.SIGINT)])
def test_one_signal_to_fairval_serve_stops_every_process_it_started(tmp_path, workers, sig):
    db = open_db(tmp_path / "s.db")
    ensure_demo(db)
    db.close()
    server = Server(tmp_path / "s.db", workers=workers)
    try:
        children = descendants(server.process.pid)
        assert len(children) >= workers, children          # the Streamlit processes (and the proxy)
        os.kill(server.process.pid, sig)                     # to fairval alone, as systemd or Ctrl-C would
        assert server.process.wait(120) in (0, -sig, 128 + sig, 1)
        deadline = time.monotonic() + 120                    # generous: a loaded machine is slow, not wrong
        while any(alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [p for p in children if alive(p)]
        assert not listening(server.port)
    finally:
        server.stop()


ANALYSIS_LIBRARIES = ("/pandas/", "/scipy/", "/numpy/", "/pyarrow/", "/krippendorff/")


def other_addresses() -> list[str]:
    """This machine's addresses other machines could use (not loopback), from the kernel's table."""
    found = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    return [a for a in found if not a.startswith("127.") and ":" not in a]


def loaded_libraries(pid: int) -> set[str]:
    """The analysis libraries whose compiled modules the process has mapped (from /proc/PID/maps)."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return {lib.strip("/") for lib in ANALYSIS_LIBRARIES if lib in maps}


def test_the_parent_of_fairval_serve_only_supervises_and_holds_no_analysis_library(tmp_path):
    db = open_db(tmp_path / "s.db")
    ensure_demo(db)
    db.close()
    server = Server(tmp_path / "s.db", workers=2)
    try:
        assert loaded_libraries(server.process.pid) == set()
        assert len(descendants(server.process.pid)) >= 2            # it does supervise the workers
        # The check can see a library: this test's own process has read the demo into pandas.
        assert {"pandas", "numpy"} <= loaded_libraries(os.getpid())
    finally:
        server.stop()


def test_fairval_demo_makes_its_studies_in_a_child_and_serves_from_a_small_parent(tmp_path):
    """`make app`'s command: the studies are created (which needs pandas) before the server starts, yet
    the process left supervising never loaded the analysis libraries."""
    import subprocess
    import sys

    from tests.e2e.conftest import ROOT, free_port, healthy
    port = free_port()
    log = open(tmp_path / "demo.log", "w")
    process = subprocess.Popen([sys.executable, "-c", "from fairval.annotate.cli.main import main; main()", "--db",
                                str(tmp_path / "d.db"), "demo", "--port", str(port)], cwd=ROOT, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True,
                               env={**os.environ, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"})
    try:
        assert healthy(f"http://127.0.0.1:{port}", within=120), (tmp_path / "demo.log").read_text()
        assert loaded_libraries(process.pid) == set()
        # the demo's password is published: it listens on this machine only
        for address in other_addresses():
            with pytest.raises(OSError):
                socket.create_connection((address, port), timeout=3).close()
        assert "created demo studies: demo-templates" in (tmp_path / "demo.log").read_text()
        made = open_db(tmp_path / "d.db")
        assert "demo-pairs" in [r[0] for r in made.execute("SELECT study_id FROM studies")]
        made.close()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
