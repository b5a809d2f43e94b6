"""Commands on the judge's validity: judges side by side, a calibration map and its use, planning."""
from __future__ import annotations

import dataclasses
import json

import click

from fairval.annotate.cli.common import _db, friendly
from fairval.annotate.outputs import formats
from fairval.annotate.outputs.files import output_format, spreadsheet_frame, write_csv, write_text
from fairval.annotate.results import BOOTSTRAP_DRAWS


@click.command()
@click.argument("studies", nargs=-1, required=True)
@click.option("--models", help="Comma-separated judges, in the order of the rows (default: every judge).")
@click.option("--json", "as_json", is_flag=True, help="Print {study: {judge: numbers}} as JSON.")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the table to a .md or .csv file.")
@click.option("--bootstrap", "n_boot", type=click.IntRange(min=0), default=BOOTSTRAP_DRAWS, show_default=True,
              help="Bootstrap resamples for every interval (0: numbers without intervals).")
@click.option("--exclude-flagged", is_flag=True)
@click.pass_context
@friendly
def compare(ctx, studies, models, as_json, out, n_boot, exclude_flagged):
    """Judges side by side over pair studies, as the paper's Table 1, per study: Pearson's r [CI], a (sign
    agreement) [CI] and ω (the alternative annotator test's winning rate)."""
    from fairval.annotate.judge.compare import compare_judges, comparison_table

    chosen = [m.strip() for m in models.split(",") if m.strip()] if models else None
    comparison = compare_judges(_db(ctx), list(studies), chosen, n_boot=n_boot, exclude_flagged=exclude_flagged)
    if as_json:
        click.echo(json.dumps({study: {m: c.to_dict() for m, c in by.items()} for study, by in comparison.items()}))
        return
    table = comparison_table(comparison)
    if out:
        kind = output_format(out, ("md", "csv"))
        write_text(out, spreadsheet_frame(table).to_csv(index=False) if kind == "csv"
                   else table.to_markdown(index=False, disable_numparse=True) + "\n")
        click.echo(f"wrote {out}")
        return
    click.echo(table.to_markdown(index=False, disable_numparse=True))


@click.command("calibrate")
@click.argument("study_name")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The map, as JSON.")
@click.option("--model", help="The judge to map (default: the study's first).")
@click.option("--folds", type=click.IntRange(2, 50), default=5, show_default=True)
@click.option("--exclude-flagged", is_flag=True)
@click.pass_context
@friendly
def calibrate(ctx, study_name, out, model, folds, exclude_flagged):
    """Fit the mean human score as a function of the judge's (isotonic, and a line), cross-validated."""
    from fairval.annotate.judge.calibrate import calibration_map

    table = calibration_map(_db(ctx), study_name, model=model, folds=folds, exclude_flagged=exclude_flagged)
    write_text(out, json.dumps(table, indent=2) + "\n")
    cv = table["cross_validation"]
    if "reason" in cv:
        click.echo(f"wrote {out} ({table['n_pairs']} pairs); not cross-validated: {cv['reason']}")
        return
    click.echo(f"wrote {out} ({table['n_pairs']} pairs, {cv['folds']}-fold held out): " + "; ".join(
        f"{name} r {formats.ratio(cv[name]['pearson_r'])} MAE {formats.ratio(cv[name]['mae'])}"
        for name in ("raw", "isotonic", "linear")))


@click.command("apply-map")
@click.argument("study_name")
@click.argument("map_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Calibrated scores, .csv.")
@click.option("--model", help="The judge whose scores to map (default: the map's).")
@click.option("--kind", type=click.Choice(["isotonic", "linear"]), default="isotonic", show_default=True)
@click.pass_context
@friendly
def lmra_apply_map(ctx, study_name, map_file, out, model, kind):
    """Put a study's judge scores on the human scale with a map from `fairval calibrate`."""
    from fairval.annotate.judge.calibrate import apply_map, read_map

    output_format(out, ("csv",))
    scores = apply_map(_db(ctx), study_name, read_map(map_file), model=model, kind=kind)
    write_csv(scores, out)
    click.echo(f"wrote {len(scores)} calibrated scores to {out} (import them with `fairval lmra import`)")


@click.command()
@click.argument("study_name", required=False)
@click.option("--target-ci-width", "target", type=click.FloatRange(min=0, min_open=True),
              help="The 95% interval's full width to reach, e.g. 0.2 for Pearson's r within ±0.1 (pair studies).")
