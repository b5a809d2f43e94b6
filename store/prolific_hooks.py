"""Prolific's push: the workspaces subscribed, with their signing secrets, and the events taken."""
from __future__ import annotations

from fairval.store.engine import Connection, immediate


def save_subscription(db: Connection, workspace_id: str, secret: str, subscription_id: str, target_url: str,
                      study_id: str | None, now: float) -> None:
    with immediate(db):
        db.execute("DELETE FROM prolific_hooks WHERE workspace_id = ?", [workspace_id])
        db.insert("prolific_hooks", [{"workspace_id": workspace_id, "secret": secret, "subscription_id": subscription_id,
                                      "target_url": target_url, "study_id": study_id, "created_at": now}])


def secrets(db: Connection) -> list[str]:
    return [r[0] for r in db.execute("SELECT secret FROM prolific_hooks")]


def subscriptions(db: Connection) -> list[tuple[str, str | None]]:
    """(signing secret, the study it was subscribed for, or None for every study) of each workspace."""
    return [(r[0], r[1]) for r in db.execute("SELECT secret, study_id FROM prolific_hooks")]


def take_event(db: Connection, event_id: str, submission_id: str, status: str, event_at: float, now: float) -> str:
    """Record an event once: 'new' (and the newest for its submission), 'duplicate' (its id was taken
    before) or 'older' (a later event of the submission was taken already: it arrived out of order)."""
    with immediate(db):
        if db.scalar("SELECT 1 FROM prolific_hook_events WHERE event_id = ?", [event_id]) is not None:
            return "duplicate"
        latest = db.scalar("SELECT MAX(event_at) FROM prolific_hook_events WHERE submission_id = ?", [submission_id])
        db.insert("prolific_hook_events", [{"event_id": event_id, "submission_id": submission_id, "status": status,
                                            "event_at": event_at, "received_at": now}])
        return "older" if latest is not None and latest > event_at else "new"


def raters_of_submission(db: Connection, submission_id: str, study_id: str | None = None) -> list[tuple[str, str]]:
    """(study, rater) whose Prolific link carried this submission (SESSION_ID is the submission's id), in
    that study when one is given."""
    return [(s, r) for s, r in db.execute(
        "SELECT study_id, rater_id FROM raters WHERE platform_session_id = ?"
        + (" AND study_id = ?" if study_id is not None else ""),
        [submission_id] + ([study_id] if study_id is not None else []))]
