"""The rater picks the language on the consent screen (issue 57), in-process: a study in English and Arabic
offers both, each by its own name, in a labelled radio group; the pick redraws the page in Arabic, right to
left, survives a reload (in the link) and then consent (with the rater), and goes with each rating."""
import json

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import ratings as rating_store
from fairval.store.raters import get_rater
from fairval.ui.i18n import translator
from tests.conftest import write_jsonl
from tests.ui.apptest import rater_app, submit, titles

ar = translator("ar")


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "bi", "template_quality", raters_per_item=2, language="en", languages=["ar"])
    import_items(db, "bi", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Q a?"}]))


def page_language(at) -> tuple[str, str]:
    """The <html lang dir> the page sets (ui/page_language.py's component)."""
    found = [c for c in at.get("bidi_component") if c.proto.component_name.endswith("fairval_page_language")]
    data = json.loads(found[0].proto.json)
    return data["lang"], data["dir"]


def picker(at):
    return at.radio(key="rater-language")


def test_the_consent_screen_offers_each_language_by_its_own_name(db, study):
    at = rater_app(study="bi", rater="r1")
    assert titles(at) == ["Consent"] and page_language(at) == ("en", "ltr")
    assert picker(at).label == "Language"
    assert picker(at).options == ["English", "العربية"] and picker(at).value == "en"


def test_picking_arabic_redraws_the_page_right_to_left_and_a_reload_keeps_it(db, study):
    at = rater_app(study="bi", rater="r1")
    picker(at).set_value("ar").run()
    assert titles(at) == [ar("Consent")] and page_language(at) == ("ar", "rtl")
    assert picker(at).label == ar("Language") and picker(at).value == "ar"
    assert at.query_params["lang"] == "ar"
    reloaded = rater_app(**dict(at.query_params.items()))
    assert titles(reloaded) == [ar("Consent")] and page_language(reloaded) == ("ar", "rtl")
    assert get_rater(db, "bi", "r1")["language"] is None          # nothing is kept before consent


def test_the_pick_is_kept_with_consent_and_goes_with_each_rating(db, study):
    at = rater_app(study="bi", rater="r1")
    picker(at).set_value("ar").run()
    at.button(key="consent-yes").click().run()
    assert get_rater(db, "bi", "r1")["language"] == "ar"
    later = rater_app(study="bi", rater="r1")              # the link without the pick: consent kept it
    assert titles(later) == [ar("Instructions")] and page_language(later) == ("ar", "rtl")
    later.button(key="start").click().run()
    submit(later, {"quality": "4", "yes_positive": "2"})
    assert not later.exception
    assert set(rating_store.ratings_frame(db, "bi")["language"]) == {"ar"}


def test_a_language_the_study_does_not_offer_is_not_shown_nor_stored(db, study):
    at = rater_app(study="bi", rater="r2", lang="de")
    assert titles(at) == ["Consent"] and picker(at).value == "en"
    at.button(key="consent-yes").click().run()
    assert get_rater(db, "bi", "r2")["language"] == "en"


def test_a_study_in_one_language_shows_no_picker(db, tmp_path):
    create_study(db, "mono", "template_quality", raters_per_item=2, language="ar")
    import_items(db, "mono", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Q a?"}]))
    at = rater_app(study="mono", rater="r1", lang="en")
    assert titles(at) == [ar("Consent")] and not at.radio
    at.button(key="consent-yes").click().run()
    assert get_rater(db, "mono", "r1")["language"] == "ar"


def test_the_manage_page_lists_a_studys_languages(db, monkeypatch):
    from fairval.annotate.material.studies import load_study
    from tests.ui.apptest import signed_in

    at = signed_in("3_Manage.py", monkeypatch)
    at.text_input[0].input("two")
    at.selectbox(key="create-task").set_value("harmful_stereotype").run()
    at.text_input[0].input("two")
    at.multiselect(key="create-languages").set_value(["ar", "fr"])
    at.button(key="FormSubmitter:create-study-Create study").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert load_study(db, "two").settings.offered() == ("en", "ar", "fr")
    at.selectbox(key="manage-study").set_value("two").run()
    assert at.multiselect(key="cfg-two-languages").value == ["ar", "fr"]
    at.multiselect(key="cfg-two-languages").set_value(["hi"])
    at.button(key="FormSubmitter:configure-two-Save settings").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert load_study(db, "two").settings.offered() == ("en", "hi")


def test_the_results_page_shows_the_numbers_by_language(db, study, monkeypatch):
    from fairval.annotate.material.studies import load_study
    from fairval.annotate.rating import session
    from tests.ui.apptest import signed_in, table_with

    bi = load_study(db, "bi")
    for rater, picked in (("e", "en"), ("a", "ar")):
        session.arrive(db, "bi", rater, source="link")
        session.give_consent(db, "bi", rater, True, language=picked)
        session.finish_instructions(db, "bi", rater)
        served = session.serve_next_item(db, bi, rater)
        session.record_answer(db, bi, rater, served.item_id, {"quality": "4", "yes_positive": "2"})
    create_study(db, "mono", "template_quality", raters_per_item=2)
    at = signed_in("1_Results.py", monkeypatch)
    at.selectbox(key="study").set_value("bi").run()
    assert not at.exception
    table = table_with(at, "language")
    assert list(table["language"]) == ["en (English)"] * 2 + ["ar (العربية)"] * 2
    assert list(table["raters"]) == [1] * 4 and list(table["n"]) == [1] * 4
    assert set(table["note"]) == {"fewer than two raters"}
    # a study in one language: no such table
    at.selectbox(key="study").set_value("mono").run()
    assert not at.exception and at.dataframe
    assert not [t for t in at.dataframe if "language" in t.value.columns]
