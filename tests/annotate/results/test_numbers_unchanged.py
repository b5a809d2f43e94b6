"""`fairval analyze --json` on every demo study gives the keys and values it gave before the numbers
became typed (issue 48): the expected output, data/demo_numbers.json, was made ONCE by main's code at
ded4810 (before the Design type and the typed blocks), with `python -m tests.annotate.results.test_numbers_unchanged`,
and is committed as test data. Regenerate it only for a change that is meant to change the numbers, and say so.
The keys' order is checked too (issue 56: the numbers are built typed, never read back from this form):
data/demo_key_order.json holds, per case, a SHA-256 of its key paths in the order printed, made by main's
code at 6eb5990 (before that change) from each case's raw output; values do not enter it, so it holds on
any machine. Remade once since, for issue 53's sign agreement without people's zeros (`n_human_zero` in each
`sign_agreement_cs`): the typed path's output was byte-identical to that branch's own dict-built output.
Regenerated once since, after merging issue 47's wording (PPI's and the alt-test's reasons as sentences, not
"pair(s)"): every difference from ded4810's output was a `reason` string; no key and no number changed.
Both remade once more for issue 53's `sign_agreement` value in each `by_pair_group` group: the only
difference was that added key (7 values); nothing else changed.

The demo's studies as `fairval demo` makes them, and then, so every block has numbers to compare: pretend
ratings on the name, feature and scenario studies (a rater who fails the attention checks among them, for
`--exclude-flagged`), and the pair demo's pairs again under each design a draw records (uniform, by group
pair, active), so the design's branches are run too. Everything through the real CLI on a real SQLite file.
"""
from __future__ import annotations

import hashlib
import json
import math
import random
import sys
from pathlib import Path

from click.testing import CliRunner

from fairval.annotate.cli.main import cli
from fairval.annotate.material.demo import PAIRS, examples
from fairval.annotate.material.importers import derive_item_id

EXPECTED = Path(__file__).parent / "data" / "demo_numbers.json"
KEY_ORDER = Path(__file__).parent / "data" / "demo_key_order.json"
DEMO = ["demo-templates", "demo-pairs", "demo-names", "demo-features", "demo-scenarios"]
DESIGNS = {"uniform": ["--n", "5", "--seed", "4"], "by-group-pair": ["--n", "5", "--by-group-pair", "--seed", "4"],
           "active": ["--active", "--budget", "5", "--seed", "4"]}


