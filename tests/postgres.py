"""A throwaway PostgreSQL cluster for the tests: Debian's server binaries, `initdb` in a temporary folder,
`postgres` on a free port of 127.0.0.1, stopped and removed at the end. One database per test."""
from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

# outside the ephemeral range, where a client connection could take the port before postgres binds it
from fairval.annotate.serving.server import free_port


def server_binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresCluster:
    def __init__(self):
        bindir = server_binaries()
        if bindir is None:
            raise RuntimeError("PostgreSQL's server is not installed: run the README's test command "
                               "(make test), which installs Debian's postgresql package")
        self.folder = Path(tempfile.mkdtemp(prefix="fairval-pg-"))
        # initdb refuses to run as root: the cluster belongs to the postgres user then
        user = None
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.folder, account.pw_uid, account.pw_gid)
            user = "postgres"
        data = self.folder / "data"
        subprocess.run([bindir / "initdb", "-D", data, "--auth=trust", "--username=postgres",
                        "--encoding=UTF8", "--no-locale"], check=True, capture_output=True, user=user)
        self.port = free_port()
        self.log = open(self.folder / "server.log", "wb")
        # fsync off: a test cluster trades durability for speed; behaviour is otherwise the same
        self.process = subprocess.Popen(
            [bindir / "postgres", "-D", data, "-p", str(self.port), "-k", self.folder,
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=300"],
            stdout=self.log, stderr=subprocess.STDOUT, user=user, start_new_session=True)
        self.admin_url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._names = itertools.count()
        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(self.admin_url, connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError("postgres did not start: " + (self.folder / "server.log").read_text()) from None
                time.sleep(0.2)

    def create_database(self, prefix: str = "t") -> str:
        """A new, empty database; returns its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)     # "fast" shutdown: does not wait for clients
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class RestartableCluster:
    """PostgresCluster, stopped ("fast" shutdown, as a restart does) and started again on its data."""

    def __init__(self):
        self.cluster = PostgresCluster()
        self.create_database = self.cluster.create_database

    def halt(self) -> None:
        self.cluster.process.send_signal(signal.SIGINT)
        self.cluster.process.wait(30)

    def start(self) -> None:
        c = self.cluster
        user = "postgres" if os.geteuid() == 0 else None
        c.process = subprocess.Popen(
            [server_binaries() / "postgres", "-D", c.folder / "data", "-p", str(c.port), "-k", c.folder,
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=300"],
            stdout=c.log, stderr=subprocess.STDOUT, user=user, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(c.admin_url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                assert time.monotonic() < deadline, "postgres did not start again"
                time.sleep(0.2)

    def stop(self) -> None:
        self.cluster.stop()
