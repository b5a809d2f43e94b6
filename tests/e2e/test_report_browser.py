"""The HTML report opens in a real browser with its charts drawn, with nothing fetched from anywhere."""
import pytest

from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.outputs.report import write_report
from tests.e2e.conftest import CHROMIUM  # noqa: F401  (the browser fixture uses it)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("study, charts", [("demo-pairs", 3), ("demo-templates", 1)])
def test_report_renders_offline_with_charts(db, tmp_path, browser, study, charts):
    ensure_demo(db)
    html_path = write_report(db, study, tmp_path / f"{study}.html")
    md = write_report(db, study, tmp_path / f"{study}.md").read_text()
    assert md.startswith(f"# Study report: {study}") and "| question" in md
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(html_path.as_uri())
    assert page.locator("figure svg").count() == charts
    marks = page.locator("figure svg path, figure svg rect").count()
    assert marks > 10                                  # bars, points and axes were drawn
    assert page.locator("h1").inner_text() == f"Study report: {study}"
    assert [u for u in requests if not u.startswith("file://")] == []
    shot = tmp_path / f"{study}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    page.close()
