"""A saturated server: participants wait in line, in order, on a page that says their place (issue 58). The
capacity, the clock and the worker's gate are injected; nothing races the wall clock."""
import sqlite3
import threading

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.annotate.serving import admission
from fairval.ui.i18n import translator
from fairval.ui.line import BUSY, IN_LINE
from tests.conftest import write_jsonl
from tests.ui.apptest import rater_app, titles

pytestmark = pytest.mark.both_backends


class Clock:
    def __init__(self, at: float = 1_000_000.0):
        self.at = at

    def __call__(self) -> float:
        return self.at


@pytest.fixture
def clock(monkeypatch):
    now = Clock()
    monkeypatch.setattr(admission, "clock", now)
    monkeypatch.setattr(admission, "_gate", admission.WorkGate(2, clock=now))
    return now


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "launch", "template_quality", raters_per_item=3, max_items_per_rater=2, language="de")
    import_items(db, "launch", write_jsonl(tmp_path / "i.jsonl",
                                           [{"id": f"q{k}", "filled_template": f"Frage {k}?"} for k in range(6)]))
    return db


def place_of(at) -> int | None:
    """The place the line page says, read from its sentence in the study's language (German here)."""
    import re
    for text in (m.value for m in at.markdown):
        found = re.search(r"Nummer (\d+)", text)
        if found:
            return int(found.group(1))
    return None


def arrive(who: str):
    return rater_app(study="launch", PROLIFIC_PID=who, STUDY_ID="L1", SESSION_ID=f"s-{who}")


def test_past_its_capacity_the_server_shows_the_line_and_lets_in_from_the_front(study, clock, monkeypatch):
    monkeypatch.setenv("FAIRVAL_MOST_ACTIVE", "2")
    de = translator("de")
    first, second = arrive("P1"), arrive("P2")
    assert titles(first) == titles(second) == [de("Consent")]
    third = arrive("P3")
    clock.at += 1
    fourth = arrive("P4")
    assert titles(third) == titles(fourth) == [de(IN_LINE)]
    assert (place_of(third), place_of(fourth)) == (1, 2)
    assert not third.button and not third.text_input          # nothing to press or type: no key is taken
    # a reload keeps the place: P3 is still first, not behind P4
    clock.at += 1
    assert place_of(arrive("P3")) == 1
    # P1 declines: a place is free, and the front of the line (P3, not P4 who asks first) is let in
    first.button(key="consent-no").click().run()
    clock.at += 1
    assert place_of(fourth.run()) == 1                       # P4 moved up, and still waits
    assert titles(third.run()) == [de("Consent")]
    # P2 is not seen for the active window: their place goes to P4
    third.button(key="consent-yes").click().run()
    clock.at += admission.ACTIVE_SECONDS - 2
    third.run()                                                # P3 renews their place by a page
    clock.at += 3
    assert titles(fourth.run()) == [de("Consent")]
    # once let in, always in: P2 comes back after all with the same link (another tab, another worker)
    assert titles(arrive("P2")) != [de(IN_LINE)]


def test_a_worker_whose_runs_wait_for_their_turn_takes_nobody_new_until_they_do_not(study, clock, monkeypatch):
    gate = admission._gate
    taken, release = threading.Barrier(3), threading.Event()

    def hold() -> None:                                        # a run on its own thread, as Streamlit's are
        with gate.turn():
            taken.wait()
            release.wait()

    holds = [threading.Thread(target=hold) for _ in range(2)]
    for holder in holds:
        holder.start()
    taken.wait()                                               # both turns of the gate taken

    def third_run() -> None:
        with gate.turn():
            pass

    waited = threading.Thread(target=third_run)
    waited.start()
    while gate.waiting == 0:                                   # the third run is parked in the gate
        pass
    clock.at += 1.5
    assert gate.saturated()
    release.set()                                              # its turn comes after 1.5 s of waiting
    for holder in holds:
        holder.join()
    waited.join()
    assert gate.saturated()                                    # lately saturated: still nobody new
    assert titles(arrive("P1")) == [translator("de")(IN_LINE)]
    clock.at += admission.RECENT_SECONDS
    assert not gate.saturated()
    assert titles(arrive("P1")) == [translator("de")("Consent")]


def test_the_gate_lets_runs_through_in_the_order_they_came():
    gate, order = admission.WorkGate(1), []
    holder = gate.turn()
    holder.__enter__()

    def run(name: str) -> None:
        with gate.turn():
            order.append(name)

    threads = []
    for name in "abcde":
        threads.append(threading.Thread(target=run, args=(name,)))
        threads[-1].start()
        while gate.waiting < len(threads):                     # each is parked before the next comes
            pass
    holder.__exit__(None, None, None)
    for thread in threads:
        thread.join()
    assert order == list("abcde")


