"""The methods paragraph a paper needs, with the study's own numbers and what it cites (`fairval report NAME
--methods`): the design, the raters and their groups, exclusions, alpha with its interval, the judge's
agreement, the inference used and its guarantee. Text in Markdown or LaTeX, and a BibTeX file of the works
named."""
from __future__ import annotations

from pathlib import Path

from fairval.analysis.judge_validity import SMALL_N
from fairval.analysis.running_adaptive import BURN_IN_WORDS
from fairval.annotate.material.pairs import scored_question
from fairval.annotate.outputs import formats
from fairval.annotate.outputs.files import atomic_output
from fairval.annotate.outputs.judge_audit import WELCH, WELCH_BIBTEX, methods_sentence
from fairval.annotate.results.numbers import load_study_data, study_numbers
from fairval.annotate.results.result import StudyNumbers
from fairval.store import Connection, audit
from fairval.store import ratings as rating_store
from fairval.store.order import template_of

BIBTEX = {
    "krippendorff2011": "@misc{krippendorff2011,\n  author = {Krippendorff, Klaus},\n  title = {Computing "
                        "{Krippendorff's} Alpha-Reliability},\n  year = {2011},\n  howpublished = {University of "
                        "Pennsylvania, Annenberg School for Communication}\n}",
    "tamkin2023": "@article{tamkin2023,\n  author = {Tamkin, Alex and Askell, Amanda and Lovitt, Liane and Durmus, Esin "
                  "and Joseph, Nicholas and Kravec, Shauna and Nguyen, Karina and Kaplan, Jared and Ganguli, Deep},\n"
                  "  title = {Evaluating and Mitigating Discrimination in Language Model Decisions},\n"
                  "  journal = {arXiv preprint arXiv:2312.03689},\n  year = {2023}\n}",
    "eloundou2024": "@article{eloundou2024,\n  author = {Eloundou, Tyna and Beutel, Alex and Robinson, David G. and "
                    "Gu-Lemberg, Keren and Brakman, Anna-Luisa and Mishkin, Pamela and Shah, Meghan and Heidecke, "
                    "Johannes and Weng, Lilian and Kalai, Adam Tauman},\n  title = {First-Person Fairness in "
                    "Chatbots},\n  journal = {arXiv preprint arXiv:2410.19803},\n  year = {2024}\n}",
    "dawid1979": "@article{dawid1979,\n  author = {Dawid, A. P. and Skene, A. M.},\n  title = {Maximum Likelihood "
                 "Estimation of Observer Error-Rates Using the {EM} Algorithm},\n  journal = {Journal of the Royal "
                 "Statistical Society: Series C},\n  volume = {28},\n  number = {1},\n  pages = {20--28},\n"
                 "  year = {1979}\n}",
    "angelopoulos2023": "@article{angelopoulos2023,\n  author = {Angelopoulos, Anastasios N. and Duchi, John C. and "
                        "Zrnic, Tijana},\n  title = {{PPI++}: Efficient Prediction-Powered Inference},\n  journal = "
                        "{arXiv preprint arXiv:2311.01453},\n  year = {2023}\n}",
    "waudbysmith2024": "@article{waudbysmith2024,\n  author = {Waudby-Smith, Ian and Ramdas, Aaditya},\n  title = "
                       "{Estimating Means of Bounded Random Variables by Betting},\n  journal = {Journal of the Royal "
                       "Statistical Society: Series B},\n  volume = {86},\n  number = {1},\n  pages = {1--27},\n"
                       "  year = {2024}\n}",
    "waudbysmith2024asymptotic": "@article{waudbysmith2024asymptotic,\n  author = {Waudby-Smith, Ian and Arbour, "
                                 "David and Sinha, Ritwik and Kennedy, Edward H. and Ramdas, Aaditya},\n  title = "
                                 "{Time-uniform Central Limit Theory and Asymptotic Confidence Sequences},\n  journal "
                                 "= {The Annals of Statistics},\n  year = {2024}\n}",
    "zrnic2024": "@inproceedings{zrnic2024,\n  author = {Zrnic, Tijana and Cand{\\`e}s, Emmanuel J.},\n  title = "
                 "{Active Statistical Inference},\n  booktitle = {International Conference on Machine Learning},\n"
                 "  year = {2024}\n}",
    "jung2025": "@inproceedings{jung2025,\n  author = {Jung, Jaehun and Brahman, Faeze and Choi, Yejin},\n  title = "
                "{Trust or Escalate: {LLM} Judges with Provable Guarantees for Human Agreement},\n  booktitle = "
                "{International Conference on Learning Representations},\n  year = {2025}\n}",
    WELCH: WELCH_BIBTEX,
}



