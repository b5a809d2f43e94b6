"""Ratings: written once per (item, rater, question); read back as one tidy DataFrame."""
from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from store.db import Database, immediate

RATING_COLUMNS = ["item_id", "rater_id", "question", "value", "canonical", "flipped", "comment",
                  "shown_at", "answered_at", "seconds", "source"]


def insert_ratings(db: Database, study_id: str, rows: Iterable[dict]) -> int:
    """Insert rating rows; one already stored for the same item/rater/question is kept unchanged.

    Returns how many rows were new.
    """
    with immediate(db):
        return db.insert("ratings", [{"study_id": study_id, **r} for r in rows], ignore=True)


def has_rating(db: Database, study_id: str, item_id: str, rater_id: str) -> bool:
    return db.scalar("SELECT EXISTS (SELECT 1 FROM ratings WHERE study_id = ? AND item_id = ? AND rater_id = ?)",
                     [study_id, item_id, rater_id]) == 1


def stored_values(db: Database, study_id: str) -> dict[tuple[str, str, str], str]:
    """(item, rater, question) -> value as shown, for every stored rating of the study."""
    return {(i, r, q): v for i, r, q, v in db.execute(
        "SELECT item_id, rater_id, question, value FROM ratings WHERE study_id = ?", [study_id])}


def ratings_frame(db: Database, study_id: str) -> pd.DataFrame:
    """Every rating with its rater's attributes and whether its item is a gold item."""
    rows = list(db.query(
        """SELECT r.item_id, r.rater_id, r.question, r.value, r.canonical, r.flipped, r.comment,
                  r.shown_at, r.answered_at, r.seconds, r.source,
                  ra.gender AS rater_gender, ra.race AS rater_race, ra.country AS rater_country,
                  i.gold IS NOT NULL AS gold_item
             FROM ratings r
             JOIN items i ON i.study_id = r.study_id AND i.item_id = r.item_id
             LEFT JOIN raters ra ON ra.study_id = r.study_id AND ra.rater_id = r.rater_id
            WHERE r.study_id = ? ORDER BY r.rating_id""", [study_id]))
    cols = RATING_COLUMNS + ["rater_gender", "rater_race", "rater_country", "gold_item"]
    frame = pd.DataFrame(rows, columns=cols)
    frame["gold_item"] = frame["gold_item"].astype(bool)
    return frame


def rating_count(db: Database, study_id: str) -> int:
    return db.execute("SELECT COUNT(*) FROM ratings WHERE study_id = ?", [study_id]).fetchone()[0]
