"""`fairval judge trust`: on a pair study's human-rated pairs, the judge-confidence threshold above which
the judge may decide alone with a guaranteed agreement with people (analysis.trust), and the share of all
the study's pairs above it; and `fairval study sample --escalate`: a study's pairs below a pilot's threshold
go to people, the others to the judge alone (results.escalation says what the numbers are then)."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from fairval.analysis.trust import trust_threshold
from fairval.annotate.material.design import Design
from fairval.annotate.material.pairs import scored_question
from fairval.annotate.rating.sampling import record_sample, regular_pairs, samplable
from fairval.annotate.results.escalation import judge_answers, people_answers
from fairval.annotate.results.numbers import load_study_data, main_judge, scored_ratings
from fairval.errors import StudyError
from fairval.store import lmra as lmra_store


def not_uniform(design: Design) -> str | None:
    """Why a study's rated pairs are not a uniform random sample of its pairs, which the threshold's
    guarantee needs (the binomial test counts the rated pairs as draws from all of them); None if they are."""
    if design.not_uniform is None:
        return None
    return (f"its rated pairs were drawn {design.not_uniform}, not uniformly at random, so the agreement they show "
            "is not the judge's agreement on the pairs above the threshold")


def judge_trust(db, study_id: str, *, agreement: float = 0.9, risk: float = 0.05, model: str | None = None) -> dict:
    if not 0 < agreement < 1 or not 0 < risk < 1:         # the command line's ranges; the API's callers too
        raise StudyError(f"agreement and risk must lie strictly between 0 and 1, not {agreement} and {risk}")
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
    above = 0 if found.threshold is None else int((answers["confidence"] >= found.threshold).sum())
    plain = dataclasses.asdict(found)           # the command's and the API's plain form, as it always was
    return {**plain, "tested": list(plain["tested"]), "model": judge, "rated_pairs": len(both), "judged_pairs": len(answers),
            "pairs_to_judge_alone": above, "share_to_judge_alone": above / len(answers),
            "not_guaranteed": not_uniform(data.study.design)}


def escalate_sample(db, study_id: str, pilot: str, *, agreement: float = 0.9, risk: float = 0.05,
                    model: str | None = None, now: float | None = None,
                    written: Callable[[list[str]], None] | None = None) -> dict:
    """Find the judge's threshold on `pilot` (a pair study people rated and the same judge scored, its pairs
    drawn from the same pool as this study's) and keep for people this study's pairs below it, and those
    with no confidence from the judge; the judge decides the rest alone. Before anyone is served, once.
    Returns the kept ids (`kept`) and the design (`sample`)."""
    study = samplable(db, study_id)
    if pilot == study_id:
        raise StudyError(f"the pilot must be another study: {study_id!r}'s own pairs are not rated before its sample")
    regular = regular_pairs(db, study_id)
    scores = lmra_store.scores_frame(db, study_id)
    judge = study.judge(scores["model"].unique(), model)
    if judge is None or judge not in set(scores["model"]):
        raise StudyError(f"trust or escalate decides from the judge's confidence: {study_id!r} has no scores from "
                         f"{judge or 'any judge'!r}; run the judge on its pairs first")
    found = judge_trust(db, pilot, agreement=agreement, risk=risk, model=judge)
    if found["not_guaranteed"]:
        raise StudyError(f"pilot {pilot!r} cannot set the threshold: {found['not_guaranteed']}; use a pilot whose "
                         "pairs were drawn uniformly (`fairval study sample --n`) or all rated")
    if found["threshold"] is None:
        raise StudyError(f"no confidence threshold of {judge!r} can be trusted on the {found['rated_pairs']} rated "
                         f"pairs of {pilot!r} (see `fairval judge trust {pilot}`): every pair would go to people; "
                         "draw a uniform or active sample instead")
    answers = judge_answers(scores[(scores["model"] == judge)]).set_index("item_id")["confidence"]
    confidence = answers.reindex(regular["item_id"])
    keep = list(regular["item_id"][~(confidence >= found["threshold"]).to_numpy()])
    trusted = len(regular) - len(keep)
    if not keep or not trusted:
        raise StudyError(f"{'every' if not keep else 'no'} pair of {study_id!r} is at or above {judge!r}'s "
                         f"threshold {found['threshold']:.3f}: " + ("the judge may decide them all alone (nothing "
                         "for people to rate)" if not keep else "every pair goes to people; no sample is needed"))
    sample = {"design": "escalate", "n": len(keep), "of": len(regular), "trusted": trusted, "judge": judge,
              "threshold": found["threshold"], "agreement": agreement, "risk": risk,
              "pilot": {"study": pilot, "pairs": found["rated_pairs"], "n_above": found["n_above"],
                        "disagreements": found["disagreements"], "p_value": found["p_value"]}}
    kept = record_sample(db, study, regular, keep, sample, now=now, written=written)
    return {"kept": kept, "sample": sample}
