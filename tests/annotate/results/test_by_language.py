"""A study in two languages (issue 57): each rater's pick is stored with every rating they give, exported,
and `analyze --json` splits agreement by it, each language's alpha checked here against Krippendorff's
definition written out in this file (itself checked on his published example)."""
import itertools
import json

import numpy as np
import pandas as pd
import pytest

from fairval.annotate.material.importers import import_items, import_ratings
from fairval.annotate.material.studies import create_study
from fairval.annotate.rating import session
from fairval.store import ratings as rating_store
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends

# answers by rater (quality, yes_positive per item): the English raters mostly agree, the Arabic ones do not
ITEMS = [f"t{i}" for i in range(6)]
ANSWERS = {
    "en1": ["5", "4", "2", "1", "3", "5"], "en2": ["5", "4", "2", "2", "3", "4"], "en3": ["4", "4", "1", "1", "3", "5"],
    "ar1": ["1", "5", "3", "2", "4", "1"], "ar2": ["5", "2", "4", "1", "2", "3"], "ar3": ["3", "3", "1", "5", "5", "2"],
}
PICKED = {"en1": "en", "en2": "en", "en3": "en", "ar1": "ar", "ar2": "ar", "ar3": "ar"}

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", 4 coders x 12 units; ordinal alpha 0.815
K2011 = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


