"""Imports: items, ratings collected elsewhere, LMRA scores. Validate everything, then write once."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from fairval.analysis.lmra import combine_orders
from fairval.annotate.material import gold_checks, layouts, vocabulary
from fairval.annotate.material.identity import content_key
from fairval.annotate.material.languages import LANGUAGES, supported
from fairval.annotate.material.pairs import canonical_value
from fairval.annotate.material.records import Record, rater_key, read_records, require_number, require_text, source_label
from fairval.annotate.material.studies import LoadedStudy, load_study, open_when_ready, ready_loads
from fairval.errors import ImportProblem, LabelMismatch, NoSpace, RaterIdError, StoreError, StudyError, TaskError
from fairval.store import Connection, audit, immediate, loads
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import raters as rater_store
from fairval.store import ratings as rating_store
from fairval.store.raters import ATTRIBUTES

GOLD_FIELD, PRACTICE_FIELD = "_gold", "_practice"
CONTROL_FIELDS = (GOLD_FIELD, PRACTICE_FIELD)          # read into the item's gold and practice marks
PROBABILITY_FIELDS = ("p_a", "p_b", "p_c", "q_a", "q_b", "q_c")


@dataclass(frozen=True)
class ImportResult:
    written: int
    skipped: int = 0      # rows identical to what was stored already
    matched: dict[str, str] = field(default_factory=dict)   # labels matched to answers by a rule (vocabulary)
    notices: tuple[str, ...] = ()     # one line each the importer must say (gold items a rate of 0 never serves)
    practice: int = 0     # of the written items, practice items (with or without an expected answer)
    checks: int = 0       # attention checks: items with an expected answer (`_gold`) that are not practice

    def kinds_line(self) -> str:
        """What the written items are, when some are not to rate (empty otherwise): practice items and
        attention checks are served but are no item of the study's numbers."""
        if not (self.practice or self.checks):
            return ""
        rated = self.written - self.practice - self.checks
        return (f"of them: {rated} to rate, {self.practice} practice item{'s' * (self.practice != 1)}, "
                f"{self.checks} attention check{'s' * (self.checks != 1)}")

    def matched_line(self) -> str:
        """The labels matched this time, said in one line (empty when every label was an answer)."""
        return f"labels matched to the answers: {vocabulary.said(self.matched)}" if self.matched else ""


def derive_item_id(data: dict) -> str:
    """A stable id from the row's content, so re-deriving it from the same row gives the same id."""
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "i" + hashlib.sha256(canonical.encode()).hexdigest()[:12]


def _import_items(db: Connection, study_id: str, path, label_map: dict | None = None) -> ImportResult:
    study = load_study(db, study_id)
    if study.design.drawn:
        raise StudyError(f"study {study_id!r} has its human sample drawn already; items imported now would not "
                         "be part of it. Import every pair first, then draw the sample")
    records = layouts.read_items(path)
    path = source_label(path)
    rows: list[dict] = []
    seen: dict[str, int] = {}
    matched: dict[str, str] = {}
    perceived = {q.id: q.values for q in study.task.perceived_questions}
    for rec in records:
        item_id = _item_id(path, rec)           # from the row as written, so the same row keeps its id
        rec = layouts.with_seed_fields(rec, study.task.required_fields)
        if perceived:
            rec = _intended(path, rec, perceived, label_map, matched)
        for required in study.task.required_fields:
            if required not in rec.data and (not_items := layouts.word_list_layout(rec)):    # not a column at all
                raise ImportProblem(path, None, None, not_items)
            seed = layouts.seed_name(rec, required, study.task.required_fields)
            if seed and rec.data.get(required) in (None, ""):
                raise ImportProblem(path, rec.line, seed, f"is required but missing or empty (fairval's {required!r})")
            require_text(path, rec, required)
        if item_id in seen:
            raise ImportProblem(path, rec.line, "id", f"repeats item id {item_id!r} from line "
                                f"{seen[item_id]}" + ("" if "id" in rec.data else
                                                      " (the rows are identical)"))
        seen[item_id] = rec.line
        rows.append({"item_id": item_id, "data": rec.data, "source_line": rec.raw,
                     "source_format": rec.format, "gold": _gold(path, rec, study, label_map, matched),
                     "practice": _flag(path, rec, PRACTICE_FIELD), "line": rec.line})
    _refuse_stored_content(db, study.study_id, path, rows)
    try:
        with immediate(db, study.study_id):
            rules = ready_loads(db, study)
            served = item_store.insert_items(db, study.study_id, rows)
            loads.add_items(db, study.study_id, served, rules)
            open_when_ready(db, study.study_id)
    except NoSpace:
        raise
    except StoreError as e:
        raise ImportProblem(path, None, "id", str(e)) from None
    unused = gold_checks.unused_gold_notice(db, study.study_id)
    return ImportResult(len(rows), matched=matched,
                        notices=(unused,) if unused and any(r["gold"] for r in rows) else (),
                        practice=sum(1 for r in rows if r["practice"]),
                        checks=sum(1 for r in rows if r["gold"] and not r["practice"]))


