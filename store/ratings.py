"""Ratings: written once per (item, rater, question); read back as one tidy DataFrame."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from fairval.store.engine import Connection, Row, joined

ANALYSIS_COLUMNS = ["item_id", "rater_id", "question", "value", "canonical", "flipped", "comment", "seconds",
                    "language"]
DETAIL_COLUMNS = ["shown_at", "answered_at", "source"]
STORED_ORDER = ["item_id", "rater_id", "question", "value", "canonical", "flipped", "comment", "shown_at",
                "answered_at", "seconds", "source", "language"]


def insert_ratings(db: Connection, study_id: str, rows: Iterable[Row]) -> int:
    """Insert rating rows; one already stored for the same item/rater/question is kept unchanged.

    Returns how many rows were new. Inside the caller's transaction (an answer, an import) without a savepoint:
    neither goes on when it fails.
    """
    with joined(db, study_id):
        return db.insert("ratings", [{"study_id": study_id, **r} for r in rows], ignore=True)


def has_rating(db: Connection, study_id: str, item_id: str, rater_id: str) -> bool:
    return bool(db.scalar("SELECT EXISTS (SELECT 1 FROM ratings WHERE study_id = ? AND item_id = ? AND rater_id = ?)",
                          [study_id, item_id, rater_id]) == 1)


def answers_of(db: Connection, study_id: str, item_id: str, rater_id: str) -> dict[str, str]:
    """question -> value as shown, of one rater's answer to one item (empty when none is stored)."""
    return dict(db.execute("SELECT question, value FROM ratings WHERE study_id = ? AND item_id = ? AND rater_id = ?",
                           [study_id, item_id, rater_id]).fetchall())


def comment_of(db: Connection, study_id: str, item_id: str, rater_id: str) -> str | None:
    """The comment stored with one rater's answer to one item (on its first question row; rows stored
    before issue 55 repeat it on each)."""
    comment = db.scalar("SELECT comment FROM ratings WHERE study_id = ? AND item_id = ? AND rater_id = ? "
                        "AND comment IS NOT NULL LIMIT 1",
                        [study_id, item_id, rater_id])
    return None if comment is None else str(comment)


def raters_of_item(db: Connection, study_id: str, item_id: str) -> int:
    return int(db.scalar("SELECT COUNT(DISTINCT rater_id) FROM ratings WHERE study_id = ? AND item_id = ?",
                         [study_id, item_id]))


def stored_values(db: Connection, study_id: str) -> dict[tuple[str, str, str], str]:
    """(item, rater, question) -> value as shown, for every stored rating of the study."""
    return {(i, r, q): v for i, r, q, v in db.execute(
        "SELECT item_id, rater_id, question, value FROM ratings WHERE study_id = ?", [study_id])}


def ratings_frame(db: Connection, study_id: str, *, details: bool = False) -> pd.DataFrame:
    """Every rating of the study in typed columns, from one scan of the ratings table, in the order stored.

    item_id, rater_id, question, value and canonical are categoricals (a million ratings repeat a
    few thousand ids and a handful of answers); seconds is a float. The raters' attributes and
    whether an item is gold come from the (small) raters and items tables, mapped per column rather
    than joined per row. `details` adds shown_at, answered_at and source (for export).
    """
    columns = ANALYSIS_COLUMNS + (DETAIL_COLUMNS if details else [])
    # NOT INDEXED: a study is usually most of the table, read fastest in rowid (= storage) order.
    scan = "ratings NOT INDEXED" if db.dialect == "sqlite" else "ratings"
    rows = db.execute(f"SELECT {', '.join(columns)} FROM {scan} WHERE study_id = ? ORDER BY rating_id",
                      [study_id]).fetchall()
    table = np.array(rows, dtype=object).reshape(len(rows), len(columns))
    frame = pd.DataFrame({name: _typed(name, table[:, k]) for k, name in enumerate(columns)})
    attributes = db.query("SELECT rater_id, gender, race, country FROM raters WHERE study_id = ?", [study_id])
    for attribute in ("gender", "race", "country"):
        known = {r["rater_id"]: r[attribute] for r in attributes}
        frame[f"rater_{attribute}"] = frame["rater_id"].map(known).astype(object)
    gold = {r[0] for r in db.execute("SELECT item_id FROM items WHERE study_id = ? AND gold IS NOT NULL",
                                     [study_id])}
    frame["gold_item"] = frame["item_id"].isin(gold).astype(bool)
    ordered = [c for c in STORED_ORDER if c in columns]
    return frame[[*ordered, "rater_gender", "rater_race", "rater_country", "gold_item"]]


def _typed(name: str, column: np.ndarray) -> pd.Series:
    if name in ("item_id", "rater_id", "question", "value", "canonical", "source"):
        codes, uniques = pd.factorize(column, sort=True)
        return pd.Series(pd.Categorical.from_codes(codes, uniques))
    if name == "flipped":
        return pd.Series(column, dtype="Int64")
    if name in ("comment", "language"):          # language: None where not recorded (before issue 57)
        return pd.Series(column, dtype=object)
    return pd.Series(column, dtype=float)


def rating_count(db: Connection, study_id: str) -> int:
    return int(db.execute("SELECT COUNT(*) FROM ratings WHERE study_id = ?", [study_id]).fetchone()[0])


def counts_by_source(db: Connection, study_id: str) -> dict[str, int]:
    """How many of the study's ratings (practice and checks too) fairval served ('app') and how many were
    imported ('import'): the methods claim serving rules only for the served ones."""
    return {str(source): int(n) for source, n in db.execute(
        "SELECT source, COUNT(*) FROM ratings WHERE study_id = ? GROUP BY source", [study_id]).fetchall()}
