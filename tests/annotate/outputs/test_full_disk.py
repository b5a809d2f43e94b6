"""A full disk, for real: a small tmpfs filled up. Every writer exits with one sentence, the good file that
was at the destination is byte for byte what it was, no temporary file is left, and nothing that depends on
the file (a draw) is recorded. An import into a database on a full disk says so in one sentence and
imports nothing."""
import os
import subprocess
import uuid

import pytest
from click.testing import CliRunner

import fairval
from fairval.annotate.cli.main import cli
from tests.conftest import write_jsonl

PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
ROOM = 150_000          # bytes left free: a database still opens, a file or an import does not fit


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs mounted for the test (root only: skipped with the reason elsewhere)."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a small filesystem here ({mounted.stderr.decode().strip()}); these checks need root")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder, leave: int = 0) -> None:
    """Fill the filesystem, leaving about `leave` bytes."""
    free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
    with open(folder / f"filler-{uuid.uuid4().hex}", "wb") as f:
        try:
            f.write(b"\0" * max(free - leave, 0))
            f.flush()
        except OSError:
            pass


def run(db_path, *args):
    return CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])


@pytest.fixture
def demo(db_path):
    assert run(db_path, "demo", "--no-serve").exit_code == 0
    return db_path


WRITERS = [
    ("export", "demo-templates", "--out", "{}.csv"),
    ("export", "demo-templates", "--out", "{}.jsonl"),
    ("export", "demo-pairs", "--out", "{}.csv"),
    ("export-ratings", "demo-pairs", "--out", "{}.csv"),
    ("export-ratings", "demo-pairs", "--out", "{}.parquet"),
    ("report", "demo-pairs", "--out", "{}.html"),
    ("report", "demo-templates", "--out", "{}.md"),
    ("compare", "demo-pairs", "--out", "{}.md"),
    ("calibrate", "demo-pairs", "--out", "{}.json"),
]


@pytest.mark.parametrize("command", WRITERS, ids=lambda c: f"{c[0]}-{c[-1][3:]}")
def test_every_writer_leaves_the_earlier_file_as_it_was(demo, small_disk, command):
    out = small_disk / command[-1].format("out")
    earlier = b"yesterday's good file\n" * 3
    out.write_bytes(earlier)
    fill(small_disk)
    result = run(demo, *command[:-1], out)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "no space left" in lines[0] and str(out) in lines[0] and "as it was" in lines[0]
    assert out.read_bytes() == earlier
    assert not [p.name for p in small_disk.iterdir() if p.name.endswith(".part")]


def test_a_dataset_folder_on_a_full_disk_is_not_left_half_made(demo, small_disk):
    fill(small_disk)
    result = run(demo, "export", "demo-pairs", "--format", "hf", "--out", small_disk / "dataset")
    assert result.exit_code == 1 and "no space left" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (small_disk / "dataset").exists()
    assert not [p.name for p in small_disk.iterdir() if p.name.endswith(".part")]


def test_a_draw_whose_file_cannot_be_written_is_not_recorded(db_path, small_disk, tmp_path):
    assert run(db_path, "study", "create", "p", "--task", "harmful_stereotype").exit_code == 0
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"pair-{k:03d}-{'x' * 190}", **PAIR} for k in range(60)])
    assert run(db_path, "items", "import", "p", tmp_path / "pairs.jsonl").exit_code == 0
    fill(small_disk)
    result = run(db_path, "study", "sample", "p", "--n", "30", "--seed", "1", "--out", small_disk / "s.csv")
    assert result.exit_code == 1 and "no space left" in result.output
    with fairval.open(db_path) as db:
        assert not db.study("p").items()["judge_only"].astype(bool).any()     # no draw recorded
    # with room, the same seed draws and writes
    assert run(db_path, "study", "sample", "p", "--n", "30", "--seed", "1", "--out", tmp_path / "s.csv").exit_code == 0


def test_an_import_into_a_full_database_says_so_and_imports_nothing(small_disk, tmp_path):
    db_path = small_disk / "fairval.db"
    assert run(db_path, "study", "create", "p", "--task", "harmful_stereotype").exit_code == 0
    write_jsonl(tmp_path / "pairs.jsonl", [{"id": f"p{k}", **PAIR, "prompt": "p" * 2000} for k in range(200)])
    fill(small_disk, leave=ROOM)
    result = run(db_path, "items", "import", "p", tmp_path / "pairs.jsonl")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: no space left on the device holding the database {db_path}; nothing of this change was stored: "
        "free some space and run it again"]
    with fairval.open(db_path) as db:
        assert db.study("p").items().empty