def _intended(path, rec: Record, perceived: dict, label_map: dict | None, matched: dict) -> Record:
    """A name item with its intended groups as the questions' answers (vocabulary.intended)."""
    try:
        data = vocabulary.intended(rec.data, perceived, label_map, matched)
    except LabelMismatch as e:
        raise ImportProblem(path, rec.line, e.field, str(e)) from None
    # a changed row is stored as matched (its source line as read would be stored as the item's data)
    return rec if data == rec.data else Record(rec.line, data, None, rec.format)


def _refuse_stored_content(db: Connection, study_id: str, path, rows: list[dict]) -> None:
    """Refuse rows whose content is an item of the study already under another id: the same rows read
    from another format (a CSV's "30.0" is a JSON line's 30.0) derive other ids. Ids are left as they
    are; a row with the same id is refused by the store, naming it."""
    stored = {content_key(i["data"]): i["item_id"] for i in item_store.list_items(db, study_id)}
    if not stored:
        return
    again = [(r, stored[k]) for r in rows if (k := content_key(r["data"])) in stored and stored[k] != r["item_id"]]
    if again:
        row, item_id = again[0]
        raise ImportProblem(path, None, None, f"{len(again)} of the file's {len(rows)} rows are items of study "
                            f"{study_id!r} already, with the same fields and values (line {row['line']} is item "
                            f"{item_id!r}); nothing was imported")


def _item_id(path, rec: Record) -> str:
    if "id" not in rec.data:
        return derive_item_id(rec.data)
    value = rec.data["id"]
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise ImportProblem(path, rec.line, "id", f"must be a non-empty text or whole number, found {value!r}")
    return str(value)


def _gold(path, rec: Record, study: LoadedStudy, label_map: dict | None, matched: dict) -> dict | None:
    raw = rec.data.get(GOLD_FIELD)
    if raw in (None, ""):
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise ImportProblem(path, rec.line, GOLD_FIELD, 'must be a JSON object such as '
                                '{"quality": 1}') from None
    if not isinstance(raw, dict) or not raw:
        raise ImportProblem(path, rec.line, GOLD_FIELD, "must map question ids to expected answers")
    gold = {}
    for qid, value in raw.items():
        try:
            question = study.task.question(qid)
        except TaskError as e:
            raise ImportProblem(path, rec.line, GOLD_FIELD, str(e)) from None
        gold[qid] = _answer_of(path, rec, GOLD_FIELD, question, value, label_map, matched)
    return gold


def _flag(path, rec: Record, field: str) -> bool:
    value = rec.data.get(field)
    if value in (None, "", False, 0, "0", "false", "False"):
        return False
    if value in (True, 1, "1", "true", "True"):
        return True
    raise ImportProblem(path, rec.line, field, f"must be true/false or 1/0, found {value!r}")


