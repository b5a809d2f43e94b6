"""A PostgreSQL URL whose server cannot be reached is refused at once, in one line naming its host (never its
password), as a FairvalError: before, `fairval.open`, the CLI's --db and `fairval serve` waited for the pool's
30 s and raised psycopg_pool's PoolTimeout, which says nothing of the host or of what was wrong."""
from __future__ import annotations

import socket

import psycopg
import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from fairval.errors import DatabaseUnreachable, FairvalError

PASSWORD = "s3cret-pw"


def _closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on: the kernel refuses a connection to it, as to a stopped server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_host_that_does_not_resolve_is_named_in_one_line():
    with pytest.raises(DatabaseUnreachable) as refused:
        fairval.open("postgresql://nohost.invalid/db")
    message = str(refused.value)
    assert isinstance(refused.value, FairvalError) and "\n" not in message
    assert "nohost.invalid" in message and "'db'" in message and "resolve" in message, message
    # the pool's own first connection is what failed, not its wait for one
    assert isinstance(refused.value.__cause__, psycopg.OperationalError)


def test_a_refused_port_is_named_and_the_password_is_not():
    port = _closed_port()
    url = f"postgresql://lab:{PASSWORD}@127.0.0.1:{port}/study"
    with pytest.raises(DatabaseUnreachable) as refused:
        fairval.open(url)
    message = str(refused.value)
    assert f"127.0.0.1:{port}" in message and "'lab'" in message and "refused" in message, message
    assert PASSWORD not in message and "\n" not in message
    assert isinstance(refused.value.__cause__, psycopg.OperationalError)


def test_a_url_that_cannot_be_read_never_shows_its_password():
    """psycopg's own sentence for a malformed URL quotes the part it could not read: here the password."""
    with pytest.raises(DatabaseUnreachable) as refused:
        fairval.open("postgresql://lab:pass word@127.0.0.1/study")
    assert "pass word" not in str(refused.value) and "postgresql://user:password@host" in str(refused.value)
    assert isinstance(refused.value.__cause__, psycopg.ProgrammingError)


@pytest.mark.parametrize("command", [["study", "list"], ["serve", "--port", str(_closed_port())]], ids=["study-list", "serve"])
def test_the_cli_says_it_in_one_line_without_a_traceback(command):
    port = _closed_port()
    result = CliRunner().invoke(cli, ["--db", f"postgresql://lab:{PASSWORD}@127.0.0.1:{port}/study", *command])
    assert result.exit_code != 0 and not isinstance(result.exception, AssertionError)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "refused" in lines[0], result.output
    assert PASSWORD not in result.output and "Traceback" not in result.output and "PoolTimeout" not in result.output
