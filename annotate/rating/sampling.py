"""A random human sample of a pair study: the pairs people rate, drawn with a seed from all the pairs
the judge scores, so prediction-powered inference may treat them as a random labelled set. Drawn
uniformly, actively (Zrnic and Candès): each pair with a known chance that grows with the judge's
uncertainty about it, or by group pair (Fisch et al.), each group pair's share fixed; the chances are
recorded so the estimate can weight each rated pair by 1/π."""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from fairval.analysis.active import DEFAULT_FLOOR, inclusion_probabilities, uncertainties_of
from fairval.analysis.allocation import neyman_allocation
from fairval.annotate.material.design import Design
from fairval.annotate.material.pairs import scored_question, strata_of
from fairval.annotate.material.studies import load_study, stored_settings
from fairval.errors import StudyError
from fairval.store import Connection, audit, immediate, loads
from fairval.store import assignments as ledger
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import ratings as rating_store
from fairval.store import studies as study_store


def draw_human_sample(db: Connection, study_id: str, n: int, seed: int, *, now: float | None = None,
                      written: Callable[[list[str]], None] | None = None) -> list[str]:
    """Keep n regular pairs, drawn uniformly without replacement (numpy's default_rng(seed) over the
    pairs in import order), for raters; the others become judge-only and are never served. Only before
    anyone has been served, and once. `written`: see record_sample."""
    study = samplable(db, study_id)
    regular = regular_pairs(db, study_id)
    if not 1 <= n < len(regular):
        raise StudyError(f"the sample must be between 1 and {len(regular) - 1} of the study's {len(regular)} pairs, "
                         f"not {n}")
    keep = list(np.random.default_rng(seed).choice(regular["item_id"].to_numpy(), size=n, replace=False))
    return record_sample(db, study, regular, keep, {"n": n, "of": len(regular), "seed": seed}, now=now, written=written)


def draw_active_sample(db: Connection, study_id: str, budget: int, seed: int, *, model: str | None = None,
                       floor: float = DEFAULT_FLOOR, pilot: Callable[[str, np.ndarray], dict] | None = None,
                       now: float | None = None, written: Callable[[list[str]], None] | None = None) -> dict:
    """Draw each regular pair independently with probability π_i (analysis.active.inclusion_probabilities
    from the judge's uncertainty, Σπ = budget, none below floor × budget / N) and record every π_i.
    Every pair needs the judge's score first: the design is chosen from it. `pilot(judge, uncertainty)`
    chooses the floor from a pilot's evidence (results.pilot.pilot_floor: analysis.active.choose_floor's
    answer with the pilot's `study`). Returns the kept ids (`kept`) and the design (`sample`)."""
    study = samplable(db, study_id)
    regular = regular_pairs(db, study_id)
    if not 1 <= budget < len(regular):
        raise StudyError(f"the budget must be between 1 and {len(regular) - 1} of the study's {len(regular)} pairs, "
                         f"not {budget}")
    scores = lmra_store.scores_frame(db, study_id)
    models = sorted(scores["model"].unique())
    chosen = study.judge(models, model)
    if chosen not in models:
        raise StudyError(f"an active sample is drawn from the judge's uncertainty: {study_id!r} has no scores "
                         f"from {chosen!r} (judges: {', '.join(models) or 'none'}); run or import the judge first")
    judged = scores[scores["model"] == chosen].set_index("item_id")
    missing = [i for i in regular["item_id"] if i not in judged.index]
    if missing:
        raise StudyError(f"{len(missing)} pair(s) have no score from {chosen!r} (first: {missing[0]}); an active "
                         "sample needs the judge's score on every pair")
    rows = judged.loc[regular["item_id"]]
    uncertainty = uncertainties_of(rows["probabilities"], rows["score"])
    evidence = None
    try:
        if pilot is not None:
            evidence = pilot(chosen, uncertainty)
            floor = evidence["floor"]
        pi = inclusion_probabilities(uncertainty, budget, floor=floor)
    except ValueError as e:
        raise StudyError(str(e)) from None
    drawn = np.random.default_rng(seed).random(len(pi)) < pi
    keep = list(regular["item_id"].to_numpy()[drawn])
    if len(keep) < 2:
        raise StudyError(f"the draw kept {len(keep)} pair(s); raise the budget")
    sample = {"n": len(keep), "of": len(regular), "seed": seed, "design": "active", "budget": budget,
              "floor": floor, "judge": chosen}
    if evidence is not None:
        sample["pilot"] = {"study": evidence["study"], "pairs": evidence["n_pilot"],
                           "slope_lower": round(evidence["slope_lower"], 6)}
    kept = record_sample(db, study, regular, keep, sample, probabilities=dict(zip(map(str, regular["item_id"]), pi)), now=now,
                 written=written)
    return {"kept": kept, "sample": sample}



