"""The study report: one self-contained HTML file (charts as inline SVG) and a Markdown twin."""
from __future__ import annotations

import html
import time
from importlib import metadata
from pathlib import Path

import pandas as pd
import vl_convert

from fairval.annotate.material.studies import LoadedStudy
from fairval.annotate.outputs import charts, formats
from fairval.annotate.outputs.files import markdown_text, output_format, write_text
from fairval.annotate.outputs.judge_audit import audit_rows, audit_sentence
from fairval.annotate.outputs.judge_table import (
    alt_test_sentence,
    calibration_cells,
    ceiling_sentence,
    chosen_pairs_sentence,
    confidence_sentence,
    escalation_sentence,
    few_pairs_sentence,
    interval_cell,
    length_sentence,
    order_sentence,
    pair_group_rows,
    ppi_sentence,
    rater_allocation_sentence,
    stratified_sentence,
    validity_row,
)
from fairval.annotate.outputs.methods import methods_paragraph
from fairval.annotate.results.blocks import Rate
from fairval.annotate.results.numbers import calibration_items, load_study_data, rate_of, study_numbers
from fairval.annotate.results.progress import study_progress
from fairval.store import Connection, audit
from fairval.store import ratings as rating_store

CSS = """body{font-family:system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f3f3f3}figure{margin:1em 0;overflow-x:auto}figure svg{max-width:100%;height:auto}
.note{color:#666;font-size:.9em}"""


def setting_text(value, key: str = "") -> str:
    """A setting as a reader wants it: lists joined, a design or a stop as `key value; …` (nested
    blocks in parentheses), moments (`drawn_at`, `at`) as UTC times, not JSON."""
    if value is None:
        return "–"
    if isinstance(value, (list, tuple, dict)) and not value:
        return "none"                       # an empty setting in words, never "()" or "{}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        parts = [f"{k} ({setting_text(v, k)})" if isinstance(v, dict) else f"{k} {setting_text(v, k)}"
                 for k, v in value.items()]
        return "; ".join(parts)
    if key in ("drawn_at", "at") and isinstance(value, (int, float)):
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(value))
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def settings_text(study: LoadedStudy, settings: dict) -> dict[str, str]:
    """Settings as a reader reads them (setting_text), demographics as the raters are asked them: the
    balance attribute is asked too, even where the researcher's list leaves it out."""
    shown = {k: setting_text(v, k) for k, v in settings.items()}
    if "demographics" in shown:
        asked, balance = study.settings.asks(), study.settings.balance_by
        shown["demographics"] = setting_text(asked) + (
            f" ({balance} asked for balance_by)" if balance and balance not in study.settings.demographics else "")
    return shown


def report_sections(db: Connection, study_id: str, *, exclude_flagged: bool = False,
                    model: str | None = None) -> list[tuple]:
    """(title, table | chart | text) sections in reading order; both renderers walk the same list."""
    data = load_study_data(db, study_id, exclude_flagged=exclude_flagged)
    result = study_numbers(db, study_id, exclude_flagged=exclude_flagged, data=data, model=model)
    progress = study_progress(db, study_id, data=data)
    settings = data.study.stored_settings()
    settings.pop("consent_text")
    paragraph, cites = methods_paragraph(data, result, exclude_flagged=exclude_flagged,
                                         sources=rating_store.counts_by_source(db, study_id))
    sections: list[tuple] = [
        ("Methods (for the paper: fairval report --methods writes it with its BibTeX)",
         paragraph + " References: " + "; ".join(cites) + "."),
        ("Study", pd.DataFrame([{"study": result.study, "task": result.task,
                                 "items": result.n_items, "raters": result.n_raters,
                                 "ratings": result.n_ratings,
                                 "items complete": f"{progress['items_complete']} / {progress['n_items']}",
                                 "flagged raters excluded": "yes" if exclude_flagged else "no"}])),
        ("Settings", pd.DataFrame([{"setting": k, "value": v} for k, v in settings_text(data.study, settings).items()])),
        ("Questions: reliability and scores", formats.table([
            {"question": qid, "n": q.n, "alpha level": q.level, "alpha": q.alpha,
             "alpha 95% CI": formats.interval(q.alpha_ci), "percent agreement": q.percent_agreement,
             "mean": q.mean, "share 4 or 5": q.share_4_or_5,
             "note": str(q.reason or "")} for qid, q in result.questions.items()])),
        ("Score distributions", charts.distributions(result)),
    ]
    if result.by_language:                  # a study in several languages: each one's raters apart
        sections.append(("Questions by the raters' language", formats.table(formats.language_rows(result.by_language))))
    if result.templates:
        sections.append(("Per template", formats.table(formats.with_mean_interval(result.templates))))
    if result.lmra is not None:
        lmra, rate = result.lmra, result.rate or Rate()
        title = rate_of(result)[1]
        rows = [{"raters": "all", **calibration_cells(lmra)}] + [
            {"raters": f"{attr}: {g}", **calibration_cells(c)}
            for attr, by in (lmra.by_rater_group or {}).items() for g, c in by.items()]
        judges = lmra.by_model or {lmra.model or "": lmra}        # the main judge has its model's name
        group_rows = pair_group_rows(rate.by_pair_group)
        difference = rate.difference
        sections += [
            # the "all" row has no Holm-adjusted p: shown as the pages show an undefined value, not NaN
            (f"LMRA calibration ({lmra.model})", pd.DataFrame(rows).fillna(formats.DASH)),
            ("Judge agreement with 95% intervals", pd.DataFrame([validity_row(m, c) for m, c in judges.items()])),
            ("Can the judge stand in for people?", " ".join(
                (chosen_pairs_sentence(rate, lmra.sign_agreement_cs),
                 ceiling_sentence(lmra), alt_test_sentence(lmra), order_sentence(lmra),
                 ppi_sentence(rate.ppi, title), few_pairs_sentence(rate.n_items_human),
                 escalation_sentence(rate.escalation, title)))),
            (title, formats.table([
                {"source": "humans", "mean per pair": rate.human,
                 "95% CI": interval_cell(rate.human_ci, rate.human_reason), "n items": rate.n_items_human},
                {"source": "LMRA", "mean per pair": rate.lmra,
                 "95% CI": formats.interval(rate.lmra_ci), "n items": rate.n_items_lmra},
                {"source": "humans − LMRA (paired)", "mean per pair": difference and difference.value,
                 "95% CI": interval_cell(difference and difference.ci, difference and difference.reason),
                 "n items": difference and difference.n}])),
            (f"{title} by group pair", pd.DataFrame(group_rows) if group_rows else None),
            (f"{title} over the group pairs", stratified_sentence(rate.by_pair_group, title) or None),
            ("Is the judge fair? Its error by group pair",
             pd.DataFrame(audit_rows(lmra.by_pair_group)) if audit_rows(lmra.by_pair_group) else None),
            ("The judge's fairness audit", audit_sentence(lmra.by_pair_group) or None),
            ("The judge's confidence against people", " ".join(
                (confidence_sentence(lmra.confidence), length_sentence(lmra.length))).strip() or None),
            ("Reliability diagram", charts.reliability_diagram(lmra.confidence)),
            ("", charts.RELIABILITY_NOTE if charts.reliability_diagram(lmra.confidence) is not None else None),
            ("LMRA vs human score per pair", charts.calibration_scatter(calibration_items(data, lmra.model))),
            ("Calibration by rater group", charts.group_bars(lmra)),
            ("Rater groups: how to spread their pairs", rater_allocation_sentence(lmra.rater_group_allocation) or None),
        ]
    if result.names is not None:
        for attr, found in result.names.by_question.items():
            unscored = found.unscored
            sections.append((f"Name perception: {attr} accuracy", formats.table(
                [{"intended": g, "accuracy": a, "n": found.n[g]} | ({"why": unscored.get(g, "")} if unscored else {})
                 for g, a in found.accuracy.items()])))
            sections.append((f"Name perception: {attr} confusion", charts.confusion_heatmap(found.confusion, attr)))
    sections.append(("Raters", formats.table([
        {"rater": q.rater_id, "items": q.n_items, "check answers right": formats.answers_right(q.gold_accuracy, q.gold_n),
         "median seconds": q.median_seconds, "consensus agreement": q.consensus_agreement,
         "flags": "; ".join(q.flags)} for q in data.quality])))
    excluded = [{"rater": r.rater_id, "reasons": "; ".join(r.flags)} for r in result.excluded_raters]
    sections.append(("Excluded raters", pd.DataFrame(excluded) if excluded else
                     "No rater was excluded." if exclude_flagged else
                     "Flagged raters were kept (the report was made without --exclude-flagged)."))
    return sections


