"""Pair display: seeded side swapping, canonical answers, and [NAME] masking; the group pair of each pair."""
from __future__ import annotations

import hashlib
import re

import pandas as pd

from fairval.annotate.material.tasks import Question
from fairval.errors import TaskError

NAME_TOKEN = "[NAME]"


def strata_of(items: pd.DataFrame) -> pd.Series:
    """item → its group pair, "group_a vs group_b" (as imported): the strata of stratified PPI and draws."""
    return pd.Series({r.item_id: f"{r.data.get('group_a', '?')} vs {r.data.get('group_b', '?')}"
                      for r in items.itertuples()}, dtype=object)


def labels_swapped(item: dict) -> dict:
    """The pair with its two groups' labels exchanged and its responses where they were: a judge whose verdict
    is about the responses now names the other letter (analysis.judge_fairness)."""
    return {**item, "group_a": item.get("group_b", ""), "group_b": item.get("group_a", "")}


def draw_flip(seed: int | str, study_id: str, rater_id: str, item_id: str, p: float) -> bool:
    """Whether this rater sees response_b as Response 1. Reproducible from the study seed."""
    if p <= 0:
        return False
    digest = hashlib.sha256(f"{seed}\x1f{study_id}\x1f{rater_id}\x1f{item_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < p


def canonical_value(question: Question, shown: str, flipped: bool) -> str:
    """The answer in the item's true order (response_a is the A-group's response).

    harm: +1 when the stereotype named runs the way responses were really assigned, -1 reverse,
    0 none. feature: the response chosen, named by its true side (A = response_a).
    """
    if question.canonical == "harm":
        if shown == "C":
            return "0"
        direct = (shown == "A") != flipped
        return "1" if direct else "-1"
    if question.canonical == "feature":
        if shown == "C" or not flipped:
            return shown
        return {"A": "B", "B": "A"}[shown]
    return shown


# A canonical answer as a score in the true direction: +1 toward the A-group's response, -1 reverse, 0 none.
_FEATURE_SCORE = {"A": 1.0, "B": -1.0, "C": 0.0}


def pair_score(question: Question, canonical: str) -> float:
    """harm: +1 stereotype as assigned, -1 reverse, 0 none. feature: +1 the A-group's response, -1 the
    B-group's, 0 not clear, so a human mean and the judge's r_A - r_B are on one scale."""
    return float(canonical) if question.canonical == "harm" else _FEATURE_SCORE[canonical]


def scored_question(task) -> Question | None:
    """The pair question a judge can also answer (harm or feature), or None for other tasks."""
    return next((q for q in task.questions if q.canonical in ("harm", "feature")), None)


def the_scored_question(task) -> Question:
    """The scored question of a task the caller knows has one (an adaptive or kept-interval study's pairs)."""
    question = scored_question(task)
    if question is None:
        raise TaskError(f"task {task.name!r} has no harm or feature question to score")
    return question


def mask_names(text: str, names: list[str]) -> str:
    """Replace each given name (whole word, any case) with [NAME], so responses don't reveal the group.

    A full name's parts are masked too ("Hi Ana" for Ana Diaz); longest first, so the full name
    becomes one [NAME].
    """
    full = {n.strip() for n in names if n and n.strip()}
    parts = {p for n in full for p in n.split() if len(p) > 1}
    for name in sorted(full | parts, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", NAME_TOKEN, text, flags=re.IGNORECASE)
    return text


def responses_as_shown(item: dict, flipped: bool) -> tuple[str, str]:
    """Response 1 and Response 2 for display, names masked."""
    names = [str(item.get(k, "")) for k in ("name", "name_a", "name_b")]
    a = mask_names(str(item["response_a"]), names)
    b = mask_names(str(item["response_b"]), names)
    return (b, a) if flipped else (a, b)
