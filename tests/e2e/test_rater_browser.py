"""A rater in a real Chromium: link → consent → demographics → items (mouse and keyboard) → reload →
resume → completion code; every answer checked in the SQLite file the server wrote."""
import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import Server, wait_text

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-rater")
    db = open_db(folder / "fairval.db")
    create_study(db, "tq", "template_quality", raters_per_item=2, completion_code="E2E-CODE",
                 demographics=["gender"], seed=3)
    import_items(db, "tq", write_jsonl(folder / "items.jsonl", [
        {"id": f"q{i}", "filled_template": f"Decision question number {i}: should it be approved?"}
        for i in range(3)]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def current_text(page) -> str:
    return bot.item_text(page)


def test_rater_rates_reloads_resumes_and_finishes(server, browser):
    page = browser.new_page()
    link = f"{server.url}/?study=tq&PROLIFIC_PID=pp1&STUDY_ID=st&SESSION_ID=se"
    page.goto(link)
    page.get_by_role("button", name="I agree to take part").click()
    wait_text(page, "About you")
    bot.background(page, "Gender", "male")
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Start").click()
    wait_text(page, "0 of 3 done")

    seen = []
    # item 1 with the mouse
    seen.append(current_text(page))
    bot.answer_template(page, "Strongly agree", "Somewhat agree")
    wait_text(page, "1 of 3 done")

    # item 2 with the keyboard: 4 for the first question, s (second option) for the second, Enter; first the
    # new item's card, listening (the card just sent refuses keys until the next item reaches it)
    bot.card_ready(page)
    seen.append(current_text(page))
    page.get_by_test_id("stText").first.click()      # focus the page, not a widget
    page.keyboard.press("4")
    expect(bot.option(page, "Somewhat agree").first).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("s")
    expect(bot.option(page, "Somewhat disagree").nth(1)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Enter")
    wait_text(page, "2 of 3 done")
    third = current_text(page)

    # reload: same item, nothing lost
    page.reload()
    wait_text(page, "2 of 3 done")
    assert current_text(page) == third
    page.close()

    # come back in a fresh tab with the same link and finish
    page = browser.new_page()
    page.goto(link)
    wait_text(page, "2 of 3 done")
    assert current_text(page) == third
    bot.answer_template(page, "Neither agree nor disagree", "Strongly disagree")
    wait_text(page, "you have finished")
    wait_text(page, "E2E-CODE")
    page.close()

    db = open_db(server.db_path)
    rows = db.execute("""SELECT i.data, r.question, r.value FROM ratings r JOIN items i USING (study_id, item_id)
                         WHERE r.rater_id = 'pp1' ORDER BY r.rating_id""").fetchall()
    got = [(json_text(d), q, v) for d, q, v in rows]
    expected_values = [("quality", "5"), ("yes_positive", "4"), ("quality", "4"), ("yes_positive", "2"),
                       ("quality", "3"), ("yes_positive", "1")]
    assert [(q, v) for _, q, v in got] == expected_values
    assert [t for t, q, _ in got if q == "quality"] == [*seen, third]
    rater = db.execute("SELECT gender, source, platform_study_id, platform_session_id, finished_at IS NOT NULL "
                       "FROM raters WHERE rater_id = 'pp1'").fetchone()
    assert rater == ("male", "prolific", "st", "se", 1)


def json_text(data: str) -> str:
    import json
    return json.loads(data)["filled_template"]
