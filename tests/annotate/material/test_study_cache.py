"""load_study parses a study once and hands the same Study back while its stored row is unchanged (issue 58:
each rerun of a rater's page loads the study two to four times), yet a pause, a settings change or another
database's study of the same name is seen by the very next call."""
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.material.study_settings import StudySettings
from fairval.store import open_db
from tests.conftest import write_jsonl


def _study(db, tmp_path, **settings):
    create_study(db, "tq", "template_quality", raters_per_item=2, **settings)
    import_items(db, "tq", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Should it?"}]))


def test_an_unchanged_study_is_parsed_once(db, tmp_path, monkeypatch):
    _study(db, tmp_path)
    first = load_study(db, "tq")
    parsed = []
    real = StudySettings.from_dict.__func__
    monkeypatch.setattr(StudySettings, "from_dict", classmethod(lambda cls, d: parsed.append(d) or real(cls, d)))
    assert all(load_study(db, "tq") is first for _ in range(5))
    assert parsed == []


def test_a_pause_and_a_settings_change_are_seen_by_the_next_load(db, tmp_path):
    _study(db, tmp_path, consent_text="First words.")
    before = load_study(db, "tq")
    configure_study(db, "tq", status="paused")
    assert load_study(db, "tq").status == "paused"
    configure_study(db, "tq", consent_text="Second words.", max_items_per_rater=1)
    after = load_study(db, "tq")
    assert (after.settings.consent_text, after.settings.max_items_per_rater) == ("Second words.", 1)
    assert before.settings.consent_text == "First words."          # a Study handed out never changes
    configure_study(db, "tq", status="open")
    assert load_study(db, "tq").status == "open"


def test_a_change_made_through_another_connection_is_seen(db, db_path, tmp_path):
    """Another worker process writes the same file: its pause reaches this connection's next load."""
    _study(db, tmp_path)
    assert load_study(db, "tq").status == "open"
    other = open_db(db_path)
    try:
        configure_study(other, "tq", status="paused")
    finally:
        other.close()
    assert load_study(db, "tq").status == "paused"


def test_two_databases_with_a_study_of_the_same_name_each_get_their_own(tmp_path):
    one, two = open_db(tmp_path / "one.db"), open_db(tmp_path / "two.db")
    try:
        (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
        _study(one, tmp_path / "a", completion_code="ONE")
        _study(two, tmp_path / "b", completion_code="TWO")
        for _ in range(2):                                          # in turn, as two studies served at once
            assert load_study(one, "tq").settings.completion_code == "ONE"
            assert load_study(two, "tq").settings.completion_code == "TWO"
    finally:
        one.close()
        two.close()