def draw_stratified_sample(db: Connection, study_id: str, n: int, seed: int, *,
                           spreads: Callable[[str], dict] | None = None, now: float | None = None,
                           written: Callable[[list[str]], None] | None = None) -> dict:
    """Draw n regular pairs by group pair (Fisch et al. 2024, stratified PPI): stratum k of N_k pairs gets
    n_k of them (analysis.allocation.neyman_allocation: ∝ N_k σ_k, at least 2 each), drawn uniformly
    without replacement within it (numpy's default_rng(seed), strata in name order). σ_k comes from
    `spreads(judge)` (results.pilot.pilot_spreads: each group pair's PPI rectifier spread on a pilot; a group
    pair the pilot lacks takes the median of the others'); without it every σ_k is 1, a draw in proportion
    to the group pairs' sizes. Each pair's chance n_k / N_k is recorded, so `harm.ppi` weights the rated
    pairs by it. Returns the kept ids (`kept`) and the design (`sample`)."""
    study = samplable(db, study_id)
    regular = regular_pairs(db, study_id)
    strata = strata_of(regular)
    names = sorted(set(strata))
    if not 2 * len(names) <= n <= len(regular) - len(names):
        raise StudyError(f"a draw by group pair takes between {2 * len(names)} (2 for each of the study's "
                         f"{len(names)} group pairs) and {len(regular) - len(names)} (1 left to the judge in each) "
                         f"of its {len(regular)} pairs, not {n}")
    sizes = np.array([(strata == g).sum() for g in names])
    if (sizes < 3).any():
        small = names[int(np.argmin(sizes))]
        raise StudyError(f"group pair {small!r} has {sizes.min()} pair(s); a draw by group pair needs 3 in each "
                         "(2 rated and 1 left to the judge, for PPI within it)")
    evidence = None
    sigma = np.ones(len(names))
    if spreads is not None:
        scores = lmra_store.scores_frame(db, study_id)
        evidence = spreads(study.judge(sorted(scores["model"].unique()), None))
        known = evidence["spreads"]
        fallback = float(np.median(list(known.values())))
        sigma = np.array([known.get(g, fallback) for g in names])
    drawn = neyman_allocation(sizes / sizes.sum(), sigma, n, sizes - 1)
    rng = np.random.default_rng(seed)
    ids = regular["item_id"].to_numpy()
    keep, chances, plan = [], {}, {}
    for name, size, k in zip(names, sizes, drawn):
        members = ids[(strata == name).to_numpy()]
        keep += list(rng.choice(members, size=int(k), replace=False))
        chances.update({str(i): k / size for i in members})
        plan[name] = {"pairs": int(size), "drawn": int(k)}
    sample = {"n": len(keep), "of": len(regular), "seed": seed, "design": "stratified", "strata": plan}
    if evidence is not None:
        sample["pilot"] = {"study": evidence["study"], "judge": evidence["judge"],
                           "spreads": {g: round(float(v), 6) for g, v in evidence["spreads"].items()}}
    kept = record_sample(db, study, regular, keep, sample, probabilities=chances, now=now, written=written)
    return {"kept": kept, "sample": sample}


def drawn_by_group_pair(sample: dict) -> str:
    """A draw by group pair in words: "Asian vs White 3 of 10, Black vs White 9 of 30, …"."""
    return Design.of(sample).by_group_pair()


def samplable(db: Connection, study_id: str):
    """The study, if its pairs may still be given a design: a pair study with no sample drawn or design set."""
    study = load_study(db, study_id)
    if scored_question(study.task) is None:
        raise StudyError(f"study {study_id!r} is {study.task.name}: a human sample is drawn from a pair study's pairs")
    design = study.design
    if design.drawn:
        which = (f"the adaptive design, budget {design.recorded['budget']}" if design.adaptive
                 else f"{design.recorded['n']} pairs")
        raise StudyError(f"study {study_id!r} has its human sample already ({which}); a second draw or design "
                         "would not be random")
    return study


def regular_pairs(db: Connection, study_id: str):
    items = item_store.items_frame(db, study_id)
    regular = items[items["gold"].isna() & ~items["practice"]].sort_values("position")
    if len(regular) < 2:
        raise StudyError(f"study {study_id!r} has {len(regular)} pairs; import them all before drawing a sample")
    return regular


def record_sample(db: Connection, study, regular, keep: list, sample: dict, *, probabilities: dict | None = None,
          now: float | None = None, written: Callable[[list[str]], None] | None = None) -> list[str]:
    """Record the draw once, before anyone is served: the others become judge-only. `written(ids)` writes
    the drawn ids to a file inside the draw's transaction: if it fails, nothing is recorded."""
    study_id = study.study_id
    now = time.time() if now is None else now
    with immediate(db, study_id):
        if rating_store.rating_count(db, study_id) or ledger.any_served(db, study_id):
            raise StudyError(f"study {study_id!r} has served or rated pairs already; draw the sample before "
                             "raters start, or it is not a random sample of what people rated")
        kept = set(keep)
        item_store.leave_to_judge(db, study_id, [i for i in regular["item_id"] if i not in kept])
        if probabilities:
            item_store.record_inclusion(db, study_id, probabilities)
        study_store.update_study(db, study_id, settings=stored_settings(study, human_sample={**sample, "drawn_at": now}))
        loads.rebuild(db, study_id, study.settings.load_rules(), now - study.settings.timeout_seconds)
        audit.record(db, "study.sample", study_id, at=now, **sample)
        if written is not None:
            written(sorted(map(str, keep)))
    return sorted(map(str, keep))
