"""The adaptive design run through the real rater page (Streamlit's AppTest runs app.py in-process): raters
are served pairs the design decides as they go; the Submit that brings H's anytime interval to the
target width stops the study; the Prolific fake on 127.0.0.1 sees exactly one pause; nobody is served
after the stop, and a rater who held a pair when it stopped submits it and has it kept."""
import pytest
from click.testing import CliRunner

from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.cli.main import cli
from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import create_study, load_study
from fairval.store import audit
from fairval.store import items as item_store
from fairval.store import ratings as rating_store
from tests.annotate.adaptive.adaptive_worlds import decided_count
from tests.conftest import write_jsonl
from tests.ui.apptest import current_item, page, plain, rater_app, submit, titles

SURE = {"p_a": 0.02, "p_b": 0.02, "p_c": 0.96, "q_a": 0.02, "q_b": 0.02, "q_c": 0.96}
UNSURE = {"p_a": 0.45, "p_b": 0.25, "p_c": 0.30, "q_a": 0.35, "q_b": 0.35, "q_c": 0.30}
PAIRS, BUDGET, TARGET = 80, 40, 0.6


def onboard(rater):
    at = rater_app(study="ad", rater=rater)
    at.button(key="consent-yes").click().run()
    at.button(key="start").click().run()
    return at


@pytest.fixture
def pairs(db, tmp_path):
    """Study "ad": 80 pairs the judge "j" scored, sure of the first half, unsure of the rest."""
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    create_study(db, "ad", "harmful_stereotype", raters_per_item=1, seed=3, target_ci_width=TARGET,
                 prolific_study_id="PSTUDY")
    import_items(db, "ad", write_jsonl(tmp_path / "p.jsonl", [{"id": f"p{k:02d}", **pair} for k in range(PAIRS)]))
    import_lmra(db, "ad", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": f"p{k:02d}", "model": "j", **(SURE if k < PAIRS // 2 else UNSURE)} for k in range(PAIRS)]))
    return db


def manage(monkeypatch):
    """The Manage page, signed in, on study "ad"."""
    monkeypatch.setenv("FAIRVAL_RESEARCHER_PASSWORD", "s3cret")
    at = page("3_Manage.py")
    at.text_input[0].input("s3cret")
    at.button[0].click().run()
    at.selectbox(key="manage-study").set_value("ad").run()
    return at


def test_manage_sets_the_adaptive_design_and_says_it(pairs, monkeypatch):
    at = manage(monkeypatch)
    submit_design = "FormSubmitter:design-ad-Use the adaptive design"
    at.number_input(key="budget-ad").set_value(PAIRS)                # every pair: refused, in words
    at.button(key=submit_design).click().run()
    assert any("budget must be between 1 and 79" in plain(e.value) for e in at.error)
    assert not adaptive.is_adaptive(load_study(pairs, "ad"))
    at.number_input(key="budget-ad").set_value(BUDGET)
    at.button(key=submit_design).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert load_study(pairs, "ad").recorded.human_sample["budget"] == BUDGET
    said = " ".join(m.value for m in at.markdown)
    assert f"about {BUDGET} of {PAIRS} pairs to people" in said and "0 decided" in said


def test_the_adaptive_study_stops_itself_at_the_target_width(pairs, db_path, fake):
    db = pairs
    adaptive.start(db, "ad", BUDGET)
    # two raters each hold a pair and answer in turn, as people rate side by side: when a Submit stops the
    # study, the other is in the middle of a pair decided after it
    raters = [onboard("one"), onboard("two")]
    answered = 0
    while True:
        assert answered < BUDGET * 2, "the study never stopped"
        item = current_item(raters[0])
        submit(raters[0], {"harm": "C" if int(item[1:]) < PAIRS // 2 or int(item[1:]) % 3 else "A"})
        answered += 1
        if titles(raters[0]) == ["This study is paused"]:
            break
        raters.reverse()
    holder = raters[1]
    held = current_item(holder)
    study = load_study(db, "ad")
    stopped = study.recorded.stopped
    assert study.status == "paused" and stopped["ci"][1] - stopped["ci"][0] <= TARGET
    assert -1 <= stopped["ci"][0] < stopped["value"] < stopped["ci"][1] <= 1
    assert stopped["n_pairs_complete"] == answered and stopped["prolific"] == "paused"
    decided, kept, undecided = decided_count(db, "ad")
    assert kept == answered + 1 and undecided > 0            # stopped early: pairs left undecided, never served
    pauses = [c for c in fake.calls if c[1].endswith("/transition/") and "/studies/" in c[1]]
    assert len(pauses) == 1 and fake.study_status == "PAUSED"
    served = db.scalar("SELECT COUNT(*) FROM assignments WHERE study_id = 'ad'")
    late = rater_app(study="ad", rater="late")                # a new rater meets the pause, and takes nothing
    assert titles(late) == ["This study is paused"]
    submit(holder, {"harm": "C"})                            # the pair held when it stopped: kept
    assert titles(holder) == ["This study is paused"]
    assert rating_store.raters_of_item(db, "ad", held) == 1
    assert decided_count(db, "ad") == (decided, kept, undecided)   # nothing decided after the stop
    assert db.scalar("SELECT COUNT(*) FROM assignments WHERE study_id = 'ad'") == served   # nobody served after
    actions = [r["action"] for r in audit.entries(db, "ad")]
    assert actions.count("study.stop") == 1 and actions.count("prolific.pause") == 1
    shown = CliRunner().invoke(cli, ["--db", str(db_path), "study", "show", "ad"]).output  # when, why, the interval
    lo, hi = stopped["ci"]
    assert "stopped itself on" in shown and f"[{lo:.3f}, {hi:.3f}] over {answered} complete pairs" in shown
    assert f"{decided} decided, {kept} of them went to people, {undecided} not yet" in shown
    chances = item_store.decisions_frame(db, "ad")["chance"].dropna()
    if chances.nunique() == 1:              # and whether the chances leaned on the judge
        assert "every pair so far had the uniform chance" in shown
    else:
        assert f"chances so far {chances.min():.3f}–{chances.max():.3f}" in shown


def test_manage_sends_people_only_the_pairs_the_judge_is_unsure_of(pairs, db, db_path, tmp_path, monkeypatch):
    """Manage's trust-or-escalate form does what `study sample --escalate` does, and refuses in words."""
    from tests.annotate.judge.test_escalate import _pilot
    runner = CliRunner()

    def cli_output(*args):
        result = runner.invoke(cli, ["--db", str(db_path), *map(str, args)])
        assert result.exit_code == 0, result.output
        return result.output
    _pilot(cli_output, tmp_path)                       # 120 rated pairs of "pilot": the judge is trusted above 0.96
    at = manage(monkeypatch)
    submit_escalate = "FormSubmitter:escalate-ad-Escalate to people only where the judge is unsure"
    at.button(key=submit_escalate).click().run()
    assert any("choose the pilot study" in plain(e.value) for e in at.error)
    at.selectbox(key="pilot-ad").set_value("pilot")
    at.button(key=submit_escalate).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    sample = load_study(db, "ad").recorded.human_sample
    assert sample["design"] == "escalate" and sample["n"] == PAIRS // 2 and sample["trusted"] == PAIRS // 2
    said = " ".join(m.value for m in at.markdown)
    assert f"trust or escalate: {PAIRS // 2} of {PAIRS} pairs to people" in said.lower()
