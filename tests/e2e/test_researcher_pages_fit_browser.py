"""Every researcher page with every demo study (the `fairval demo` database, every study rated, the judge's
scores given as probabilities so the reliability diagram is drawn), in Debian's Chromium at 1280×800
and on a phone (375×812, touch): Results, Calibration, Export and each of Manage's tabs. On each page:
- no text is drawn taller than a heading: page text at most 48 px (the page title), a chart's text (its SVG)
  at most 20 px (a mark's size never reaches a label's font);
- nothing is wider than the screen: the page does not scroll sideways, no element of the main block reaches
  past its right edge unless it sits in something that scrolls by itself (a table's grid), and no table is
  cut off or scrolling sideways within itself at 1280 px (its columns fit the page; on a phone a table may
  scroll within itself);
- no empty "{}" or "()" stands where a value is expected, in prose or in a table's cells.
Each failing page is kept as a screenshot in a pytest temporary folder whose path the failure prints
(FAIRVAL_SCREENSHOTS=always keeps every page, and prints the folder). One server and one browser serve the
whole module; the pages are opened by address (`/Results?study=…`), as a bookmark would."""
from __future__ import annotations

import json
import os
import re

import pytest

from fairval.annotate.material.demo import ensure_demo
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import PASSWORD, frames, idle, serve_studies, wait_text

pytestmark = pytest.mark.e2e

DEVICES = {"desktop": {"viewport": {"width": 1280, "height": 800}},
           "phone": {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True,
                     "device_scale_factor": 2}}
STUDIES = ["demo-templates", "demo-pairs", "demo-names", "demo-features", "demo-scenarios"]
# a page's visible sign that it has drawn, after which its numbers and charts follow
PAGES = {"Results": "Items complete", "Calibration": "Calibration", "Export": "Export"}
MANAGE_TABS = ["Configure", "Import", "Plan"]                 # the tabs that show the chosen study
PAGE_TEXT, CHART_TEXT = 48, 20                                # px: the page title's font; a chart label's, generously

# the page has drawn: its main block shows the sign and its text has not changed for a second
DRAWN = """(sign) => {
  const text = document.querySelector('[data-testid="stMain"]')?.innerText || "";
  const seen = window.__drawn ||= {length: -1, since: 0};
  if (text.length !== seen.length || !text.includes(sign)) {
    seen.length = text.length; seen.since = performance.now(); return false;
  }
  return performance.now() - seen.since > 1000;
}"""
# what a page shows that does not fit: text too large, elements past the screen's edge, tables cut off, "{}"/"()"
CHECKS = r"""([pageText, chartText]) => {
  const W = document.documentElement.clientWidth, found = [];
  const visible = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden";
  const name = (e) => (e.closest("[data-testid]")?.dataset.testid || e.tagName) + ": " +
                      (e.textContent || "").trim().slice(0, 60);
  const main = document.querySelector('[data-testid="stMain"]');
  // text: every element with its own text, and each chart's SVG text
  for (const e of main.querySelectorAll("*")) {
    if (!visible(e)) continue;
    const svg = e instanceof SVGElement;
    if (svg && e.tagName !== "text") continue;
    if (!svg && ![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const size = parseFloat(getComputedStyle(e).fontSize), bound = svg ? chartText : pageText;
    if (size > bound) found.push(`text ${size}px tall (over ${bound}): ${name(e)}`);
  }
  // width: the page itself, then each element not inside something that scrolls by itself
  const page = document.documentElement.scrollWidth;
  if (page > W + 1) found.push(`the page scrolls sideways: ${page}px wide on ${W}`);
  const block = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (block && block.scrollWidth > block.clientWidth + 1)
    found.push(`the main block is ${block.scrollWidth}px wide in ${block.clientWidth}`);
  const scrolls = (e) => { for (let a = e.parentElement; a && a !== main; a = a.parentElement) {
    const x = getComputedStyle(a).overflowX; if (x === "auto" || x === "scroll") return true; } return false; };
  const wide = [];                                            // the outermost of each, not all it holds
  for (const e of main.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (!r.width || (r.right <= W + 1 && r.left >= -1) || !visible(e) || scrolls(e)) continue;
    if (wide.some((w) => w.contains(e))) continue;
    wide.push(e);
    found.push(`wider than the screen (${Math.round(r.left)}–${Math.round(r.right)} px of ${W}): ${name(e)}`);
  }
  for (const t of main.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (!visible(t)) continue;
    const grid = t.querySelector(".dvn-scroller"), box = t.getBoundingClientRect();
    const column = t.closest('[data-testid="stVerticalBlock"]').getBoundingClientRect();
    const headers = [...t.querySelectorAll('[role="columnheader"]')].map((h) => h.textContent.trim());
    if (grid && grid.scrollWidth > grid.clientWidth + 1 && box.width < column.width - 2 && W > 800)
      found.push(`table cut off: ${headers.join(", ")}`);
    else if (grid && grid.scrollWidth > grid.clientWidth + 1 && W > 800)   // a phone may scroll a table
      found.push(`table scrolls sideways (${grid.scrollWidth}px in ${grid.clientWidth}): ${headers.join(", ")}`);
    for (const cell of t.querySelectorAll('[role="gridcell"], [role="columnheader"]'))
      if (/^\s*(\{\}|\(\))\s*$|[:=]\s*(\{\}|\(\))/.test(cell.textContent))
        found.push(`empty value in a table: ${headers.join(", ")}: ${cell.textContent}`);
  }
  // prose: no empty braces or brackets where a value belongs (code blocks show commands, left out)
  const prose = ['stMarkdownContainer', 'stCaptionContainer', 'stAlert', 'stMetric']
    .map((t) => `[data-testid="${t}"]`).join(", ");
  for (const block of main.querySelectorAll(prose)) {
    if (!visible(block)) continue;
    const copy = block.cloneNode(true);
    copy.querySelectorAll("code, pre").forEach((c) => c.remove());
    if (/\{\}|\(\s*\)/.test(copy.textContent)) found.push(`empty value: ${copy.textContent.trim().slice(0, 100)}`);
  }
  return [...new Set(found)];
}"""


