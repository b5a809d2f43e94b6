"""Starting the demo the way a newcomer does: `make app`, a second `make app`, `demo --no-serve` (issue 54)."""
import shutil
import socket
import subprocess

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from tests.conftest import ROOT


def test_demo_without_serving_gives_no_link_to_a_server_that_is_not_running(db_path):
    result = CliRunner().invoke(cli, ["--db", str(db_path), "demo", "--no-serve"])
    assert result.exit_code == 0, result.output
    assert "created demo studies: demo-templates, demo-pairs" in result.output
    assert "http://" not in result.output and "rater link" not in result.output
    assert f"--db {db_path} demo" in result.output          # how to serve them is said instead


def test_a_taken_port_is_said_in_one_sentence_before_anything_is_made(tmp_path):
    database = tmp_path / "fairval-demo.db"
    with socket.socket() as other:               # another server already listening, as a first `make app` is
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        result = CliRunner().invoke(cli, ["--db", str(database), "demo", "--port", str(port)])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0].startswith(f"Error: port {port} is already in use") and f"PORT={port + 1} make app" in lines[0]
    assert not database.exists()                 # no banner, no studies made: nothing ran


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_app_installs_only_what_the_app_needs_and_make_test_adds_the_test_tools():
    def planned(target: str) -> str:            # what make would run from a fresh clone (-B: as if nothing were built)
        return subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
    app, test = planned("app"), planned("check")
    assert "pip install" in app and "[test" not in app and "-e ." in app
    assert "'.[test" in test                    # the test tools (and single sign-on's extra beside them)
