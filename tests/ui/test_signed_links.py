"""Signed rater links for in-house studies: `fairval study links` prints one link per rater, signed for that
study and rater; a study with signed_links=true refuses an unsigned, altered or other rater's link, a
typed id and Prolific's parameters (which cannot carry the signature); each rater's source is stored, and an
open study never continues a Prolific id as an in-house one or the reverse."""
import sqlite3
from urllib.parse import parse_qs, urlparse

import psycopg
import pytest
from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import open_db
from tests.conftest import write_jsonl
from tests.ui.apptest import rater_app, titles

REFUSED = "This link is not one this study gave out"


def _study(db, db_path, tmp_path):
    create_study(db, "inhouse", "template_quality", raters_per_item=2)
    import_items(db, "inhouse", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "set", "inhouse", "signed_links=true"])
    assert result.exit_code == 0, result.output
    (tmp_path / "raters.txt").write_text("ana\nben\n")
    result = CliRunner().invoke(cli, ["--db", str(db_path), "study", "links", "inhouse", "--raters",
                                      str(tmp_path / "raters.txt"), "--base-url", "https://lab.example/"])
    assert result.exit_code == 0, result.output
    return {parse_qs(urlparse(line).query)["rater"][0]: parse_qs(urlparse(line).query)
            for line in result.output.splitlines()}


def _refused(at) -> bool:
    return any(REFUSED in e.value for e in at.error)


def test_a_signed_study_takes_its_own_links_only(db, db_path, tmp_path):
    links = _study(db, db_path, tmp_path)
    assert set(links) == {"ana", "ben"} and links["ana"]["sig"] != links["ben"]["sig"]
    assert all(q["study"] == ["inhouse"] for q in links.values())
    sig = links["ana"]["sig"][0]
    ana = rater_app(study="inhouse", rater="ana", sig=sig)
    assert not _refused(ana) and "Consent" in titles(ana)
    altered = sig[:-1] + ("B" if sig.endswith("A") else "A")    # a signature ending in A was left as it was
    for params in ({"rater": "ana"},                                          # unsigned
                   {"rater": "ben", "sig": sig},                              # another rater's signature
                   {"rater": "ana", "sig": altered},
                   {}):                                                       # no id: typed ids are refused too
        at = rater_app(study="inhouse", **params)
        assert _refused(at), params
    assert [r[0] for r in db.execute("SELECT rater_id FROM raters WHERE study_id = 'inhouse'")] == ["ana"]


def test_prolifics_parameters_do_not_open_a_signed_study(db, db_path, tmp_path):
    """Issue 55: `PROLIFIC_PID=ana` continued as the in-house ana, a valid link plus PROLIFIC_PID=bob became
    bob, and any new PROLIFIC_PID joined."""
    links = _study(db, db_path, tmp_path)
    signed = rater_app(study="inhouse", rater="ana", sig=links["ana"]["sig"][0])
    assert not _refused(signed) and "Consent" in titles(signed)
    for params in ({"PROLIFIC_PID": "ana"}, {"PROLIFIC_PID": "5f0c0ffee", "STUDY_ID": "PS", "SESSION_ID": "s1"},
                   {"rater": "ana", "sig": links["ana"]["sig"][0], "PROLIFIC_PID": "bob"}):
        at = rater_app(study="inhouse", **params)
        assert _refused(at) and not titles(at), params
    assert db.query("SELECT rater_id, source FROM raters WHERE study_id = 'inhouse'") == [
        {"rater_id": "ana", "source": "signed"}]


def test_an_open_study_keeps_prolific_ids_and_in_house_ids_apart(db, tmp_path):
    create_study(db, "both", "template_quality", raters_per_item=2)
    import_items(db, "both", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    assert "Consent" in titles(rater_app(study="both", rater="alice"))
    assert "Consent" in titles(rater_app(study="both", PROLIFIC_PID="5f0c0ffee"))
    for params in ({"PROLIFIC_PID": "alice"}, {"rater": "5f0c0ffee"}, {"rater": "carol", "PROLIFIC_PID": "dan"}):
        at = rater_app(study="both", **params)
        assert _refused(at) and not titles(at), params
    assert sorted((r["rater_id"], r["source"]) for r in db.query("SELECT * FROM raters")) == [
        ("5f0c0ffee", "prolific"), ("alice", "link")]


def test_an_unsigned_study_is_as_before(db, db_path, tmp_path):
    create_study(db, "open", "template_quality", raters_per_item=2)
    import_items(db, "open", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    at = rater_app(study="open", rater="anyone")
    assert not _refused(at) and "Consent" in titles(at)


@pytest.mark.parametrize("db_path", ["sqlite", "postgresql"], indirect=True)
def test_the_store_keeps_only_the_four_sources(db_path):
    """Schema v22: a rater row says how the id arrived, one of four ways, on both stores."""
    db = open_db(db_path)
    try:
        create_study(db, "s", "template_quality")
        db.insert("raters", [{"study_id": "s", "rater_id": f"r-{source}", "source": source, "started_at": 0.0}
                             for source in ("prolific", "signed", "link", "import")])
        with pytest.raises((sqlite3.IntegrityError, psycopg.errors.IntegrityError)):
            db.insert("raters", [{"study_id": "s", "rater_id": "r-x", "source": "guessed", "started_at": 0.0}])
        if db.dialect == "postgresql":
            db.rollback()
        with pytest.raises((sqlite3.IntegrityError, psycopg.errors.IntegrityError)):
            db.execute("UPDATE raters SET source = 'guessed' WHERE rater_id = 'r-link'")
    finally:
        db.close()