def test_a_fragment_inside_the_pages_run_takes_no_second_turn_and_its_own_rerun_takes_one():
    """The rater's steps are a fragment: drawn inside the page's run (which holds a turn) they go on at once,
    even when every turn is held; rerun alone on another thread they wait their turn like a page's run."""
    gate = admission.WorkGate(1)
    with gate.turn(), gate.turn():              # nested on one thread: no deadlock, one turn held
        assert gate.waiting == 0
        entered = threading.Event()

        def rerun() -> None:
            with gate.turn():
                entered.set()

        other = threading.Thread(target=rerun)
        other.start()
        while gate.waiting < 1:                 # the other thread's run is parked behind the held turn
            pass
        assert not entered.is_set()
    other.join(timeout=60)
    assert entered.is_set()


def test_a_lock_held_too_long_is_a_wait_in_line_not_the_stores_warning(db, db_path, study, clock):
    """SQLite's busy timeout passed (another writer held the file): the participant reads that they wait, in the
    study's language, and the page tries again by itself; not "the server cannot store or show answers"."""
    if "://" in str(db_path):
        pytest.skip("SQLite's file lock")
    from streamlit.testing.v1 import AppTest

    from fairval.store.engine import Connection
    from tests.conftest import ROOT
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")                          # another worker's write, holding the lock
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
        at.query_params["study"], at.query_params["PROLIFIC_PID"] = "launch", "P1"
        at.session_state["rater_language"] = "de"
        impatient = sqlite3.connect(db_path, timeout=0, isolation_level=None, check_same_thread=False)
        at.session_state["_fairval_db"] = (str(db_path), Connection(impatient, str(db_path)))
        at.run()
        assert not at.warning
        assert titles(at) == [translator("de")(IN_LINE)] and [i.value for i in at.info] == [translator("de")(BUSY)]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert titles(at.run()) == [translator("de")("Consent")]  # the lock gone, the page goes on


def test_the_line_page_asks_less_often_further_back():
    assert admission.poll_seconds(0) == 3
    assert admission.poll_seconds(0) < admission.poll_seconds(100) <= 20



def test_a_waiting_line_page_goes_on_when_the_line_reaches_it_and_the_worker_has_room():
    """The line page's rerun waits for a place, not for its timer: it goes to the store again once enough were
    let in since its last look for the line's front batch to reach it, and only while the worker has room."""
    moves = admission.LineMoves()
    since = moves.total                     # its last look: 5 waiting before it
    moves.let_in(3)                         # 2 still ahead: the front batch of 2 does not reach it
    assert moves.wait_for_turn(5, since, 0.05, lambda: True, batch=2) is False
    moves.let_in(1)                         # 1 ahead: within the front batch, but this worker has no room
    assert moves.wait_for_turn(5, since, 0.05, lambda: False, batch=2, step=0.01) is False
    assert moves.wait_for_turn(5, since, 0.05, lambda: True, batch=2) is True
    # at the front with room, its last look found every place taken: it waits for a place to be freed here
    since, held = moves.total, moves.freed
    assert moves.wait_for_turn(0, since, 0.05, lambda: True, batch=2, held=held) is False
    moves.free()                            # a participant finished
    assert moves.wait_for_turn(0, since, 0.05, lambda: True, batch=2, held=held) is True
    # parked further back, it is woken by the let-in that reaches it, long before its timeout
    woke: list[bool] = []
    since = moves.total
    parked = threading.Thread(target=lambda: woke.append(moves.wait_for_turn(3, since, 600, lambda: True, batch=2)))
    parked.start()
    moves.let_in(1)                         # 2 ahead: not yet
    moves.let_in(1)
    parked.join(timeout=120)
    assert woke == [True]


def test_the_place_is_said_in_a_polite_live_region_at_every_tick(study, clock, monkeypatch):
    """A screen reader hears the place change: it sits in one role=status region, the fragment's first
    element from the first draw on, so each tick updates that region rather than drawing another."""
    monkeypatch.setenv("FAIRVAL_MOST_ACTIVE", "1")
    first = arrive("P1")
    arrive("P2")
    clock.at += 1
    waiting = arrive("P3")

    def region(at) -> str:
        regions = [m.value for m in at.markdown if 'role="status"' in m.value]
        assert len(regions) == 1, [m.value for m in at.markdown]
        assert 'aria-live="polite"' in regions[0]
        return regions[0]

    assert "Nummer 2 " in region(waiting)
    first.button(key="consent-no").click().run()             # a place is free: P2 goes in, P3 moves up
    clock.at += 1
    assert "Nummer 1 " in region(waiting.run())


def test_one_browser_session_holds_one_place_however_many_ids_it_sends(study, clock, monkeypatch):
    """A client that lies reruns its one session with a new made-up participant ID each time (the query string
    is the client's to send): each new ID gives up the last one's place, so the session never holds two and a
    real participant elsewhere gets in (issue 58)."""
    monkeypatch.setenv("FAIRVAL_MOST_ACTIVE", "2")
    de = translator("de")
    liar = arrive("fake0")
    for k in range(1, 6):
        clock.at += 1
        liar.query_params["PROLIFIC_PID"] = f"fake{k}"
        liar.query_params["SESSION_ID"] = f"s-fake{k}"
        assert titles(liar.run()) == [de("Consent")]
    clock.at += 1
    assert titles(arrive("real")) == [de("Consent")]       # one place is the liar's, the other the real one's
    clock.at += 1
    assert titles(arrive("third")) == [de(IN_LINE)]        # the cap still holds
