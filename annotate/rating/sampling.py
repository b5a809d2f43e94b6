"""A random human sample of a pair study: the pairs people rate, drawn with a seed from all the pairs
the judge scores, so prediction-powered inference may treat them as a random labelled set."""
from __future__ import annotations

import time

import numpy as np

from annotate.material.pairs import scored_question
from annotate.material.studies import StudyError, load_study, stored_settings
from store import Database, immediate, loads
from store import assignments as ledger
from store import items as item_store
from store import ratings as rating_store
from store import studies as study_store


def draw_human_sample(db: Database, study_id: str, n: int, seed: int, *, now: float | None = None) -> list[str]:
    """Keep n regular pairs, drawn uniformly without replacement (numpy's default_rng(seed) over the
    pairs in import order), for raters; the others become judge-only and are never served. Only before
    anyone has been served, and once."""
    study = load_study(db, study_id)
    if scored_question(study.task) is None:
        raise StudyError(f"study {study_id!r} is {study.task.name}: a human sample is drawn from a pair study's pairs")
    if study.settings.human_sample:
        raise StudyError(f"study {study_id!r} has its human sample already ({study.settings.human_sample['n']} "
                         "pairs); a second draw would not be random")
    items = item_store.items_frame(db, study_id)
    regular = items[items["gold"].isna() & ~items["practice"]].sort_values("position")
    if len(regular) < 2:
        raise StudyError(f"study {study_id!r} has {len(regular)} pairs; import them all before drawing a sample")
    if not 1 <= n < len(regular):
        raise StudyError(f"the sample must be between 1 and {len(regular) - 1} of the study's {len(regular)} pairs, "
                         f"not {n}")
    keep = list(np.random.default_rng(seed).choice(regular["item_id"].to_numpy(), size=n, replace=False))
    now = time.time() if now is None else now
    with immediate(db, study_id):
        if rating_store.rating_count(db, study_id) or ledger.any_served(db, study_id):
            raise StudyError(f"study {study_id!r} has served or rated pairs already; draw the sample before "
                             "raters start, or it is not a random sample of what people rated")
        kept = set(keep)
        item_store.leave_to_judge(db, study_id, [i for i in regular["item_id"] if i not in kept])
        study_store.update_study(db, study_id, settings=stored_settings(
            study, human_sample={"n": n, "of": len(regular), "seed": seed, "drawn_at": now}))
        loads.rebuild(db, study_id, study.settings.load_rules(), now - study.settings.timeout_seconds)
    return sorted(map(str, keep))
