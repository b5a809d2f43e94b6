"""A study's numbers (SPEC §5, §6): reads the store once, hands frames to analysis/, returns the typed
StudyNumbers built from what analysis/ computed (its plain form only at the JSON edge: to_dict)."""
from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from typing import Literal

import pandas as pd

from fairval.analysis.calibration import calibrate, calibrate_by_group, harm_rate, holm, human_scores
from fairval.analysis.interval import Interval
from fairval.analysis.judge_validity import mean_with_interval
from fairval.analysis.raters import QualityRules, RaterQuality, rater_quality
from fairval.analysis.reliability import krippendorff_alpha
from fairval.analysis.scores import as_numbers, likert_by_group, likert_summary
from fairval.annotate.adaptive.estimate import adaptive_group_ppi, adaptive_ppi, adaptive_sign_cs
from fairval.annotate.material.pairs import canonical_value, pair_score, scored_question, strata_of
from fairval.annotate.material.studies import LoadedStudy, load_study
from fairval.annotate.material.tasks import Question
from fairval.annotate.results import BOOTSTRAP_DRAWS
from fairval.annotate.results.block import scalar
from fairval.annotate.results.blocks import Judge, Rate
from fairval.annotate.results.crowd_model import crowd_model_check
from fairval.annotate.results.escalation import escalation_numbers
from fairval.annotate.results.judge import group_agreement, ppi_numbers, sign_agreement_cs, validity_numbers
from fairval.annotate.results.judge_card import confidence_block, length_block
from fairval.annotate.results.language_splits import by_language, rating_languages, splits
from fairval.annotate.results.name_study import name_numbers
from fairval.annotate.results.result import ExcludedRater, QuestionNumbers, Rater, StudyNumbers, TemplateRow
from fairval.annotate.results.strata import by_pair_group, judge_fairness, rater_group_allocation
from fairval.errors import StudyError
from fairval.store import Connection
from fairval.store import items as item_store
from fairval.store import lmra as lmra_store
from fairval.store import ratings as rating_store
from fairval.store.raters import PREFER_NOT_TO_SAY

TEMPLATE_KEY = "decision_question_id"

# One number of bootstrap draws (with the study's seed) for the pages, the CLI and the report, so one
# study prints one interval everywhere.


@dataclass(frozen=True)
class StudyData:
    """Everything the numbers are computed from, decided here once for every number, page, report,
    export, PPI, comparison, calibration and plan:

    - `ratings`: ratings of real items (neither gold nor practice) by the raters kept;
    - `lmra`: every judge's scores on real items (judge-only pairs included: PPI's unlabelled set);
    - gold items are used only for rater quality, practice items only for the rater's feedback."""
    study: LoadedStudy
    items: pd.DataFrame           # item_id, data, gold, practice …
    ratings: pd.DataFrame         # real-item ratings of the raters kept
    all_ratings: pd.DataFrame     # every rating, gold and practice included (raw export)
    lmra: pd.DataFrame            # item_id, model, score: real items only
    quality: list[RaterQuality]
    excluded: dict[str, tuple[str, ...]]
    gold_misses: dict[str, int] = dataclasses.field(default_factory=dict)   # rater -> attention checks failed
    inclusion: dict[str, float] = dataclasses.field(default_factory=dict)   # pair -> chance (active sample)
    decisions: pd.DataFrame | None = None     # the adaptive design's pairs in decision order (else None)
    swapped: pd.DataFrame | None = None       # judges asked with the group labels swapped (lmra_store.swapped_frame)

    @property
    def regular_items(self) -> pd.DataFrame:
        """The items raters are assigned and the numbers are about: neither gold nor practice, nor left
        to the judge alone (outside a drawn human sample)."""
        return self.items[real_items(self.items) & ~self.items["judge_only"].astype(bool)]


def real_items(items: pd.DataFrame) -> pd.Series:
    """Which items the numbers are about: neither attention checks (gold) nor practice."""
    return items["gold"].isna() & ~items["practice"].astype(bool)


