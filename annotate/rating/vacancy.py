"""Before a rater starts: is anything left to serve them, and if not, is that for good or for a while?

Asked before consent, so a rater who arrives at a study with nothing to give is told at once instead of
after consent, demographics, instructions and practice; and told the truth: every item has its ratings
(complete), or what is left is reserved by raters mid-item (a tab left open holds its item until the
study's timeout), which comes free again later.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.material.studies import LoadedStudy
from fairval.store import Connection, loads
from fairval.store import assignments as ledger
from fairval.store import items as item_store


@dataclass(frozen=True, slots=True)
class Vacancy:
    open: bool                          # something may be served to a newcomer (serving decides what)
    free_at: float | None = None        # nothing open, but reserved items come free from then on (epoch s)

    @property
    def busy(self) -> bool:
        return not self.open and self.free_at is not None

    def minutes_left(self, now: float | None = None) -> int:
        """Whole minutes until the first reserved item comes free (rounded up), at least 1."""
        if self.free_at is None:
            return 0
        return max(1, math.ceil((self.free_at - (time.time() if now is None else now)) / 60))


OPEN = Vacancy(True)


def for_newcomer(db: Connection, study: LoadedStudy, *, now: float | None = None) -> Vacancy:
    """For a rater who has seen nothing yet, in any balance group (their group is asked later). Reads only;
    whenever the loads may be out of date (settings changed, slots lapsed), says open and lets serving,
    which brings them up to date, decide."""
    s = study.settings
    now = time.time() if now is None else now
    since = now - s.timeout_seconds
    if not loads.current(db, study.study_id, s.load_rules()) or ledger.any_lapsed(db, study.study_id, since):
        return OPEN
    if adaptive.is_adaptive(study) and item_store.next_undecided(db, study.study_id) is not None:
        return OPEN                     # the adaptive design has pairs still to decide
    if loads.open_total(db, study.study_id) > 0:
        return OPEN
    _held, first = ledger.reserved(db, study.study_id, since)
    return Vacancy(False, None if first is None else first + s.timeout_seconds)