def _n(x, digits: int = 2) -> str:
    return "undefined" if x is None else f"{x:.{digits}f}"


def _ci(ci) -> str:
    return "" if not ci else f" (95% CI {ci[0]:.2f} to {ci[1]:.2f})"


def methods_text(db: Connection, study_id: str, *, exclude_flagged: bool = False,
                 model: str | None = None) -> tuple[str, list[str]]:
    """The paragraph in plain text with [key] citations, and the BibTeX keys it cites in order."""
    data = load_study_data(db, study_id, exclude_flagged=exclude_flagged)
    numbers = study_numbers(db, study_id, exclude_flagged=exclude_flagged, data=data, model=model)
    return methods_paragraph(data, numbers, exclude_flagged=exclude_flagged,
                             sources=rating_store.counts_by_source(db, study_id))


def _beyond(data, counted: int, stored: int) -> str:
    """What the stored ratings hold beyond the ratings counted in the numbers, said beside their total so that
    the two numbers agree: " (the 39 above and 1 answer to an attention check)"; "" when they are the same."""
    if stored == counted:
        return ""
    items, rated = data.items, data.all_ratings
    practice = set(items.loc[items["practice"].astype(bool), "item_id"])
    checks = set(items.loc[items["gold"].notna(), "item_id"]) - practice
    on_items = rated[~rated["item_id"].isin(practice | checks)]
    found = {"check": int(rated["item_id"].isin(checks).sum()), "practice": int(rated["item_id"].isin(practice).sum()),
             "excluded": int(on_items["rater_id"].isin(list(data.excluded)).sum())}
    other = stored - counted - sum(found.values())
    said = [formats.count(found["check"], "answer to an attention check", "answers to attention checks"),
            formats.count(found["practice"], "practice answer"),
            f"{found['excluded']:,} by the raters excluded", formats.count(other, "other")]
    parts = [f"the {counted:,} above"] + [part for part, n in zip(said, [*found.values(), other]) if n]
    return f" ({', '.join(parts[:-1])} and {parts[-1]})"


def methods_paragraph(data, result: StudyNumbers, *, exclude_flagged: bool,
                      sources: dict[str, int]) -> tuple[str, list[str]]:
    """methods_text from the study's data and numbers already computed (the report has both); `sources`:
    the study's ratings by how they came (store.ratings.counts_by_source), since fairval's serving rules
    shaped only those it served."""
    s, task = data.study.settings, data.study.task
    served, imported = sources.get("app", 0), sources.get("import", 0)
    cites: list[str] = []

    def cite(key: str) -> str:
        if key not in cites:
            cites.append(key)
        return f"[{key}]"

    protocol = task.protocol if task.protocol in BIBTEX else None
    all_imported = imported > 0 and not served
    design = "" if all_imported else f"{s.raters_per_item} raters per item, "
    parts = [f"We collected human judgments on {result.n_items} items ({task.name.replace('_', ' ')} task"
             + (f", following the protocol of {cite(protocol)}" if protocol else "") + f"), "
             f"{design}{result.n_ratings} ratings from {result.n_raters} raters."]
    if all_imported:
        parts.append(f"All {imported} of the study's stored ratings{_beyond(data, result.n_ratings, imported)} were "
                     "imported, collected outside fairval: "
                     "no serving rule of fairval's (raters per item, item order, templates, response order) "
                     "applied to them.")
        parts += _quality_and_after(data, result, exclude_flagged, cite)
        return " ".join(p for p in parts if p), cites
    if imported:
        parts.append(f"Of the study's {served + imported} stored ratings{_beyond(data, result.n_ratings, served + imported)}, "
                     f"fairval served {served} and {imported} were "
                     "imported, collected outside fairval; the serving rules below held for the served ones only.")
    if s.balance_by:
        parts.append(f"Each item's raters were split equally by {s.balance_by} between "
                     f"{', '.join(s.balance_groups)}.")
    if len({template_of(d) for d in data.regular_items["data"]} - {None}) > 1:      # the serving rule on templates
        parts.append("A rater could be served two fills of one template in a row." if s.fills_back_to_back else
                     "No rater was served two fills of one template (decision question) in a row.")
    if task.is_pair:
        parts.append(f"The two responses of each pair were shown in random order (probability {s.flip_probability:g}).")
    parts += _quality_and_after(data, result, exclude_flagged, cite)
    return " ".join(p for p in parts if p), cites


def _raters(n: int, one: str, many: str) -> str:
    """A count of raters as a sentence starts with it: "No rater was", "1 rater was", "3 raters were"."""
    return f"No rater {one}" if n == 0 else f"1 rater {one}" if n == 1 else f"{n} raters {many}"