@click.option("--statistic", type=click.Choice(["rho", "sign", "harm"]), default="rho", show_default=True)
@click.option("--model", help="The judge (default: the study's first).")
@click.option("--assume-rho", type=float, help="No pilot: the judge's expected Pearson r with the mean of many people.")
@click.option("--assume-alpha", type=float, help="No pilot: single raters' expected agreement (interval α).")
@click.option("--assume-sd", type=float, default=0.8, show_default=True, help="No pilot: one rating's SD.")
@click.option("--assume-h", type=float, default=0.0, show_default=True, help="No pilot: the expected H.")
@click.option("--pay-per-judgment", type=float, default=0.50, show_default=True)
@click.option("--pay-per-rater", type=float, default=1.15, show_default=True, help="For reading the instructions.")
@click.option("--fee", type=float, default=0.43, show_default=True, help="The platform's fee, as a share of pay.")
@click.option("--judgments-per-rater", type=int, default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@friendly
def plan(ctx, study_name, target, statistic, model, assume_rho, assume_alpha, assume_sd, assume_h,
         pay_per_judgment, pay_per_rater, fee, judgments_per_rater, as_json):
    """How many pairs and raters per pair reach an interval width, and what they cost: from a study's
    ratings so far (the pilot), or before any pilot from --assume-rho and --assume-alpha. For a study of
    several templates, first the raters that never two fills of one template in a row needs."""
    from fairval.analysis.planner import Assumptions, Pay, cheapest
    from fairval.annotate.judge.planning import plan_from_assumptions, plan_study
    from fairval.annotate.material.pairs import scored_question
    from fairval.annotate.material.studies import load_study
    from fairval.annotate.rating.fills import study_fill_plan
    from fairval.annotate.rating.session_length import session_length

    assuming = assume_rho is not None or assume_alpha is not None
    if assuming == (study_name is not None):
        raise click.ClickException("name a study to plan from its pilot, or give --assume-rho and --assume-alpha "
                               "to plan before any pilot (not both)")
    if assuming and (assume_rho is None or assume_alpha is None):
        raise click.ClickException("planning from assumed values needs both --assume-rho and --assume-alpha")
    if study_name is not None:
        fill_plan = study_fill_plan(_db(ctx), study_name)
        fills = fill_plan.sentence(study_name)
        length = session_length(_db(ctx), study_name)
        pairs = scored_question(load_study(_db(ctx), study_name).task) is not None
        if not pairs and (fills or target is None):
            # a study without a judge's pairs: its plan is the raters the rule needs and one rater's load (a
            # width asked of a study with neither goes on to say in one line that it needs a pair study)
            click.echo(json.dumps({"raters_needed": fill_plan.raters, "fills": fills, **length.to_dict(study_name)})
                       if as_json else "\n".join(length.lines(study_name, fills)))
            return
        if pairs and not as_json and target is not None:
            click.echo("\n".join(length.lines(study_name, fills)))
    if target is None:
        raise click.UsageError("Missing option '--target-ci-width'.")
    pay = Pay(pay_per_judgment, pay_per_rater, fee, judgments_per_rater)
    planned = (plan_from_assumptions(Assumptions(assume_rho, assume_alpha, assume_sd, assume_h)) if assuming
               else plan_study(_db(ctx), study_name, model=model))
    table = planned.designs
    best = cheapest(table, statistic, target, pay)
    currency = load_study(_db(ctx), study_name).settings.currency if study_name else "USD"
    if as_json:
        click.echo(json.dumps({"statistic": statistic, "target": target, "source": planned.source,
                               "cheapest": None if best is None else dataclasses.asdict(best),
                               "designs": json.loads(table.to_json(orient="records"))}))
        return
    column = {"rho": "rho_width", "sign": "sign_width", "harm": "harm_width"}[statistic]
    grid = table.pivot(index="pairs", columns="raters_per_pair", values=column)
    click.echo(f"expected 95% interval width of {statistic} (rows: pairs, columns: raters per pair), "
               f"{planned.source}")
    click.echo(grid.map(formats.ratio).to_markdown(disable_numparse=True))
    if best is None:
        click.echo(f"no design up to {int(table['pairs'].max())} pairs reaches width {target:g}")
        return
    click.echo(f"cheapest reaching {target:g}: {best.pairs} pairs x {formats.count(best.raters_per_pair, 'rater')} = "
               f"{best.judgments} judgments by about {best.raters} raters, {best.cost:.2f} {currency} with the fee "
               f"(expected width {formats.ratio(best.expected_width)})")


@click.group("judge")
def judge_group():
    """What the judge may decide alone."""


@judge_group.command("trust")
@click.argument("study_name")
@click.option("--agreement", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.9, show_default=True,
              help="The share of pairs on which the judge must agree with the people's majority.")
@click.option("--risk", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="The chance, at most, that the threshold found does not give that agreement.")
@click.option("--model", help="The judge (default: the study's).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@friendly
def trust(ctx, study_name, agreement, risk, model, as_json):
    """Trust or escalate (Jung et al., ICLR 2025): the judge-confidence threshold above which the judge agrees
    with the people's majority at least --agreement of the time, with probability at least 1 − --risk, found on
    the human-rated pairs by fixed-sequence testing; and the share of all pairs the judge may decide alone."""
    from fairval.annotate.judge.trust import judge_trust

    found = judge_trust(_db(ctx), study_name, agreement=agreement, risk=risk, model=model)
    if as_json:
        click.echo(json.dumps(found))
        return
    if found["not_guaranteed"]:
        click.echo(f"Not guaranteed for {study_name!r}: {found['not_guaranteed']}.")
    if found["threshold"] is None:
        tested = found["tested"]
        why = (f"the first threshold tested ({tested[0]['n']} pairs, {tested[0]['disagreements']} disagreement(s)) "
               f"does not show {agreement:.0%} agreement at risk {risk}" if tested else
               f"{found['rated_pairs']} rated pair(s) with a people's majority are too few for any test to show it")
        click.echo(f"{found['model']}: no confidence threshold can be trusted: {why}. Every pair goes to people.")
        return
    click.echo(f"{found['model']}: above confidence {found['threshold']:.3f} the judge agrees with the people's "
               f"majority on {found['n_above'] - found['disagreements']} of {found['n_above']} rated pairs; with "
               f"probability ≥ {1 - risk:.0%} its agreement there is ≥ {agreement:.0%} (fixed-sequence binomial "
               f"test, p = {found['p_value']:.3g}). It may decide {found['pairs_to_judge_alone']} of "
               f"{found['judged_pairs']} judged pairs ({found['share_to_judge_alone']:.0%}) alone; the rest go to people.")
