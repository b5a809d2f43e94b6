"""The live adaptive design (`fairval study set NAME design=adaptive budget=N`): while the study runs,
pairs are decided one at a time, in an order drawn with the study's seed, each going to people with a
chance π ∝ √(the judge's uncertainty) mixed with uniform, π = (1 − τ) π_unc + τ · budget / N, the mix τ
chosen from the human answers so far (analysis.active: live_floor, inclusion_probabilities with
Σπ = budget), recorded at the moment it is decided with its τ and the least chance any pair had then
(the bound of its term, known before the pair is). A pair is
decided when a rater needs one and no kept pair is open, inside the transaction that serves it, so
raters never wait, and a stop at any moment leaves a valid sample: the decided pairs are a prefix of a
random order, each with its chance on record (results: H weighted by 1/π, analysis.active.adaptive_terms).

A decision costs the same whatever the study's size: each mix's chance rule is set over all the pairs
once, at start (analysis.active.rule_constants, recorded with the design with the least chance it gives),
and τ is kept as answers complete kept pairs (store.mixes; chosen again from those pairs only at every
FLOOR_EVERY-th), so deciding a pair reads its own uncertainty and one row."""
from __future__ import annotations

import logging
import time

import numpy as np

from fairval.analysis.active import (
    FLOOR_EVERY,
    LIVE_FLOORS,
    apply_rule,
    live_floor_by_rules,
    rule_constants,
    uncertainties_of,
    weighted_lambda,
)
from fairval.analysis.running_adaptive import planned_pairs
from fairval.annotate.material.pairs import pair_score, scored_question, the_scored_question
from fairval.annotate.material.studies import LoadedStudy, stored_settings
from fairval.annotate.rating.sampling import samplable
from fairval.errors import StudyError
from fairval.store import Connection, audit, immediate, loads
from fairval.store import assignments as ledger
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import mixes as mix_store
from fairval.store import ratings as rating_store
from fairval.store import studies as study_store


def is_adaptive(study: LoadedStudy) -> bool:
    return study.design.adaptive


def start(db: Connection, study_id: str, budget: int, *, model: str | None = None, now: float | None = None,
          floors: tuple[float, ...] = LIVE_FLOORS) -> dict:
    """Set the study's pairs up for the adaptive design: every regular pair needs the judge's score
    (its uncertainty sets the chances), nobody may have been served yet, and 1 ≤ budget < pairs (the
    number of pairs people are expected to rate over the whole study). floors: the mixes τ the design
    may choose among, recorded with it ((1.0,): held at the uniform chance). The decided pairs H's anytime
    interval is tuned to (`planned`: the expected stop at the study's target width, else every pair) are fixed
    here, before any answer. Returns the design recorded."""
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
              "judge": chosen, "floors": sorted(map(float, floors)), "drawn_at": now,
              "planned": planned_pairs(budget, len(ids), study.settings.target_ci_width)}
    with immediate(db, study_id):
        if rating_store.rating_count(db, study_id) or ledger.any_served(db, study_id):
            raise StudyError(f"study {study_id!r} has served or rated pairs already; choose the adaptive design "
                             "before raters start")
        item_store.plan_decisions(db, study_id, order, uncertainty)
        design["rules"] = _rules_of(item_store.decisions_frame(db, study_id), design)   # as stored, read back
        study_store.update_study(db, study_id, settings=stored_settings(study, human_sample=design))
        loads.rebuild(db, study_id, study.settings.load_rules(), now - study.settings.timeout_seconds)
        audit.record(db, "study.design", study_id, at=now,
                     **{k: v for k, v in design.items() if k not in ("drawn_at", "rules")})
    return design


def decide_next(db: Connection, study: LoadedStudy, now: float) -> str | None:
    """Inside the caller's write transaction: decide pairs in order until one goes to people (its id)
    or none is left (None). Each decision's coin is the pair's own seeded uniform, so the draw is
    reproducible and independent of every answer; its chance depends on the answers so far only."""
    pending = item_store.next_undecided(db, study.study_id)
    if pending is None:
        return None
    rules = _rules(db, study)
    mix = _mix(db, study, rules)
    rule = rules[mix]
    least = rule["least"]                   # set before the next pair is known: bounds its term
    load_rules = study.settings.load_rules()
    while pending is not None:
        k = pending["decision_order"]
        chance = float(apply_rule(rule, [pending["uncertainty"]])[0])
        kept = bool(np.random.default_rng([study.settings.seed, 0xADA, k]).random() < chance)
        item_store.record_decision(db, study.study_id, pending["item_id"], chance, least, kept, now, mix)
        if kept:
            loads.add_items(db, study.study_id, [(pending["item_id"], pending["position"], False)], load_rules)
            return pending["item_id"]
        pending = item_store.next_undecided(db, study.study_id)
    return None


