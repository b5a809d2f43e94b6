"""Results on a name study whose items hold a group no rater could answer (issue 54): a warning that says why,
and no accuracy of 0.000 for it."""
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from tests.conftest import write_jsonl
from tests.ui.apptest import plain, signed_in, table_with


def test_results_says_why_a_group_has_no_accuracy(db, monkeypatch, tmp_path):
    create_study(db, "old", "name_perception", raters_per_item=2)
    import_items(db, "old", write_jsonl(tmp_path / "n.jsonl", [
        {"id": f"n{k}", "name": f"Person {k}", "race": "Black", "gender": "male"} for k in range(2)]))
    db.execute("UPDATE items SET data = REPLACE(data, '\"Black\"', '\"black\"') WHERE study_id = 'old'")
    study = load_study(db, "old")
    for rater in ("r1", "r2"):
        session.arrive(db, "old", rater, source="link")
        session.give_consent(db, "old", rater, True)
        session.finish_instructions(db, "old", rater)
        while (served := session.serve_next_item(db, study, rater)) is not None:
            session.record_answer(db, study, rater, served.item_id, {"race": "Black", "gender": "male"})
    at = signed_in("1_Results.py", monkeypatch)
    at.query_params["study"] = "old"
    at.run()
    assert not at.exception, at.exception
    # plain text, not Markdown: the reason quotes the label as imported (a hostile one must not render)
    warnings = [plain(w.value) for w in at.text if w.value.startswith("⚠")]
    assert any("no accuracy: 'black' is not one of the answers" in w and "it may mean 'Black'" in w
               for w in warnings), warnings
    race = table_with(at, "intended")
    assert list(race["intended"][:1]) == ["black"] and "0.000" not in list(race["accuracy"][:1])
