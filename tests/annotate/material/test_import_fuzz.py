"""Fuzzed files for every importer, on SQLite and a real PostgreSQL server: each import ends in success or
in one line (a FairvalError without a line break, printable as UTF-8), and a refused file leaves the study
as it was. Seeded, so a failure is found again."""
import json
import random

import pytest

from fairval.annotate.material.importers import import_items, import_lmra, import_ratings
from fairval.annotate.material.studies import create_study
from fairval.errors import FairvalError
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import ratings as rating_store

pytestmark = pytest.mark.both_backends    # SQLite and a real PostgreSQL server

ODD = ["\ud800", "\udfff", "\x00", "\u202e", "\u200b", "\ufeff", "\U0001f600", "\r", "\n", "\t", '"', "\\",
       "=cmd|", "é", "\u0301", "\uffff", "x" * 9000, "🙂" * 3000]


def _odd_value(rng: random.Random):
    kind = rng.randrange(10)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False, 0, -1, 10 ** 30, 1.5, 1e308, -0.0])
    if kind == 2:
        return [rng.choice(ODD)]
    if kind == 3:
        return {rng.choice(ODD): rng.choice(ODD)}
    return "".join(rng.choice([*ODD, "a", "4", "quality", "x", "m"]) for _ in range(rng.randint(0, 4)))


def _mutate(rng: random.Random, rows: list[dict]) -> str:
    """The rows as JSON Lines, one of them changed: a field's value or name made odd, a field dropped, or
    the line's text itself cut or spliced with JSON's own escapes of odd characters."""
    rows = [dict(r) for r in rows]
    row = rng.choice(rows)
    field = rng.choice(list(row))
    choice = rng.randrange(4)
    if choice == 0:
        row[field] = _odd_value(rng)
    elif choice == 1:
        row[rng.choice(ODD) + field] = row.pop(field)
    elif choice == 2:
        del row[field]
    lines = [json.dumps(r) for r in rows]
    if choice == 3:
        k = rng.randrange(len(lines))
        cut = rng.randrange(len(lines[k]) + 1)
        lines[k] = lines[k][:cut] + rng.choice(["\\ud800", "\\u0000", "\\udc00\\ud800", "\\", '"', "}", "\x00",
                                                "\\uDFFF", "1e999", "NaN"]) + lines[k][cut:]
    return "\n".join(lines) + "\n"


ITEMS = [{"id": "b", "filled_template": "Q?", "decision_question_id": 3}, {"id": "c", "filled_template": "R?"}]
RATINGS = [{"item_id": "a", "rater_id": "r1", "question": "quality", "value": "4", "rater_gender": "f",
            "comment": "ok"}, {"item_id": "a", "rater_id": "r2", "question": "quality", "value": 5}]
SCORES = [{"item_id": "x", "model": "m", "score": 0.5},
          {"item_id": "y", "model": "m", "p_a": .6, "p_b": .3, "p_c": .1, "q_a": .5, "q_b": .4, "q_c": .1}]


def _state(db) -> tuple:
    return (len(item_store.list_items(db, "tq")), len(rating_store.ratings_frame(db, "tq")),
            len(lmra_store.scores_frame(db, "fp")))


def test_fuzzed_imports_end_in_success_or_one_line(db, tmp_path):
    create_study(db, "tq", "template_quality", raters_per_item=3, seed=5)
    import_items(db, "tq", [{"id": "a", "filled_template": "Q?"}])
    create_study(db, "fp", "harmful_stereotype")
    import_items(db, "fp", [{"id": i, "prompt": "p", "response_a": "a", "response_b": "b", "group_a": "woman",
                             "group_b": "man"} for i in ("x", "y")])
    rng = random.Random(55)
    outcomes = {"imported": 0, "refused": 0}
    for case in range(240):
        importer, study, rows = [(import_items, "tq", ITEMS), (import_ratings, "tq", RATINGS),
                                 (import_lmra, "fp", SCORES)][case % 3]
        path = tmp_path / f"case{case}.jsonl"
        path.write_text(_mutate(rng, rows), encoding="utf-8", errors="surrogatepass")
        before = _state(db)
        try:
            importer(db, study, path)
            outcomes["imported"] += 1
        except FairvalError as e:
            said = str(e)
            assert "\n" not in said and said.encode("utf-8"), (case, said)
            assert _state(db) == before, (case, said)                      # nothing half-imported
            outcomes["refused"] += 1
        except Exception as e:
            pytest.fail(f"case {case} ({importer.__name__}, {path.read_text(errors='replace')[:300]!r}) ended in "
                        f"{type(e).__name__}: {str(e).encode('utf-8', 'backslashreplace')[:300]!r}")
    assert outcomes["imported"] > 10 and outcomes["refused"] > 100, outcomes        # both endings exercised
