"""A reader that closes fairval's stdout (`fairval study show X | head -2`) is no error (QA walk 62): no
"Error: Broken pipe", no traceback, exit 0. The pipe's read end is closed before fairval starts, so every
write meets a closed pipe: no race with the reader."""
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli


@pytest.mark.parametrize("args", [["study", "show", "demo-templates"], ["analyze", "--json", "demo-templates"]])
def test_a_closed_stdout_ends_fairval_quietly(db_path, args):
    made = CliRunner().invoke(cli, ["--db", str(db_path), "demo", "--no-serve"])
    assert made.exit_code == 0, made.output
    read, write = os.pipe()
    os.close(read)                                 # the reader is gone before anything is written
    try:
        done = subprocess.run([sys.executable, "-c", "from fairval.annotate.cli.main import main; main()",
                               "--db", str(db_path), *args], stdout=write, stderr=subprocess.PIPE, timeout=300)
    finally:
        os.close(write)
    assert done.stderr.decode() == "" and done.returncode == 0, done.stderr.decode()
