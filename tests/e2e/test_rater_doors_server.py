"""The rater's own doors of `fairval serve`, tried as a client that reads the source: Streamlit's websocket
protocol with its own protobufs, the answer card's Submit sent as the browser's frontend sends it, and any
payload a lying client likes (issue 55)."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from streamlit.proto.WidgetStates_pb2 import WidgetState

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e.conftest import Server
from tests.e2e.streamlit_client import Tab, connect

ANSWER = {"quality": "4", "yes_positive": "5"}
REFUSED = "This link is not one this study gave out"
NOT_SAVED = "Your last answer was not saved. Please answer every question and press Submit again."
COMMENTED = {"name": "tq_commented", "display": "template", "required_fields": ["filled_template"], "comment": True,
             "questions": [{"id": q, "prompt": q, "options": ["1", "2", "3", "4", "5"], "level": "ordinal"}
                           for q in ("quality", "yes_positive")]}


def _items(folder: Path, n: int = 4) -> Path:
    return write_jsonl(folder / f"items-{uuid.uuid4().hex}.jsonl",
                       [{"id": f"q{i}", "filled_template": f"Question {i}?"} for i in range(n)])


def _studies(folder: Path) -> Path:
    path = folder / "fairval.db"
    db = open_db(path)
    create_study(db, "inhouse", "template_quality", raters_per_item=2, seed=1)
    import_items(db, "inhouse", _items(folder))
    create_study(db, "plain", "template_quality", raters_per_item=2, seed=1)       # no comment box
    import_items(db, "plain", _items(folder))
    create_study(db, "commented", task_definition=COMMENTED, raters_per_item=2, seed=1)
    import_items(db, "commented", _items(folder))
    create_study(db, "whole", "template_quality", raters_per_item=2, seed=1)
    import_items(db, "whole", _items(folder))
    create_study(db, "pausing", "template_quality", raters_per_item=2, seed=1)
    import_items(db, "pausing", _items(folder))
    db.close()
    assert CliRunner().invoke(cli, ["--db", str(path), "study", "set", "inhouse", "signed_links=true"]).exit_code == 0
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = Server(_studies(tmp_path_factory.mktemp("rater-doors")))
    yield running
    running.stop()


def _query(db_path, sql: str, params=()) -> list:
    db = open_db(db_path)
    try:
        return [tuple(r) for r in db.execute(sql, params).fetchall()]
    finally:
        db.close()


def _exceptions(tab: Tab) -> list:
    return [e for e in tab.elements if type(e).__name__ == "Exception"]


def _card(tab: Tab):
    found = [e for e in tab.elements if getattr(e, "component_name", "").endswith("fairval_answer_card")]
    return found[0] if found else None


async def _press(tab: Tab, label: str) -> list:
    press = WidgetState(id=tab.widget(label).id)
    press.trigger_value = True
    return await tab.run([press])


async def _to_first_item(tab: Tab) -> None:
    await tab.run()
    await _press(tab, "I agree to take part")
    await _press(tab, "Start")
    assert _card(tab) is not None, tab.texts()


async def _submit(tab: Tab, payload) -> list:
    """The card's Submit: its trigger, with whatever payload the client chooses to send."""
    trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{_card(tab).id}__events")
    trigger.json_trigger_value = json.dumps([{"event": "submit", "value": payload}])
    return await tab.run([trigger])


def _arrive(url: str, query: str) -> list[str]:
    async def go():
        async with connect(url) as ws:
            tab = Tab(ws, query=query)
            await tab.run()
            return tab.texts()
    return asyncio.run(go())


def test_no_way_into_a_signed_study_without_its_signature(server):
    """Issue 55: PROLIFIC_PID continued as an in-house rater, turned a signed link into another rater, and let
    any new id join a study meant for its list of in-house raters."""
    from fairval.annotate.serving import rater_links
    db = open_db(server.db_path)
    try:
        ana = rater_links.link(db, "http://x", "inhouse", "ana").split("?", 1)[1]
    finally:
        db.close()
    assert any("Consent" in t for t in _arrive(server.url, ana))             # the signed link opens
    for query in ("study=inhouse&PROLIFIC_PID=ana",
                  f"{ana}&PROLIFIC_PID=bob",
                  "study=inhouse&PROLIFIC_PID=5f0c0ffee&STUDY_ID=PS&SESSION_ID=s1",
                  "study=inhouse&rater=ana"):
        said = _arrive(server.url, query)
        assert any(REFUSED in t for t in said) and not any("Consent" in t for t in said), (query, said)
    assert _query(server.db_path, "SELECT rater_id, source FROM raters WHERE study_id = 'inhouse'") == [
        ("ana", "signed")]


