"""Admission (issue 58): when the server is saturated, a participant waits in order on a line page that goes
on by itself, never meets the store's warning.

Two bounds, each cheap to keep:

- Work, in each worker process: at most `runs_at_once()` rater-page runs at a time (WorkGate), the others
  wait their turn in arrival order, parked on a lock. Streamlit gives every session its own thread in one
  process, so hundreds of runs at once share one GIL: each write transaction then lasts hundreds of thread
  switches, and the writes queued behind it pass SQLite's busy timeout. A few runs at a time finish theirs
  in milliseconds; the rest wait without costing CPU.
- Participants, across workers and hosts, in the database (store/admissions.py): at most `capacity()`
  active participants, and nobody new while this worker's runs wait longer than SATURATED_WAIT for their
  turn. Whoever arrives then takes a ticket, sees their place in line, and is let in from the front. A
  participant let in keeps it (a reload, another worker, a later visit with the same link): the ticket is
  the study's and the participant's, not the browser session's.

Nothing here imports Streamlit: ui/line.py draws the line page; `clock` is read at call time so a test can
set it.
"""
from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from fairval.store import admissions
from fairval.store.engine import Connection

ACTIVE_SECONDS = 300      # a participant let in holds a place while their pages come at least this often
CONSENT_SECONDS = 180    # ... and one who has not consented, this long after being let in (made-up IDs, issue 58)
WAITING_SECONDS = 60      # a waiting ticket not asked about for this long is passed over (its holder left)
TOUCH_SECONDS = 30        # how often a participant's pages renew their place (one small write)
RENEW_SECONDS = 20        # ... and a waiting one's, while this worker has no room (else its asks only read)
SATURATED_WAIT = 1.0      # a run that waited this long for its turn: this worker takes nobody new just now
RECENT_SECONDS = 10       # ... for this long after it
PACE_SECONDS = 120        # the line's pace (for the wait it says) is measured over this window
PER_CORE = 300            # participants active at once per core, unless FAIRVAL_MOST_ACTIVE says otherwise
RUNS_AT_ONCE = 4          # rater-page runs at a time per worker, unless FAIRVAL_RUNS_AT_ONCE says otherwise

clock: Callable[[], float] = time.time


def cores() -> int:
    """The cores this process may run on (a container's or taskset's share, not the machine's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:                      # not Linux
        return os.cpu_count() or 1


def _setting(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    return int(raw) if raw.strip().isdigit() and int(raw) > 0 else default


def capacity() -> int:
    """Participants active at once, on every worker together (`fairval serve --most-active`)."""
    return _setting("FAIRVAL_MOST_ACTIVE", PER_CORE * cores())


def runs_at_once() -> int:
    return _setting("FAIRVAL_RUNS_AT_ONCE", RUNS_AT_ONCE)


class WorkGate:
    """At most `runs` holders at a time; the others wait in the order they came (each on its own event,
    handed the turn by the one leaving, so nobody overtakes)."""

    def __init__(self, runs: int, clock: Callable[[], float] = time.monotonic):
        self.runs, self.clock = runs, clock
        self._lock = threading.Lock()
        self._free = runs
        self._queue: deque[tuple[threading.Event, float]] = deque()
        self._last_wait = (0.0, float("-inf"))       # (seconds waited, when the turn came)
        self._holding = threading.local()            # a thread inside its turn: a nested turn is the same one

    @contextmanager
    def turn(self) -> Iterator[None]:
        # The rater's steps are a fragment drawn inside the page's run (which holds a turn) and rerun alone
        # on a press (which takes one): nested, the inner call must not wait for a second turn of its own.
        if getattr(self._holding, "inside", False):
            yield
            return
        self._holding.inside = True
        try:
            with self._one_turn():
                yield
        finally:
            self._holding.inside = False

    @contextmanager
    def _one_turn(self) -> Iterator[None]:
        came = self.clock()
        with self._lock:
            if self._free > 0 and not self._queue:
                self._free -= 1
                mine = None
            else:
                mine = threading.Event()
                self._queue.append((mine, came))
        if mine is not None:
            mine.wait()
            now = self.clock()
            with self._lock:
                self._last_wait = (now - came, now)
        try:
            yield
        finally:
            with self._lock:
                if self._queue:
                    self._queue.popleft()[0].set()      # the turn passes on; the count of free ones stays
                else:
                    self._free += 1

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def saturated(self) -> bool:
        """Whether runs here wait longer than SATURATED_WAIT for their turn: now, or lately."""
        now = self.clock()
        with self._lock:
            head = self._queue[0][1] if self._queue else None
            waited, at = self._last_wait
        if head is not None and now - head > SATURATED_WAIT:
            return True
        return waited > SATURATED_WAIT and now - at < RECENT_SECONDS


_gate: WorkGate | None = None
_gate_lock = threading.Lock()


def gate() -> WorkGate:
    """This process's gate, made on first use with the size configured then."""
    global _gate
    with _gate_lock:
        if _gate is None:
            _gate = WorkGate(runs_at_once())
        return _gate


