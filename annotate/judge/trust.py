"""`fairval judge trust`: on a pair study's human-rated pairs, the judge-confidence threshold above which
the judge may decide alone with a guaranteed agreement with people (analysis.trust), and the share of all
the study's pairs above it."""
from __future__ import annotations

import numpy as np
import pandas as pd

from fairval.analysis.lmra import combine_orders
from fairval.analysis.trust import trust_threshold
from fairval.annotate.material.importers import PROBABILITY_FIELDS as FIELDS
from fairval.annotate.material.pairs import scored_question
from fairval.annotate.results.numbers import load_study_data, main_judge, scored_ratings
from fairval.errors import StudyError

def judge_answers(lmra: pd.DataFrame) -> pd.DataFrame:
    """Per pair the judge's answer as a sign (+1 the first group's stereotype, −1 the other's, 0 none: the
    most likely of App. H's combined A, B, C) and its confidence (that answer's combined probability)."""
    rows = []
    for item, probabilities in zip(lmra["item_id"], lmra["probabilities"]):
        if not isinstance(probabilities, dict) or not all(f in probabilities for f in FIELDS):
            continue
        try:
            r = combine_orders([probabilities[f] for f in FIELDS[:3]], [probabilities[f] for f in FIELDS[3:]]).r
        except ValueError:
            continue
        best = int(np.argmax(r))
        rows.append({"item_id": item, "answer": (1, -1, 0)[best], "confidence": float(r[best])})
    return pd.DataFrame(rows, columns=["item_id", "answer", "confidence"])


def people_answers(ratings: pd.DataFrame) -> pd.Series:
    """Per pair the people's majority answer as a sign; a pair whose raters tie has none (left out)."""
    signs = np.sign(ratings["canonical"].astype(float))
    out = {}
    for item, part in signs.groupby(ratings["item_id"], observed=True):
        counts = part.value_counts()
        if len(counts) and (len(counts) == 1 or counts.iloc[0] > counts.iloc[1]):
            out[item] = int(counts.index[0])
    return pd.Series(out, dtype=float)


def judge_trust(db, study_id: str, *, agreement: float = 0.9, risk: float = 0.05, model: str | None = None) -> dict:
    data = load_study_data(db, study_id)
    if scored_question(data.study.task) is None:
        raise StudyError(f"study {study_id!r} is {data.study.task.name}: the judge decides pairs")
    judge = main_judge(data, model)
    if judge is None:
        raise StudyError(f"study {study_id!r} has no judge scores; run or import the judge first")
    answers = judge_answers(data.lmra[data.lmra["model"] == judge]).set_index("item_id")
    if answers.empty:
        raise StudyError(f"{judge!r} has no answer probabilities in {study_id!r} (imported scores alone say "
                         "nothing of its confidence); run `fairval lmra run` or import p_a … q_c")
    people = people_answers(scored_ratings(data))
    both = answers.join(people.rename("people"), how="inner")
    found = trust_threshold(both["confidence"].to_numpy(), (both["answer"] == both["people"]).to_numpy(),
                            agreement=agreement, risk=risk)
    above = 0 if found["threshold"] is None else int((answers["confidence"] >= found["threshold"]).sum())
    return {**found, "model": judge, "rated_pairs": len(both), "judged_pairs": len(answers),
            "pairs_to_judge_alone": above, "share_to_judge_alone": above / len(answers)}
