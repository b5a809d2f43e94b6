"""The promise of fewer people for the same certainty, tried as a researcher runs a study: simulated raters
go through the app's own session functions (annotate.rating.session: arrive, give_consent,
finish_instructions, serve_next_item, record_answer, the page's stopping check when an answer completes
a pair) on a real SQLite file per study, and the numbers are read with the app's analysis (study_numbers,
what `fairval analyze --json` prints: harm.ppi.cs, H's anytime interval). Nothing here simulates the
serving: the order pairs are served and completed in is the app's.

The worlds (bench/worlds.py) carry the truth, so H is known independently of the app. A crowd of raters is
present at once (PRESENT), each picked at random to act next, each answering up to PER_RATER pairs;
a rater who leaves is replaced by a new one. Designs, each started as the CLI starts it:
all pairs (no sample), `study sample --n`, `--by-group-pair`, `--active`, and the adaptive design
(`study set design=adaptive budget=N`).

Reported:
- the order pairs complete in (Spearman against file order; the share of judgments made before the first
  complete pair);
- coverage from the first look: over seeded studies, the share whose running interval ever excluded the
  true H (read at looks after complete pairs 1, 2, 3, 5, 8, … and at the end; the interval is a running
  intersection, so the last look alone decides it: the earlier looks guard a sequence that is not);
- width at 50, 200 and 800 complete pairs against a fixed-n PPI++ interval on the same complete pairs
  (written here from ppi_py's ppi_mean_ci with the power-tuned λ, not the app's), and the judgments made
  by then (a serving order that completes pairs late makes every look cost more);
- judgments until the study stopped itself at a target width (the study's own target_ci_width and the
  page's check), per design, with coverage of H at the stop.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from bench.worlds import WORLDS, answer, item_rows, judge_rows, judge_score, make_world, mix_ceiling
from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.crowd import stopping
from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import create_study, load_study, study_status
from fairval.annotate.rating import session
from fairval.annotate.rating.sampling import draw_active_sample, draw_human_sample, draw_stratified_sample
from fairval.annotate.results.numbers import study_numbers
from fairval.store import items as item_store
from fairval.store import open_db

STUDY = "bench"
PRESENT, PER_RATER = 8, 40
DESIGNS = ("all pairs", "uniform --n", "by group pair", "--active", "adaptive")
Z95 = 1.959963984540054


def start(path: Path, w: dict, design: str, raters: int, *, n: int | None, seed: int,
          target: float | None = None):
    """A new SQLite file with the world's pairs and judge imported and the design set as the CLI sets it;
    the study open. Returns the open database."""
    db = open_db(path)
    create_study(db, STUDY, "harmful_stereotype", raters_per_item=raters, seed=seed, target_ci_width=target,
                 max_items_per_rater=PER_RATER)
    import_items(db, STUDY, item_rows(w))
    import_lmra(db, STUDY, judge_rows(w))
    if design == "uniform --n":
        draw_human_sample(db, STUDY, n, seed)
    elif design == "by group pair":
        draw_stratified_sample(db, STUDY, n, seed)
    elif design == "--active":
        draw_active_sample(db, STUDY, n, seed)
    elif design == "adaptive":
        adaptive.start(db, STUDY, n)
    elif design != "all pairs":
        raise ValueError(f"unknown design {design!r}")
    return db


def crowd(db, w: dict, rng: np.random.Generator, *, look=None, look_every: int = 1, until: int | None = None) -> dict:
    """Raters arrive, consent, read the instructions and answer pairs through the session functions until
    nothing is left for a new rater, `until` pairs are complete, or the study stopped itself. Each answer
    that completes a pair is where the page checks a stopping rule; here the check runs at every
    `look_every`-th complete pair (each is a whole analysis), and look(db, log) too. The log: judgments
    made, the complete pairs in the order they became complete and each one's mean score meant by its
    first raters (what the rater chose, recorded here, not read back from the app)."""
    study = load_study(db, STUDY)
    rule = stopping.has_rule(study)
    raters = study.settings.raters_per_item
    meant: dict[int, list[float]] = {}
    log = {"judgments": 0, "complete": [], "y": [], "stopped": False}
    present: list[list] = []                     # [rater id, answered]
    arrived, now, drained = 0, 1_000_000.0, False
    while True:
        while not drained and len(present) < PRESENT:
            rater = f"r{arrived:05d}"
            arrived += 1
            session.arrive(db, STUDY, rater, source="link")
            session.give_consent(db, STUDY, rater, True)
            session.finish_instructions(db, STUDY, rater)
            present.append([rater, 0])
        if not present:
            break
        k = int(rng.integers(len(present)))
        rater, done = present[k]
        now += 1.0
        served = session.serve_next_item(db, study, rater, now=now)
        if served is None:
            present.pop(k)
            session.finish(db, STUDY, rater)
            drained = drained or done == 0              # a fresh rater found nothing: the study is spent
            continue
        index = int(served.item_id[1:])
        score, shown = answer(rng, w, index, served.flipped)
        session.record_answer(db, study, rater, served.item_id, {"harm": shown}, now=now + 20, serve_next=not rule)
        log["judgments"] += 1
        present[k][1] += 1
        meant.setdefault(index, []).append(score)
        if len(meant[index]) != raters:
            continue
        log["complete"].append(index)
        log["y"].append(float(np.mean(meant[index])))
        if len(log["complete"]) % look_every == 0:
            if rule:
                stopping.check(db, STUDY, now=now + 20)
                log["stopped"] = study_status(db, STUDY) != "open"
            if look is not None:
                look(db, log)
        if log["stopped"] or (until is not None and len(log["complete"]) >= until):
            break
    return log


def anytime(db) -> dict:
    """H's anytime interval as the app reports it (harm.ppi.cs of `analyze --json`)."""
    cs = study_numbers(db, STUDY, n_boot=0).harm.ppi.cs
    return cs.to_dict() if cs else {}


