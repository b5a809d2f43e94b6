"""Files fairval writes: the kind is chosen by the file's ending, and a wrong ending is refused before
anything is computed or written. Every file is written whole or not at all (atomic_output)."""
from __future__ import annotations

import errno
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairval.annotate.material.cells import spreadsheet_text
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


_UMASK = os.umask(0o022)          # read once (umask has no getter): what a plainly created file would get
os.umask(_UMASK)


@contextmanager
def atomic_output(out: str | Path) -> Iterator[Path]:
    """A temporary path in `out`'s folder to write the whole file to. When the block ends without an error
    the file is flushed to disk and renamed over `out` in one step; on any error the temporary file is
    removed and whatever was at `out` before is untouched. An OSError becomes one OutputError sentence
    naming the path (a full disk says so)."""
    out = Path(out)
    folder = out.parent
    if not folder.is_dir():
        raise OutputError(f"cannot write {out}: the folder {folder} does not exist")
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=f".{out.name}.", suffix=".part")
    except OSError as e:
        raise output_failure(out, e) from None
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, 0o666 & ~_UMASK)
        with open(temporary, "rb") as f:
            os.fsync(f.fileno())
        os.replace(temporary, out)
    except OSError as e:
        temporary.unlink(missing_ok=True)
        raise output_failure(out, e) from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def output_failure(out: Path, error: OSError) -> OutputError:
    """One sentence for a file that could not be written (pyarrow's errors carry no errno, only text)."""
    kept = f"; {out} is as it was" if out.exists() else "; nothing was written"
    if error.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left" in str(error):
        return OutputError(f"no space left on the device to write {out}{kept}")
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return OutputError(f"not allowed to write {out} ({error.strerror}){kept}")
    return OutputError(f"cannot write {out}: {error.strerror or error}{kept}")


def write_text(out: str | Path, text: str) -> None:
    """A text file (UTF-8), whole or not at all."""
    with atomic_output(out) as path:
        path.write_text(text, encoding="utf-8")


def spreadsheet_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Every text cell of a table made safe for a spreadsheet (numbers untouched), headers included."""
    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or isinstance(out[column].dtype, (pd.CategoricalDtype, pd.StringDtype)):
            values = out[column].astype(object)
            # each distinct text once: a million ratings repeat a few thousand ids and answers
            safe: dict[Any, str] | Callable[[Any], str]
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
    with atomic_output(out) as path:
        pa_csv.write_csv(pa.Table.from_pandas(safe, preserve_index=False), str(path))


# Markdown's punctuation (CommonMark escapes any of it with a backslash), plus Streamlit's own `:` (colour
# and emoji directives) and `$` (LaTeX).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&])")


def markdown_text(value) -> str:
    """A participant's or an imported file's text as Markdown that shows it as typed: every piece of
    punctuation escaped, so no viewer draws an image (and fetches it), a link, a formula or raw HTML."""
    return _MARKDOWN.sub(r"\\\1", str(value)).replace("\n", " ")
