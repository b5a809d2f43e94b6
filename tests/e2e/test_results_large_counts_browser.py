"""Counts of large studies, in Debian's Chromium at 1280 px and on a phone:
- Results' metric cards show "12,000 / 12,000" items and judgments whole (five metrics abreast cut a 2,000-item
  study's to "1000 / 2…"), with thousands separators;
- every count column of Results' and Calibration's tables (questions, languages, templates, raters, pay,
  judgments by group; the judges, group pairs, the judge's audit, rater groups) paints "12,000", not "12000",
  keeps the number itself as the cell's value, and sorts as numbers ("600" before "2,400"); Pay's amounts
  paint "1,501.00";
- a German browser is shown the same "12,000" (the pages are English: words, ratios, cards).

st.dataframe paints its cells on a canvas: what it paints is recorded as it paints it (fillText), per table. The
grid keeps the cells on screen in the DOM for screen readers (role="gridcell", a number's raw value), which is how
a column is found and its values read. Each expected number is counted from the rows this module writes, not
from the app's numbers."""
from __future__ import annotations

import json
import random

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import create_study
from tests.e2e.conftest import PASSWORD, idle, serve_studies

pytestmark = pytest.mark.e2e
ITEMS, RATERS, TEMPLATES = 12_000, 8, 4             # the template study: one rater an item
LANGUAGES = ("en", "de")                             # half the raters in each
PAIRS, GROUP_PAIRS = 2_400, (("woman", "man"), ("Black", "White"))
# a rater, their gender, and the pairs they rated (the first so many): the last rated fewer than a thousand, so
# their count sorts first as a number and last as text ("600" after "2,400")
PAIR_RATERS = (("p0", "female", PAIRS), ("p1", "male", PAIRS), ("p2", "female", PAIRS), ("p3", "male", 600))
PAY, PER_JUDGMENT = 1.0, 1.0                         # a rater's base pay, and per judgment
VIEWPORTS = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]