def ordinal_alpha(units: list[list[int]], domain: list[int]) -> float:
    """Ordinal alpha from the definition: the coincidence matrix of pairable values, the ordinal
    distance (sum of the marginals from c to k less half of both ends, squared), 1 - D_o / D_e."""
    units = [u for u in units if len(u) >= 2]
    index = {v: k for k, v in enumerate(domain)}
    o = np.zeros((len(domain), len(domain)))
    for values in units:
        for a, b in itertools.permutations(values, 2):
            o[index[a], index[b]] += 1 / (len(values) - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    delta = np.zeros_like(o)
    for c, k in itertools.product(range(len(domain)), repeat=2):
        low, high = min(c, k), max(c, k)
        delta[c, k] = (n_c[low:high + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2
    observed = (o * delta).sum()
    expected = (np.outer(n_c, n_c) * delta).sum() / (n - 1)
    return 1 - observed / expected


def agreement(units: list[list[int]]) -> float:
    pairs = [a == b for u in units if len(u) >= 2 for a, b in itertools.permutations(u, 2)]
    return sum(pairs) / len(pairs)


def test_the_definition_here_gives_krippendorffs_published_value():
    units = [[row[u] for row in K2011 if row[u] is not None] for u in range(12)]
    assert round(ordinal_alpha(units, [1, 2, 3, 4, 5]), 3) == 0.815


@pytest.fixture
def two_languages(db, tmp_path):
    study = create_study(db, "bi", "template_quality", raters_per_item=6, seed=3, language="en", languages=["ar"])
    import_items(db, "bi", write_jsonl(tmp_path / "items.jsonl",
                                       [{"id": i, "filled_template": f"Question {i}?"} for i in ITEMS]))
    for rater, picked in PICKED.items():
        session.arrive(db, "bi", rater, source="link")
        session.give_consent(db, "bi", rater, True, language=picked)
        session.finish_instructions(db, "bi", rater)
        while (served := session.serve_next_item(db, study, rater)) is not None:
            value = ANSWERS[rater][ITEMS.index(served.item_id)]
            session.record_answer(db, study, rater, served.item_id, {"quality": value, "yes_positive": "3"})
    return study


def test_each_rating_carries_the_language_its_rater_picked(db, two_languages):
    frame = rating_store.ratings_frame(db, "bi")
    assert len(frame) == 6 * 6 * 2
    assert dict(zip(frame["rater_id"].astype(str), frame["language"])) == PICKED


def test_analyze_splits_agreement_by_language(db, two_languages, cli_output):
    numbers = json.loads(cli_output("analyze", "bi", "--json", "--bootstrap", "200"))
    split = numbers["by_language"]
    assert list(split) == ["en", "ar"]
    for language in ("en", "ar"):
        raters = [r for r, picked in PICKED.items() if picked == language]
        units = [[int(ANSWERS[r][k]) for r in raters] for k in range(len(ITEMS))]
        quality = split[language]["questions"]["quality"]
        assert (split[language]["n_raters"], split[language]["n_ratings"], split[language]["n_items"]) == (3, 36, 6)
        assert quality["alpha"] == pytest.approx(ordinal_alpha(units, [1, 2, 3, 4, 5]))
        assert quality["percent_agreement"] == pytest.approx(agreement(units))
        low, high = quality["alpha_ci"]
        assert -1 <= low <= quality["alpha"] <= high <= 1 and low < high
        assert quality["distribution"] == {str(v): sum(u.count(v) for u in units) for v in range(1, 6)}
        # every answer the same: alpha undefined, and said why
        assert split[language]["questions"]["yes_positive"]["alpha"] is None
        assert "same value" in split[language]["questions"]["yes_positive"]["reason"]
    assert split["en"]["questions"]["quality"]["alpha"] > 0.8 > 0 > split["ar"]["questions"]["quality"]["alpha"]
    # the whole study's alpha is neither language's
    everyone = [[int(ANSWERS[r][k]) for r in ANSWERS] for k in range(len(ITEMS))]
    assert numbers["questions"]["quality"]["alpha"] == pytest.approx(ordinal_alpha(everyone, [1, 2, 3, 4, 5]))


def test_the_exported_ratings_carry_the_language(db, two_languages, cli_output, tmp_path):
    out = tmp_path / "ratings.csv"
    cli_output("export-ratings", "bi", "--out", out)
    exported = pd.read_csv(out)
    assert dict(zip(exported["rater_id"], exported["language"])) == PICKED


def test_a_study_in_one_language_has_no_split(db, tmp_path, cli_output):
    study = create_study(db, "mono", "template_quality", raters_per_item=2, language="de")
    import_items(db, "mono", write_jsonl(tmp_path / "items.jsonl", [{"id": "a", "filled_template": "Q?"}]))
    session.arrive(db, "mono", "r", source="link")
    session.give_consent(db, "mono", "r", True, language="de")
    session.finish_instructions(db, "mono", "r")
    served = session.serve_next_item(db, study, "r")
    session.record_answer(db, study, "r", served.item_id, {"quality": "4", "yes_positive": "4"})
    assert set(rating_store.ratings_frame(db, "mono")["language"]) == {"de"}
    assert "by_language" not in json.loads(cli_output("analyze", "mono", "--json", "--bootstrap", "0"))


def test_imported_ratings_may_say_their_language(db, tmp_path, cli_output):
    create_study(db, "imp", "template_quality", raters_per_item=2)
    import_items(db, "imp", write_jsonl(tmp_path / "items.jsonl", [{"id": "a", "filled_template": "Q?"}]))
    rows = [{"item_id": "a", "rater_id": r, "question": "quality", "value": v, "language": lang}
            for r, v, lang in (("x", "4", "fr"), ("y", "5", "sw"), ("z", "5", ""))]
    import_ratings(db, "imp", write_jsonl(tmp_path / "ratings.jsonl", rows))
    split = json.loads(cli_output("analyze", "imp", "--json", "--bootstrap", "0"))["by_language"]
    assert {k: v["n_ratings"] for k, v in split.items()} == {"en": 0, "fr": 1, "sw": 1, "unrecorded": 1}
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"item_id": "a", "rater_id": "w", "question": "quality",
                                                "value": "3", "language": "klingon"}])
    from fairval.errors import ImportProblem
    with pytest.raises(ImportProblem, match=r"language.*'klingon' is not a language fairval ships"):
        import_ratings(db, "imp", bad)
    assert rating_store.rating_count(db, "imp") == 3