def excludes(cs: dict, truth: float) -> bool:
    """The interval excludes the truth, or became empty (which excludes everything)."""
    ci = cs.get("ci")
    if ci is None:
        return "empty" in cs.get("reason", "")
    return not ci[0] <= truth <= ci[1]


def ppi_fixed_n(y: np.ndarray, f: np.ndarray, f_unlabelled: np.ndarray) -> tuple[float, float]:
    """PPI++ for a mean at fixed n (Angelopoulos, Duchi & Zrnic 2023), written here as ppi_py's ppi_mean_ci
    computes it: λ = Cov(y, f) (divisor n) / ((1 + n/N) Var(f over all pairs, divisor n + N − 1)), clipped to
    [0, 1]; the normal interval of λ mean(f_unlabelled) + mean(y − λ f) with variance
    Var(λ f_unlabelled)/N + Var(y − λ f)/n (divisors N and n)."""
    n, big_n = len(y), len(f_unlabelled)
    covariance = ((y - y.mean()) * (f - f.mean())).mean()
    lam = covariance / ((1 + n / big_n) * np.concatenate([f, f_unlabelled]).var(ddof=1))
    lam = min(max(float(lam), 0.0), 1.0)
    theta = lam * f_unlabelled.mean() + (y - lam * f).mean()
    se = math.sqrt((lam * f_unlabelled).var() / big_n + (y - lam * f).var() / n)
    return theta - Z95 * se, theta + Z95 * se


def coverage_study(folder: Path, world: str, design: str, raters: int, seed: int, *, pairs: int, n: int,
                   mid: int | None = None) -> dict:
    """One seeded study run to its end through serving: whether H's running interval excluded the true H
    at its end (a running intersection from the first complete pair: then it did at some look) or at
    the look after `mid` complete pairs, and whether the end's interval lies inside the mid look's."""
    rng = np.random.default_rng([seed, raters, DESIGNS.index(design)])
    w = make_world(np.random.default_rng(seed), world, pairs)
    name = f"cov-{WORLDS.index(world)}-{seed}-{raters}-{DESIGNS.index(design)}.sqlite"
    db = start(folder / name, w, design, raters, n=n, seed=seed)
    looks, first = [], []

    def look(db, log):
        if len(log["complete"]) == 1:
            first.append(log["judgments"])
        if len(log["complete"]) == mid:
            looks.append(anytime(db))
    try:
        log = crowd(db, w, rng, look=look)
        looks.append(anytime(db))
    finally:
        db.close()
    position = np.argsort(np.argsort(log["complete"]))          # ranks of file positions, in completion order
    spearman = float(np.corrcoef(position, np.arange(len(position)))[0, 1])
    nested = len(looks) < 2 or (looks[0].get("ci") is None or looks[1].get("ci") is None
                                or looks[0]["ci"][0] <= looks[1]["ci"][0] <= looks[1]["ci"][1] <= looks[0]["ci"][1])
    return {"excluded": any(excludes(cs, w["H"]) for cs in looks), "nested": nested, "spearman": spearman,
            "before_first": first[0] / log["judgments"]}


