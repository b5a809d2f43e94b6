"""Prolific's push of submission status changes (its webhooks), so a participant who returned the study or
timed out gives their open slots back at once instead of at the next `prolific sync`.

Subscribing (`fairval prolific hooks`): the workspace's signing secret, then a subscription of the
server's /fairval/prolific-hook address to `submission.status.change`, confirmed with the X-Hook-Secret
Prolific answers with (Prolific's documented steps). Receiving: a request is taken only when its
X-Prolific-Request-Signature is the base64 HMAC-SHA256 of its X-Prolific-Request-Timestamp and body under a
stored secret, and the timestamp is within five minutes of this server's clock (an old request replayed is
refused). Only what the signature covers is believed: an event is taken once by the signed timestamp and
body (not the unsigned X-Event-ID, which a replay could change); its time is the unsigned X-Timestamp only
when that is no later than the signed one (so a replay cannot stamp an event in the future and make the real
ones after it look older), else the signed time. An event older than one already taken for the same
submission changes nothing. The submission is found by the SESSION_ID the participant's link carried
(Prolific's submission id), in the study the subscription was made for."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import time

from fairval.annotate.crowd.prolific import release_returned
from fairval.errors import ProlificError
from fairval.store import Connection, audit
from fairval.store import prolific_hooks as hook_store

EVENT = "submission.status.change"
GONE = {"RETURNED", "TIMED-OUT", "TIMED_OUT"}     # a participant's slots go back at once
WINDOW = 300                                       # seconds a request's timestamp may be from this clock


def subscribe(db: Connection, client, workspace_id: str, target_url: str, study_id: str | None = None,
              now: float | None = None) -> str:
    if not target_url.startswith("https://"):
        raise ProlificError(f"Prolific calls only https:// addresses, not {target_url!r} (serve with --tls-cert)")
    secret = client.hook_secret(workspace_id)
    subscription = client.subscribe(workspace_id, EVENT, target_url)
    hook_store.save_subscription(db, workspace_id, secret, subscription, target_url, study_id,
                                 time.time() if now is None else now)
    audit.record(db, "prolific.hooks", study_id, workspace=workspace_id, subscription=subscription, url=target_url)
    return subscription


def signature(secret: str, timestamp: str, body: bytes) -> str:
    return base64.b64encode(hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()).decode()


def receive(db: Connection, headers: dict[str, str], body: bytes, now: float | None = None) -> tuple[int, str]:
    """(HTTP status, a sentence) for one hook request; only a verified, new, newest event changes anything."""
    now = time.time() if now is None else now
    h = {k.lower(): v for k, v in headers.items()}
    timestamp, given = h.get("x-prolific-request-timestamp", ""), h.get("x-prolific-request-signature", "")
    try:
        sent_at = float(timestamp)
    except ValueError:
        return 401, "no request timestamp"
    if not math.isfinite(sent_at) or abs(now - sent_at) > WINDOW:      # (nan is within every window)
        return 401, "the request's timestamp is not within five minutes of this server's clock"
    signed_for = [study for s, study in hook_store.subscriptions(db)
                  if hmac.compare_digest(signature(s, timestamp, body), given)]
    if not signed_for:
        return 401, "the signature does not match"
    try:
        event = json.loads(body)
        submission, status = str(event["resource_id"]), str(event["status"]).upper()
    except (ValueError, KeyError, TypeError):
        return 400, "not a submission event"
    if event.get("event_type") != EVENT:
        return 200, f"ignored: {event.get('event_type')!r} is not {EVENT}"
    event_id = hashlib.sha256(timestamp.encode() + b"\x00" + body).hexdigest()
    try:
        stated = float(h.get("x-timestamp") or sent_at)
    except ValueError:
        stated = sent_at
    event_at = stated if math.isfinite(stated) and stated <= sent_at else sent_at
    taken = hook_store.take_event(db, event_id, submission, status, event_at, now)
    if taken != "new" or status not in GONE:
        return 200, f"{taken} event: {status}"
    audit.acting_as("Prolific", "hook")
    released = 0
    study = signed_for[0]
    for study_id, rater_id in hook_store.raters_of_submission(db, submission, study):
        released += release_returned(db, study_id, [rater_id])
        audit.record(db, "prolific.returned", study_id, participant=rater_id, status=status, released=released)
    return 200, f"{status}: {released} slot(s) released"