def test_a_submit_that_reruns_the_whole_page_is_stored_once_without_an_error(server):
    """The answer card is drawn in the rater's fragment, and a browser's Submit reruns only that; a Submit that
    reruns the whole page (a client naming no fragment; a browser whose session moved to another worker) is
    stored once and the next item drawn, with no Streamlit exception (Streamlit refuses a fragment's own
    rerun inside a whole-page run: the CI run of 2026-11-28 met that on every such Submit)."""
    async def go():
        async with connect(server.url) as ws:
            tab = Tab(ws, query="study=whole&rater=whole-page")
            await tab.run()
            for label in ("I agree to take part", "Start"):         # each press, too, a whole-page run
                press = WidgetState(id=tab.widget(label).id)
                press.trigger_value = True
                await tab.run([press], fragment="")
            item = json.loads(_card(tab).json)["item"]
            trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{_card(tab).id}__events")
            trigger.json_trigger_value = json.dumps([{"event": "submit", "value": {
                "item": item, "answers": ANSWER, "comment": None, "nonce": "w1"}}])
            await tab.run([trigger], fragment="")
            return item, _exceptions(tab), _card(tab)
    item, exceptions, card = asyncio.run(go())
    assert not exceptions, exceptions
    assert card is not None and json.loads(card.json)["item"] != item
    assert _query(server.db_path, "SELECT item_id, question, value FROM ratings WHERE rater_id = 'whole-page' "
                                  "ORDER BY rating_id") == [(item, q, v) for q, v in ANSWER.items()]


def test_a_browsers_submit_draws_the_item_it_held_and_a_pause_made_meanwhile_at_once(server):
    """A browser's Submit reruns the rater's fragment, whose page takes the study and the next item from the
    Submit's own transaction, not from reads of its own (issue 58): the card drawn is the slot the store holds
    for the rater; a pause made by another process between two Submits is what the second Submit's page says,
    and its answer is kept."""
    async def go():
        async with connect(server.url) as ws:
            tab = Tab(ws, query="study=pausing&rater=browser")
            await _to_first_item(tab)
            first = json.loads(_card(tab).json)["item"]
            await _submit(tab, {"item": first, "answers": ANSWER, "comment": None, "nonce": "b1"})
            second = json.loads(_card(tab).json)["item"]
            held = _query(server.db_path, "SELECT item_id FROM assignments WHERE study_id = 'pausing' AND "
                                          "rater_id = 'browser' AND answered_at IS NULL")
            paused = CliRunner().invoke(cli, ["--db", str(server.db_path), "study", "set", "pausing", "status=paused"])
            assert paused.exit_code == 0, paused.output
            await _submit(tab, {"item": second, "answers": ANSWER, "comment": None, "nonce": "b2"})
            return first, second, held, tab.texts(), _card(tab), _exceptions(tab)
    first, second, held, said, card, exceptions = asyncio.run(go())
    assert not exceptions, exceptions
    assert second != first and held == [(second,)]
    assert card is None and any("This study is paused" in t for t in said), said
    assert _query(server.db_path, "SELECT item_id, COUNT(*) FROM ratings WHERE rater_id = 'browser' GROUP BY item_id "
                                  "ORDER BY item_id") == sorted([(first, 2), (second, 2)])


def _db_bytes(path) -> int:
    return sum(os.path.getsize(p) for p in (str(path), f"{path}-wal") if os.path.exists(p))


