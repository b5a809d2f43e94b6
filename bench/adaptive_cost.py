"""Issue 53's cost of the adaptive design against a uniform sample, through serving, in worlds it was not tuned
on (bench/unseen_worlds.py, seeds from 5300): per world, the same seeded studies run twice through the app's
session functions (bench/through_serving.py's start and crowd: a new SQLite file each, the pairs and the
judge imported as the CLI imports them, simulated raters calling arrive … record_answer and the page's
stopping check), once with `study set design=adaptive budget=B` and once with `study sample --n B`, each
stopping itself once H's anytime interval is 0.15 wide (checked at every complete pair), 3 raters per pair.
Reported: judgments until the stop (mean over the studies, and their ratio adaptive / uniform with a 95%
Monte-Carlo interval: a paired bootstrap over the studies), how many stopped, and how many stops held the
true H (from the world's truth, never from the app).

`.venv/bin/python -m bench.adaptive_cost [a:b] [--seeds a:b] [--held-out | --fresh | --registered | --registered-69 |
--registered-70] [--quick]`: lines a:b of LINES (of HELD_OUT with --held-out, of FRESH with --fresh, of REGISTERED
with --registered, of REGISTERED_69 with --registered-69, of REGISTERED_70 with --registered-70), studies by seed
(seed k is 5300 + k, 7100 + k held out, 9100 + k fresh, 9600 + k registered, 9800 + k registered at stop 69,
10000 + k at stop 70), so that parts can run side by side; `--pool FILE …` pools the parts' printed lines per world
(each line lists its studies' judgments; the parts' seeds
must not overlap).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from bench.through_serving import DESIGNS, anytime, crowd, excludes, start
from bench.unseen_worlds import (
    beta_sureness,
    error_led_sure_and_right,
    five_levels_sure_and_right,
    five_levels_unrelated,
    graded_sure_and_right,
    leaning_b_sure_and_right,
    noise_unrelated,
    size_against_error,
    small_sure_and_right,
    sure_and_right,
    sure_and_right_split,
    three_noise_levels,
    two_error_sizes,
)
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
# A third set (issue 53, 2026-11-28): two worlds written after every setting of the design was fixed and
# before they were first run (bench/unseen_worlds.py says their parameters), seeds from 9100, run once (`--fresh`)
FRESH_SEED0 = 9100
FRESH = [("graded sureness, sure and right on 80%", graded_sure_and_right, 1500, 600),
         ("errors of two sizes, sureness from Beta(1, 1), unrelated", two_error_sizes, 1200, 500)]
# A fourth, pre-registered set (issue 53, 2026-11-28, branch i53-reg): three worlds of bench/unseen_worlds.py written
# and committed before their first run, never tuned on, seeds from 9600 (`--registered`), run once; the number of
# studies per world is REGISTERED_STUDIES, fixed from one study's timing before the run and never extended after:
# one study of each world (`--seeds 0:1`, seed 9600, two processes under `nice -n 10`, load average 3–4) took 11–14 s
# wall for both designs, so 100 studies a world (seeds 9600–9699) are ~31 minutes on two processes, half the time
# left before 17:55 UTC; in parts of seeds 1:25, 25:50, 50:75, 75:100 (plus the timing study 0:1), two at a time.
# Parts the clock leaves unfinished at 17:55 UTC are reported as not run, none replaced or added.
REGISTERED_SEED0 = 9600
REGISTERED_STUDIES = 100
REGISTERED = [("five stated sureness levels, sure and right on 75%", five_levels_sure_and_right, 1000, 400),
              ("sureness a noisy function of its own error, sure and right on 65%", error_led_sure_and_right, 1200, 500),
              ("five stated sureness levels, unrelated", five_levels_unrelated, 800, 300)]
# A fifth, pre-registered set (issue 53, stop 69, 2026-11-29): three worlds of bench/unseen_worlds.py written and
# committed (c55ba99) before their one run, seeds from 9800 (`--registered-69`), REGISTERED_69_STUDIES a world fixed
# before the run (one study of both designs took ~12 s on a quiet machine; 40 a world is ~25 minutes on two
# processes), in parts 0:20 and 20:40, none replaced or added; run once with the app's design and once with a
# trial one whose chances followed √u + |f| (branch i53-key69, not kept: bench/README.md "adaptive_cost, stop 69").
REGISTERED_69_SEED0 = 9800
REGISTERED_69_STUDIES = 40
REGISTERED_69 = [("score size against error, sureness unrelated", size_against_error, 900, 350),
                 ("sure and right on 60%, the rest split evenly", sure_and_right_split, 1100, 450),
                 ("sureness unrelated, judge noise unrelated", noise_unrelated, 700, 300)]
# A sixth, pre-registered set (issue 53, stop 70, 2026-11-29): three worlds of bench/unseen_worlds.py written and
# committed with the design they measure (the asymptotic part intersected over every decided pair from its burn-in
# on) before their one run, seeds from 10000 (`--registered-70`), 40 studies a world fixed before the run (a study of
# both designs took 2-12 s here; 40 a world is ~10 minutes on two processes), in parts 0:20 and 20:40, none
# replaced or added.
REGISTERED_70_SEED0 = 10000
REGISTERED_70_STUDIES = 40
REGISTERED_70 = [("sure and right on 70%, the rest leaning B", leaning_b_sure_and_right, 1300, 500),
                 ("sure and right on 80%, a small study", small_sure_and_right, 500, 250),
                 ("sureness unrelated, three noise levels", three_noise_levels, 1000, 400)]
SETS = {"": (SEED0, LINES, ""), "--held-out": (HELD_OUT_SEED0, HELD_OUT, "h"), "--fresh": (FRESH_SEED0, FRESH, "f"),
        "--registered": (REGISTERED_SEED0, REGISTERED, "r"), "--registered-69": (REGISTERED_69_SEED0, REGISTERED_69, "q"),
        "--registered-70": (REGISTERED_70_SEED0, REGISTERED_70, "s")}


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


def run(folder, quick: bool = False, lines: slice = slice(None), seeds: slice | None = None, which: str = ""):
    """`which`: a key of SETS ("" the worlds seen in development, "--held-out", "--fresh", "--registered", …)."""
    chosen = range(1) if quick else range(30) if seeds is None else range(*seeds.indices(1 << 30))
    seed0, table, tag = SETS[which]
    for line in (table[:1] if quick else table[lines]):
        found = [stop_pair(folder, line, seed0 + k, tag) for k in chosen]
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


LINE = re.compile(r"^adaptive cost, (?P<world>.+?), (?P<pairs>[\d,]+) pairs, budget (?P<budget>[\d,]+): \d+ studies "
                  r"\(seeds (?P<lo>\d+)–(?P<hi>\d+)\).*; stopped (?P<sa>\d+) / (?P<su>\d+), H held at (?P<ha>\d+) / "
                  r"(?P<hu>\d+) stops; judgments adaptive \[(?P<a>[\d, ]*)\], uniform \[(?P<u>[\d, ]*)\]$", re.M)


def pool(texts: list[str], draws: int = 20000):
    """One line per world from parts run side by side (seeds apart): the studies' judgments pooled, the ratio of
    means with its paired bootstrap interval over all of them, and the parts' stops and stops that held H summed."""
    worlds: dict[tuple, dict] = {}
    for m in (m for t in texts for m in LINE.finditer(t)):
        got = worlds.setdefault((m["world"], m["pairs"], m["budget"]), {"seeds": [], "a": [], "u": [], "n": np.zeros(4, int)})
        seeds = list(range(int(m["lo"]), int(m["hi"]) + 1))
        if set(seeds) & set(got["seeds"]):
            raise SystemExit(f"{m['world']}: seeds {seeds[0]}–{seeds[-1]} are in two parts")
        got["seeds"] += seeds
        got["a"] += [int(x) for x in m["a"].split(",")]
        got["u"] += [int(x) for x in m["u"].split(",")]
        got["n"] += [int(m[k]) for k in ("sa", "su", "ha", "hu")]
    for (world, pairs, budget), got in worlds.items():
        a, u, (sa, su, ha, hu) = np.array(got["a"], float), np.array(got["u"], float), got["n"]
        low, high = ratio_interval(a, u, draws)
        yield (f"{world}, {pairs} pairs, budget {budget}: {len(a)} studies (seeds {min(got['seeds'])}–"
               f"{max(got['seeds'])}): adaptive {a.mean():,.0f} / uniform --n {u.mean():,.0f} = {a.mean() / u.mean():.2f}x "
               f"(95% MC {low:.2f}–{high:.2f}); H held at {ha} of {sa} adaptive stops, {hu} of {su} uniform")


if __name__ == "__main__":
    import sys
    import tempfile

    from bench.slices import parse

    if sys.argv[1:2] == ["--pool"]:
        for text in pool([Path(f).read_text() for f in sys.argv[2:]]):
            print(text)
        raise SystemExit
    got = parse([a for a in sys.argv[1:] if a not in SETS], ())
    with tempfile.TemporaryDirectory() as tmp:
        for text in run(Path(tmp), quick=got["quick"], lines=got["lines"], seeds=got["seeds"],
                        which=next((flag for flag in SETS if flag and flag in sys.argv), "")):
            print(text, flush=True)
