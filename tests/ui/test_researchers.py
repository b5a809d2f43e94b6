"""Named researchers with roles: the pages ask for a name and password once one exists; a viewer reads but
changes nothing and downloads nothing with rater ids; an editor manages; removing a researcher or changing
their password ends their sign-in at their next action; every change is in the audit trail."""
import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.demo import ensure_demo
from fairval.annotate.serving.sign_in import hash_matches, hash_password
from fairval.store import audit, open_db
from fairval.store import researchers as researcher_store
from tests.ui.apptest import page, titles

PASSWORDS = {"vera": "viewer-password-1", "ed": "editor-password-1", "olga": "owner-password-1"}


def run(db_path, *args, ok=True):
    result = CliRunner().invoke(cli, ["--db", str(db_path), *map(str, args)])
    if ok:
        assert result.exit_code == 0, result.output
    return result


def password_files(folder):
    for name in PASSWORDS:
        (folder / f"{name}.txt").write_text(PASSWORDS[name] + "\n")


@pytest.fixture(scope="module")
def lab_file(tmp_path_factory):
    """The demo studies and three researchers added by the command line, made once: each scrypt hash is made
    at OWASP's cost (a fraction of a second and 128 MB), so each test gets a copy of this file instead."""
    folder = tmp_path_factory.mktemp("lab")
    path = folder / "fairval.db"
    made = open_db(path)
    ensure_demo(made)
    made.close()
    password_files(folder)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("FAIRVAL_RESEARCHER_PASSWORD", "the-old-shared-one")
        for name, role in (("olga", "owner"), ("vera", "viewer"), ("ed", "editor")):
            run(path, "researcher", "add", name, "--role", role, "--password-file", folder / f"{name}.txt")
    whole = sqlite3.connect(path)                       # everything in the file itself, none left in its WAL
    whole.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    whole.close()
    return path


@pytest.fixture
def lab(lab_file, db_path, tmp_path, monkeypatch, request):
    shutil.copyfile(lab_file, db_path)                  # the fresh database of this test, before it is opened
    password_files(tmp_path)
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "the-old-shared-one")
    return request.getfixturevalue("db")


def sign_in(name: str, password: str, where: str = "1_Results.py"):
    at = page(where)
    at.text_input[0].input(name)
    at.text_input[1].input(password)
    at.button[0].click().run()
    return at


def test_the_password_is_stored_as_a_salted_scrypt_hash(lab):
    stored = researcher_store.get(lab, "vera")["password_hash"]
    assert stored.startswith("scrypt$") and PASSWORDS["vera"] not in stored
    assert hash_matches(PASSWORDS["vera"], stored) and not hash_matches("guess", stored)
    assert hash_password("x") != hash_password("x")                      # salted


def test_a_viewer_reads_but_cannot_manage_or_download(lab):
    at = sign_in("vera", PASSWORDS["vera"])
    assert titles(at) == ["Results"] and not at.exception
    manage = sign_in("vera", PASSWORDS["vera"], "3_Manage.py")
    assert any("needs the editor role" in e.value for e in manage.error)
    assert not manage.button or all(b.label == "Sign out" for b in manage.button)
    export = sign_in("vera", PASSWORDS["vera"], "4_Export.py")
    assert not export.get("download_button") and any("Downloads need the editor role" in i.value for i in export.info)


def test_an_editor_manages_and_the_trail_names_them(lab):
    at = sign_in("ed", PASSWORDS["ed"], "3_Manage.py")
    assert titles(at) == ["Manage studies"]
    at.text_input[0].input("by-ed")
    at.selectbox[0].set_value("name_perception")
    at.button[0].click().run()
    assert not at.exception
    trail = audit.entries(lab)
    assert ("ed", "study.create", "by-ed") in [(r["actor"], r["action"], r["study_id"]) for r in trail]


def test_wrong_names_and_the_old_shared_password_are_refused(lab):
    assert titles(sign_in("nobody", "whatever-password")) == ["Researcher sign-in"]
    assert titles(sign_in("vera", PASSWORDS["ed"])) == ["Researcher sign-in"]
    assert titles(sign_in("", "the-old-shared-one")) == ["Researcher sign-in"]      # names are asked now
    assert [r["action"] for r in audit.entries(lab)][-3:] == ["sign-in.failed"] * 3


def test_removing_a_researcher_ends_their_sign_in_at_their_next_action(lab, db_path):
    at = sign_in("ed", PASSWORDS["ed"])
    assert titles(at) == ["Results"]
    run(db_path, "researcher", "remove", "ed")
    at.run()
    assert titles(at) == ["Researcher sign-in"]
    assert [r["action"] for r in audit.entries(lab) if r["action"].startswith("researcher.")][-1] == "researcher.remove"


