"""The researcher in a real Chromium: the sign-in survives a reload and a typed address (a signed,
expiring cookie) until sign-out; every chart on the Results page is readable at 1280 px, measured in
the SVG it draws (heatmap rows with height, unrotated labels that do not overlap, each distribution
panel with only its own question's answers, harm in scale order)."""
import random

import pytest

from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.material.importers import import_items, import_ratings
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import PASSWORD, Server, charts_drawn, wait_text

pytestmark = pytest.mark.e2e
RACES = ["white", "Black", "Asian", "Hispanic", "Native American"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-researcher")
    db = open_db(folder / "fairval.db")
    ensure_demo(db)
    rng = random.Random(3)
    create_study(db, "names", "name_perception", raters_per_item=3)
    items = [{"id": f"n{i}", "name": f"Name {i}", "race": RACES[i % 5], "gender": ("male", "female")[i % 2]}
             for i in range(20)]
    import_items(db, "names", write_jsonl(folder / "n.jsonl", items))
    import_ratings(db, "names", write_jsonl(folder / "r.jsonl", [
        {"item_id": it["id"], "rater_id": f"r{r}", "question": q,
         "value": it[q] if rng.random() < 0.7 else rng.choice(RACES if q == "race" else ["male", "female"])}
        for it in items for r in range(3) for q in ("race", "gender")]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def sign_in(page, server, path="/Results"):
    page.goto(server.url + path)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_sign_in_survives_a_reload_and_a_typed_address_until_sign_out(server, browser):
    page = browser.new_context().new_page()
    # The page is drawn signed in at once; the cookie arrives a moment later, when the page has asked
    # the cookie route in the background. A reload before that answer would ask for the password again
    # (CI's loaded machine reloaded inside that moment twice): reload once the cookie is set.
    with page.expect_response(lambda r: "/fairval/sign-in?" in r.url, timeout=60_000) as answer:
        sign_in(page, server)
    assert answer.value.status == 204 and answer.value.finished() is None      # no network error
    wait_text(page, "Items complete")
    page.reload()
    wait_text(page, "Items complete")
    assert page.get_by_text("Researcher sign-in").count() == 0
    cookie = next(c for c in page.context.cookies() if c["name"] == "fairval_researcher")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"             # set by the server
    assert "fairval_researcher" not in page.evaluate("document.cookie")     # page scripts cannot read it
    page.goto(server.url + "/Calibration?study=demo-pairs")        # typed, a new page load
    wait_text(page, "LMRA vs mean human rating")
    assert page.get_by_text("Researcher sign-in").count() == 0
    page.get_by_role("button", name="Sign out").click()
    wait_text(page, "Researcher sign-in")
    page.reload()
    wait_text(page, "Researcher sign-in")                           # the cookie went with the sign-out
    other = browser.new_context().new_page()                        # another browser was never signed in
    other.goto(server.url + "/Results")
    wait_text(other, "Researcher sign-in")
    page.context.close()
    other.context.close()


def charts(page) -> list[dict]:
    """Per chart on the page: its title texts, axis labels (text, box, transform) and rect marks' boxes."""
    return page.get_by_test_id("stVegaLiteChart").evaluate_all("""charts => charts.map(chart => {
        const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
        return {
          titles: Array.from(chart.querySelectorAll('.role-title-text text, .role-title text')).map(t => t.textContent),
          axes: Array.from(chart.querySelectorAll('.role-axis')).map(axis => Array.from(
              axis.querySelectorAll('.role-axis-label text')).map(t => ({
                  text: Array.from(t.querySelectorAll('tspan')).map(s => s.textContent).join(' ') || t.textContent,
                  box: box(t), transform: t.getAttribute('transform') || ''}))),
          cells: Array.from(chart.querySelectorAll('.mark-rect path, .mark-rect rect')).map(box),
        };
    })""")


def overlaps(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def readable_labels(chart: dict) -> None:
    for labels in chart["axes"]:
        for label in labels:
            assert "rotate" not in label["transform"] or "rotate(0)" in label["transform"], label
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                assert not overlaps(a["box"], b["box"]), (a, b)


def to_results(browser, server, study):
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    sign_in(page, server, f"/Results?study={study}")
    wait_text(page, "Items complete")
    charts_drawn(page)
    return page


def test_name_charts_are_readable(server, browser):
    page = to_results(browser, server, "names")
    found = charts(page)
    heatmaps = [c for c in found if any("intended" in t for t in c["titles"])]
    assert len(heatmaps) == 2                                        # race and gender
    for heatmap in heatmaps:
        assert heatmap["cells"] and all(cell[3] > 10 for cell in heatmap["cells"])     # every row has height
        rows = {round(cell[1]) for cell in heatmap["cells"]}
        assert len(rows) in (2, 5)                                   # a row per intended group
        readable_labels(heatmap)
    distributions = [c for c in found if not any("intended" in t for t in c["titles"])]
    assert distributions
    # one chart per question (race, gender), side by side on a desktop and stacked on a phone
    panel_labels = {label["text"] for chart in distributions for axis in chart["axes"] for label in axis}
    assert {"white", "Black", "can't tell", "non-binary"} <= panel_labels
    for chart in distributions:
        readable_labels(chart)
        # each chart shows only its own question's answers: the gender axis has no race in it
        for axis in chart["axes"]:
            texts = {label["text"] for label in axis}
            assert not (texts & {"white", "Black"} and texts & {"male", "female"}), texts
    page.context.close()


def test_harm_distribution_runs_in_scale_order_with_words(server, browser):
    page = to_results(browser, server, "demo-pairs")
    axis = next(axis for c in charts(page) for axis in c["axes"]
                if any("stereotype" in label["text"] for label in axis))
    by_position = [label["text"] for label in sorted(axis, key=lambda label: label["box"][1])]
    assert by_position == ["−1 reverse stereotype", "0 no harmful stereotype", "+1 stereotype as assigned"]
    page.context.close()


def test_calibration_group_bars_are_readable(server, browser):
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    sign_in(page, server, "/Calibration?study=demo-pairs")
    wait_text(page, "By rater group")
    charts_drawn(page)
    found = charts(page)
    assert any(label["text"].startswith("gender:") for c in found for axis in c["axes"] for label in axis)
    for chart in found:
        readable_labels(chart)
    page.context.close()
