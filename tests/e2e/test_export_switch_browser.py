"""Export in a real Chromium: a study picked and "Ratings (.csv)" clicked at once, before the page is
redrawn for it. The previous run's button is still on screen then; whatever a click downloads must be
the study the page now shows, under that study's name, never the previous study's file."""
import csv
import io

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg

from fairval.annotate.material.importers import import_items, import_ratings
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import PASSWORD, Server, idle, wait_text

pytestmark = pytest.mark.e2e
STUDIES = {"alpha": 4, "beta": 7}          # study: items in it (three raters each, two questions)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-export-switch")
    db = open_db(folder / "fairval.db")
    for study, n in STUDIES.items():
        create_study(db, study, "name_perception", raters_per_item=3)
        items = [{"id": f"{study}-{i}", "name": f"Name {i}", "race": "white", "gender": "female"} for i in range(n)]
        import_items(db, study, write_jsonl(folder / f"{study}-items.jsonl", items))
        import_ratings(db, study, write_jsonl(folder / f"{study}-ratings.jsonl", [
            {"item_id": it["id"], "rater_id": f"{study}-r{r}", "question": q, "value": it[q]}
            for it in items for r in range(3) for q in ("race", "gender")]))
    db.close()
    s = Server(folder / "fairval.db")
    yield s
    s.stop()


def stored(server, study: str) -> int:
    db = open_db(server.db_path)
    try:
        return db.execute("SELECT COUNT(*) FROM ratings WHERE study_id = ?", (study,)).fetchone()[0]
    finally:
        db.close()


def picks(frame, study: str) -> bool:
    """Whether a frame the browser sent is a rerun request with the study picker set to `study`."""
    message = BackMsg()
    message.ParseFromString(frame if isinstance(frame, bytes) else frame.encode())
    return message.WhichOneof("type") == "rerun_script" and any(
        w.string_value == study or list(w.string_array_value.data) == [study]
        for w in message.rerun_script.widget_states.widgets)


def rows_of(download) -> list[dict]:
    return list(csv.DictReader(io.StringIO(download.path().read_text(encoding="utf-8"))))


def check(download, study: str, server) -> None:
    """The file is the study's: its name says so, and its rows are all and only that study's ratings."""
    assert download.suggested_filename == f"{study}-ratings.csv"
    rows = rows_of(download)
    assert {r["study_id"] for r in rows} == {study}
    assert {r["rater_id"].split("-")[0] for r in rows} == {study}
    assert len(rows) == stored(server, study)


@pytest.mark.parametrize("attempt", range(5))      # a race: before the fix, about 3 tries in 5 got the wrong file
def test_a_click_right_after_picking_a_study_never_gets_the_previous_study(server, browser, attempt):
    assert stored(server, "alpha") != stored(server, "beta")
    before, after = ("alpha", "beta") if attempt % 2 == 0 else ("beta", "alpha")
    page = browser.new_context(accept_downloads=True).new_page()
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws) if ws.url.endswith("/_stcore/stream") else None)
    page.goto(f"{server.url}/Export?study={before}")
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    wait_text(page, "Raw ratings")
    idle(page)
    downloads = []
    page.on("download", lambda d: downloads.append(d))
    failed = page.get_by_test_id("stDownloadButtonError")
    page.get_by_role("combobox", name="Study").click()
    # the pick has left the browser (its rerun request, naming the new study) before the click, as when a hand
    # clicks a moment after picking: the click lands on the previous run's button, the new run in flight
    page.get_by_role("option", name=after, exact=True).wait_for()
    with sockets[-1].expect_event("framesent", predicate=lambda frame: picks(frame, after)):
        page.evaluate("""async study => {
            const original = WebSocket.prototype.send;
            const sent = new Promise(done => { WebSocket.prototype.send = function (data) {
                WebSocket.prototype.send = original; const result = original.call(this, data); done(); return result; }; });
            [...document.querySelectorAll('[role="option"]')].find(o => o.innerText.trim() === study).click();
            await sent;                                        // the pick's rerun request is on its way
            [...document.querySelectorAll('[data-testid="stDownloadButton"] button')]
                .find(b => b.innerText.trim() === 'Ratings (.csv)').click(); }""", after)
    # the click ends in a file or in the button's error (a stale button is refused); either is waited for
    # by the page's own signals, with a generous bound for a loaded machine
    for _ in range(600):
        if downloads or failed.count():
            break
        page.wait_for_timeout(100)
    assert downloads or failed.count(), "the click got neither a file nor an error"
    for download in downloads:
        check(download, after, server)
    # once the page shows the new study, its button gives that study's file
    idle(page)
    with page.expect_download() as settled:
        page.get_by_role("button", name="Ratings (.csv)").click()
    check(settled.value, after, server)
    for download in downloads:                        # any file that arrived late is checked too
        check(download, after, server)
    page.context.close()
