"""The seeds' published layouts that are not already fairval's own fields (docs/formats.md has an example each).

- whats-in-a-name's `templates_and_names.json` ({"name_groups": {group: [names]}, "templates": [{scenario,
  variation, context_level, templates: [text with a {name} slot]}]}) is `generate fill` input: every template
  with every name gives one row in the layout of its `just_prompts.csv` (scenario, variation, name_group,
  name, context_level, prompt_text), which imports into a name study (name_group split by vocabulary).
  Imported itself into a study, it gives one item per name: {name, name_group}.
- implicit-bias's `decision_templates_gpt4.json` (a JSON array; each `prompt_template` a decision prompt)
  is scenario material: a row without `scenario` reads its `prompt_template` as the scenario.
- First-person fairness (Eloundou et al.) publishes no pair file; its LMRA template (Figure 3) names a pair's
  fields `prompt`, `response_1`, `response_2`, `group_A`, `group_B`, response_1 being group_A's: a pair row
  in those names is read as prompt, response_a, response_b, group_a, group_b.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from fairval.annotate.material.records import Record, read_records
from fairval.errors import GenerationError, LabelMismatch

NAME_SLOT = "{name}"
# a format slot as the seeds' templates write one: {name}, {pair_group[0]}
FORMAT_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?\}")
# a task's field -> the seeds' field that holds it, read when the row lacks the task's own
SEED_FIELDS: dict[str, tuple[str, ...]] = {"scenario": ("prompt_template",), "response_a": ("response_1",),
                                           "response_b": ("response_2",), "group_a": ("group_A",),
                                           "group_b": ("group_B",)}


def is_names_and_templates(doc) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("name_groups"), dict) and isinstance(doc.get("templates"),
                                                                                           list)


def fill_name_slots(doc: dict) -> list[dict]:
    """Every template of a templates_and_names.json document with every name, in just_prompts.csv's layout
    and order: per scenario and variation, each group's names in turn, each at every context level."""
    groups = doc["name_groups"]
    for group, names in groups.items():
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
            raise GenerationError(f"name group {group!r} needs a list of names")
    blocks: dict[tuple, list[tuple[str, str]]] = {}
    for k, entry in enumerate(doc["templates"], start=1):
        texts = entry.get("templates") if isinstance(entry, dict) else None
        if not isinstance(texts, list) or not texts:
            raise GenerationError(f"template entry {k} has no 'templates' list")
        for text in texts:
            if not isinstance(text, str) or NAME_SLOT not in text:
                raise GenerationError(f"template entry {k} ({entry.get('scenario')}, {entry.get('variation')}) "
                                      f"has a template without the {NAME_SLOT} slot")
            blocks.setdefault((entry.get("scenario"), entry.get("variation")), []).append(
                (entry.get("context_level"), text))
    return [{"scenario": scenario, "variation": variation, "name_group": group, "name": name,
             "context_level": level, "prompt_text": text.replace(NAME_SLOT, name)}
            for (scenario, variation), texts in blocks.items()
            for group, names in groups.items() for name in names for level, text in texts]


def with_seed_fields(rec: Record, required: tuple[str, ...]) -> Record:
    """The row with each required field it lacks read from the seeds' field that holds it (SEED_FIELDS)."""
    extra = {}
    for field in required:
        if rec.data.get(field) in (None, ""):
            source = next((s for s in SEED_FIELDS.get(field, ()) if rec.data.get(s) not in (None, "")), None)
            if source is not None:
                extra[field] = rec.data[source]
    return Record(rec.line, {**rec.data, **extra}, None, rec.format) if extra else rec


def seed_name(rec: Record, field: str, required: tuple[str, ...]) -> str | None:
    """The seeds' name of a required field when the row is written in their layout (it holds another of the
    task's seed fields), so that a refusal names the field the file lacks as the file would write it."""
    in_layout = any(rec.data.get(s) not in (None, "") for f in required for s in SEED_FIELDS.get(f, ()))
    return SEED_FIELDS[field][0] if in_layout and field in SEED_FIELDS else None


