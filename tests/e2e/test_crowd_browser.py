"""A crowd study in a real browser: raters at once through consent → demographics → practice → items →
completion, one quitting midway (their slot is served again after the timeout), one failing the
attention checks (flagged); the database and the analysis agree with what the raters did.

Time is moved, not waited for: the quitter's slot is back-dated past the timeout in the database, so
no rater's slot can expire by accident on a slow machine."""
import re

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.annotate.results.numbers import study_numbers
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import PASSWORD, Server, wait_text

pytestmark = pytest.mark.e2e
TIMEOUT = 1800.0
GOLD_TEXT = "Attention check: please choose Strongly disagree for both statements."


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-crowd")
    db = open_db(folder / "fairval.db")
    create_study(db, "crowd", "template_quality", raters_per_item=2, balance_by="gender",
                 balance_groups=["female", "male"], gold_rate=0.25, timeout_seconds=TIMEOUT,
                 completion_code="CROWD-OK", prolific_redirect=True, seed=8)
    rows = [{"id": f"q{i}", "filled_template": f"Regular decision question {i}: approve?"} for i in range(3)]
    rows += [{"id": f"gold{i}", "filled_template": GOLD_TEXT, "_gold": {"quality": 1, "yes_positive": 1}}
             for i in range(2)]
    rows += [{"id": "practice", "filled_template": "Practice: a clear, fair question. Approve?",
              "_practice": True, "_gold": {"quality": 5, "yes_positive": 5}}]
    import_items(db, "crowd", write_jsonl(folder / "items.jsonl", rows))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


PROGRESS = re.compile(r"^\d+ of \d+ done$")


def link(server, pid):
    return f"{server.url}/?study=crowd&PROLIFIC_PID={pid}&STUDY_ID=crowd1&SESSION_ID=s-{pid}"


def practice(page):
    wait_text(page, "Practice 1 of 1")
    bot.answer_template(page, "Strongly agree", "Somewhat agree", submit="Check my answer")
    wait_text(page, "the expected answer is")              # feedback on the second statement
    page.get_by_role("button", name="Next").click()


def rate_one(page, *, honest: bool):
    done = int(page.get_by_text(PROGRESS).first.inner_text().split()[0])
    text = bot.item_text(page)
    if text == GOLD_TEXT:
        answer = ("Strongly disagree", "Strongly disagree") if honest else ("Strongly agree", "Strongly agree")
    else:
        answer = ("Somewhat agree", "Strongly agree")
    bot.answer_template(page, *answer)
    # until the next screen has come, the page still shows this item: the rater's next turn must not read it
    page.get_by_text(re.compile(rf"^{done + 1} of \d+ done$")).or_(
        page.get_by_text("you have finished")).first.wait_for(timeout=30_000)
    return text