def width_study(folder: Path, world: str, raters: int, seed: int, *, pairs: int, n: int,
                at: tuple[int, ...]) -> dict:
    """One seeded uniform sample (`study sample --n`) rated through serving: at each count of complete pairs
    in `at`, the anytime interval's width, the fixed-n PPI++ width on the same complete pairs (every other
    pair's judge score unlabelled) and the judgments made by then."""
    rng = np.random.default_rng([seed, raters, 99])
    w = make_world(np.random.default_rng(seed), world, pairs)
    f = judge_score(w)
    db = start(folder / f"width-{WORLDS.index(world)}-{seed}-{raters}.sqlite", w, "uniform --n", raters, n=n, seed=seed)
    found = {"rho": float(np.corrcoef(f, w["mu"])[0, 1])}

    def look(db, log):
        count = len(log["complete"])
        if count in at:
            ci = anytime(db)["ci"]
            labelled = np.asarray(log["complete"])
            low, high = ppi_fixed_n(np.asarray(log["y"]), f[labelled], np.delete(f, labelled))
            found[count] = {"anytime": ci[1] - ci[0], "fixed": high - low, "judgments": log["judgments"]}
    try:
        crowd(db, w, rng, look=look, until=max(at))
    finally:
        db.close()
    return found


def stop_study(folder: Path, world: str, design: str, seed: int, *, pairs: int, n: int, target: float,
               look_every: int) -> dict:
    """One seeded study with the stopping rule target_ci_width=target, checked as the page checks it
    (stopping.check) at every look_every-th complete pair: the judgments made when it stopped itself (or
    ran out), and whether its interval then held the true H."""
    rng = np.random.default_rng([seed, 3, DESIGNS.index(design), 7])
    w = make_world(np.random.default_rng(seed), world, pairs)
    name = f"stop-{WORLDS.index(world)}-{seed}-{DESIGNS.index(design)}.sqlite"
    db = start(folder / name, w, design, 3, n=n, seed=seed, target=target)
    try:
        log = crowd(db, w, rng, look_every=look_every)
        stopped = load_study(db, STUDY).recorded.stopped
        cs = anytime(db)
        leaned = math.nan
        if design == "adaptive":            # the share of decisions whose chances leaned on the judge (τ < 1)
            mix = item_store.decisions_frame(db, STUDY)["mix"].dropna()
            leaned = float((mix < 1).mean()) if len(mix) else 0.0
    finally:
        db.close()
    return {"judgments": log["judgments"], "stopped": bool(stopped), "covered": not excludes(cs, w["H"]),
            "complete": len(log["complete"]), "leaned": leaned}


# (world, design, raters, studies) for coverage; the sorted file with a uniform sample is the case
# coverage lines: (world, design, raters per pair, studies, pairs, pairs to people); the sorted file at the
# issue's size (320 pairs, a sample of 160): smaller files hide the drift inside the interval's width
SORTED = "sorted by group pair"
FULL = {"coverage": {"mid": 30, "lines": [
            (SORTED, "uniform --n", 3, 12, 320, 160), (SORTED, "uniform --n", 1, 4, 320, 160),
            (SORTED, "uniform --n", 5, 4, 320, 160), (SORTED, "adaptive", 3, 4, 320, 160)]
            + [(SORTED, d, 3, 2, 320, 160) for d in ("all pairs", "by group pair", "--active")]
            + [(w, d, 3, 2, 200, 100) for w in ("clear pairs", "contested pairs", "sureness unrelated to error")
               for d in ("uniform --n", "adaptive")]},
        "width": {"pairs": 1600, "n": 800, "at": (50, 200, 800),
                  "lines": [("clear pairs", 5, 1), ("clear pairs", 1, 1)]},
        "stop": {"pairs": 400, "n": 200, "target": 0.15, "look_every": 10,
                 "lines": [(w, d, 2) for w in ("clear pairs", "sureness unrelated to error") for d in ("uniform --n", "adaptive")]
                 + [(w, d, 2) for w in ("sure of 80%", "sure of 80%, sureness unrelated") for d in ("uniform --n", "adaptive")]
                 + [("clear pairs", d, 1) for d in ("all pairs", "by group pair", "--active")]}}
QUICK = {"coverage": {"mid": 5, "lines": [(SORTED, "uniform --n", 2, 1, 40, 20)]},
         "width": {"pairs": 60, "n": 30, "at": (10, 20), "lines": [("clear pairs", 1, 1)]},
         "stop": {"pairs": 60, "n": 30, "target": 1.2, "look_every": 10,
                  "lines": [("clear pairs", d, 1) for d in ("uniform --n", "adaptive")]}}


