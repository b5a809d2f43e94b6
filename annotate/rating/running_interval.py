"""H's anytime interval for a study's stopping rule, kept as pairs complete: the answer that completes a
pair steps the study's stored state in its own write transaction (advance), and the stopping check reads
the stored interval (annotate.crowd.stopping.kept_interval), so neither costs more as the study grows. The terms,
their order and the interval are those of the full analysis (harm.ppi.cs in `fairval analyze --json`): the pair's people's
mean from its first raters, the main judge's score, its weight 1/π in a weighted draw, λ tuned on the
pairs before it, in the order pairs became complete; every rater counts, as there.

A missing state (never built, or forgotten by a write that changes terms: imported ratings, judge
scores, items, settings) is rebuilt from the whole study at the next check, once. The adaptive design's
is kept too, over its decided prefix (annotate.adaptive.prefix_interval); `--escalate` keeps the full
analysis (its terms are not a pair's alone)."""
from __future__ import annotations

import logging

from fairval.analysis import running_betting
from fairval.analysis.sequential import ASYMPTOTIC_FROM, RunningCS, split_alpha, step
from fairval.annotate.material.pairs import pair_score, scored_question, the_scored_question
from fairval.annotate.material.studies import LoadedStudy
from fairval.store import Connection, immediate
from fairval.store import running as running_store

LAMBDA_SUMS = ("wy", "wf", "wywf", "wfwf")
TYPICAL_SPAN = 4.0          # a PPI term's typical span, as annotate.results.judge._ppi_sequence gives it
VERSION = 5                 # the sequence's construction (2: alpha split, no without-replacement form for H;
                            # 3: the adaptive design's tame prefix intersected; 4: its betting part at every
                            # decided pair, the asymptotic part after a burn-in, issue 53; 5: intersected over
                            # every pair from the burn-in on, issue 53 stop 70):
                            # a state kept by another is forgotten and rebuilt


def has_rule(study: LoadedStudy) -> bool:
    return study.settings.target_ci_width is not None or study.settings.stop_when_excludes is not None


def kept(study: LoadedStudy) -> bool:
    """Whether this study's interval is kept as pairs complete (else the check runs the full analysis)."""
    question = scored_question(study.task)
    return question is not None and question.canonical == "harm" and study.design.kind != "escalate"


def adaptive(study: LoadedStudy) -> bool:
    return study.design.kind == "adaptive"


def advance(db: Connection, study: LoadedStudy, item_id: str) -> None:
    """Inside the write transaction that stored a rater's new answer to item_id: when it completed the
    pair, step the stored state by the pair's term. Without a state nothing is done (the check builds
    it); a failure forgets the state rather than cost the rater their answer."""
    if not (has_rule(study) and kept(study)):
        return
    if adaptive(study):
        return advance_decided(db, study)
    question = the_scored_question(study.task)
    try:
        with immediate(db, study.study_id):
            pair = running_store.completing_pair(db, study.study_id, item_id, question.id)
            if pair is None or len(pair["answers"]) != study.settings.raters_per_item:
                return                           # not a pair, not complete yet, or complete before
            state = running_store.state(db, study.study_id)
            if state is not None and state["basis"].get("version") != VERSION:
                running_store.forget(db, study.study_id)         # kept by an older fairval: rebuilt at the check
                return
            if state is None or state["basis"]["judge"] is None:
                return
            basis = state["basis"]
            f = running_store.judge_score(db, study.study_id, item_id, basis["judge"])
            if f is None or (basis["pool_sum"] is not None and pair["chance"] is None):
                return                           # no judge score, or outside the weighted draw: no term
            y = sum(pair_score(question, a) for a in pair["answers"]) / len(pair["answers"])
            w = 1.0 if basis["pool_sum"] is None else basis["pool_sum"] / (basis["pool_size"] * pair["chance"])
            save(db, study.study_id, step_pair(state, y, float(f), w))
    except Exception:
        logging.getLogger("fairval").exception("the running interval of %s could not be stepped", study.study_id)
        with immediate(db, study.study_id):
            running_store.forget(db, study.study_id)


def advance_decided(db: Connection, study: LoadedStudy) -> None:
    """Under the adaptive design, inside the write transaction that completed a pair or decided pairs:
    the decided prefix takes in what it now can (annotate.adaptive.prefix_interval)."""
    if not (has_rule(study) and kept(study) and adaptive(study)):
        return
    from fairval.annotate.adaptive import prefix_interval

    try:
        with immediate(db, study.study_id):
            state = running_store.state(db, study.study_id)
            if state is not None and state["basis"].get("version") != VERSION:
                running_store.forget(db, study.study_id)         # kept by an older fairval: rebuilt at the check
                return
            stepped = None if state is None else prefix_interval.advance(db, study, state)
            if stepped is not None:
                prefix_interval.save(db, study.study_id, stepped)
    except Exception:
        logging.getLogger("fairval").exception("the running interval of %s could not be stepped", study.study_id)
        with immediate(db, study.study_id):
            running_store.forget(db, study.study_id)


