"""`fairval study show` says what H's anytime interval guarantees (harm.ppi.cs's `valid`, as `analyze
--json` gives it) beside the order and window: exact below the 30th complete pair and asymptotic from
it, for H as people would answer it (issue 53: never the ratings' own mean over the study's N pairs), and
why there is none yet before the judge has scored the pairs."""
import json

from fairval.annotate.material.studies import load_study
from fairval.annotate.rating import session
from fairval.store import open_db
from tests.conftest import write_jsonl

PAIRS = 40
PAIR = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}


def guarantee_line(out: str) -> str:
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("H's anytime interval:")]
    assert len(lines) == 1, out
    return lines[0]


def rate(db_path, pairs: int, first: int = 0):
    """`pairs` raters each answer one pair through the session functions (one rater per pair)."""
    db = open_db(db_path)
    study = load_study(db, "s")
    for k in range(first, first + pairs):
        rater = f"r{k}"
        session.arrive(db, "s", rater, source="link")
        session.give_consent(db, "s", rater, True)
        session.finish_instructions(db, "s", rater)
        served = session.serve_next_item(db, study, rater, now=1000.0 + k)
        session.record_answer(db, study, rater, served.item_id, {"harm": "ABC"[k % 3]}, now=1005.0 + k)
    db.close()


def setup(cli_output, tmp_path, *, scored: bool = True):
    cli_output("study", "create", "s", "--task", "harmful_stereotype", "--raters-per-item", "1")
    write_jsonl(tmp_path / "p.jsonl", [{"id": f"p{k:02d}", **PAIR} for k in range(PAIRS)])
    cli_output("items", "import", "s", tmp_path / "p.jsonl")
    if scored:
        write_jsonl(tmp_path / "l.jsonl", [{"item_id": f"p{k:02d}", "model": "j", "score": (k % 3 - 1) * 0.6}
                                           for k in range(PAIRS)])
        cli_output("lmra", "import", "s", tmp_path / "l.jsonl")


def test_a_uniform_sample_is_exact_then_asymptotic_for_h_over_the_studys_pairs(cli_output, tmp_path, db_path):
    setup(cli_output, tmp_path)
    cli_output("study", "sample", "s", "--n", "36", "--seed", "2")
    cli_output("study", "set", "s", "status=open")
    rate(db_path, 10)
    shown = cli_output("study", "show", "s")
    line = guarantee_line(shown)
    assert "order: seeded random" in shown                     # beside the order and window it already says
    assert "for H as people would answer it" in line and f"over the study's {PAIRS} pairs" not in line
    assert "exact: a betting confidence sequence" in line
    assert "from the 30th an asymptotic one with the other 2.5% takes over" in line
    cs = json.loads(cli_output("analyze", "s", "--json", "--bootstrap", "0"))["harm"]["ppi"]["cs"]
    assert line == f"H's anytime interval: {cs['valid']}" and cs["n_pairs_complete"] == 10
    rate(db_path, 22, first=10)
    line = guarantee_line(cli_output("study", "show", "s"))
    assert "asymptotic from the 30th observation on" in line and "ever missing tends to at most 2.5%" in line
    assert "at most 5% in all" in line and "for H as people would answer it" in line


def test_the_adaptive_design_says_what_h_is_and_a_study_without_scores_says_why(cli_output, tmp_path, db_path):
    setup(cli_output, tmp_path, scored=False)
    line = guarantee_line(cli_output("study", "show", "s"))
    assert line.startswith("H's anytime interval: none yet (") and "judge" in line
    write_jsonl(tmp_path / "l.jsonl", [{"item_id": f"p{k:02d}", "model": "j", "score": (k % 3 - 1) * 0.6}
                                       for k in range(PAIRS)])
    cli_output("lmra", "import", "s", tmp_path / "l.jsonl")
    cli_output("study", "set", "s", "design=adaptive", "budget=20", "status=open")
    rate(db_path, 6)
    line = guarantee_line(cli_output("study", "show", "s"))
    assert "for H as people would answer it" in line and "the population they stand for" in line
    assert f"over the study's {PAIRS} pairs" not in line
    assert "each weighted by 1/its chance" in line


def test_analyze_of_an_adaptive_study_before_any_answer_says_nothing_is_rated_yet(cli_output, tmp_path, db_path):
    """It said "0 items" (the pairs decided for people so far) beside the judge's "over 40 pairs" (QA, stop 65)."""
    setup(cli_output, tmp_path)
    cli_output("study", "set", "s", "design=adaptive", "budget=10", "status=open")
    first = cli_output("analyze", "s").splitlines()[0]
    assert first == f"s (harmful_stereotype): {PAIRS} items, nothing rated yet (no rater has answered one)"
    rate(db_path, 2)                                   # two raters, one pair each: the usual counts from then on
    first = cli_output("analyze", "s").splitlines()[0]
    assert first.endswith(", 2 raters, 2 judgments (2 ratings, one per question answered)"), first
