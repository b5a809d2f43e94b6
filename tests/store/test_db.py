import sqlite3

import psycopg
import pytest

from fairval.store import open_db
from fairval.store.db import schema_version
from fairval.store.engine import BUSY_TIMEOUT_SECONDS
from fairval.store.schema import MIGRATIONS


def test_open_creates_schema(db_path):
    db = open_db(db_path)
    assert schema_version(db) == len(MIGRATIONS)
    assert {"studies", "items", "raters", "assignments", "ratings", "lmra_scores", "item_loads"} <= set(db.table_names())
    if db.dialect == "sqlite":
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] == int(BUSY_TIMEOUT_SECONDS * 1000)


def test_reopening_does_not_migrate_again(db_path):
    open_db(db_path).execute("INSERT INTO studies (study_id, task, settings, status, created_at) "
                             "VALUES ('s', 'template_quality', '{}', 'open', 0)")
    again = open_db(db_path)
    assert schema_version(again) == len(MIGRATIONS)
    assert again.execute("SELECT COUNT(*) FROM studies").fetchone()[0] == 1


def test_a_rating_is_unique_per_item_rater_question(db, template_study):
    db.execute("INSERT INTO items (study_id, item_id, position, data, source_format) "
               "VALUES ('tq', 'x', 0, '{}', 'jsonl')")
    row = ("tq", "x", "r", "quality", "4", "4", "app")
    sql = ("INSERT INTO ratings (study_id, item_id, rater_id, question, value, canonical, source) "
           "VALUES (?, ?, ?, ?, ?, ?, ?)")
    db.execute(sql, row)
    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.UniqueViolation)):
        db.execute(sql, row)


def test_a_database_from_a_newer_fairval_is_refused(db_path):
    from fairval.errors import StoreError
    open_db(db_path).set_schema_version(len(MIGRATIONS) + 1)
    with pytest.raises(StoreError, match="newer than this fairval"):
        open_db(db_path)


def test_migrating_an_old_file_keeps_its_data(db_path):
    from fairval.store.db import connect
    from fairval.store.schema import MIGRATIONS as steps
    old = connect(db_path)
    steps[0](old)                                  # a file made by the first release
    old.set_schema_version(1)
    old.execute("INSERT INTO studies (study_id, task, settings, status, created_at) "
                "VALUES ('s', 'template_quality', '{}', 'open', 0)")
    old.close()
    db = open_db(db_path)
    assert schema_version(db) == len(MIGRATIONS)
    assert "judge_calls" in db.table_names()
    assert db.execute("SELECT study_id FROM studies").fetchall() == [("s",)]


def test_parameters_and_literals_survive_translation_for_postgresql():
    from fairval.store.postgres import translate
    sql = "SELECT ':not' || '?' || x::text FROM t WHERE a = ? AND b = :b AND c LIKE 'x%'"
    assert translate(sql) == "SELECT ':not' || '?' || x::text FROM t WHERE a = %s AND b = %(b)s AND c LIKE 'x%%'"
