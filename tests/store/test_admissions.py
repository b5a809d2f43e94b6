"""The line's bookkeeping (store/admissions.py), on SQLite and PostgreSQL, with the clock passed in."""
from fairval.annotate.material.studies import create_study
from fairval.annotate.rating import session
from fairval.store import admissions

T0 = 1_000_000.0


def enter(db, who, now, *, capacity=2, room=True, batch=10, renew=None):
    return admissions.enter(db, "s", who, now=now, capacity=capacity, room=room, active_since=now - 300,
                            waiting_since=now - 60, batch=batch, renew_since=None if renew is None else now - renew)


def test_a_line_lets_in_from_its_front_at_most_a_batch_at_a_time(db):
    create_study(db, "s", "template_quality", raters_per_item=1)
    assert enter(db, "a", T0, capacity=1).admitted
    waiting = [enter(db, w, T0 + k, capacity=1) for k, w in enumerate("bcde", 1)]
    assert [t.ahead for t in waiting] == [0, 1, 2, 3] and not any(t.admitted for t in waiting)
    session.arrive(db, "s", "a", source="link")
    session.give_consent(db, "s", "a", False)                 # a declines: their place is free
    # room for three more, two at a time: b and c are let in, by e's asking, and e still waits behind d
    last = enter(db, "e", T0 + 10, capacity=3, batch=2)
    assert (last.admitted, last.ahead, last.let_in) == (False, 1, 2)   # the count a worker's waiting pages go by
    assert [enter(db, w, T0 + 11, capacity=0).admitted for w in "bcd"] == [True, True, False]


def test_a_link_that_never_becomes_a_rater_holds_its_place_only_while_on_its_way(db):
    """A refused link (a forged signature, a closed study) is let in but never arrives: it stops counting
    once it could have (the waiting window), so made-up names cannot keep a line closed."""
    create_study(db, "s", "template_quality", raters_per_item=1)
    assert enter(db, "ghost", T0, capacity=1).admitted
    assert not enter(db, "real", T0 + 1, capacity=1).admitted
    enter(db, "ghost", T0 + 59, capacity=1)                  # it keeps asking, but is no rater
    assert not enter(db, "real", T0 + 59, capacity=1).admitted
    assert enter(db, "real", T0 + 61, capacity=1).admitted


def test_a_waiting_place_is_passed_over_while_its_holder_is_away_and_kept_for_their_return(db):
    create_study(db, "s", "template_quality", raters_per_item=1)
    enter(db, "a", T0, capacity=0)
    enter(db, "b", T0 + 1, capacity=0)
    assert enter(db, "b", T0 + 70, capacity=0).ahead == 0     # a has not asked for over a minute
    assert enter(db, "a", T0 + 71, capacity=0).ahead == 0     # back: first again, ahead of b
    assert enter(db, "b", T0 + 72, capacity=0).ahead == 1


def test_without_room_a_waiting_participant_asking_again_is_only_read_until_their_place_needs_renewing(db):
    """The line page asks every few seconds; on a saturated server those asks must not each queue for the
    write lock. Their place is renewed (one write) once it is `renew` seconds old, so it is never passed over."""
    create_study(db, "s", "template_quality", raters_per_item=1)
    enter(db, "a", T0, capacity=0)
    enter(db, "b", T0 + 1, capacity=0)

    def seen(who):
        return db.scalar("SELECT seen_at FROM admissions WHERE rater_id = ?", [who])

    assert enter(db, "b", T0 + 10, room=False, renew=20).ahead == 1
    assert seen("b") == T0 + 1                                 # read, not written
    enter(db, "b", T0 + 22, room=False, renew=20)
    assert seen("b") == T0 + 22                                # 21 s old: renewed


def test_a_participant_let_in_who_never_consents_gives_up_their_place_after_the_consent_bound(db):
    """Made-up IDs on an open link (issue 58): each arrives as a rater and keeps its page open (seen every
    30 s) but never consents. Past the consent bound it no longer holds a place, so the line moves; one who
    consented in time keeps theirs."""
    create_study(db, "s", "template_quality", raters_per_item=1)

    def enter_c(who, now, capacity=2):
        return admissions.enter(db, "s", who, now=now, capacity=capacity, room=True, active_since=now - 300,
                                waiting_since=now - 60, batch=10, consenting_since=now - 180)

    assert enter_c("fake", T0).admitted and enter_c("real", T0).admitted
    for who in ("fake", "real"):
        session.arrive(db, "s", who, source="link")
    session.give_consent(db, "s", "real", True)
    for k in range(1, 7):                                      # both pages keep asking, every 30 s
        admissions.seen(db, "s", "fake", T0 + 30 * k)
        admissions.seen(db, "s", "real", T0 + 30 * k)
    assert not enter_c("next", T0 + 170).admitted              # within the bound: both places held
    admissions.seen(db, "s", "fake", T0 + 181)
    admissions.seen(db, "s", "real", T0 + 181)
    assert enter_c("next", T0 + 181).admitted                  # the fake's place is free; the real one holds
    assert not enter_c("after", T0 + 182).admitted
