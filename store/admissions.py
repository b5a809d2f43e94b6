"""The line in front of the rater page (annotate/serving/admission.py): a ticket per participant in arrival
order, who has been let in, and who is still there. One short write transaction per decision, so every
worker and host sharing the database keeps one line and one count."""
from __future__ import annotations

from dataclasses import dataclass

from fairval.store.engine import Connection, Row, immediate

# Participants let in who have neither finished nor declined, and showed a page lately: the ones who hold a
# place. One let in without a rater row holds it only while they may still be on their way (let in from the
# line, not yet back): a link the page refuses never becomes a rater, and must not hold a place for long.
# One let in who has not consented holds it only while they may still be reading the consent page
# (:consenting): a made-up participant ID on an open link that keeps its page open but never consents
# gives its place up (issue 58); a real participant slower than that goes on, only uncounted until consent.
_ACTIVE = """SELECT COUNT(*) FROM admissions a
    LEFT JOIN raters r ON r.study_id = a.study_id AND r.rater_id = a.rater_id
    WHERE a.admitted_at IS NOT NULL AND a.seen_at >= :active AND CASE WHEN r.rater_id IS NULL
      THEN a.admitted_at >= :arriving
      WHEN r.consent IS NULL THEN r.finished_at IS NULL AND a.admitted_at >= :consenting
      ELSE r.finished_at IS NULL AND r.consent <> 'declined' END"""


@dataclass(frozen=True, slots=True)
class Ticket:
    """Where a participant stands: let in, or `ahead` people waiting before them (0: next); `let_in`: how
    many this call let in from the line (its caller among them or not)."""
    admitted: bool
    ahead: int = 0
    ticket: int = 0
    let_in: int = 0


def enter(db: Connection, study_id: str, rater_id: str, *, now: float, capacity: int, room: bool,
          active_since: float, waiting_since: float, batch: int, renew_since: float | None = None,
          consenting_since: float | None = None) -> Ticket:
    """Take (or keep) the participant's place and let in, from the front of the line, as many waiting as
    `capacity` leaves room for, at most `batch` at once (a line let in all together would saturate the
    server again); `room` False: this server takes nobody new just now. Waiting tickets not seen since
    `waiting_since` are passed over (their holder left; back with the same link, they have it again).
    Without room, a waiting participant seen since `renew_since` is only read: the line page asks every few
    seconds, and on a saturated server each ask would otherwise be a write waiting for the lock. One let in
    before `consenting_since` who has not consented no longer holds a place (default: while active)."""
    if not room and renew_since is not None:
        row = _row(db, study_id, rater_id)
        if row is not None and row["admitted_at"] is None and row["seen_at"] >= renew_since:
            return Ticket(False, _ahead(db, row["ticket"], waiting_since), row["ticket"])
    with immediate(db):
        row = _row(db, study_id, rater_id)
        if row is None:
            db.execute("INSERT INTO admissions (study_id, rater_id, arrived_at, seen_at) VALUES (?, ?, ?, ?)",
                       [study_id, rater_id, now, now])
            row = _row(db, study_id, rater_id)
            assert row is not None, "written in this transaction"
        else:
            db.execute("UPDATE admissions SET seen_at = ? WHERE ticket = ?", [now, row["ticket"]])
        if row["admitted_at"] is not None:
            return Ticket(True, 0, row["ticket"])
        active = db.scalar(_ACTIVE, {"active": active_since, "arriving": waiting_since,
                                     "consenting": active_since if consenting_since is None else consenting_since}) or 0
        free = min(capacity - active, batch) if room else 0
        let_in = 0
        if free > 0:
            let_in = db.execute("UPDATE admissions SET admitted_at = ?, seen_at = ? WHERE ticket IN (SELECT ticket "
                                "FROM admissions WHERE admitted_at IS NULL AND seen_at >= ? ORDER BY ticket LIMIT ?)",
                                [now, now, waiting_since, free]).rowcount
            if db.scalar("SELECT admitted_at FROM admissions WHERE ticket = ?", [row["ticket"]]) is not None:
                return Ticket(True, 0, row["ticket"], let_in)
        return Ticket(False, _ahead(db, row["ticket"], waiting_since), row["ticket"], let_in)


def _ahead(db: Connection, ticket: int, waiting_since: float) -> int:
    return int(db.scalar("SELECT COUNT(*) FROM admissions WHERE admitted_at IS NULL AND seen_at >= ? "
                         "AND ticket < ?", [waiting_since, ticket]) or 0)


def seen(db: Connection, study_id: str, rater_id: str, now: float) -> None:
    """A participant let in showed a page: they hold their place a while longer."""
    db.execute("UPDATE admissions SET seen_at = ? WHERE study_id = ? AND rater_id = ?", [now, study_id, rater_id])


def give_up(db: Connection, study_id: str, rater_id: str) -> None:
    """The participant's session went on with another ID: their place (let in or waiting) is no longer held,
    until a page of theirs is seen again."""
    db.execute("UPDATE admissions SET seen_at = 0 WHERE study_id = ? AND rater_id = ?", [study_id, rater_id])


def admitted_since(db: Connection, since: float) -> int:
    """How many were let in from the line since then: the pace the line moves at."""
    return int(db.scalar("SELECT COUNT(*) FROM admissions WHERE admitted_at >= ? AND admitted_at > arrived_at",
                         [since]) or 0)


def _row(db: Connection, study_id: str, rater_id: str) -> Row | None:
    rows = db.query("SELECT ticket, admitted_at, seen_at FROM admissions WHERE study_id = ? AND rater_id = ?",
                    [study_id, rater_id])
    return rows[0] if rows else None
