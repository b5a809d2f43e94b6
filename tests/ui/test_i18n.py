"""The rater's way in the study's language. Every message fairval shows a rater (extracted from the code
with Babel, as a translator's tools would, and the preset tasks' words) has a translation with the same
{slots} in every shipped catalogue, the glossary's terms where its English terms appear, its own
msgctxt entry where one English word has two uses, and a study in each language walks from consent
to the completion code with no English fairval message on the way."""
import ast
import json
import re

import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from fairval.annotate.material.demo import ensure_demo  # noqa: F401  (the demo's studies stay English)
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.languages import LANGUAGES
from fairval.annotate.material.studies import create_study
from fairval.annotate.material.study_settings import DEFAULT_CONSENTS
from fairval.annotate.material.tasks import PRESETS
from fairval.annotate.serving.front import WAIT_TEXT, WAIT_TITLE
from fairval.ui.demographics import CONTEXT, GENDERS, RACES, UNANSWERED, answer_label, races
from fairval.ui.i18n import CONTEXT as SEPARATOR
from fairval.ui.i18n import catalogue, catalogue_path, translator
from fairval.ui.page_language import STREAMLIT_WORDS
from tests.conftest import ROOT, write_jsonl
from tests.ui.apptest import card, rater_app, submit, titles

RATER_FILES = ("ui/rater.py", "ui/rater_ends.py", "ui/rater_submit.py", "ui/answer_card.py", "ui/answers.py",
               "ui/demographics.py", "ui/line.py")
SLOT = re.compile(r"\{(\w+)\}")
SHIPPED = [code for code in LANGUAGES if code != "en"]
# Babel's keywords for fairval's calls: t("..."), N_("...") for a constant shown later, t.pgettext(ctx, "...")
KEYWORDS = {"t": None, "N_": None, "pgettext": ((1, "c"), 2)}
AMBIGUOUS = ("male", "female", "white")        # a name's perceived gender or race, and the rater's own


def extracted() -> list[str]:
    """What `pybabel extract -k t -k N_ -k pgettext:1c,2` finds in the rater's files, as catalogue keys."""
    found = []
    for name in RATER_FILES:
        for _line, message, _comments, context in extract_from_file("python", str(ROOT / name), keywords=KEYWORDS):
            found.append((context + SEPARATOR if context else "") + message)
    return found


def messages() -> list[str]:
    """Every message a rater can read from fairval itself, in English (the catalogues' keys: msgid, or
    msgctxt + separator + msgid)."""
    found = extracted()
    for task in PRESETS.values():
        found += [task.title, task.instructions]
        for question in task.questions:
            found += [question.prompt, *(o.label for o in question.options)]
    found += [CONTEXT + SEPARATOR + value for value in dict.fromkeys(GENDERS + RACES)]
    found += [*DEFAULT_CONSENTS, "Annotation study", *STREAMLIT_WORDS]
    found += [WAIT_TITLE, WAIT_TEXT]                 # the HTTP front's page over its bound (annotate/serving/front.py)
    return [m for m in dict.fromkeys(found) if m and not SLOT.fullmatch(m)]     # {axis_question} is the item's


def entries(language: str) -> list:
    with catalogue_path(language).open("rb") as f:
        return [m for m in read_po(f) if m.id]


def test_the_code_uses_messages():
    assert len(messages()) > 90 and "Submit" in messages() and "Which of the following is most true?" in messages()
    found = extracted()
    assert "Submit" in found and "Answer saved" in found
    from fairval.ui.rater import UNAVAILABLE
    assert UNAVAILABLE in found                                  # a constant marked N_ is extracted too


# what a rater reads, given to Streamlit: each must come through t (or be the researcher's own words)
SHOWN = {"title", "write", "markdown", "caption", "error", "warning", "info", "success", "button", "link_button",
         "radio", "text_input", "checkbox", "subheader", "form_submit_button", "text", "progress"}
RESEARCHERS_ONLY = {"Open studies (links keep the rater's parameters):"}


def test_no_english_line_reaches_a_rater_untranslated():
    """A string written in the code, or a module's constant, passed straight to a Streamlit call that shows
    it, would be English in every language (the server-error line was)."""
    bare = []
    for name in RATER_FILES:
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        constants = {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
                     if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SHOWN
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in ("st", "agree", "decline")):
                continue
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value not in RESEARCHERS_ONLY:
                    bare.append(f"{name}:{node.lineno} {arg.value[:40]!r}")
                if isinstance(arg, ast.Name) and arg.id in constants:
                    bare.append(f"{name}:{node.lineno} {arg.id}")
    assert bare == []


@pytest.mark.parametrize("language", SHIPPED)
def test_no_entry_is_empty_or_fuzzy(language):
    assert [m.id for m in entries(language) if not m.string or m.fuzzy] == []


