"""The researcher's side as safe as the rater's, in a real Chromium: a study whose participants and
imported files carry hostile text (images and links to a server listening on 127.0.0.1, HTML,
Streamlit's colour directives, LaTeX) in every field the researcher pages and reports show: rater ids,
countries, comments, template ids, names and their extra fields, intended groups (of an item stored
before labels were matched), pair groups, prompts, responses, the judge's name. Every researcher page
and the HTML report are opened: the listening server sees 0 requests and the hostile text is shown as
typed. Every CSV export is opened and no cell starts a formula."""
import csv
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fairval.annotate.crowd.prolific import write_bonuses
from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import configure_study, create_study
from fairval.annotate.outputs.export import export_ratings, export_validated
from fairval.annotate.outputs.report import write_report
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import PASSWORD, Server, idle, wait_text

pytestmark = pytest.mark.e2e


class Listener:
    """A server that counts every request it gets: any hit means a page fetched participant text."""

    def __init__(self):
        self.hits: list[str] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                listener.hits.append(self.path)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    yield server
    server.stop()


def hostile(url: str, tag: str) -> str:
    return (f"=HYPERLINK(\"{url}/{tag}-f\") ![x]({url}/{tag}-md.png) <img src={url}/{tag}-html.png> "
            f"[l]({url}/{tag}-link) :red[{tag}] $x^2$")


@pytest.fixture(scope="module")
def study(tmp_path_factory, listener):
    folder = tmp_path_factory.mktemp("e2e-hostile-researcher")
    db = open_db(folder / "fairval.db")
    url = listener.url
    create_study(db, "pairs", "harmful_stereotype", raters_per_item=3, pay_per_judgment=0.5)
    import_items(db, "pairs", write_jsonl(folder / "p.jsonl", [
        {"id": f"p{k}", "prompt": hostile(url, "prompt"), "response_a": hostile(url, "ra"),
         "response_b": hostile(url, "rb"), "group_a": hostile(url, "ga"), "group_b": "man"} for k in range(4)]))
    raters = [f"=HYPERLINK(1) ![x]({url}/r{k}.png) :red[rater{k}]" for k in range(3)]   # ids are ≤ 128
    import_ratings(db, "pairs", write_jsonl(folder / "r.jsonl", [
        {"item_id": f"p{k}", "rater_id": r, "question": "harm", "value": "ABC"[(k + j) % 3],
         "rater_country": hostile(url, "country"), "rater_gender": hostile(url, "gender"), "seconds": 9}
        for k in range(4) for j, r in enumerate(raters)]))
    import_lmra(db, "pairs", write_jsonl(folder / "l.jsonl", [
        {"item_id": f"p{k}", "model": hostile(url, "model"), "score": [0.5, -0.5, 0.0, 1.0][k]} for k in range(4)]))
    create_study(db, "templates", "template_quality", raters_per_item=2)
    import_items(db, "templates", write_jsonl(folder / "t.jsonl", [
        {"id": f"t{k}", "filled_template": hostile(url, "template"), "decision_question_id": hostile(url, "dq")}
        for k in range(3)]))
    import_ratings(db, "templates", write_jsonl(folder / "tr.jsonl", [
        {"item_id": f"t{k}", "rater_id": r, "question": q, "value": "5"} for k in range(3) for r in raters
        for q in ("quality", "yes_positive")]))
    create_study(db, "names", "name_perception", raters_per_item=2)
    # intended groups must be answers of the questions now (a hostile one is refused at import), so the
    # hostile text goes in the free-text fields; n2 stands for an item stored before labels were matched,
    # whose intended group is still shown (with why it has no accuracy) on Results and in the report
    import_items(db, "names", write_jsonl(folder / "n.jsonl", [
        {"id": "n1", "name": hostile(url, "name"), "race": "Hispanic", "gender": "female",
         "note": hostile(url, "note")},
        {"id": "n2", "name": "Bo", "race": "Black", "gender": "male"}]))
    db.execute("UPDATE items SET data = json_set(data, '$.race', ?), source_line = json_set(source_line, '$.race', ?)"
               " WHERE study_id = 'names' AND item_id = 'n2'", [hostile(url, "race")] * 2)
    import_ratings(db, "names", write_jsonl(folder / "nr.jsonl", [
        {"item_id": i, "rater_id": r, "question": q, "value": v} for i in ("n1", "n2") for r in raters
        for q, v in (("race", "Hispanic"), ("gender", "female"))]))
    create_study(db, "scen", "scenario_select", raters_per_item=2)
    import_items(db, "scen", write_jsonl(folder / "s.jsonl", [{"id": "s1", "scenario": hostile(url, "scenario")}]))
    import_ratings(db, "scen", write_jsonl(folder / "sr.jsonl", [
        {"item_id": "s1", "rater_id": r, "question": "keep", "value": "yes", "comment": hostile(url, "comment")}
        for r in raters]))
    for name in ("pairs", "templates", "names", "scen"):
        configure_study(db, name, status="open")
    db.close()
    return folder


