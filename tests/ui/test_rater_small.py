"""Smaller things a rater met on the way (issue 54): quotes in quotes, what a complete or busy study says."""
import re

import pytest

from fairval.annotate.material.tasks import PRESETS
from fairval.annotate.rating.session import Served
from fairval.ui.answer_card import practice_feedback
from fairval.ui.i18n import translator

# each language's outer quotes in the feedback sentence (its catalogue), and a pair of the same kind
OUTER = {"en": ("\u201c", "\u201d"), "de": ("\u201e", "\u201c"), "es": ("\u00ab", "\u00bb"), "fr": ("\u00ab", "\u00bb"),
         "ja": ("\u300c", "\u300d"), "zh_Hans": ("\u201c", "\u201d"), "ar": ("\u00ab", "\u00bb")}


@pytest.mark.parametrize("language", sorted(OUTER))
def test_pair_practice_feedback_never_nests_a_quote_in_quotes_of_its_kind(language):
    """The pair option's label quotes its groups (“woman”); quoted again in the feedback it read
    “Giving Response 1 to a user in the group “woman” …”, the quotes nested in their own kind."""
    task, t = PRESETS["harmful_stereotype"], translator(language)
    served = Served(item_id="p1", data={"prompt": "Q", "response_1": "R1", "response_2": "R2", "group_a": "woman",
                                        "group_b": "man"}, flipped=False, served_at=0.0, gold=False, practice=True,
                    expected={"harm": "A"})
    text = practice_feedback(task.translated(t), served, {"harm": "B"}, t)["harm"]["text"]
    opening, closing = OUTER[language]
    assert "woman" in text and "man" in text
    # outside the outer quotes' own spans, no quote of their kind: each span holds no further opening mark
    spans = re.findall(re.escape(opening) + "(.*?)" + re.escape(closing), text)
    assert len(spans) == 2, text
    assert all(opening not in span and closing not in span for span in spans), text


# CLDR's delimiters (common/main/ar.xml, fr.xml): Arabic opens a quotation with ” and closes it with “, the
# reverse of English; the curly marks are not mirrored right to left, where « and » are
INNER = {"ar": ("\u201d", "\u201c"), "fr": ("\u201c", "\u201d"), "en": ("\u2018", "\u2019")}


@pytest.mark.parametrize("language", sorted(INNER))
def test_the_groups_quoted_inside_the_feedback_take_the_languages_own_inner_quotes_in_order(language):
    """In Arabic the groups inside «…» read ”woman“ (opening mark first in the text, shown on the right):
    English's “woman” showed its marks reversed on an Arabic page (QA, stop 65)."""
    task, t = PRESETS["harmful_stereotype"], translator(language)
    served = Served(item_id="p1", data={"prompt": "Q", "response_1": "R1", "response_2": "R2",
                                        "group_a": "woman", "group_b": "man"},
                    flipped=False, served_at=0.0, gold=False, practice=True, expected={"harm": "A"})
    text = practice_feedback(task.translated(t), served, {"harm": "B"}, t)["harm"]["text"]
    opening, closing = INNER[language]
    assert text.count(f"{opening}woman{closing}") == 2 and text.count(f"{opening}man{closing}") == 2, text


ANSWER = {"quality": "5", "yes_positive": "4"}


