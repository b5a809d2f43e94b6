"""The serving order in words, for `study show` (the policy itself is annotate/rating/assignment.py)."""
from __future__ import annotations

from fairval.annotate.material.studies import LoadedStudy
from fairval.annotate.rating.fills import study_fill_plan
from fairval.store import Connection, loads
from fairval.store.items import template_count


def serving_order_sentence(db: Connection, study: LoadedStudy) -> str:
    """How items reach raters: the seeded random order, depth-first, the open window now, the template rules."""
    s = study.settings
    started = loads.pairs_in_progress(db, study.study_id, s.raters_per_item)
    kind = "pair" if study.task.is_pair else "item"
    plan = study_fill_plan(db, study)
    if plan.spread and not plan.back_to_back:
        # planned raters are served depth-first within their cohort (store/loads.Cohort): cohorts present at once
        # each have items open, so "opens only when no started one is open" holds per cohort, not per study
        r = s.raters_per_item
        text = (f"order: seeded random (seed {s.seed}), depth-first within each cohort of {r} rater{'' if r == 1 else 's'} "
                f"(the raters in order of arrival, {r} at a time); {started:,} "
                f"{kind}{'' if started == 1 else 's'} started and not complete (a new one opens only when no {kind} "
                f"the rater's cohort started is open to them)")
    else:
        text = (f"order: seeded random (seed {s.seed}), depth-first; {started:,} {kind}{'' if started == 1 else 's'} "
                f"started and not complete (a new one opens only when no started one is open to a rater)")
    if template_count(db, study.study_id) < 2:        # the template rules bind only between templates
        return text
    if not s.fills_back_to_back:
        text += "; no rater gets two fills of one template in a row"
    if s.max_fills_per_template is not None:
        text += f", nor more than {s.max_fills_per_template} of one template"
    return text
