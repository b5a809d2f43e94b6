"""The same rater link open in two tabs: the second tab's answer is "saved" only when it is what the first
stored, comment included; otherwise it is told its answer was not kept."""
import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl
from tests.ui.apptest import current_item, rater_app, submit, titles

ANSWER = {"quality": "4", "yes_positive": "5"}
NOT_KEPT = "already answered in another tab"


@pytest.fixture
def study(db, tmp_path):
    create_study(db, "tq", "template_quality", raters_per_item=2)
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


@pytest.mark.parametrize("second_comment, kept", [("typed in the second tab", False), (" first tab's ", True)])
def test_a_second_tabs_answer_is_saved_only_with_the_same_comment(db, study, second_comment, kept):
    first, second = _two_tabs()
    item = current_item(first)
    submit(first, ANSWER, comment="first tab's")
    submit(second, ANSWER, comment=second_comment, item=item)
    assert (NOT_KEPT in _told(second)) is not kept, _told(second)
    stored = rating_store.ratings_frame(db, "tq")
    assert set(stored["comment"]) == {"first tab's"}                          # the first answer is kept