@pytest.fixture
def one_item(db, tmp_path):
    """One item, one rater each: the smallest study a rater can complete, or hold."""
    from fairval.annotate.material.importers import import_items
    from fairval.annotate.material.studies import create_study
    from tests.conftest import write_jsonl

    create_study(db, "one", "template_quality", raters_per_item=1, screen_out_code="NOT-NEEDED-3")
    import_items(db, "one", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Should the bank lend?"}]))
    return db


def rate_everything(rater: str) -> None:
    from tests.ui.apptest import rater_app, submit, titles
    at = rater_app(study="one", rater=rater)
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    submit(at, ANSWER)
    assert titles(at) == ["Thank you, you have finished"]


def test_a_rater_arriving_at_a_complete_study_is_told_at_once_with_prolifics_code(one_item):
    """Not after consent, demographics, instructions and practice: before consent, with the screen-out code
    the study gives Prolific participants (issue 54)."""
    from tests.ui.apptest import rater_app, titles
    rate_everything("r1")
    late = rater_app(study="one", PROLIFIC_PID="p2", STUDY_ID="S", SESSION_ID="x")
    assert titles(late) == ["No items left for you"]
    assert not [b for b in late.button if b.key == "consent-yes"]
    assert "already has all the ratings it needs" in " ".join(m.value for m in late.markdown)
    assert [c.value for c in late.code] == ["NOT-NEEDED-3"]
    assert next(iter(late.get("link_button"))).proto.url.endswith("cc=NOT-NEEDED-3")
    consent = one_item.execute("SELECT consent FROM raters WHERE rater_id = 'p2'").fetchone()
    assert consent == (None,)                          # nothing asked of them, nothing recorded


def test_an_item_held_by_a_left_tab_is_said_as_reserved_to_raters_and_in_study_show(one_item, db_path):
    """r1 opened the item 10 minutes ago and left the tab: the study is not complete, its item is reserved
    for 20 more minutes of the 30. A new rater reads that, not "every item has all its ratings"; `study
    show` counts it (it said nothing: 0 items started)."""
    import time

    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    from fairval.annotate.material.studies import load_study
    from fairval.annotate.rating import session
    from tests.ui.apptest import rater_app, titles

    study = load_study(one_item, "one")
    session.arrive(one_item, "one", "r1", source="link")
    session.give_consent(one_item, "one", "r1", True)
    served = session.serve_next_item(one_item, study, "r1", now=time.time() - 600)   # back-dated: 10 min ago
    free_at = served.served_at + study.settings.timeout_seconds
    before = time.time()
    newcomer = rater_app(study="one", rater="r2")
    after = time.time()
    assert titles(newcomer) == ["No items left for you just now"]
    said = " ".join(m.value for m in newcomer.markdown)
    assert "being rated by someone else" in said and "all the ratings" not in said
    minutes = re.search(r"try again in about (\d+) min", said)
    assert minutes and -(-(free_at - after) // 60) <= int(minutes.group(1)) <= -(-(free_at - before) // 60), said
    assert not newcomer.code                           # not screened out: the study may still need them

    shown = CliRunner().invoke(cli, ["--db", str(db_path), "study", "show", "one"]).output
    assert re.search(r"items reserved 1 \(.*held 30 min.*the first comes free in (19|20) min\)", shown), shown
    as_json = CliRunner().invoke(cli, ["--db", str(db_path), "study", "show", "one", "--json"]).output
    import json
    assert json.loads(as_json)["progress"]["items_reserved"] == 1


def test_once_the_hold_lapses_a_new_rater_is_served_the_item(one_item):
    import time

    from fairval.annotate.material.studies import load_study
    from fairval.annotate.rating import session
    from tests.ui.apptest import current_item, rater_app, titles

    study = load_study(one_item, "one")
    session.arrive(one_item, "one", "r1", source="link")
    session.serve_next_item(one_item, study, "r1", now=time.time() - study.settings.timeout_seconds - 60)
    at = rater_app(study="one", rater="r2")
    assert titles(at) == ["Consent"]
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    assert current_item(at) == "a"


ITEM_OF = {"template_quality": {"filled_template": "Should the bank lend?"},
           "name_perception": {"name": "Ana Diaz", "race": "Hispanic", "gender": "female"},
           "harmful_stereotype": {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman",
                                  "group_b": "man"},
           "feature_label": {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman",
                             "group_b": "man", "axis_question": "Which is warmer?"},
           "scenario_select": {"scenario": "A hiring manager reads two CVs."}}


@pytest.mark.parametrize("language", ["en", "de", "ar"])
@pytest.mark.parametrize("task", sorted(ITEM_OF))
def test_the_default_consent_names_stereotypes_only_where_the_task_does(db, tmp_path, task, language):
    """Told "some texts may touch on stereotypes" before rating a template's wording or what a name suggests,
    a rater knows what is looked for; a pair's or scenario's raters read about stereotypes in the task anyway
    (issue 54). The words a rater reads, in the study's language, are compared with the catalogue's."""
    from fairval.annotate.material.importers import import_items
    from fairval.annotate.material.studies import create_study
    from tests.conftest import write_jsonl
    from tests.ui.apptest import rater_app, titles

    create_study(db, "c", task, raters_per_item=2, language=language)
    import_items(db, "c", write_jsonl(tmp_path / "i.jsonl", [{"id": "x", **ITEM_OF[task]}]))
    at = rater_app(study="c", rater="r1")
    t = translator(language)
    assert titles(at) == [t("Consent")]
    shown = " ".join(m.value for m in at.markdown)
    stereotypes = t("Some texts may touch on stereotypes about groups of people.") if language == "en" else \
        {"de": "Stereotyp", "ar": "نمطية"}[language]
    fairness = {"en": "fairness", "de": "Fairness", "ar": "عدالة"}[language]
    if task in ("harmful_stereotype", "feature_label", "scenario_select"):
        assert stereotypes in shown, shown
    else:
        assert stereotypes not in shown and fairness not in shown, shown
        assert {"en": "AI system", "de": "KI-System", "ar": "الذكاء الاصطناعي"}[language] in shown, shown


def test_a_study_created_on_manage_gets_its_tasks_default_consent(db, monkeypatch):
    """Manage's Create form shows the settings' default consent and sends it back unchanged: the study still
    gets its task's default, and a text the researcher wrote is kept as written."""
    from fairval.annotate.material.studies import load_study
    from fairval.annotate.material.study_settings import DEFAULT_CONSENT, NEUTRAL_CONSENT
    from tests.ui.apptest import signed_in

    at = signed_in("3_Manage.py", monkeypatch)
    at.text_input[0].set_value("made-here")
    at.selectbox[0].set_value("template_quality")
    at.button(key="FormSubmitter:create-study-Create study").click().run()
    assert not at.exception and [s.value for s in at.success] == ["Created study 'made-here'."], at.error
    assert load_study(db, "made-here").settings.consent_text == NEUTRAL_CONSENT
    from fairval.annotate.material.studies import create_study
    create_study(db, "own", "template_quality", consent_text="Our lab's own consent.")
    create_study(db, "pairs", "harmful_stereotype", consent_text=NEUTRAL_CONSENT)
    assert load_study(db, "own").settings.consent_text == "Our lab's own consent."
    assert load_study(db, "pairs").settings.consent_text == DEFAULT_CONSENT
