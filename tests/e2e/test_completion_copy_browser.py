"""The completion code's "Copy to clipboard" button is reached with Tab and seen without a mouse, at 1280×800
and on a phone (390×844, touch), in Debian's Chromium. Streamlit shows a code block's copy button only under a
hovering pointer, so a keyboard-only rater could not reach it (Tab skips a hidden button) and a phone never
showed it (the new user's walk, QA of stop 65). No mouse event is sent before the checks. The screens are kept
under test-artifacts/completion-copy/ (FAIRVAL_ARTIFACTS elsewhere)."""
from __future__ import annotations

import os
import re

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT, write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import frames, idle, serve_studies

pytestmark = pytest.mark.e2e

DEVICES = {"desktop": {"viewport": {"width": 1280, "height": 800}},
           "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}}
ARTIFACTS = os.path.join(os.environ.get("FAIRVAL_ARTIFACTS") or str(ROOT / "test-artifacts"), "completion-copy")
FOCUSED = """() => { let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a ? [a.tagName, a.getAttribute("aria-label") || "", (a.innerText || "").trim()].join("|") : ""; }"""
ON_QUESTION = """q => { let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return !!a && a.getAttribute("data-question") === q; }"""
COPY = '[data-testid="stCode"] button[aria-label="Copy to clipboard"]'


def _studies(db, folder):
    create_study(db, "one", "template_quality", raters_per_item=5, seed=3, completion_code="ONE-DONE")
    import_items(db, "one", write_jsonl(folder / "one.jsonl", [
        {"id": "t1", "filled_template": "Should the library lend the projector for the weekend?"}]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-completion-copy", _studies)


def press_and_wait(page, key: str) -> None:
    before = page.locator("body").inner_text()
    page.keyboard.press(key)
    page.wait_for_function("before => document.body.innerText !== before", arg=before, timeout=30_000)
    bot.settle(page)


def tab_to(page, pattern: str, limit: int = 40) -> str:
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        seen.append(page.evaluate(FOCUSED))
        if re.search(pattern, seen[-1]):
            return seen[-1]
    raise AssertionError(f"Tab never reached {pattern!r}: {seen}")


@pytest.mark.parametrize("device", list(DEVICES))
def test_the_completion_codes_copy_button_is_reached_by_tab_and_seen(server, browser, device):
    context = browser.new_context(**DEVICES[device])
    page = context.new_page()
    try:
        page.goto(f"{server.url}/?study=one&rater=copy-{device}")
        page.get_by_role("button", name="I agree to take part").wait_for(timeout=30_000)
        bot.settle(page)
        tab_to(page, r"\|I agree to take part$")
        press_and_wait(page, "Enter")
        tab_to(page, r"^BUTTON\|.*\|Start")
        press_and_wait(page, "Enter")
        page.locator(".fv-option").first.wait_for(timeout=30_000)
        for question in ("quality", "yes_positive"):     # each question's first answer, by Tab and Space
            for _ in range(40):
                page.keyboard.press("Tab")
                if page.evaluate(ON_QUESTION, question):
                    break
            page.keyboard.press("Space")
        tab_to(page, r"^BUTTON\|.*\|Submit")
        press_and_wait(page, "Enter")
        page.get_by_text("ONE-DONE").wait_for(timeout=30_000)
        bot.settle(page)
        copy = page.locator(COPY)
        assert copy.count() == 1
        assert copy.evaluate("b => getComputedStyle(b).visibility") == "visible"
        assert copy.evaluate("b => Number(getComputedStyle(b.parentElement.closest('[data-testid=stCode] > div'))"
                             ".opacity)") == 1
        assert tab_to(page, r"^BUTTON\|Copy to clipboard\|").startswith("BUTTON|Copy to clipboard")
        ring = copy.evaluate("b => [getComputedStyle(b).outlineStyle, getComputedStyle(b).outlineWidth]")
        assert ring[0] != "none" and float(ring[1].rstrip("px")) >= 2, ring      # the focus is seen
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.screenshot(path=os.path.join(ARTIFACTS, f"{device}.png"), full_page=True)
    finally:
        context.close()


# Where the code's characters are drawn, line by line, and where the copy button is (Streamlit draws the button
# over the code block's right-hand corner, whatever the page's direction).
CODE_AND_COPY = """() => {
    const block = document.querySelector('[data-testid="stCode"]');
    const text = block.querySelector("code") || block.querySelector("pre");
    const range = document.createRange();
    range.selectNodeContents(text);
    const box = (r) => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
    return {lines: [...range.getClientRects()].filter((r) => r.width > 0).map(box),
            copy: box(block.querySelector('button[aria-label]').getBoundingClientRect()),
            shown: text.innerText.replace(/\\s/g, "")}; }"""


def _overlaps(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def _code_studies(db, folder):
    rows = [{"id": "t1", "filled_template": "Should the library lend the projector for the weekend?"}]
    create_study(db, "ar-code", "template_quality", raters_per_item=5, seed=3, language="ar", completion_code="C0DE1234")
    import_items(db, "ar-code", write_jsonl(folder / "ar.jsonl", rows))


@pytest.fixture(scope="module")
def code_server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-completion-code", _code_studies)


@pytest.mark.parametrize("study, code, language", [("ar-code", "C0DE1234", "ar")])
def test_no_character_of_the_code_is_under_the_copy_button_on_a_phone(code_server, browser, study, code, language):
    """In Arabic (right to left) the code was drawn against the box's right edge, under the copy button that
    is always shown since stop 65: a 390 px phone showed "C0DE1" and the button, the rest hidden (the new
    user's walk, QA of stop 66). A code reads left to right in any language."""
    from fairval.ui.i18n import translator

    t = translator(language)
    context = browser.new_context(**DEVICES["phone"])
    page = context.new_page()
    try:
        page.goto(f"{code_server.url}/?study={study}&rater=reader-{study}")
        page.get_by_role("button", name=t("I agree to take part")).click(timeout=30_000)
        page.get_by_role("button", name=t("Start")).click(timeout=30_000)
        page.locator(".fv-option").first.wait_for(timeout=30_000)
        for group in range(2):
            page.locator(".fv-options").nth(group).locator(".fv-option").nth(3).click()
        page.get_by_role("button", name=t("Submit")).click()
        page.locator('[data-testid="stCode"]').wait_for(timeout=30_000)
        idle(page)
        frames(page)                                      # the code box's CSS applies in the frame after the run
        os.makedirs(ARTIFACTS, exist_ok=True)
        path = os.path.join(ARTIFACTS, f"phone-{study}.png")
        page.screenshot(path=path, full_page=True)
        drawn = page.evaluate(CODE_AND_COPY)
        assert drawn["shown"] == code, drawn
        assert drawn["lines"] and not any(_overlaps(line, drawn["copy"]) for line in drawn["lines"]), (drawn, path)
    finally:
        context.close()
