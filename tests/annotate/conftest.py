"""These tests run against SQLite and against a real PostgreSQL server (started by the tests)."""
import pytest

from tests.conftest import BACKENDS, location


@pytest.fixture(params=BACKENDS)
def db_path(request, tmp_path, monkeypatch):
    path = location(request.param, request, tmp_path)
    monkeypatch.setenv("FAIRVAL_DB", str(path))
    return path
