"""A PostgreSQL server that goes away while fairval runs (a restart) is said at once as DatabaseUnreachable, so a
rater's Submit keeps the answer within a second or so; before, every statement waited the pool's 30 s and raised
PoolTimeout, which reads as a busy store. A pool that is merely full (slow transactions hold every connection)
is not said to be down: it waits on and is served."""
from __future__ import annotations

import threading
import time

import psycopg
import pytest

from fairval.errors import DatabaseUnreachable
from fairval.store.db import open_db
from fairval.store.engine import busy


@pytest.fixture
def cluster(request):
    if request.config.getoption("--sqlite-only"):
        pytest.skip("--sqlite-only (make check): PostgreSQL runs in make test")
    from tests.postgres import RestartableCluster, server_binaries
    if server_binaries() is None:
        pytest.skip("PostgreSQL's server is not installed (make test installs it)")
    running = RestartableCluster()
    yield running
    running.stop()


def _until(what, deadline_s: float = 60):
    """`what()` once it no longer raises a connection error (the pool reconnecting after the restart)."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return what()
        except (DatabaseUnreachable, psycopg.OperationalError):
            assert time.monotonic() < deadline, "the store never came back"
            time.sleep(0.2)


def test_a_lost_server_is_unreachable_not_busy_and_the_store_comes_back(cluster):
    url = cluster.create_database("lost")
    db = open_db(url)
    db.execute("CREATE TABLE kept (n INTEGER)")
    db.execute("INSERT INTO kept (n) VALUES (1)")
    cluster.halt()
    errors = []
    for _ in range(3):       # the pool's idle connection fails first (the server closed it), then the pool is empty
        with pytest.raises(Exception) as failed:
            db.execute("SELECT n FROM kept")
        errors.append(failed.value)
    assert isinstance(errors[-1], DatabaseUnreachable) and isinstance(errors[-2], DatabaseUnreachable), errors
    assert not any(busy(e) for e in errors), errors
    assert "\n" not in str(errors[-1]) and "127.0.0.1" in str(errors[-1])
    cluster.start()
    assert _until(lambda: db.execute("SELECT n FROM kept").fetchall()) == [(1,)]
    db.close()


def test_a_write_transaction_cannot_begin_while_the_server_is_away(cluster):
    from fairval.store.engine import immediate
    url = cluster.create_database("lostw")
    db = open_db(url)
    db.execute("CREATE TABLE kept (n INTEGER)")
    cluster.halt()
    for _ in range(2):
        with pytest.raises((DatabaseUnreachable, psycopg.OperationalError)), immediate(db) as tx:
            tx.execute("INSERT INTO kept (n) VALUES (2)")
    with pytest.raises(DatabaseUnreachable), immediate(db) as tx:
        tx.execute("INSERT INTO kept (n) VALUES (3)")
    cluster.start()
    assert _until(lambda: db.execute("SELECT COUNT(*) FROM kept").fetchone()[0]) == 0   # nothing half-written
    db.close()


def test_a_full_pool_on_a_server_that_answers_waits_and_is_served(cluster, monkeypatch):
    """One connection in the pool, held by a slow transaction past the moment the store asks whether the server
    is there: the other statement waits and gets its rows once the transaction commits, never DatabaseUnreachable."""
    from fairval.store import postgres
    monkeypatch.setenv("FAIRVAL_POOL_SIZE", "1")
    url = cluster.create_database("full")
    holder = open_db(url)
    holder.execute("CREATE TABLE kept (n INTEGER)")
    other = open_db(url)                       # the same pool (one per process and URL)
    probes = []
    real_probe = postgres._probe
    monkeypatch.setattr(postgres, "_probe", lambda u: (probes.append(u), real_probe(u)))
    holder.begin_write()
    holder.execute("INSERT INTO kept (n) VALUES (7)")
    got: list = []
    reader = threading.Thread(target=lambda: got.append(_catch(lambda: other.execute("SELECT n FROM kept").fetchall())))
    reader.start()
    deadline = time.monotonic() + 60
    while not probes:                          # the reader has waited past PROBE_AFTER and asked the server
        assert time.monotonic() < deadline and reader.is_alive(), got
        time.sleep(0.05)
    holder.commit()
    reader.join(60)
    assert got == [[(7,)]], got
    holder.close()
    other.close()


def _catch(what):
    try:
        return what()
    except Exception as e:       # the test reports what the reader met
        return e
