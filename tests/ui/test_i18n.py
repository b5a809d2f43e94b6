"""The rater's way in the study's language. Every message fairval shows a rater (found in the code by what it
passes to t(...), and the preset tasks' words) has a translation with the same {slots} in every shipped
catalogue, and a study in each language walks from consent to the completion code with no English
fairval message on the way."""
import ast
import json
import re

import pytest

from fairval.annotate.material.demo import ensure_demo  # noqa: F401  (the demo's studies stay English)
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.languages import LANGUAGES
from fairval.annotate.material.studies import DEFAULT_CONSENT, create_study
from fairval.annotate.material.tasks import PRESETS
from fairval.ui.i18n import catalogue, translator
from fairval.ui.page_language import STREAMLIT_WORDS
from fairval.ui.rater import GENDERS, RACES
from tests.conftest import ROOT, write_jsonl
from tests.ui.apptest import card, rater_app, submit, titles

RATER_FILES = ("ui/rater.py", "ui/answer_card.py", "ui/answers.py")
SLOT = re.compile(r"\{(\w+)\}")
SHIPPED = [code for code in LANGUAGES if code != "en"]


def messages() -> list[str]:
    """Every message a rater can read from fairval itself, in English (the catalogues' msgids)."""
    found = []
    for name in RATER_FILES:
        for node in ast.walk(ast.parse((ROOT / name).read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.append(node.args[0].value)
    for task in PRESETS.values():
        found += [task.title, task.instructions]
        for question in task.questions:
            found += [question.prompt, *(o.label for o in question.options)]
    found += [*GENDERS, *RACES, DEFAULT_CONSENT, "Annotation study", *STREAMLIT_WORDS]
    return [m for m in dict.fromkeys(found) if m and not SLOT.fullmatch(m)]     # {axis_question} is the item's


def test_the_code_uses_messages():
    assert len(messages()) > 90 and "Submit" in messages() and "Which of the following is most true?" in messages()


@pytest.mark.parametrize("language", SHIPPED)
def test_every_message_is_translated_with_its_slots(language):
    table = catalogue(language)
    missing = [m for m in messages() if not table.get(m)]
    assert missing == []
    wrong = [m for m in messages() if set(SLOT.findall(m)) != set(SLOT.findall(table[m]))]
    assert wrong == []
    assert set(table) - set(messages()) == set()                 # nothing stale left in the catalogue


def test_a_tag_picks_the_shipped_language_and_an_unknown_one_is_refused(db):
    assert create_study(db, "a", "template_quality", language="es-MX").settings.language == "es"
    assert create_study(db, "b", "template_quality", language="zh-CN").settings.language == "zh-Hans"
    from fairval.errors import StudyError
    with pytest.raises(StudyError, match="language must be one fairval ships"):
        create_study(db, "c", "template_quality", language="xx")


def _visible(at) -> list[str]:
    """Every text on the rater's screen: titles, text, buttons, captions, alerts, the card's words."""
    texts = [e.value for kind in ("title", "markdown", "caption", "text", "info", "warning", "error", "success", "code")
             for e in getattr(at, kind)]
    texts += [b.label for b in at.button] + [r.label for r in at.radio] + [o for r in at.radio for o in r.options] + [i.label for i in at.text_input]
    texts += [p.proto.text for p in at.get("progress")]
    for c in at.get("bidi_component"):
        if c.proto.component_name.endswith("fairval_answer_card"):
            data = json.loads(c.proto.json)
            texts += [data["submit"], data["hint"], data["status"], data["missing"], data["busy"]]
            for q in data["questions"]:
                texts += [q["prompt"], *(o["label"] for o in q["options"])]
    return texts


def _english_left(texts: list[str], language: str) -> list[str]:
    """Texts that are an English message whose translation differs (so English where it should not be)."""
    table = catalogue(language)
    english = {m for m in messages() if table.get(m) and table[m] != m and len(m) > 3}
    whole = [re.compile(rf"(?<!\w){re.escape(m)}(?!\w)") for m in english if not SLOT.search(m)]
    return [t for t in texts if any(w.search(t) for w in whole)]


@pytest.mark.parametrize("language", SHIPPED)
def test_a_rater_walks_a_study_in_its_language(db, tmp_path, language):
    create_study(db, "tq", "template_quality", raters_per_item=1, completion_code="CODE-1", language=language,
                 demographics=["gender", "country"])
    import_items(db, "tq", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    t = translator(language)
    at = rater_app(study="tq", rater="r1")
    seen = _visible(at)
    assert titles(at) == [t("Consent")]
    at.button(key="consent-yes").click().run()
    assert titles(at) == [t("About you")]
    seen += _visible(at)
    at.radio[0].set_value("female")
    at.text_input(key="country").set_value("Kenya")
    at.button[0].click().run()
    assert titles(at) == [t("Instructions")]
    seen += _visible(at)
    at.button(key="start").click().run()
    seen += _visible(at)
    shown = card(at)
    assert shown["lang"] == language and shown["dir"] == ("rtl" if language == "ar" else "ltr")
    submit(at, {"quality": "5", "yes_positive": "4"})
    assert titles(at) == [t("Thank you, you have finished")]
    seen += _visible(at)
    assert _english_left(seen, language) == []
    assert any("CODE-1" in s for s in seen)


def test_the_command_line_sets_the_language(cli_output, db_path):
    cli_output("study", "create", "s", "--task", "name_perception", "--language", "pt")
    from fairval.annotate.material.studies import load_study
    from fairval.store import open_db
    db = open_db(db_path)
    assert load_study(db, "s").settings.language == "pt-BR"
    db.close()
    cli_output("study", "set", "s", "language=ar")
    db = open_db(db_path)
    assert load_study(db, "s").settings.language == "ar"
    db.close()