def _quality_and_after(data, result: StudyNumbers, exclude_flagged: bool, cite) -> list[str]:
    """The sentences that hold however the ratings came: raters' flags, reliability, the judge, H."""
    parts: list[str] = []
    excluded = result.excluded_raters
    flagged = sum(1 for q in data.quality if q.flags)
    parts.append(f"{_raters(len(excluded), 'was', 'were')} excluded for quality flags (attention checks, speed, "
                 f"straight-lining, or answers no better than chance under a Dawid–Skene model {cite('dawid1979')})."
                 if exclude_flagged else "No rater carried quality flags." if not flagged else
                 f"{_raters(flagged, 'carried quality flags and was', 'carried quality flags and were')} kept.")
    for qid, q in result.questions.items():
        if q.alpha is not None:
            parts.append(f"Inter-rater reliability on {qid!r} was Krippendorff's α = {_n(q.alpha)}{_ci(q.alpha_ci)}, "
                         f"{q.level} level, bootstrap over items {cite('krippendorff2011')}.")
    lmra = result.lmra
    if lmra is not None:
        parts.append(f"The LLM judge ({lmra.model}) agreed with the mean human score per pair with Pearson's "
                     f"r = {_n(lmra.pearson_r)}{_ci(lmra.pearson_ci)} and sign agreement "
                     f"{_n(lmra.sign_agreement)}{_ci(lmra.sign_agreement_ci)} over {lmra.n_items} pairs.")
    if result.rate is not None:
        parts += rate_sentences(data, result.rate, cite)
    if lmra is not None:
        parts.append(methods_sentence(lmra.by_pair_group, cite))        # the judge's own fairness audit
    return parts


ESTIMATORS = {   # the design's kind -> how its estimate of H is named, and what it cites
    "adaptive": ("the inverse-probability-weighted estimator of sequential active inference: each decided pair's "
                 "term weighted by 1/its chance of going to people, with the judge's score as a control variate",
                 ("zrnic2024",)),
    "active": ("prediction-powered inference (PPI++) with each rated pair weighted by 1/its chance of being drawn, "
               "the draw set by the judge's uncertainty", ("angelopoulos2023", "zrnic2024")),
    "stratified": ("prediction-powered inference (PPI++) with each rated pair weighted by 1/its group pair's chance",
                   ("angelopoulos2023",)),
}
PPI = ("prediction-powered inference (PPI++): people's ratings, with the judge's scores on every pair as a "
       "control variate", ("angelopoulos2023",))


