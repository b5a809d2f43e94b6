"""How many raters the no-two-fills rule needs, and each rater's share of the fills (issue 54).

Never two fills of one template in a row (while the study has another template): a rater's sequence holds
at most one more fill of the largest template (n_1 fills) than of all the others together (S - n_1 fills,
S the study's fills). Summed over raters, with r ratings of each fill: r * n_1 <= r * (S - n_1) + R, so the
study needs R >= r * (2 n_1 - S) raters (and at least r, each rater rating an item once). When 2 n_1 - S
is 2 or more the rule binds; the serving then gives each rater a share of the other templates' fills,
r * (S - n_1) spread evenly over the R raters (the first raters in order of arrival take the remainder),
and the rater's fills of the largest template follow (at most share + 1): so every planned rater rates
about as many items as every other, and the study completes with R raters if each takes their share.
A rater beyond R (one who came after a rater who left) takes what is left, without a share.
With fills allowed back to back (`fills_back_to_back`), r raters can rate everything.
"""
from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from fairval.annotate.material.studies import LoadedStudy, load_study
from fairval.annotate.material.study_settings import StudySettings
from fairval.store import Connection, loads
from fairval.store import assignments as ledger
from fairval.store import items as item_store

# a study's template sizes, per database and study, read again after this many seconds: they read every item,
# and a study's items seldom change while it runs
SIZES_TTL = 30.0


@dataclass(frozen=True, slots=True)
class FillPlan:
    raters: int                  # raters the study needs, each rating every item the rules let them
    raters_per_item: int
    largest: str | None          # the largest template's key (None: no template or fewer than two)
    largest_fills: int
    other_fills: int             # fills of every other template together
    spread: bool                 # does the rule bind, so that serving gives each rater a share
    single: int                  # of the planned raters, those whose share is no fill of another template
    back_to_back: bool

    def share(self, arrival: int) -> int | None:
        """Fills of the other templates the rater who arrived `arrival`-th (0 the first) is served, or None
        (no share: the rule does not bind, or the rater comes beyond the plan)."""
        if not self.spread or arrival >= self.raters:
            return None
        total = self.raters_per_item * self.other_fills
        return total // self.raters + (1 if arrival < total % self.raters else 0)

    def items_per_rater(self) -> tuple[int, int]:
        """The fewest and most items (fills) a planned rater is served under the spread."""
        low, high = self.share(self.raters - 1), self.share(0)
        assert low is not None and high is not None
        return 2 * low + 1, 2 * high + 1

    def sentence(self, study_name: str, *, on_page: bool = False) -> str | None:
        """The plan in words, for `study show`, Manage and `plan` (None: the study has under two templates).
        `on_page`: the setting is named as Manage's Configure tab labels it, not as the CLI's command."""
        if self.largest is None:
            return None
        r = self.raters_per_item
        if self.back_to_back:
            return (f"raters needed: {self.raters} for {r} rating(s) of each fill (fills of one template may come "
                    "back to back)")
        if not self.spread:
            return (f"raters needed: {self.raters} for {r} rating(s) of each fill; never two fills of one template "
                    f"in a row still lets a rater take every item (the largest template has {self.largest_fills} "
                    f"fills, the other templates {self.other_fills} together)")
        low, high = self.items_per_rater()
        each = f"{low}" if low == high else f"{low} to {high}"
        text = (f"raters needed: {self.raters} for {r} rating(s) of each fill, as never two fills of one template "
                f"come in a row: a rater can take at most one more fill of the largest template "
                f"({self.largest_fills} fills) than of the other templates together ({self.other_fills}), so each "
                f"is served {each} items")
        if self.single:
            how = ("Allow two fills of one template in a row (Manage, Configure)" if on_page else
                   f"Allow fills back to back (`fairval study set {study_name} fills_back_to_back=true`)")
            text += f"; {self.single} of them would rate a single item. {how} and {r} rater(s) can rate every item"
        return text


def fill_plan(sizes: Mapping[str, int], settings: StudySettings, *, single_items: int = 0) -> FillPlan:
    """The plan for a study whose regular items fill templates of `sizes` (template -> fills), beside
    `single_items` items of no template, under its settings."""
    r = settings.raters_per_item
    need = r
    cap = settings.max_fills_per_template
    largest, n_1 = max(sizes.items(), key=lambda kv: (kv[1], kv[0])) if sizes else (None, 0)
    others = sum(sizes.values()) - n_1
    if cap is not None and n_1:
        need = max(need, math.ceil(r * n_1 / cap))
    if settings.max_items_per_rater:
        need = max(need, math.ceil(r * (n_1 + others + single_items) / settings.max_items_per_rater))
    rule = len(sizes) > 1 and not settings.fills_back_to_back
    if rule:
        need = max(need, r * (n_1 - others))
    spread = rule and n_1 - others >= 2
    plan = FillPlan(need, r, largest if len(sizes) > 1 else None, n_1, others, spread, 0,
                    settings.fills_back_to_back)
    if spread:
        single = sum(1 for k in range(need) if plan.share(k) == 0)
        plan = FillPlan(need, r, plan.largest, n_1, others, spread, single, settings.fills_back_to_back)
    return plan


