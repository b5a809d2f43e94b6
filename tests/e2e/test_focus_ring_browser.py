"""A keyboard-only rater sees where the focus is on "About you": the focused answer of a radio group and the
"Prefer not to say" box carry a ring of at least 2 px in a colour with at least 3:1 contrast against the page
(WCAG 2.1's 1.4.11 for a control's focused state), in Debian's Chromium at 1280×800. Streamlit marks them only
with a label background of rgba(187, 187, 165, 0.25) on white, 1.2:1 (the new user's walk, QA of stop 66).
The screen is kept under test-artifacts/focus-ring/ (FAIRVAL_ARTIFACTS elsewhere)."""
from __future__ import annotations

import os
import re

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT, write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies

pytestmark = pytest.mark.e2e

ARTIFACTS = os.path.join(os.environ.get("FAIRVAL_ARTIFACTS") or str(ROOT / "test-artifacts"), "focus-ring")
# the focused input's label: its outline, and the page's background behind it
RING = """() => { const label = document.activeElement.closest("label");
    const s = getComputedStyle(label);
    return {type: document.activeElement.type, style: s.outlineStyle, width: parseFloat(s.outlineWidth),
            colour: s.outlineColor, page: getComputedStyle(document.querySelector(".stApp")).backgroundColor}; }"""


def _luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of an opaque rgb()/rgba() colour."""
    r, g, b = (int(c) / 255 for c in re.findall(r"[\d.]+", colour)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_is_wcag_s():
    """The formula against WCAG's own end points: black on white 21:1, a colour on itself 1:1."""
    assert round(_contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)"), 6) == 21
    assert _contrast("rgb(29, 78, 216)", "rgb(29, 78, 216)") == 1


def _studies(db, folder):
    create_study(db, "about", "template_quality", raters_per_item=5, seed=3, demographics=["gender", "country"])
    import_items(db, "about", write_jsonl(folder / "about.jsonl", [
        {"id": "t1", "filled_template": "Should the library lend the projector for the weekend?"}]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-focus-ring", _studies)


def test_the_focused_answer_and_box_on_about_you_carry_a_ring_that_is_seen(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{server.url}/?study=about&rater=ring")
        page.get_by_role("button", name="I agree to take part").click(timeout=30_000)
        page.get_by_role("radiogroup", name="Gender").wait_for(timeout=30_000)
        bot.settle(page)
        rings = {}
        for _ in range(20):                      # Tab only: the radio group's first answer, then the box
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.tagName") == "INPUT" and \
                    page.evaluate("() => !!document.activeElement.closest('label')"):
                ring = page.evaluate(RING)
                rings.setdefault(ring["type"], ring)
                if len(rings) == 2:
                    break
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.screenshot(path=os.path.join(ARTIFACTS, "about-you-checkbox.png"))
        assert set(rings) == {"radio", "checkbox"}, rings
        for ring in rings.values():
            assert ring["style"] != "none" and ring["width"] >= 2, ring
            assert _contrast(ring["colour"], ring["page"]) >= 3, ring
    finally:
        context.close()
