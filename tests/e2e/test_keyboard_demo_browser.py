"""Every demo study from the link to the completion code by a rater who has only a keyboard, in a real
Chromium: Tab and Enter for the buttons, Tab and the arrow keys in the background questions, typing
for the country, the key shown on an answer to choose it (the last answer of each question, after first
choosing the first, so a stored first choice would show) and Enter to submit. No mouse event is sent.
Every stored answer is the last one chosen."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.material.studies import list_study_names, load_study
from fairval.store import open_db
from fairval.store import ratings as rating_store
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies

pytestmark = pytest.mark.e2e

FOCUSED = """() => { let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a ? [a.tagName, a.getAttribute("aria-label") || "", (a.innerText || a.value || "").trim()].join("|") : ""; }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-keyboard-demo", lambda db, folder: ensure_demo(db))


def tab_to(page, pattern: str, limit: int = 80, button: str | None = None) -> str:
    """Press Tab until the focused element matches pattern; first wait for the button named so to be drawn."""
    if button:
        page.get_by_role("button", name=button).first.wait_for()
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if re.search(pattern, focused):
            return focused
    raise AssertionError(f"Tab never reached {pattern!r} (last: {focused!r})")


def press_and_wait(page, key: str) -> None:
    """Press key and wait for the next screen: the page's text changes and nothing of the old one is left."""
    before = page.locator("body").inner_text()
    page.keyboard.press(key)
    page.wait_for_function("before => document.body.innerText !== before", arg=before, timeout=20_000)
    bot.settle(page)


def about_you(page, asks: tuple[str, ...]) -> None:
    second = {"gender": "Male", "race": "Black"}         # where the first arrow key press lands (as shown)
    for attribute, label in (("gender", "Gender"), ("race", "Race / ethnicity")):
        if attribute in asks:
            group = page.get_by_role("radiogroup", name=label)
            group.wait_for()                                    # drawn: its code may still be on the way
            tab_to(page, r"^INPUT\|")                          # Tab enters the group on its first answer
            assert group.locator("input:focus").count() == 1, page.evaluate(FOCUSED)
            page.keyboard.press("ArrowDown")                   # the arrow keys choose, as in any radio group
            expect(group.get_by_role("radio", checked=True)).to_have_accessible_name(second[attribute])
    if "country" in asks:
        page.get_by_label("Country of residence").wait_for()
        tab_to(page, r"^INPUT\|Country of residence\|")
        page.keyboard.type("Kenya")
    tab_to(page, r"\|Continue$", button="Continue")
    press_and_wait(page, "Enter")


# a screen to act on (the card lives in a shadow root: Playwright's selectors reach into it, querySelector not)
NEXT_SCREEN = ".fv-feedback, .fv-option:enabled, :text-matches('completion code', 'i')"
AFTER_FEEDBACK = ".fv-option:enabled, :text-matches('completion code', 'i')"


def answer_by_keys(page) -> None:
    """Choose each question's first answer, then its last, by the keys shown; Enter submits. First wait for
    this item's card to be drawn and listening (a card whose answers were sent has its buttons disabled, and
    on a loaded machine the next one can come after the page's text has changed), with the focus on its
    first question, where a new item puts it a frame later: until then the focus can still be on the
    control pressed last (Start, Next), and Enter there is that control's, not a Submit. Before Enter, each
    question shows its last key's answer chosen, so a key pressed too early shows here, not as a timeout."""
    expect(page.locator(".fv-option").first).to_be_enabled(timeout=20_000)
    page.wait_for_function(f"() => ({FOCUSED})().startsWith('P|')", timeout=20_000)
    questions = page.locator(".fv-question")
    keys = [questions.nth(i).locator(".fv-key").all_inner_texts() for i in range(questions.count())]
    for shown in keys:
        if shown:
            page.keyboard.press(shown[0].lower())
    for shown in keys:
        if shown:
            page.keyboard.press(shown[-1].lower())
    for i, shown in enumerate(keys):
        if shown:
            expect(questions.nth(i).locator('.fv-option[aria-pressed="true"] .fv-key')).to_have_text(shown[-1])
    press_and_wait(page, "Enter")


def test_every_demo_study_by_keyboard_alone(server, browser):
    db = open_db(server.db_path)
    asks = {name: load_study(db, name).settings.asks() for name in list_study_names(db)}
    db.close()
    for study in asks:
        rater = f"keys-{study}"
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        bot.open_link(page, f"{server.url}/?study={study}&rater={rater}")
        bot.settle(page)
        tab_to(page, r"\|I agree to take part$", button="I agree to take part")
        press_and_wait(page, "Enter")
        if asks[study]:
            page.get_by_text("About you").wait_for()
            about_you(page, asks[study])
        tab_to(page, r"\|Start(\s|$)", button="Start")
        press_and_wait(page, "Enter")
        for _ in range(60):
            # the next screen first: the card just sent stays drawn, disabled, until it comes; deciding on it
            # (no feedback yet) and then meeting the practice feedback's card (disabled for good) timed out in CI
            page.locator(NEXT_SCREEN).first.wait_for(timeout=30_000)
            shown = page.locator("body").inner_text()
            if "completion code" in shown.lower():
                break
            if page.locator(".fv-feedback").count():                 # practice feedback: Next, by keyboard
                tab_to(page, r"\|Next(\s|$)", button="Next")
                press_and_wait(page, "Enter")
                # the feedback's card (its answers disabled for good) can stay a moment after Streamlit has
                # replaced its element: wait for a card that takes answers, or the end
                page.locator(AFTER_FEEDBACK).first.wait_for(timeout=30_000)
            else:
                answer_by_keys(page)
        else:
            raise AssertionError(f"{study}: no completion code after 60 screens")
        page.context.close()

        db = open_db(server.db_path)
        try:
            questions = {q.id: q for q in load_study(db, study).task.questions}
            stored = {(question, value) for (_, who, question), value in
                      rating_store.stored_values(db, study).items() if who == rater}
        finally:
            db.close()
        assert stored, f"{study}: nothing stored"
        last = {qid: str(q.options[-1].value) for qid, q in questions.items()}
        assert stored <= set(last.items()), study
