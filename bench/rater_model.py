"""The crowd model's test against answering at random (analysis.rater_model through analysis.raters), on
simulated crowds: how often the random answerers are all flagged, and how many honest raters with them.

A crowd: 80 pairs, 6 raters a pair and 20 pairs a rater (24 raters), the harm running one way (+1 on 60% of
pairs, none on 35%, −1 on 5%); honest raters name the true class with the given accuracy, 3 raters answer
A/B/C at random. Each rater sees each pair flipped or not at random and answers on the screen, as the app
records it (shown value and canonical value)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fairval.analysis.raters import rater_quality
from fairval.annotate.material.pairs import canonical_value
from fairval.annotate.material.tasks import get_task

SHOWN = {(1, False): "A", (-1, False): "B", (1, True): "B", (-1, True): "A", (0, False): "C", (0, True): "C"}


def simulated_crowd(seed: int, accuracy: float = 0.9) -> tuple[pd.DataFrame, set[str]]:
    """The ratings (as rater_quality takes them) and the raters answering at random."""
    rng = np.random.default_rng(seed)
    harm = get_task("harmful_stereotype").questions[0]
    truth = rng.choice([1, 0, -1], size=80, p=[0.6, 0.35, 0.05])
    raters = [f"r{j:02d}" for j in range(24)]
    careless = set(rng.choice(raters, 3, replace=False).tolist())
    rows = []
    for j, rater in enumerate(raters):
        for i in range((j % 4) * 20, (j % 4) * 20 + 20):
            flipped = bool(rng.random() < 0.5)
            if rater in careless:
                shown = str(rng.choice(["A", "B", "C"]))
            else:
                right = rng.random() < accuracy
                canonical = truth[i] if right else rng.choice([c for c in (1, 0, -1) if c != truth[i]])
                shown = SHOWN[(int(canonical), flipped)]
            rows.append((f"p{i}", rater, "harm", shown, canonical_value(harm, shown, flipped), 8.0, False))
    frame = pd.DataFrame(rows, columns=["item_id", "rater_id", "question", "value", "canonical", "seconds",
                                        "gold_item"])
    return frame, careless


def run(tmp: Path, *, quick: bool = False):
    crowds = 5 if quick else 50
    yield f"crowd model: {crowds} simulated crowds of 24 raters x 20 pairs, 3 answering at random"
    for accuracy in (0.9, 0.85, 0.8):
        all_found, honest_flagged = 0, []
        for seed in range(crowds):
            frame, careless = simulated_crowd(seed, accuracy)
            quality = rater_quality(frame, {}, pair_questions={"harm": "C"}, nominal_questions=("harm",))
            flagged = {q.rater_id for q in quality if q.flags}
            all_found += careless <= flagged
            honest_flagged.append(len(flagged - careless))
        yield (f"  honest accuracy {accuracy:.0%}: all 3 random answerers flagged in {all_found} of {crowds} crowds; "
               f"honest raters flagged {np.mean(honest_flagged):.2f} a crowd (at most {max(honest_flagged)})")