def _version() -> str:
    try:
        return metadata.version("fairval")
    except metadata.PackageNotFoundError:
        return "(development)"


def _interval_note(sections: list[tuple]) -> str:
    """How the report's intervals were made: Pearson's r is named only where the report has it (pair studies)."""
    has_rho = any(isinstance(body, pd.DataFrame) and any("Pearson" in str(c) or str(c) == "r" for c in body.columns)
                  for _, body in sections)
    return "bootstrap over items for alpha" + (", Fisher's z for Pearson's r" if has_rho else "")


def render_html(study_id: str, sections: list[tuple]) -> str:
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>fairval report: "
             f"{html.escape(study_id)}</title><style>{CSS}</style></head><body>",
             f"<h1>Study report: {html.escape(study_id)}</h1>",
             f"<p class='note'>Made by fairval {_version()} on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
             f"Intervals are 95%: {_interval_note(sections)}.</p>"]
    for title, body in sections:
        if body is None:
            continue
        if title:                           # an untitled section continues the one before (a figure's note)
            parts.append(f"<h2>{html.escape(title)}</h2>")
        if isinstance(body, pd.DataFrame):
            parts.append(body.to_html(index=False, escape=True, border=0))
        elif isinstance(body, str):
            parts.append(f"<p>{html.escape(body)}</p>")
        else:
            parts.append(f"<figure>{vl_convert.vegalite_to_svg(body.to_json())}</figure>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _markdown_table(frame: pd.DataFrame) -> str:
    frame = frame.copy()
    for column in frame.columns:
        frame[column] = frame[column].map(lambda v: v if v is None or isinstance(v, (int, float)) else markdown_text(v))
    frame.columns = [markdown_text(c) for c in frame.columns]
    return frame.to_markdown(index=False, disable_numparse=True)


def render_markdown(study_id: str, sections: list[tuple]) -> str:
    parts = [f"# Study report: {study_id}", ""]           # a study name is letters, digits, - _ . only
    for title, body in sections:
        if body is None or not isinstance(body, (pd.DataFrame, str)) or not title:
            continue            # charts, and the notes under them, live in the HTML report
        parts += [f"## {markdown_text(title)}", "", markdown_text(body) if isinstance(body, str) else _markdown_table(body), ""]
    return "\n".join(parts)


def write_report(db: Connection, study_id: str, out: str | Path, *, exclude_flagged: bool = False,
                 model: str | None = None) -> Path:
    out = Path(out)
    kind = output_format(out, ("html", "htm", "md"))
    sections = report_sections(db, study_id, exclude_flagged=exclude_flagged, model=model)
    render = render_markdown if kind == "md" else render_html
    write_text(out, render(study_id, sections))
    audit.record(db, "export.report", study_id, file=out.name)
    return out
