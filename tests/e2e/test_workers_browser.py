"""Raters in real Chromium, split across worker processes: `fairval serve --workers 2` on one SQLite file,
and two `fairval serve` processes on one PostgreSQL database. Every answer a rater saw acknowledged is
stored exactly once, no item gets more raters than its target, and a rater moved to another worker
after a reconnect resumes at the same item. A worker killed by its PID around a Submit: the rater's
answer is stored once and the page moves on by itself, with no reload."""
import re

import pytest

from bench.launch import kill, worker_ports
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.e2e import rater_bot as bot
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e
TARGET = 2
ITEMS = {f"q{i}": f"Question {i} for the workers test: should the request be approved?" for i in range(5)}
ID_OF = {text: item for item, text in ITEMS.items()}


def make_study(location, folder) -> None:
    db = open_db(location)
    create_study(db, "w", "template_quality", raters_per_item=TARGET, seed=2)
    import_items(db, "w", write_jsonl(folder / "items.jsonl", [{"id": i, "filled_template": t} for i, t in ITEMS.items()]))
    db.close()


def worker_of(page) -> str:
    return next(c["value"] for c in page.context.cookies() if c["name"] == "fairval_worker")


def finished(page) -> bool:
    return bool(page.get_by_text("you have finished").count() or page.get_by_text("No items left").count())


def answer_one(page) -> str:
    """Answer the item on screen; return its id once the page acknowledges it (progress moves on)."""
    done = int(re.match(r"(\d+) of", page.get_by_text(re.compile(r"^\d+ of \d+ done$")).first.inner_text()).group(1))
    item = ID_OF[bot.item_text(page)]
    bot.answer_template(page, "Somewhat agree", "Strongly agree")
    page.get_by_text(re.compile(rf"^{done + 1} of \d+ done$")).or_(
        page.get_by_text("you have finished")).first.wait_for(timeout=30_000)
    return item


def crowd(pages: dict) -> dict[str, list[str]]:
    """Raters take turns until each is finished; returns what each saw acknowledged."""
    acknowledged = {rater: [] for rater in pages}
    active = dict(pages)
    while active:
        for rater, page in list(active.items()):
            bot.settle(page)
            if finished(page):
                del active[rater]
                continue
            acknowledged[rater].append(answer_one(page))
    return acknowledged


def check_database(location, acknowledged: dict) -> None:
    db = open_db(location)
    stored = db.execute("SELECT rater_id, item_id, COUNT(*) FROM ratings GROUP BY rater_id, item_id").fetchall()
    assert sorted((r, i) for r, i, _ in stored) == sorted((r, i) for r, items in acknowledged.items() for i in items)
    assert {n for _, _, n in stored} == {2}                       # both questions of each judgment, once
    per_item = dict(db.execute("SELECT item_id, COUNT(DISTINCT rater_id) FROM ratings GROUP BY item_id").fetchall())
    assert per_item == dict.fromkeys(ITEMS, TARGET)               # filled, and none over its target
    db.close()


def onboard(browser, url: str, rater: str):
    page = browser.new_context().new_page()
    bot.open_link(page, f"{url}/?study=w&rater={rater}")
    bot.consent(page)
    bot.start(page)
    page.get_by_text(re.compile(r"^0 of \d+ done$")).wait_for(timeout=30_000)
    return page


def test_two_workers_on_one_sqlite_file(browser, tmp_path):
    location = tmp_path / "fairval.db"
    make_study(location, tmp_path)
    server = Server(location, workers=2)
    try:
        pages = {f"r{k}": onboard(browser, server.url, f"r{k}") for k in range(4)}
        assert {worker_of(p) for p in pages.values()} == {"w0", "w1"}          # the crowd is split

        # r0 is moved to the other worker mid-item (as after a reconnect): the same item comes back
        mover = pages["r0"]
        before = bot.item_text(mover)
        other = "w1" if worker_of(mover) == "w0" else "w0"
        mover.context.add_cookies([{"name": "fairval_worker", "value": other, "url": server.url}])
        response = mover.reload()
        assert response.headers["x-fairval-worker"] == other
        assert bot.item_text(mover) == before

        check_database(location, crowd(pages))
    finally:
        server.stop()


@pytest.mark.parametrize("when", ["before the answers are chosen", "as Submit is pressed"])
def test_a_worker_killed_around_a_submit_needs_no_reload(browser, tmp_path, when):
    """Killed first: the browser reconnects to the other worker, whose new session gets the Submit as its
    first message. Killed as Submit is pressed: Streamlit drops the message ("Cannot send rerun
    backMessage when disconnected") and reruns nothing after reconnecting; the card sends it again.
    The page goes on with the other worker, or with the killed one's replacement if the supervisor has it
    back before the browser reconnects (a loaded machine): either way a live process, not the killed one."""
    location = tmp_path / "fairval.db"
    make_study(location, tmp_path)
    server = Server(location, workers=2)
    try:
        page = onboard(browser, server.url, "k0")
        item = ID_OF[bot.item_text(page)]
        navigations, sockets = [], []
        page.on("framenavigated", lambda frame: navigations.append(frame.url))
        page.on("websocket", lambda socket: sockets.append(socket.url))
        victim = worker_of(page)
        victim_pid = worker_ports(server.process.pid)[victim][1]
        if when.startswith("before"):
            kill(server.process.pid, victim)
        page.get_by_role("button", name=re.compile(r"^Somewhat agree")).nth(0).click()
        page.get_by_role("button", name=re.compile(r"^Strongly agree")).nth(1).click()
        if when.startswith("as"):
            kill(server.process.pid, victim)
        page.get_by_role("button", name="Submit").click()
        page.get_by_text(re.compile(r"^1 of \d+ done$")).wait_for(timeout=60_000)   # moved on by itself
        assert navigations == []                                                   # no reload
        assert sockets                                             # the page reconnected by itself...
        assert worker_ports(server.process.pid)[worker_of(page)][1] != victim_pid  # ...to a live worker
    finally:
        server.stop()
    db = open_db(location)
    stored = db.execute("SELECT item_id, question, value FROM ratings WHERE rater_id = 'k0'").fetchall()
    db.close()
    assert sorted(stored) == [(item, "quality", "4"), (item, "yes_positive", "5")]


def test_two_servers_on_one_postgresql_database(browser, postgres_cluster, tmp_path):
    location = postgres_cluster.create_database("e2e")
    make_study(location, tmp_path)
    servers = [Server(location), Server(location)]
    try:
        pages = {f"p{k}": onboard(browser, servers[k % 2].url, f"p{k}") for k in range(4)}
        check_database(location, crowd(pages))
    finally:
        for server in servers:
            server.stop()
