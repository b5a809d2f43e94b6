"""The answer card's files (its script and CSS, served from the components v2 asset directory ui/card/) as a
participant's Chromium fetches them over 10 items and a reload (issue 58): compressed on the wire, fetched once
per page, and after a reload the script revalidated by its ETag (304, no body) and the CSS still fresh, rather than
both sent again. Bytes are Chromium's own count of what came over the wire
(Playwright's request.sizes()). What a participant's browser receives over the walk is printed: the figure for
docs/deployment.md."""
from __future__ import annotations

import hashlib
import json
import re
import uuid

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT, write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import serve_studies

pytestmark = pytest.mark.e2e

ITEMS = 10
CARD = ROOT / "ui" / "card"
ROUTE = "/_stcore/bidi-components/"


def _studies(db, folder):
    create_study(db, "walk", "template_quality", raters_per_item=1, max_items_per_rater=ITEMS, seed=1)
    import_items(db, "walk", write_jsonl(folder / "items.jsonl",
                                         [{"id": f"q{i}", "filled_template": f"Question {i}?"} for i in range(ITEMS)]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-card-cache", _studies)


class Wire:
    """Every request for the card's files the page makes: file, status, body and header bytes on the wire."""

    def __init__(self, page):
        self.seen: list[dict] = []
        page.on("requestfinished", self._finished)

    def _finished(self, request) -> None:
        if ROUTE not in request.url:
            return
        response = request.response()
        sizes = request.sizes()
        # Chromium's encoded length is headers + body; a copy from its cache came over no wire (0)
        wire = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        self.seen.append({"file": request.url.rsplit("/", 1)[-1], "status": response.status if response else None,
                          "body": max(sizes["responseBodySize"], 0), "wire": wire,
                          "encoding": (response.headers.get("content-encoding") if response else None),
                          "etag": (response.headers.get("etag") if response else None),
                          "asked": request.all_headers().get("if-none-match")})

    def since(self, start: int) -> list[dict]:
        return self.seen[start:]


def _answer_items(page, count: int) -> None:
    for _ in range(count):
        bot.settle(page)
        done = int(page.get_by_text(re.compile(r"^\d+ of \d+ done$")).first.inner_text().split()[0])
        bot.answer_template(page, "Somewhat agree", "Strongly agree")
        # the next item's line or the end ("Answer saved" is on every screen after the first: it passed at once)
        page.get_by_text(re.compile(rf"^{done + 1} of \d+ done$")).or_(
            page.get_by_text("Thank you")).first.wait_for(timeout=30_000)


def test_the_cards_files_go_compressed_once_and_a_reload_revalidates_them(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    wire = Wire(page)
    bot.open_link(page, f"{server.url}/?study=walk&rater=r-{uuid.uuid4().hex[:8]}")
    bot.consent(page)
    bot.start(page)
    _answer_items(page, 5)
    first_page = list(wire.seen)
    page.reload()
    page.locator(".fv-card").or_(page.get_by_role("button", name="Start")).first.wait_for(timeout=30_000)
    if page.get_by_role("button", name="Start").count():
        bot.start(page)
    _answer_items(page, ITEMS - 5)
    after_reload = wire.since(len(first_page))
    print("card files on the wire:", json.dumps({"first page": first_page, "after reload": after_reload}),
          "bytes:", sum(r["wire"] for r in first_page), "+", sum(r["wire"] for r in after_reload))
    context.close()

    raw = {p.name: p.read_bytes() for p in CARD.iterdir() if p.suffix in (".js", ".css")}
    # the first page, five mounts of the card: each file came once (on main the CSS came with every mount),
    # compressed, with a validator that is the file's content
    assert sorted(r["file"] for r in first_page if r["status"] == 200) == sorted(raw), first_page
    assert all(r["status"] == 200 or r["body"] == 0 for r in first_page), first_page
    for r in (r for r in first_page if r["status"] == 200):
        assert r["encoding"] == "gzip" and 0 < r["body"] < len(raw[r["file"]]) / 2, r
        assert r["etag"] and hashlib.sha256(raw[r["file"]]).hexdigest()[:32] in r["etag"], r
    # after the reload no file's bytes came again: the CSS was still fresh, the script asked with its ETag (304)
    assert all(r["body"] == 0 for r in after_reload) and sum(r["wire"] for r in after_reload) < 1000, after_reload
    script = [r for r in after_reload if r["file"] == "answer_card.js" and r["wire"] > 0]
    assert [r["status"] for r in script] == [304] and script[0]["asked"] == script[0]["etag"], after_reload
