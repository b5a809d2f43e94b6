"""A rater with the same link open in two tabs of a real Chromium answers the same item differently in
each: the first answer is the one kept, and the second tab is told so, never "Answer saved"."""
import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies, wait_text

pytestmark = pytest.mark.e2e


def _study(db, folder):
    create_study(db, "tq", "template_quality", raters_per_item=1, seed=3)
    import_items(db, "tq", write_jsonl(folder / "items.jsonl", [
        {"id": f"q{i}", "filled_template": f"Decision question number {i}: should it be approved?"}
        for i in range(3)]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-two-tabs", _study)


def test_the_second_tab_is_not_told_its_answer_was_saved(server, browser):
    context = browser.new_context()
    first, second = context.new_page(), context.new_page()
    link = f"{server.url}/?study=tq&rater=twotabs"
    bot.open_link(first, link)
    bot.consent(first)
    bot.start(first)
    wait_text(first, "0 of 3 done")
    shown = bot.item_text(first)
    second.goto(link)                                    # the same link again: the item on screen
    wait_text(second, "0 of 3 done")
    assert bot.item_text(second) == shown
    bot.answer_template(first, "Strongly agree", "Strongly agree")
    wait_text(first, "1 of 3 done")
    bot.answer_template(second, "Strongly disagree", "Strongly disagree")
    wait_text(second, "already answered in another tab")
    assert second.get_by_text("Answer saved").count() == 0
    context.close()
    db = open_db(server.db_path)
    stored = rating_store.answers_of(db, "tq", "q0" if "number 0" in shown else "q1" if "number 1" in shown else "q2",
                                     "twotabs")
    db.close()
    assert stored == {"quality": "5", "yes_positive": "5"}
