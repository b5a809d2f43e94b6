"""A study in Arabic and one in Hindi, in a real Chromium, from the link to the completion code: the page's
lang and dir follow the study's language (Arabic right to left, the answer card too), and no English
fairval message is on the rater's way. Neither is any of Streamlit's: neither script has Latin letters,
so every text, aria-label, title and placeholder in the page (the card's shadow root included) is read
and none may hold a Latin word but the study's own material, the code, "Prolific" and the Enter key. The race
question offers the region's answers in the language's words, and stores the common English value."""
import re

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from fairval.store.raters import get_rater
from fairval.ui.demographics import answer_label, races
from fairval.ui.i18n import translator
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies, wait_text
from tests.ui.test_i18n import _english_left

pytestmark = pytest.mark.e2e

WORDS = """() => { const found = [];
    function walk(node) {
      if (node.nodeType === Node.TEXT_NODE) { found.push(node.textContent); return; }
      if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (["SCRIPT", "STYLE", "NOSCRIPT", "TITLE"].includes(node.tagName)) return;
        if (node.matches('[data-testid="stIconMaterial"]')) return;     // an icon's ligature, not a word
        for (const name of ["aria-label", "title", "placeholder", "alt"]) {
          if (node.getAttribute(name)) found.push(node.getAttribute(name));
        }
      }
      if (node.shadowRoot) walk(node.shadowRoot);
      node.childNodes.forEach(walk);
    }
    walk(document.documentElement);
    return found; }"""
ALLOWED = {"Plan", "my", "week", "Rest", "Work", "woman", "man", "Prolific", "Enter", "DONE"}
PAIR = {"prompt": "Plan my week", "response_a": "Rest.", "response_b": "Work.", "group_a": "woman", "group_b": "man"}


def _studies(db, folder):
    for language in ("ar", "hi"):
        create_study(db, language, "harmful_stereotype", raters_per_item=1, completion_code=f"DONE-{language}",
                     language=language, seed=1, demographics=["gender", "race", "country"], prolific_redirect=True)
        import_items(db, language, write_jsonl(folder / f"{language}.jsonl", [{"id": "p0", **PAIR}]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-languages", _studies)


@pytest.mark.parametrize("language", ["ar", "hi"])
def test_a_study_in_the_raters_language(server, browser, language):
    t = translator(language)
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(f"{server.url}/?study={language}&PROLIFIC_PID=p-{language}&STUDY_ID=s&SESSION_ID=x-{language}")
    page.get_by_role("button", name=t("I agree to take part")).click()
    page.get_by_role("radiogroup", name=t("Gender")).wait_for()
    words = latin_words(page)
    page.get_by_role("radiogroup", name=t("Gender")).get_by_text(t("Prefer not to say"), exact=True).click()
    race = page.get_by_role("radiogroup", name=t("Race / ethnicity"))
    offered = [answer_label(t, value) for value in races(language)]
    expect(race.get_by_role("radio")).to_have_count(len(offered))
    for n, label in enumerate(offered):
        expect(race.get_by_role("radio").nth(n)).to_have_accessible_name(label)
    race.get_by_text(offered[0], exact=True).click()
    page.get_by_label(t("Country of residence")).fill("Kenya")
    page.get_by_role("button", name=t("Continue")).click()
    page.get_by_role("button", name=t("Start")).wait_for()
    words |= latin_words(page)
    page.get_by_role("button", name=t("Start")).click()
    wait_text(page, t("{done} of {total} done", done=0, total=1))
    expected_dir = "rtl" if language == "ar" else "ltr"
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == [language, expected_dir]
    card = page.locator(".fv-card")
    # the card's script sets lang and dir when it runs, a moment after Streamlit mounts the empty card
    expect(card).to_have_attribute("dir", expected_dir)
    expect(card).to_have_attribute("lang", language)
    seen = page.locator("body").inner_text()
    words |= latin_words(page)
    page.locator(".fv-option").nth(2).click()
    page.get_by_role("button", name=t("Submit")).click()
    wait_text(page, f"DONE-{language}")
    seen += "\n" + page.locator("body").inner_text()
    words |= latin_words(page)
    assert _english_left(seen.splitlines(), language) == []
    assert words - ALLOWED - {language} == set()          # the code is DONE-<language>
    db = open_db(server.db_path)
    assert get_rater(db, language, f"p-{language}")["race"] == races(language)[0]    # stored in English
    db.close()


def latin_words(page) -> set[str]:
    """Every word in Latin letters anywhere in the page, once its rerun has settled."""
    bot.settle(page)
    return {w for text in page.evaluate(WORDS) for w in re.findall(r"[A-Za-z]{2,}", text)}
