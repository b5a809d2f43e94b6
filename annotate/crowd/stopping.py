"""A study that stops itself: once H's anytime interval (harm.ppi.cs, valid however often it is looked at)
is as narrow as the study's `target_ci_width`, or excludes its `stop_when_excludes`, the study pauses (no
new pair is served; raters in the middle of one finish it and are kept and paid), records when and why with
the interval at that moment, and, with `prolific_study_id` set, pauses the Prolific study through the API:
sent once, its outcome recorded, and an unknown outcome checked by reading the study back."""
from __future__ import annotations

import time

from fairval.annotate.crowd import running
from fairval.annotate.crowd.running import has_rule  # noqa: F401  (the pages ask it here)
from fairval.annotate.material.studies import configure_study, load_study, stored_settings
from fairval.annotate.results.numbers import study_numbers
from fairval.errors import ProlificError
from fairval.store import Database, audit, immediate
from fairval.store import studies as study_store


def stop_sentence(stopped: dict) -> str:
    """When and why the study stopped itself, with the interval then (Results, `study show`)."""
    from datetime import datetime, timezone

    when = datetime.fromtimestamp(stopped["at"], timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lo, hi = stopped["ci"]
    return (f"stopped itself on {when}: {stopped['reason']} (H's anytime interval then [{lo:.3f}, {hi:.3f}] over "
            f"{stopped.get('n_pairs_complete')} complete pairs)"
            + (f"; Prolific: {stopped['prolific']}" if stopped.get("prolific") else ""))


def verdict(study, cs: dict) -> str | None:
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


def check(db: Database, study_id: str, *, client_factory=None, now: float | None = None) -> dict | None:
    """Stop the study if its rule is met (once): returns what was recorded, else None."""
    study = load_study(db, study_id)
    if study.status != "open" or study.settings.stopped or not has_rule(study):
        return None
    cs = running.current(db, study)             # kept as pairs complete: a row read, whatever the study's size
    if cs is None:                              # the adaptive design: the whole analysis
        numbers = study_numbers(db, study_id, n_boot=0).to_dict()
        cs = ((numbers.get("harm") or {}).get("ppi") or {}).get("cs") or {}
    why = verdict(study, cs)
    if why is None:
        return None
    now = time.time() if now is None else now
    stopped = {"at": now, "reason": why, "ci": cs["ci"], "value": cs.get("value"),
               "n_pairs_complete": cs.get("n_pairs_complete")}
    audit.acting_as("fairval (the study's stopping rule)", "rule")
    with immediate(db, study_id):
        if load_study(db, study_id).settings.stopped:          # another worker stopped it a moment ago
            return None
        study_store.update_study(db, study_id, settings=stored_settings(study, stopped=stopped))
        audit.record(db, "study.stop", study_id, at=now, **{k: v for k, v in stopped.items() if k != "at"})
    configure_study(db, study_id, status="paused")
    if study.settings.prolific_study_id:
        stopped["prolific"] = _pause_prolific(db, study, client_factory)
        with immediate(db, study_id):
            study_store.update_study(db, study_id, settings=stored_settings(load_study(db, study_id), stopped=stopped))
    return stopped


def _pause_prolific(db: Database, study, client_factory) -> str:
    from fairval.annotate.crowd.prolific_api import OutcomeUnknown, ProlificClient

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
