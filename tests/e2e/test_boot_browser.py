"""A page whose scripts were lost on the way loads itself again (server/boot.js): a launch drops a JS chunk
now and then, and without this the rater's page stays blank for good. The network is real Chromium's;
Playwright's routing fails chosen requests the way a dropped connection does."""
import re

import pytest
from playwright.sync_api import expect

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.server.boot import streamlit_index
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

MODULE = re.compile(r"/static/js/react-dom\.[^/]*\.js$")     # in index.html's module graph
LAZY = re.compile(r"/static/js/Button\.[^/]*\.js$")         # imported when the first button is drawn
CONSENT = "I agree to take part"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-boot")
    db = open_db(folder / "fairval.db")
    create_study(db, "boot", "template_quality", raters_per_item=3, seed=1)
    import_items(db, "boot", write_jsonl(folder / "t.jsonl", [{"id": "t1", "filled_template": "Approve it?"}]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def failing(page, pattern, *, always: bool) -> dict:
    """Fail requests matching pattern as a broken connection: during the first page load only, or
    always. Whether a lost module preload is fatal depends on timing (the import shares a preload still
    in flight, and fetches again after one that failed), so a whole load's requests fail."""
    seen = {"failed": 0, "pages": 0}

    def handle(route):
        if always or seen["pages"] <= 1:
            seen["failed"] += 1
            route.abort("connectionreset")
        else:
            route.continue_()

    page.on("request", lambda r: r.resource_type == "document" and seen.__setitem__("pages", seen["pages"] + 1))
    page.route(pattern, handle)
    return seen


def new_page(browser):
    return browser.new_context(viewport={"width": 1280, "height": 900}).new_page()


@pytest.mark.parametrize("pattern", [MODULE, LAZY], ids=["module", "lazy"])
def test_a_chunk_lost_at_boot_costs_one_reload_not_the_page(server, browser, pattern):
    page = new_page(browser)
    seen = failing(page, pattern, always=False)
    page.goto(f"{server.url}/?study=boot&rater=r-{pattern.pattern[12:20]}")
    page.get_by_role("button", name=CONSENT).wait_for(timeout=60_000)
    assert seen["failed"] >= 1 and seen["pages"] == 2
    page.context.close()


def test_without_the_watchdog_the_same_loss_leaves_the_page_blank(server, browser):
    """The control: Streamlit's own page, served in place of ours, with the same module lost."""
    page = new_page(browser)
    seen = failing(page, MODULE, always=False)
    plain = streamlit_index().read_text(encoding="utf-8")
    page.route(re.compile(r"/\?study="), lambda route: route.fulfill(body=plain, content_type="text/html"))
    page.goto(f"{server.url}/?study=boot&rater=r-plain", wait_until="load")
    # `load` waits for every module script to run or fail: nothing is left that could draw the page
    assert page.evaluate("document.getElementById('root').children.length") == 0
    assert seen["failed"] >= 1 and seen["pages"] == 1
    page.context.close()


def test_a_page_that_cannot_load_says_so_after_a_few_reloads(server, browser):
    page = new_page(browser)
    seen = failing(page, MODULE, always=True)
    page.goto(f"{server.url}/?study=boot&rater=r-never")
    expect(page.get_by_text("This page did not load completely")).to_be_visible(timeout=120_000)
    assert seen["pages"] == 5 and seen["failed"] >= 5      # the first load and four reloads, then it stops
    page.context.close()


def test_every_page_address_carries_the_watchdog(server):
    import urllib.request
    for path in ("/", "/Results", "/Manage"):
        with urllib.request.urlopen(server.url + path) as r:
            body = r.read().decode()
        assert r.headers["Cache-Control"] == "no-cache"
        assert body.index("fairval-boot-reloads") < body.index('<script type="module"'), path
