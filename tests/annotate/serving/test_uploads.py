"""The upload permits behind server/uploads.py: open while the session is on the page that drew its uploader,
its share counted across runs (a rerun renews nothing)."""
from fairval.annotate.serving import uploads


def test_a_permit_lasts_as_long_as_the_page_draws_an_uploader():
    session = "permit-test-1"
    assert uploads.take(session, "f0", 10) == "this page takes no files"        # never drawn
    uploads.permit(session, "manage")
    assert uploads.take(session, "f0", 10) is None
    uploads.withdraw(session, "manage")               # a rerun of the uploader's page: a file may be on its way
    assert uploads.take(session, "f1", 10) is None
    uploads.withdraw(session, "results")                                        # a run of another page
    assert uploads.take(session, "f2", 10) == "this page takes no files"
    uploads.permit(session, "manage")
    uploads.withdraw(session)                                                   # a sign-in form, say
    assert uploads.take(session, "f2", 10) == "this page takes no files"
    uploads.permit(session, "manage")
    assert uploads.take(session, "f1", uploads.MOST_BYTES + uploads.MULTIPART_MARGIN + 1).startswith("a file here")


def test_reruns_do_not_renew_a_sessions_share():
    session = "permit-test-2"
    taken = 0
    for _ in range(uploads.MOST_SENT + 5):
        uploads.withdraw(session, "results")                                    # another page, then
        uploads.permit(session, "manage")                                       # Import again
        if uploads.take(session, "same-file", 10) is None:
            taken += 1
    assert taken == uploads.MOST_SENT


def test_files_held_at_once_are_capped_until_one_is_deleted():
    session = "permit-test-3"
    uploads.permit(session, "manage")
    assert [uploads.take(session, f"f{k}", 10) for k in range(uploads.MOST_HELD)] == [None] * uploads.MOST_HELD
    assert uploads.take(session, "one-more", 10) is not None
    uploads.give_back(session, "f0")                                           # the page deleted it
    assert uploads.take(session, "one-more", 10) is None
