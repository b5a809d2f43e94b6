"""A study from launch to paid through a fake Prolific server on 127.0.0.1: bonuses match the judgments
and are never paid twice, a return frees its slot at once, a full group is screened out with the
study's code, the review follows Prolific's two-failed-checks rule, and the token is never printed."""
import csv

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from tests.conftest import loads_table, write_jsonl
from tests.fake_prolific import TOKEN
from tests.ui.apptest import rater_app, submit, titles

ANSWER = {"quality": "4", "yes_positive": "5"}



@pytest.fixture
def study(db, tmp_path):
    create_study(db, "paid", "template_quality", raters_per_item=2, pay_per_judgment=0.5, base_pay=1.15,
                 gold_rate=0.25)
    rows = [{"id": f"q{k}", "filled_template": f"Q{k}?"} for k in range(6)]
    rows += [{"id": f"g{k}", "filled_template": f"Check {k}: answer 1 and 1.", "_gold": {"quality": 1,
                                                                                          "yes_positive": 1}}
             for k in range(2)]
    import_items(db, "paid", write_jsonl(tmp_path / "items.jsonl", rows))
    return load_study(db, "paid")


CHECK = {"quality": "1", "yes_positive": "1"}


def work(db, study, pid, n, careless=False):
    """A Prolific participant answers up to n items through the session, gold ones as they come: an
    attentive one answers the checks as asked, a careless one gives every item the same answer."""
    session.arrive(db, "paid", pid, source="prolific", platform_study_id="PSTUDY", platform_session_id=f"s-{pid}")
    session.give_consent(db, "paid", pid, True)
    session.finish_instructions(db, "paid", pid)
    for _ in range(n):
        served = session.serve_next_item(db, study, pid)
        if served is None:
            return
        answer = {"quality": "5", "yes_positive": "5"} if careless else CHECK if served.item_id.startswith("g") else ANSWER
        session.record_answer(db, study, pid, served.item_id, answer)


def run(db_path, *args, ok=True):
    result = CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])
    if ok:
        assert result.exit_code == 0, result.output
    assert TOKEN not in result.output
    return result


def read_bonuses(path):
    with open(path, newline="") as f:
        return {pid: float(amount) for pid, amount in csv.reader(f)}


def test_bonuses_match_the_judgments_and_are_never_paid_twice(db, db_path, study, tmp_path):
    work(db, study, "p1", 3)
    work(db, study, "p2", 1)
    session.arrive(db, "paid", "inhouse", source="link")                 # not from Prolific: not paid here
    run(db_path, "prolific", "bonuses", "paid", "--out", tmp_path / "b1.csv")
    assert read_bonuses(tmp_path / "b1.csv") == {"p1": 1.5, "p2": 0.5}
    run(db_path, "prolific", "bonuses", "paid", "--out", tmp_path / "b2.csv")
    assert read_bonuses(tmp_path / "b2.csv") == {}                        # nothing new, nothing paid
    study = load_study(db, "paid")
    for _ in range(2):
        served = session.serve_next_item(db, study, "p2")
        session.record_answer(db, study, "p2", served.item_id, ANSWER)
    run(db_path, "prolific", "bonuses", "paid", "--out", tmp_path / "b3.csv")
    assert read_bonuses(tmp_path / "b3.csv") == {"p2": 1.0}               # only the two new judgments


def test_bonuses_paid_through_the_api_once_and_a_refusal_is_not_counted(db, db_path, study, fake):
    work(db, study, "p1", 2)
    fake.fail[r"/pay/$"] = [400]                                         # Prolific refuses the first payment
    refused = run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY", ok=False)
    assert refused.exit_code == 1 and "400" in refused.output and fake.paid == []
    run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY")
    assert [p["csv_bonuses"] for p in fake.paid] == ["p1,1.00"]
    run(db_path, "prolific", "bonuses", "paid", "--pay", "PSTUDY")
    assert len(fake.paid) == 1                                           # nothing twice
    assert all(auth == f"Token {TOKEN}" for _, _, _, auth in fake.calls)


def test_a_returned_participant_frees_the_slot_at_once(db, db_path, study, fake):
    work(db, study, "p1", 0)
    served = session.serve_next_item(db, study, "p1")                     # p1 holds a slot, then returns
    before = {r["item_id"]: r["taken"] for r in loads_table(db, "paid")}
    fake.add("p1", "RETURNED")
    fake.add("p2", "ACTIVE")
    fake.fail[r"/submissions/$"] = [503]                                 # one transient error, retried
    said = run(db_path, "prolific", "sync", "paid", "PSTUDY").output
    assert "released 1 open slot" in said and "RETURNED 1" in said
    after = {r["item_id"]: r["taken"] for r in loads_table(db, "paid")}
    assert after[served.item_id] == before[served.item_id] - 1
    assert session.serve_next_item(db, study, "p1").item_id != served.item_id
    from fairval.store import audit
    synced = [r for r in audit.entries(db, "paid") if r["action"] == "prolific.sync"]
    assert len(synced) == 1 and synced[0]["via"] == "cli"
    assert synced[0]["details"] == {"prolific_study": "PSTUDY", "submissions": 2, "returned": 1, "released": 1}


