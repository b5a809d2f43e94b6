"""The live adaptive design (`fairval study set NAME design=adaptive budget=N`): while the study runs,
pairs are decided one at a time, in an order drawn with the study's seed, each going to people with a
chance π ∝ √(the judge's uncertainty) mixed with uniform, π = (1 − τ) π_unc + τ · budget / N, the mix τ
chosen from the human answers so far (analysis.active: live_floor, inclusion_probabilities with
Σπ = budget), recorded at the moment it is decided with its τ and the least chance any pair had then
(the bound of its term, known before the pair is). A pair is
decided when a rater needs one and no kept pair is open, inside the transaction that serves it, so
raters never wait, and a stop at any moment leaves a valid sample: the decided pairs are a prefix of a
random order, each with its chance on record (results: H weighted by 1/π, analysis.active.adaptive_terms)."""
from __future__ import annotations

import time

import numpy as np

from fairval.analysis.active import (FLOOR_EVERY, LIVE_FLOORS, PILOT_MIN_PAIRS, inclusion_probabilities, live_floor,
                                     prior_floor, uncertainties_of, weighted_lambda)
from fairval.annotate.material.pairs import pair_score, scored_question
from fairval.annotate.material.studies import Study, StudyError, stored_settings
from fairval.annotate.rating.sampling import samplable
from fairval.store import Database, audit, immediate, loads
from fairval.store import assignments as ledger
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import ratings as rating_store
from fairval.store import studies as study_store


def is_adaptive(study: Study) -> bool:
    return study.design.adaptive


def start(db: Database, study_id: str, budget: int, *, model: str | None = None, now: float | None = None,
          floors: tuple[float, ...] = LIVE_FLOORS) -> dict:
    """Set the study's pairs up for the adaptive design: every regular pair needs the judge's score
    (its uncertainty sets the chances), nobody may have been served yet, and 1 ≤ budget < pairs (the
    number of pairs people are expected to rate over the whole study). floors: the mixes τ the design
    may choose among, recorded with it ((1.0,): held at the uniform chance). Returns the design recorded."""
    study = samplable(db, study_id)
    items = item_store.items_frame(db, study_id)
    regular = items[items["gold"].isna() & ~items["practice"]].sort_values("position")
    if 1.0 not in floors or not all(0 < tau <= 1 for tau in floors):
        raise StudyError(f"the design's mixes must lie in (0, 1] and include 1 (uniform), not {list(floors)}")
    if not 2 <= budget + 1 <= len(regular):
        raise StudyError(f"budget must be between 1 and {len(regular) - 1} of the study's {len(regular)} pairs, "
                         f"not {budget}")
    scores = lmra_store.scores_frame(db, study_id)
    chosen = study.judge(scores["model"].unique(), model)
    judged = scores[scores["model"] == chosen].set_index("item_id")
    missing = [i for i in regular["item_id"] if i not in judged.index]
    if chosen is None or missing:
        raise StudyError(f"the adaptive design sets each pair's chance from the judge's uncertainty: "
                         f"{len(missing) if chosen else len(regular)} pair(s) of {study_id!r} have no score from "
                         f"{chosen or 'any judge'!r}; run or import the judge first")
    ids = list(map(str, regular["item_id"]))
    rows = judged.loc[ids]
    uncertainty = dict(zip(ids, uncertainties_of(rows["probabilities"], rows["score"])))
    order = dict(zip(ids, np.random.default_rng([study.settings.seed, 0xADA]).permutation(len(ids)).tolist()))
    now = time.time() if now is None else now
    design = {"design": "adaptive", "budget": int(budget), "of": len(ids), "n": 0, "seed": study.settings.seed,
              "judge": chosen, "floors": sorted(map(float, floors)), "drawn_at": now}
    with immediate(db, study_id):
        if rating_store.rating_count(db, study_id) or ledger.any_served(db, study_id):
            raise StudyError(f"study {study_id!r} has served or rated pairs already; choose the adaptive design "
                             "before raters start")
        item_store.plan_decisions(db, study_id, order, uncertainty)
        study_store.update_study(db, study_id, settings=stored_settings(study, human_sample=design))
        loads.rebuild(db, study_id, study.settings.load_rules(), now - study.settings.timeout_seconds)
        audit.record(db, "study.design", study_id, at=now, **{k: v for k, v in design.items() if k != "drawn_at"})
    return design