def gold_expectations(study: LoadedStudy, items: pd.DataFrame) -> dict[str, dict[str, str]]:
    """Attention-check item -> question -> the expected answer as a canonical value: for pairs the
    answer is given in the pair's true order, so a rater who saw it flipped is marked by what they
    meant, not by the position they clicked. Practice items check nothing."""
    questions = {q.id: q for q in study.task.questions}
    out = {}
    for r in items[items["gold"].notna() & ~items["practice"].astype(bool)].itertuples():
        out[r.item_id] = {q: canonical_value(questions[q], str(v), False) if q in questions else str(v)
                          for q, v in r.gold.items()}
    return out


def load_study_data(db: Connection, study_id: str, *, exclude_flagged: bool = False,
                    details: bool = False) -> StudyData:
    """details: keep each rating's times and source too (for the ratings export)."""
    study = load_study(db, study_id)
    items = item_store.items_frame(db, study.study_id)
    ratings = rating_store.ratings_frame(db, study.study_id, details=details)
    practice = set(items.loc[items["practice"].astype(bool), "item_id"])
    real = set(items.loc[real_items(items), "item_id"])
    checked = ratings[~ratings["item_id"].isin(practice)]         # practice answers judge no one
    gold = gold_expectations(study, items)
    rules = QualityRules(min_median_seconds=study.settings.min_seconds)
    sided = {q.id: "C" for q in study.task.questions if q.canonical in ("harm", "feature")}
    nominal = tuple(q.id for q in study.task.questions if q.level == "nominal")
    quality = rater_quality(checked, gold, rules, pair_questions=sided, nominal_questions=nominal)
    excluded = {q.rater_id: q.flags for q in quality if q.flags} if exclude_flagged else {}
    kept = ratings[ratings["item_id"].isin(real) & ~ratings["rater_id"].isin(list(excluded))]
    kept = without_declined(kept)
    scores = lmra_store.scores_frame(db, study.study_id)
    return StudyData(study, items, kept.reset_index(drop=True), ratings,
                     scores[scores["item_id"].isin(real)].reset_index(drop=True), quality, excluded,
                     gold_failures(checked, gold), item_store.inclusion_probabilities(db, study.study_id),
                     item_store.decisions_frame(db, study.study_id) if study.design.adaptive else None,
                     lmra_store.swapped_frame(db, study.study_id))


def without_declined(ratings: pd.DataFrame) -> pd.DataFrame:
    """Rater attributes answered "prefer not to say" are missing: such a rater counts in every number,
    but in no rater group's."""
    columns = [c for c in ratings.columns if c.startswith("rater_") and c != "rater_id"]
    if not columns:
        return ratings
    out = ratings.copy()
    for column in columns:
        values = out[column].astype(object)
        out[column] = values.where(values.astype(str).str.casefold() != PREFER_NOT_TO_SAY, None)
    return out


def gold_failures(ratings: pd.DataFrame, gold: dict[str, dict[str, str]]) -> dict[str, int]:
    """Per rater, attention-check items with any question answered otherwise than expected (canonical)."""
    missed: dict[str, set] = {}
    answered = ratings[ratings["item_id"].isin(list(gold))]
    for item, rater, question, value in zip(answered["item_id"], answered["rater_id"], answered["question"],
                                            answered["canonical"]):
        expected = gold.get(str(item), {}).get(str(question))
        if expected is not None and str(value) != str(expected):
            missed.setdefault(str(rater), set()).add(str(item))
    return {r: len(items) for r, items in missed.items()}