def _import_ratings(db: Connection, study_id: str, path, label_map: dict | None = None) -> ImportResult:
    """Ratings collected elsewhere (SPEC §2): value as the rater saw it, flipped order optional."""
    study = load_study(db, study_id)
    records = read_records(path)
    path = source_label(path)
    known_items = item_store.item_ids(db, study.study_id)
    judge_alone = item_store.judge_only_ids(db, study.study_id)
    stored = rating_store.stored_values(db, study.study_id)
    rows: list[dict] = []
    raters: dict[str, tuple[dict, int]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    matched: dict[str, str] = {}
    skipped = 0
    for rec in records:
        item_id = str(_required_id(path, rec, "item_id"))
        if item_id not in known_items:
            raise ImportProblem(path, rec.line, "item_id", f"no item {item_id!r} in study {study.study_id!r}")
        if item_id in judge_alone:
            # a rating outside the drawn sample would make the human subset no longer a random sample
            raise ImportProblem(path, rec.line, "item_id", f"item {item_id!r} is outside the study's random human "
                                "sample (left to the judge); rate only the sampled pairs")
        try:
            rater_id = rater_key(str(_required_id(path, rec, "rater_id")))
        except RaterIdError as e:
            raise ImportProblem(path, rec.line, "rater_id", str(e)) from None
        qid = require_text(path, rec, "question")
        try:
            question = study.task.question(qid)
        except TaskError as e:
            raise ImportProblem(path, rec.line, "question", str(e)) from None
        value = _answer_of(path, rec, "value", question, _answer(path, rec, "value"), label_map, matched)
        flipped = _flag(path, rec, "flipped")
        if flipped and not study.task.is_pair:
            raise ImportProblem(path, rec.line, "flipped", "only pair studies show responses flipped")
        seconds = require_number(path, rec, "seconds", optional=True)
        language = _language(path, rec)
        key = (item_id, rater_id, qid)
        if key in seen:
            raise ImportProblem(path, rec.line, "question", f"rater {rater_id!r} rated item {item_id!r} on "
                                f"{qid!r} already at line {seen[key]}")
        seen[key] = rec.line
        if key in stored:
            if stored[key] != value:
                raise ImportProblem(path, rec.line, "value", f"differs from the stored rating "
                                    f"{stored[key]!r}; ratings are written once")
            skipped += 1
            continue
        attrs = {a: _rater_answer(a, require_text(path, rec, f"rater_{a}", optional=True), matched)
                 for a in ATTRIBUTES}
        _merge_rater(path, rec, raters, rater_id, attrs)
        rows.append({"item_id": item_id, "rater_id": rater_id, "question": qid, "value": value,
                     "canonical": canonical_value(question, value, flipped),
                     "flipped": int(flipped) if study.task.is_pair else None,
                     "comment": require_text(path, rec, "comment", optional=True),
                     "seconds": seconds, "source": "import", "language": language})
    rated = {(i, r) for i, r, _q in stored}
    with immediate(db, study.study_id):
        rules = ready_loads(db, study)
        regrouped = False
        for rater_id, (attrs, line) in raters.items():
            row = rater_store.ensure_rater(db, study.study_id, rater_id, source="import", attributes=attrs)
            for a, v in attrs.items():
                if v is not None and row[a] not in (None, v):
                    raise ImportProblem(path, line, f"rater_{a}", f"rater {rater_id!r} is stored with "
                                        f"{a} {row[a]!r}, not {v!r}")
                if v is not None and row[a] is None:
                    rater_store.update_rater(db, study.study_id, rater_id, **{a: v})
                    regrouped |= a == study.settings.balance_by
        written = loads.record_imported(db, study.study_id, rows, rated, rules, regrouped=regrouped)
    return ImportResult(written, skipped, matched)


def _answer_of(path, rec: Record, field_name: str, question, value, label_map: dict | None, matched: dict) -> str:
    """A gold answer or an imported rating as one of the question's answers, by vocabulary's rule."""
    value = str(value)
    if question.is_likert and value not in question.values:
        value = _whole_number_text(value)          # "4.0" from a spreadsheet means 4
    try:
        found = vocabulary.require(value, f"an answer to {question.id!r}", question.values, label_map)
    except LabelMismatch as e:
        raise ImportProblem(path, rec.line, field_name, str(e)) from None
    if found.rule:
        matched[f"{field_name} {question.id} {value!r}"] = f"{found.answer!r} ({found.rule})"
    return found.answer


def _rater_answer(attribute: str, value: str | None, matched: dict) -> str | None:
    """A rater's gender or race as the rater form stores it when the rule matches one (`m` -> male), so
    balance groups and group numbers count them; other words are kept as self-described."""
    found = vocabulary.match(value, vocabulary.RATER_ANSWERS[attribute]) \
        if value is not None and attribute in vocabulary.RATER_ANSWERS else None
    if found is None or not found.rule:
        return value
    matched[f"rater_{attribute} {value!r}"] = f"{found.answer!r} ({found.rule})"
    return found.answer


def _merge_rater(path, rec, raters: dict, rater_id: str, attrs: dict) -> None:
    if rater_id not in raters:
        raters[rater_id] = (dict(attrs), rec.line)
        return
    known, _ = raters[rater_id]
    for a, v in attrs.items():
        if v is not None and known.get(a) not in (None, v):
            raise ImportProblem(path, rec.line, f"rater_{a}", f"rater {rater_id!r} has {a} "
                                f"{known[a]!r} on an earlier line, {v!r} here")
        known[a] = known.get(a) or v


def _required_id(path, rec: Record, field: str) -> str | int:
    value = rec.data.get(field)
    if value is None or value == "" or isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ImportProblem(path, rec.line, field, f"must be a non-empty text or whole number, found {value!r}")
    return value


def _answer(path, rec: Record, field: str) -> str:
    value = rec.data.get(field)
    if isinstance(value, bool) or value is None or value == "":
        raise ImportProblem(path, rec.line, field, "is required but missing or empty")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _whole_number_text(value: str) -> str:
    try:
        number = float(value)
    except ValueError:
        return value
    return str(int(number)) if number.is_integer() else value


def _import_lmra(db: Connection, study_id: str, path) -> ImportResult:
    """LMRA scores: `score` in [-1, 1], or the six probabilities of both orders (004 App. H)."""
    study = load_study(db, study_id)
    records = read_records(path)
    path = source_label(path)
    known_items = item_store.item_ids(db, study.study_id)
    rows: list[dict] = []
    seen: dict[tuple[str, str], int] = {}
    for rec in records:
        item_id = str(_required_id(path, rec, "item_id"))
        if item_id not in known_items:
            raise ImportProblem(path, rec.line, "item_id", f"no item {item_id!r} in study {study.study_id!r}")
        model = require_text(path, rec, "model")
        if (item_id, model) in seen:
            raise ImportProblem(path, rec.line, "item_id", f"repeats item {item_id!r} for model {model!r} "
                                f"from line {seen[item_id, model]}")
        seen[item_id, model] = rec.line
        has_probs = any(rec.data.get(f) not in (None, "") for f in PROBABILITY_FIELDS)
        score = require_number(path, rec, "score", optional=has_probs)
        probabilities = None
        if score is not None and has_probs:
            raise ImportProblem(path, rec.line, "score", "give either score or p_a..q_c, not both")
        if score is None:
            probabilities = {f: require_number(path, rec, f) for f in PROBABILITY_FIELDS}
            for f, v in probabilities.items():
                if not 0 <= v <= 1:
                    raise ImportProblem(path, rec.line, f, f"must be a probability in [0, 1], found {v}")
            try:
                score = combine_orders([probabilities[f] for f in PROBABILITY_FIELDS[:3]],
                                       [probabilities[f] for f in PROBABILITY_FIELDS[3:]]).score
            except ValueError as e:
                raise ImportProblem(path, rec.line, "p_a", str(e)) from None
        elif not -1 <= score <= 1:
            raise ImportProblem(path, rec.line, "score", f"must lie in [-1, 1], found {score}")
        rows.append({"item_id": item_id, "model": model, "score": score, "probabilities": probabilities})
    return ImportResult(lmra_store.upsert_scores(db, study.study_id, rows))


def _audited(kind: str, work):
    def run(db: Connection, study_id: str, path, **options) -> ImportResult:
        result = work(db, study_id, path, **options)
        audit.record(db, f"import.{kind}", study_id, source=_source_name(path), rows=result.written,
                     skipped=result.skipped, sha256=_fingerprint(path),
                     **({"labels_matched": result.matched} if result.matched else {}))
        return result
    run.__name__, run.__doc__ = f"import_{kind}", work.__doc__
    return run


def _source_name(path) -> str:
    return Path(path).name if isinstance(path, (str, Path)) else "rows given in Python"


def _fingerprint(path) -> str | None:
    """The imported file's SHA-256, so the trail says which file it was (None for rows given in Python)."""
    if not isinstance(path, (str, Path)):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _language(path, rec: Record) -> str | None:
    """A rating's optional `language` column: the language the rater read the study in (BCP 47)."""
    given = require_text(path, rec, "language", optional=True)
    if given is None or not given.strip():
        return None
    shipped = supported(given)
    if shipped is None:
        raise ImportProblem(path, rec.line, "language", f"{given!r} is not a language fairval ships "
                            f"({', '.join(LANGUAGES)})")
    return shipped


import_items = _audited("items", _import_items)
import_ratings = _audited("ratings", _import_ratings)
import_lmra = _audited("lmra", _import_lmra)
