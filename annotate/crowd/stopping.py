"""A study that stops itself: once H's anytime interval (harm.ppi.cs, valid however often it is looked at)
is as narrow as the study's `target_ci_width`, or excludes its `stop_when_excludes`, the study pauses (no
new pair is served; raters in the middle of one finish it and are kept and paid), records when and why with
the interval at that moment, and, with `prolific_study_id` set, pauses the Prolific study through the API:
sent once, its outcome recorded, and an unknown outcome checked by reading the study back."""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd

from fairval.analysis import running_adaptive
from fairval.analysis.active import lowest_chance
from fairval.annotate.adaptive.estimate import TYPICAL_SPAN, decided_prefix, design_planned, envelope, least_chances
from fairval.annotate.material.pairs import scored_question, the_scored_question
from fairval.annotate.material.studies import LoadedStudy, load_study, stored_settings
from fairval.annotate.rating import running_interval
from fairval.annotate.rating.running_interval import has_rule
from fairval.annotate.rating.submit import Submitted, record_stop, verdict
from fairval.annotate.results import judge as judge_numbers
from fairval.annotate.results.numbers import completed_pairs, load_study_data, main_judge, scored_ratings, study_numbers
from fairval.errors import ProlificError, StudyError
from fairval.store import Connection, audit, immediate
from fairval.store import running as running_store
from fairval.store import studies as study_store


def stop_sentence(stopped: dict) -> str:
    """When and why the study stopped itself, with the interval then (Results, `study show`)."""
    from datetime import UTC, datetime

    when = datetime.fromtimestamp(stopped["at"], UTC).strftime("%Y-%m-%d %H:%M UTC")
    lo, hi = stopped["ci"]
    return (f"stopped itself on {when}: {stopped['reason']} (H's anytime interval then [{lo:.3f}, {hi:.3f}] over "
            f"{stopped.get('n_pairs_complete')} complete pairs)"
            + (f"; Prolific: {stopped['prolific']}" if stopped.get("prolific") else ""))


def guarantee_sentence(db: Connection, study: LoadedStudy) -> str | None:
    """What H's anytime interval guarantees now, in words (`study show`): harm.ppi.cs's `valid` as
    `fairval analyze --json` gives it (exact or asymptotic, from which n, for H over the study's pairs or
    a superpopulation), or why there is no interval yet; None for a study without H."""
    question = scored_question(study.task)
    if question is None or question.canonical != "harm":
        return None
    harm = study_numbers(db, study.study_id, n_boot=0).harm
    ppi = harm and harm.ppi
    cs = ppi and ppi.cs
    if cs and cs.valid:
        return f"H's anytime interval: {cs.valid}"
    return f"H's anytime interval: none yet ({(cs and cs.reason) or (ppi and ppi.reason) or 'no judge scores'})"


def check(db: Connection, study_id: str, *, client_factory=None, now: float | None = None) -> dict | None:
    """Stop the study if its rule is met (once): returns what was recorded, else None."""
    study = load_study(db, study_id)
    if study.status != "open" or study.recorded.stopped or not has_rule(study):
        return None
    cs = kept_interval(db, study)           # kept as pairs complete: a row read, whatever the study's size
    if cs is None:                              # --escalate: the whole analysis
        harm = study_numbers(db, study_id, n_boot=0).harm
        found = harm and harm.ppi and harm.ppi.cs
        cs = found.to_dict() if found else {}       # as kept_interval gives it: the stop is recorded as JSON
    why = verdict(study, cs)
    if why is None:
        return None
    now = time.time() if now is None else now
    stopped = {"at": now, "reason": why, "ci": cs["ci"], "value": cs.get("value"),
               "n_pairs_complete": cs.get("n_pairs_complete")}
    if not record_stop(db, study, stopped):                 # another worker stopped it a moment ago
        return None
    return announce(db, study_id, stopped, client_factory=client_factory)


def announce(db: Connection, study_id: str, stopped: dict, *, client_factory=None) -> dict:
    """After a stop is recorded: with `prolific_study_id` set, pause the study on Prolific (outside any write
    transaction: a request over the network) and record the outcome beside the stop."""
    study = load_study(db, study_id)
    if study.settings.prolific_study_id:
        stopped = {**stopped, "prolific": _pause_prolific(db, study, client_factory)}
        with immediate(db, study_id):
            study_store.update_study(db, study_id, settings=stored_settings(load_study(db, study_id), stopped=stopped))
    return stopped


def after_submit(db: Connection, study_id: str, submitted: Submitted, *, client_factory=None) -> dict | None:
    """What a Submit (annotate.rating.submit) left for after its transaction: Prolific told of the stop it
    recorded, or the check it could not make under the lock. Returns the stop, if any."""
    if submitted.stopped is not None:
        return announce(db, study_id, submitted.stopped, client_factory=client_factory)
    if submitted.check:
        return check(db, study_id, client_factory=client_factory)
    return None


