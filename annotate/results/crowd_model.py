"""The crowd's own model per nominal question (analysis.rater_model), checked against the attention checks:
fitted on every answer to real items and checks (the checks' answers are answers like any other), its label
on each check is compared with the check's expected answer (in the pair's true order)."""
from __future__ import annotations

import pandas as pd

from fairval.analysis.rater_model import dawid_skene
from fairval.annotate.results.result import CrowdModel


def crowd_model_check(answers: pd.DataFrame, gold: dict[str, dict[str, str]], question: str) -> CrowdModel | None:
    """answers: item_id, rater_id, canonical for one question, practice left out. None when the model has
    nothing to learn from (fewer than 2 answers to any item, or one answer only)."""
    model = dawid_skene(answers.rename(columns={"canonical": "value"}).dropna())
    if model is None:
        return None
    labels = model.labels()
    expected = {item: str(answers_[question]) for item, answers_ in gold.items()
                if question in answers_ and item in labels.index}
    hits = [str(labels[item]) == value for item, value in expected.items()]
    return CrowdModel(n_items=len(labels), classes=tuple(model.classes),
                      prior=tuple(float(p) for p in model.prior), gold_n=len(hits),
                      gold_agreement=(sum(hits) / len(hits)) if hits else None)
