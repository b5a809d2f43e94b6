"""Answers change only by the rater's intent: in every task with a comment box, digits, the letters of
the shortcut keys and Enter typed into the box stay in the box, the answer chosen before stays chosen,
Enter adds a line, Ctrl+Enter submits, and the database holds the comment character for character."""
import re

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

# A custom task with two questions (keys 1–9 and A S D F …) and a comment box.
CUSTOM = {"name": "clarity_check", "display": "template", "required_fields": ["filled_template"],
          "instructions": "Rate the question.", "comment": True,
          "questions": [{"id": "clear", "prompt": "Is it clear?", "options": ["yes", "no"], "level": "nominal"},
                        {"id": "fair", "prompt": "Is it fair?", "options": ["fair", "unfair", "unsure"],
                         "level": "nominal"}]}
TYPED = ["Too vague 2", "Enter", "1 9 a s d f z x c", "Enter", "Shift+Enter", "ends here ?!"]
EXPECTED = "Too vague 2\n1 9 a s d f z x c\n\nends here ?!"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-comment")
    db = open_db(folder / "fairval.db")
    create_study(db, "scen", "scenario_select", raters_per_item=5, seed=1)
    import_items(db, "scen", write_jsonl(folder / "s.jsonl", [{"id": f"s{k}", "scenario": f"Scenario {k}"}
                                                            for k in range(3)]))
    create_study(db, "custom", task_definition=CUSTOM, raters_per_item=5, seed=1)
    import_items(db, "custom", write_jsonl(folder / "c.jsonl", [{"id": f"c{k}", "filled_template": f"Q{k}?"}
                                                              for k in range(3)]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def type_into(box, keys: list[str]) -> None:
    for part in keys:
        if part in ("Enter", "Shift+Enter"):
            box.press(part)
        else:
            box.press_sequentially(part)


@pytest.mark.parametrize("study, keys, chosen", [
    ("scen", ["1"], {"keep": "yes"}),
    ("custom", ["2", "s"], {"clear": "no", "fair": "unfair"}),
])
def test_typing_in_the_comment_changes_nothing_but_the_comment(server, browser, study, keys, chosen):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    rater = f"typist-{study}"
    bot.open_link(page, f"{server.url}/?study={study}&rater={rater}")
    bot.consent(page)
    bot.start(page)
    item = bot.item_text(page)
    page.locator(".fv-option").first.wait_for()          # the card is drawn and listening
    pressed = page.locator('.fv-option[aria-pressed="true"]')
    for n, key in enumerate(keys, start=1):              # the answers, chosen by their keys
        page.keyboard.press(key)
        expect(pressed).to_have_count(n)
    before = pressed.all_inner_texts()
    box = page.locator("textarea.fv-comment")
    box.click()
    type_into(box, TYPED)
    assert box.input_value() == EXPECTED                  # every character reached the box
    assert pressed.all_inner_texts() == before            # and no answer moved
    assert page.get_by_text("Ctrl+Enter").count() == 1    # the way to submit from the box is on screen
    # the box's cap, said as the rater types (issue 55): the count follows the box, which stops at 2,000
    expect(page.get_by_text(f"{len(EXPECTED)} of 2,000 characters")).to_be_visible()
    assert box.get_attribute("maxlength") == "2000"
    box.press("Control+Enter")
    # the next item's progress line, whole: a part of it ("1 of") is also in the box's count at some lengths
    # ("41 of 2,000 characters"), which this screen shows
    page.get_by_text(re.compile(r"^1 of \d+ done$")).wait_for(timeout=30_000)
    bot.settle(page)
    assert bot.item_text(page) != item
    db = open_db(server.db_path)
    rows = db.query("SELECT question, value, comment FROM ratings WHERE study_id = ? AND rater_id = ?", [study, rater])
    db.close()
    assert {r["question"]: r["value"] for r in rows} == chosen
    assert [r["comment"] for r in rows if r["comment"] is not None] == [EXPECTED]      # once, not on each row
    page.context.close()