def kept_interval(db: Connection, study: LoadedStudy) -> dict | None:
    """The stored interval (value, ci, n_pairs_complete), rebuilt from the whole study when missing; None
    when this study's interval is not kept (see kept)."""
    if not running_interval.kept(study):
        return None
    found = running_store.interval(db, study.study_id)
    if found is not None and running_store.version(db, study.study_id) == running_interval.VERSION:
        return found
    with immediate(db, study.study_id):          # no pair completes between the read and the write
        running_interval.save(db, study.study_id, rebuilt_interval(db, study.study_id))
    return running_store.interval(db, study.study_id)


def rebuilt_interval(db: Connection, study_id: str) -> dict:
    """The state from the whole study, with the full analysis's own pieces: its complete pairs in order,
    its main judge, its weights; then one step per pair, as the answers would have made them."""
    if running_interval.adaptive(load_study(db, study_id)):
        return _rebuilt_adaptive(db, study_id)
    data = load_study_data(db, study_id)
    settings = data.study.settings
    design = data.study.design
    model = main_judge(data)
    judge = data.lmra[data.lmra["model"] == model].set_index("item_id")["score"].dropna()
    inclusion = pd.Series(data.inclusion, dtype=float)
    completed = completed_pairs(scored_ratings(data), settings.raters_per_item)
    labelled, pool, w = judge_numbers._weighted(completed["human"], judge, design, inclusion)
    weighted = pool is not None
    judge_mean = (float(pool.mean()) if len(pool) else 0.0) if weighted else (float(judge.mean()) if len(judge) else 0.0)
    reach = 2 * judge_numbers._largest_weight(pool, inclusion)
    state = running_interval.start({
        "question": the_scored_question(data.study.task).id, "raters_per_item": settings.raters_per_item,
        "judge": model, "judge_mean": judge_mean, "lower": judge_mean - reach, "upper": judge_mean + reach,
        "planned": judge_numbers._planned(design, len(judge)),
        "pool_sum": float(np.sum(inclusion[pool.index].to_numpy())) if weighted else None,
        "pool_size": len(pool) if weighted else None,
        "population": None})        # no without-replacement form for H (annotate.results.judge._ppi_sequence)
    if model is None:
        return state
    order = np.argsort(completed["order"].reindex(labelled.index).to_numpy(), kind="stable")
    for y, f, weight in zip(labelled["human"].to_numpy()[order], labelled["judge"].to_numpy()[order], w[order]):
        state = running_interval.step_pair(state, float(y), float(f), float(weight))
    return state


def _rebuilt_adaptive(db: Connection, study_id: str) -> dict:
    """rebuilt_interval under the adaptive design (annotate.adaptive.prefix_interval): its main judge, m
    over the design's pairs, the decided prefix over the complete pairs, as the full analysis has them;
    then one step per pair of the prefix."""
    data = load_study_data(db, study_id)
    settings = data.study.settings
    sample, decisions = data.study.recorded.drawn(), data.decisions
    if decisions is None:                       # the adaptive design records a decision per pair it draws
        raise StudyError(f"study {study_id!r} has no decisions recorded for its adaptive draw")
    model = main_judge(data)
    judge = (data.lmra[data.lmra["model"] == model].set_index("item_id")["score"].dropna() if model is not None
             else pd.Series(dtype=float))
    pool = judge.reindex(decisions["item_id"])
    m = float(pool.mean()) if len(pool) and pool.notna().all() else math.nan
    prefix = decided_prefix(decisions, completed_pairs(scored_ratings(data), settings.raters_per_item))
    basis: dict[str, Any] = {"adaptive": True, "version": running_interval.VERSION, "judge": model,
                             "judge_mean": None if math.isnan(m) else m, "raters_per_item": settings.raters_per_item,
                             "lowest": lowest_chance(sample["budget"], sample["of"])}
    lower, upper = envelope(0.0 if math.isnan(m) else m, sample["budget"], len(pool))
    sequence = running_adaptive.start(judge_mean=basis["judge_mean"] or 0.0, lower=lower, upper=upper,
                                      planned=design_planned(sample, len(pool)), typical_span=TYPICAL_SPAN,
                                      tame=running_adaptive.tame_least(sample["budget"], len(pool)))
    state = {"basis": basis, "sequence": sequence, "next": int(decisions["decision_order"].min()) if len(decisions) else 0}
    if basis["judge_mean"] is None or not len(prefix):
        return state
    f = pool.reindex(prefix["item_id"]).to_numpy(float)
    for k, (row, least) in enumerate(zip(prefix.itertuples(), least_chances(prefix, sample))):
        sequence = running_adaptive.step(sequence, kept=bool(row.kept), human=row.human, judge=f[k],
                                         chance=row.chance, least=least)
    return {**state, "sequence": sequence, "next": int(prefix["decision_order"].iloc[-1]) + 1}


def _pause_prolific(db: Connection, study, client_factory) -> str:
    from fairval.annotate.crowd.prolific_api import ProlificClient
    from fairval.errors import OutcomeUnknown

    target = study.settings.prolific_study_id
    try:
        with (client_factory or ProlificClient)() as client:
            client.pause_study(target)
        outcome = "paused"
    except OutcomeUnknown as e:
        outcome = f"unknown: {e}; check the study on Prolific and pause it there if it is still active"
    except ProlificError as e:
        outcome = f"not paused: {e}"
    audit.record(db, "prolific.pause", study.study_id, prolific_study=target, outcome=outcome)
    return outcome
