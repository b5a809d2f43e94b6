"""A cell of a CSV file fairval writes and reads: a text a spreadsheet would run as a formula is guarded
with a leading apostrophe on the way out (OWASP's CSV-injection guidance), and the guard comes off on the
way in, so ids and answers make the round trip exactly."""
from __future__ import annotations

import re

# OWASP's CSV-injection guidance: a cell a spreadsheet would read as a formula starts with one of these.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


# Direction overrides and embeddings (U+202A–202E), isolates (U+2066–2069) and zero-width characters: invisible
# in a cell, yet they reorder or split what a researcher reads (a comment that shows "gpj.exe" as "exe.jpg").
_INVISIBLE = re.compile("[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff]")


def inert_text(value):
    """A rater's free text as an export shows it: each invisible direction or zero-width character replaced
    by its visible code, <U+202E>, so the cell reads in the order it was typed and nothing hides in it."""
    if isinstance(value, str):
        return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", value)
    return value


def _guarded(value: str) -> bool:
    """Whether a spreadsheet would run the text as a formula once its leading apostrophes are taken off
    (one apostrophe is the guard; a text that itself starts with apostrophes before a formula gets one
    more, so the guard can always be taken off again)."""
    rest = value.lstrip("'")
    return rest.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(rest)


def spreadsheet_text(value):
    """A text cell a spreadsheet shows as text: one that could start a formula gets a leading
    apostrophe (plain numbers such as "-1" are numbers, not formulas, and stay as they are)."""
    if isinstance(value, str) and _guarded(value):
        return "'" + value
    return value


def unguarded(value):
    """What spreadsheet_text guarded, as it was: every CSV reader of fairval takes the guard off, so ids
    and answers come back from a file fairval wrote exactly as they went in."""
    if isinstance(value, str) and value.startswith("'") and _guarded(value[1:]):
        return value[1:]
    return value
