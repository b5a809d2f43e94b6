"""A name study's block: how often people perceive each name as the group it was chosen to signal."""
from __future__ import annotations

import pandas as pd

from fairval.analysis.interval import Interval
from fairval.analysis.names import accuracy_by_intended, confusion
from fairval.annotate.material.tasks import Task
from fairval.annotate.results.block import scalar
from fairval.annotate.results.result import Names, Perceived


def name_numbers(task: Task, items: pd.DataFrame, ratings: pd.DataFrame) -> Names:
    """Per perceived question (Task.perceived_questions: race, gender on the preset): accuracy against the
    item's intended group, its n and interval, and the confusion matrix."""
    intended = {r.item_id: r.data for r in items.itertuples()}
    out: dict[str, Perceived] = {}
    for question in task.perceived_questions:
        attr = question.id
        part = ratings[ratings["question"] == attr]
        part = part.assign(intended=part["item_id"].map(lambda i, attr=attr: intended[i].get(attr)))
        acc = accuracy_by_intended(part)
        # a group no rater could ever answer (an item stored before labels were matched, or a custom task's
        # label outside its options) gets no accuracy: 0.000 would read as "never perceived"
        unscored = {g: unscored_reason(g, question.values) for g in acc if g not in question.values}
        labels = list(question.values)
        out[attr] = Perceived(
            accuracy=scalar({g: None if g in unscored else a.share for g, a in acc.items()}),
            n=scalar({g: a.n for g, a in acc.items()}),
            accuracy_ci={g: None if a.ci is None or g in unscored else Interval.of(scalar(list(a.ci)))
                         for g, a in acc.items()},
            confusion=scalar(confusion(part, labels).to_dict(orient="index") if len(part) else {}),
            unscored=unscored)
    return Names(out)


def unscored_reason(group: str, answers) -> str:
    """Why a group has no accuracy, in one line, naming the nearest answer a rater could give."""
    from fairval.annotate.material.vocabulary import match, nearest

    found = match(group, answers)
    near = found.answer if found else nearest(group, answers)
    return (f"no accuracy: {group!r} is not one of the answers raters could give ({', '.join(answers)})"
            + (f"; it may mean {near!r}: import the items into a new study, where labels are matched, or fix them"
               if near else "; fix the items' labels"))

