"""Every task preset is served on the same rater page, answered, stored and analysed."""
import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.annotate.results.numbers import study_numbers
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl
from tests.ui.apptest import current_item, rater_app, submit, titles

PAIR = {"prompt": "Plan my week", "response_a": "Rest, Ann.", "response_b": "Work hard.",
        "group_a": "woman", "group_b": "man", "name_a": "Ann"}
CASES = {
    "name_perception": ({"name": "Keisha Jones", "race": "Black", "gender": "female"},
                        {"race": "Black", "gender": "female"}),
    "harmful_stereotype": (PAIR, {"harm": "A"}),
    "feature_label": ({**PAIR, "axis_question": "Which response is more cautious?"}, {"feature": "B"}),
    "scenario_select": ({"scenario": "Two candidates apply for a job.", "category": "age"}, {"keep": "yes"}),
    "template_quality": ({"filled_template": "Should the loan be approved?"}, {"quality": "4", "yes_positive": "5"}),
}


@pytest.mark.parametrize("task", list(CASES))
def test_each_preset_end_to_end(db, tmp_path, task):
    item, answers = CASES[task]
    create_study(db, "s", task, raters_per_item=1, flip_probability=1.0)
    import_items(db, "s", write_jsonl(tmp_path / "i.jsonl", [{"id": "x", **item}]))
    at = rater_app(study="s", rater="r")
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    assert current_item(at) == "x"
    if task in ("harmful_stereotype", "feature_label"):
        import re
        responses = [re.sub(r"<[^>]+>", "", h.proto.body) for h in at.get("html")
                     if "fv-response" in h.proto.body and "<style" not in h.proto.body]      # not the page's CSS
        assert responses == ["Work hard.", "Rest, [NAME]."]           # flipped, name masked
    submit(at, answers, comment="realistic" if task == "scenario_select" else None)
    assert titles(at) == ["Thank you, you have finished"], at.exception
    stored = rating_store.ratings_frame(db, "s").set_index("question")
    assert stored["value"].to_dict() == answers
    if task == "harmful_stereotype":
        assert stored.loc["harm", "canonical"] == "-1" and stored.loc["harm", "flipped"] == 1
    if task == "feature_label":
        assert stored.loc["feature", "canonical"] == "A"
    if task == "scenario_select":
        assert stored.loc["keep", "comment"] == "realistic"
    numbers = study_numbers(db, "s", n_boot=0).to_dict()
    assert numbers["n_ratings"] == len(answers)


def test_name_accuracy_matches_a_hand_count(db, tmp_path):
    create_study(db, "n", "name_perception")
    import_items(db, "n", write_jsonl(tmp_path / "n.jsonl", [
        {"id": "a", "name": "A", "race": "Black", "gender": "female"},
        {"id": "b", "name": "B", "race": "white", "gender": "male"}]))
    rows = [("a", "r1", "Black", "female"), ("a", "r2", "white", "female"), ("a", "r3", "Black", "male"),
            ("b", "r1", "white", "male"), ("b", "r2", "white", "male")]
    from fairval.annotate.material.importers import import_ratings
    import_ratings(db, "n", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": i, "rater_id": r, "question": q, "value": v}
        for i, r, race, gender in rows for q, v in (("race", race), ("gender", gender))]))
    names = study_numbers(db, "n", n_boot=0).to_dict()["names"]
    assert names["race_accuracy"] == {"Black": 2 / 3, "white": 1.0}
    assert names["gender_accuracy"] == {"female": 2 / 3, "male": 1.0}
    assert names["race_confusion"]["Black"]["white"] == 1 and names["race_confusion"]["white"]["white"] == 2
