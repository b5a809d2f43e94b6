"""Prolific's push: `fairval prolific hooks` subscribes through the (fake) Prolific API as its documentation
describes; the server's hook route takes a signed RETURNED event and gives the participant's open slot back
at once, and changes nothing for a forged signature, a stale timestamp, a duplicate or an older event."""
import time

import pytest
from click.testing import CliRunner
from starlette.applications import Starlette
from starlette.testclient import TestClient

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from fairval.server.prolific_hook_route import ROUTES
from fairval.store import audit
from tests.conftest import loads_table, write_jsonl

HOOK = "https://lab.example/fairval/prolific-hook"



@pytest.fixture
def subscribed(db, db_path, tmp_path, fake):
    create_study(db, "paid", "template_quality", raters_per_item=1)
    import_items(db, "paid", write_jsonl(tmp_path / "items.jsonl", [{"id": f"q{k}", "filled_template": f"Q{k}?"}
                                                                     for k in range(3)]))
    result = CliRunner().invoke(cli, ["--db", str(db_path), "prolific", "hooks", "paid", "PSTUDY", "--url", HOOK,
                                      "--workspace", "WS1"])
    assert result.exit_code == 0, result.output
    return load_study(db, "paid")


def holder(db, study, participant: str, submission: str):
    """A participant from Prolific who holds an item (their link's SESSION_ID is the submission)."""
    session.arrive(db, "paid", participant, source="prolific", platform_study_id="PSTUDY", platform_session_id=submission)
    session.give_consent(db, "paid", participant, True)
    session.finish_instructions(db, "paid", participant)
    return session.serve_next_item(db, study, participant)


def taken(db) -> int:
    return sum(r["taken"] for r in loads_table(db, "paid"))


def test_subscribing_follows_prolifics_two_steps(subscribed, fake):
    [subscription] = fake.hook_subscriptions.values()
    assert subscription["is_enabled"] and subscription["target_url"] == HOOK
    assert subscription["event_type"] == "submission.status.change" and subscription["workspace_id"] == "WS1"


def test_a_signed_returned_event_frees_the_slot_and_a_forged_one_changes_nothing(db, db_path, subscribed, fake):
    served = holder(db, subscribed, "p1", "sub-p1")
    assert served is not None and taken(db) == 1
    client = TestClient(Starlette(routes=ROUTES))
    now = time.time()
    forged = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "RETURNED", event_id="e1", event_at=now,
                       sent_at=now, secret="not-the-secret")
    assert forged.status_code == 401 and taken(db) == 1
    stale = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "RETURNED", event_id="e2", event_at=now - 900,
                      sent_at=now - 900)
    assert stale.status_code == 401 and taken(db) == 1
    older = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "ACTIVE", event_id="e3", event_at=now - 5,
                      sent_at=now)
    assert older.status_code == 200 and taken(db) == 1
    good = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "RETURNED", event_id="e4", event_at=now,
                     sent_at=now)
    assert good.status_code == 200 and "1 slot(s) released" in good.text and taken(db) == 0
    again = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "RETURNED", event_id="e4", event_at=now,
                      sent_at=now)
    assert again.status_code == 200 and "duplicate" in again.text
    late = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "AWAITING REVIEW", event_id="e5",
                     event_at=now - 60, sent_at=now)
    assert "older" in late.text
    trail = [r for r in audit.entries(db, "paid") if r["action"] == "prolific.returned"]
    assert len(trail) == 1 and trail[0]["actor"] == "Prolific" and trail[0]["details"]["participant"] == "p1"


def test_an_address_prolific_cannot_call_is_refused_in_one_line(db, db_path, fake):
    create_study(db, "s", "template_quality")
    result = CliRunner().invoke(cli, ["--db", str(db_path), "prolific", "hooks", "s", "PSTUDY", "--url",
                                      "http://lab.example/hook", "--workspace", "WS1"])
    assert result.exit_code == 1 and "https://" in result.output and len(result.output.strip().splitlines()) == 1


def _replay(client, request, **changed_headers):
    """The same signed request sent again, with headers the sender may change (they are not signed)."""
    return client.post("/fairval/prolific-hook", content=request.request.content,
                       headers={**request.request.headers, **changed_headers})


def test_only_what_the_signature_covers_is_believed(db, db_path, subscribed, fake):
    """A captured request sent again with a new X-Event-ID is the same event; one stamped (X-Timestamp) in the
    future cannot make the real events after it look older; a signed timestamp of nan is refused."""
    import base64
    import hashlib
    import hmac
    import json

    holder(db, subscribed, "p1", "sub-p1")
    client = TestClient(Starlette(routes=ROUTES))
    now = time.time()
    first = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "ACTIVE", event_id="e1", event_at=now - 10,
                      sent_at=now - 10)
    assert first.status_code == 200 and "new event" in first.text
    again = _replay(client, first, **{"X-Event-ID": "e-other", "X-Timestamp": str(now + 86400)})
    assert again.status_code == 200 and "duplicate" in again.text
    future = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "ACTIVE", event_id="e2",
                       event_at=now + 86400, sent_at=now - 5)                    # stamped a day ahead
    assert future.status_code == 200
    real = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "RETURNED", event_id="e3", event_at=now,
                     sent_at=now)
    assert "1 slot(s) released" in real.text and taken(db) == 0
    body = json.dumps({"resource_id": "sub-p1", "event_type": "submission.status.change", "status": "RETURNED"}).encode()
    signed = base64.b64encode(hmac.new(fake.hook_secret.encode(), b"nan" + body, hashlib.sha256).digest()).decode()
    nan = client.post("/fairval/prolific-hook", content=body, headers={
        "X-Prolific-Request-Signature": signed, "X-Prolific-Request-Timestamp": "nan"})
    assert nan.status_code == 401


def test_an_event_reaches_only_the_study_it_was_subscribed_for(db, db_path, subscribed, fake, tmp_path):
    """The same SESSION_ID in another study's link (a made-up one, or a participant of another study): the
    subscription for "paid" releases nothing there."""
    create_study(db, "other", "template_quality", raters_per_item=1)
    import_items(db, "other", write_jsonl(tmp_path / "o.jsonl", [{"id": "o0", "filled_template": "O?"}]))
    other = load_study(db, "other")
    session.arrive(db, "other", "p9", source="prolific", platform_study_id="OTHER", platform_session_id="sub-p1")
    session.give_consent(db, "other", "p9", True)
    session.finish_instructions(db, "other", "p9")
    assert session.serve_next_item(db, other, "p9") is not None
    holder(db, subscribed, "p1", "sub-p1")
    client = TestClient(Starlette(routes=ROUTES))
    now = time.time()
    said = fake.push(client, "/fairval/prolific-hook", "sub-p1", "p1", "RETURNED", event_id="e1", event_at=now,
                     sent_at=now)
    assert "1 slot(s) released" in said.text and taken(db) == 0
    assert sum(r["taken"] for r in loads_table(db, "other")) == 1               # untouched