def run(folder, quick: bool = False, parts=("coverage", "width", "stop"), lines: slice = slice(None),
        seeds: slice | None = None):
    """The lines, each as soon as it is measured (a full run takes a while). parts, lines: some of them
    (`python -m bench.through_serving coverage 3:` runs the coverage lines from the fourth on). seeds: the
    coverage and stop lines' studies by seed (`--seeds 10:20`), in place of the plan's count, so that parts of a line can
    run side by side; each stop line then lists its studies' judgments, to be pooled."""
    plan = QUICK if quick else FULL
    c = plan["coverage"]
    for world, design, raters, studies, pairs, n in c["lines"][lines] if "coverage" in parts else ():
        chosen = range(studies) if seeds is None else range(*seeds.indices(1 << 30))     # --seeds: these studies
        found = [coverage_study(folder, world, design, raters, seed, pairs=pairs, n=n, mid=c["mid"])
                 for seed in chosen]
        studies = len(found)
        missed = sum(r["excluded"] for r in found)
        people = "" if design == "all pairs" else f" ({n} to people)"
        yield (f"through serving, {world}, {design}, {raters} rater(s) per pair, {pairs} pairs{people}: H's running "
               f"interval ever excluded the true H in {missed} of {studies} studies ({missed / studies:.0%}); the end's "
               f"interval inside the one after {c['mid']} complete pairs in {sum(r['nested'] for r in found)} of {studies}; "
               f"completion order against file order: Spearman {np.mean([r['spearman'] for r in found]):.2f}, "
               f"{np.mean([r['before_first'] for r in found]):.0%} of the judgments made before the first pair was complete")
    c = plan["width"]
    for world, raters, studies in c["lines"][lines] if "width" in parts else ():
        found = [width_study(folder, world, raters, seed, pairs=c["pairs"], n=c["n"], at=c["at"])
                 for seed in range(studies)]
        cells = []
        for at in c["at"]:
            got = [f[at] for f in found if at in f]
            if not got:
                continue
            anytime_w, fixed_w = np.mean([g["anytime"] for g in got]), np.mean([g["fixed"] for g in got])
            cells.append(f"at {at} complete pairs anytime {anytime_w:.3f} / fixed-n PPI++ {fixed_w:.3f} = "
                         f"{anytime_w / fixed_w:.2f}x after {np.mean([g['judgments'] for g in got]):,.0f} judgments")
        rho = np.mean([f["rho"] for f in found])
        yield (f"through serving, {world}, judge ρ {rho:.2f}, uniform --n {c['n']} of {c['pairs']}, {raters} rater(s) "
               f"per pair (mean of {studies}): " + "; ".join(cells))
    c = plan["stop"]
    stops = {}
    for world, design, studies in c["lines"][lines] if "stop" in parts else ():
        chosen = range(studies) if seeds is None else range(*seeds.indices(1 << 30))
        found = [stop_study(folder, world, design, seed, pairs=c["pairs"], n=c["n"], target=c["target"],
                            look_every=c["look_every"]) for seed in chosen]
        studies = len(found)
        stops[world, design] = found
        judged = float(np.median([r["judgments"] for r in found]))
        mean = float(np.mean([r["judgments"] for r in found]))
        base = stops.get((world, "uniform --n"))
        ratio = (f" ({judged / np.median([r['judgments'] for r in base]):.2f}x uniform --n; mean {mean:,.0f}, "
                 f"{mean / np.mean([r['judgments'] for r in base]):.2f}x)"
                 if base and design != "uniform --n" else f" (mean {mean:,.0f})")
        yield (f"through serving, {world}, {design} ({c['n']} of {c['pairs']} pairs), 3 raters per pair, stopping "
               f"itself at width {c['target']} (checked every {c['look_every']} complete pairs): median judgments "
               f"{judged:,.0f}{ratio} over {studies} studies, stopped in {sum(r['stopped'] for r in found)}, "
               f"covering H at the stop in {sum(r['covered'] for r in found)} of {studies}"
               + (f"; decisions leaning on the judge {np.mean([r['leaned'] for r in found]):.0%}; the design's "
                  "rule at its best τ, from the truth: {:.2f}x a uniform sample's variance per judgment (τ = {})".format(
                      *mix_ceiling(world, c["pairs"], c["n"])) if design == "adaptive" else "")
               + (f"; seeds {chosen.start}:{chosen.stop}, judgments {[r['judgments'] for r in found]}, "
                  f"stopped {[int(r['stopped']) for r in found]}, covered {[int(r['covered']) for r in found]}"
                  if seeds is not None else ""))


if __name__ == "__main__":
    import sys
    import tempfile

    from bench.slices import parse

    got = parse(sys.argv[1:], ("coverage", "width", "stop"))
    with tempfile.TemporaryDirectory() as tmp:
        for line in run(Path(tmp), quick=got["quick"], parts=got["parts"], lines=got["lines"], seeds=got["seeds"]):
            print(line, flush=True)
