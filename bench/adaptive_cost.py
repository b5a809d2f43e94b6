"""Issue 53's cost of the adaptive design against a uniform sample, through serving, in worlds it was not tuned
on (bench/unseen_worlds.py, seeds from 5300): per world, the same seeded studies run twice through the app's
session functions (bench/through_serving.py's start and crowd: a new SQLite file each, the pairs and the
judge imported as the CLI imports them, simulated raters calling arrive … record_answer and the page's
stopping check), once with `study set design=adaptive budget=B` and once with `study sample --n B`, each
stopping itself once H's anytime interval is 0.15 wide (checked at every complete pair), 3 raters per pair.
Reported: judgments until the stop (mean over the studies, and their ratio adaptive / uniform with a 95%
Monte-Carlo interval: a paired bootstrap over the studies), how many stopped, and how many stops held the
true H (from the world's truth, never from the app).

`.venv/bin/python -m bench.adaptive_cost [a:b] [--seeds a:b] [--held-out] [--quick]`: lines a:b of LINES (of
HELD_OUT with --held-out), studies by seed (seed k is 5300 + k, 7100 + k held out), so that parts can run side
by side and be pooled (each line lists its studies' judgments).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.through_serving import DESIGNS, anytime, crowd, excludes, start
from bench.unseen_worlds import beta_sureness, sure_and_right
from fairval.annotate.material.studies import load_study

SEED0 = 5300
TARGET = 0.15
# (world, its generator, pairs, budget): unrelated sureness from four Beta laws, a judge sure and right on three
# shares; sizes 200 to 5,000
LINES = [("sureness from Beta(0.5, 0.5), unrelated", lambda r, n: beta_sureness(r, n, 0.5, 0.5), 400, 200),
         ("sureness from Beta(2, 5), unrelated", lambda r, n: beta_sureness(r, n, 2, 5), 1000, 500),
         ("sureness from Beta(5, 2), unrelated", lambda r, n: beta_sureness(r, n, 5, 2), 200, 150),
         ("sureness from Beta(1, 1), unrelated", lambda r, n: beta_sureness(r, n, 1, 1), 5000, 2500),
         ("sure and right on 75%", lambda r, n: sure_and_right(r, n, 0.75), 400, 200),
         ("sure and right on 85%", lambda r, n: sure_and_right(r, n, 0.85), 1000, 500),
         ("sure and right on 80%", lambda r, n: sure_and_right(r, n, 0.8), 5000, 2500)]
# A second held-out set (issue 53, 2026-11-28), never looked at before the design's settings were fixed: other Beta
# laws, shares, sizes and budgets, seeds from 7100 (`--held-out`)
HELD_OUT_SEED0 = 7100
HELD_OUT = [("sureness from Beta(3, 3), unrelated", lambda r, n: beta_sureness(r, n, 3, 3), 600, 300),
            ("sureness from Beta(0.7, 2), unrelated", lambda r, n: beta_sureness(r, n, 0.7, 2), 3000, 1000),
            ("sure and right on 70%", lambda r, n: sure_and_right(r, n, 0.7), 800, 400),
            ("sure and right on 90%", lambda r, n: sure_and_right(r, n, 0.9), 2500, 1000)]


def stop_pair(folder: Path, line: tuple, seed: int, tag: str = "") -> dict:
    """One seeded world, its study run under each design to its stop: judgments, stopped, H held at the stop."""
    _name, make, pairs, budget = line
    out = {}
    for design in ("uniform --n", "adaptive"):
        w = make(np.random.default_rng([seed, pairs]), pairs)
        db = start(folder / f"cost{tag}-{line[2]}-{seed}-{DESIGNS.index(design)}.sqlite", w, design, 3,
                   n=budget, seed=seed, target=TARGET)
        try:
            log = crowd(db, w, np.random.default_rng([seed, 3, 7]))
            out[design] = {"judgments": log["judgments"], "stopped": bool(load_study(db, "bench").recorded.stopped),
                           "covered": not excludes(anytime(db), w["H"])}
        finally:
            db.close()
    return out


def ratio_interval(adaptive: np.ndarray, uniform: np.ndarray, draws: int = 4000) -> tuple[float, float]:
    """A paired percentile bootstrap of mean(adaptive) / mean(uniform) over the studies (95%)."""
    rng = np.random.default_rng(53)
    pick = rng.integers(0, len(adaptive), (draws, len(adaptive)))
    ratios = adaptive[pick].mean(axis=1) / uniform[pick].mean(axis=1)
    return float(np.quantile(ratios, 0.025)), float(np.quantile(ratios, 0.975))


def run(folder, quick: bool = False, lines: slice = slice(None), seeds: slice | None = None, held_out: bool = False):
    chosen = range(1) if quick else range(30) if seeds is None else range(*seeds.indices(1 << 30))
    seed0, table = (HELD_OUT_SEED0, HELD_OUT) if held_out else (SEED0, LINES)
    for line in (table[:1] if quick else table[lines]):
        found = [stop_pair(folder, line, seed0 + k, "h" if held_out else "") for k in chosen]
        a = np.array([f["adaptive"]["judgments"] for f in found], float)
        u = np.array([f["uniform --n"]["judgments"] for f in found], float)
        low, high = ratio_interval(a, u)
        stops = {d: sum(f[d]["stopped"] for f in found) for d in ("adaptive", "uniform --n")}
        held = {d: sum(f[d]["stopped"] and f[d]["covered"] for f in found) for d in ("adaptive", "uniform --n")}
        name, _, pairs, budget = line
        yield (f"adaptive cost, {name}, {pairs} pairs, budget {budget}: {len(found)} studies (seeds "
               f"{seed0 + chosen.start}–{seed0 + chosen.stop - 1}); judgments to a {TARGET} width, mean adaptive "
               f"{a.mean():,.0f} / uniform --n {u.mean():,.0f} = {a.mean() / u.mean():.2f}x (95% MC {low:.2f}–{high:.2f}); "
               f"stopped {stops['adaptive']} / {stops['uniform --n']}, H held at {held['adaptive']} / "
               f"{held['uniform --n']} stops; judgments adaptive {a.astype(int).tolist()}, uniform {u.astype(int).tolist()}")


if __name__ == "__main__":
    import sys
    import tempfile

    from bench.slices import parse

    got = parse([a for a in sys.argv[1:] if a != "--held-out"], ())
    with tempfile.TemporaryDirectory() as tmp:
        for text in run(Path(tmp), quick=got["quick"], lines=got["lines"], seeds=got["seeds"],
                        held_out="--held-out" in sys.argv):
            print(text, flush=True)