@pytest.mark.parametrize("language", SHIPPED)
def test_every_slot_has_a_translators_comment(language):
    """A translator sees what each {slot} stands for beside the message (#. comments)."""
    unexplained = [(m.id, slot) for m in entries(language) for slot in SLOT.findall(m.id)
                   if not any("{" + slot + "}" in c for c in m.auto_comments)]
    assert unexplained == []


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
    texts += [b.label for b in at.button] + [r.label for r in at.radio] + [o for r in at.radio for o in r.options]
    texts += [i.label for i in at.text_input]
    texts += [p.proto.text for p in at.get("progress")]
    for c in at.get("bidi_component"):
        if c.proto.component_name.endswith("fairval_answer_card"):
            data = json.loads(c.proto.json)
            texts += [data["submit"], data["hint"], data["status"], data["announce"], data["missing"], data["busy"]]
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


GLOSSARY = json.loads((ROOT / "ui" / "locale" / "glossary.json").read_text(encoding="utf-8"))


def test_the_glossary_covers_every_language_and_each_term_is_met():
    assert set(GLOSSARY["languages"]) == set(SHIPPED)
    english = [m for m in messages() if SEPARATOR not in m]
    for term, trigger in GLOSSARY["triggers"].items():
        assert any(re.search(trigger, m, re.IGNORECASE) for m in english), term     # the check is not empty


@pytest.mark.parametrize("language", SHIPPED)
def test_the_glossarys_terms_are_used_wherever_their_english_term_is(language):
    """Where a message says "stereotype", "Response 1", "the last option", "{group_a}", …, its translation
    uses the language's one word for it: Hindi's stereotype is रूढ़िबद्ध धारणा everywhere, the last option
    is never worded as a Response."""
    glossary = GLOSSARY["languages"][language]
    found = entries(language)
    off = [(term, m.id[:50], m.string) for term, trigger in GLOSSARY["triggers"].items()
           for m in found if not m.context and re.search(trigger, m.id, re.IGNORECASE)
           and not re.search(glossary["terms"][term]["match"], m.string, re.IGNORECASE)]
    assert off == []


@pytest.mark.parametrize("language", SHIPPED)
def test_no_translation_uses_a_word_the_glossary_rules_out(language):
    avoid = GLOSSARY["languages"][language].get("avoid", {})
    hits = [(word, why, m.string) for m in entries(language) for word, why in avoid.items()
            if re.search(word, m.string)]
    assert hits == []


@pytest.mark.parametrize("language", SHIPPED)
def test_the_scale_is_the_glossarys_five_labels(language):
    table = catalogue(language)
    scale = [table[label] for label in GLOSSARY["scale"]]
    assert scale == GLOSSARY["languages"][language]["scale"]
    assert len(set(scale)) == 5


@pytest.mark.parametrize("language", SHIPPED)
def test_a_word_with_two_uses_has_a_msgctxt_entry_for_the_raters_own_answer(language):
    """"male", "female", "white": a name's perceived gender or race (the task's options) and the rater's own
    answer (About you) are separate entries, each translated."""
    t = translator(language)
    keyed = {(m.context, m.id) for m in entries(language) if m.string}
    assert [w for w in AMBIGUOUS if (CONTEXT, w) not in keyed or (None, w) not in keyed] == []
    assert [w for w in AMBIGUOUS if t.pgettext(CONTEXT, w) == w] == []


def test_each_language_offers_its_regions_answers_stored_as_one_common_value():
    for language in [*SHIPPED, "en"]:
        offered = races(language)
        assert set(offered) <= set(RACES) and offered[-2:] == RACES[-2:], language
        shown = [translator(language).pgettext(CONTEXT, v) for v in offered]
        assert len(set(shown)) == len(shown), language                  # no two answers read the same
    assert "Hispanic" not in races("hi") and "Native American" not in races("sw")


