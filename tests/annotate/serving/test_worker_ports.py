"""The ports `fairval serve` gives its workers (and the tests and benches their servers): outside the kernel's
ephemeral range, where a client connection could take one between choosing it and binding it (a CI run's
server "did not start" that way), and a worker whose port was taken anyway starts again on another."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.streamlit_server import PortTaken, Running, on_a_free_port
from fairval.annotate.serving.server import _all_answer, _Worker, free_port


def ephemeral() -> range:
    low, high = (int(x) for x in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    return range(low, high + 1)


@pytest.mark.skipif(not Path("/proc/sys/net/ipv4/ip_local_port_range").exists(), reason="Linux's port range only")
def test_a_chosen_port_is_free_and_outside_the_range_outgoing_connections_take():
    taken = ephemeral()
    if taken.start <= 21000 and taken.stop > 64535:
        pytest.skip(f"this machine's ephemeral range {taken.start}–{taken.stop - 1} leaves no port outside it")
    for _ in range(200):
        port = free_port()
        assert port not in taken and 1024 <= port <= 65535
        with socket.socket() as s:                  # free: a server can listen on it
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            s.listen()


def test_a_client_connection_takes_its_port_from_the_ephemeral_range_so_a_server_could_not_bind_there():
    """Why: the local port of an outgoing connection blocks a listening bind on it, reuse or not."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname()) as client:
            local = client.getsockname()[1]
            if Path("/proc/sys/net/ipv4/ip_local_port_range").exists():
                assert local in ephemeral()
            with socket.socket() as late, pytest.raises(OSError):
                late.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                late.bind(("127.0.0.1", local))


def test_a_worker_whose_port_was_taken_starts_again_on_another_and_answers(tmp_path):
    holder = socket.socket()
    holder.bind(("127.0.0.1", free_port()))
    holder.listen()
    taken = holder.getsockname()[1]
    env = {**os.environ, "FAIRVAL_DB": str(tmp_path / "f.db"), "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none",
           "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    worker = _Worker(env, taken, "c" * 64)
    try:
        worker.start()
        assert _all_answer([worker], time.monotonic() + 120)
        assert worker.port != taken and worker.healthy()
    finally:
        holder.close()
        worker.stop()
        if worker.process is not None:
            worker.process.wait(20)


def test_a_worker_that_keeps_exiting_is_given_up_after_its_tries(tmp_path):
    holder = socket.socket()
    holder.bind(("127.0.0.1", free_port()))
    holder.listen()
    worker = _Worker({**os.environ, "FAIRVAL_DB": str(tmp_path / "f.db")}, holder.getsockname()[1], "c" * 64)
    worker.start = lambda: setattr(worker, "process", subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"]))
    try:
        worker.start()
        assert not _all_answer([worker], time.monotonic() + 600, tries=2)
        assert worker.exit_code() == 3
    finally:
        holder.close()


def test_a_bench_server_that_exits_says_why_at_once_and_a_taken_port_is_tried_again():
    said = [sys.executable, "-c", "print('  Port 1 is not available'); raise SystemExit(1)"]
    with pytest.raises(PortTaken, match=r"exited 1: Port 1 is not available"):
        Running(said, 1)
    with pytest.raises(RuntimeError, match=r"exited 2: no output") as other:
        Running([sys.executable, "-c", "raise SystemExit(2)"], 1)
    assert not isinstance(other.value, PortTaken)
    tried = []

    def start(port):
        tried.append(port)
        if len(tried) < 3:
            raise PortTaken("taken")
        return port

    assert on_a_free_port(start) == tried[-1] and len(set(tried)) == 3
