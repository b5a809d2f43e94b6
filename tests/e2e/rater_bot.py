"""What a rater does in the browser, step by step, so tests read as the rater's way."""
from __future__ import annotations

import re


def open_link(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="I agree to take part").wait_for(timeout=20_000)


def consent(page) -> None:
    page.get_by_role("button", name="I agree to take part").click()
    page.get_by_text("About you").or_(page.get_by_role("button", name="Start")).first.wait_for(timeout=20_000)


def demographics(page, gender: str) -> None:
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=gender, exact=True).click()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Start").wait_for(timeout=20_000)


def start(page) -> None:
    page.get_by_role("button", name="Start").click()


def item_text(page) -> str:
    return page.get_by_test_id("stText").first.inner_text()


def option(page, label: str):
    """Option buttons by their label; the accessible name also carries the shortcut key."""
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}(\s|$)"))


def answer_template(page, quality: str, yes_positive: str, submit: str = "Submit") -> None:
    option(page, quality).first.click()
    option(page, yes_positive).nth(1).click()
    page.get_by_role("button", name=submit).click()


def responses(page) -> tuple[str, str]:
    texts = page.get_by_test_id("stText").all_inner_texts()
    return texts[1], texts[2]


def answer_pair(page, option: str) -> None:
    """option is A, B or C as shown; the buttons read 'A) …'."""
    page.get_by_role("button", name=f"{option})").first.click()
    page.get_by_role("button", name="Submit").click()