def test_a_rater_in_brazil_answers_cor_ou_raca_and_parda_is_stored_as_mixed(db, tmp_path):
    """The demographics page shows pt-BR's census answers (the msgctxt entries) and stores the common value."""
    from fairval.store.raters import get_rater
    create_study(db, "br", "template_quality", raters_per_item=1, language="pt-BR", demographics=["gender", "race"])
    import_items(db, "br", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    at = rater_app(study="br", rater="r1")
    at.button(key="consent-yes").click().run()
    gender, race = at.radio
    assert race.label == "Cor ou raça"
    assert race.options == ["Branca", "Preta", "Parda", "Amarela", "Indígena", "Prefiro me autodescrever",
                            "Prefiro não dizer"]
    assert gender.options[:2] == ["Mulher", "Homem"]                    # the rater's own, not "feminino"
    gender.set_value("female")
    race.set_value("mixed")
    at.button[0].click().run()
    assert titles(at) == [translator("pt-BR")("Instructions")]
    rater = get_rater(db, "br", "r1")
    assert (rater["gender"], rater["race"]) == ("female", "mixed")


@pytest.mark.parametrize("language", ["en", "de", "es", "pt-BR", "ar"])
def test_prefer_not_to_say_reads_the_same_in_the_lists_the_box_and_the_error_line(db, tmp_path, language):
    """Every answer offered starts with a capital, as the country's box and the error line do, so "Prefer not
    to say" is one phrase on the page (the lists said "prefer not to say" beside the box's "Prefer not to say")."""
    create_study(db, "d", "template_quality", raters_per_item=1, language=language,
                 demographics=["gender", "race", "country"])
    import_items(db, "d", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    at = rater_app(study="d", rater="r1")
    at.button(key="consent-yes").click().run()
    t = translator(language)
    box = at.checkbox(key="country-declined").label
    assert box == t("Prefer not to say")
    assert box in t(UNANSWERED, questions="")
    for radio in at.radio:
        assert radio.options[-1] == box, (language, radio.label)
        assert [o for o in radio.options if o[:1] != o[:1].upper()] == [], (language, radio.label)
    at.radio[0].set_value("prefer not to say")          # the stored value stays the common lower-case one
    at.radio[1].set_value("prefer not to say")
    at.checkbox(key="country-declined").check()
    at.button[0].click().run()
    row = db.execute("SELECT gender, race, country FROM raters WHERE rater_id = 'r1'").fetchone()
    assert tuple(row) == ("prefer not to say",) * 3


def test_the_server_error_line_is_in_the_studys_language(db, db_path):
    """When the database cannot be reached the rater reads it in the study's language, not English."""
    from streamlit.testing.v1 import AppTest

    from fairval.ui.rater import UNAVAILABLE
    from tests.ui.test_rater_page import read_only
    create_study(db, "ar", "template_quality", raters_per_item=1, language="ar")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.query_params["study"], at.query_params["rater"] = "ar", "newcomer"
    at.session_state["_fairval_db"] = (str(db_path), read_only(db_path))   # arriving needs a write
    at.run()
    assert [w.value for w in at.warning] == [translator("ar")(UNAVAILABLE)]
    assert translator("ar")(UNAVAILABLE) != UNAVAILABLE


def test_a_self_described_race_is_kept_in_the_raters_words(db, tmp_path):
    """Race offers "prefer to self-describe" with its box, as gender does; without words the choice is kept."""
    create_study(db, "sw", "template_quality", raters_per_item=1, language="sw", demographics=["race"])
    import_items(db, "sw", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    at = rater_app(study="sw", rater="r1")
    at.button(key="consent-yes").click().run()
    assert at.radio[0].label == "Rangi / asili"
    assert answer_label(translator("sw"), "prefer to self-describe") in at.radio[0].options
    at.radio[0].set_value("prefer to self-describe")
    at.text_input(key="race-described").set_value(" Mswahili wa pwani ")
    at.button[0].click().run()
    assert db.execute("SELECT race FROM raters WHERE rater_id = 'r1'").fetchone()[0] == "Mswahili wa pwani"


@pytest.mark.parametrize("language", ["de", "ja"])
def test_an_answer_waiting_for_the_database_is_said_in_the_studys_language(db, db_path, tmp_path, language):
    """A Submit the database cannot take (issue 55): the one sentence is the study's language's."""
    from fairval.ui.rater_submit import ANSWER_WAITS
    from tests.ui.test_rater_page import read_only
    create_study(db, "w", "template_quality", raters_per_item=1, language=language)
    import_items(db, "w", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    at = rater_app(study="w", rater="r1")
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    held = at.session_state["_fairval_db"][1]
    held.conn = read_only(db_path).conn
    submit(at, {"quality": "4", "yes_positive": "5"})
    assert [w.value for w in at.warning] == [translator(language)(ANSWER_WAITS)]
    assert translator(language)(ANSWER_WAITS) != ANSWER_WAITS


@pytest.mark.parametrize("language", ["en", *SHIPPED])
def test_the_about_you_error_names_each_question_left_unanswered(db, tmp_path, language):
    """The About-you error said "Please answer every question" and named none; it names each one left
    unanswered, in the rater's language, and none that was answered; nothing is stored."""
    create_study(db, "d", "template_quality", raters_per_item=1, language=language,
                 demographics=["gender", "race", "country"])
    import_items(db, "d", write_jsonl(tmp_path / "items.jsonl", [{"id": "q0", "filled_template": "Q0?"}]))
    at = rater_app(study="d", rater="r1")
    at.button(key="consent-yes").click().run()
    at.radio[1].set_value("white")                      # race answered; gender and country not
    at.button[0].click().run()
    t = translator(language)
    [error] = [e.value for e in at.error]
    assert t("Gender") in error and t("Country of residence") in error and t("Race / ethnicity") not in error
    assert t("Prefer not to say") in error
    if language == "en":
        assert error == "Answer “Gender” and “Country of residence” to go on, or choose “Prefer not to say”."
    assert tuple(db.execute("SELECT gender, race, country FROM raters WHERE rater_id = 'r1'").fetchone()) == (
        None, None, None)
    at.radio[0].set_value("female")
    at.button[0].click().run()
    [error] = [e.value for e in at.error]
    assert t("Country of residence") in error and t("Gender") not in error
