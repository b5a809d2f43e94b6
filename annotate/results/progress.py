"""A study's progress for the researcher: items complete, ratings by group, activity, speed, flags.

The counts' words, the same on the Results page, in `study show` and in `analyze`: a rater answered at least one
item; a judgment is one rater's answers to one item (all its questions); a rating is one answer to one question,
so a judgment of a two-question item holds two ratings; a rater is active who was served an item or answered
one within the study's timeout (30 minutes unless set)."""
from __future__ import annotations

import time

from fairval.annotate.results.numbers import StudyData, complete_items, load_study_data, real_items
from fairval.store import Connection
from fairval.store import assignments as ledger


def study_progress(db: Connection, study_id: str, *, data: StudyData | None = None,
                   now: float | None = None) -> dict:
    data = data or load_study_data(db, study_id)
    s = data.study.settings
    now = time.time() if now is None else now
    regular = data.regular_items
    judged = judgments(data.ratings)
    complete = complete_items(judged, s.raters_per_item)
    attribute = s.balance_by or "gender"
    by_group = _judgments_by_group(judged, attribute, asked=attribute in s.asks())
    seconds = judged["seconds"].dropna()
    reserved, first = ledger.reserved(db, data.study.study_id, now - s.timeout_seconds)
    return {
        "n_items": len(regular),
        "items_complete": int(regular["item_id"].isin(complete).sum()),
        "judgments": len(judged),
        "judgments_needed": len(regular) * s.raters_per_item,
        "raters": int(judged["rater_id"].nunique()),
        "ratings": len(data.ratings),
        "questions": len(data.study.task.questions),
        "judgments_by_group": by_group,
        "group_attribute": attribute,
        "active_raters": ledger.active_raters(db, data.study.study_id, now - s.timeout_seconds),
        "active_minutes": s.timeout_seconds / 60,        # what "active" looks back over
        # served and not answered yet: held for their rater (a tab left open too) until the timeout
        "items_reserved": reserved,
        "first_free_in_seconds": None if first is None else max(0.0, first + s.timeout_seconds - now),
        "median_seconds": float(seconds.median()) if len(seconds) else None,
        "flagged_raters": {q.rater_id: list(q.flags) for q in data.quality if q.flags},
        "status": data.study.status,
        # attention checks: how many the study has, and how many each rater met (answered)
        "gold_items": real_gold(data.items), "gold_rate": s.gold_rate,
        "checks_met": checks_met(data),
    }


def judgments(ratings):
    """One row per judgment (a rater's answers to an item) of rating rows (one per question answered)."""
    return ratings.drop_duplicates(["item_id", "rater_id"])


def judgment_words(judgments: int, ratings: int) -> str:
    """"16 judgments (32 ratings, one per question answered)": in `analyze`, `study show` and on Results."""
    return f"{_count(judgments, 'judgment')} ({_count(ratings, 'rating')}, one per question answered)"


def counts_line(data: StudyData, n_items: int, n_raters: int) -> str:
    """`analyze`'s counts: "12 items, 2 raters, 16 judgments (…)"; before any answer "40 items, nothing rated
    yet": the study's items then, not the ones people were given so far (0 in an adaptive study)."""
    real = data.items.loc[real_items(data.items), "item_id"] if len(data.items) else []
    if not data.all_ratings["item_id"].isin(real).any():
        return f"{_count(len(real), 'item')}, nothing rated yet (no rater has answered one)"
    return f"{_count(n_items, 'item')}, {_count(n_raters, 'rater')}, " \
           f"{judgment_words(len(judgments(data.ratings)), len(data.ratings))}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun if n == 1 else noun + 's'}"      # outputs.formats.count's words (results sits below it)


def active_words(progress: dict) -> str:
    """What "active" counts: "raters active in the last 30 min"."""
    return f"raters active in the last {progress['active_minutes']:g} min"


def checks_met(data: StudyData) -> dict[str, int]:
    """Rater -> the gold items (attention checks) they answered, every rater who answered anything."""
    items = data.items
    gold = set(items.loc[items["gold"].notna() & ~items["practice"].astype(bool), "item_id"]) if len(items) else set()
    rated = data.all_ratings.drop_duplicates(["item_id", "rater_id"])
    # as plain strings: a categorical rater_id's lookup by value overflowed its int8 codes past 127 raters
    raters = rated["rater_id"].astype(str)
    counts = raters[rated["item_id"].isin(gold).to_numpy()].value_counts()
    return {r: int(counts.get(r, 0)) for r in sorted(raters.unique())}


def real_gold(items) -> int:
    """Gold items a rater can be served (practice ones only give feedback)."""
    return int((items["gold"].notna() & ~items["practice"].astype(bool)).sum()) if len(items) else 0


def _judgments_by_group(judged, attribute: str, *, asked: bool) -> dict[str, int]:
    """Judgments per value of the rater attribute. A rater without a value was "(not asked)" only when
    the study does not ask it (their ratings were imported, say); when it is asked, "(no answer)".
    Nothing when the attribute is neither asked nor known for anyone."""
    column = judged.get(f"rater_{attribute}")
    if column is None or (not asked and column.isna().all()):
        return {}
    counts = column.astype(object).fillna("(no answer)" if asked else "(not asked)").value_counts().sort_index()
    return {str(k): int(v) for k, v in counts.items()}
