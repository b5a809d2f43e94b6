"""Signed rater links for in-house studies: `fairval study links` prints one link per rater, signed for that
study and rater; a study with signed_links=true refuses an unsigned, altered or other rater's link and a
typed id; Prolific's links are taken as Prolific sends them."""
from urllib.parse import parse_qs, urlparse

from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
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
    ana = rater_app(study="inhouse", rater="ana", sig=links["ana"]["sig"][0])
    assert not _refused(ana) and "Consent" in titles(ana)
    for params in ({"rater": "ana"},                                          # unsigned
                   {"rater": "ben", "sig": links["ana"]["sig"][0]},          # another rater's signature
                   {"rater": "ana", "sig": links["ana"]["sig"][0][:-1] + "A"},
                   {}):                                                       # no id: typed ids are refused too
        at = rater_app(study="inhouse", **params)
        assert _refused(at), params
    assert [r[0] for r in db.execute("SELECT rater_id FROM raters WHERE study_id = 'inhouse'")] == ["ana"]


def test_prolific_links_are_taken_as_prolific_sends_them(db, db_path, tmp_path):
    _study(db, db_path, tmp_path)
    at = rater_app(study="inhouse", PROLIFIC_PID="5f0c0ffee", STUDY_ID="PS", SESSION_ID="sub1")
    assert not _refused(at) and "Consent" in titles(at)


def test_an_unsigned_study_is_as_before(db, db_path, tmp_path):
    create_study(db, "open", "template_quality", raters_per_item=2)
    import_items(db, "open", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    at = rater_app(study="open", rater="anyone")
    assert not _refused(at) and "Consent" in titles(at)