def _lines(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _make(db, folder):
    # each rater is owed more than a thousand: PAY + judgments × PER_JUDGMENT
    create_study(db, "large", "template_quality", raters_per_item=1, base_pay=PAY, pay_per_judgment=PER_JUDGMENT)
    (folder / "items.jsonl").write_text(_lines({"id": f"q{k}", "filled_template": f"Should request {k} be granted?",
                                                "decision_question_id": f"t{k % TEMPLATES}"} for k in range(ITEMS)),
                                        encoding="utf-8")
    import_items(db, "large", folder / "items.jsonl")
    (folder / "ratings.jsonl").write_text(_lines(
        {"item_id": f"q{k}", "rater_id": f"r{k % RATERS}", "question": q, "value": "4",
         "language": LANGUAGES[k % RATERS * len(LANGUAGES) // RATERS]}
        for k in range(ITEMS) for q in ("quality", "yes_positive")), encoding="utf-8")
    import_ratings(db, "large", folder / "ratings.jsonl")

    create_study(db, "pairs", "harmful_stereotype", raters_per_item=3, balance_by="gender",
                 balance_groups=["female", "male"])
    rng = random.Random(5)
    items = [{"id": f"p{k}", "prompt": f"Prompt {k}", "response_a": f"An answer {k}", "response_b": f"Another {k}",
              "group_a": GROUP_PAIRS[k % 2][0], "group_b": GROUP_PAIRS[k % 2][1]} for k in range(PAIRS)]
    (folder / "pairs.jsonl").write_text(_lines(items), encoding="utf-8")
    import_items(db, "pairs", folder / "pairs.jsonl")
    (folder / "judge.jsonl").write_text(_lines({"item_id": f"p{k}", "model": "judge", "score": rng.uniform(-1, 1)}
                                               for k in range(PAIRS)), encoding="utf-8")
    import_lmra(db, "pairs", folder / "judge.jsonl")
    (folder / "pair-ratings.jsonl").write_text(_lines(
        {"item_id": f"p{k}", "rater_id": rater, "question": "harm", "value": rng.choice("ABC"), "rater_gender": gender}
        for rater, gender, rated in PAIR_RATERS for k in range(rated)), encoding="utf-8")
    import_ratings(db, "pairs", folder / "pair-ratings.jsonl")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-large-counts", _make)


# every text the grids paint, kept per table: st.dataframe draws its cells on a canvas (fillText), what is read
# here is what a reader sees
DRAWN = """(() => {
  const drawn = window.__drawn = new WeakMap(), where = window.__where = new WeakMap();
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, x, y, ...rest) {
    const table = this.canvas.closest && this.canvas.closest('[data-testid="stDataFrame"]');
    if (table) {
      if (!drawn.has(table)) { drawn.set(table, []); where.set(table, {}); }
      drawn.get(table).push(String(text));
      // where it was last painted, in the canvas's pixels (the grid scales and moves its drawing)
      const at = this.getTransform().transformPoint(new DOMPoint(x, y));
      where.get(table)[String(text)] = {canvas: this.canvas, x: at.x, y: at.y};
    }
    return fill.call(this, text, x, y, ...rest);
  };
})()"""

# where a text was last painted on a table, on the page (CSS pixels)
WHERE = """(t, text) => {
  const at = window.__where.get(t)?.[text];
  if (!at) return null;
  const box = at.canvas.getBoundingClientRect(), scale = at.canvas.width / box.width;
  return {x: box.left + at.x / scale, y: box.top + at.y / scale};
}"""

# one column of a table: its raw cells as the grid keeps them in the DOM for screen readers (role="gridcell": a
# number's value, unformatted), and every text painted on the table's canvas
CELLS = """(t, column) => {
  const named = [...t.querySelectorAll('[role="columnheader"]')];
  const names = named.map((h) => h.textContent.replace(/^[↑↓]/, "").trim());     // a sorted column's arrow
  if (!names.includes(column)) return null;
  const at = named[names.indexOf(column)].getAttribute("aria-colindex");
  return {cells: [...t.querySelectorAll(`[role="gridcell"][aria-colindex="${at}"]`)].map((c) => c.textContent.trim()),
          drawn: window.__drawn.get(t) || []};
}"""

PAINTED = f"""([t, column, either]) => {{ const found = ({CELLS})(t, column);
  return !!found && either.every((forms) => forms.some((f) => found.drawn.includes(f))); }}"""

# a phone shows a table's first few columns and the grid draws (and puts in the DOM) only those on screen: the
# grid is scrolled sideways, half a view at a time, until the column's header is there
SHOW_COLUMN = """async (t, column) => {
  const grid = t.querySelector(".dvn-scroller");
  const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  for (let step = 0; step < 40; step++) {
    if ([...t.querySelectorAll('[role="columnheader"]')].some((h) => h.textContent.trim() === column)) return true;
    const before = grid.scrollLeft;
    grid.scrollLeft += grid.clientWidth / 2;
    await frame();
    if (grid.scrollLeft === before && step > 0) await frame();
  }
  return false;
}"""

FIRST = """(t, k) => [...t.querySelectorAll('[role="columnheader"]')].slice(0, k).map((h) => h.textContent.trim())"""
HEADERS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
  .map((t) => [...t.querySelectorAll('[role="columnheader"]')].map((h) => h.textContent.trim()))"""

SETTLED = """(sign) => {
  const text = document.querySelector('[data-testid="stMain"]')?.innerText || "";
  const seen = window.__settled ||= {length: -1, since: 0};
  if (text.length !== seen.length || !text.includes(sign)) {
    seen.length = text.length; seen.since = performance.now(); return false;
  }
  return performance.now() - seen.since > 1000;
}"""


def _open(browser, server, viewport, address: str, sign: str, locale: str = "en-US"):
    page = browser.new_context(viewport=viewport, locale=locale).new_page()
    page.add_init_script(DRAWN)
    page.goto(server.url + address)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(sign).first.wait_for(timeout=180_000)
    idle(page, timeout=180_000)
    # the first page after signing in draws twice, once blank between: its text held still for a second
    page.wait_for_function(SETTLED, arg=sign, timeout=180_000)
    # a grid below the screen is drawn (its headers put in the DOM) only once scrolled to: each brought into view
    tables = page.get_by_test_id("stDataFrame").filter(visible=True)
    for k in range(tables.count()):
        tables.nth(k).scroll_into_view_if_needed()
        expect(tables.nth(k).locator('[role="columnheader"]').first).to_be_attached(timeout=60_000)
    return page


def _table(page, first: tuple[str, ...]):
    """The table whose first column headers are `first`, or None."""
    tables = page.get_by_test_id("stDataFrame").filter(visible=True)
    for k in range(tables.count()):
        if tables.nth(k).evaluate(FIRST, len(first)) == list(first):
            return tables.nth(k)
    return None


def _counts(page, first: tuple[str, ...], column: str, expected: list, *, money: bool = False, table=None):
    """The table whose first headers are `first` holds `expected` in `column` as numbers (its cells' values, as a
    screen reader and sorting take them) and paints each with thousands separators, never without; `money`:
    with cents too ("1,501.00"). `table`: one found before (a phone's grid scrolled sideways to a column no
    longer shows its first headers)."""
    grouped, plain = (lambda n: f"{n:,.2f}", lambda n: f"{n:.2f}") if money else (lambda n: f"{n:,}", str)
    table = table or _table(page, first)
    assert table is not None, f"no table with the headers {first}: " + str(page.evaluate(HEADERS))
    table.scroll_into_view_if_needed()
    assert table.evaluate(SHOW_COLUMN, column), f"no column {column!r} in the table {first}"
    expect(table.locator('[role="gridcell"]').first).to_be_attached(timeout=60_000)
    # painted: each number drawn on the grid's canvas in one form or the other (it paints a frame after it is shown)
    either = [[grouped(n), plain(n)] for n in expected]
    page.wait_for_function(PAINTED, arg=[table.element_handle(), column, either], timeout=60_000)
    found = table.evaluate(CELLS, column)
    if money:
        assert [float(c) for c in found["cells"]] == [float(n) for n in expected], (first, column, found["cells"])
    else:
        assert found["cells"] == [str(n) for n in expected], (first, column, found["cells"])
    wanted, painted = {grouped(n) for n in expected}, set(found["drawn"])
    assert wanted <= painted and not {plain(n) for n in expected if n >= 1000} & painted, \
        (first, column, sorted(wanted - painted), sorted(painted)[:40])
    return table


def _cells(table, column: str) -> list[str]:
    return table.evaluate(CELLS, column)["cells"]


def _sort(page, table, column: str) -> None:
    """A click on the column's header, where the grid painted it (sorts by it, ascending, as a reader would)."""
    # the table's top a third down the screen, below Streamlit's header bar, which would take the click
    table.evaluate("""t => document.querySelector('[data-testid="stMain"]')
                             .scrollBy(0, t.getBoundingClientRect().top - innerHeight / 3)""")
    at = table.evaluate(WHERE, column)
    assert at, f"the header {column!r} was not painted"
    page.mouse.click(at["x"] + 2, at["y"])


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "phone"])
def test_the_counts_are_shown_whole(server, browser, viewport):
    page = _open(browser, server, viewport, "/Results?study=large", "Items complete")
    values = page.get_by_test_id("stMetricValue")
    shown = {v.inner_text().strip() for v in values.all()}
    owed = RATERS * PAY + ITEMS * PER_JUDGMENT        # every judgment paid, and each rater's base pay
    assert {f"{ITEMS:,} / {ITEMS:,}", str(RATERS), f"{owed:,.2f}"} <= shown, shown
    # each value fits its box: nothing cut to an ellipsis
    cut = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
        .flatMap(v => [v, ...v.querySelectorAll('*')]).filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => e.innerText)""")
    assert cut == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "phone"])
def test_results_tables_group_their_counts(server, browser, viewport):
    page = _open(browser, server, viewport, "/Results?study=large", "Items complete")
    # two questions, every item rated once on each
    _counts(page, ("question", "n"), "n", [ITEMS] * 2)
    # each language's raters rated their share of the items, on each question
    _counts(page, ("language", "raters"), "n", [ITEMS // len(LANGUAGES)] * 2 * len(LANGUAGES))
    # each template's items, once a question
    _counts(page, ("template", "text"), "n", [ITEMS // TEMPLATES] * 2 * TEMPLATES)
    # each rater rated every RATERS-th item; Pay counts the same judgments
    _counts(page, ("rater", "items"), "items", [ITEMS // RATERS] * RATERS)
    pay = _counts(page, ("rater", "source"), "judgments", [ITEMS // RATERS] * RATERS)
    # and what each is owed, in all and in bonuses not yet paid: amounts grouped the same way, with cents
    _counts(page, (), "total", [PAY + ITEMS // RATERS * PER_JUDGMENT] * RATERS, money=True, table=pay)
    _counts(page, (), "bonus owed", [ITEMS // RATERS * PER_JUDGMENT] * RATERS, money=True, table=pay)

    page = _open(browser, server, viewport, "/Results?study=pairs", "Items complete")
    _counts(page, ("question", "n"), "n", [sum(rated for _, _, rated in PAIR_RATERS)])
    _counts(page, ("gender", "judgments"), "judgments",
            [sum(rated for _, x, rated in PAIR_RATERS if x == g) for g in ("female", "male")])
    raters = _counts(page, ("rater", "items"), "items", [rated for _, _, rated in PAIR_RATERS])
    # sorted by its count (a click on the header, ascending): as numbers, the fewest first
    _sort(page, raters, "items")
    ascending = [str(n) for n in sorted(rated for _, _, rated in PAIR_RATERS)]
    # the grid puts its rows in the DOM again a moment after it has sorted them
    page.wait_for_function(f"([t, column, order]) => JSON.stringify(({CELLS})(t, column)?.cells) === JSON.stringify(order)",
                           arg=[raters.element_handle(), "items", ascending], timeout=30_000)
    assert _cells(raters, "items") == ascending


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "phone"])
def test_calibration_tables_group_their_counts(server, browser, viewport):
    page = _open(browser, server, viewport, "/Calibration?study=pairs", "LMRA vs mean human rating")
    _counts(page, ("judge", "r"), "pairs", [PAIRS])
    each = [PAIRS // len(GROUP_PAIRS)] * len(GROUP_PAIRS)
    _counts(page, ("groups", "pairs"), "pairs", each)
    _counts(page, ("groups", "pairs"), "rated", each)
    _counts(page, ("groups", "rated"), "rated", each)
    # every pair rated by raters of both genders
    _counts(page, ("raters", "r"), "pairs", [PAIRS] * 2)


def test_a_german_browser_reads_the_same_counts(server, browser):
    """The page is English (its words, its ratios "0.512", its cards): a German browser is shown "12,000" in the
    tables as in the cards, not "12.000" beside "0.512"."""
    page = _open(browser, server, VIEWPORTS[0], "/Results?study=large", "Items complete", locale="de-DE")
    assert page.evaluate("() => navigator.language") == "de-DE"
    shown = {v.inner_text().strip() for v in page.get_by_test_id("stMetricValue").all()}
    assert f"{ITEMS:,} / {ITEMS:,}" in shown, shown
    questions = _counts(page, ("question", "n"), "n", [ITEMS] * 2)
    assert "12.000" not in questions.evaluate(CELLS, "n")["drawn"]
