"""The rater's Submit as the page makes it, in one write transaction: the answer stored, the study's stopping
rule checked when the answer completes a pair (its interval is kept as pairs complete: a row read), the
study stopped and paused there when the rule is met, and the rater's next item held for them unless it
stopped. What cannot run under the write lock runs after it (annotate.crowd.stopping.after_submit): pausing
the study on Prolific (a request over the network), and the check that has no kept interval to read (one
still to build, or `--escalate`'s full analysis), after which the page serves the next item."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.material.studies import LoadedStudy, configure_study, load_study, stored_settings
from fairval.annotate.rating import running_interval, session
from fairval.store import Connection, audit, immediate
from fairval.store import raters as rater_store
from fairval.store import ratings as rating_store
from fairval.store import running as running_store
from fairval.store import studies as study_store

RULE = "fairval (the study's stopping rule)"


@dataclass(frozen=True, slots=True)
class Submitted:
    new: bool                          # stored now (False: the same Submit again, or another tab's first)
    stopped: dict | None = None        # the study stopped itself on this answer, in its transaction
    check: bool = False                # the rule is still to be checked, after the transaction
    study: LoadedStudy | None = None   # the study as read under the lock, at the end of the transaction (no check)
    served: session.Served | None = None   # the rater's next item, held for them in the transaction
    rater: dict | None = None          # the rater's row as read under the lock (the answer changes nothing in it)


def submit(db: Connection, study: LoadedStudy | str, rater_id: str, item_id: str, answers: dict[str, str], *,
           comment: str | None = None, now: float | None = None) -> Submitted:
    """Store the rater's answers to the item (session.record_answer's rules), check the stopping rule and
    hold the rater's next item, all in one write transaction. `study`: the study or its name; either way it
    is read under the transaction's lock, first (its version, and its row again only when that changed), so a
    pause, a close or a change of settings made a moment before is the one obeyed, and nothing is read before
    the lock (issue 58)."""
    now = time.time() if now is None else now
    study_id = study if isinstance(study, str) else study.study_id
    with immediate(db, study_id):
        current = load_study(db, study_id)
        rater = rater_store.get_rater(db, study_id, rater_id) or {}
        new = session.record_answer(db, current, rater_id, item_id, answers, comment=comment, now=now, locked=rater)
        stopped, check = _checked(db, current, item_id, now) if new else (None, False)
        if check:                       # the rule is checked after the transaction, which serves nothing
            return Submitted(new, stopped, check, None, None, rater or None)
        # the rule may have paused the study, or the adaptive design drawn its sample: read again then
        rules = current.settings.load_rules()
        if stopped or running_interval.has_rule(current) or adaptive.is_adaptive(current):
            current = load_study(db, study_id)
        # record_answer brought the item loads up to `rules`: under the lock nothing but an import changes
        # them, so they are not read again unless the settings read now give other rules
        served = session.serve_current(db, current, rater_id, now, synced=rules)
    return Submitted(new, stopped, check, current, served, rater or None)


def _checked(db: Connection, study: LoadedStudy, item_id: str, now: float) -> tuple[dict | None, bool]:
    """stop_within in a savepoint of its own: a check that fails undoes only itself, never the rater's answer
    (logged; the next check after a completed pair tries again). A study without a rule opens no savepoint."""
    if not running_interval.has_rule(study):
        return None, False
    try:
        with immediate(db, study.study_id):
            return stop_within(db, study, item_id, now)
    except Exception:
        logging.getLogger("fairval").exception("the stopping rule of %s could not be checked", study.study_id)
        return None, False


def stop_within(db: Connection, study: LoadedStudy, item_id: str, now: float) -> tuple[dict | None, bool]:
    """Inside the write transaction of a new answer to item_id: (what was recorded if the study stopped,
    whether the rule must still be checked after the transaction). The rule moves only when a pair
    completes; the interval is the one kept as pairs complete (annotate.rating.running_interval)."""
    if not running_interval.has_rule(study):
        return None, False
    if rating_store.raters_of_item(db, study.study_id, item_id) != study.settings.raters_per_item:
        return None, False
    if not running_interval.kept(study):
        return None, True                                   # --escalate: the full analysis, after
    current = load_study(db, study.study_id)
    if current.status != "open" or current.recorded.stopped:
        return None, False
    cs = running_store.interval(db, study.study_id)
    if cs is None or running_store.version(db, study.study_id) != running_interval.VERSION:
        return None, True                                   # built once by the check, after
    why = verdict(current, cs)
    if why is None:
        return None, False
    stopped = {"at": now, "reason": why, "ci": cs["ci"], "value": cs.get("value"),
               "n_pairs_complete": cs.get("n_pairs_complete")}
    return (stopped if record_stop(db, current, stopped) else None), False


def verdict(study: LoadedStudy, cs: dict) -> str | None:
    """Why the study may stop now, or None."""
    ci = cs.get("ci")
    if not ci:
        return None
    s = study.settings
    if s.target_ci_width is not None and ci[1] - ci[0] <= s.target_ci_width:
        return f"H's anytime interval is {ci[1] - ci[0]:.3f} wide, within the target {s.target_ci_width}"
    if s.stop_when_excludes is not None and not ci[0] <= s.stop_when_excludes <= ci[1]:
        return f"H's anytime interval [{ci[0]:.3f}, {ci[1]:.3f}] excludes {s.stop_when_excludes}"
    return None


def record_stop(db: Connection, study: LoadedStudy, stopped: dict) -> bool:
    """Record the stop (when, why, the interval then) and pause the study, in one transaction (a savepoint
    of the caller's); False when another worker stopped it a moment ago."""
    with audit.acting(RULE, "rule"), immediate(db, study.study_id):
        if load_study(db, study.study_id).recorded.stopped:
            return False
        study_store.update_study(db, study.study_id, settings=stored_settings(study, stopped=stopped))
        audit.record(db, "study.stop", study.study_id, at=stopped["at"],
                     **{k: v for k, v in stopped.items() if k != "at"})
        configure_study(db, study.study_id, status="paused")
    return True