def _demo_with_judge_probabilities(db, folder) -> None:
    """The demo, its name, feature and scenario studies rated by four pretend raters (as the numbers' own
    check rates them), its judge's scores given again as the six probabilities of both orders (004 App. H) that
    combine to the same scores, so Calibration draws the judge's reliability diagram: a judge without position
    bias (q is p with A and B swapped), leaving 30% of its doubt on C."""
    from fairval.annotate.material.importers import import_lmra
    from fairval.store.lmra import scores_frame
    from tests.annotate.results.test_numbers_unchanged import _example_ratings

    ensure_demo(db)
    _example_ratings(folder / "fairval.db", folder)        # the name, feature and scenario demos rated too
    rows = []
    for score in scores_frame(db, "demo-pairs").itertuples():
        c = 0.3 * (1 - abs(score.score))
        a, b = (1 - c + score.score) / 2, (1 - c - score.score) / 2          # a − b = score, a + b + c = 1
        rows.append({"item_id": score.item_id, "model": score.model, "p_a": a, "p_b": b, "p_c": c,
                     "q_a": b, "q_b": a, "q_c": c})
    (folder / "judge.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_lmra(db, "demo-pairs", folder / "judge.jsonl")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-pages-fit", _demo_with_judge_probabilities)


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("researcher-pages")
    yield folder
    if os.environ.get("FAIRVAL_SCREENSHOTS") == "always":
        print(f"\nscreenshots of every researcher page: {folder}")


def _problems(page, shots, label: str, sign: str) -> list[str]:
    """The page's problems once it has settled (a chart draws a moment after its element, and the first page
    after signing in draws twice, once blank between): checked once its text has held still for a second and
    shows its sign. Each failing page is kept as a screenshot."""
    wait_text(page, sign)
    bot.settle(page)
    page.evaluate("delete window.__drawn")
    page.wait_for_function(DRAWN, arg=sign, polling=200, timeout=60_000)
    found = page.evaluate(CHECKS, [PAGE_TEXT, CHART_TEXT])
    if found or os.environ.get("FAIRVAL_SCREENSHOTS") == "always":
        path = shots / f"{re.sub(r'[^A-Za-z0-9]+', '-', label)}.png"
        _shoot(page, path)
        if found:
            return [f"{label} ({path}): {p}" for p in found]
    return []


