"""The researcher's sign-in cookie: valid for its password until it expires, and for nothing else."""
from ui.auth import LIFETIME, issue_token, valid_token

NOW = 1_800_000_000.0


def test_a_token_is_valid_until_it_expires():
    token = issue_token("s3cret", now=NOW)
    assert valid_token(token, "s3cret", now=NOW)
    assert valid_token(token, "s3cret", now=NOW + LIFETIME - 1)
    assert not valid_token(token, "s3cret", now=NOW + LIFETIME)


def test_a_token_is_bound_to_the_password():
    assert not valid_token(issue_token("s3cret", now=NOW), "changed", now=NOW)


def test_a_forged_or_stretched_token_is_refused():
    token = issue_token("s3cret", now=NOW)
    expires, signature = token.split(".")
    assert not valid_token(f"{int(expires) + 10 * LIFETIME}.{signature}", "s3cret", now=NOW)
    assert not valid_token(f"{expires}.{'0' * len(signature)}", "s3cret", now=NOW)
    assert not valid_token("garbage", "s3cret", now=NOW)
    assert not valid_token("", "s3cret", now=NOW)


def test_a_revoked_sign_in_stays_revoked_for_every_process(db_path):
    """Sign-out writes the token's signature to the database, so any worker or host refuses it."""
    from store import open_db, sign_ins
    from ui.auth import revoke_token
    token = issue_token("s3cret")
    first, second = open_db(db_path), open_db(db_path)          # two processes' connections
    revoke_token(first, token)
    assert sign_ins.is_revoked(second, token.partition(".")[2])
    assert not sign_ins.is_revoked(second, issue_token("other").partition(".")[2])
    first.close(), second.close()
