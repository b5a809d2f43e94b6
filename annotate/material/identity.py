"""When two rows are the same item: their content with the file format's types taken out.

A CSV gives every value as text ("30.0", "3"), a JSON line gives numbers (30.0, 3) and objects; the same
row read from each must be recognised as one item. Item ids are not touched (an id derived from a row
stays what it always was, so no stored study changes): this key serves only to find rows already in a
study under another id.
"""
from __future__ import annotations

import hashlib
import json
import math
import re

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _plain(value):
    """The value as the same thing whatever format carried it: numbers (and number text) as one number
    text, true/false as text, JSON text of an object or list as that object, empty as absent (None)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number_text(float(value))
    if isinstance(value, dict):
        return {k: v for k, v in ((str(k), _plain(v)) for k, v in value.items()) if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    text = str(value).strip()
    if text.lower() in ("true", "false"):
        return text.lower()
    if _NUMBER.fullmatch(text):
        return _number_text(float(text))
    if text[:1] in "{[":
        try:
            return _plain(json.loads(text))
        except (json.JSONDecodeError, RecursionError):
            pass
    return text


def _number_text(number: float) -> str:
    if math.isfinite(number) and number.is_integer():
        return str(int(number))
    return repr(number)


def content_key(data: dict) -> str:
    """A digest of the row's fields and values, equal for the same row read from CSV or JSON Lines."""
    plain = _plain(data)
    text = json.dumps(plain, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