def _shoot(page, path) -> None:
    """The whole page: Streamlit scrolls its main block, not the document, so the window is made as tall as
    the block for the picture (the width, which sets the layout, stays)."""
    size = page.viewport_size
    tall = page.evaluate("""() => { const b = document.querySelector('[data-testid="stMainBlockContainer"]');
        return b ? Math.ceil(b.getBoundingClientRect().bottom + b.parentElement.scrollTop) + 80 : 0; }""")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(tall, 16_000))})
    idle(page)
    frames(page)                                 # laid out again at the new size
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


def _signed_in(page, sign: str) -> None:
    """The page's own text. A finding of stop 53: the phone's walk was found at the sign-in form, in three runs
    of five. Explained in issue 57: the signed-in page could show before its background request set the sign-in
    cookie (seen on a phone: the text 0.2 s before the request), so the first page opened by address then had no
    cookie; the page now waits for that handover (test_sign_in_handover_browser holds it back to show it). Not
    reproduced later in a walk (3 phone walks of 15 pages, before the fix: none). Signing in again here keeps
    this test on what it checks (sizes and overflow) should another cause remain."""
    form = page.get_by_role("button", name="Sign in")
    page.get_by_text(sign, exact=False).filter(visible=True).first.or_(form).first.wait_for(timeout=120_000)
    if form.is_visible():
        page.get_by_role("textbox", name="Password").fill(PASSWORD)
        form.click()
    wait_text(page, sign, timeout=120_000)


@pytest.mark.parametrize("device", list(DEVICES))
def test_every_researcher_page_fits_and_reads(server, browser, shots, device):
    context = browser.new_context(**DEVICES[device])
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(server.url + "/Results")
        page.get_by_role("textbox", name="Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        wait_text(page, "Items complete")
        for study in STUDIES:
            for name, sign in PAGES.items():
                page.goto(f"{server.url}/{name}?study={study}")
                _signed_in(page, sign)
                problems += _problems(page, shots, f"{device}-{study}-{name}", sign)
            page.goto(f"{server.url}/Manage?study={study}")
            wait_text(page, "Manage studies")
            for tab in MANAGE_TABS:
                page.get_by_role("tab", name=tab).click()
                page.get_by_role("tabpanel").filter(visible=True).get_by_test_id("stSelectbox").first.wait_for()
                problems += _problems(page, shots, f"{device}-{study}-Manage-{tab}", "Study")
        for tab in ("Create", "Audit trail"):                  # these two show no study
            page.get_by_role("tab", name=tab).click()
            problems += _problems(page, shots, f"{device}-Manage-{tab}", "Manage studies")
    except Exception:
        _shoot(page, shots / f"{device}-failed.png")
        print(f"\nscreenshots: {shots}")
        raise
    finally:
        context.close()
    assert problems == [], "\n".join(problems)


def test_manage_stays_on_the_tab_where_a_study_is_first_picked(server, browser):
    """Signed in on Manage, a study picked at once in Configure: the page (which draws again after signing in,
    and again when the pick rewrites the address) stays on Configure, showing that study, not back on Create."""
    context = browser.new_context(**DEVICES["desktop"])
    page = context.new_page()
    try:
        page.goto(server.url + "/Manage")
        page.get_by_role("textbox", name="Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        wait_text(page, "Manage studies")
        page.get_by_role("tab", name="Configure").click()
        page.get_by_role("tabpanel").filter(visible=True).get_by_test_id("stSelectbox").first.click()
        page.get_by_role("option", name="demo-names", exact=True).click()
        wait_text(page, "Name perception (task")
        # a pause that proves the tab is NOT switched back: the sign-in's second drawing comes within a few seconds
        page.wait_for_timeout(3000)
        idle(page)
        assert page.get_by_role("tab", selected=True).inner_text() == "Configure"
        assert page.get_by_text("Name perception (task", exact=False).filter(visible=True).count() == 1
    finally:
        context.close()
