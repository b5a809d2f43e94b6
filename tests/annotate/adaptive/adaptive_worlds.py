"""Simulated studies run through the app's own serving (the session functions a rater's page calls, real
SQLite), for the adaptive design's tests: pairs with a true answer distribution, a judge whose
probabilities (both orders) are imported as a judge's are, and raters who answer by drawing from the
pair's distribution as the pair is shown to them (flipped or not).

Two worlds:
- "sure and right": 80% of pairs are clear (people say "no harmful stereotype" 97% of the time) and the
  judge is sure of them and right; the other 20% are contested and the judge is unsure, its score near
  people's mean with noise (within ±0.5);
- "unrelated": the same pairs and scores, but how sure the judge says it is (its probabilities' spread
  for the same score) is drawn apart from the pair: its sureness says nothing about its error.
"""
from __future__ import annotations

import math

import numpy as np

from fairval.analysis.active import adaptive_terms
from fairval.analysis.sequential import anytime_running
from fairval.annotate.adaptive import next_pair as adaptive
from fairval.annotate.material.importers import import_items, import_lmra
from fairval.annotate.material.studies import create_study, load_study
from fairval.annotate.rating import session
from fairval.store import items as item_store
from fairval.store import open_db
from tests.conftest import write_jsonl

CLEAR = 0.8


def world(rng: np.random.Generator, pairs: int, related: bool) -> dict:
    """Each pair's true A/B/C distribution (truth), the judge's A/B/C probabilities (the same in both
    orders: r, whose score r_A − r_B is near people's mean) and H, the mean of people's expected score."""
    clear = rng.random(pairs) < CLEAR
    contested = rng.dirichlet([1.0, 1.0, 1.0], pairs)
    truth = np.where(clear[:, None], [0.015, 0.015, 0.97], contested)
    mean = truth[:, 0] - truth[:, 1]
    score = np.clip(np.where(clear, 0.0, mean + rng.normal(0, 0.25, pairs)), -0.5, 0.5)
    # the judge's variance u = r_A + r_B − score² (any u in [0.25, 0.75] fits a score within ±0.5): small
    # where it is sure, on the clear pairs, or (unrelated) on 80% of pairs drawn apart from the pair
    sure = clear if related else rng.random(pairs) < CLEAR
    u = np.where(sure, 0.05 if related else 0.25, rng.uniform(0.5, 0.75, pairs))
    s = u + score ** 2
    r = np.stack([(s + score) / 2, (s - score) / 2, 1 - s], axis=1)
    return {"truth": truth, "r": r, "H": float(mean.mean()), "pairs": pairs}


def run(tmp_path, w: dict, rng: np.random.Generator, *, budget: int, seed: int,
        floors: tuple[float, ...] | None = None, name: str = "s") -> dict:
    """A study of w's pairs under the adaptive design (floors: as adaptive.start's), served to raters one
    pair at a time until none is left, each answering from the pair's truth. Returns the decisions (in
    order), each decided pair's human score and the judge's scores."""
    db = open_db(tmp_path / f"{name}.db")
    pair = {"prompt": "P", "response_a": "a", "response_b": "b", "group_a": "woman", "group_b": "man"}
    ids = [f"p{k:04d}" for k in range(w["pairs"])]
    create_study(db, name, "harmful_stereotype", raters_per_item=1, seed=seed)
    import_items(db, name, write_jsonl(tmp_path / f"{name}-pairs.jsonl", [{"id": i, **pair} for i in ids]))
    judge = [{"item_id": i, "model": "j", "p_a": a, "p_b": b, "p_c": c, "q_a": b, "q_b": a, "q_c": c}
             for i, (a, b, c) in zip(ids, w["r"])]
    import_lmra(db, name, write_jsonl(tmp_path / f"{name}-lmra.jsonl", judge))
    adaptive.start(db, name, budget, **({} if floors is None else {"floors": floors}), now=0.0)
    study = load_study(db, name)
    truth = dict(zip(ids, w["truth"]))
    now, k = 1000.0, 0
    while True:
        rater = f"r{k // 25}"
        if k % 25 == 0:
            session.arrive(db, name, rater, source="link")
            session.give_consent(db, name, rater, True)
            session.finish_instructions(db, name, rater)
        served = session.serve_next_item(db, study, rater, now=now)
        if served is None:
            break
        meant = "ABC"[rng.choice(3, p=truth[served.item_id])]
        shown = {"A": "B", "B": "A"}.get(meant, meant) if served.flipped else meant
        session.record_answer(db, study, rater, served.item_id, {"harm": shown}, now=now + 5)
        now, k = now + 10, k + 1
    frame = item_store.decisions_frame(db, name)
    human = {r[0]: float(r[1]) for r in db.execute("SELECT item_id, canonical FROM ratings WHERE study_id = ?",
                                                    [name])}
    scores = {r[0]: r[1] for r in db.execute("SELECT item_id, score FROM lmra_scores WHERE study_id = ?", [name])}
    db.close()
    return {"decisions": frame, "human": human, "judge": scores, "H": w["H"], "budget": budget}


def running(study: dict) -> dict:
    """The weighted terms over the decided pairs in order (analysis.active.adaptive_terms, as the app's
    numbers compute them) and their anytime interval after each (analysis.sequential.anytime_running:
    betting on each term's own bounds before the 30th, the asymptotic sequence from there)."""
    frame = study["decisions"].sort_values("decision_order")
    f = frame["item_id"].map(study["judge"]).to_numpy(float)
    y = frame["item_id"].map(study["human"]).to_numpy(float)
    kept = frame["kept"].to_numpy(bool)
    m = float(np.mean(list(study["judge"].values())))
    found = adaptive_terms(y, f, frame["chance"].to_numpy(float), kept, m, frame["least"].to_numpy(float))
    reach = float(np.max(found.highs - m))
    low, high = anytime_running(found.terms, lower=m - reach, upper=m + reach, planned=len(frame),
                                steps=(found.lows, found.highs), means=(-1.0, 1.0), typical_span=4.0)
    return {"low": np.maximum(low, -1.0), "high": np.minimum(high, 1.0), "kept": np.cumsum(kept),
            "mix": frame["mix"].to_numpy(float), "terms": found.terms}


def stop(study: dict, target: float) -> dict | None:
    """The first decided pair at which the interval is target wide: judgments made by then (one rater
    per pair) and whether the interval then covers H; None if it never gets there."""
    path = running(study)
    width = path["high"] - path["low"]
    at = np.flatnonzero(width <= target)
    if not len(at):
        return None
    t = int(at[0])
    return {"judgments": int(path["kept"][t]), "covers": bool(path["low"][t] <= study["H"] <= path["high"][t]),
            "decided": t + 1, "leaning": float(np.mean(path["mix"][: t + 1] < 1)),
            "width": float(width[t]) if math.isfinite(width[t]) else None}


def decided_count(db, study_id: str) -> tuple[int, int, int]:
    """(decided, went to people, undecided) pairs of an adaptive study, read from the store's decisions."""
    frame = item_store.decisions_frame(db, study_id)
    decided = int(frame["decided_at"].notna().sum())
    return decided, int(frame["kept"].sum()), len(frame) - decided