def test_the_report_shows_the_split(db, two_languages, cli_output, tmp_path):
    out = tmp_path / "report.md"
    cli_output("report", "bi", "--out", out)
    text = out.read_text(encoding="utf-8")
    section = text[text.index("Questions by the raters' language"):]
    section = section[:section.index("\n## ")].replace("\\", "")          # the Markdown's escapes undone
    rows = [line for line in section.splitlines() if line.startswith("| ") and "(" in line]
    assert [line.split("|")[1].strip() for line in rows] == ["en (English)"] * 2 + ["ar (العربية)"] * 2
    assert [line.split("|")[3].strip() for line in rows] == ["quality", "yes_positive"] * 2
    # a study in one language: no such section
    create_study(db, "mono", "template_quality", raters_per_item=2)
    import_items(db, "mono", write_jsonl(tmp_path / "mono.jsonl", [{"id": "a", "filled_template": "Q?"}]))
    cli_output("report", "mono", "--out", out)
    assert "raters' language" not in out.read_text(encoding="utf-8")


SCORE = {"A": 1.0, "B": -1.0, "C": 0.0}        # the harm question's answers shown unflipped: +1, -1, none
PAIR_ANSWERS = {    # per rater, pairs p0..p7; the English raters follow the judge, the Arabic ones less so
    "e1": "AABBCAAB", "e2": "AABBCACB", "a1": "BACBAAAC", "a2": "CABAABCA"}
JUDGE = [0.8, 0.6, -0.5, -0.7, 0.1, 0.4, 0.3, -0.2]


def test_a_pair_study_compares_the_judge_with_each_languages_raters(db, tmp_path, cli_output):
    """The judge's Pearson r and sign agreement against each language's raters alone (lmra.by_rater_group's
    `language`), checked against scipy-free arithmetic here."""
    from fairval.annotate.material.importers import import_lmra
    create_study(db, "pairs", "harmful_stereotype", raters_per_item=4, language="en", languages=["ar"])
    pair = {"prompt": "Plan my week", "response_a": "Rest.", "response_b": "Work.", "group_a": "woman",
            "group_b": "man"}
    import_items(db, "pairs", write_jsonl(tmp_path / "p.jsonl", [{"id": f"p{k}", **pair} for k in range(8)]))
    import_ratings(db, "pairs", write_jsonl(tmp_path / "r.jsonl", [
        {"item_id": f"p{k}", "rater_id": r, "question": "harm", "value": v, "flipped": False,
         "language": "en" if r.startswith("e") else "ar"} for r, answers in PAIR_ANSWERS.items() for k, v in enumerate(answers)]))
    import_lmra(db, "pairs", write_jsonl(tmp_path / "l.jsonl", [
        {"item_id": f"p{k}", "model": "m", "score": s} for k, s in enumerate(JUDGE)]))
    numbers = json.loads(cli_output("analyze", "pairs", "--json", "--bootstrap", "0"))
    by_language = numbers["lmra"]["by_rater_group"]["language"]
    assert sorted(by_language) == ["ar", "en"]
    judge = np.array(JUDGE)
    for language, raters in (("en", ["e1", "e2"]), ("ar", ["a1", "a2"])):
        human = np.array([np.mean([SCORE[PAIR_ANSWERS[r][k]] for r in raters]) for k in range(8)])
        h, j = human - human.mean(), judge - judge.mean()
        r = (h * j).sum() / np.sqrt((h * h).sum() * (j * j).sum())
        signed = human != 0
        agree = np.mean(np.sign(human[signed]) == np.sign(judge[signed]))
        assert by_language[language]["pearson_r"] == pytest.approx(r)
        assert by_language[language]["sign_agreement"] == pytest.approx(agree)
        assert by_language[language]["n_items"] == 8
    assert by_language["en"]["pearson_r"] > 0.9 > 0.5 > by_language["ar"]["pearson_r"]
    assert set(numbers["by_language"]) == {"en", "ar"}
    assert numbers["by_language"]["en"]["questions"]["harm"]["n"] == 16
