"""The same rater link open in two tabs: the second tab's answer is "saved" only when it is what the first
stored, comment included; otherwise it is told its answer was not kept."""
import json

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl
from tests.ui.apptest import card, current_item, rater_app, submit, titles

ANSWER = {"quality": "4", "yes_positive": "5"}
NOT_KEPT = "already answered in another tab"
# template_quality's two questions with a comment box (a preset without one takes no comment)
COMMENTED = {"name": "tq_commented", "display": "template", "required_fields": ["filled_template"], "comment": True,
             "questions": [{"id": q, "prompt": q, "options": ["1", "2", "3", "4", "5"], "level": "ordinal"}
                           for q in ("quality", "yes_positive")]}


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "tq", task_definition=COMMENTED, raters_per_item=2)
    import_items(db, "tq", write_jsonl(tmp_path / "i.jsonl", [{"id": "a", "filled_template": "Q a?"},
                                                              {"id": "b", "filled_template": "Q b?"}]))


def _told(at) -> str:
    return " ".join(e.value for e in [*at.error, *at.warning, *at.info, *at.markdown, *at.caption])


def _two_tabs():
    first = rater_app(study="tq", rater="r1")
    assert titles(first) == ["Consent"]
    first.button(key="consent-yes").click().run()
    first.button(key="start").click().run()
    second = rater_app(study="tq", rater="r1")                # the same link in another tab: the same item
    assert current_item(second) == current_item(first)
    return first, second


@pytest.mark.parametrize("second_answer, second_comment, kept", [
    (ANSWER, "typed in the second tab", False), (ANSWER, " first tab's ", True),
    ({"quality": "2", "yes_positive": "5"}, "first tab's", False)])          # issue 55: another answer, second
def test_a_second_tabs_answer_is_saved_only_when_it_is_what_the_first_stored(db, study, second_answer,
                                                                              second_comment, kept):
    first, second = _two_tabs()
    item = current_item(first)
    submit(first, ANSWER, comment="first tab's")
    submit(second, second_answer, comment=second_comment, item=item)
    assert (NOT_KEPT in _told(second)) is not kept, _told(second)
    assert ("Answer saved" in json.dumps(card(second))) is kept
    stored = rating_store.ratings_frame(db, "tq")
    assert list(stored["comment"]) == ["first tab's", None]          # the first answer is kept, its comment once
    assert dict(zip(stored["question"], stored["value"])) == ANSWER
