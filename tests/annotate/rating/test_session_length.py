"""Where a study's plan is shown (`fairval plan`, `study show`, Manage's Plan tab) it says how many items one rater
will be served, and warns when that is long (over 150: more than any rater of the seed papers' human studies) or
when a name study would show one rater the same name again (QA, stops 62-64: a name study of whats-in-a-name's
prompts served each name ~42 times without a word). Each count is checked against a rater served through the real
session functions until nothing is left, and against the rows of the file the test wrote."""
from __future__ import annotations

import csv
import json
from collections import Counter

import pytest

from fairval.annotate.material.importers import import_items
from fairval.annotate.material.studies import configure_study, create_study, load_study
from fairval.annotate.rating import session
from fairval.annotate.rating.session_length import LONG_SESSION, session_length
from tests.conftest import SHARED_DATA, name_groups_file, public_sample, write_discrim_eval, write_jsonl
from tests.ui.apptest import plain
from tests.ui.apptest import signed_in as sign_in

LAYOUT = ["scenario", "variation", "name_group", "name", "context_level", "prompt_text"]   # just_prompts.csv's


def just_prompts(folder, per_name: int):
    """A file in whats-in-a-name's just_prompts.csv layout, the project's own words: the 8 names of
    name_groups_file, each in `per_name` prompts."""
    groups = json.loads(name_groups_file(folder).read_text(encoding="utf-8"))["name_groups"]
    path = folder / "just_prompts.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(LAYOUT)
        for k in range(per_name):
            for group, names in groups.items():
                for name in names:
                    writer.writerow(["purchase", f"lamp {k}", group, name, ("low", "high")[k % 2],
                                     f"I want to buy lamp number {k} from {name}. What should I offer first?"])
    return path


def serve_all(db, study_id: str, rater: str, answers: dict[str, str]) -> list[dict]:
    """What one rater is served, through the real session, answering each item until nothing is left."""
    study = load_study(db, study_id)
    session.arrive(db, study_id, rater, source="link")
    session.give_consent(db, study_id, rater, True)
    session.finish_instructions(db, study_id, rater)
    seen = []
    while (served := session.serve_next_item(db, study, rater)) is not None:
        seen.append(session.study_item(db, study, served.item_id)["data"])
        session.record_answer(db, study, rater, served.item_id, answers)
    return seen


NAME_ANSWERS = {"race": "white", "gender": "male"}


def test_a_name_study_of_prompts_warns_that_one_rater_sees_a_name_again(db, tmp_path, cli_output):
    create_study(db, "names", "name_perception", raters_per_item=3)
    import_items(db, "names", just_prompts(tmp_path, per_name=21))                 # 8 names x 21 = 168 items
    seen = serve_all(db, "names", "first", NAME_ANSWERS)
    repeats = Counter(item["name"] for item in seen).most_common(1)[0][1]
    assert (len(seen), repeats) == (8 * 21, 21)
    length = session_length(db, "names")
    assert (length.items, length.names, length.most_per_name, length.name_repeats) == (len(seen), 8, 21, repeats)
    assert len(seen) > LONG_SESSION
    for out in (cli_output("plan", "names"), cli_output("study", "show", "names")):
        assert f"each rater is served up to {len(seen)} items (no cap: max_items_per_rater is not set)" in out
        assert f"warning: that is long: {len(seen)} items is more than {LONG_SESSION}" in out
        # 3 ratings of 168 items shared out 50 at a time: 504 / 50 -> 11 raters
        assert "`fairval study set names max_items_per_rater=50` shares them out: 11 raters" in out
        assert f"warning: one rater may be shown the same name up to {repeats} times" in out
        assert "templates_and_names.json" in out
    planned = json.loads(cli_output("plan", "names", "--json"))
    assert (planned["items_per_rater"], planned["names"], planned["most_items_per_name"]) == (len(seen), 8, repeats)
    assert len(planned["warnings"]) == 2

    configure_study(db, "names", max_items_per_rater=50)       # capped: not long, but a name can still come back
    capped = serve_all(db, "names", "second", NAME_ANSWERS)
    assert len(capped) == 50
    out = cli_output("plan", "names")
    assert "each rater is served up to 50 items (max_items_per_rater=50)" in out
    assert "that is long" not in out
    assert "the same name up to 21 times" in out and "shares them out" not in out


