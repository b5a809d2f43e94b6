"""The judge's finished calls, so a resumed run never pays for the same call twice."""
from __future__ import annotations

import json
import time

from fairval.store.engine import Connection, Row, immediate


def finished(db: Connection, study_id: str, model: str) -> dict[tuple[str, bool], list[float] | None]:
    """(item, swapped) -> probabilities [A, B, C] of every finished call set; None for an order the
    judge answered without A, B or C (paid for, kept, never asked again)."""
    return {(i, bool(s)): json.loads(p) for i, s, p in db.execute(
        "SELECT item_id, swapped, probabilities FROM judge_calls WHERE study_id = ? AND model = ?",
        [study_id, model])}


def save_call(db: Connection, study_id: str, item_id: str, model: str, *, swapped: bool, method: str,
              probabilities: list[float] | None, requests: int, prompt_tokens: int, completion_tokens: int) -> None:
    with immediate(db, study_id):
        db.insert("judge_calls", [{
            "study_id": study_id, "item_id": item_id, "model": model, "swapped": int(swapped),
            "method": method, "probabilities": json.dumps(probabilities), "requests": requests,
            "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "created_at": time.time()}], upsert_on=("study_id", "item_id", "model", "swapped"))


def save_sample(db: Connection, study_id: str, item_id: str, model: str, *, swapped: bool, k: int,
                letter: str | None, prompt_tokens: int, completion_tokens: int) -> None:
    """One sampled answer, stored the moment it arrives (it is paid for)."""
    with immediate(db, study_id):
        db.insert("judge_samples", [{
            "study_id": study_id, "item_id": item_id, "model": model, "swapped": int(swapped), "k": k,
            "letter": letter, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "created_at": time.time()}], ignore=True)


def samples(db: Connection, study_id: str, model: str) -> dict[tuple[str, bool], list[tuple[str | None, int, int]]]:
    """(item, swapped) -> the sampled answers stored so far: (letter, prompt tokens, completion tokens)."""
    out: dict[tuple[str, bool], list[tuple[str | None, int, int]]] = {}
    for i, s, letter, pt, ct in db.execute(
            "SELECT item_id, swapped, letter, prompt_tokens, completion_tokens FROM judge_samples "
            "WHERE study_id = ? AND model = ? ORDER BY item_id, swapped, k", [study_id, model]):
        out.setdefault((i, bool(s)), []).append((letter, pt or 0, ct or 0))
    return out


def spend(db: Connection, study_id: str, model: str) -> Row:
    row = db.execute("""SELECT COUNT(*), COALESCE(SUM(requests), 0), COALESCE(SUM(prompt_tokens), 0),
                               COALESCE(SUM(completion_tokens), 0)
                          FROM judge_calls WHERE study_id = ? AND model = ?""", [study_id, model]).fetchone()
    return {"call_sets": row[0], "requests": row[1], "prompt_tokens": row[2], "completion_tokens": row[3]}
