"""On a phone the rater's pages start near the top of the screen, in Debian's Chromium: Streamlit keeps 6rem
(96 px) above the page for its header, which the rater's page leaves empty, and each heading sat 112 px down
(QA, stop 64). On a 390×844 and a 375×812 phone the first heading of consent, About you and the instructions,
and the item's first line, start within 48 px of the top, and nothing of Streamlit's header lies over them; at
1280×800 Streamlit's padding is kept as it was. Screenshots under test-artifacts/rater-phone-top/."""
from __future__ import annotations

import os

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from tests.conftest import ROOT, write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import frames, idle, serve_studies

pytestmark = pytest.mark.e2e

DEVICES = {
    "phone-390": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                  "device_scale_factor": 2},
    "phone-375": {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True,
                  "device_scale_factor": 2},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}
TOP = 48                  # px: the first heading's top on a phone (was 112)
ARTIFACTS = os.path.join(os.environ.get("FAIRVAL_ARTIFACTS") or str(ROOT / "test-artifacts"), "rater-phone-top")

# the main block's first heading (or, on an item's page, its first drawn element), the padding above it, and
# every part of Streamlit's header that is drawn (a box of some size) with what it would cover
TOPS = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const drawn = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const heading = [...main.querySelectorAll("h1, h2, h3")].find(drawn);
  const first = [...main.querySelectorAll('[data-testid="stElementContainer"]')].find(drawn);
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const header = [...document.querySelectorAll('[data-testid="stHeader"], [data-testid="stHeader"] *')]
      .filter(drawn).map(box);
  return {heading: heading ? box(heading) : null, first: first ? box(first) : null, header,
          padding: parseFloat(getComputedStyle(main).paddingTop)};
}"""


def _studies(db, folder):
    create_study(db, "phone-top", "template_quality", raters_per_item=20, seed=3, demographics=["gender"])
    import_items(db, "phone-top", write_jsonl(folder / "t.jsonl", [
        {"id": f"t{k}", "filled_template": f"Should the library lend permit {k} for a month?"} for k in range(2)]))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_studies(tmp_path_factory, "e2e-rater-phone-top", _studies)


def _look(page, device: str, screen: str) -> dict:
    idle(page)
    frames(page)                                 # the page's CSS applies with the first frame after the run
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, f"{device}-{screen}.png")
    page.screenshot(path=path)
    return {**page.evaluate(TOPS), "screenshot": path}


def _overlaps(a: dict, b: dict) -> bool:
    return a["top"] < b["bottom"] and b["top"] < a["bottom"] and a["left"] < b["right"] and b["left"] < a["right"]


@pytest.mark.parametrize("device", list(DEVICES))
def test_the_raters_pages_start_near_the_top_of_a_phone(server, browser, device):
    context = browser.new_context(**DEVICES[device])
    page = context.new_page()
    try:
        bot.open_link(page, f"{server.url}/?study=phone-top&rater=top-{device}")
        seen = {"consent": _look(page, device, "consent")}
        bot.consent(page)
        seen["about-you"] = _look(page, device, "about-you")
        bot.demographics(page, "female")
        seen["instructions"] = _look(page, device, "instructions")
        bot.start(page)
        page.locator(".fv-option").first.wait_for(timeout=30_000)
        seen["item"] = _look(page, device, "item")
    finally:
        context.close()
    for screen, found in seen.items():
        top = found["heading"] or found["first"]
        assert top is not None, (screen, found)
        assert not any(_overlaps(top, part) for part in found["header"]), (screen, found)
        if device == "laptop":
            assert found["padding"] == 96, (screen, found)     # Streamlit's own 6rem, as before
            assert top["top"] >= 96, (screen, found)
        else:
            assert 0 <= top["top"] <= TOP, (screen, found)
            assert found["header"] == [], (screen, found)      # its empty header is not drawn over the page
