"""docs/methods.md's adaptive-design paragraph, written by the app from a study run through its own session
functions (bench/through_serving.py): `.venv/bin/python -m bench.methods_example` prints it, then `analyze
--json`'s numbers it quotes. The study: bench/worlds.py's "clear pairs" (seed 11, 200 pairs, true H printed
from the world's truth), 3 raters a pair, `study set design=adaptive budget=100` with target width 0.3, the
stopping rule checked at every complete pair as the page checks it. tests/annotate/outputs/test_methods_doc.py
runs the same study and holds docs/methods.md to this output."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from bench.through_serving import STUDY, crowd, start
from bench.worlds import make_world
from fairval.annotate.cli.main import cli
from fairval.annotate.outputs.methods import methods_text

SEED, PAIRS, BUDGET, RATERS, TARGET = 11, 200, 100, 3, 0.3


def adaptive_example(path: Path) -> tuple[str, dict, float]:
    """(the methods paragraph, `fairval analyze STUDY --json` as parsed JSON, the world's true H) for the
    adaptive example, its database written at `path`."""
    w = make_world(np.random.default_rng(SEED), "clear pairs", PAIRS)
    db = start(path, w, "adaptive", RATERS, n=BUDGET, seed=SEED, target=TARGET)
    try:
        crowd(db, w, np.random.default_rng([SEED, RATERS]), look_every=1)
        text, _cites = methods_text(db, STUDY)
    finally:
        db.close()
    result = CliRunner().invoke(cli, ["--db", str(path), "analyze", STUDY, "--json"])
    if result.exit_code != 0:
        raise RuntimeError(result.output)
    return text, json.loads(result.output), float(w["H"])


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        paragraph, numbers, h = adaptive_example(Path(tmp) / "example.sqlite")
    print(f"> {paragraph}\n")
    harm = numbers["harm"]
    print(f"true H {h:.3f}; analyze --json: harm.ppi {json.dumps(harm['ppi'], indent=1)}")