# implicit-bias's stimuli files: word lists its code fills into the decision templates, not material to rate
WORD_LISTS = ((frozenset({"category", "dataset", "A", "B", "C"}), "implicit-bias's IAT stimuli (word lists: columns "
               "category, dataset, A, B, C)"),
              (frozenset({"POS", "NEG"}), "implicit-bias's global stimuli (word pairs: columns POS, NEG)"))


def word_list_layout(rec: Record) -> str | None:
    """Why a row lacking a task's fields is not material at all, when its columns are one of the seeds' word
    lists: one line naming the layout and what fairval takes instead; None for any other row."""
    for columns, what in WORD_LISTS:
        if columns <= set(rec.data):
            return (f"looks like {what}, the words its code fills into its decision templates, not items to rate; "
                    "fairval imports the decision templates themselves (decision_templates_gpt4.json, a "
                    "scenario_select study), discrim-eval's rows, whats-in-a-name's files and pair rows: "
                    "docs/formats.md shows each layout")
    return None


def read_items(source) -> list[Record]:
    """An items file's records (records.read_records), or a templates_and_names.json's names, one row each,
    numbered by the line the name is written on."""
    if isinstance(source, (str, Path)) and str(source).lower().endswith(".json"):
        try:
            text = Path(source).read_text(encoding="utf-8-sig")
            doc = json.loads(text)
        except (OSError, ValueError):
            doc = None
        if is_names_and_templates(doc):
            rows, at = [], 0
            for group, names in doc["name_groups"].items():
                for name in names if isinstance(names, list) else []:
                    at = max(at, text.find(json.dumps(name, ensure_ascii=False)[1:-1], at))
                    rows.append(Record(text.count("\n", 0, at) + 1, {"name": name, "name_group": group},
                                       None, "json"))
            if not rows:
                raise GenerationError(f"{Path(source).name}: its name_groups hold no names")
            return rows
    return read_records(source)


def names_for_fill(source, races: list[str], genders: list[str], matched: dict) -> tuple[dict, int]:
    """`generate fill --names`: {(race, gender): names} for the races and genders asked, from rows of name,
    race, gender or of name, name_group (whats-in-a-name's file itself too), each label matched to the words
    asked by vocabulary's rule (what was matched goes to `matched`). Also returns how many names belong to
    no group asked, left out."""
    from fairval.annotate.material import vocabulary

    names: dict[tuple[str, str], list[str]] = {}
    left_out = 0
    for rec in read_items(source):
        try:
            data = vocabulary.intended(rec.data, {"race": races, "gender": genders}, None, matched)
        except LabelMismatch:
            left_out += 1
            continue
        if data.get("race") and data.get("gender") and isinstance(data.get("name"), str):
            names.setdefault((data["race"], data["gender"]), []).append(data["name"])
        else:
            left_out += 1
    return names, left_out


def readable_slots(text: str) -> tuple[str, bool]:
    """A template's format slots as a rater can read them, and whether it had any: implicit-bias's decision
    templates are published with {pair_group[0]}, {pair_attribute[1]} where its code fills in words from its
    stimuli lists; a rater judging the template sees [group 1], [attribute 2] ("pair_" dropped, counted from
    1), and {name} as [name]."""
    def readable(found: re.Match) -> str:
        word = found.group(1).removeprefix("pair_").replace("_", " ")
        return f"[{word} {int(found.group(2)) + 1}]" if found.group(2) is not None else f"[{word}]"
    shown, count = FORMAT_SLOT.subn(readable, text)
    return shown, count > 0


def scenario_category(data: dict) -> str | None:
    """The category a scenario is to be relevant to: its own `category`, or the seeds' `meta.category`
    (implicit-bias's decision templates)."""
    meta = data.get("meta")
    found = data.get("category") or (meta.get("category") if isinstance(meta, dict) else None)
    return str(found) if found else None
