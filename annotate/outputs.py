"""Files fairval writes: the kind is chosen by the file's ending, and a wrong ending is refused before
anything is computed or written."""
from __future__ import annotations

from pathlib import Path


def output_format(out: str | Path, allowed: tuple[str, ...]) -> str:
    """The file's ending (without the dot, lower case) when it is one of `allowed`."""
    out = Path(out)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in allowed:
        raise ValueError(f"cannot write {out.name}: use a file ending in " + " or ".join(f".{a}" for a in allowed))
    return fmt