def enter(db: Connection, study_id: str, rater_id: str, *, room: bool | None = None,
          most: int | None = None) -> admissions.Ticket:
    """The participant's place: let in now, or their place in line. `room` (default: this worker is not
    saturated) and `most` (default: capacity()) are for tests and the bench."""
    now = clock()
    ticket = admissions.enter(db, study_id, rater_id, now=now, capacity=capacity() if most is None else most,
                              room=not gate().saturated() if room is None else room,
                              active_since=now - ACTIVE_SECONDS, waiting_since=now - WAITING_SECONDS,
                              batch=runs_at_once(), renew_since=now - RENEW_SECONDS,
                              consenting_since=now - CONSENT_SECONDS)
    if ticket.let_in:
        _moved.let_in(ticket.let_in)
    return ticket


class LineMoves:
    """How many this worker has let in from the line, for its line pages parked in wait_for_turn: a waiter
    goes to the store again only once the line may have reached it and the worker has room, not on a timer."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.total = 0
        self.freed = 0                 # places freed here (a participant finished or declined)

    def let_in(self, count: int) -> None:
        with self._changed:
            self.total += count
            self._changed.notify_all()

    def free(self) -> None:
        with self._changed:
            self.freed += 1
            self._changed.notify_all()

    def wait_for_turn(self, ahead: int, since: int, timeout: float, room: Callable[[], bool], batch: int,
                      step: float = 0.25, held: int | None = None) -> bool:
        """Park the caller (a line page's own rerun: outside the gate, no store) until its turn may have come,
        True: so many let in since `since` (the total when it saw `ahead` waiting before it) that the line's
        front batch reaches it, and `room`; `held`: its last look found room but every place taken (the
        `freed` count then), so it waits for a place freed or a let-in too. False after `timeout`. Others'
        lines and places (another worker's, a place passed over) are not counted here: the page's timer
        covers them."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                near = ahead - (self.total - since) < batch
                if near and (held is None or self.freed != held or self.total != since) and room():
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                # near the front, room is a matter of time (the gate's recent waits), so look again soon;
                # further back only a let-in can change anything, and it wakes every waiter
                self._changed.wait(min(left, step) if near else left)


_moved = LineMoves()


def line_moved() -> int:
    """How many this worker has let in so far (a line page keeps it with the place it saw)."""
    return _moved.total


def places_freed() -> int:
    return _moved.freed


def place_freed() -> None:
    """A participant here finished or declined: a line page held only by `capacity()` may go on."""
    _moved.free()


def wait_for_turn(ahead: int, since: int, timeout: float, held: int | None = None) -> bool:
    """A line page's rerun, before it asks the store again: wait (up to `timeout`) until a place may be free."""
    return _moved.wait_for_turn(ahead, since, timeout, lambda: not gate().saturated(), runs_at_once(), held=held)


def still_here(db: Connection, study_id: str, rater_id: str) -> None:
    admissions.seen(db, study_id, rater_id, clock())


def give_up(db: Connection, study_id: str, rater_id: str) -> None:
    admissions.give_up(db, study_id, rater_id)


def minutes_to_wait(db: Connection, place: int) -> int | None:
    """The wait at the line's recent pace, in whole minutes (at least 1); None when nobody was let in lately
    (no pace to go by)."""
    let_in = admissions.admitted_since(db, clock() - PACE_SECONDS)
    if not let_in:
        return None
    return max(1, round(place * PACE_SECONDS / let_in / 60))


def poll_seconds(ahead: int) -> float:
    """How often the line page asks again: every few seconds near the front, less often further back (each
    ask is a run and a write on a server that is already saturated)."""
    return float(min(20, 3 + ahead // 10))
