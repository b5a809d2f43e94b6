"""A name study's block: how often people perceive each name as the group it was chosen to signal."""
from __future__ import annotations

import pandas as pd

from fairval.analysis.names import accuracy_by_intended, confusion
from fairval.annotate.material.tasks import Task


def name_numbers(task: Task, items: pd.DataFrame, ratings: pd.DataFrame) -> dict:
    """Per perceived question (Task.perceived_questions: race, gender on the preset): accuracy against the
    item's intended group, its n and interval, and the confusion matrix."""
    intended = {r.item_id: r.data for r in items.itertuples()}
    out: dict = {}
    for question in task.perceived_questions:
        attr = question.id
        part = ratings[ratings["question"] == attr]
        part = part.assign(intended=part["item_id"].map(lambda i, attr=attr: intended[i].get(attr)))
        acc = accuracy_by_intended(part)
        out[f"{attr}_accuracy"] = {g: a.share for g, a in acc.items()}
        out[f"{attr}_n"] = {g: a.n for g, a in acc.items()}
        out[f"{attr}_accuracy_ci"] = {g: None if a.ci is None else list(a.ci) for g, a in acc.items()}
        labels = list(question.values)
        out[f"{attr}_confusion"] = confusion(part, labels).to_dict(orient="index") if len(part) else {}
    return out


def perceived(names: dict) -> list[str]:
    """The questions of a `names` block (as `analyze --json` has it), in the task's order."""
    return [key[:-len("_accuracy")] for key in names if key.endswith("_accuracy")]