def start(basis: dict) -> dict:
    """The state before any complete pair, on a basis fixed for the whole sequence (the scored question,
    raters per pair, the judge, its mean, the terms' bounds, the planned pairs, a weighted draw's Σπ and
    N, or the judged pairs a uniform sample is drawn from)."""
    return {"basis": {**basis, "version": VERSION}, "n": 0, "lambda": 0.0, **dict.fromkeys(LAMBDA_SUMS, 0.0),
            "betting": running_betting.start(), "asymptotic": RunningCS().to_dict(), "head": None}


def step_pair(state: dict, y: float, f: float, w: float) -> dict:
    """One more complete pair: its term λ_{t−1} m + w (y − λ_{t−1} f) (analysis.active.ppi_terms, λ tuned
    on the pairs before it) into the interval harm.ppi.cs reports (annotate.results.judge._ppi_sequence:
    exact betting, bets sized for ASYMPTOTIC_FROM, below ASYMPTOTIC_FROM pairs; the asymptotic sequence
    from there, within the betting part's last interval (`head`); each with half of alpha); then λ_t from
    the running sums."""
    basis, lam = state["basis"], state["lambda"]
    wy, wf = w * y, w * f
    term = lam * basis["judge_mean"] + wy - lam * wf
    n = state["n"] + 1
    past = None
    if basis["population"] is not None:     # P_{t−1}: the earlier pairs as this term's λ counts them (w = 1)
        past = (n - 1) * lam * basis["judge_mean"] + state["wy"] - lam * state["wf"]
    asymptotic = step(RunningCS.from_dict(state["asymptotic"]), term, planned=basis["planned"],
                      population=basis["population"], past=past, prior_var=(TYPICAL_SPAN / 2) ** 2,
                      alpha=split_alpha())
    betting, head = state["betting"], state.get("head")
    if n < ASYMPTOTIC_FROM:
        lower, span = basis["lower"], basis["upper"] - basis["lower"]
        betting = running_betting.step(betting, (term - lower) / span, planned=ASYMPTOTIC_FROM,
                                       population=basis["population"], alpha=split_alpha(),
                                       earlier=None if past is None else (past - (n - 1) * lower) / span)
        head = None if betting["low"] is None else [lower + span * betting["low"], lower + span * betting["high"]]
    else:
        betting = None                      # the asymptotic sequence has taken over: O(1) from here
    sums = {"wy": state["wy"] + wy, "wf": state["wf"] + wf, "wywf": state["wywf"] + wy * wf,
            "wfwf": state["wfwf"] + wf * wf}
    mean_y, mean_f = sums["wy"] / n, sums["wf"] / n
    covariance = sums["wywf"] / n - mean_y * mean_f
    spread = sums["wfwf"] / n - mean_f * mean_f
    lam = min(max(covariance / spread, 0.0), 1.0) if spread > 1e-12 else 0.0
    return {**state, **sums, "n": n, "lambda": lam, "betting": betting, "head": head,
            "asymptotic": asymptotic.to_dict()}


def save(db: Connection, study_id: str, state: dict) -> None:
    if state["basis"].get("adaptive"):
        from fairval.annotate.adaptive import prefix_interval
        return prefix_interval.save(db, study_id, state)
    n = state["n"]
    asymptotic = RunningCS.from_dict(state["asymptotic"])
    head = state.get("head")
    # below ASYMPTOTIC_FROM the betting part's interval; from there the asymptotic one within it (None if
    # the intersection became empty)
    ends = (None if not n or head is None else tuple(head)) if n < ASYMPTOTIC_FROM else within(asymptotic.interval, head)
    ci = None if ends is None else [max(ends[0], -1.0), min(ends[1], 1.0)]
    running_store.save(db, study_id, state, n=n, value=asymptotic.mean if n else None, ci=ci)


def within(ends: tuple[float, float] | None, head: list[float] | None) -> tuple[float, float] | None:
    """The asymptotic part's interval inside the betting part's last one (analysis.sequential.
    anytime_running); None when either is None or they do not meet."""
    if ends is None or head is None:
        return ends if head is None else None
    low, high = max(ends[0], head[0]), min(ends[1], head[1])
    return (low, high) if low <= high else None