def decide_next(db: Database, study: Study, now: float) -> str | None:
    """Inside the caller's write transaction: decide pairs in order until one goes to people (its id)
    or none is left (None). Each decision's coin is the pair's own seeded uniform, so the draw is
    reproducible and independent of every answer; its chance depends on the answers so far only."""
    pending = item_store.next_undecided(db, study.study_id)
    if pending is None:
        return None
    frame = item_store.decisions_frame(db, study.study_id)
    budget = study.recorded.human_sample["budget"]
    mix = _floor(db, study, frame)
    chances = inclusion_probabilities(frame["uncertainty"].to_numpy(float), budget, floor=mix)
    at = dict(zip(frame["item_id"], range(len(frame))))
    least = float(chances.min())            # set before the next pair is known: bounds its term
    rules = study.settings.load_rules()
    while pending is not None:
        k = pending["decision_order"]
        chance = float(chances[at[pending["item_id"]]])
        kept = bool(np.random.default_rng([study.settings.seed, 0xADA, k]).random() < chance)
        item_store.record_decision(db, study.study_id, pending["item_id"], chance, least, kept, now, mix)
        if kept:
            loads.add_items(db, study.study_id, [(pending["item_id"], pending["position"], False)], rules)
            return pending["item_id"]
        pending = item_store.next_undecided(db, study.study_id)
    return None


def _floor(db: Database, study: Study, frame) -> float:
    """τ from the kept pairs people have completed, in the order they became complete: their judge
    uncertainty, residual y − λ f (λ as the terms weigh it) and the chance each was kept with (live_floor;
    the prior mix until there are enough)."""
    question = scored_question(study.task)
    ratings = rating_store.ratings_frame(db, study.study_id)
    ratings = ratings[(ratings["question"] == question.id) & ratings["item_id"].isin(frame.loc[frame["kept"], "item_id"])]
    floors = tuple(study.recorded.human_sample.get("floors", LIVE_FLOORS))
    if ratings.empty:
        return prior_floor(floors)
    first = ratings.drop_duplicates(["item_id", "rater_id"])
    first = first[first.groupby("item_id", observed=True).cumcount() < study.settings.raters_per_item]
    first = first.assign(score=[pair_score(question, str(c)) for c in first["canonical"]], at=np.arange(len(first)))
    per_item = first.groupby("item_id", observed=True).agg(n=("score", "size"), human=("score", "mean"), at=("at", "max"))
    done = per_item[per_item["n"] >= study.settings.raters_per_item].sort_values("at")
    done = done.iloc[:len(done) // FLOOR_EVERY * FLOOR_EVERY]          # τ changes only at these counts
    if len(done) < PILOT_MIN_PAIRS:
        return prior_floor(floors)
    judge = lmra_store.scores_frame(db, study.study_id)
    judge = judge[judge["model"] == study.recorded.human_sample["judge"]].set_index("item_id")["score"]
    by_id = frame.set_index("item_id")
    y, f = done["human"].to_numpy(float), judge.reindex(done.index).to_numpy(float)
    chance = by_id["chance"].reindex(done.index).to_numpy(float)
    residual = y - weighted_lambda(y, f, 1 / chance) * f
    return live_floor(by_id["uncertainty"].reindex(done.index).to_numpy(float), residual,
                      frame["uncertainty"].to_numpy(float), study.recorded.human_sample["budget"], rated_chance=chance,
                      floors=floors)


def decided_count(db: Database, study_id: str) -> tuple[int, int, int]:
    """(decided, went to people, undecided) pairs of an adaptive study."""
    return _counts(item_store.decisions_frame(db, study_id))


def _counts(frame) -> tuple[int, int, int]:
    decided = int(frame["decided_at"].notna().sum())
    return decided, int(frame["kept"].sum()), len(frame) - decided


def design_sentence(db: Database, study: Study) -> str | None:
    """How the study's pairs go to people (`study show`, Manage), or None before any design is set."""
    if not is_adaptive(study):
        return study.design.sentence
    sample = study.design.recorded
    frame = item_store.decisions_frame(db, study.study_id)
    decided, kept, undecided = _counts(frame)
    text = f"{study.design.sentence}; {decided:,} decided, {kept:,} of them went to people, {undecided:,} not yet"
    done = frame[frame["decided_at"].notna()]
    if not len(done):
        return text
    uniform = sample["budget"] / sample["of"]
    leaned = np.where(done["mix"].notna(), done["mix"] < 1, ~np.isclose(done["chance"], uniform))
    if not leaned.any():
        return text + ("; every pair so far had the uniform chance (the answers so far do not show that leaning on "
                       "the judge would narrow H's interval)")
    last = done["mix"].dropna()
    now = f", the uniform share now {last.iloc[-1]:.0%}" if len(last) else ""
    return (text + f"; {int(leaned.sum()):,} of {decided:,} decisions leaned on the judge{now}; chances so far "
            f"{done['chance'].min():.3f}–{done['chance'].max():.3f}")