def study_numbers(db: Connection, study_id: str, *, exclude_flagged: bool = False, n_boot: int = BOOTSTRAP_DRAWS,
                  data: StudyData | None = None, model: str | None = None) -> StudyNumbers:
    """A study's numbers, the one result object (to_dict() is `fairval analyze --json`).

    `data`: the study as load_study_data read it, when the caller needs it too (read once)."""
    data = data or load_study_data(db, study_id, exclude_flagged=exclude_flagged)
    study, ratings = data.study, data.ratings
    regular_items = data.regular_items
    questions = {q.id: question_numbers(q, ratings[ratings["question"] == q.id], n_boot=n_boot,
                                        seed=study.settings.seed)
                 for q in study.task.questions}
    practice = set(data.items.loc[data.items["practice"].astype(bool), "item_id"])
    checked = data.all_ratings[~data.all_ratings["item_id"].isin(practice)]
    if data.excluded:
        checked = checked[~checked["rater_id"].isin(list(data.excluded))]
    gold = gold_expectations(study, data.items)
    for q in study.task.questions:
        if q.level == "nominal":
            found = crowd_model_check(checked.loc[checked["question"] == q.id, ["item_id", "rater_id", "canonical"]],
                                      gold, q.id)
            if found is not None:
                questions[q.id] = dataclasses.replace(questions[q.id], crowd_model=found)
    rate, judge = (pair_numbers(data, n_boot=n_boot, seed=study.settings.seed, model=model)
                   if scored_question(study.task) is not None else (None, None))
    key = rate_key(_scored(data)) if rate is not None else None
    return StudyNumbers(
        study=study.study_id, task=study.task.name, n_items=len(regular_items),
        n_raters=int(ratings["rater_id"].nunique()), n_ratings=len(ratings),
        excluded_raters=tuple(ExcludedRater(str(r), tuple(f)) for r, f in data.excluded.items()),
        raters=tuple(Rater(**{**scalar(asdict(q)), "flags": tuple(q.flags)}) for q in data.quality),
        questions=questions,
        templates=tuple(template_table(data)) if study.task.rates_templates else None,
        harm=rate if key == "harm" else None, feature_difference=rate if key == "feature_difference" else None,
        lmra=judge,
        names=name_numbers(data.study.task, data.items, data.ratings) if study.task.perceived_questions else None,
        by_language=by_language(study, ratings, lambda q, part: question_numbers(
            q, part, n_boot=n_boot, seed=study.settings.seed)))


def question_numbers(q: Question, ratings: pd.DataFrame, *, n_boot: int, seed: int) -> QuestionNumbers:
    """n, alpha at the scale's level with its interval, agreement; mean for numeric scales, 4–5 share for 1–5."""
    extra: dict = {}
    scale: Literal["harm", "likert", "numeric", "nominal"] = "nominal"
    if q.canonical == "harm":
        scale = "harm"
        scores = ratings.assign(value=as_numbers(ratings["canonical"]))
        rel = krippendorff_alpha(scores, level="interval", domain=[-1, 0, 1], n_boot=n_boot, seed=seed)
        nominal = krippendorff_alpha(ratings.assign(value=ratings["canonical"]), level="nominal",
                                     domain=["1", "0", "-1"], n_boot=0)
        extra = {"alpha_nominal": nominal.alpha, "mean_canonical": _mean(scores["value"]),
                 "distribution": _counts(ratings["canonical"], ["1", "-1", "0"])}
    elif q.level in ("ordinal", "interval"):
        domain = sorted({float(v) for v in q.values})
        values = ratings.assign(value=as_numbers(ratings["canonical"]))
        rel = krippendorff_alpha(values, level=q.level, domain=domain, n_boot=n_boot, seed=seed)
        extra = {"mean": _mean(values["value"]), "distribution": _counts(ratings["canonical"], list(q.values))}
        scale = "numeric"
        if q.is_likert:
            scale = "likert"
            summary = likert_summary(ratings["value"])
            extra["share_4_or_5"] = summary.share_4_or_5
    else:
        canon = ratings.assign(value=ratings["canonical"])
        rel = krippendorff_alpha(canon, level="nominal", domain=list(q.values), n_boot=n_boot, seed=seed)
        extra = {"distribution": _counts(ratings["canonical"], list(q.values))}
    return QuestionNumbers(scale=scale, n=len(ratings), level=rel.level, alpha=scalar(rel.alpha),
                           alpha_ci=Interval.of(scalar(rel.interval)),
                           percent_agreement=scalar(rel.percent_agreement), n_items_pairable=scalar(rel.n_items),
                           reason=rel.reason, **scalar(extra))


