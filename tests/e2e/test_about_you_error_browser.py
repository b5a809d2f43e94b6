"""The About-you error names each question left unanswered, seen in Debian's Chromium as a person meets it:
by the keyboard alone on a laptop (Tab to Continue, Enter; arrow keys choose an answer) and by touch on a
390×844 phone, in English and in German, and whole on the screen where the rater is, nobody scrolling to it.
Screenshots under test-artifacts/about-you-error/."""
from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from fairval.ui.i18n import translator
from tests.conftest import ROOT, write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies

pytestmark = pytest.mark.e2e

ARTIFACTS = os.path.join(os.environ.get("FAIRVAL_ARTIFACTS") or str(ROOT / "test-artifacts"), "about-you-error")
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
FOCUSED = "() => (document.activeElement && document.activeElement.innerText || '').trim()"
# the radio group holding the focus: its accessible name (Streamlit labels the group with the question)
IN_GROUP = """() => { const g = document.activeElement && document.activeElement.closest('[role="radiogroup"]');
  return g ? (g.getAttribute('aria-label') || '') : ''; }"""


def _studies(db, folder):
    for language in ("en", "de"):
        create_study(db, f"about-{language}", "template_quality", raters_per_item=5, seed=1, language=language,
                     demographics=["gender", "race", "country"])
        import_items(db, f"about-{language}", write_jsonl(folder / f"{language}.jsonl", [
            {"id": "t0", "filled_template": "Should the library lend this permit for a month?"}]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-about-you-error", _studies)


def _shot(page, name: str) -> None:
    bot.settle(page)
    page.wait_for_timeout(300)
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, f"{name}.png"))       # what the screen shows, unscrolled


def _in_view(page) -> bool:
    """The error line stands whole on the screen as it is (the rater need not scroll to find it)."""
    box = page.get_by_test_id("stAlertContentError").bounding_box()
    size = page.viewport_size
    return (box is not None and size is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]
            and box["x"] >= 0 and box["x"] + box["width"] <= size["width"])


def _error(page) -> str:
    alert = page.get_by_test_id("stAlertContentError")
    alert.wait_for(timeout=20_000)
    return alert.inner_text().strip()


def _stored(server, rater: str) -> tuple:
    db = open_db(server.db_path)
    try:
        return tuple(db.execute("SELECT gender, race, country FROM raters WHERE rater_id = ?", (rater,)).fetchone())
    finally:
        db.close()


def _open(page, server, language: str, rater: str) -> None:
    page.goto(f"{server.url}/?study=about-{language}&rater={rater}")
    t = translator(language)
    agree = page.get_by_role("button", name=t("I agree to take part"))
    agree.wait_for(timeout=20_000)
    agree.click()
    page.get_by_role("button", name=t("Continue")).wait_for(timeout=20_000)
    bot.settle(page)


def _tab_to(page, label: str, most: int = 60) -> None:
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED) == label:
            return
    raise AssertionError(f"Tab never reached {label!r}")


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_keyboard_alone_meets_an_error_that_names_the_unanswered_questions(server, browser, language):
    t = translator(language)
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    try:
        _open(page, server, language, f"keys-{language}")
        _tab_to(page, t("Continue"))
        page.keyboard.press("Enter")
        said = _error(page)
        assert all(t(q) in said for q in ("Gender", "Race / ethnicity", "Country of residence")), said
        _shot(page, f"keyboard-{language}-none")
        assert _in_view(page)        # the grown form put it under the fold: fairval scrolls it to the middle
        assert said in page.get_by_role("alert").inner_text()                  # and a screen reader hears it
        # a gender by the keyboard: Tab from the top of the page into the group, Space chooses the focused option
        page.keyboard.press("Control+Home")
        page.locator("body").press("Home")
        for _ in range(60):
            page.keyboard.press("Tab")
            if page.evaluate(IN_GROUP) == t("Gender"):
                break
        else:
            raise AssertionError("Tab never reached the Gender question")
        page.keyboard.press("Space")
        _tab_to(page, t("Continue"))
        page.keyboard.press("Enter")
        # the line is drawn again by the rerun the Enter brings: wait for it to change, then read it
        expect(page.get_by_test_id("stAlertContentError")).not_to_contain_text(t("Gender"), timeout=20_000)
        said = _error(page)
        assert t("Gender") not in said and t("Race / ethnicity") in said and t("Country of residence") in said, said
        if language == "en":
            assert said == ("Answer “Race / ethnicity” and “Country of residence” to go on, or choose “Prefer "
                            "not to say”.")
        _shot(page, f"keyboard-{language}-two-left")
        assert _in_view(page)
        assert _stored(server, f"keys-{language}") == (None, None, None)
    finally:
        page.context.close()


def test_on_a_phone_the_error_is_whole_on_the_screen(server, browser):
    page = browser.new_context(**PHONE).new_page()
    try:
        _open(page, server, "en", "phone")
        page.get_by_role("textbox", name="Country of residence").fill("Kenya")
        page.get_by_role("button", name="Continue").tap()
        said = _error(page)
        assert said == "Answer “Gender” and “Race / ethnicity” to go on, or choose “Prefer not to say”.", said
        _shot(page, "phone-en")
        assert _in_view(page)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390     # nothing runs off sideways
    finally:
        page.context.close()


def test_after_i_agree_the_keyboard_starts_at_the_top_of_about_you(server, browser):
    """Streamlit draws About you in place of the consent screen: the browser's place stayed where "I agree" was,
    and the first Tab went to Continue, past every question. The new screen's heading takes the focus."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    try:
        page.goto(f"{server.url}/?study=about-en&rater=keys-start")
        page.get_by_role("button", name="I agree to take part").wait_for(timeout=20_000)
        bot.settle(page)
        _tab_to(page, "I agree to take part")
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Continue").wait_for(timeout=20_000)
        expect(page.locator("h1:focus")).to_have_text("About you", timeout=20_000)
        _shot(page, "keyboard-after-consent")
        page.keyboard.press("Tab")
        assert page.evaluate(IN_GROUP) == "Gender"
        assert page.evaluate("() => { const r = document.activeElement.getBoundingClientRect();"
                             " return r.top >= 0 && r.bottom <= innerHeight; }")
    finally:
        page.context.close()
