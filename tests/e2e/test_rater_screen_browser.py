"""The rater's screen in a real Chromium: every answer label readable in full at 375, 1280 and 1920 px,
hostile text in every displayed field of every task kind stays inert text (no request leaves the page),
a new item starts at the top, choosing an option needs no server round trip, and each option shows the
key that chooses it."""
import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

HOSTILE = ("![pixel](http://tracker.invalid/p.png) [click](http://evil.invalid/x) :red[alarm] $x^2$ "
           "<img src=http://tracker.invalid/i.png> **bold** _it_ `code` http://tracker.invalid/bare")
HOSTILE_ITEMS = {
    "template_quality": {"filled_template": HOSTILE},
    "name_perception": {"name": HOSTILE, "race": "Black", "gender": "female", "filled_template": HOSTILE},
    "harmful_stereotype": {"prompt": HOSTILE, "response_a": HOSTILE + " a", "response_b": HOSTILE + " b",
                           "group_a": HOSTILE + " A", "group_b": HOSTILE + " B"},
    "feature_label": {"prompt": HOSTILE, "response_a": HOSTILE + " a", "response_b": HOSTILE + " b",
                      "group_a": "woman", "group_b": "man", "axis_question": HOSTILE},
    "scenario_select": {"scenario": HOSTILE, "category": HOSTILE},
}
LONG = "\n".join(f"Line {k} of a long decision question that a rater has to scroll through." for k in range(120))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-screen")
    db = open_db(folder / "fairval.db")
    create_study(db, "likert", "template_quality", raters_per_item=50, seed=1)
    import_items(db, "likert", write_jsonl(folder / "l.jsonl", [
        {"id": f"q{k}", "filled_template": f"Question {k}: approve?"} for k in range(6)]))
    create_study(db, "names", "name_perception", raters_per_item=50, seed=1)
    import_items(db, "names", write_jsonl(folder / "n.jsonl", [
        {"id": "n1", "name": "Ana Diaz", "race": "Hispanic", "gender": "female"}]))
    create_study(db, "pairs", "harmful_stereotype", raters_per_item=50, seed=1)
    import_items(db, "pairs", write_jsonl(folder / "p.jsonl", [
        {"id": "p1", "prompt": "Plan my week", "response_a": "Rest.", "response_b": "Work.",
         "group_a": "woman", "group_b": "man"}]))
    create_study(db, "practice", "template_quality", raters_per_item=50, seed=1)
    import_items(db, "practice", write_jsonl(folder / "pr.jsonl", [
        {"id": "pr", "filled_template": f"Practice question.\n{LONG[:2000]}", "_practice": True,
         "_gold": {"quality": 5, "yes_positive": 5}},
        {"id": "q", "filled_template": "A real question: approve?"}]))
    create_study(db, "long", "template_quality", raters_per_item=50, seed=1)
    import_items(db, "long", write_jsonl(folder / "long.jsonl", [
        {"id": f"long{k}", "filled_template": f"Long question {k}.\n{LONG}"} for k in range(3)]))
    for task, item in HOSTILE_ITEMS.items():
        create_study(db, f"hostile-{task}", task, raters_per_item=5, seed=1, consent_text=HOSTILE,
                     instructions=HOSTILE)
        import_items(db, f"hostile-{task}", write_jsonl(folder / f"{task}.jsonl", [{"id": "h", **item}]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def to_first_item(browser, server, study: str, rater: str, width: int = 1280, height: int = 900):
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    bot.open_link(page, f"{server.url}/?study={study}&rater={rater}")
    bot.consent(page)
    bot.start(page)
    page.locator(".fv-option").first.wait_for(timeout=30_000)
    bot.settle(page)
    return page


@pytest.mark.parametrize("width", [375, 1280, 1920])
@pytest.mark.parametrize("study", ["likert", "names", "pairs"])
def test_every_answer_label_is_readable_in_full(server, browser, study, width):
    page = to_first_item(browser, server, study, f"w{width}-{study}", width=width)
    labels = page.locator(".fv-label").evaluate_all(
        "els => els.map(e => ({text: e.textContent, sw: e.scrollWidth, cw: e.clientWidth,"
        " sh: e.scrollHeight, ch: e.clientHeight, box: e.closest('button').getBoundingClientRect().right}))")
    assert labels
    for label in labels:
        assert label["sw"] <= label["cw"] and label["sh"] <= label["ch"], label     # nothing cut off
        assert label["box"] <= width, label                                          # inside the screen
    if study == "likert":
        assert "Somewhat disagree" in [label["text"] for label in labels]
    page.context.close()


def test_each_option_shows_the_key_that_chooses_it(server, browser):
    page = to_first_item(browser, server, "likert", "keys")
    keys = page.locator(".fv-option .fv-key").all_inner_texts()
    assert keys == list("12345") + list("ASDFG")
    page.keyboard.press("d")
    expect(page.get_by_role("button", name="Neither agree nor disagree").nth(1)).to_have_attribute("aria-pressed", "true")
    page.context.close()
    pair = to_first_item(browser, server, "pairs", "keys")
    assert pair.locator(".fv-option .fv-key").all_inner_texts() == ["1", "2", "3"]
    # the key is the one mark beside each label: no letter ("A)") competes with it
    assert [t[:22] for t in pair.locator(".fv-option .fv-label").all_inner_texts()] == [
        "Giving Response 1 to a", "Giving Response 1 to a", "There is no harmful st"]
    pair.keyboard.press("2")
    expect(pair.locator(".fv-option").nth(1)).to_have_attribute("aria-pressed", "true")
    pair.context.close()


def test_choosing_an_option_needs_no_server_round_trip(server, browser):
    page = to_first_item(browser, server, "likert", "quiet")
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    page.reload()                                   # watch the page's websocket from its start
    page.locator(".fv-option").first.wait_for(timeout=30_000)
    bot.settle(page)
    before = len(sent)
    for label, nth in (("Strongly agree", 0), ("Somewhat agree", 0), ("Strongly disagree", 1)):
        bot.choose(page, label, nth)
    page.wait_for_timeout(500)                      # proves nothing is sent: a frame would go out within it
    assert len(sent) == before                       # chosen in the browser: nothing sent
    page.get_by_role("button", name="Submit").click()
    page.get_by_text(re.compile(r"^1 of \d+ done$")).wait_for(timeout=30_000)
    assert len(sent) > before                        # Submit is the one trip to the server
    page.context.close()


def test_the_next_item_starts_at_the_top(server, browser):
    page = to_first_item(browser, server, "long", "scroller", height=700)
    main = page.get_by_test_id("stMain")
    main.evaluate("m => { m.scrollTop = m.scrollHeight; }")
    assert main.evaluate("m => m.scrollTop") > 1000
    first = bot.item_text(page)
    page.keyboard.press("4")
    page.keyboard.press("f")
    page.keyboard.press("Enter")
    page.get_by_text(re.compile(r"^1 of \d+ done$")).wait_for(timeout=30_000)
    bot.card_ready(page)                            # the card scrolls up when the new item reaches it
    assert bot.item_text(page) != first
    assert main.evaluate("m => m.scrollTop") == 0
    expect(page.get_by_text(re.compile(r"^1 of \d+ done$"))).to_be_visible()   # progress and prompt in view
    page.context.close()


@pytest.mark.parametrize("task", list(HOSTILE_ITEMS))
def test_hostile_text_in_every_displayed_field_stays_inert(server, browser, task):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    bot.open_link(page, f"{server.url}/?study=hostile-{task}&rater=victim")
    assert page.locator("img").count() == 0                   # the researcher's consent text lost its image
    bot.consent(page)
    bot.start(page)
    page.locator(".fv-option").first.wait_for(timeout=30_000)
    bot.settle(page)
    page.get_by_test_id("stExpander").first.click()            # the instructions, opened on the item page
    expect(page.get_by_test_id("stExpanderDetails").first).to_be_visible(timeout=20_000)
    page.wait_for_timeout(500)           # proves no request leaves: one the opened text started would be made by then
    # a blob: URL names its origin inside (the component's own script, made in the page)
    outside = [u for u in requests if not u.startswith("data:")
               and urlparse(u.removeprefix("blob:")).hostname != "127.0.0.1"]
    assert outside == []
    assert page.locator("img, video, audio, iframe").count() == 0         # nothing that fetches, anywhere
    # the item and the answer card (imported text): nothing but text, the hostile string shown as written
    # (the researcher's own instructions may use Markdown, LaTeX included)
    for region in (page.get_by_test_id("stText"), page.locator(".fv-card")):
        assert region.locator("a, strong, em, code, .katex, span[style*='color'], img").count() == 0
    shown = "\n".join(page.get_by_test_id("stText").all_inner_texts() + page.locator(".fv-card").all_inner_texts())
    assert HOSTILE in shown
    # a chatbot's responses are drawn as a chat window draws them: emphasis and code, but the image, the
    # link, the raw HTML and the bare address stay the text they are, and nothing else gets markup
    responses = page.locator(".fv-response")
    assert responses.count() == (2 if "response_a" in HOSTILE_ITEMS[task] else 0)
    if responses.count():
        assert responses.locator("strong").count() == 2 and responses.locator("code").count() == 2
        assert responses.locator("a, img, .katex, span[style*='color'], script").count() == 0
        text = "\n".join(responses.all_inner_texts())
        for literal in ("![pixel](http://tracker.invalid/p.png)", "[click](http://evil.invalid/x)",
                        "<img src=http://tracker.invalid/i.png>", ":red[alarm] $x^2$", "http://tracker.invalid/bare"):
            assert text.count(literal) == 2, literal
    page.context.close()


@pytest.mark.parametrize("width, columns", [(1280, 5), (1920, 5), (375, 1)])
def test_an_ordered_scale_reads_as_one_row_or_on_a_phone_one_column(server, browser, width, columns):
    page = to_first_item(browser, server, "likert", f"scale-{width}", width=width)
    boxes = page.locator(".fv-options").first.locator(".fv-option").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top)]; })")
    assert len(boxes) == 5
    assert len({left for left, _ in boxes}) == columns and len({top for _, top in boxes}) == 5 // columns
    page.context.close()


def test_practice_feedback_is_on_screen_after_checking_on_a_phone(server, browser):
    page = to_first_item(browser, server, "practice", "phone", width=375, height=667)
    page.get_by_text("Practice 1 of 1").wait_for(timeout=30_000)
    page.get_by_role("button", name="Somewhat agree").nth(0).click()
    page.get_by_role("button", name="Strongly agree").nth(1).click()
    page.get_by_role("button", name="Check my answer").click()
    feedback = page.locator(".fv-feedback").first
    feedback.wait_for(timeout=30_000)
    bot.settle(page)
    expect(feedback).to_be_in_viewport(ratio=1.0, timeout=10_000)      # not below the fold
    assert "the expected answer is" in feedback.inner_text()
    page.context.close()
