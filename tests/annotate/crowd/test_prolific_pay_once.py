"""Bonuses through Prolific's API are paid exactly once, against a fake that pays on every pay request
(Prolific documents the call as not idempotent) and can lose its answer after paying, drop the
connection, throttle or refuse before paying. No sequence of lost answers, re-runs and settlements
pays a participant more than they are owed."""
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairval.annotate.crowd import prolific
from fairval.annotate.crowd.prolific_api import ProlificClient
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from fairval.errors import PayOutcomeUnknown, ProlificError
from fairval.store import open_db
from tests.annotate.crowd.test_prolific import ANSWER, run, study, work  # noqa: F401  (a fixture)
from tests.conftest import write_jsonl
from tests.fake_prolific import TOKEN, FakeProlific

PAY = 0.5


def owed(db, study_id="paid") -> dict[str, float]:
    """What each Prolific participant has earned in bonuses: judgments × pay, computed from the ratings."""
    rows = db.query("SELECT rater_id, COUNT(DISTINCT item_id) AS n FROM ratings WHERE study_id = ? GROUP BY rater_id",
                    [study_id])
    return {r["rater_id"]: round(r["n"] * PAY, 2) for r in rows}


def test_an_answer_lost_after_paying_stops_further_pay_until_settled(db, db_path, study, fake):
    work(db, study, "p1", 2)
    work(db, study, "p2", 1)
    fake.faults[r"/pay/$"] = ["502"]                         # Prolific pays, then its answer is lost
    lost = run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY", ok=False)
    assert lost.exit_code == 1
    assert "may or may not have been paid" in lost.output and "fairval prolific settle paid" in lost.output
    pay_requests = [c for c in fake.calls if c[1].endswith("/pay/")]
    assert len(pay_requests) == 1                            # sent once, never retried
    assert fake.paid_to() == {"p1": 1.0, "p2": 0.5}

    again = run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY", ok=False)
    assert "No bonus is paid" in again.output
    assert len([c for c in fake.calls if c[1].endswith("/pay/")]) == 1      # the re-run paid nothing
    listed = run(db_path, "prolific", "settle", "paid").output
    assert "unknown" in listed and "p1 1.00" in listed and "bonus-1" in listed

    batch = prolific.unsettled(db, "paid")[0]["batch"]
    run(db_path, "prolific", "settle", "paid", batch, "--paid")           # the researcher saw it paid
    work(db, study, "p2", 1)
    run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY")
    assert fake.paid_to() == owed(db) == {"p1": 1.0, "p2": 1.0}


def test_a_dropped_connection_settled_as_not_paid_is_paid_by_the_next_run(db, db_path, study, fake):
    work(db, study, "p1", 2)
    fake.faults[r"/pay/$"] = ["429"]                         # throttled before paying: definitely not paid
    refused = run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY", ok=False)
    assert "429" in refused.output and fake.paid == [] and prolific.unsettled(db, "paid") == []
    fake.faults[r"/pay/$"] = ["drop"]
    run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY", ok=False)
    assert fake.paid_to() == {"p1": 1.0}                     # paid, though the answer never came
    # a researcher who wrongly settles it as not paid would pay again; one who checks does not:
    batch = prolific.unsettled(db, "paid")[0]["batch"]
    assert "settled as paid" in run(db_path, "prolific", "settle", "paid", batch, "--paid").output
    run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY")
    assert fake.paid_to() == {"p1": 1.0}


def test_an_approval_whose_answer_is_lost_is_read_back_not_sent_again(fake, monkeypatch):
    sid = fake.add("p1", "AWAITING REVIEW")
    fake.faults[r"/transition/$"] = ["502"]
    with ProlificClient() as client:
        assert prolific.approve(client, "PSTUDY", ["p1"]) == ["p1"]
    assert fake.status_of("p1") == "APPROVED"
    assert len([c for c in fake.calls if c[1].endswith("/transition/")]) == 1
    assert ("GET", f"/api/v1/submissions/{sid}/") in [(m, p) for m, p, _, _ in fake.calls]


STEPS = st.lists(st.one_of(
    st.tuples(st.just("work"), st.sampled_from(["p1", "p2", "p3"]), st.integers(1, 2)),
    st.tuples(st.just("pay"), st.sampled_from([None, "502", "drop", "429", "400"])),
    st.tuples(st.just("settle")),
), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_no_sequence_of_faults_and_reruns_pays_more_than_owed(steps, monkeypatch):
    server = FakeProlific()
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setenv("PROLIFIC_API_URL", server.url)
    with tempfile.TemporaryDirectory() as folder:
        db = open_db(Path(folder) / "f.db")
        create_study(db, "paid", "template_quality", raters_per_item=3, pay_per_judgment=PAY)
        import_items(db, "paid", write_jsonl(Path(folder) / "i.jsonl",
                                             [{"id": f"q{k}", "filled_template": f"Q{k}?"} for k in range(8)]))
        the_study = load_study(db, "paid")
        started: set[str] = set()
        try:
            with ProlificClient() as client:
                for step in [*steps, ("settle",), ("pay", None)]:
                    if step[0] == "work":
                        _work(db, the_study, step[1], step[2], started)
                    elif step[0] == "pay":
                        server.faults[r"/pay/$"] = [step[1]] if step[1] else []
                        try:
                            prolific.pay_bonuses(db, "paid", client, "PSTUDY")
                        except Exception as e:                 # refusals and unknown outcomes are expected
                            assert isinstance(e, (PayOutcomeUnknown, ProlificError)), e
                    else:                                      # the researcher checks Prolific and says so
                        for b in prolific.unsettled(db, "paid"):
                            arrived = any(s["csv_bonuses"] == _lines(b) for s in server.paid)
                            prolific.settle(db, "paid", b["batch"], paid=arrived)
                    paid, earned = server.paid_to(), owed(db)
                    assert all(paid[p] <= earned.get(p, 0) + 1e-9 for p in paid), (steps, paid, earned)
            assert server.paid_to() == {p: a for p, a in owed(db).items() if a > 0}
        finally:
            db.close()
            server.stop()


def _work(db, study, pid, n, started):
    if pid not in started:
        session.arrive(db, "paid", pid, source="prolific", platform_study_id="PSTUDY", platform_session_id=f"s-{pid}")
        session.give_consent(db, "paid", pid, True)
        session.finish_instructions(db, "paid", pid)
        started.add(pid)
    for _ in range(n):
        served = session.serve_next_item(db, study, pid)
        if served is None:
            return
        session.record_answer(db, study, pid, served.item_id, ANSWER)


def _lines(batch: dict) -> str:
    return "\n".join(f"{r},{a:.2f}" for r, a in batch["participants"])


def test_the_cli_documents_settle(db_path, study):
    help_text = run(db_path, "prolific", "settle", "--help").output
    assert "--paid" in help_text and "--not-paid" in help_text