def test_names_imported_once_each_are_served_once_each(db, names_file, cli_output):
    create_study(db, "once", "name_perception", raters_per_item=3)
    import_items(db, "once", names_file)
    names = [n for group in json.loads(names_file.read_text(encoding="utf-8"))["name_groups"].values() for n in group]
    seen = serve_all(db, "once", "r", NAME_ANSWERS)
    assert sorted(item["name"] for item in seen) == sorted(names)
    length = session_length(db, "once")
    assert (length.items, length.names, length.name_repeats) == (len(names), len(set(names)), 1)
    assert length.warnings("once") == []
    assert "warning" not in cli_output("plan", "once")


def test_whats_in_a_names_own_prompts_file(db, cli_output):
    """The public file as published: 1,680 prompts, 40 names in 42 each (counted here from the file)."""
    path = public_sample(SHARED_DATA / "whats-in-a-name" / "just_prompts.csv")
    with path.open(encoding="utf-8", newline="") as f:
        per_name = Counter(row["name"] for row in csv.DictReader(f))
    create_study(db, "audit", "name_perception", raters_per_item=3)
    import_items(db, "audit", path)
    length = session_length(db, "audit")
    assert (length.items, length.names, length.most_per_name) == (sum(per_name.values()), len(per_name),
                                                                  max(per_name.values()))
    out = cli_output("plan", "audit")
    assert f"up to {sum(per_name.values()):,} items" in out
    assert f"the same name up to {max(per_name.values())} times" in out


@pytest.mark.parametrize(("items", "long"), [(LONG_SESSION, False), (LONG_SESSION + 1, True)])
def test_long_begins_past_the_threshold(db, tmp_path, items, long):
    create_study(db, "t", "template_quality", raters_per_item=2)
    import_items(db, "t", write_jsonl(tmp_path / "t.jsonl", [
        {"id": f"t{k}", "filled_template": f"Should the council fund request {k}?"} for k in range(items)]))
    length = session_length(db, "t")
    assert length.items == items and length.long is long
    assert any("that is long" in w for w in length.warnings("t")) is long


def test_the_fills_share_is_what_a_rater_is_served(db, tmp_path, cli_output):
    """discrim-eval's 15/10 layout, never two fills of one template in a row: the first rater's share."""
    create_study(db, "de", "template_quality", raters_per_item=3)
    for path in write_discrim_eval(tmp_path / "items"):
        import_items(db, "de", path)
    seen = serve_all(db, "de", "first", {"quality": "4", "yes_positive": "4"})
    assert session_length(db, "de").items == len(seen) < 25
    assert f"each rater is served up to {len(seen)} items" in cli_output("plan", "de")


def test_manage_plan_tab_says_it(db, tmp_path, monkeypatch):
    create_study(db, "names", "name_perception", raters_per_item=3)
    import_items(db, "names", just_prompts(tmp_path, per_name=21))
    at = sign_in("3_Manage.py", monkeypatch)
    at.selectbox(key="manage-study").set_value("names").run()
    assert not at.exception, at.exception
    assert any("Each rater is served up to 168 items" in plain(m.value) for m in at.info), [m.value for m in at.info]
    warned = [plain(m.value) for m in at.warning]
    assert any(w.startswith("That is long: 168 items") for w in warned), warned
    assert any(w.startswith("One rater may be shown the same name up to 21 times") for w in warned), warned
    # a page names the cap as the Manage tab labels it, never by the CLI's field name (the researcher walk's rule)
    shown = [plain(m.value) for m in at.info] + warned
    assert any("Max items per rater 50 (Manage, Configure) shares them out" in t for t in shown), shown
    assert not any("max_items_per_rater" in t for t in shown), shown