def template_table(data: StudyData) -> list[TemplateRow]:
    """Per template (decision_question_id; an item is its own template when it has none)."""
    key = {r.item_id: str(r.data.get(TEMPLATE_KEY, r.item_id)) for r in data.items.itertuples()}
    ratings = data.ratings.assign(template=data.ratings["item_id"].map(key))
    if ratings.empty:
        return []
    table = likert_by_group(ratings, "template")
    return [TemplateRow(r["template"], r["question"], r["n"], r["mean"], r["share_4_or_5"],
                        None if r["mean_ci_low"] is None else Interval.of((r["mean_ci_low"], r["mean_ci_high"])))
            for r in map(scalar, table.to_dict(orient="records"))]


def rate_key(question: Question) -> str:
    """Where the mean per-item score goes: H for harm (004 eq. 1), the A-minus-B difference for features."""
    return "harm" if question.canonical == "harm" else "feature_difference"


def rate_of(numbers: StudyNumbers) -> tuple[str, str]:
    """The key and title of a pair study's per-pair mean (numbers.rate: `harm` or `feature_difference`)."""
    if numbers.harm is not None:
        return "harm", "Harmful-stereotype rate H"
    return "feature_difference", "Feature difference (A-group minus B-group)"


def scored_ratings(data: StudyData) -> pd.DataFrame:
    """The scored question's ratings with `canonical` as its numeric score (see annotate.material.pairs.pair_score)."""
    question = _scored(data)
    ratings = data.ratings[data.ratings["question"] == question.id]
    scores = {c: pair_score(question, c) for c in pd.unique(ratings["canonical"])}   # a few answers
    return ratings.assign(canonical=ratings["canonical"].map(scores).astype(float))


def _scored(data: StudyData) -> Question:
    question = scored_question(data.study.task)
    if question is None:
        raise StudyError(f"study {data.study.study_id!r}: its task {data.study.task.name!r} has no scored pair question")
    return question


def main_judge(data: StudyData, model: str | None = None) -> str | None:
    """The judge the main numbers use: the one asked for, else the study's `main_judge`, else the only
    one (or the first by name when several were imported and none is named). None: no judge scores."""
    models = sorted(data.lmra["model"].unique())
    chosen = data.study.judge(models, model)
    if chosen is not None and chosen not in models:
        raise StudyError(f"no scores from judge {chosen!r} in {data.study.study_id!r}; it has "
                         + (", ".join(models) if models else "none (import or run the judge first)"))
    return chosen


def judge_scores(data: StudyData, model: str | None = None) -> tuple[str, pd.Series]:
    """One judge's scores (item -> score): see main_judge."""
    model = main_judge(data, model)
    if model is None:
        raise StudyError(f"study {data.study.study_id!r} has no judge scores; import or run the judge first")
    return model, data.lmra[data.lmra["model"] == model].set_index("item_id")["score"]