def test_one_submit_cannot_grow_the_database_past_64_kib(server):
    """Issue 55: a 15 MiB comment in a study without a comment box was stored twice (5 → 61 MiB). Now the
    comment is refused where no box asks for it, capped where one does, and stored once."""
    huge = "x" * (15 * 2**20)

    async def go():
        async with connect(server.url) as ws:
            plain = Tab(ws, query="study=plain&rater=writer")
            await _to_first_item(plain)
            item = json.loads(_card(plain).json)["item"]
            before = _db_bytes(server.db_path)
            await _submit(plain, {"item": item, "answers": ANSWER, "comment": huge, "nonce": "n1"})
            assert any(NOT_SAVED in t for t in plain.texts()) and not _exceptions(plain)
            grown_plain = _db_bytes(server.db_path) - before
        async with connect(server.url) as ws:
            tab = Tab(ws, query="study=commented&rater=writer")
            await _to_first_item(tab)
            card = json.loads(_card(tab).json)
            assert card["comment_limit"] == 2000 and "{count}" in card["comment_count"]
            before = _db_bytes(server.db_path)
            await _submit(tab, {"item": card["item"], "answers": ANSWER, "comment": huge, "nonce": "n2"})
            assert any(NOT_SAVED in t for t in tab.texts()) and not _exceptions(tab)
            grown_huge = _db_bytes(server.db_path) - before
            await _submit(tab, {"item": card["item"], "answers": ANSWER, "comment": "é" * 2000, "nonce": "n3"})
            assert not any(NOT_SAVED in t for t in tab.texts()), tab.texts()
            return grown_plain, grown_huge, card["item"]
    grown_plain, grown_huge, item = asyncio.run(go())
    assert grown_plain <= 64 * 1024 and grown_huge <= 64 * 1024, (grown_plain, grown_huge)
    assert _query(server.db_path, "SELECT COUNT(*) FROM ratings WHERE study_id = 'plain'") == [(0,)]
    stored = _query(server.db_path, "SELECT question, comment FROM ratings WHERE study_id = 'commented' "
                                    "AND item_id = ? ORDER BY rating_id", [item])
    assert stored == [("quality", "é" * 2000), ("yes_positive", None)]           # the comment once


@pytest.mark.parametrize("payload", [
    {"answers": [["quality", "4"], ["yes_positive", "5"]], "comment": None},
    {"answers": ANSWER, "comment": 42},
    {"answers": ANSWER, "comment": {"text": "hi"}},
    {"answers": {"quality": ["4"], "yes_positive": {"v": 5}}},
], ids=["answers-list", "comment-number", "comment-object", "values-list-object"])
def test_a_malformed_submit_is_refused_in_one_line(server, payload):
    """Issue 55: answers as a list, or a comment that is a number or an object, gave an AttributeError
    traceback on the sender's page."""
    rater = f"shaper-{uuid.uuid4().hex[:8]}"

    async def go():
        async with connect(server.url) as ws:
            tab = Tab(ws, query=f"study=commented&rater={rater}")
            await _to_first_item(tab)
            item = json.loads(_card(tab).json)["item"]
            await _submit(tab, {"item": item, "nonce": "m", **payload})
            return tab, item
    tab, item = asyncio.run(go())
    assert not _exceptions(tab), [e.message for e in _exceptions(tab)]
    assert [t for t in tab.texts() if "not saved" in t] == [NOT_SAVED]
    assert json.loads(_card(tab).json)["item"] == item                     # the same item, Submit offered again
    assert _query(server.db_path, "SELECT COUNT(*) FROM ratings WHERE rater_id = ?", [rater]) == [(0,)]


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs for the database (root only: skipped with the reason elsewhere)."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a small filesystem here ({mounted.stderr.decode().strip()}); this check needs root")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_keeps_the_answer_on_the_page_and_stores_it_once_space_returns(small_disk, tmp_path):
    """Issue 55: a Submit on a full disk replaced the page by a fairval.errors.NoSpace traceback naming the
    database's path. Now the rater reads one sentence, the answer waits on the page, and the page's next run
    after space returns stores it, once."""
    from fairval.ui.rater_submit import ANSWER_WAITS
    db_path = small_disk / "fairval.db"
    db = open_db(db_path)
    create_study(db, "plain", "template_quality", raters_per_item=2, seed=1)
    import_items(db, "plain", _items(tmp_path))
    db.close()
    running = Server(db_path)
    try:
        async def go():
            async with connect(running.url) as ws:
                tab = Tab(ws, query="study=plain&rater=filler")
                await _to_first_item(tab)
                item = json.loads(_card(tab).json)["item"]
                filler = _fill(small_disk)
                await _submit(tab, {"item": item, "answers": ANSWER, "comment": None, "nonce": "d1"})
                full = (list(tab.texts()), _exceptions(tab))
                await tab.run()                                    # the page's timer: the disk is still full
                still = list(tab.texts())
                filler.unlink()
                await tab.run()                                    # the timer's next run, with space again
                after = (list(tab.texts()), json.loads(_card(tab).json))
                await tab.run()
                return item, full, still, after
        item, (full_texts, full_exceptions), still, (after_texts, after_card) = asyncio.run(go())
    finally:
        running.stop()
    assert not full_exceptions and ANSWER_WAITS in full_texts, full_texts
    assert not any("NoSpace" in t or str(small_disk) in t or "Traceback" in t for t in full_texts + still)
    assert ANSWER_WAITS in still
    assert ANSWER_WAITS not in after_texts and after_card["item"] != item and "Answer saved" in after_card["status"]
    assert _query(db_path, "SELECT item_id, question, value FROM ratings WHERE rater_id = 'filler' "
                           "ORDER BY rating_id") == [(item, q, v) for q, v in ANSWER.items()]


