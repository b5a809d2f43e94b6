"""Reading import files (JSON Lines or CSV) into numbered records, refusing bad files whole."""
from __future__ import annotations

import csv
import io
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, overload

from fairval.annotate.material.cells import unguarded
from fairval.errors import ImportProblem, RaterIdError


@dataclass(frozen=True, slots=True)
class Record:
    line: int                 # 1-based line in the file (CSV: the line the row starts on)
    data: dict                # field -> value, in the file's order
    raw: str | None           # the JSONL line exactly as read (no newline); None for CSV
    format: str               # 'jsonl' | 'csv' | 'json' (one array of objects)


def rater_key(rater_id: str) -> str:
    """A rater id as stored and compared: trimmed, Unicode NFC (so one person's id typed two ways is one
    rater), and refused when it holds control or invisible format characters (zero-width spaces,
    direction overrides), which would make `alice` and `alice\u200b` two raters or show an id as
    something else on the researcher's pages."""
    key = unicodedata.normalize("NFC", str(rater_id)).strip()
    if not key or len(key) > 128:
        raise RaterIdError("a rater id must be 1-128 characters")
    odd = next((c for c in key if unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")), None)
    if odd is not None:
        raise RaterIdError(f"a rater id may not hold invisible or control characters (found U+{ord(odd):04X} "
                         f"{unicodedata.name(odd, 'unnamed')}); please use the link exactly as you were given it")
    return key


# Fields whose values become keys of the database's indexes (item, rater, question, model, template ids).
# PostgreSQL refuses an index entry past about 2.7 KB, and one key holds several of these at up to 4 bytes
# a character: 200 characters each keeps any key within it, and is far past any id a real file uses.
KEY_FIELDS = ("id", "item_id", "rater_id", "question", "model", "decision_question_id")
MOST_KEY_CHARS = 200


def check_text(path, rec: Record) -> None:
    """Refuse, naming the line and field, what no database stores the same way on SQLite and PostgreSQL:
    a lone surrogate (JSON's escaped \\ud800, half of a character: not encodable as UTF-8), a NUL character
    (PostgreSQL text never holds one), and an id longer than MOST_KEY_CHARS."""
    for field, value in rec.data.items():
        for text in _texts(field, value):
            odd = next((c for c in text if c == "\x00" or "\ud800" <= c <= "\udfff"), None)
            if odd == "\x00":
                raise ImportProblem(path, rec.line, field, "holds a NUL character (U+0000), which a database "
                                    "text cannot hold; remove it and import again")
            if odd is not None:
                raise ImportProblem(path, rec.line, field, f"holds a lone surrogate (U+{ord(odd):04X}), half of a "
                                    "character and no text on its own (an escape such as \\ud800 without its "
                                    "pair); fix it and import again")
        if field in KEY_FIELDS and isinstance(value, (str, int)) and len(str(value)) > MOST_KEY_CHARS:
            raise ImportProblem(path, rec.line, field, f"is {len(str(value))} characters long; an id is at most "
                                f"{MOST_KEY_CHARS}")


def _texts(field: str, value):
    """The field's name and every text inside its value (keys of nested objects included)."""
    stack = [field, value]
    while stack:
        held = stack.pop()
        if isinstance(held, str):
            yield held
        elif isinstance(held, dict):
            stack.extend(held.keys())
            stack.extend(held.values())
        elif isinstance(held, (list, tuple)):
            stack.extend(held)


ROWS = "rows"      # what messages call rows given as Python dicts, where a file would be named
# json stops somewhat under a thousand levels (RecursionError) on Python 3.11, at about a thousand on 3.12,
# and reads 5,000 on 3.13 (its C stack limit): the limit is fairval's own, so a file is read or refused
# alike on every Python.
MOST_NESTING = 500


def too_deep(value: object) -> bool:
    """Whether objects or lists nest past MOST_NESTING levels (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > MOST_NESTING:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def source_label(source) -> str | Path:
    """How messages name where records came from: the file, or `rows` for dicts handed over in Python."""
    return Path(source) if isinstance(source, (str, Path)) else ROWS


def read_records(source) -> list[Record]:
    """All records of a .jsonl/.json/.ndjson or .csv file, or of an iterable of dicts (a notebook's rows,
    numbered from 1 as lines are); an empty or undecodable file is refused."""
    if not isinstance(source, (str, Path)):
        return _rows(source)
    path = Path(source)
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise ImportProblem(path, None, None, f"cannot read the file ({e.strerror})") from None
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = blob[:e.start].count(b"\n") + 1
        raise ImportProblem(path, line, None, f"is not UTF-8 text (byte 0x{blob[e.start]:02x} at "
                            f"offset {e.start}); save the file as UTF-8 and import again") from None
    suffix = path.suffix.lower()
    if suffix == ".json" and text.lstrip().startswith("["):
        records = _json_array(path, text)
    elif suffix in (".jsonl", ".ndjson", ".json"):
        records = _jsonl(path, text)
    elif suffix in (".csv", ".tsv"):
        records = _csv(path, text, "\t" if suffix == ".tsv" else ",")
    else:
        raise ImportProblem(path, None, None, f"unknown file type {suffix or '(none)'!r}; "
                            "use .jsonl or .ndjson (JSON Lines), .json (JSON Lines or one array of objects), "
                            ".csv or .tsv")
    if not records:
        raise ImportProblem(path, None, None, "the file holds no rows")
    for rec in records:
        check_text(path, rec)
    return records


def _rows(rows) -> list[Record]:
    if isinstance(rows, (bytes, dict)) or not hasattr(rows, "__iter__"):
        raise ImportProblem(ROWS, None, None, "give a file path or an iterable of dicts (one per row), "
                            f"not {type(rows).__name__}")
    records = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ImportProblem(ROWS, number, None, f"must be a dict, found {type(row).__name__}")
        record = Record(number, dict(row), None, "jsonl")
        check_text(ROWS, record)
        records.append(Record(number, record.data, json.dumps(row, ensure_ascii=False, default=str), "jsonl"))
    if not records:
        raise ImportProblem(ROWS, None, None, "no rows were given")
    return records


def _jsonl(path: Path, text: str) -> list[Record]:
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            value = json.loads(line)
            deep = too_deep(value)
        except json.JSONDecodeError as e:
            raise ImportProblem(path, number, None, f"is not valid JSON ({e.msg} at column {e.colno})") from None
        except ValueError as e:          # an integer past Python's 4,300 digits
            raise ImportProblem(path, number, None, f"cannot be read ({e})") from None
        except RecursionError:
            deep = True
        if deep:
            raise ImportProblem(path, number, None, "is nested too deeply to read (objects or lists inside each "
                                f"other more than {MOST_NESTING} levels); no row of the file was imported")
        if not isinstance(value, dict):
            raise ImportProblem(path, number, None, f"must be a JSON object, found {type(value).__name__}")
        records.append(Record(number, value, line, "jsonl"))
    return records


def _json_array(path: Path, text: str) -> list[Record]:
    """A .json file holding one array of objects (implicit-bias publishes its templates so), each numbered
    by the line its object starts on."""
    decoder, records = json.JSONDecoder(), []
    at = text.index("[") + 1
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at >= len(text) or text[at] == "]":
            break
        line = text.count("\n", 0, at) + 1
        try:
            value, at = decoder.raw_decode(text, at)
            deep = too_deep(value)
        except json.JSONDecodeError as e:
            raise ImportProblem(path, e.lineno, None, f"is not valid JSON ({e.msg} at column {e.colno})") from None
        except RecursionError:
            deep = True
        if deep:
            raise ImportProblem(path, line, None, f"is nested too deeply to read (more than {MOST_NESTING} levels)")
        if not isinstance(value, dict):
            raise ImportProblem(path, line, None, f"must be a JSON object, found {type(value).__name__}")
        records.append(Record(line, value, None, "json"))
    if text[at:].strip() != "]":
        raise ImportProblem(path, text.count("\n", 0, at) + 1, None, "is not valid JSON (the array does not "
                            "close with ] at the end of the file)")
    return records


def _csv(path: Path, text: str, delimiter: str) -> list[Record]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records = []
    try:
        header = reader.fieldnames
        if header is None:
            return []
        header = reader.fieldnames = [unguarded(h) for h in header]
        dupes = {h for h in header if header.count(h) > 1}
        if dupes:
            raise ImportProblem(path, 1, sorted(dupes)[0], "the header names this column twice")
        start = reader.line_num + 1
        for row in reader:
            if None in row:
                raise ImportProblem(path, start, None, f"has {len(header) + len(row[None])} values "
                                    f"but the header names {len(header)} columns")
            missing = [k for k, v in row.items() if v is None]
            if missing:
                raise ImportProblem(path, start, missing[0], f"has only {len(header) - len(missing)} "
                                    f"values but the header names {len(header)} columns")
            if any(v.strip() for v in row.values()):
                records.append(Record(start, {k: unguarded(v) for k, v in row.items()}, None, "csv"))
            start = reader.line_num + 1
    except csv.Error as e:
        raise ImportProblem(path, reader.line_num, None, f"is not valid CSV ({e})") from None
    return records


@overload
def require_text(path, rec: Record, field: str, *, optional: Literal[False] = False) -> str: ...
@overload
def require_text(path, rec: Record, field: str, *, optional: bool) -> str | None: ...
def require_text(path, rec: Record, field: str, *, optional: bool = False) -> str | None:
    """A non-empty string field (numbers are refused in JSON, where the type is known)."""
    if field not in rec.data or rec.data[field] is None or rec.data[field] == "":
        if optional:
            return None
        raise ImportProblem(path, rec.line, field, "is required but missing or empty")
    value = rec.data[field]
    if not isinstance(value, str):
        raise ImportProblem(path, rec.line, field, f"must be text, found {type(value).__name__} {value!r}")
    return value


@overload
def require_number(path, rec: Record, field: str, *, optional: Literal[False] = False) -> float: ...
@overload
def require_number(path, rec: Record, field: str, *, optional: bool) -> float | None: ...
def require_number(path, rec: Record, field: str, *, optional: bool = False) -> float | None:
    value = rec.data.get(field)
    if value is None or value == "":
        if optional:
            return None
        raise ImportProblem(path, rec.line, field, "is required but missing or empty")
    if isinstance(value, bool):
        raise ImportProblem(path, rec.line, field, f"must be a number, found {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ImportProblem(path, rec.line, field, f"must be a number, found {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ImportProblem(path, rec.line, field, f"must be a finite number, found {value!r}")
    return number
