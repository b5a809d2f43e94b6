"""Shared fixtures: a fresh SQLite file per test, studies, and the public samples in ../shared/data."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotate.material.studies import create_study
from store import open_db

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
DISCRIM_EVAL = SHARED_DATA / "discrim-eval"


BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres_cluster():
    """Started on first use, for the whole session (see tests/postgres.py)."""
    from tests.postgres import PostgresCluster

    cluster = PostgresCluster()
    yield cluster
    cluster.stop()


def location(backend: str, request, tmp_path: Path) -> Path | str:
    """A new, empty database of this backend: a SQLite file, or a PostgreSQL URL."""
    if backend == "sqlite":
        return tmp_path / "fairval.db"
    return request.getfixturevalue("postgres_cluster").create_database()


def pytest_generate_tests(metafunc):
    """Modules marked both_backends run every test using the database on SQLite and on PostgreSQL."""
    if "db_path" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_backends"):
        metafunc.parametrize("db_path", BACKENDS, indirect=True)


@pytest.fixture
def db_path(request, tmp_path, monkeypatch) -> Path | str:
    """A new database: a SQLite file, or a PostgreSQL one in modules marked both_backends."""
    path = location(getattr(request, "param", "sqlite"), request, tmp_path)
    monkeypatch.setenv("FAIRVAL_DB", str(path))
    return path


@pytest.fixture
def db(db_path):
    database = open_db(db_path)
    yield database
    database.close()


@pytest.fixture
def template_study(db):
    return create_study(db, "tq", "template_quality", raters_per_item=3, seed=5, completion_code="DONE-42")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def discrim_eval_files() -> list[Path]:
    files = sorted(DISCRIM_EVAL.glob("*.jsonl"))
    assert files, f"the public samples are missing from {DISCRIM_EVAL}"
    return files


@pytest.fixture
def cli_output(db_path):
    """Run a fairval command on the test's database; it must succeed; returns what it printed."""
    from click.testing import CliRunner

    from annotate.cli.main import cli

    def invoke(*args):
        result = CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])
        assert result.exit_code == 0, result.output
        return result.output
    return invoke