def test_approvals_follow_the_researchers_choice_and_the_review(db, db_path, study, fake):
    work(db, study, "good", 8)                                           # meets both checks with 1 and 1
    work(db, study, "careless", 8, careless=True)
    for pid in ("good", "careless"):
        fake.add(pid, "AWAITING REVIEW")
    review = run(db_path, "prolific", "review", "paid").output
    lines = {line.split("|")[1].strip(): line for line in review.splitlines() if line.startswith("| ")}
    assert "may reject" in lines["careless"] and "failed 2 attention checks" in lines["careless"]
    assert "approve" in lines["good"]
    run(db_path, "prolific", "approve", "paid", "PSTUDY", "--suggested")
    assert fake.status_of("good") == "APPROVED" and fake.status_of("careless") == "AWAITING REVIEW"


def test_a_participant_whose_group_is_full_is_screened_out_with_the_code(db, tmp_path):
    create_study(db, "bal", "template_quality", raters_per_item=2, balance_by="gender",
                 balance_groups=["female", "male"], screen_out_code="SCREENED-9", prolific_redirect=True,
                 completion_code="DONE-1")
    import_items(db, "bal", write_jsonl(tmp_path / "b.jsonl", [{"id": "only", "filled_template": "Q?"}]))

    def onboard(pid):
        at = rater_app(study="bal", PROLIFIC_PID=pid, STUDY_ID="PSTUDY", SESSION_ID=f"s-{pid}")
        at.button(key="consent-yes").click().run()
        at.radio[0].set_value("female")
        at.button[0].click().run()
        # a participant whose group is full is told at once, with no instructions to read first
        return at.button(key="start").click().run() if [t.value for t in at.title] == ["Instructions"] else at

    submit(onboard("f1"), ANSWER)
    second = onboard("f2")
    assert titles(second) == ["No items left for you"]
    assert [c.value for c in second.code] == ["SCREENED-9"]
    link = next(iter(second.get("link_button"))).proto.url
    assert link.endswith("cc=SCREENED-9")


def test_no_token_is_one_clear_line(db_path, study, monkeypatch):
    monkeypatch.delenv("PROLIFIC_TOKEN", raising=False)
    result = run(db_path, "prolific", "sync", "paid", "PSTUDY", ok=False)
    assert result.exit_code == 1 and "PROLIFIC_TOKEN" in result.output


def test_pay_settings_are_validated(db, study):
    from fairval.errors import StudyError
    with pytest.raises(StudyError, match="pay_per_judgment"):
        configure_study(db, "paid", pay_per_judgment=-1)


def test_review_judges_a_pair_study_by_the_same_flags_as_the_results_page(db, tmp_path):
    """An honest "neither" on every pair is not straight-lining (Results says so too); always picking
    Response 1 is, and review asks the researcher to look again."""
    from fairval.annotate.crowd.prolific import review
    from fairval.annotate.results.numbers import study_numbers
    create_study(db, "pairs", "harmful_stereotype", raters_per_item=2, pay_per_judgment=0.5)
    import_items(db, "pairs", write_jsonl(tmp_path / "p.jsonl", [
        {"id": f"p{k}", "prompt": "P", "response_a": "a", "response_b": "b", "group_a": "w", "group_b": "m"}
        for k in range(12)]))
    study = load_study(db, "pairs")
    for pid, answer in (("neutral", "C"), ("first", "A")):
        session.arrive(db, "pairs", pid, source="prolific", platform_study_id="PS", platform_session_id=f"s-{pid}")
        session.give_consent(db, "pairs", pid, True)
        session.finish_instructions(db, "pairs", pid)
        while (served := session.serve_next_item(db, study, pid)) is not None:
            session.record_answer(db, study, pid, served.item_id, {"harm": answer})
    suggestion = review(db, "pairs").set_index("rater_id")["suggestion"]
    flagged = {r["rater_id"] for r in study_numbers(db, "pairs", n_boot=0).to_dict()["raters"] if r["flags"]}
    assert flagged == {"first"}
    assert suggestion.to_dict() == {"first": "look again", "neutral": "approve"}


def test_a_page_that_is_not_json_in_place_of_prolifics_answer_is_one_sentence(db, db_path, study, fake):
    """A proxy's HTML page with status 200 where the submissions list should be: one line that names the
    call and what came back, not a decoder's message, and nothing changed."""
    fake.add("p1", "RETURNED")
    fake.faults[r"/submissions/$"] = ["html"]
    result = run(db_path, "prolific", "sync", "paid", "PSTUDY", ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Prolific answered 200 to GET /api/v1/studies/PSTUDY/submissions/" in lines[0]
    assert "not JSON" in lines[0] and "Service window" in lines[0]
