"""Results' raters table counts a rater's check answers as the gold-accuracy flag beside it does (QA walk 62):
one check met (an item of two questions) both answered wrong reads "checks 1", "0% (0 of 2)" and the flag
"gold accuracy 0% below 75% (0 of 2)", never a bare 0.000 under a count-like heading."""
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from tests.conftest import write_discrim_eval, write_jsonl
from tests.ui.apptest import shown
from tests.ui.apptest import signed_in as sign_in

GOLD = {"quality": 1, "yes_positive": 1}


def test_the_raters_table_and_the_flag_count_the_same_answers(db, tmp_path, monkeypatch):
    create_study(db, "de", "template_quality", raters_per_item=3, gold_rate=0.25)
    for path in write_discrim_eval(tmp_path / "items"):
        import_items(db, "de", path)
    import_items(db, "de", write_jsonl(tmp_path / "gold.jsonl", [
        {"id": "check", "filled_template": "Please answer 1 to both.", "_gold": GOLD}]))
    study = load_study(db, "de")
    session.arrive(db, "de", "ann", source="link")
    session.give_consent(db, "de", "ann", True)
    session.finish_instructions(db, "de", "ann")
    wrong = 0
    for _ in range(5):
        served = session.serve_next_item(db, study, "ann")
        answer = {"quality": "4", "yes_positive": "4"}
        if served.gold:
            wrong += sum(str(GOLD[q]) != a for q, a in answer.items())
        session.record_answer(db, study, "ann", served.item_id, answer)
    assert wrong == 2                              # the one check, both of its questions answered otherwise
    at = sign_in("1_Results.py", monkeypatch)
    at.selectbox[0].set_value("de").run()
    table = next(shown(t) for t in at.dataframe if "checks" in shown(t).columns)
    row = table.set_index("rater").loc["ann"]
    assert int(row["checks"]) == 1
    assert row["check answers right"] == "0% (0 of 2)"
    assert "gold accuracy 0% below 75% (0 of 2)" in row["flags"]


def test_the_reports_raters_table_says_the_same(db, db_path, tmp_path):
    from click.testing import CliRunner

    from fairval.annotate.cli.main import cli
    create_study(db, "de", "template_quality", raters_per_item=3, gold_rate=0.25)
    for path in write_discrim_eval(tmp_path / "items"):
        import_items(db, "de", path)
    import_items(db, "de", write_jsonl(tmp_path / "gold.jsonl", [
        {"id": "check", "filled_template": "Please answer 1 to both.", "_gold": GOLD}]))
    study = load_study(db, "de")
    session.arrive(db, "de", "ann", source="link")
    session.give_consent(db, "de", "ann", True)
    session.finish_instructions(db, "de", "ann")
    for _ in range(5):
        served = session.serve_next_item(db, study, "ann")
        session.record_answer(db, study, "ann", served.item_id, {"quality": "1" if served.gold else "4",
                                                                 "yes_positive": "4"})
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["--db", str(db_path), "report", "de", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "50% (1 of 2)" in text and "gold accuracy 50% below 75% (1 of 2)" in text    # one of two right