def test_a_second_tab_that_answers_second_is_told_its_answer_was_not_saved(server):
    """Issue 55: the same link open in two tabs, the second drawn straight at the item; the first answers, then
    the second answers differently. Its Submit fired with nothing the page could read and it was shown the next
    item as if all were well; now it is told its answer was not saved, and the first answer is the one kept."""
    async def go():
        async with connect(server.url) as ws1, connect(server.url) as ws2:
            first = Tab(ws1, query="study=plain&rater=two-tabs")
            await _to_first_item(first)
            second = Tab(ws2, query="study=plain&rater=two-tabs")
            await second.run()                                  # a reload or a new tab: the same item
            item = json.loads(_card(first).json)["item"]
            assert json.loads(_card(second).json)["item"] == item
            await _submit(first, {"item": item, "answers": ANSWER, "comment": None, "nonce": "t1"})
            await _submit(second, {"item": item, "answers": {"quality": "1", "yes_positive": "1"}, "comment": None,
                                   "nonce": "t2"})
            return item, second.texts(), json.loads(_card(second).json)
    item, texts, card = asyncio.run(go())
    assert any("this one was not saved" in t for t in texts), texts
    assert "Answer saved" not in card["status"] and card["item"] != item
    assert _query(server.db_path, "SELECT question, value FROM ratings WHERE rater_id = 'two-tabs'") == list(
        ANSWER.items())


@pytest.mark.parametrize("fragment", [None, ""], ids=["fragment", "whole-page"])
def test_a_lost_postgresql_server_keeps_the_answer_on_the_page_and_it_is_stored_once_it_is_back(tmp_path, fragment):
    """The database stops (a PostgreSQL restart) between a rater's page and their Submit: one sentence, no
    traceback, the answer waits on the page and is stored once when the server is back. Also for a Submit that
    reruns the whole page (a client naming no fragment, a session moved to another worker): the card still holds
    the answer, so the rater is told it is kept, not that the server cannot store or show answers."""
    from fairval.ui.rater import UNAVAILABLE
    from fairval.ui.rater_submit import ANSWER_WAITS
    from tests.postgres import server_binaries
    if server_binaries() is None:
        pytest.skip("PostgreSQL's server is not installed (make test installs it)")
    from tests.postgres import RestartableCluster
    cluster = RestartableCluster()
    running = None
    try:
        url = cluster.create_database("doors")
        db = open_db(url)
        create_study(db, "plain", "template_quality", raters_per_item=2, seed=1)
        import_items(db, "plain", _items(tmp_path))
        db.close()
        running = Server(url)

        async def go():
            async with connect(running.url) as ws:
                tab = Tab(ws, query="study=plain&rater=pg-rater")
                await _to_first_item(tab)
                item = json.loads(_card(tab).json)["item"]
                cluster.halt()
                trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{_card(tab).id}__events")
                trigger.json_trigger_value = json.dumps([{"event": "submit", "value": {
                    "item": item, "answers": ANSWER, "comment": None, "nonce": "p1"}}])
                await tab.run([trigger], fragment=fragment)
                away = (list(tab.texts()), _exceptions(tab))
                await tab.run()                                   # the page's timer, the server still away
                away[0].extend(tab.texts())
                cluster.start()
                await tab.run()                                   # the page's timer, the server back
                await tab.run()
                return item, away, json.loads(_card(tab).json), list(tab.texts())
        item, (away_texts, away_exceptions), card, after = asyncio.run(go())
        assert not away_exceptions and ANSWER_WAITS in away_texts and UNAVAILABLE not in away_texts, away_texts
        assert not any("Traceback" in t or "psycopg" in t for t in away_texts)
        assert card["item"] != item and ANSWER_WAITS not in after
        assert _query(url, "SELECT item_id, question, value FROM ratings WHERE rater_id = 'pg-rater' "
                           "ORDER BY rating_id") == [(item, q, v) for q, v in ANSWER.items()]
    finally:
        if running is not None:
            running.stop()
        cluster.stop()