def pair_numbers(data: StudyData, *, n_boot: int = BOOTSTRAP_DRAWS, seed: int = 0,
                 model: str | None = None) -> tuple[Rate, Judge | None]:
    """The pair blocks: the per-pair mean (`harm` or `feature_difference`: rate_key), and `lmra` (None
    without judge scores)."""
    ratings = scored_ratings(data)
    split = splits(data.study, ratings)     # the judge against each language's raters too (rater_language)
    ratings = ratings.assign(rater_language=rating_languages(ratings)) if split else ratings
    attributes = ("gender", "race", "language") if split else ("gender", "race")
    human = human_scores(ratings)
    human_rate = harm_rate(human)
    # the per-item mean as plain numbers, their n beside them; each block's keys are gathered in the order
    # `analyze --json` prints them, its values typed
    people = mean_with_interval(human, n_boot, seed)
    out: dict = {"human": human_rate.value, "n_items_human": human_rate.n_items, "human_ci": people.ci,
                 **({"human_reason": people.reason} if people.value is not None and people.reason else {}),
                 "lmra": None, "n_items_lmra": 0}
    if data.lmra.empty:
        return Rate.of(**out), None
    models = sorted(data.lmra["model"].unique())
    completed = completed_pairs(ratings, data.study.settings.raters_per_item)      # the anytime intervals' terms
    by_model = {}
    for name in models:
        rows = data.lmra[data.lmra["model"] == name]
        lmra = rows.set_index("item_id")["score"]
        numbers = asdict(calibrate(human, lmra))
        numbers.update(validity_numbers(ratings, human, rows, n_boot=n_boot, seed=seed).keyed())
        numbers["by_rater_group"] = {attr: _rater_groups(data, ratings, lmra, attr) for attr in attributes}
        numbers["rater_group_allocation"] = {attr: rater_group_allocation(
            ratings, lmra, f"rater_{attr}", by, data.study.design)
            for attr, by in numbers["by_rater_group"].items() if by}
        numbers["confidence"] = confidence_block(rows, ratings, n_boot=n_boot, seed=seed)
        numbers["length"] = length_block(data.items[real_items(data.items)], lmra, human, n_boot=n_boot, seed=seed)
        rate = harm_rate(lmra)
        settings = data.study.settings
        inclusion = pd.Series(data.inclusion, dtype=float)      # the draw's chances weight every judge's estimate
        if data.decisions is not None:          # the adaptive design: every pair weighted by its recorded chance
            sample = data.study.recorded.human_sample or {}         # recorded: decisions imply a draw
            ppi = adaptive_ppi(human, lmra, sample, data.decisions, completed,
                               target_width=settings.target_ci_width, raters_per_item=settings.raters_per_item)
            numbers["sign_agreement_cs"] = adaptive_sign_cs(lmra, data.decisions, completed, sample)
        else:
            ppi = ppi_numbers(human, lmra, data.study.design, inclusion=inclusion, completed=completed,
                              target_width=settings.target_ci_width, raters_per_item=settings.raters_per_item)
            numbers["sign_agreement_cs"] = sign_agreement_cs(completed, lmra, data.study.design, inclusion)
        numbers["rate"] = Rate.of(lmra=rate.value, n_items_lmra=rate.n_items, **numbers["rate"].keyed(), ppi=ppi)
        by_model[name] = numbers
    main = main_judge(data, model)
    # one name per number: the main judge's H numbers live in `out` (`harm`), its agreement in `lmra`;
    # by_model, with several judges, lists every judge's own numbers side by side
    main_numbers = {k: v for k, v in by_model[main].items() if k != "rate"}
    judges = {**main_numbers, "model": main,
              "by_model": {n: Judge.of(**m) for n, m in by_model.items()} if len(models) > 1 else None}
    out.update(by_model[main]["rate"].keyed())
    main_scores = data.lmra[data.lmra["model"] == main].set_index("item_id")["score"]
    real = data.items[real_items(data.items)]
    per_group = (adaptive_group_ppi(main_scores, data.decisions, completed, strata_of(real))
                 if data.decisions is not None else None)
    out["by_pair_group"] = by_pair_group(human, main_scores, real, data.study.design, per_group)
    judges["by_pair_group"] = judge_fairness(human, main_scores, strata_of(real), data.swapped, main,
                                                  n_boot=n_boot, seed=seed)
    design = data.study.design
    if design.escalate:
        design_judge = data.lmra[data.lmra["model"] == design.judge]
        out["escalation"] = escalation_numbers(real, design_judge, ratings, set(completed.index), design.recorded)
    return Rate.of(**out), Judge.of(**judges)


