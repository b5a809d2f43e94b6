"""The serving order kept with each item: its rank in the study's seeded random order and the template it
fills (annotate/rating/assignment.py serves by them). No pandas here: store/loads.py imports it."""
from __future__ import annotations

import hashlib
import json

from fairval.store.engine import Connection, Row

TEMPLATE_FIELD = "decision_question_id"      # fills of one template share it (discrim-eval's layout)


def serve_rank(seed: int, study_id: str, item_id: str) -> int:
    """The item's place in the study's seeded random serving order: a hash of the seed and the ids, so
    it is the same whenever it is computed, and unrelated to the file's order or the item's content.
    31 bits, to fit every backend's INTEGER."""
    digest = hashlib.sha256(f"{seed}\x1f{study_id}\x1f{item_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def template_of(data: Row) -> str | None:
    """The template an item is a fill of (None: it is its own)."""
    value = data.get(TEMPLATE_FIELD) if isinstance(data, dict) else None
    return None if value is None or str(value).strip() == "" else str(value)


def study_seed(db: Connection, study_id: str) -> int:
    raw = db.scalar("SELECT settings FROM studies WHERE study_id = ?", [study_id])
    return int((json.loads(raw) if raw else {}).get("seed") or 0)


def fill_order(db: Connection, study_id: str) -> int:
    """Inside the caller's write transaction: a serving rank and template for the study's items that have
    none (items stored before they were kept, or written in bulk); returns how many."""
    seed = study_seed(db, study_id)
    rows = db.execute("SELECT item_id, data FROM items WHERE study_id = ? AND serve_rank IS NULL", [study_id]).fetchall()
    db.executemany("UPDATE items SET serve_rank = ?, template = ? WHERE study_id = ? AND item_id = ?",
                   [(serve_rank(seed, study_id, i), template_of(json.loads(d)), study_id, i) for i, d in rows])
    return len(rows)
