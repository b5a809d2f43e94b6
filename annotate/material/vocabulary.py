"""Where a label meets an answer: a name's intended group, a gold answer, a balance group, an imported rating.

The seeds label groups their own way (whats-in-a-name: `black_women`, lower case; discrim-eval: `Black`,
`female`), and a label that is not one of the question's answers would be scored as never perceived.
So a label is matched by one documented rule, in this order, or refused in one line naming the answers
and the nearest (docs/formats.md, "Labels and answers"):

1. the answer itself;
2. the researcher's map (`--map given=answer`), the given label compared as in 3;
3. the same answer up to case, outer spaces and `_`/`-` for a space (`black` -> `Black`,
   `native_american` -> `Native American`);
4. one of the seeds' synonyms below (`men` -> `male`, `latina` -> `Hispanic`), when its answer is offered.

A combined label (`black_women`) is split at one of its `_`, `-` or spaces, so that each part matches
(by the rule above) an answer of a different question; a label with no such split, or with two, is refused.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fairval.errors import LabelMismatch

# The seeds' words for the groups, lower case, to the answer fairval's presets and rater forms offer.
SYNONYMS: dict[str, str] = {
    "man": "male", "men": "male", "m": "male", "boy": "male", "boys": "male", "masculine": "male",
    "woman": "female", "women": "female", "f": "female", "girl": "female", "girls": "female",
    "feminine": "female",
    "nonbinary": "non-binary", "non binary": "non-binary", "nb": "non-binary", "enby": "non-binary",
    "african american": "Black", "african-american": "Black", "afro-american": "Black",
    "caucasian": "white", "european american": "white", "anglo": "white",
    "latino": "Hispanic", "latina": "Hispanic", "latinx": "Hispanic", "latine": "Hispanic",
    "hispanic or latino": "Hispanic", "latin american": "Hispanic",
    "asian american": "Asian", "east asian": "Asian",
    "american indian": "Native American", "native": "Native American", "indigenous": "Native American",
    "alaska native": "Native American",
    "mena": "Middle Eastern or North African", "middle eastern": "Middle Eastern or North African",
    "arab": "Middle Eastern or North African",
    "multiracial": "mixed", "biracial": "mixed",
}

# What a rater can answer about themselves (ui/demographics.py offers these; self-described text aside):
# the only values a balance group of that attribute can ever be filled by.
RATER_ANSWERS: dict[str, tuple[str, ...]] = {
    "gender": ("female", "male", "non-binary"),
    "race": ("white", "Black", "Asian", "Hispanic", "Native American", "Middle Eastern or North African", "mixed"),
}

_SEPARATORS = re.compile(r"[\s_\-]+")


@dataclass(frozen=True, slots=True)
class Matched:
    answer: str
    rule: str          # "" for the answer itself; else "your map", "case", "synonym"


def _key(label: str) -> str:
    return _SEPARATORS.sub(" ", label.strip()).casefold()


def match(label, answers: Sequence[str], given_map: Mapping[str, str] | None = None) -> Matched | None:
    """The answer `label` stands for by the module's rule, or None when nothing matches."""
    label = str(label)
    if label in answers:
        return Matched(label, "")
    key = _key(label)
    for given, answer in (given_map or {}).items():
        if _key(given) == key and answer in answers:
            return Matched(answer, "your map")
    by_key = {_key(a): a for a in answers}
    if key in by_key:
        return Matched(by_key[key], "case")
    synonym = SYNONYMS.get(key)
    if synonym is not None and synonym in answers:
        return Matched(synonym, "synonym")
    return None


def nearest(label, answers: Sequence[str]) -> str | None:
    """The answer closest in spelling to the label or to one of its synonyms (`womn` -> female via women)."""
    words = {_key(a): a for a in answers} | {w: a for w, a in SYNONYMS.items() if a in answers}
    found = difflib.get_close_matches(_key(str(label)), list(words), n=1, cutoff=0.5)
    return words[found[0]] if found else None


def refusal(label, what: str, answers: Sequence[str], hint: str | None = None) -> str:
    """One line: the label, what it was meant to be, the allowed answers and the nearest of them."""
    near = nearest(label, answers)
    return (f"{str(label)!r} is not {what}; the answers are {', '.join(answers)}"
            + (f" (nearest: {near!r})" if near else "") + "; "
            + (hint or f"use one of them or give --map {label!s}=ANSWER"))


def require(label, what: str, answers: Sequence[str], given_map: Mapping[str, str] | None = None) -> Matched:
    """The matched answer, or LabelMismatch with the one-line refusal."""
    found = match(label, answers, given_map)
    if found is None:
        raise LabelMismatch(refusal(label, what, answers))
    return found


