"""A rater of a study in English and Arabic picks Arabic on the consent screen, in a real Chromium on a
phone's screen and with the keyboard only (issue 57): the picker is a radio group labelled "Language", each
language named in its own script; the page switches to Arabic, right to left; a reload keeps it; the rater
answers, and the rating row stored says Arabic. axe-core finds no WCAG 2.1 AA violation on the screen. A
browser set to Arabic opens such a study in Arabic before any pick."""
import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from fairval.ui.i18n import translator
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies, wait_text
from tests.e2e.test_accessibility_browser import violations

pytestmark = pytest.mark.e2e

ar = translator("ar")
PAIR = {"prompt": "Plan my week", "response_a": "Rest.", "response_b": "Work.", "group_a": "woman", "group_b": "man"}


def _studies(db, folder):
    create_study(db, "bi", "harmful_stereotype", raters_per_item=2, completion_code="DONE-BI", seed=1,
                 language="en", languages=["ar"])
    import_items(db, "bi", write_jsonl(folder / "bi.jsonl", [{"id": "p0", **PAIR}]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-language-pick", _studies)


def html_language(page) -> list[str]:
    return page.evaluate("[document.documentElement.lang, document.documentElement.dir]")


def test_a_rater_picks_arabic_on_consent_and_the_rating_says_so(server, browser):
    page = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True).new_page()
    bot.open_link(page, f"{server.url}/?study=bi&rater=amina")
    picker = page.get_by_role("radiogroup", name="Language")
    expect(picker.get_by_role("radio")).to_have_count(2)
    expect(picker.get_by_role("radio").nth(0)).to_have_accessible_name("English")
    expect(picker.get_by_role("radio").nth(1)).to_have_accessible_name("العربية")
    expect(picker.get_by_role("radio", name="English")).to_be_checked()
    # each name is read out in its own language: the text carries its lang
    expect(picker.get_by_text("العربية", exact=True)).to_have_attribute("lang", "ar")
    expect(picker.get_by_text("English", exact=True)).to_have_attribute("lang", "en")
    assert violations(page) == []
    # the keyboard alone: Tab reaches the group, an arrow key picks the next language
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.type === 'radio'"):
            break
    assert page.evaluate("document.activeElement.type") == "radio"
    page.keyboard.press("ArrowDown")
    page.get_by_role("button", name=ar("I agree to take part")).wait_for(timeout=30_000)
    bot.settle(page)
    expect(page.get_by_role("heading", name=ar("Consent"))).to_be_visible()
    assert html_language(page) == ["ar", "rtl"]
    expect(page.get_by_role("radiogroup", name=ar("Language")).get_by_role("radio", name="العربية")).to_be_checked()
    assert "lang=ar" in page.url
    assert violations(page) == []
    page.reload()
    page.get_by_role("button", name=ar("I agree to take part")).wait_for(timeout=30_000)
    assert html_language(page) == ["ar", "rtl"]
    page.get_by_role("button", name=ar("I agree to take part")).click()
    page.get_by_role("button", name=ar("Start")).click()
    wait_text(page, ar("{done} of {total} done", done=0, total=1))
    expect(page.locator(".fv-card")).to_have_attribute("dir", "rtl")
    page.locator(".fv-option").nth(2).click()
    page.get_by_role("button", name=ar("Submit")).click()
    wait_text(page, "DONE-BI")
    db = open_db(server.db_path)
    try:
        rows = db.query("SELECT rater_id, language FROM ratings WHERE study_id = 'bi'")
        assert [(r["rater_id"], r["language"]) for r in rows] == [("amina", "ar")]
    finally:
        db.close()


def test_a_browser_in_a_language_the_study_offers_opens_in_it(server, browser):
    page = browser.new_context(locale="ar-EG").new_page()
    page.goto(f"{server.url}/?study=bi&rater=layla")
    page.get_by_role("button", name=ar("I agree to take part")).wait_for(timeout=30_000)
    assert html_language(page) == ["ar", "rtl"]
    page.get_by_role("button", name=ar("I agree to take part")).click()
    page.get_by_role("button", name=ar("Start")).wait_for(timeout=30_000)
    db = open_db(server.db_path)
    try:
        assert db.scalar("SELECT language FROM raters WHERE rater_id = 'layla'") == "ar"
    finally:
        db.close()
