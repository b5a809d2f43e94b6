"""How many items one rater will be served, said where the study's plan is shown (Manage's Plan tab, `fairval
plan`, `study show`), with a warning when that is long or, in a name study, when one name comes back.

The count follows serving's own rules: every regular item the rater has not rated, or their share under the
rule against two fills of one template in a row (fills.FillPlan), at most `max_items_per_rater`, and the
attention checks the gold rate puts among them (rater_progress's step-by-step count). Practice items come first
and are counted apart.

Long means more than LONG_SESSION items: more than any rater was given in the human studies of the seed papers.
Tamkin et al. (001, App. D.2) gathered 405 ratings of 135 filled questions, three raters each: at most 135 a
rater. Eloundou et al. (004, App. F) had about 50 response pairs an experiment, each judged by 40 Prolific
workers: at most about 50 a worker. Past that, fatigue is outside anything those protocols saw, and a cap
spreads the items over more raters for the same number of judgments.

A name study shows the rater the name alone, so items that share a name (whats-in-a-name's just_prompts.csv
holds each of its 40 names in 42 prompts) are the same screen again: one rater may be asked the same name many
times, which measures their memory, not the name.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from fairval.annotate.material.studies import LoadedStudy, load_study
from fairval.annotate.rating.fills import study_fill_plan
from fairval.annotate.rating.rater_progress import checks_to_come
from fairval.store import Connection
from fairval.store import items as item_store

LONG_SESSION = 150        # items one rater is served; above the seed papers' most (135), see the docstring
SUGGESTED_CAP = 50        # the cap a warning proposes: at most what each of 004's Prolific workers judged


@dataclass(frozen=True, slots=True)
class SessionLength:
    items: int                   # the most regular items one rater is served
    checks: int                  # attention checks the gold rate puts among them
    practice: int                # practice items, before the first item
    cap: int | None              # the study's max_items_per_rater
    raters_per_item: int
    regular: int                 # the study's regular items
    names: int | None = None     # a name study: how many names its items show
    most_per_name: int = 0       # a name study: the most items that show one name

    @property
    def long(self) -> bool:
        return self.items + self.checks > LONG_SESSION

    @property
    def name_repeats(self) -> int:
        """The most times one rater may be shown one name (0: not a name study)."""
        return min(self.most_per_name, self.items) if self.names else 0

    def sentence(self, setting: str = "max_items_per_rater") -> str:
        """"each rater is served up to 1,680 items (no cap: max_items_per_rater is not set)". `setting`: the cap's
        name where the reader sets it (the CLI's field, or the Manage tab's label on a page)."""
        parts = [f"each rater is served up to {_count(self.items, 'item')}"]
        extras = [_count(n, what) for n, what in ((self.checks, "attention check"), (self.practice, "practice item"))
                  if n]
        if extras:
            parts.append(f", plus {' and '.join(extras)}")
        parts.append(f" ({setting}{'=' if '_' in setting else ': '}{self.cap})" if self.cap is not None and self.cap <= self.items
                     else f" (no cap: {setting} is not set)" if self.cap is None else "")
        return "".join(parts)

    def warnings(self, study_name: str, *, on_page: bool = False) -> list[str]:
        """What the researcher should know before launching: a long session, a name shown again. `on_page`: the
        cap is named as the Manage tab labels it, not as the CLI's command."""
        out = []
        raters = math.ceil(self.raters_per_item * self.regular / SUGGESTED_CAP)
        how = (f"Max items per rater {SUGGESTED_CAP} (Manage, Configure)" if on_page else
               f"`fairval study set {study_name} max_items_per_rater={SUGGESTED_CAP}`")
        cap = f"{how} shares them out: {raters:,} raters then give each item its {self.raters_per_item} rating(s)"
        if self.long:
            out.append(f"that is long: {self.items + self.checks:,} items is more than {LONG_SESSION}, beyond any rater's "
                       f"load in the seed papers' human studies (at most 135). {cap[0].upper()}{cap[1:]}.")
        if self.name_repeats > 1:
            out.append(f"one rater may be shown the same name up to {self.name_repeats} times: the {self.regular:,} "
                       f"items show {self.names:,} names (up to {self.most_per_name} items each), and a name study "
                       "shows only the name. Import each name once (whats-in-a-name's templates_and_names.json "
                       "imports as one item per name).")
        return out

    def lines(self, study_name: str, fills: str | None = None) -> list[str]:
        """`plan` and `study show`: the fills' plan (a study of templates), one rater's load, the warnings."""
        return ([fills] if fills else []) + [self.sentence()] + [f"warning: {w}" for w in self.warnings(study_name)]

    def to_dict(self, study_name: str) -> dict:
        """`plan --json`'s keys for one rater's load."""
        return {"items_per_rater": self.items, "checks_per_rater": self.checks, "practice_items": self.practice,
                "max_items_per_rater": self.cap, "names": self.names, "most_items_per_name": self.most_per_name,
                "warnings": self.warnings(study_name)}


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun if n == 1 else noun + 's'}"


def session_length(db: Connection, study: LoadedStudy | str) -> SessionLength:
    """The study's plan for one rater, from its items now and its settings."""
    if isinstance(study, str):
        study = load_study(db, study)
    s = study.settings
    sizes = item_store.template_sizes(db, study.study_id)
    regular = sum(sizes.values())
    items = regular
    plan = study_fill_plan(db, study)
    if plan.spread:                   # the rule's share: the largest template's fills follow the others'
        items = min(items, plan.items_per_rater()[1] + sizes.get(None, 0))
    if s.max_items_per_rater is not None:
        items = min(items, s.max_items_per_rater)
    checks = checks_to_come(0, 0, items, item_store.gold_count(db, study.study_id), s)
    practice = len(item_store.list_items(db, study.study_id, practice=True))
    names, most = None, 0
    if study.task.display == "name":
        shown = Counter(str(row["data"].get("name", "")).strip() for row in item_store.list_items(
            db, study.study_id, practice=False) if row["gold"] is None and not row["judge_only"])
        names, most = len(shown), max(shown.values(), default=0)
    return SessionLength(items, checks, practice, s.max_items_per_rater, s.raters_per_item, regular, names, most)
