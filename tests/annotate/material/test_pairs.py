import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairval.annotate.material.pairs import (
    canonical_value,
    draw_flip,
    mask_names,
    responses_as_shown,
)
from fairval.annotate.material.tasks import get_task

HARM = get_task("harmful_stereotype").question("harm")
FEATURE = get_task("feature_label").question("feature")


def shown_value(question, canonical: str, flipped: bool) -> str:
    """Inverse of canonical_value, written out for the tests: what a rater with this order would have clicked."""
    if question.canonical == "harm":
        if canonical == "0":
            return "C"
        direct = canonical == "1"
        return "A" if direct != flipped else "B"
    if question.canonical == "feature":
        return {"A": "B", "B": "A"}.get(canonical, canonical) if flipped else canonical   # the swap undoes itself
    return canonical


@pytest.mark.parametrize("shown, flipped, canonical", [
    ("A", False, "1"),    # Response 1 is response_a: "give R1 to A" is the true assignment
    ("B", False, "-1"),
    ("A", True, "-1"),    # Response 1 is response_b: "give R1 to A" is the reverse
    ("B", True, "1"),
    ("C", False, "0"), ("C", True, "0"),
])
def test_harm_canonical(shown, flipped, canonical):
    assert canonical_value(HARM, shown, flipped) == canonical
    assert shown_value(HARM, canonical, flipped) == shown


@pytest.mark.parametrize("shown, flipped, canonical", [
    ("A", False, "A"), ("B", False, "B"), ("A", True, "B"), ("B", True, "A"), ("C", True, "C")])
def test_feature_canonical(shown, flipped, canonical):
    assert canonical_value(FEATURE, shown, flipped) == canonical
    assert shown_value(FEATURE, canonical, flipped) == shown


def test_flips_are_seeded_and_near_the_probability():
    draws = [draw_flip(9, "s", f"r{i}", "item", 0.5) for i in range(4000)]
    assert draws == [draw_flip(9, "s", f"r{i}", "item", 0.5) for i in range(4000)]
    assert 0.46 < sum(draws) / len(draws) < 0.54
    assert draws != [draw_flip(10, "s", f"r{i}", "item", 0.5) for i in range(4000)]
    assert not any(draw_flip(9, "s", f"r{i}", "item", 0.0) for i in range(100))
    assert all(draw_flip(9, "s", f"r{i}", "item", 1.0) for i in range(100))


def test_names_are_masked_in_responses_whole_words_only():
    item = {"response_a": "Hi Ann, as ANN knows, Annabel is here.", "response_b": "Dear Bob.",
            "name_a": "Ann", "name_b": "Bob"}
    assert responses_as_shown(item, False) == ("Hi [NAME], as [NAME] knows, Annabel is here.", "Dear [NAME].")
    assert responses_as_shown(item, True) == ("Dear [NAME].", "Hi [NAME], as [NAME] knows, Annabel is here.")


@given(st.sampled_from(["A", "B", "C"]), st.booleans())
def test_canonical_round_trip(shown, flipped):
    for q in (HARM, FEATURE):
        assert shown_value(q, canonical_value(q, shown, flipped), flipped) == shown


def test_mask_names_ignores_blank():
    assert mask_names("text", ["", "  "]) == "text"


def test_mask_names_masks_full_names_and_their_parts():
    assert mask_names("Dear Ana Diaz, as Ms. Diaz knows, Ana is a name.", ["Ana Diaz"]) == \
        "Dear [NAME], as Ms. [NAME] knows, [NAME] is a name."


def test_code_that_needs_a_scored_question_gets_it_or_one_line_naming_the_task():
    from fairval.annotate.material.pairs import the_scored_question
    from fairval.errors import TaskError

    assert the_scored_question(get_task("harmful_stereotype")) == HARM
    assert the_scored_question(get_task("feature_label")) == FEATURE
    with pytest.raises(TaskError, match="'template_quality' has no harm or feature question"):
        the_scored_question(get_task("template_quality"))