def rate_sentences(data, rate, cite) -> list[str]:
    """H (or the A-minus-B difference): what it is, people's estimate with its interval and estimator, the
    anytime interval with its guarantee as `valid` states it, and the stop; each sentence names what its
    number measures, so none leans on another that may be missing."""
    question = scored_question(data.study.task)
    harm = question is not None and question.canonical == "harm"
    name = "H" if harm else "The A-minus-B difference"
    out = [f"{name} is the mean, over the study's pairs, of each pair's expected human score (the share of people "
           "who would choose response A minus the share who would choose B, people as its raters were recruited)"
           + ("; it is estimated from people's ratings, and the judge's scores only narrow its interval." if harm
              else ".")]
    unequal = data.study.design.kind in ("adaptive", "active", "stratified")
    # the interval's name as analysis.judge_validity.mean_with_interval makes it: over one rated pair there is
    # none (the sentence says why), below SMALL_N pairs it is the betting interval, from there the bootstrap's
    n = rate.n_items_human or 0
    over = (f"{n} pair, with no interval ({rate.human_reason})" if rate.human_reason is not None else
            f"{n} pairs (bootstrap over pairs)" if n >= SMALL_N else
            f"{n} pairs (a betting interval, valid at any number of pairs)")
    if rate.human is not None and unequal:
        out.append(f"The rated pairs' own mean of people's scores was {_n(rate.human, 3)}{_ci(rate.human_ci)} over "
                   f"{over}; it is not an estimate of {name} here, since pairs went to people with unequal chances.")
    elif rate.human is not None:
        out.append(f"From people's ratings alone, {name} was {_n(rate.human, 3)}{_ci(rate.human_ci)} over "
                   f"{over.replace(' pair', ' rated pair', 1)}.")
    ppi = rate.ppi
    stopped = data.study.recorded.stopped
    if ppi is not None and ppi.value is not None:
        words, keys = ESTIMATORS.get(data.study.design.kind, PPI)
        # a fixed-n interval promises 95% at a number of pairs set in advance; a study that stopped itself
        # chose its n from the data (issue 53: only the anytime interval holds there)
        fixed = ("a fixed-n interval, whose 95% is for a number of pairs set in advance, not for the stop this study "
                 "chose itself" if stopped and stopped.get("ci") else "a fixed-n interval")
        out.append(f"Estimated by {words} {' '.join(cite(k) for k in keys)}, H was {_n(ppi.value, 3)}{_ci(ppi.ci)}, "
                   f"{fixed}; the judge's scores on every pair enter only as a control variate, which removes the "
                   "part of the pairs' spread they predict."
                   .replace("H was", f"{name} was"))
        if data.study.design.kind == "adaptive":
            out.append(_chances(data.study.recorded.human_sample or {}))
    cs = ppi and ppi.cs
    if cs is not None and cs.ci:
        if cs.method == "asymptotic" and cs.n_decided is not None:      # the adaptive design's burn-in (issue 53)
            # in `valid`'s order: the asymptotic part, once used, within the exact betting part kept at every pair
            how = (f"an asymptotic confidence sequence {cite('waudbysmith2024asymptotic')} used {BURN_IN_WORDS}, "
                   f"within an exact betting one {cite('waudbysmith2024')} kept at every decided pair, each with half "
                   "of the 5% error (anytime-valid only asymptotically: its chance of ever missing tends to at most 5% "
                   "as pairs accumulate)")
        elif cs.n_decided is not None:          # the adaptive design before its burn-in ended: betting alone, α/2
            how = (f"an exact betting confidence sequence {cite('waudbysmith2024')} at every decided pair with half of "
                   "the 5% error (anytime-valid: at most a 2.5% chance of ever missing, however often it is looked "
                   f"at); the asymptotic one holding the other half is used only {BURN_IN_WORDS}, which this study "
                   "did not reach")
        elif cs.method == "asymptotic":
            how = (f"an exact betting confidence sequence {cite('waudbysmith2024')} until the {cs.asymptotic_from}th "
                   f"pair, then an asymptotic one {cite('waudbysmith2024asymptotic')}, each with half of the 5% error "
                   "(anytime-valid only asymptotically: its chance of ever missing tends to at most 5% as pairs "
                   "accumulate)")
        else:
            how = (f"an exact betting confidence sequence {cite('waudbysmith2024')} (anytime-valid: at most a 5% "
                   "chance of ever missing, however often it is looked at)")
        out.append(f"{name}'s anytime interval, from people's ratings, was "
                   f"{_ci(cs.ci).strip(' ()').replace('95% CI ', '')} over {cs.n_pairs_complete} complete pairs, by "
                   f"{how}; it holds for {_target(cs.valid)}.")
    if stopped and stopped.get("ci"):
        lo, hi = stopped["ci"]
        out.append(f"The study stopped itself when {name}'s anytime interval was {lo:.2f} to {hi:.2f} (width "
                   f"{hi - lo:.3f}) over {stopped.get('n_pairs_complete')} complete pairs: {stopped['reason']}.")
    return out


def _chances(sample: dict) -> str:
    """How the adaptive design set its chances (annotate.adaptive.next_pair, analysis.active.live_floor_by_rules)."""
    if set(sample.get("floors") or ()) == {1.0}:
        return "Every pair had the same chance of going to people."
    return ("Each pair's chance leaned on the judge's uncertainty, by a set mix until 30 pairs were complete and from "
            "then only while those pairs showed its uncertainty going with its error (Kendall's τ, one-sided, p < 0.01).")


def _target(valid: str | None) -> str:
    """What `valid` says the interval is for: the words between "anytime, for " and the conditions."""
    text = str(valid or "")
    head = text.split(": however often", 1)[0]
    return head.removeprefix("anytime, for ") or "the quantity above"


def _latex(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"),
                 ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}")):
        text = text.replace(a, b)
    return text


def render_methods(text: str, cites: list[str], kind: str) -> str:
    if kind == "tex":
        body = _latex(text)
        for key in cites:
            body = body.replace(f"[{_latex(key)}]", f"\\citep{{{key}}}")
        return body.replace("α", r"$\alpha$").replace("ρ", r"$\rho$").replace("–", "--") + "\n"
    return text + "\n\nReferences: " + "; ".join(cites) + " (see the .bib file).\n"


def write_methods(db: Connection, study_id: str, out: str | Path, *, kind: str = "md", exclude_flagged: bool = False,
                  model: str | None = None) -> tuple[Path, Path]:
    """The paragraph to `out` and its BibTeX beside it (`out` with .bib); returns both paths."""
    out = Path(out)
    text, cites = methods_text(db, study_id, exclude_flagged=exclude_flagged, model=model)
    bib = out.with_suffix(".bib")
    with atomic_output(out) as path:
        path.write_text(render_methods(text, cites, kind), encoding="utf-8")
    with atomic_output(bib) as path:
        path.write_text("\n\n".join(BIBTEX[k] for k in cites) + "\n", encoding="utf-8")
    audit.record(db, "export.methods", study_id, file=out.name)
    return out, bib
