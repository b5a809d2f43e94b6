"""What a rater sees of the smaller things of issue 54, in Debian's Chromium, on a phone (375×812, touch) and
at 1280×800: a 300-character word or address in a pair's prompt or responses never makes the page scroll sideways;
the item's place ("New item; 0 of 3 done.") is read out by a screen reader but drawn once only (the progress
line). Every screen looked at is kept as a screenshot under
test-artifacts/rater-small/ (FAIRVAL_ARTIFACTS elsewhere)."""
from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT, write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies

pytestmark = pytest.mark.e2e

WORD = "Supercalifragilistic" * 15                                           # one word of 300 characters
URL = "https://example.invalid/" + "/".join(f"segment{k:03d}-of-a-very-long-address" for k in range(10))
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
ARTIFACTS = os.path.join(os.environ.get("FAIRVAL_ARTIFACTS") or str(ROOT / "test-artifacts"), "rater-small")

# how far the page reaches past the viewport's right edge (0: nothing to scroll sideways), and the widest
# element that does, looking into the answer card's shadow root too
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  let worst = null;
  function visit(root) {
    for (const el of root.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.width && r.right > width + 1 && (!worst || r.right > worst.right))
        worst = {right: Math.round(r.right), tag: el.tagName, cls: String(el.className).slice(0, 40),
                 testid: el.getAttribute("data-testid")};
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  }
  visit(document);
  const scroller = document.querySelector('[data-testid="stMain"]') || document.scrollingElement;
  return {scroll: Math.max(document.scrollingElement.scrollWidth, scroller.scrollWidth) - width, worst};
}"""

# the answer card's status line: all it holds (what a screen reader hears) and what is drawn of it
STATUS = """() => {
  function find(root) {
    const hit = root.querySelector(".fv-status");
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) { if (el.shadowRoot) { const f = find(el.shadowRoot); if (f) return f; } }
    return null;
  }
  const status = find(document);
  if (!status) return null;
  const drawn = [...status.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE
      || getComputedStyle(n).clip !== "rect(0px, 0px, 0px, 0px)").map((n) => n.textContent).join("");
  return {heard: status.textContent, drawn, role: status.getAttribute("role")};
}"""

def _studies(db, folder):
    create_study(db, "long-words", "harmful_stereotype", raters_per_item=20, seed=3)
    import_items(db, "long-words", write_jsonl(folder / "p.jsonl", [
        {"id": "p1", "prompt": f"Explain {WORD} to me, see {URL}", "response_a": f"{WORD} is a word. Read {URL}",
         "response_b": f"See:\n\n- {URL}\n- {WORD}", "group_a": "woman", "group_b": "man"}]))
    create_study(db, "three", "template_quality", raters_per_item=20, seed=3)
    import_items(db, "three", write_jsonl(folder / "three.jsonl", [
        {"id": f"t{k}", "filled_template": f"Should the city grant permit {k}?"} for k in range(3)]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-rater-small", _studies)


def first_item(browser, server, study: str, rater: str, device: str):
    context = browser.new_context(**(PHONE if device == "phone" else DESKTOP))
    page = context.new_page()
    page.goto(f"{server.url}/?study={study}&rater={rater}")
    page.get_by_role("button", name="I agree to take part").click(timeout=30_000)
    page.get_by_role("button", name="Start").click(timeout=30_000)
    page.locator(".fv-option").first.wait_for(timeout=30_000)
    bot.drawn(page)                             # the card fits its options a frame after it is drawn
    return context, page


def shot(page, name: str) -> str:
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, f"{name}.png")
    page.screenshot(path=path, full_page=True)
    return path


@pytest.mark.parametrize("device", ["phone", "desktop"])
@pytest.mark.parametrize("study", ["long-words"])
def test_a_300_character_word_or_address_never_scrolls_the_page_sideways(server, browser, study, device):
    context, page = first_item(browser, server, study, f"wide-{study}-{device}", device)
    try:
        found = page.evaluate(OVERFLOW)
        path = shot(page, f"{study}-{device}")
        assert found["scroll"] <= 0 and found["worst"] is None, (found, path)
        assert WORD[:60] in page.inner_text("body")             # still shown, broken over lines, not cut
    finally:
        context.close()


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_items_place_is_read_out_and_drawn_once(server, browser, device):
    context, page = first_item(browser, server, "three", f"place-{device}", device)
    try:
        status = page.evaluate(STATUS)
        path = shot(page, f"status-{device}")
        assert status["role"] == "status" and "New item; 0 of 3 done." in status["heard"], status
        assert "done" not in status["drawn"], (status, path)                  # the progress line shows it
        expect(page.get_by_text("0 of 3 done", exact=True).first).to_be_visible()
        page.locator(".fv-option").nth(4).click()
        page.locator(".fv-options").nth(1).locator(".fv-option").nth(3).click()
        page.get_by_role("button", name="Submit").click()
        page.get_by_text("1 of 3 done", exact=True).wait_for(timeout=30_000)
        bot.card_ready(page)                  # the card shows the new item's status, not the one just sent
        status = page.evaluate(STATUS)
        shot(page, f"status-saved-{device}")
        assert status["drawn"].strip() == "Answer saved." and "New item; 1 of 3 done." in status["heard"], status
    finally:
        context.close()
