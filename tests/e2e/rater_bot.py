"""What a rater does in the browser, step by step, so tests read as the rater's way."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from fairval.ui.demographics import answer_label
from fairval.ui.i18n import translator
from tests.e2e.conftest import frames, idle


def open_link(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="I agree to take part").wait_for(timeout=20_000)


def consent(page) -> None:
    page.get_by_role("button", name="I agree to take part").click()
    page.get_by_text("About you").or_(page.get_by_role("button", name="Start")).first.wait_for(timeout=20_000)


def background(page, question: str, answer: str) -> None:
    """Choose an answer (its stored value) to one of an English study's "About you" questions (radio buttons)."""
    shown = answer_label(translator("en"), answer)
    page.get_by_role("radiogroup", name=question).get_by_text(shown, exact=True).click()


def demographics(page, gender: str) -> None:
    background(page, "Gender", gender)
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Start").wait_for(timeout=20_000)


def start(page) -> None:
    page.get_by_role("button", name="Start").click()


def settle(page) -> None:
    """Wait until the rerun has replaced every element of the previous screen (none is stale)."""
    expect(page.locator('[data-stale="true"]')).to_have_count(0, timeout=20_000)


def card_ready(page) -> None:
    """Wait until the card shows this screen's item and takes answers. After a Submit, the card just sent stays
    drawn with its answers disabled until the next item's data reaches its script, a moment after Streamlit has
    replaced its element (so settle alone can pass on it, and a key pressed then is refused as "saving")."""
    settle(page)
    expect(page.locator(".fv-option").first).to_be_enabled(timeout=20_000)


def drawn(page) -> None:
    """Wait until the screen is drawn as the rater sees it: the run over, each answer card styled (a card is
    hidden until its CSS has come) and its options fitted, which the card does again in the frame after."""
    idle(page)
    cards = page.locator(".fv-card")
    for k in range(cards.count()):
        expect(cards.nth(k)).to_be_visible(timeout=20_000)
    frames(page)


def item_text(page) -> str:
    settle(page)
    return page.get_by_test_id("stText").first.inner_text()


def option(page, label: str):
    """Option buttons of the answer card by their label."""
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}(\s|$)"))


def choose(page, label: str, nth: int = 0) -> None:
    """Click an option and see it chosen (in the browser: no server round trip)."""
    button = option(page, label).nth(nth)
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true", timeout=20_000)


def answer_template(page, quality: str, yes_positive: str, submit: str = "Submit") -> None:
    choose(page, quality, 0)
    choose(page, yes_positive, 1)
    page.get_by_role("button", name=submit).click()


def responses(page) -> tuple[str, str]:
    # The page draws progress before the item: with the previous screen shorter than the new one, nothing
    # is stale in the moment between them, so wait for both boxes, then for the rest of the screen.
    expect(page.locator(".fv-response")).to_have_count(2, timeout=20_000)
    settle(page)
    texts = page.locator(".fv-response").all_inner_texts()         # drawn as Markdown, each in its box
    return texts[0].strip(), texts[1].strip()


def answer_pair(page, option: str) -> None:
    """option is A, B or C as shown: the first, second or third button, chosen by the key shown on it."""
    page.locator(".fv-option").nth("ABC".index(option)).click()
    page.get_by_role("button", name="Submit").click()