@pytest.mark.parametrize("fragment", [None, ""], ids=["fragment", "whole-page"])
def test_a_submit_sent_again_is_told_its_answer_is_saved(server, fragment):
    """A client that repeats its last message (the card's Submit sent again once the next item is drawn) was
    told "already answered in another tab … not saved", though its answer is stored, once. It is told it is
    saved, and goes on; the answer is stored once, and a second tab's answer is still told it was not saved."""
    rater = f"again-{fragment is None}"

    async def go():
        async with connect(server.url) as ws:
            tab = Tab(ws, query=f"study=plain&rater={rater}")
            await _to_first_item(tab)
            card = _card(tab)
            item = json.loads(card.json)["item"]
            payload = {"item": item, "answers": ANSWER, "comment": None, "nonce": "again"}
            await _submit(tab, payload)
            nxt = json.loads(_card(tab).json)
            again = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{card.id}__events")
            again.json_trigger_value = json.dumps([{"event": "submit", "value": payload}])
            await tab.run([again], fragment=fragment)
            return item, nxt, tab.texts(), json.loads(_card(tab).json)
    item, nxt, texts, card = asyncio.run(go())
    assert not any("not saved" in t for t in texts), texts
    assert card["item"] == nxt["item"] != item and card["status"] == "Answer saved."
    assert _query(server.db_path, "SELECT item_id, question, value FROM ratings WHERE rater_id = ?", (rater,)) == [
        (item, q, v) for q, v in ANSWER.items()]


def test_a_submit_sent_again_after_the_study_closed_is_not_told_it_was_lost(tmp_path):
    """The same Submit again after the study closed meanwhile: its answer is stored, so the rater is not told
    "not saved: the study closed before it arrived"."""
    running = Server(_studies(tmp_path))
    try:
        async def go():
            async with connect(running.url) as ws:
                tab = Tab(ws, query="study=plain&rater=late-again")
                await _to_first_item(tab)
                item = json.loads(_card(tab).json)["item"]
                payload = {"item": item, "answers": ANSWER, "comment": None, "nonce": "first"}
                await _submit(tab, payload)
                assert CliRunner().invoke(cli, ["--db", str(running.db_path), "study", "set", "plain",
                                                "status=closed"]
                                          ).exit_code == 0
                await _submit(tab, dict(payload, nonce="second"))
                return item, tab.texts()
        item, texts = asyncio.run(go())
    finally:
        running.stop()
    assert not any("not saved" in t for t in texts), texts
    assert _query(running.db_path, "SELECT item_id FROM ratings WHERE rater_id = 'late-again'") == [(item,)] * 2


def test_a_submit_naming_a_fragment_the_session_never_had_is_answered(tmp_path):
    """A client's Submit naming a fragment id its session never had: Streamlit drops such a request before any
    script runs (AppSession.request_rerun) and sends nothing back, so the client waited forever. fairval's
    server (server/fragments.py) runs it as a rerun of the whole page, as for a client naming no fragment: it is
    answered, the answer is stored once and the next item is drawn with "Answer saved". Its own server: the
    module's studies are rated by the tests before it, so a next item there is not certain."""
    running = Server(_studies(tmp_path))

    async def go():
        async with connect(running.url) as ws:
            tab = Tab(ws, query="study=plain&rater=forged-fragment")
            await _to_first_item(tab)
            item = json.loads(_card(tab).json)["item"]
            trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{_card(tab).id}__events")
            trigger.json_trigger_value = json.dumps([{"event": "submit", "value": {
                "item": item, "answers": ANSWER, "comment": None, "nonce": "forged"}}])
            await tab.run([trigger], fragment="a-fragment-never-drawn")    # answered: the client's wait ends
            card = _card(tab)
            assert card is not None, f"no answer card after the forged Submit; the page says {tab.texts()}"
            return item, json.loads(card.json), tab.texts()
    try:
        item, card, texts = asyncio.run(go())
    finally:
        running.stop()
    assert card["item"] != item and card["status"] == "Answer saved."
    assert not any("not saved" in t for t in texts), texts
    assert _query(running.db_path, "SELECT item_id, question, value FROM ratings WHERE rater_id = 'forged-fragment'"
                  ) == [(item, q, v) for q, v in ANSWER.items()]
