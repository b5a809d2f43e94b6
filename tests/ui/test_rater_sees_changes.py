"""What a researcher changes reaches a rater's very next rerun, although the page no longer parses the
study on each run (issue 58: load_study keeps the parsed study while its stored row is unchanged)."""
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study
from tests.conftest import write_jsonl
from tests.ui.apptest import rater_app, titles


def _study(db, tmp_path):
    create_study(db, "tq", "template_quality", raters_per_item=2, consent_text="Words of the first version.")
    import_items(db, "tq", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Should it?"},
                                                              {"id": "b", "filled_template": "Should it not?"}]))


def _said(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_a_new_consent_text_and_a_pause_reach_the_next_rerun(db, tmp_path):
    _study(db, tmp_path)
    at = rater_app(study="tq", rater="r1")
    assert titles(at) == ["Consent"] and "first version" in _said(at)
    at.run()
    configure_study(db, "tq", consent_text="Words of the second version.")
    at.run()
    assert "second version" in _said(at) and "first version" not in _said(at)
    configure_study(db, "tq", status="paused")
    at.run()
    assert titles(at) == ["This study is paused"]
    configure_study(db, "tq", status="open")
    at.run()
    assert titles(at) == ["Consent"]


def test_a_new_language_reaches_the_next_rerun(db, tmp_path):
    _study(db, tmp_path)
    at = rater_app(study="tq", rater="r1")
    at.button(key="consent-yes").click().run()
    assert titles(at) == ["Instructions"]
    configure_study(db, "tq", language="de")
    at.run()
    assert titles(at) == ["Anleitung"]