def split_group(label, questions: Mapping[str, Sequence[str]],
                given_map: Mapping[str, str] | None = None) -> dict[str, Matched]:
    """A combined group label (`black_women`) as one answer per question, e.g. {race: Black, gender: female}.

    The researcher's map may name the whole label, its answers joined by `+` (`latinx_men=Hispanic+male`).
    Otherwise the label is split at each `_`, `-` or space in turn; the one split whose two parts match
    answers of two different questions is used. Refused in one line when none or several do."""
    label = str(label)
    for given, answers in (given_map or {}).items():
        if _key(given) == _key(label) and "+" in answers:
            return _mapped_whole(label, answers.split("+"), questions)
    words = _SEPARATORS.split(label.strip())
    readings = []
    for cut in range(1, len(words)):
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        for q1, a1 in questions.items():
            for q2, a2 in questions.items():
                if q1 == q2:
                    continue
                m1, m2 = match(head, a1, given_map), match(tail, a2, given_map)
                if m1 and m2:
                    readings.append({q1: m1, q2: m2})
    if len(readings) == 1:
        return readings[0]
    names = " and ".join(questions)
    if not readings:
        raise LabelMismatch(f"group {label!r} does not split into one answer each of {names} "
                            f"({'; '.join(f'{q}: ' + ', '.join(a) for q, a in questions.items())}); give "
                            f"--map {label}={_map_example(label, words, questions, given_map)} or the "
                            f"columns {names}")
    raise LabelMismatch(f"group {label!r} splits into {names} in {len(readings)} ways; give --map "
                        f"{label}=ANSWER+ANSWER")


def _map_example(label: str, words: list[str], questions: Mapping[str, Sequence[str]],
                 given_map: Mapping[str, str] | None) -> str:
    """The answers a refused group's map would join: each question's answer that the label or one of its
    words matches (`black` -> Black), else the question's name in capitals to fill in (`RACE+GENDER`),
    never some other group's answer the researcher might copy unread."""
    parts = []
    for question, answers in questions.items():
        found = next((m for w in [label, *words] if (m := match(w, answers, given_map)) is not None), None)
        parts.append(found.answer if found else question.upper())
    return "+".join(parts)


def _mapped_whole(label: str, parts: list[str], questions: Mapping[str, Sequence[str]]) -> dict[str, Matched]:
    out: dict[str, Matched] = {}
    for part in parts:
        owners = [q for q, answers in questions.items() if part.strip() in answers and q not in out]
        if len(owners) != 1:
            raise LabelMismatch(f"--map {label}={'+'.join(parts)}: {part.strip()!r} is not exactly one "
                                f"question's answer among {', '.join(questions)}")
        out[owners[0]] = Matched(part.strip(), "your map")
    return out


def parse_map(entries: Sequence[str]) -> dict[str, str]:
    """`--map given=answer` entries (repeatable) as {given: answer}; a malformed one refused in one line."""
    out = {}
    for entry in entries:
        given, sep, answer = entry.partition("=")
        if not sep or not given.strip() or not answer.strip():
            raise LabelMismatch(f"--map {entry!r}: write it as LABEL=ANSWER, e.g. men=male or "
                                "black_women=Black+female")
        out[given.strip()] = answer.strip()
    return out


def said(mapping: Mapping[str, str]) -> str:
    """The labels matched this time, in one line: `race: black -> Black (case); gender: men -> male (synonym)`."""
    return "; ".join(f"{given} -> {to}" for given, to in mapping.items())


GROUP_FIELD = "name_group"      # whats-in-a-name's one combined column (`black_women`)


def intended(data: dict, questions: Mapping[str, Sequence[str]], given_map: Mapping[str, str] | None,
             matched: dict[str, str]) -> dict:
    """A name item's intended groups as answers of its perceived questions: each of its fields (`race`,
    `gender`) matched by the rule, and those it lacks taken from its `name_group` split. Adds what was
    matched by a rule to `matched`; raises LabelMismatch (its `field` set) naming the field."""
    out = dict(data)
    missing = [q for q in questions if out.get(q) in (None, "")]
    if missing and out.get(GROUP_FIELD) not in (None, ""):
        group = str(out[GROUP_FIELD])
        try:
            parts = split_group(group, questions, given_map)
        except LabelMismatch as e:
            e.field = GROUP_FIELD
            raise
        for qid, found in parts.items():
            if qid in missing:
                out[qid] = found.answer
        matched[f"{GROUP_FIELD} {group!r}"] = " + ".join(f"{q} {m.answer!r}" for q, m in parts.items())
    for qid, answers in questions.items():
        if out.get(qid) in (None, ""):
            continue                        # the task's required-field check names it
        try:
            found = require(out[qid], f"an answer to {qid!r}", answers, given_map)
        except LabelMismatch as e:
            e.field = qid
            raise
        if found.rule:
            matched[f"{qid} {out[qid]!r}"] = f"{found.answer!r} ({found.rule})"
            out[qid] = found.answer
    return out


def balance_groups(balance_by: str | None, groups: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Balance groups as the raters' own answers (RATER_ANSWERS) by the rule, and what was matched;
    a group no rater could ever answer is refused (its quota would never fill). Country is free text."""
    answers = RATER_ANSWERS.get(balance_by or "")
    if answers is None:
        return list(groups), {}
    out, matched = [], {}
    for group in groups:
        found = match(group, answers)
        if found is None:
            raise LabelMismatch(refusal(group, f"a {balance_by} raters can answer, so its share of each item "
                                        "would never fill", answers, "use one of them"))
        if found.rule:
            matched[group] = f"{found.answer!r} ({found.rule})"
        out.append(found.answer)
    return out, matched
