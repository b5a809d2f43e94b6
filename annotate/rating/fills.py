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

import dataclasses
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping
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
    items_cap: int | None = None     # the study's max_items_per_rater

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
        most = self.items_cap if self.items_cap is not None else 2 * high + 1
        return min(2 * low + 1, most), min(2 * high + 1, most)

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
        if self.items_cap is not None:      # the cap limits each rater's fills of the largest
            why = (f"and each rater is served at most {self.items_cap} items: a rater can take at most "
                   f"{(self.items_cap + 1) // 2} of the largest template's {self.largest_fills} fills, a fill of "
                   f"another template ({self.other_fills} together) between each two, and each cohort of {r} "
                   "rates one set of items")
        else:
            why = (f"a rater can take at most one more fill of the largest template ({self.largest_fills} fills) "
                   f"than of the other templates together ({self.other_fills})")
        text = (f"raters needed: {self.raters} for {r} rating(s) of each fill, as never two fills of one template "
                f"come in a row{' ' if self.items_cap is not None else ': '}{why}, so each is served {each} items")
        if self.single:
            how = ("Allow two fills of one template in a row (Manage, Configure)" if on_page else
                   f"Allow fills back to back (`fairval study set {study_name} fills_back_to_back=true`)")
            text += f"; {self.single} of them would rate a single item. {how} and {r} rater(s) can rate every item"
        return text


def fill_plan(sizes: Mapping[str, int], settings: StudySettings, *, single_items: int = 0) -> FillPlan:
    """The plan for a study whose regular items fill templates of `sizes` (template -> fills), beside
    `single_items` items of no template, under its settings. The raters needed are the most of: r (each
    rater rates an item once); r * N / max_items_per_rater (N every item); r * n_1 / m, m the most fills of
    the largest template one rater can take: its n_1 fills, at most max_fills_per_template, and under the rule
    with a cap c of items at most ceil(c / 2), a fill of another template between each two (so a capped rater
    cannot take c items of the right mix); and under the rule r * (n_1 - others)."""
    r = settings.raters_per_item
    cap, items_cap = settings.max_fills_per_template, settings.max_items_per_rater
    largest, n_1 = max(sizes.items(), key=lambda kv: (kv[1], kv[0])) if sizes else (None, 0)
    others = sum(sizes.values()) - n_1
    rule = len(sizes) > 1 and not settings.fills_back_to_back
    sets = 1                    # sets of items, each rated once by each rater of a cohort
    if n_1:
        most = min(n_1, cap if cap is not None else n_1,
                   ((items_cap + 1) // 2 if rule else items_cap) if items_cap else n_1)
        sets = max(sets, math.ceil(n_1 / most))
    if items_cap:
        sets = max(sets, math.ceil((n_1 + others + single_items) / items_cap))
    if rule:
        sets = max(sets, n_1 - others)
    need = r * sets
    # the rule binds where the largest template outgrows the others, or a cap of items keeps each rater's mix:
    # then serving gives each planned rater a share of the other templates' fills
    spread = rule and (n_1 - others >= 2 or items_cap is not None)
    plan = FillPlan(need, r, largest if len(sizes) > 1 else None, n_1, others, spread, 0,
                    settings.fills_back_to_back, items_cap)
    if spread:
        single = sum(1 for k in range(need) if plan.share(k) == 0)
        plan = dataclasses.replace(plan, single=single)
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
    templates' last fills are anyone's. Under a cap of items, a rater to whom nothing of the largest is open
    takes their share still: holding it back spares no fill of the largest, and left them short."""
    return (open_largest > ledger.last_fill_elsewhere(db, study.study_id, rater_id, share.largest, since,
                                                          study.settings.max_items_per_rater)
            or (open_largest == 0 and study.settings.max_items_per_rater is not None)
            or loads.open_of_template(db, study.study_id, row_group, share.largest) == 0)


def spent(db: Connection, study: LoadedStudy, rater_id: str, share: Share, open_largest: int, row_group: str | None,
          rules: loads.LoadRules) -> bool:
    """Has this rater been served their share of the other templates' fills? Under a cap of items, not while
    more places of those are open to them than of the largest (`open_largest`): that surplus needs no fill of
    the largest between, and held back it went to raters beyond the plan, one fill each."""
    if share.left is None or share.left > 0:
        return False
    if study.settings.max_items_per_rater is None:
        return True
    others = sum(loads.open_places(db, study.study_id, rater_id, row_group, t, rules) for t in share.others)
    return others <= open_largest


def put_off(settings: StudySettings, share: Share | None, regular: int) -> frozenset[str]:
    """The largest template, while a planned rater under a cap of items (`regular` of them answered) still has
    more of their share of the other templates' fills than would fit after a fill of it (one between each two
    of the largest): else they would take fewer of the largest than their share leaves room for, and the plan's
    raters would not reach every fill. Empty otherwise."""
    if share is None or share.left is None or settings.max_items_per_rater is None:
        return frozenset()
    room = settings.max_items_per_rater - regular
    return frozenset({share.largest}) if share.left > room // 2 else frozenset()


def fills_first(candidates: Callable[[str], list[dict]], share: Share, avoid: set[str],
                later: frozenset[str]) -> dict | None:
    """For a planned rater offered an item of no template: a fill open to them (`candidates`: of one template),
    the largest first unless put off (`later`), or None. Items of no template come after their fills, where a
    cap leaves room for them; taken before, they would crowd out fills the plan counts on."""
    order = (*sorted(share.others), share.largest) if later else (share.largest, *sorted(share.others))
    for template in order:
        if template not in avoid:
            found = next((r for r in candidates(template) if not r["gold"]), None)
            if found is not None:
                return found
    return None


def may_run_short(db: Connection, study: LoadedStudy, rater_id: str, row_group: str | None) -> bool:
    """Could the templates leave this rater fewer items than are open to them? Always under a cap of fills
    per template; without one, not while the items open to them are over twice the largest template's
    fills: then no template can take more than every other place, whatever the order (this spares a count
    of their open fills by template, which reads every open row)."""
    if study.settings.max_fills_per_template is not None:
        return True
    key, now = (str(getattr(db, "path", None) or id(db)), study.study_id), time.monotonic()
    if key not in _LARGEST or now - _LARGEST[key][0] > LARGEST_TEMPLATE_TTL:
        _LARGEST[key] = (now, item_store.largest_template(db, study.study_id))
    return loads.available(db, study.study_id, rater_id, row_group) <= 2 * _LARGEST[key][1] + 1


# the largest template's size, per database and study, read again after this many seconds: it reads every
# item, and a study's items seldom change while it runs (items imported meanwhile are counted within it)
LARGEST_TEMPLATE_TTL = 30.0
_LARGEST: dict[tuple[str, str], tuple[float, int]] = {}


_SIZES: dict[tuple[str, str], tuple[float, dict[str | None, int]]] = {}
