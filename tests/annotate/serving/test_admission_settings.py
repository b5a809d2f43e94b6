"""What `fairval serve` chooses for a launch by itself (issue 58): workers from the cores, the line's capacity,
and which store errors are a wait rather than a fault."""
import sqlite3

import pytest

from fairval.annotate.serving import admission, server
from fairval.store.engine import busy


@pytest.mark.parametrize("haproxy, cores, expected", [(True, 2, 2), (True, 1, 1), (True, 32, 8), (False, 4, 1)])
def test_workers_default_to_the_cores_when_haproxy_can_front_them(monkeypatch, haproxy, cores, expected):
    monkeypatch.setattr(server.shutil, "which", lambda name: "/usr/sbin/haproxy" if haproxy else None)
    monkeypatch.setattr(admission.os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert server.default_workers() == expected


def test_the_lines_capacity_and_a_workers_runs_come_from_the_cores_unless_set(monkeypatch):
    monkeypatch.setattr(admission.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.delenv("FAIRVAL_MOST_ACTIVE", raising=False)
    monkeypatch.delenv("FAIRVAL_RUNS_AT_ONCE", raising=False)
    assert admission.capacity() == 2 * admission.PER_CORE
    assert server.pool_size() == admission.RUNS_AT_ONCE + 2
    monkeypatch.setenv("FAIRVAL_MOST_ACTIVE", "40")
    monkeypatch.setenv("FAIRVAL_RUNS_AT_ONCE", "3")
    assert (admission.capacity(), server.pool_size()) == (40, 5)
    monkeypatch.setenv("FAIRVAL_MOST_ACTIVE", "none")      # not a count: the default, not a crash
    assert admission.capacity() == 2 * admission.PER_CORE


def test_a_lock_waited_out_is_busy_and_a_broken_disk_is_not():
    assert busy(sqlite3.OperationalError("database is locked"))
    assert busy(sqlite3.OperationalError("database table is locked: ratings"))
    assert not busy(sqlite3.OperationalError("attempt to write a readonly database"))
    assert not busy(sqlite3.OperationalError("database or disk is full"))


def test_a_postgresql_pool_with_nothing_free_in_time_is_busy():
    psycopg_pool = pytest.importorskip("psycopg_pool")
    import psycopg
    assert busy(psycopg_pool.PoolTimeout("couldn't get a connection after 30.00 sec"))
    assert not busy(psycopg.OperationalError("connection refused"))