def answered(db: Connection, study: LoadedStudy, rater_id: str, item_id: str) -> None:
    """Inside the write transaction that stored a rater's new answer to item_id: when it completed a kept
    pair, count it, and at every FLOOR_EVERY-th choose τ again (from the complete kept pairs alone).
    Without a stored mix nothing is done (the next decision rebuilds it); a failure forgets the mix rather
    than cost the rater their answer."""
    if not is_adaptive(study) or (question := scored_question(study.task)) is None:
        return
    try:
        with immediate(db, study.study_id):
            state = mix_store.state(db, study.study_id)
            if state is None or not mix_store.completes_kept(db, study.study_id, item_id, question.id, rater_id,
                                                             study.settings.raters_per_item):
                return
            if (state["complete"] + 1) % FLOOR_EVERY:
                mix_store.save(db, study.study_id, state["complete"] + 1, state["mix"])
            else:
                _rebuilt_mix(db, study, _rules(db, study))
    except Exception:
        logging.getLogger("fairval").exception("the adaptive mix of %s could not be stepped", study.study_id)
        with immediate(db, study.study_id):
            mix_store.forget(db, study.study_id)


def _rules(db: Connection, study: LoadedStudy) -> dict[float, dict]:
    """τ -> its chance rule's constants and least chance, as recorded at start (designs recorded before
    they were kept: set here from every pair, as decisions then were)."""
    design = study.recorded.drawn()
    rules = design.get("rules") or _rules_of(item_store.decisions_frame(db, study.study_id), design)
    return {float(r["mix"]): r for r in rules}


def _rules_of(frame, design: dict) -> list[dict]:
    """Per mix τ of the design (and 1): its rule over the design's pairs and the least chance it gives any."""
    uncertainty = frame["uncertainty"].to_numpy(float)
    rules = []
    for tau in sorted(set(design.get("floors", LIVE_FLOORS)) | {1.0}):
        rule = rule_constants(uncertainty, design["budget"], tau)
        rules.append({"mix": float(tau), **rule, "least": float(apply_rule(rule, uncertainty).min())})
    return rules


def _mix(db: Connection, study: LoadedStudy, rules: dict[float, dict]) -> float:
    state = mix_store.state(db, study.study_id)
    return state["mix"] if state is not None else _rebuilt_mix(db, study, rules)


def _rebuilt_mix(db: Connection, study: LoadedStudy, rules: dict[float, dict]) -> float:
    """τ from the kept pairs people have completed, in the order they became complete (each from its first
    raters_per_item raters, each rater's first answer): their judge uncertainty, residual y − λ f (λ as
    the terms weigh it) and the chance each was kept with (analysis.active.live_floor_by_rules; the prior
    mix until there are enough), stored with their count."""
    question = the_scored_question(study.task)
    design = study.recorded.drawn()
    raters = study.settings.raters_per_item
    scores: dict[str, dict[str, float]] = {}
    done = []                                   # (uncertainty, chance, judge, scores), in completion order
    for item, rater, canonical, uncertainty, chance, judge in mix_store.kept_answers(
            db, study.study_id, question.id, design["judge"]):
        first = scores.setdefault(item, {})
        if rater in first or len(first) >= raters:
            continue
        first[rater] = pair_score(question, str(canonical))
        if len(first) == raters:
            done.append((uncertainty, chance, judge, first))
    counted = done[:len(done) // FLOOR_EVERY * FLOOR_EVERY]             # τ changes only at these counts
    u, chance, f = (np.array([row[k] for row in counted], float) for k in range(3))
    y = np.array([np.mean(list(row[3].values())) for row in counted], float)
    residual = y - weighted_lambda(y, f, 1 / chance) * f
    mix = live_floor_by_rules(u, residual, rules, rated_chance=chance,
                              floors=tuple(design.get("floors", LIVE_FLOORS)))
    mix_store.save(db, study.study_id, len(done), mix)
    return mix


def _counts(frame) -> tuple[int, int, int]:
    decided = int(frame["decided_at"].notna().sum())
    return decided, int(frame["kept"].sum()), len(frame) - decided


def design_sentence(db: Connection, study: LoadedStudy) -> str | None:
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