def test_the_command_line_lists_changes_and_refuses_in_words(lab, db_path, tmp_path):
    assert run(db_path, "researcher", "list").output.splitlines() == ["ed\teditor", "olga\towner", "vera\tviewer"]
    run(db_path, "researcher", "set", "vera", "--role", "editor")
    assert researcher_store.get(lab, "vera")["role"] == "editor"
    twice = run(db_path, "researcher", "add", "vera", "--role", "viewer", "--password-file", tmp_path / "vera.txt",
                ok=False)
    assert twice.exit_code == 1 and "exists already" in twice.output
    (tmp_path / "short.txt").write_text("short")
    short = run(db_path, "researcher", "add", "sam", "--role", "viewer", "--password-file", tmp_path / "short.txt",
                ok=False)
    assert short.exit_code == 1 and "at least 10 characters" in short.output
    trail = json.loads(run(db_path, "audit", "--json").output)
    assert [r["details"].get("name") for r in trail if r["action"] == "researcher.add"] == ["olga", "vera", "ed"]


def test_the_first_named_researcher_is_an_owner(db, db_path, tmp_path):
    """A first researcher added as viewer or editor would end the shared password and leave no owner."""
    (tmp_path / "vera.txt").write_text(PASSWORDS["vera"] + "\n")
    for role in ("viewer", "editor"):
        refused = run(db_path, "researcher", "add", "vera", "--role", role, "--password-file", tmp_path / "vera.txt",
                      ok=False)
        assert refused.exit_code == 1 and "first researcher must be an owner" in refused.output
        assert len(refused.output.strip().splitlines()) == 1
    assert researcher_store.every(db) == []
    run(db_path, "researcher", "add", "vera", "--role", "owner", "--password-file", tmp_path / "vera.txt")
    assert researcher_store.get(db, "vera")["role"] == "owner"


def test_the_last_owner_stays(lab, db_path):
    """Removing or demoting the last owner is refused: nobody could manage researchers after, and with every
    named researcher gone the environment's shared password would sign in as owner again."""
    for args in (("remove", "olga"), ("set", "olga", "--role", "editor")):
        refused = run(db_path, "researcher", *args, ok=False)
        assert refused.exit_code == 1 and "last owner" in refused.output, refused.output
    assert researcher_store.get(lab, "olga")["role"] == "owner"
    run(db_path, "researcher", "remove", "vera")
    run(db_path, "researcher", "remove", "ed")
    assert run(db_path, "researcher", "remove", "olga", ok=False).exit_code == 1
    # the shared password of the environment still signs in nobody
    at = sign_in("", "the-old-shared-one")
    assert titles(at) == ["Researcher sign-in"]
    run(db_path, "researcher", "set", "vera", "--role", "owner", ok=False)          # (gone)
    (db_path.parent / "nina.txt").write_text("owner-password-2\n")
    run(db_path, "researcher", "add", "nina", "--role", "owner", "--password-file", db_path.parent / "nina.txt")
    run(db_path, "researcher", "remove", "olga")                                    # another owner now
    assert [r["name"] for r in researcher_store.every(lab)] == ["nina"]


def test_an_old_cheaper_hash_still_signs_in_and_is_made_again_at_owasps_cost(lab):
    """A hash stored at N=2^14 (fairval's old cost): the right password signs in, and the stored hash is then
    scrypt at N=2^17, r=8, p=1, which the same password matches."""
    import hashlib

    salt = bytes(range(16))
    old = hashlib.scrypt(PASSWORDS["ed"].encode(), salt=salt, n=2 ** 14, r=8, p=1, dklen=32)
    researcher_store.change(lab, "ed", password_hash=f"scrypt${2 ** 14}$8$1${salt.hex()}${old.hex()}")
    at = sign_in("ed", PASSWORDS["ed"])
    assert titles(at) != ["Researcher sign-in"]
    stored = researcher_store.get(lab, "ed")["password_hash"]
    kind, n, r, p, new_salt, digest = stored.split("$")
    assert (kind, int(n), int(r), int(p)) == ("scrypt", 2 ** 17, 8, 1)
    expected = hashlib.scrypt(PASSWORDS["ed"].encode(), salt=bytes.fromhex(new_salt), n=2 ** 17, r=8, p=1,
                              dklen=32, maxmem=256 * 1024 * 1024)
    assert digest == expected.hex()
    at.run()                                                     # the tab's next run: still signed in
    assert titles(at) != ["Researcher sign-in"]
