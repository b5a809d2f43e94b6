"""Results' counts for a large study, in Debian's Chromium at 1280 px and on a phone: "12,000 / 12,000" items and
judgments are shown whole (five metrics abreast cut a 2,000-item study's to "1000 / 2…"), with thousands
separators."""
from __future__ import annotations

import json

import pytest

from fairval.annotate.material.importers import import_items, import_ratings
from fairval.annotate.material.studies import create_study
from tests.e2e.conftest import PASSWORD, idle, serve_studies

pytestmark = pytest.mark.e2e
ITEMS = 12_000


def _make(db, folder):
    create_study(db, "large", "template_quality", raters_per_item=1)
    items = folder / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{k}", "filled_template": f"Should request {k} be granted?"}) + "\n"
                             for k in range(ITEMS)), encoding="utf-8")
    import_items(db, "large", items)
    ratings = folder / "ratings.jsonl"
    ratings.write_text("".join(json.dumps({"item_id": f"q{k}", "rater_id": f"r{k % 500}", "question": q, "value": "4"})
                               + "\n" for k in range(ITEMS) for q in ("quality", "yes_positive")), encoding="utf-8")
    import_ratings(db, "large", ratings)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-large-counts", _make)


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}])
def test_the_counts_are_shown_whole(server, browser, viewport):
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(server.url + "/Results?study=large")
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Items complete").wait_for(timeout=120_000)
    idle(page)
    values = page.get_by_test_id("stMetricValue")
    shown = {v.inner_text().strip() for v in values.all()}
    assert {f"{ITEMS:,} / {ITEMS:,}", "500"} <= shown, shown
    # each value fits its box: nothing cut to an ellipsis
    cut = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
        .flatMap(v => [v, ...v.querySelectorAll('*')]).filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => e.innerText)""")
    assert cut == []
