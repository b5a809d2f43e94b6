"""H's anytime interval for a study's stopping rule, kept as pairs complete: the answer that completes a
pair steps the study's stored state in its own write transaction (advance), and the stopping check reads
the stored interval (current), so neither costs more as the study grows. The terms, their order and the
interval are those of the full analysis (harm.ppi.cs in `fairval analyze --json`): the pair's people's
mean from its first raters, the main judge's score, its weight 1/π in a weighted draw, λ tuned on the
pairs before it, in the order pairs became complete; every rater counts, as there.

A missing state (never built, or forgotten by a write that changes terms: imported ratings, judge
scores, items, settings) is rebuilt from the whole study at the next check, once
(annotate.crowd.stopping.kept_interval). The adaptive design
and `--escalate` keep the full analysis (their terms are not a pair's alone)."""
from __future__ import annotations

import logging

from fairval.analysis import running_betting
from fairval.annotate.material.pairs import pair_score, scored_question
from fairval.annotate.material.studies import Study
from fairval.store import Database, immediate
from fairval.store import running as running_store

LAMBDA_SUMS = ("wy", "wf", "wywf", "wfwf")


def has_rule(study: Study) -> bool:
    return study.settings.target_ci_width is not None or study.settings.stop_when_excludes is not None


def kept(study: Study) -> bool:
    """Whether this study's interval is kept as pairs complete (else the check runs the full analysis)."""
    question = scored_question(study.task)
    design = (study.settings.human_sample or {}).get("design")
    return question is not None and question.canonical == "harm" and design not in ("adaptive", "escalate")


def advance(db: Database, study: Study, item_id: str) -> None:
    """Inside the write transaction that stored a rater's new answer to item_id: when it completed the
    pair, step the stored state by the pair's term. Without a state nothing is done (the check builds
    it); a failure forgets the state rather than cost the rater their answer."""
    if not (has_rule(study) and kept(study)):
        return
    question = scored_question(study.task)
    try:
        with immediate(db, study.study_id):
            pair = running_store.completing_pair(db, study.study_id, item_id, question.id)
            if pair is None or len(pair["answers"]) != study.settings.raters_per_item:
                return                           # not a pair, not complete yet, or complete before
            state = running_store.state(db, study.study_id)
            if state is None or state["basis"]["judge"] is None:
                return
            basis = state["basis"]
            f = running_store.judge_score(db, study.study_id, item_id, basis["judge"])
            if f is None or (basis["pool_sum"] is not None and pair["chance"] is None):
                return                           # no judge score, or outside the weighted draw: no term
            y = sum(pair_score(question, a) for a in pair["answers"]) / len(pair["answers"])
            w = 1.0 if basis["pool_sum"] is None else basis["pool_sum"] / (basis["pool_size"] * pair["chance"])
            save(db, study.study_id, step_pair(state, y, float(f), w))
    except Exception:  # noqa: BLE001 — the answer is kept whatever happens here; the next check rebuilds
        logging.getLogger("fairval").exception("the running interval of %s could not be stepped", study.study_id)
        with immediate(db, study.study_id):
            running_store.forget(db, study.study_id)


def start(basis: dict) -> dict:
    """The state before any complete pair, on a basis fixed for the whole sequence (the scored question,
    raters per pair, the judge, its mean, the terms' bounds, the planned pairs, a weighted draw's Σπ and N)."""
    return {"basis": basis, "n": 0, "total": 0.0, "lambda": 0.0, **{k: 0.0 for k in LAMBDA_SUMS},
            "betting": running_betting.start()}


def step_pair(state: dict, y: float, f: float, w: float) -> dict:
    """One more complete pair: its term λ_{t−1} m + w (y − λ_{t−1} f) (analysis.active.ppi_terms, with λ
    tuned on the pairs before it) into the interval; then λ_t from the running sums."""
    basis = state["basis"]
    wy, wf = w * y, w * f
    term = state["lambda"] * basis["judge_mean"] + wy - state["lambda"] * wf
    n = state["n"] + 1
    sums = {"wy": state["wy"] + wy, "wf": state["wf"] + wf, "wywf": state["wywf"] + wy * wf,
            "wfwf": state["wfwf"] + wf * wf}
    mean_y, mean_f = sums["wy"] / n, sums["wf"] / n
    covariance = sums["wywf"] / n - mean_y * mean_f
    spread = sums["wfwf"] / n - mean_f * mean_f
    lam = min(max(covariance / spread, 0.0), 1.0) if spread > 1e-12 else 0.0
    lower, upper = basis["lower"], basis["upper"]
    unit = (term - lower) / (upper - lower)
    betting = running_betting.step(state["betting"], unit, planned=basis["planned"])
    return {**state, **sums, "n": n, "total": state["total"] + term, "lambda": lam, "betting": betting}


def save(db: Database, study_id: str, state: dict) -> None:
    n, betting = state["n"], state["betting"]
    lower, span = state["basis"]["lower"], state["basis"]["upper"] - state["basis"]["lower"]
    ci = (None if not n or betting["low"] is None else
          [max(lower + span * betting["low"], -1.0), min(lower + span * betting["high"], 1.0)])
    running_store.save(db, study_id, state, n=n, value=state["total"] / n if n else None, ci=ci)
