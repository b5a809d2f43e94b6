"""Attention checks (gold items) that a study would never serve, said where a researcher looks.

A study's gold rate decides how often a rater meets a check; at 0 (the default) none is served, so gold
rows imported into such a study, or a rate set to 0 on a study that has them, are announced in one line
with the rate to set, and `study show` and Results count the checks each rater met.
"""
from __future__ import annotations

from collections.abc import Mapping

from fairval.annotate.material.studies import load_study
from fairval.store import Connection
from fairval.store import items as item_store

# the rate proposed: one item in ten a check (Potato's and Prolific's guidance put checks at a few per study)
PROPOSED_GOLD_RATE = 0.1


def unused_gold_notice(db: Connection, study_id: str) -> str | None:
    """One line when the study has gold items and a gold rate of 0 (none of them is ever served), else None."""
    n_gold = item_store.gold_count(db, study_id)
    if not n_gold or load_study(db, study_id).settings.gold_rate > 0:
        return None
    plural = "s" if n_gold != 1 else ""
    return (f"study {study_id!r} has {n_gold} gold item{plural} (attention check{plural}) but a gold rate of 0, so "
            f"no rater is served one; set a rate, e.g. fairval study set {study_id} gold_rate={PROPOSED_GOLD_RATE} "
            f"(one item in {round(1 / PROPOSED_GOLD_RATE)} a check)")


def checks_sentence(n_gold: int, gold_rate: float, met: Mapping[str, int]) -> str | None:
    """How many checks each rater met (`met`: rater -> gold items answered), or None for a study without
    gold items."""
    if not n_gold:
        return None
    if gold_rate <= 0:
        return f"attention checks: {n_gold} gold item{'s' if n_gold != 1 else ''}, none served (gold rate 0)"
    counts = ", ".join(f"{rater} {n}" for rater, n in sorted(met.items())) or "no rater yet"
    return (f"attention checks: {n_gold} gold item{'s' if n_gold != 1 else ''} at gold rate {gold_rate:g}; "
            f"checks met per rater: {counts}")
