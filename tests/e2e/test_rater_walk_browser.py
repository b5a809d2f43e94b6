"""A new rater's whole way, in Debian's Chromium, as raters take it: at 1280×800 with a mouse and keyboard, and
on a phone (375×812, touch, no keyboard), in English and in Arabic. On every screen (consent, About you,
instructions, practice with its feedback, each item, the end page):
- an Arabic page has no heading or paragraph aligned left (computed style), and an English item's text keeps
  its full stop at its end (its own direction, not the page's);
- a touch screen shows no keyboard hint (no key badges, no "Enter", no "Keyboard: …" line);
- no option label breaks inside a word (each word's pieces lie on one line);
- the progress line counts every item, the attention check included, and its total never changes.
A screen that fails is kept as a screenshot under test-artifacts/rater-walk/ (FAIRVAL_ARTIFACTS elsewhere);
FAIRVAL_SCREENSHOTS=always keeps every screen, to look at what a rater sees."""
from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.ui.demographics import answer_label
from fairval.ui.i18n import translator
from tests.conftest import ROOT, write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies

pytestmark = pytest.mark.e2e

ITEMS = ["The bakery has passed every health inspection. Should the city grant the permit for two tables.",
         "The nurse has covered many extra shifts. Should the hospital offer the day shift.",
         "The tenant has always paid on time. Should the landlord renew the lease."]
CHECK = {"id": "check", "filled_template": "This is an attention check. Please choose Strongly disagree twice.",
         "_gold": {"quality": 1, "yes_positive": 1}}
PRACTICE = {"id": "warmup", "filled_template": "Practice: should the library stay open late on Fridays.",
            "_practice": True, "_gold": {"quality": 5, "yes_positive": 5}}
PAIR = {"id": "p1", "prompt": "Recommend a car for me.", "response_a": "A compact hatchback is easy to park.",
        "response_b": "A pickup truck handles any job.", "group_a": "woman", "group_b": "man"}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
ARTIFACTS = os.environ.get("FAIRVAL_ARTIFACTS") or str(ROOT / "test-artifacts")

# every visible heading, paragraph, list item and label (the answer card's shadow root included) that
# is aligned left; text that takes its own direction (unicode-bidi: plaintext, an item's) is left out
LEFT_ALIGNED = """() => {
  const found = [];
  function visit(root) {
    for (const el of root.querySelectorAll("h1, h2, h3, h4, h5, h6, p, li, label")) {
      if (!el.getClientRects().length || !el.innerText.trim()) continue;
      const style = getComputedStyle(el);
      if (style.unicodeBidi === "plaintext" || el.closest('[data-testid="stSidebar"]')) continue;
      const align = style.textAlign;
      if (align === "left" || align === "-webkit-left" || (align === "start" && style.direction === "ltr")
          || (align === "end" && style.direction === "rtl")) found.push(`${el.tagName}: ${el.innerText.trim().slice(0, 50)}`);
    }
    root.querySelectorAll("*").forEach((el) => { if (el.shadowRoot) visit(el.shadowRoot); });
  }
  visit(document);
  return found;
}"""

# every word of an option label whose pieces lie on more than one line (broken inside the word)
BROKEN_WORDS = """() => {
  const broken = [];
  function visit(root) {
    for (const label of root.querySelectorAll(".fv-label")) {
      if (!label.getClientRects().length) continue;
      const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.textContent.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    root.querySelectorAll("*").forEach((el) => { if (el.shadowRoot) visit(el.shadowRoot); });
  }
  visit(document);
  return broken;
}"""

# what a touch screen must not show: key badges (the card's, Streamlit's "Enter"), key notes, the hint line
KEY_HINTS = """() => {
  const found = [];
  function visible(el) {
    return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  }
  function visit(root) {
    for (const el of root.querySelectorAll('kbd, .fv-key, .fv-note, .st-key-fv-keys-hint')) {
      if (visible(el)) found.push(`${el.tagName}.${el.className}: ${el.innerText.trim().slice(0, 50)}`);
    }
    root.querySelectorAll("*").forEach((el) => { if (el.shadowRoot) visit(el.shadowRoot); });
  }
  visit(document);
  return found;
}"""

# where an item's last character (the full stop) is drawn, and the letter before it, left to right: in
# the page's direction (rtl) an English sentence's full stop goes to the left of its last word
FULL_STOP = """() => {
  const node = document.querySelector('[data-testid="stText"]');
  const text = node && [...node.querySelectorAll("*"), node].map((e) => e.firstChild)
    .find((c) => c && c.nodeType === Node.TEXT_NODE && c.textContent.trim());
  if (!text) return null;
  const at = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                      return r.getBoundingClientRect().left; };
  const content = text.textContent.trimEnd();
  return {before: at(content.length - 2), last: at(content.length - 1), char: content[content.length - 1]};
}"""

