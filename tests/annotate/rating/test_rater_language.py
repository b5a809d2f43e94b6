"""The study's languages (issue 57): a study lists several, each rater's pick is kept with their consent and
stored with every rating; the store before schema v23 upgrades with the language unrecorded, not guessed."""
import json

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.errors import StudyError
from fairval.store import open_db
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl

ANSWER = {"quality": "4", "yes_positive": "5"}


def study_with_items(db, tmp_path, **settings):
    study = create_study(db, "s", "template_quality", raters_per_item=3, **settings)
    import_items(db, "s", write_jsonl(tmp_path / "items.jsonl",
                                      [{"id": f"t{k}", "filled_template": f"Q{k}?"} for k in range(3)]))
    return study


def rate_one(db, study, rater, language):
    session.arrive(db, study.study_id, rater, source="link")
    session.give_consent(db, study.study_id, rater, True, language=language)
    session.finish_instructions(db, study.study_id, rater)
    served = session.serve_next_item(db, study, rater)
    session.record_answer(db, study, rater, served.item_id, ANSWER)


@pytest.mark.parametrize("given, language, further", [
    ({"language": "en", "languages": ["ar", "fr"]}, "en", ("ar", "fr")),
    ({"language": "en", "languages": "ar,fr"}, "en", ("ar", "fr")),                   # as `study set` passes text
    ({"language": "es", "languages": ["es-MX", "AR", "ar", "zh"]}, "es", ("ar", "zh-Hans")),   # each once, shipped
    ({"language": "de"}, "de", ()),
])
def test_a_study_lists_its_languages(db, given, language, further):
    study = create_study(db, "s", "template_quality", **given)
    assert (study.settings.language, study.settings.languages) == (language, further)
    assert study.settings.offered() == (language, *further)


@pytest.mark.parametrize("languages, said", [
    (["ar", "tlh"], "languages: 'tlh' is not one fairval ships"),
    (7, "languages must be a list of languages"),
])
def test_a_language_fairval_does_not_ship_is_refused_in_one_line(db, languages, said):
    with pytest.raises(StudyError, match=said) as caught:
        create_study(db, "s", "template_quality", languages=languages)
    assert "\n" not in str(caught.value)
    assert "s" not in [r["study_id"] for r in db.query("SELECT study_id FROM studies")]


def test_the_rater_reads_what_they_picked_only_while_the_study_offers_it(db, tmp_path):
    study = study_with_items(db, tmp_path, language="en", languages=["ar"])
    rate_one(db, study, "r1", "ar")
    rate_one(db, study, "r2", "de")             # a client asking for a language the study does not offer
    assert session.rater_language(db, study, "r1") == "ar"
    assert session.rater_language(db, study, "r2") == "en"
    assert session.rater_language(db, study, "newcomer", "ar-EG") == "ar"     # before consent: what is asked
    assert session.rater_language(db, study, " r1 ", "en") == "ar"            # kept with consent wins
    stored = rating_store.ratings_frame(db, "s")
    assert dict(zip(stored["rater_id"].astype(str), stored["language"])) == {"r1": "ar", "r2": "en"}
    dropped = configure_study(db, "s", languages=[])
    assert session.rater_language(db, dropped, "r1") == "en"


def test_study_set_and_create_take_the_languages(db_path, cli_output):
    cli_output("study", "create", "a", "--task", "template_quality", "--language", "en,ar")
    cli_output("study", "create", "b", "--task", "template_quality", "--language", "fr", "--language", "sw")
    cli_output("study", "create", "c", "--task", "template_quality")
    cli_output("study", "set", "c", "languages=ar,hi")
    db = open_db(db_path)
    try:
        assert [load_study(db, n).settings.offered() for n in "abc"] == [("en", "ar"), ("fr", "sw"), ("en", "ar", "hi")]
    finally:
        db.close()
    shown = json.loads(cli_output("study", "show", "c", "--json"))
    assert shown["settings"]["languages"] == ["ar", "hi"]


@pytest.mark.parametrize("db_path", ["sqlite", "postgresql"], indirect=True)
def test_a_database_from_schema_22_keeps_its_ratings_with_the_language_unrecorded(db_path, tmp_path):
    """Schema v23 adds the rater's and each rating's language; a rating stored before says none (it is
    not guessed from the study's language, which may have changed since), a new one says the rater's."""
    from fairval.store.db import connect
    from fairval.store.schema import MIGRATIONS

    old = connect(db_path)
    for step in MIGRATIONS[:22]:
        step(old)
    old.set_schema_version(22)
    old.execute("INSERT INTO studies (study_id, task, settings, status, created_at) VALUES "
                "('s', 'template_quality', '{\"raters_per_item\": 3, \"language\": \"de\"}', 'open', 0)")
    old.execute("INSERT INTO items (study_id, item_id, position, data, source_format) VALUES "
                "('s', 't0', 0, '{\"filled_template\": \"Q?\"}', 'jsonl')")
    old.execute("INSERT INTO raters (study_id, rater_id, source, consent, instructions_done, started_at) "
                "VALUES ('s', 'old', 'link', 'given', 1, 0)")
    old.execute("INSERT INTO ratings (study_id, item_id, rater_id, question, value, canonical, source) VALUES "
                "('s', 't0', 'old', 'quality', '3', '3', 'app')")
    if old.dialect == "postgresql":
        old.commit()
    old.close()
    db = open_db(db_path)
    try:
        assert db.schema_version() == 23
        study = load_study(db, "s")
        assert session.rater_language(db, study, "old") == "de"       # consented before: the study's own
        rate_one(db, study, "new", "de")
        languages = {str(r): lang for r, lang in rating_store.ratings_frame(db, "s")[["rater_id", "language"]]
                     .drop_duplicates().itertuples(index=False)}
        assert languages == {"old": None, "new": "de"}
        assert db.scalar("SELECT language FROM raters WHERE rater_id = 'new'") == "de"
    finally:
        db.close()
