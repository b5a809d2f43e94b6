"""On a phone the researcher's pages start just below Streamlit's header, in Debian's Chromium: Streamlit keeps
6rem (96 px) above each page, where a researcher page's header holds only the sidebar's button (stop 65 left
it; the rater's pages got theirs). On a 390×844 and a 375×812 phone, the sign-in form and each researcher page's
title start within 16 px below the header's lowest drawn part (its sidebar button included), which none of them
overlaps; at 1280×800 Streamlit's padding is kept as it was. Screenshots under test-artifacts/researcher-phone-top/."""
from __future__ import annotations

import os

import pytest

from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT
from tests.e2e.conftest import PASSWORD, frames, idle, serve_studies
from tests.e2e.test_rater_phone_top_browser import DEVICES, TOPS, _overlaps

pytestmark = pytest.mark.e2e

BELOW = 16                # px: the title's top at most this far below the header's lowest part on a phone
ARTIFACTS = os.path.join(os.environ.get("FAIRVAL_ARTIFACTS") or str(ROOT / "test-artifacts"), "researcher-phone-top")
PAGES = {"Results": "Results", "Manage": "Manage studies"}


def _studies(db, folder):
    create_study(db, "phone-top", "template_quality", raters_per_item=3, seed=3)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-researcher-phone-top", _studies)


def _look(page, device: str, screen: str) -> dict:
    idle(page)
    frames(page)                                 # the page's CSS applies with the first frame after the run
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, f"{device}-{screen}.png"))
    return page.evaluate(TOPS)


@pytest.mark.parametrize("device", list(DEVICES))
def test_the_researchers_pages_start_below_the_header_of_a_phone(server, browser, device):
    context = browser.new_context(**DEVICES[device])
    page = context.new_page()
    try:
        page.goto(f"{server.url}/Results")
        page.get_by_role("textbox", name="Password").wait_for(timeout=30_000)       # the form drawn, not its skeleton
        seen = {"sign-in": _look(page, device, "sign-in")}
        page.get_by_role("textbox", name="Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        for name, title in PAGES.items():
            if name != "Results":
                page.goto(f"{server.url}/{name}")
            page.get_by_role("heading", name=title).wait_for(timeout=30_000)
            seen[name] = _look(page, device, name)
    finally:
        context.close()
    for screen, found in seen.items():
        top = found["heading"] or found["first"]
        assert top is not None, (screen, found)
        assert not any(_overlaps(top, part) for part in found["header"]), (screen, found)
        if device == "laptop":
            assert found["padding"] == 96, (screen, found)     # Streamlit's own 6rem, as before
        else:
            header = max((part["bottom"] for part in found["header"]), default=0)
            assert header <= top["top"] <= header + BELOW, (screen, found)
