"""A rater's comment with direction overrides or zero-width characters (issue 55): stored as typed, and shown
in the ratings and validated CSVs with each such character as its visible code, so the cell reads in the
order it was typed."""
import csv

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import create_study
from fairval.annotate.outputs.export import export_ratings, export_validated
from fairval.annotate.rating import session
from tests.conftest import write_jsonl

pytestmark = pytest.mark.both_backends

TYPED = "fine \u202egpj.exe\u202c and\u200b \u2066x\u2069\ufeff"
SHOWN = "fine <U+202E>gpj.exe<U+202C> and<U+200B> <U+2066>x<U+2069><U+FEFF>"
HIDDEN = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u2060\ufeff")


def test_exports_show_invisible_characters_of_a_comment_as_their_codes(db, tmp_path):
    study = create_study(db, "sc", "scenario_select", raters_per_item=1)
    import_items(db, "sc", write_jsonl(tmp_path / "s.jsonl", [{"id": "s0", "scenario": "A scenario."}]))
    session.arrive(db, "sc", "r1", source="link")
    session.give_consent(db, "sc", "r1", True)
    session.finish_instructions(db, "sc", "r1")
    served = session.serve_next_item(db, study, "r1")
    assert session.record_answer(db, study, "r1", served.item_id, {"keep": "yes"}, comment=TYPED)
    assert db.scalar("SELECT comment FROM ratings") == TYPED.strip()                # stored as typed
    export_ratings(db, "sc", tmp_path / "ratings.csv")
    export_validated(db, "sc", tmp_path / "validated.csv")
    with open(tmp_path / "ratings.csv", encoding="utf-8", newline="") as f:
        ratings = list(csv.DictReader(f))
    with open(tmp_path / "validated.csv", encoding="utf-8", newline="") as f:
        validated = list(csv.DictReader(f))
    assert [r["comment"] for r in ratings] == [SHOWN] and [r["comments"] for r in validated] == [SHOWN]
    for name in ("ratings.csv", "validated.csv"):
        assert not HIDDEN & set((tmp_path / name).read_text(encoding="utf-8")), name
