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
