"""The Results page: progress, per-question numbers with intervals, distributions, templates, raters."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from fairval.annotate.crowd.prolific import cost_summary, owed
from fairval.annotate.material.gold_checks import checks_sentence
from fairval.annotate.material.studies import load_study
from fairval.annotate.outputs import charts, formats
from fairval.annotate.outputs.judge_table import anytime_sentence
from fairval.annotate.results.progress import active_words, judgment_words
from fairval.annotate.results.result import Names, StudyNumbers
from fairval.ui.common import get_db, show_table
from fairval.ui.study_picker import data_for, numbers_for, progress_for, study_header


def render() -> None:
    chosen = study_header("Results")
    if chosen is None:
        return
    study_id, exclude = chosen
    _stopping(study_id)
    progress = progress_for(study_id)               # one read of the study serves both (ui/study_picker.py)
    numbers = numbers_for(study_id, exclude)
    _progress(progress)
    st.subheader("Questions")
    show_table(question_table(numbers), counts=("n",))
    if numbers.by_language:          # a study in several languages: each one's raters apart
        st.subheader("By the raters' language")
        show_table(formats.table(formats.language_rows(numbers.by_language)), narrow=("note",),
                   counts=("raters", "n"))
        st.caption("Each language's numbers from the ratings given in it alone (the language each rater picked "
                   "on the consent screen); unrecorded: ratings stored before fairval kept the language.")
    _anytime(numbers)
    _distributions(numbers)
    if numbers.templates:
        st.subheader("Per template")
        show_table(formats.table(_with_text(study_id, exclude, formats.with_mean_interval(numbers.templates))),
                   narrow=("text",), wrap=True, counts=("n",))   # a template is read whole, not cut at ~30 characters
        st.caption("Mean intervals: a betting confidence interval over the template's ratings (Waudby-Smith and "
                   "Ramdas), on the 1–5 scale and never outside it.")
    if numbers.names is not None and numbers.names.by_question:
        _names(numbers.names)
    if numbers.raters:
        st.subheader("Raters")
        raters = pd.DataFrame(list(numbers.raters))
        raters["flags"] = raters["flags"].map("; ".join)
        # short headings: the table fits the page's width at 1280 px, its last column not cut off
        # checks: the items met, as the "checks met per rater" line counts them; their answers right as the
        # gold-accuracy flag counts them (gold_n: answers to the checks' questions), a share with its count
        raters["gold_accuracy"] = [formats.answers_right(a, n) for a, n in zip(raters["gold_accuracy"], raters["gold_n"])]
        raters["gold_n"] = raters["rater_id"].map(lambda r: progress["checks_met"].get(str(r), 0))
        raters = raters.rename(columns={"gold_n": "checks", "gold_accuracy": "check answers right",
                                        "consensus_agreement": "agreement"})
        raters = formats.table(raters)
        competence = raters.pop("competence") if "competence" in raters else None
        # a flag is read whole, not cut at 200 px
        show_table(raters, narrow=("flags",), wrap=True, counts=("n_items", "checks"))
        # in an expander: beside the flags it would push the table past 1280 px; none for a template study
        if competence is not None and not (competence == formats.DASH).all():
            with st.expander("Each rater's competence (Dawid–Skene)"):
                show_table(pd.DataFrame({"rater": raters["rater_id"], "competence": competence}), narrow=("competence",))
    _pay(study_id)
    if numbers.excluded_raters:
        st.subheader("Excluded raters")
        show_table(pd.DataFrame([{"rater": r.rater_id, "reasons": "; ".join(r.flags)}
                                 for r in numbers.excluded_raters]))


def _stopping(study_id: str) -> None:
    """The study's stopping rule, checked as the page is read; and, once it stopped itself, when and why."""
    from fairval.annotate.crowd import stopping

    stopping.check(get_db(), study_id)
    stopped = load_study(get_db(), study_id).recorded.stopped
    if stopped:
        st.info(f"This study {stopping.stop_sentence(stopped)}. No new pair is served; raters in the middle of "
                "one finish it. Open it again on Manage to go on.")


def _anytime(numbers: StudyNumbers) -> None:
    """A pair study's H and sign agreement as intervals valid however often the page is looked at."""
    rate = numbers.rate
    cs = rate.ppi.cs if rate is not None and rate.ppi is not None else None
    if cs is None:
        return
    st.markdown(anytime_sentence(cs, "H"))     # our own words and numbers only
    if cs.valid:
        st.caption(f"What it guarantees: {cs.valid}.")
    if numbers.lmra is not None and numbers.lmra.sign_agreement_cs is not None:
        st.caption(anytime_sentence(numbers.lmra.sign_agreement_cs, "Sign agreement", target=False))


def _pay(study_id: str) -> None:
    """What each participant is owed (base pay + per judgment) and the study's total with the fee."""
    s = load_study(get_db(), study_id).settings
    if not (s.base_pay or s.pay_per_judgment):
        return
    summary = cost_summary(get_db(), study_id)
    st.subheader("Pay")
    cols = st.columns(3)
    cols[0].metric(f"Pay ({summary['currency']})", f"{summary['pay']:,.2f}")
    cols[1].metric(f"Platform fee ({s.platform_fee:.0%})", f"{summary['fee']:,.2f}")
    cols[2].metric("Total", f"{summary['total']:,.2f}")
    st.caption(f"{formats.count(summary['participants'], 'participant')}, "
               f"{formats.count(summary['judgments'], 'judgment')}; bonuses not yet paid "
               f"{summary['bonus_owed']:,.2f} (`fairval prolific bonuses`).")
    show_table(owed(get_db(), study_id), counts=("judgments", "paid_judgments"),
               money=("bonus_paid", "bonus_owed", "total"))