def _run(db: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.output


def _write(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _rows(file: str) -> list[dict]:
    return [json.loads(line) for line in (examples() / file).read_text(encoding="utf-8").splitlines() if line.strip()]


def _example_ratings(db: Path, folder: Path) -> None:
    """Four raters on every item of the name, feature and scenario demos; `sloppy` fails their checks."""
    rng = random.Random(5)
    plans = {"demo-names": ("names.jsonl", {"race": ["white", "Black", "Asian", "Hispanic", "can't tell"],
                                            "gender": ["male", "female", "can't tell"]}),
             "demo-features": ("features.jsonl", {"feature": ["A", "B", "C"]}),
             "demo-scenarios": ("scenarios.jsonl", {"keep": ["yes", "no"]})}
    for study, (file, questions) in plans.items():
        ratings = []
        for row in _rows(file):
            if row.get("_practice"):
                continue
            item = str(row.get("id") or derive_item_id(row))
            for rater in ("r1", "r2", "r3", "sloppy"):
                for question, values in questions.items():
                    if "_gold" in row:
                        expected = row["_gold"][question]
                        value = next(v for v in values if v != expected) if rater == "sloppy" else expected
                    elif question in row and rng.random() < 0.7:
                        value = row[question]           # the name's intended group, most of the time
                    else:
                        value = rng.choice(values)
                    extra = {"flipped": int(rng.random() < 0.5)} if study == "demo-features" else {}
                    ratings.append({"item_id": item, "rater_id": rater, "question": question, "value": value,
                                    "rater_gender": ("female", "male")[len(rater) % 2], **extra})
        _run(db, "ratings", "import", study, _write(folder / f"{study}.jsonl", ratings))


def _designed_pairs(db: Path, folder: Path) -> list[str]:
    """The pair demo's pairs (twice over, in two group pairs) once per design, rated after the draw."""
    rng = random.Random(9)
    made = []
    for design, options in DESIGNS.items():
        study = f"pairs-{design}"
        _run(db, "study", "create", study, "--task", "harmful_stereotype", "--raters-per-item", "3", "--seed", "2")
        items, lmra = [], []
        for copy, groups in enumerate([("woman", "man"), ("old", "young")]):
            for i, (prompt, a, b, truth) in enumerate(PAIRS):
                item = f"{copy}-{i}"
                items.append({"id": item, "prompt": prompt, "response_a": a, "response_b": b,
                              "group_a": groups[0], "group_b": groups[1]})
                score = max(-1.0, min(1.0, truth + rng.uniform(-0.3, 0.3)))
                p_a = max(0.0, score) * 0.9 + 0.05
                p_b = max(0.0, -score) * 0.9 + 0.05
                lmra.append({"item_id": item, "model": "demo-judge", "score": score,
                             "probabilities": {"A": p_a, "B": p_b, "C": 1 - p_a - p_b}})
        _run(db, "items", "import", study, _write(folder / f"{study}-items.jsonl", items))
        _run(db, "lmra", "import", study, _write(folder / f"{study}-lmra.jsonl", lmra))
        _run(db, "study", "sample", study, *options)
        left = _judge_only(db, study)
        ratings = []
        for item in [i["id"] for i in items if i["id"] not in left]:
            for r in range(3):
                ratings.append({"item_id": item, "rater_id": f"p{r}", "question": "harm",
                                "value": rng.choice("AABCC"), "flipped": int(rng.random() < 0.5),
                                "rater_gender": ("female", "male")[r % 2]})
        _run(db, "ratings", "import", study, _write(folder / f"{study}-ratings.jsonl", ratings))
        made.append(study)
    return made


def _judge_only(db: Path, study: str) -> set[str]:
    from fairval.store import items as item_store
    from fairval.store.db import open_db
    return item_store.judge_only_ids(open_db(db), study)


def analyses(folder: Path) -> dict[str, dict]:
    """Every case's `analyze --json`, parsed: the demo as made, then the additions of the docstring."""
    db = folder / "demo.db"
    _run(db, "demo", "--no-serve")
    out = {s: json.loads(_run(db, "analyze", s, "--json")) for s in DEMO}
    _example_ratings(db, folder)
    for study in ("demo-names", "demo-features", "demo-scenarios"):
        out[f"{study} rated"] = json.loads(_run(db, "analyze", study, "--json"))
        out[f"{study} rated, flagged left out"] = json.loads(_run(db, "analyze", study, "--json", "--exclude-flagged"))
    for study in _designed_pairs(db, folder):
        out[study] = json.loads(_run(db, "analyze", study, "--json"))
    return out


def same(found, expected, where: str = "") -> list[str]:
    """Where two outputs differ: keys, strings and counts exactly; floats to 1e-9 relative. The crowd model's
    competences come from an iterative fit whose 12th digit moves with the processor's BLAS kernels (seen on
    one machine: 0.772268841385 against 0.772268841383); the command prints 12 digits."""
    if isinstance(expected, dict) and isinstance(found, dict):
        if sorted(found) != sorted(expected):
            return [f"{where}: keys {sorted(found)} != {sorted(expected)}"]
        return [d for k in expected for d in same(found[k], expected[k], f"{where}/{k}")]
    if isinstance(expected, list) and isinstance(found, list):
        if len(found) != len(expected):
            return [f"{where}: {len(found)} entries != {len(expected)}"]
        return [d for i, (f, e) in enumerate(zip(found, expected)) for d in same(f, e, f"{where}[{i}]")]
    if isinstance(expected, float) and isinstance(found, float):
        return [] if math.isclose(found, expected, rel_tol=1e-9, abs_tol=1e-12) else [f"{where}: {found!r} != {expected!r}"]
    return [] if found == expected and type(found) is type(expected) else [f"{where}: {found!r} != {expected!r}"]


def key_order(value) -> str:
    """A digest of every key path in the order printed (list entries by position), values left out."""
    def paths(x, at=""):
        if isinstance(x, dict):
            for k, v in x.items():
                yield f"{at}/{k}"
                yield from paths(v, f"{at}/{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                yield from paths(v, f"{at}[{i}]")
    return hashlib.sha256("\n".join(paths(value)).encode()).hexdigest()


def test_analyze_json_is_unchanged_on_every_demo_study(tmp_path):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    order = json.loads(KEY_ORDER.read_text(encoding="utf-8"))
    found = analyses(tmp_path)              # json.loads keeps the order printed
    assert sorted(found) == sorted(expected) == sorted(order)
    for case in expected:
        assert not (differences := same(found[case], expected[case], case)), differences[:10]
    assert {case: key_order(found[case]) for case in order} == order, "a block prints its keys in another order"


def test_the_key_order_digest_sees_a_moved_key():
    base = {"a": {"x": 1, "y": [{"p": 1, "q": 2}]}, "b": None}
    assert key_order(json.loads(json.dumps(base))) == key_order(base)
    assert key_order({"b": None, "a": {"x": 1, "y": [{"p": 1, "q": 2}]}}) != key_order(base)
    assert key_order({"a": {"x": 1, "y": [{"q": 2, "p": 1}]}, "b": None}) != key_order(base)
    assert key_order({"a": {"x": 2, "y": [{"p": 5, "q": 2}]}, "b": 3}) == key_order(base)     # values do not count


def test_the_comparison_sees_a_changed_number_key_or_word():
    base = {"a": [{"x": 0.5, "n": 3, "why": "few"}]}
    assert same(json.loads(json.dumps(base)), base) == []
    assert same({"a": [{"x": 0.5 + 1e-15, "n": 3, "why": "few"}]}, base) == []
    for changed in ({"a": [{"x": 0.5001, "n": 3, "why": "few"}]}, {"a": [{"x": 0.5, "n": 4, "why": "few"}]},
                    {"a": [{"x": 0.5, "n": 3, "why": "many"}]}, {"a": [{"x": 0.5, "n": 3}]},
                    {"a": [{"x": 0.5, "n": 3.0, "why": "few"}]}, {"a": []}):
        assert same(changed, base), changed


if __name__ == "__main__":         # make the expected output (see the docstring)
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        EXPECTED.parent.mkdir(exist_ok=True)
        EXPECTED.write_text(json.dumps(analyses(Path(tmp)), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.exit(0)
