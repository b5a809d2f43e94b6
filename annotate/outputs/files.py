"""Files fairval writes: the kind is chosen by the file's ending, and a wrong ending is refused before
anything is computed or written."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from fairval.errors import OutputError

if TYPE_CHECKING:
    import pandas as pd


def output_format(out: str | Path, allowed: tuple[str, ...]) -> str:
    """The file's ending (without the dot, lower case) when it is one of `allowed`."""
    out = Path(out)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in allowed:
        raise OutputError(f"cannot write {out.name}: use a file ending in " + " or ".join(f".{a}" for a in allowed))
    return fmt


# OWASP's CSV-injection guidance: a cell a spreadsheet would read as a formula starts with one of these.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def spreadsheet_text(value):
    """A text cell a spreadsheet shows as text: one that could start a formula gets a leading
    apostrophe (plain numbers such as "-1" are numbers, not formulas, and stay as they are)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Every text cell of a table made safe for a spreadsheet (numbers untouched), headers included."""
    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or isinstance(out[column].dtype, (pd.CategoricalDtype, pd.StringDtype)):
            values = out[column].astype(object)
            # each distinct text once: a million ratings repeat a few thousand ids and answers
            try:
                safe = {v: spreadsheet_text(v) for v in values.dropna().unique()}
            except TypeError:               # unhashable cells (lists): one by one
                safe = spreadsheet_text
            out[column] = values.map(safe)
    out.columns = [spreadsheet_text(str(c)) for c in out.columns]
    return out


def write_csv(frame: pd.DataFrame, out: str | Path) -> None:
    """A CSV a researcher can open in a spreadsheet without running anything a participant wrote,
    written by pyarrow's CSV writer (several times faster than pandas' on a million rows)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    safe = spreadsheet_frame(frame)
    for column in safe.columns:             # text columns may mix kinds (an id, a number, nothing)
        if safe[column].dtype == object:
            safe[column] = safe[column].astype("string")
    pa_csv.write_csv(pa.Table.from_pandas(safe, preserve_index=False), str(out))


# Markdown's punctuation (CommonMark escapes any of it with a backslash), plus Streamlit's own `:` (colour
# and emoji directives) and `$` (LaTeX).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&])")


def markdown_text(value) -> str:
    """A participant's or an imported file's text as Markdown that shows it as typed: every piece of
    punctuation escaped, so no viewer draws an image (and fetches it), a link, a formula or raw HTML."""
    return _MARKDOWN.sub(r"\\\1", str(value)).replace("\n", " ")