@pytest.fixture(scope="module")
def server(study):
    s = Server(study / "fairval.db")
    yield s
    s.stop()


PAGES = [("Results", "pairs", "Items complete"), ("Results", "templates", "Items complete"),
         ("Results", "names", "Items complete"), ("Results", "scen", "Items complete"),
         ("Calibration", "pairs", "LMRA vs mean human rating"), ("Export", "pairs", "Validated set"),
         ("Export", "templates", "Validated set"), ("Export", "scen", "Validated set"), ("Manage", "pairs", "Manage")]


def test_no_researcher_page_fetches_participant_text(server, browser, listener):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(server.url + "/Results")
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "Items complete")
    for path, study, ready in PAGES:
        page.goto(f"{server.url}/{path}?study={study}")
        wait_text(page, ready, timeout=60_000)
        idle(page)                                        # the whole page drawn, not only its first heading
        assert page.locator("main img, main iframe, main video, main audio").count() == 0, (path, study)
        links = page.locator(f"main a[href^='{listener.url}']")
        assert links.count() == 0, (path, study, links.evaluate_all(
            "ls => ls.map(l => [l.outerHTML.slice(0, 200), l.closest('[data-testid]')?.dataset.testid])"))
    assert listener.hits == []
    page.context.close()


def test_the_report_fetches_nothing_and_shows_text_as_typed(study, browser, listener, tmp_path):
    db = open_db(study / "fairval.db")
    try:
        for name in ("pairs", "templates", "names", "scen"):
            html = write_report(db, name, tmp_path / f"{name}.html")
            page = browser.new_context().new_page()
            page.goto(html.as_uri())
            # proves a fetch does NOT happen: the network quiet (no request for 500 ms) after the load, by which
            # any fetch the report's markup starts has been asked for
            page.wait_for_load_state("networkidle")
            assert page.locator("body img, body iframe").count() == 0
            page.context.close()
            markdown = write_report(db, name, tmp_path / f"{name}.md").read_text()
            assert not re.search(r"(?<!\\)\]\(|(?<!\\)<img|(?<!\\)!\[", markdown)     # no live image, link or tag
            assert "\\!\\[x\\]" in markdown                                           # shown as typed
    finally:
        db.close()
    assert listener.hits == []


FORMULA = ("=", "+", "-", "@", "\t", "\r")


def cells(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [cell for row in csv.reader(f) for cell in row]


def test_every_csv_export_shows_text_as_text(study, tmp_path):
    db = open_db(study / "fairval.db")
    try:
        files = []
        for name in ("pairs", "templates", "names", "scen"):
            export_validated(db, name, tmp_path / f"{name}-valid.csv")
            export_ratings(db, name, tmp_path / f"{name}-ratings.csv")
            files += [tmp_path / f"{name}-valid.csv", tmp_path / f"{name}-ratings.csv"]
        configure_study(db, "pairs", pay_per_judgment=0.5)
        db.execute("UPDATE raters SET source = 'prolific' WHERE study_id = 'pairs'")
        write_bonuses(db, "pairs", tmp_path / "bonuses.csv")
        files.append(tmp_path / "bonuses.csv")
    finally:
        db.close()
    every = [c for f in files for c in cells(f)]
    assert any(c.startswith("'=HYPERLINK") for c in every)                     # the hostile cells are there
    dangerous = [c for c in every if c.startswith(FORMULA) and not _number(c)]
    assert dangerous == []


def _number(cell: str) -> bool:
    try:
        float(cell)
        return True
    except ValueError:
        return False
