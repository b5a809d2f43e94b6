"""The command line the through-serving benches share (bench/through_serving.py, bench/issue53.py):
`python -m bench.NAME [part …] [a:b] [--seeds a:b] [--quick]`: some of the parts, lines a:b of each
part, the studies by seed (so that parts of a line can run side by side and be pooled)."""
from __future__ import annotations


def cut(text: str) -> slice:
    """"a:b", "a:", ":b" as a slice; a bad one in one line naming it."""
    try:
        return slice(*(int(x) if x else None for x in text.split(":")))
    except (TypeError, ValueError):
        raise SystemExit(f"expected a range like 10:20, not {text!r}") from None


def parse(argv: list[str], parts: tuple[str, ...]) -> dict:
    """parts (those named, else all), lines (a slice), seeds (a slice or None) and quick."""
    args = list(argv)
    seeds = None
    if "--seeds" in args:
        at = args.index("--seeds")
        if at + 1 >= len(args):
            raise SystemExit("--seeds needs a range like 0:25")
        seeds = cut(args[at + 1])
        del args[at:at + 2]
    lines = next((cut(a) for a in args if ":" in a), slice(None))
    return {"parts": [a for a in args if a in parts] or list(parts), "lines": lines, "seeds": seeds,
            "quick": "--quick" in args}