def study_fill_plan(db: Connection, study: LoadedStudy | str) -> FillPlan:
    """The study's plan, from its items now and its settings."""
    if isinstance(study, str):
        study = load_study(db, study)
    sizes = item_store.template_sizes(db, study.study_id)
    return fill_plan({t: n for t, n in sizes.items() if t is not None}, study.settings,
                     single_items=sizes.get(None, 0))


def fills_left(study: LoadedStudy, open_fills: dict[str | None, int], served: list[str | None],
                share: Share | None = None) -> dict[str, int]:
    """The fills still open to this rater (`open_fills`: loads.open_fills), per template, each under the
    rater's cap of fills of it (`served`: the templates they were served), the other templates' together
    under what is left of the rater's `share` of them (the fullest first cut: the spread that reaches most)."""
    fills = {t: n for t, n in open_fills.items() if t is not None}
    cap = study.settings.max_fills_per_template
    if cap is not None:
        had = Counter(t for t in served if t is not None)
        fills = {t: min(n, cap - had[t]) for t, n in fills.items() if had[t] < cap}
    if share is not None and share.left is not None:
        while sum(n for t, n in fills.items() if t in share.others) > max(share.left, 0):
            fullest = max((t for t in fills if t in share.others and fills[t] > 0), key=lambda t: (fills[t], t))
            fills[fullest] -= 1
    return fills


@dataclass(frozen=True, slots=True)
class Share:
    """A rater's share of the fills of the templates other than the largest, under a plan that spreads."""
    left: int | None             # fills of them they may still be served (None: no limit, a rater beyond the plan)
    others: frozenset[str]       # those templates
    largest: str
    cohort: loads.Cohort | None = None   # the planned raters of one share who take one set of items (None: beyond)


def rater_share(db: Connection, study: LoadedStudy, rater_id: str, served: list[str | None], now: float) -> Share | None:
    """This rater's share under the study's fill plan, or None where the rule does not bind (a rater who
    comes beyond the plan's raters takes what is left: no limit)."""
    if study.settings.fills_back_to_back:
        return None
    key, clock = (str(getattr(db, "path", None) or id(db)), study.study_id), time.monotonic()
    if key not in _SIZES or clock - _SIZES[key][0] > SIZES_TTL:
        _SIZES[key] = (clock, item_store.template_sizes(db, study.study_id))
    sizes = _SIZES[key][1]
    plan = fill_plan({t: n for t, n in sizes.items() if t is not None}, study.settings,
                     single_items=sizes.get(None, 0))
    if not plan.spread:
        return None
    arrival, r = ledger.arrival(db, study.study_id, rater_id, now), plan.raters_per_item
    share = plan.share(arrival)
    others = frozenset(t for t in sizes if t is not None and t != plan.largest)
    assert plan.largest is not None
    if share is None:
        return Share(None, others, plan.largest)
    # shares differ by the remainder r * other_fills % raters, a multiple of r where the rule sets the raters
    return Share(share - sum(1 for t in served if t in others), others, plan.largest, loads.Cohort(arrival // r * r, r))


def backed(db: Connection, study: LoadedStudy, rater_id: str, share: Share, open_largest: int, since: float,
           row_group: str | None) -> bool:
    """May this rater be served a fill of another template now? Only when a fill of the largest can follow it:
    more ratings of those are open to them (`open_largest`: loads.open_places) than there are other raters
    whose last fill was of another template (each of whom wants one next; counting items instead stopped
    raters short where the cohorts' items each wanted several, serve66). At a study's end a rater whose last
    fill of another template found none left would take one fewer of the largest than the plan counts on, and
    the study would need a rater more. Once the largest template has nothing open to anyone, the other
    templates' last fills are anyone's."""
    return (open_largest > ledger.last_fill_elsewhere(db, study.study_id, rater_id, share.largest, since)
            or loads.open_of_template(db, study.study_id, row_group, share.largest) == 0)


_SIZES: dict[tuple[str, str], tuple[float, dict[str | None, int]]] = {}