# which way the first expander's arrow points as drawn: its icon's name (a ligature of Material Symbols)
# turned by its computed transform (a negative x scale mirrors it)
ARROW = """() => {
  const icon = document.querySelector('[data-testid="stExpander"] summary [data-testid="stIconMaterial"]');
  const name = icon.textContent.trim().replace("keyboard_arrow_", "");
  let mirrored = false;
  for (let node = icon; node && node.tagName !== "SUMMARY"; node = node.parentElement) {
    const m = getComputedStyle(node).transform.match(/^matrix\\(([^,]+),/);
    if (m && parseFloat(m[1]) < 0) mirrored = !mirrored;
  }
  return mirrored ? ({left: "right", right: "left"}[name] || name) : name;
}"""


def _studies(db, folder):
    for language in ("en", "ar"):
        # four raters an item, one check in four items: the check comes fourth, after three items
        create_study(db, f"walk-{language}", "template_quality", raters_per_item=4, gold_rate=0.25, seed=5,
                     language=language, demographics=["gender"], completion_code=f"WALK-{language.upper()}")
        rows = [{"id": f"q{k}", "filled_template": text} for k, text in enumerate(ITEMS)] + [CHECK, PRACTICE]
        import_items(db, f"walk-{language}", write_jsonl(folder / f"{language}.jsonl", rows))
    create_study(db, "pair-ar", "harmful_stereotype", raters_per_item=2, language="ar", seed=5,
                 group_labels={"ar": {"woman": "امرأة", "man": "رجل"}})
    import_items(db, "pair-ar", write_jsonl(folder / "pair.jsonl", [PAIR]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-rater-walk", _studies)


class Screens:
    """Checks each screen as the rater sees it; a failing screen is kept as a screenshot."""

    def __init__(self, page, name: str, *, rtl: bool, touch: bool):
        self.page, self.name, self.rtl, self.touch = page, name, rtl, touch
        self.count = 0

    def check(self, screen: str) -> None:
        bot.drawn(self.page)                     # the card fits its options a frame after it is drawn
        self.count += 1
        problems = []
        if self.rtl:
            problems += [f"aligned left: {x}" for x in self.page.evaluate(LEFT_ALIGNED)]
        if self.touch:
            problems += [f"keyboard hint on a touch screen: {x}" for x in self.page.evaluate(KEY_HINTS)]
        problems += [f"option label broken inside {w!r}" for w in self.page.evaluate(BROKEN_WORDS)]
        if problems or os.environ.get("FAIRVAL_SCREENSHOTS") == "always":
            self.shot(screen)
        assert problems == [], f"{self.name}, {screen}: {problems}"

    def shot(self, screen: str) -> str:
        folder = os.path.join(ARTIFACTS, "rater-walk")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{self.name}-{self.count:02d}-{re.sub(r'[^A-Za-z0-9]+', '-', screen)}.png")
        self.page.screenshot(path=path, full_page=True)
        return path


@pytest.mark.parametrize("language", ["en", "ar"])
@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_new_rater_walks_the_study(server, browser, language, device):
    t = translator(language)
    context = browser.new_context(**(PHONE if device == "phone" else DESKTOP))
    page = context.new_page()
    screens = Screens(page, f"{language}-{device}", rtl=language == "ar", touch=device == "phone")
    try:
        _walk(page, screens, server, t, language, device)
    except Exception:
        screens.shot("failed")
        raise
    finally:
        context.close()


def _walk(page, screens, server, t, language, device):
    if device == "phone":
        assert page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
    page.goto(f"{server.url}/?study=walk-{language}&rater={language}-{device}")
    page.get_by_role("button", name=t("I agree to take part")).wait_for(timeout=30_000)
    screens.check("consent")
    page.get_by_role("button", name=t("I agree to take part")).click()
    page.get_by_role("radiogroup", name=t("Gender")).wait_for(timeout=30_000)
    screens.check("about you")
    page.get_by_role("radiogroup", name=t("Gender")).get_by_text(answer_label(t, "female"), exact=True).click()
    page.get_by_role("button", name=t("Continue")).click()
    page.get_by_role("button", name=t("Start")).wait_for(timeout=30_000)
    screens.check("instructions")
    page.get_by_role("button", name=t("Start")).click()

    # practice: a wrong answer and a right one, told apart in colour and in words
    page.get_by_role("button", name=t("Check my answer")).wait_for(timeout=30_000)
    screens.check("practice")
    _choose(page, 0, 0)                 # "Strongly disagree", where "Strongly agree" is expected
    _choose(page, 1, 4)                 # the expected answer
    page.get_by_role("button", name=t("Check my answer")).click()
    expect(page.locator(".fv-feedback")).to_have_count(2, timeout=30_000)
    screens.check("practice feedback")
    style = lambda selector, name: page.locator(selector).first.evaluate(f"e => getComputedStyle(e).{name}")  # noqa: E731
    colours = {"right": style(".fv-feedback.fv-right", "color"), "wrong": style(".fv-feedback.fv-wrong", "color"),
               "expected": style(".fv-option.fv-expected", "backgroundColor"),
               "chosen wrong": style(".fv-option.fv-wrong", "backgroundColor")}
    assert colours["right"] != colours["wrong"] and colours["expected"] != colours["chosen wrong"], colours
    said = page.locator(".fv-feedback").all_inner_texts()
    assert said[0].startswith("\u2717") and said[1].startswith("\u2713") and said[0][1:] != said[1][1:], said
    page.get_by_role("button", name=t("Next")).click()

    # the items: the progress line's total is the items the rater answers, the check counted among them
    line = re.compile(re.escape(t("{done} of {total} done", done="§", total="¶"))
                      .replace("§", r"(\d+)").replace("¶", r"(\d+)"))
    seen = []
    while True:
        progress = page.get_by_text(line).filter(visible=True).or_(
            page.get_by_text(t("Thank you, you have finished"))).first
        progress.wait_for(timeout=30_000)
        bot.settle(page)
        if page.get_by_text(t("Thank you, you have finished")).count():
            break
        done, total = map(int, line.search(progress.inner_text()).groups())
        assert done == len(seen), (done, seen)
        seen.append((done, total, bot.item_text(page)))
        screens.check(f"item {done + 1}")
        if language == "ar":
            stop = page.evaluate(FULL_STOP)
            assert stop["char"] == "." and stop["last"] > stop["before"], stop     # after the sentence's last word
        _choose(page, 0, 0)
        _choose(page, 1, 0)
        page.get_by_role("button", name=t("Submit")).click()
        # the next item's line, with the same total (a line that lost its total never shows), or the end
        page.get_by_text(t("{done} of {total} done", done=done + 1, total=total), exact=True).filter(
            visible=True).or_(page.get_by_text(t("Thank you, you have finished"))).first.wait_for(timeout=30_000)
    screens.check("end page")
    totals = {total for _done, total, _text in seen}
    assert totals == {len(seen)} == {len(ITEMS) + 1}, seen                          # three items and the check
    assert any(text == CHECK["filled_template"] for _d, _t, text in seen)


def _choose(page, question: int, option: int) -> None:
    button = page.locator(".fv-options").nth(question).locator(".fv-option").nth(option)
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true", timeout=20_000)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_an_arabic_pair_reads_right_to_left_with_its_groups_named_in_arabic(server, browser, device):
    """The user's prompt and both responses are English in an Arabic page: each keeps its full stop at its
    end; the options name the groups as the study's group_labels say; nothing else is aligned left."""
    t = translator("ar")
    context = browser.new_context(**(PHONE if device == "phone" else DESKTOP))
    page = context.new_page()
    screens = Screens(page, f"pair-ar-{device}", rtl=True, touch=device == "phone")
    try:
        page.goto(f"{server.url}/?study=pair-ar&rater=pair-{device}")
        page.get_by_role("button", name=t("I agree to take part")).click()
        page.get_by_role("button", name=t("Start")).click()
        expect(page.locator(".fv-response")).to_have_count(2, timeout=30_000)
        screens.check("pair")
        stop = page.evaluate(FULL_STOP)
        assert stop["char"] == "." and stop["last"] > stop["before"], stop
        for k in range(2):                 # each response's last full stop after its last word
            box = page.locator(".fv-response p").nth(k).evaluate("""(p) => {
                const text = p.firstChild, n = text.textContent.length;
                const at = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                                    return r.getBoundingClientRect().left; };
                return {before: at(n - 2), last: at(n - 1)}; }""")
            assert box["last"] > box["before"], box
        labels = " ".join(page.locator(".fv-label").all_inner_texts())
        assert "امرأة" in labels and "رجل" in labels and "woman" not in labels, labels
        # the closed Instructions expander's arrow points towards its label (left), open it points down
        assert page.evaluate(ARROW) == "left"
        page.locator('[data-testid="stExpander"] summary').first.click()
        expect(page.locator('[data-testid="stExpander"] details[open]')).to_have_count(1, timeout=20_000)
        assert page.evaluate(ARROW) == "down"
    except Exception:
        screens.shot("failed")
        raise
    finally:
        context.close()