def _progress(p: dict) -> None:
    # the words of `study show` and `analyze` (annotate/results/progress.py), each label's help saying what it counts
    # the two counts "done / needed" on a row of their own: five abreast, a study of 2,000 items showed "1000 / 2…"
    cols = st.columns(2) + st.columns(3)
    cols[0].metric("Items complete", f"{p['items_complete']:,} / {p['n_items']:,}",
                   help="Items with all the raters the study asks for each.")
    cols[1].metric("Judgments", f"{p['judgments']:,} / {p['judgments_needed']:,}",
                   help=f"A judgment is one rater's answers to one item ({p['questions']} question(s) here): "
                        f"{judgment_words(p['judgments'], p['ratings'])}, as `fairval analyze` counts them. Needed: "
                        "each item times the raters it asks for.")
    cols[2].metric("Raters", f"{p['raters']:,}", help="Raters who answered at least one item, as `fairval analyze` counts them.")
    cols[3].metric(f"Active, last {p['active_minutes']:g} min", f"{p['active_raters']:,}",
                   help=f"{active_words(p)[0].upper()}{active_words(p)[1:]}: served an item or answered one within the "
                        "study's timeout, so still at work or just finished.")
    cols[4].metric("Median seconds", "–" if p["median_seconds"] is None else f"{p['median_seconds']:.1f}",
                   help="Median time a rater took over one item.")
    if p["judgments_by_group"]:
        st.caption(f"Judgments by rater {p['group_attribute']}:")
        show_table(pd.DataFrame({p["group_attribute"]: list(p["judgments_by_group"]),     # groups as typed
                                 "judgments": list(p["judgments_by_group"].values())}), counts=("judgments",))
    st.caption(f"Study status: {p['status']} · {judgment_words(p['judgments'], p['ratings'])} · flagged raters: "
               f"{len(p['flagged_raters'])}")
    checks = checks_sentence(p["gold_items"], p["gold_rate"], p["checks_met"])
    if checks:
        (st.warning if p["gold_rate"] <= 0 else st.caption)(checks[0].upper() + checks[1:] + ".")


def question_table(numbers: StudyNumbers) -> pd.DataFrame:
    rows = []
    for qid, q in numbers.questions.items():
        rows.append({"question": qid, "n": q.n, "level": q.level,
                     "alpha": formats.ratio(q.alpha), "alpha 95% CI": formats.interval(q.alpha_ci),
                     "agreement": formats.ratio(q.percent_agreement),
                     "mean": formats.mean(q.mean), "share 4–5": formats.ratio(q.share_4_or_5),
                     "note": str(q.reason or "")})
    return pd.DataFrame(rows)


def _distributions(numbers: StudyNumbers) -> None:
    panels = charts.distribution_panels(numbers)
    if panels:
        st.subheader("Distributions")
        # a column a question, up to three a row: side by side at 1280 px, one under another on a phone
        for start in range(0, len(panels), 3):
            for column, panel in zip(st.columns(3), panels[start:start + 3]):
                column.altair_chart(panel)


def _names(names: Names) -> None:
    st.subheader("Name perception")
    for attr, found in names.by_question.items():
        acc = found.accuracy
        if acc:
            st.markdown(f"**{attr.capitalize()}: share of ratings naming the intended group**")
            ci = found.accuracy_ci
            show_table(pd.DataFrame({"intended": list(acc), "accuracy": [formats.ratio(v) for v in acc.values()],
                                     "accuracy 95% CI": [formats.interval(ci.get(g)) for g in acc],
                                     "n": [found.n[g] for g in acc]}), counts=("n",))
            st.caption("Intervals: Wilson's, over the ratings of each intended group.")
            for why in found.unscored.values():
                st.text(f"⚠ {why}")     # plain text: it quotes the group's label as imported, which no Markdown may read
            st.caption("Confusion (rows intended, columns perceived)")
            confusion = pd.DataFrame(found.confusion).T
            show_table(confusion, counts=tuple(confusion.columns))     # every cell a count of ratings
            heatmap = charts.confusion_heatmap(found.confusion, attr)
            if heatmap is not None:
                st.altair_chart(heatmap)


def _with_text(study_id: str, exclude: bool, table: pd.DataFrame) -> pd.DataFrame:
    """The per-template table with each template's text (its first fill) and its verdict under the Export
    page's default thresholds beside its id."""
    from fairval.annotate.outputs.export import Thresholds, template_texts, template_verdicts

    if "template" not in table.columns:
        return table
    data = data_for(study_id, exclude)
    verdicts = template_verdicts(data, Thresholds()).set_index("template")["passed"]
    ids = table["template"].astype(str)
    table = table.copy()
    at = list(table.columns).index("template") + 1
    table.insert(at, "text", ids.map(template_texts(data)))
    table.insert(at + 1, "passes (mean ≥ 4, 3+ ratings)", ids.map(verdicts.to_dict()))
    return table
