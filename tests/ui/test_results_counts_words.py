"""The Results page, `fairval study show` and `fairval analyze` count with the same words (QA, stop 64: the page
said "Judgments 16 / 60" and "Active raters 0" where `analyze` said "2 raters, 32 ratings"). A judgment is one
rater's answers to one item; a rating is one answer to one question, so a two-question item's judgment holds
two ratings; raters are those who answered anything; "active" looks back over the study's timeout (30 min).
Each count is checked against the ratings table read here with SQL of the test's own."""
import time

from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from tests.conftest import write_jsonl
from tests.ui.apptest import signed_in

ANSWER = {"quality": "4", "yes_positive": "5"}          # template_quality asks two questions of each item


def _answer(db, study, rater: str, n: int, at: float) -> None:
    session.arrive(db, study.study_id, rater, source="link")
    session.give_consent(db, study.study_id, rater, True)
    session.finish_instructions(db, study.study_id, rater)
    for k in range(n):
        served = session.serve_next_item(db, study, rater, now=at + k)
        assert served is not None
        assert session.record_answer(db, study, rater, served.item_id, ANSWER, now=at + k + 0.5)


def _study(db, tmp_path):
    """ann answered 5 items and bob 3, both three hours ago; bob was served a 4th a minute ago (still at it)."""
    create_study(db, "counts", "template_quality", raters_per_item=3, seed=1)
    import_items(db, "counts", write_jsonl(tmp_path / "t.jsonl", [
        {"id": f"t{k}", "filled_template": f"Should the council approve request {k}?"} for k in range(10)]))
    study = load_study(db, "counts")
    hours_ago = time.time() - 3 * 3600            # back-dated rows: out of any 30-minute window
    _answer(db, study, "ann", 5, hours_ago)
    _answer(db, study, "bob", 3, hours_ago + 100)
    assert session.serve_next_item(db, study, "bob", now=time.time() - 60) is not None
    # the counts, from the ratings table itself
    ratings = db.scalar("SELECT COUNT(*) FROM ratings WHERE study_id = 'counts'")
    judgments = len(set(db.execute("SELECT item_id, rater_id FROM ratings WHERE study_id = 'counts'").fetchall()))
    raters = db.scalar("SELECT COUNT(DISTINCT rater_id) FROM ratings WHERE study_id = 'counts'")
    assert (judgments, ratings, raters) == (5 + 3, (5 + 3) * 2, 2)
    return judgments, ratings, raters


def test_the_results_page_names_what_it_counts(db, tmp_path, monkeypatch):
    judgments, ratings, raters = _study(db, tmp_path)
    at = signed_in("1_Results.py", monkeypatch)
    at.selectbox[0].set_value("counts").run()
    assert not at.exception, at.exception
    metrics = {m.label: m for m in at.metric}
    assert metrics["Judgments"].value == f"{judgments} / {10 * 3}"
    assert f"{judgments} judgments ({ratings} ratings, one per question answered)" in metrics["Judgments"].help
    assert "one rater's answers to one item" in metrics["Judgments"].help
    assert metrics["Raters"].value == str(raters)
    active = metrics["Active, last 30 min"]                  # was "Active raters", over a window it never named
    assert active.value == "1"                               # bob, served a minute ago; ann's rows are 3 h old
    assert "Raters active in the last 30 min" in active.help and "timeout" in active.help
    assert "Active raters" not in metrics
    # the ratings `analyze` counts are on the page too, not only in a help
    assert any(f"· {judgments} judgments ({ratings} ratings, one per question answered) ·" in c.value
               for c in at.caption), [c.value for c in at.caption]


def test_study_show_and_analyze_say_the_same(db, db_path, tmp_path):
    judgments, ratings, raters = _study(db, tmp_path)
    words = f"{judgments} judgments ({ratings} ratings, one per question answered)"
    analyzed = CliRunner().invoke(cli, ["--db", str(db_path), "analyze", "counts", "--bootstrap", "0"])
    assert analyzed.exit_code == 0, analyzed.output
    assert analyzed.output.splitlines()[0] == f"counts (template_quality): 10 items, {raters} raters, {words}"
    shown = CliRunner().invoke(cli, ["--db", str(db_path), "study", "show", "counts"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[1] == (f"  items complete 0 / 10, judgments {judgments} / 30, raters {raters}, raters active in "
                        "the last 30 min 1")
    assert lines[2] == f"  {words}; a judgment is one rater's answers to one item"