def test_crowd_study(server, browser):
    quitter, steady, careless = (browser.new_context().new_page() for _ in range(3))
    for page, pid in ((quitter, "quitter"), (steady, "steady"), (careless, "careless")):
        bot.open_link(page, link(server, pid))
    for page in (quitter, steady, careless):        # all three sessions are live at once
        bot.consent(page)
    for page, gender in ((quitter, "female"), (steady, "male"), (careless, "female")):
        bot.demographics(page, gender)
    bot.start(quitter)
    practice(quitter)
    wait_text(quitter, "0 of 4 done")              # 3 items and the check the rate puts among them
    abandoned = bot.item_text(quitter)
    quitter.context.close()                              # gone without answering

    bot.start(steady)
    practice(steady)
    bot.start(careless)
    practice(careless)
    wait_text(careless, "0 of 2 done")     # the quitter's item is held: honestly, two are open to her now
    # the quitter's timeout passes (their slot is back-dated); the item must come back to a female rater
    db = open_db(server.db_path)
    db.execute("UPDATE assignments SET served_at = served_at - ? WHERE rater_id = 'quitter'", [TIMEOUT + 1])
    db.close()
    seen = {"steady": [], "careless": []}
    for _ in range(4):                                   # 3 regular + 1 gold each, interleaved
        for name, page in (("steady", steady), ("careless", careless)):
            if page.get_by_text("you have finished").count():
                continue
            seen[name].append(rate_one(page, honest=name == "steady"))
    for page in (steady, careless):
        wait_text(page, "you have finished")
        wait_text(page, "CROWD-OK")
        assert page.get_by_role("link", name="Return to Prolific").get_attribute("href").endswith("cc=CROWD-OK")
    assert abandoned in seen["careless"]

    db = open_db(server.db_path)
    per_item = dict(db.execute("""SELECT item_id, GROUP_CONCAT(rater_id) FROM (SELECT item_id, rater_id FROM ratings
                                  WHERE question = 'quality' ORDER BY rater_id) GROUP BY item_id"""))
    assert {k: v for k, v in per_item.items() if k.startswith("q")} == {f"q{i}": "careless,steady" for i in range(3)}
    assert db.execute("SELECT COUNT(*) FROM ratings WHERE rater_id = 'quitter'").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM ratings WHERE item_id = 'practice'").fetchone()[0] == 0

    numbers = study_numbers(db, "crowd", n_boot=50).to_dict()
    assert numbers["n_raters"] == 2 and numbers["questions"]["quality"]["n"] == 6
    assert list(numbers["excluded_raters"]) == []
    flagged = study_numbers(db, "crowd", exclude_flagged=True, n_boot=50).to_dict()
    assert list(flagged["excluded_raters"]) == ["careless"]
    assert "gold accuracy 0%" in flagged["excluded_raters"]["careless"][0]
    assert flagged["n_raters"] == 1 and flagged["questions"]["quality"]["n"] == 3
    assert flagged["questions"]["quality"]["mean"] == 4.0


def test_researcher_pages_refuse_without_the_password_in_the_browser(server, browser):
    page = browser.new_page()
    for path in ("/Results", "/Calibration", "/Manage", "/Export"):
        page.goto(server.url + path)
        wait_text(page, "Researcher sign-in")
        assert page.get_by_test_id("stMetric").count() == 0 and page.get_by_test_id("stTable").count() == 0
    page.get_by_role("textbox", name="Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "not right")
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "Validated set")
    bot.settle(page)                       # click the rendered buttons, not ones being replaced
    # downloads are made when clicked, on the server, from the database
    with page.expect_download() as ratings_download:
        page.get_by_role("button", name="Ratings (.csv)").click()
    import csv
    rows = list(csv.reader(ratings_download.value.path().open(newline="", encoding="utf-8")))
    stored = open_db(server.db_path).execute("SELECT COUNT(*) FROM ratings").fetchone()[0]
    assert rows[0][:6] == ["study_id", "item_id", "rater_id", "question", "value", "canonical"]
    assert len(rows) == stored + 1
    with page.expect_download() as report_download:
        page.get_by_role("button", name="Report (.html)").click()
    assert "<h1>Study report: crowd</h1>" in report_download.value.path().read_text()
    page.close()


def test_a_rater_cannot_reach_results_from_a_link(server, tmp_path, browser):
    # "crowd" is full once test_crowd_study has run (a newcomer is told so before consent), so this test
    # uses a study of its own with an item to serve: the link must reach consent, never Results.
    db = open_db(server.db_path)
    create_study(db, "peek", "template_quality", raters_per_item=1, completion_code="PEEK-OK", seed=3)
    import_items(db, "peek", write_jsonl(tmp_path / "peek.jsonl",
                                          [{"id": "p0", "filled_template": "Peek question: approve?"}]))
    db.close()
    page = browser.new_page()
    bot.open_link(page, f"{server.url}/?study=peek&PROLIFIC_PID=curious&STUDY_ID=peek1&SESSION_ID=s-curious"
                  "&page=Results")                          # the rater's consent, not Results
    assert page.get_by_test_id("stSidebarNav").count() == 0
    assert page.get_by_text("Items complete").count() == 0 and page.get_by_test_id("stMetric").count() == 0
    page.goto(server.url + "/Results?study=peek&PROLIFIC_PID=curious")
    wait_text(page, "Researcher sign-in")
    assert page.get_by_test_id("stTable").count() == 0 and page.get_by_test_id("stMetric").count() == 0
    page.close()