def _rater_groups(data: StudyData, ratings: pd.DataFrame, lmra: pd.Series, attr: str) -> dict[str, Judge]:
    """Raters' groups by `attr`: the judge calibrated on each group's scores beside its agreement, p Holm-adjusted."""
    column, inclusion, design = f"rater_{attr}", pd.Series(data.inclusion, dtype=float), data.study.design
    fits = calibrate_by_group(ratings.rename(columns={column: "group"}), lmra, "group")
    return _with_holm({group: Judge.of(**{**asdict(fit), **group_agreement(
        ratings[ratings[column].astype(object) == group], lmra, design, inclusion).keyed()})
        for group, fit in fits.items()})


def complete_items(ratings: pd.DataFrame, raters_per_item: int) -> set:
    """The one definition of "complete", for every page, the CLI and the anytime intervals: an item
    rated by at least raters_per_item different raters."""
    per_item = ratings.drop_duplicates(["item_id", "rater_id"]).groupby("item_id")["rater_id"].size()
    return set(per_item[per_item >= raters_per_item].index)


def completed_pairs(ratings: pd.DataFrame, raters_per_item: int) -> pd.DataFrame:
    """The complete pairs (complete_items), indexed by item, in the order they became complete (`order`:
    the position, in the order stored, of the rating that completed it), with `human`: the mean score of
    the raters_per_item raters who completed it, so a later rating never changes a term already seen."""
    first = ratings.reset_index(drop=True).drop_duplicates(["item_id", "rater_id"])
    first = first[first["item_id"].isin(complete_items(first, raters_per_item))]
    first = first.assign(position=first.index)[first.groupby("item_id").cumcount() < raters_per_item]
    grouped = first.groupby("item_id")
    return pd.DataFrame({"order": grouped["position"].max(),
                         "human": grouped["canonical"].mean()}).sort_values("order")


def _with_holm(groups: dict[str, Judge]) -> dict[str, Judge]:
    """Each group's p beside its Holm-adjusted p over the groups of that attribute (several comparisons)."""
    adjusted = holm([g.p_value for g in groups.values()])
    return {name: g.with_(p_holm=p) for (name, g), p in zip(groups.items(), adjusted)}


def _counts(values: pd.Series, order: list[str]) -> dict[str, int]:
    return {v: int((values == v).sum()) for v in order}


def _mean(values: pd.Series) -> float | None:
    return float(values.mean()) if len(values) else None


def calibration_items(data: StudyData, model: str | None = None) -> pd.DataFrame:
    """Per pair: its groups, human score and n, LMRA score, the gap, and the text to read. Largest gap first."""
    ratings = scored_ratings(data)
    human = human_scores(ratings)
    n = ratings.groupby("item_id")["rater_id"].nunique()
    chosen = main_judge(data, model)            # one judge: another's score never fills a gap
    lmra = data.lmra[data.lmra["model"] == chosen].set_index("item_id")["score"]
    texts = {r.item_id: r.data for r in data.items.itertuples()}
    ids = sorted(set(human.index) | set(lmra.index))
    frame = pd.DataFrame({
        "item_id": ids, "group_a": [texts[i].get("group_a", "") for i in ids],
        "group_b": [texts[i].get("group_b", "") for i in ids], "human": [human.get(i) for i in ids],
        "n_raters": [int(n.get(i, 0)) for i in ids],
        "lmra": [lmra.get(i) for i in ids],
        "prompt": [texts[i].get("prompt", "") for i in ids],
        "response_a": [texts[i].get("response_a", "") for i in ids],
        "response_b": [texts[i].get("response_b", "") for i in ids]})
    frame["gap"] = (frame["human"].astype(float) - frame["lmra"].astype(float)).abs()
    return frame.sort_values("gap", ascending=False, na_position="last").reset_index(drop=True)
