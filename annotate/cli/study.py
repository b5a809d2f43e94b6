"""`fairval study …`: create, list, show, sample and configure studies."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import click

from fairval.annotate.cli.common import _db, friendly
from fairval.annotate.material.tasks import PRESETS


@click.group()
def study():
    """Create, list and configure studies."""


@study.command("create")
@click.argument("name")
@click.option("--task", type=click.Choice(sorted(PRESETS)), help="A preset task.")
@click.option("--task-file", type=click.Path(exists=True, dir_okay=False),
              help="Or a task declared as JSON: name, display, questions (id, prompt, options, level).")
@click.option("--raters-per-item", type=int, default=3, show_default=True)
@click.option("--balance-by", type=click.Choice(["gender", "race", "country"]))
@click.option("--balance-groups", help="Comma-separated groups sharing each item's raters, e.g. female,male.")
@click.option("--flip-probability", type=float, default=0.5, show_default=True)
@click.option("--gold-rate", type=float, default=0.0, show_default=True)
@click.option("--timeout", "timeout_seconds", type=float, default=1800, show_default=True,
              help="Seconds before a served, unanswered item goes back to the pool.")
@click.option("--min-seconds", type=float, default=0.0, show_default=True,
              help="Median seconds per item under which a rater is flagged.")
@click.option("--max-items-per-rater", type=int)
@click.option("--ask", "demographics", multiple=True, type=click.Choice(["gender", "race", "country"]),
              help="Demographics asked of raters (repeat the option).")
@click.option("--completion-code")
@click.option("--prolific-redirect/--no-prolific-redirect", default=False)
@click.option("--language", "languages", multiple=True, default=("en",), show_default=True,
              help="The language raters see fairval's words in (BCP 47: en, es, fr, de, pt-BR, hi, zh-Hans, ja, sw, "
                   "ar). Repeat it, or give a list (en,ar), to let each rater pick one on the consent screen: the "
                   "first is the one the study opens in.")
@click.option("--seed", type=int)
@click.pass_context
@friendly
def study_create(ctx, name, task, task_file, balance_groups, **options):
    """Create study NAME for a preset --task or a --task-file."""
    from fairval.annotate.material.studies import create_study
    if (task is None) == (task_file is None):
        raise click.UsageError("give either --task or --task-file")
    definition = None
    if task_file:
        try:
            definition = json.loads(Path(task_file).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise click.ClickException(f"{task_file}: not a JSON task definition ({e})") from None
    settings = {k: v for k, v in options.items() if v is not None}
    settings["demographics"] = list(options["demographics"])
    codes = [code.strip() for given in options["languages"] for code in given.split(",") if code.strip()] or ["en"]
    settings["language"], settings["languages"] = codes[0], codes[1:]
    matched = {}
    if balance_groups:
        from fairval.annotate.material import vocabulary
        from fairval.errors import LabelMismatch
        groups = [g.strip() for g in balance_groups.split(",") if g.strip()]
        try:
            settings["balance_groups"], matched = vocabulary.balance_groups(options.get("balance_by"), groups)
        except LabelMismatch as e:
            raise click.ClickException(f"--balance-groups: {e}") from None
    created = create_study(_db(ctx, create=True), name, task, task_definition=definition, **settings)
    click.echo(f"created study {created.study_id!r} ({created.task.name}); completion code "
               f"{created.settings.completion_code}")
    if matched:
        click.echo(f"balance groups matched to the raters' answers: {vocabulary.said(matched)}")


@study.command("list")
@click.pass_context
@friendly
def study_list(ctx):
    """List studies."""
    from fairval.annotate.material.studies import list_study_names, load_study
    db = _db(ctx)
    for name in list_study_names(db):
        s = load_study(db, name)
        click.echo(f"{name}\t{s.task.name}\t{s.status}")


@study.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
@friendly
def study_show(ctx, name, as_json):
    """A study's settings and progress: items complete, judgments by group, active raters, flags."""
    from fairval.annotate.adaptive import next_pair as adaptive
    from fairval.annotate.crowd import stopping
    from fairval.annotate.material import vocabulary
    from fairval.annotate.material.gold_checks import checks_sentence
    from fairval.annotate.material.studies import load_study, prolific_link_query
    from fairval.annotate.outputs.report import settings_text
    from fairval.annotate.rating.fills import study_fill_plan
    from fairval.annotate.rating.serving_order import serving_order_sentence
    from fairval.annotate.rating.session_length import session_length
    from fairval.annotate.results.progress import active_words, judgment_words, study_progress
    from fairval.store import audit

    db = _db(ctx)
    study = load_study(db, name)
    settings = study.stored_settings()
    progress = study_progress(db, name)
    fill_plan = study_fill_plan(db, study)
    if as_json:
        click.echo(json.dumps({"study": name, "task": study.task.name, "status": study.status,
                               "settings": settings, "progress": progress,
                               "raters_needed": fill_plan.raters, "fills": fill_plan.sentence(name)}))
        return
    click.echo(f"{name} ({study.task.name}), {study.status}")
    # the words of `analyze` and the Results page (annotate/results/progress.py)
    click.echo(f"  items complete {progress['items_complete']} / {progress['n_items']}, judgments "
               f"{progress['judgments']} / {progress['judgments_needed']}, raters {progress['raters']}, "
               f"{active_words(progress)} {progress['active_raters']}")
    click.echo(f"  {judgment_words(progress['judgments'], progress['ratings'])}; a judgment is one rater's "
               "answers to one item")
    if progress["items_reserved"]:
        minutes = -(-progress["first_free_in_seconds"] // 60)
        click.echo(f"  items reserved {progress['items_reserved']} (served to a rater and not answered yet: each is "
                   f"held {study.settings.timeout_seconds / 60:g} min from serving, a tab left open too; the first "
                   f"comes free in {max(1, int(minutes))} min)")
    for group, n in progress["judgments_by_group"].items():
        click.echo(f"  judgments from rater {progress['group_attribute']} {group}: {n}")
    checks = checks_sentence(progress["gold_items"], progress["gold_rate"], progress["checks_met"])
    if checks:
        click.echo(f"  {checks}")
    for rater, flags in progress["flagged_raters"].items():
        click.echo(f"  flagged {rater}: {'; '.join(flags)}")
    click.echo(f"  link: {prolific_link_query(name)}")
    click.echo(f"  {serving_order_sentence(db, study)}")
    for line in session_length(db, study).lines(name, fill_plan.sentence(name)):
        click.echo(f"  {line}")
    guarantee = stopping.guarantee_sentence(db, study)
    if guarantee:
        click.echo(f"  {guarantee}")
    design = adaptive.design_sentence(db, study)
    if design:
        click.echo(f"  design: {design}")
    if study.recorded.stopped:
        click.echo(f"  {stopping.stop_sentence(study.recorded.stopped)}")
    for entry in audit.entries(db, name):        # the labels each import matched, kept with the study
        if entry["details"].get("labels_matched"):
            click.echo(f"  {entry['details'].get('source')}: labels matched to the answers: "
                       f"{audit.printable(vocabulary.said(entry['details']['labels_matched']))}")
    for key, value in settings_text(study, settings).items():
        if key not in ("consent_text", "human_sample", "stopped"):
            click.echo(f"  {key}: {value}")


@study.command("sample")
@click.argument("name")
@click.option("--n", "n", type=click.IntRange(min=1), help="Pairs for people to rate, drawn uniformly.")
@click.option("--by-group-pair", "by_group_pair", is_flag=True,
              help="With --n: draw by group pair (stratified PPI), each group pair's share set by its size, or "
                   "with --pilot by its size × its spread on the pilot (Neyman's allocation).")
@click.option("--active", is_flag=True,
              help="Draw where the judge is least sure, each pair with a recorded chance (needs --budget).")
@click.option("--budget", type=click.IntRange(min=1), help="With --active: the expected number of pairs people rate.")
@click.option("--escalate", is_flag=True,
              help="Trust or escalate: people rate only the pairs below the judge-confidence threshold found on "
                   "--pilot's rated pairs; the judge decides the rest alone (no PPI then: see docs/commands.md).")
@click.option("--agreement", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              help="With --escalate: the agreement with people's majority the judge must show (default 0.9).")
@click.option("--risk", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              help="With --escalate: the chance, at most, that the threshold does not give it (default 0.05).")
@click.option("--model", help="With --active or --escalate: the judge whose scores set the design (default: the "
                              "study's).")
@click.option("--pilot", metavar="STUDY",
              help="A pair study people rated and the same judge scored, its pairs from the same pool. With "
                   "--active: how much of a uniform draw to mix in is chosen from its evidence that the judge's "
                   "uncertainty predicts its error. With --by-group-pair: each group pair's spread. With "
                   "--escalate (required): the threshold is found on it.")
@click.option("--seed", type=int, help="Seed of the draw (report it); --n and --active need it.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Also write the drawn item ids here (CSV), for rating them elsewhere.")
@click.pass_context
@friendly
def study_sample(ctx, name, n, by_group_pair, active, escalate, agreement, risk, budget, model, pilot, seed, out):
    """Draw the pairs people rate from all imported pairs, uniformly (--n), by group pair (--n
    --by-group-pair), where the judge is least sure (--active --budget), or every pair below the judge's
    trusted confidence (--escalate --pilot); the rest are scored by the judge alone."""
    from fairval.annotate.outputs.files import atomic_output, output_format, spreadsheet_text
    from fairval.annotate.rating.sampling import (
        draw_active_sample,
        draw_human_sample,
        draw_stratified_sample,
        drawn_by_group_pair,
    )

    def written(ids: list[str]) -> None:        # inside the draw's transaction: a failed write records no draw
        with atomic_output(out) as path, open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([["item_id"], *([spreadsheet_text(i)] for i in ids)])

    if out:
        output_format(out, ("csv",))

    if not escalate and (agreement is not None or risk is not None):
        raise click.UsageError("--agreement and --risk go with --escalate")
    if by_group_pair and (active or escalate or n is None or budget is not None or model is not None):
        raise click.UsageError("--by-group-pair draws --n N pairs (with --seed, and --pilot STUDY for the spreads); "
                               "not with --active, --escalate, --budget or --model")
    if escalate:
        if active or n is not None or budget is not None or seed is not None or pilot is None:
            raise click.UsageError("--escalate takes --pilot STUDY (and --agreement, --risk, --model); it draws "
                                   "nothing at random, so no --n, --budget, --active or --seed")
        from fairval.annotate.judge.trust import escalate_sample

        drawn = escalate_sample(_db(ctx), name, pilot, agreement=0.9 if agreement is None else agreement,
                                risk=0.05 if risk is None else risk, model=model,
                                written=written if out else None)
        click.echo(escalation_line(drawn["sample"]))
    elif seed is None:
        raise click.UsageError("--n and --active draw at random: give --seed (and report it)")
    elif active:
        if budget is None or n is not None:
            raise click.UsageError("--active draws with --budget N (the expected number of pairs), not --n")
        from fairval.annotate.results.pilot import pilot_evidence

        db = _db(ctx)
        drawn = draw_active_sample(db, name, budget, seed, model=model, pilot=pilot_evidence(db, pilot, budget),
                                   written=written if out else None)
        keep, sample = drawn["kept"], drawn["sample"]
        click.echo(f"drew {len(keep)} pairs for raters where the judge is least sure (expected {budget}, seed "
                   f"{seed}); each pair's chance is recorded and the others are left to the judge")
        click.echo(_mix_line(sample))
    elif by_group_pair:
        from fairval.annotate.results.pilot import pilot_spreads

        db = _db(ctx)
        drawn = draw_stratified_sample(db, name, n, seed, written=written if out else None,
                                       spreads=(lambda judge: pilot_spreads(db, pilot, judge)) if pilot else None)
        click.echo(f"drew {len(drawn['kept'])} pairs for raters by group pair (seed {seed}): "
                   + drawn_by_group_pair(drawn["sample"])
                   + (f", in proportion to each group pair's size × its spread on {pilot!r}" if pilot else
                      ", in proportion to each group pair's size")
                   + "; each pair's chance is recorded and the others are left to the judge")
    else:
        if n is None or budget is not None or model is not None or pilot is not None:
            raise click.UsageError("a uniform draw takes --n N; --budget, --model and --pilot go with --active")
        keep = draw_human_sample(_db(ctx), name, n, seed, written=written if out else None)
        click.echo(f"drew {len(keep)} pairs for raters (seed {seed}); the others are left to the judge")
    if out:
        click.echo(f"wrote the drawn item ids to {out}")


def escalation_line(sample: dict) -> str:
    return (f"{sample['n']} of {sample['of']} pairs go to people, those where {sample['judge']}'s confidence is "
            f"below {sample['threshold']:.3f}; it decides the other {sample['trusted']} alone (on the "
            f"{sample['pilot']['pairs']} rated pairs of {sample['pilot']['study']!r}, its agreement with people "
            f"above the threshold is at least {sample['agreement']:.0%} with probability at least "
            f"{1 - sample['risk']:.0%})")


def _mix_line(sample: dict) -> str:
    floor = sample["floor"]
    share = f"every pair keeps at least {floor:.0%} of the uniform chance"
    pilot = sample.get("pilot")
    if pilot is None:
        return (f"{share} (the default: without --pilot there is no evidence that the judge's uncertainty "
                "predicts its error)")
    if floor >= 1:
        return (f"a uniform draw: the {pilot['pairs']} rated pairs of {pilot['study']!r} do not show the judge's "
                "uncertainty predicting its error (one-sided 90%)")
    return (f"{share}: chosen from the {pilot['pairs']} rated pairs of {pilot['study']!r}, where the judge's "
            "errors grow with its uncertainty")


def _settings_list() -> str:
    from fairval.annotate.material.setting_help import SETTING_HELP
    return "\n".join(f"  {key:<20} {meaning}" for key, meaning in SETTING_HELP.items())


@study.command("set", epilog="\b\nSettings:\n" + _settings_list() + "\n  status               open, paused or closed"
               "\n  design, budget       design=adaptive budget=N: pairs go to people one decision at a time")
@click.argument("name")
@click.argument("assignments", nargs=-1, required=True)
@click.pass_context
@friendly
def study_set(ctx, name, assignments):
    """Change settings: KEY=VALUE ... (values are JSON, or plain text), or status=open|paused|closed.

    For example: fairval study set my-study raters_per_item=5 language=ar"""
    from fairval.annotate.material.studies import configure_study
    changes = {}
    for pair in assignments:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE")
        try:
            changes[key] = json.loads(raw)
        except json.JSONDecodeError:
            changes[key] = raw
    status = changes.pop("status", None)
    design, budget = changes.pop("design", None), changes.pop("budget", None)
    if design is not None or budget is not None:
        _set_design(_db(ctx), name, design, budget, changes)
    configure_study(_db(ctx), name, status=status, **changes)
    click.echo(f"study {name!r} updated")
    if "gold_rate" in changes:
        from fairval.annotate.material.gold_checks import unused_gold_notice
        notice = unused_gold_notice(_db(ctx), name)
        if notice:
            click.echo(notice)


def _set_design(db, name, design, budget, changes):
    """design=adaptive budget=N: pairs go to people one decision at a time (annotate.adaptive.next_pair); set
    with the other changes' seed first, since the order of decisions is drawn from it."""
    from fairval.annotate.adaptive import next_pair as adaptive
    from fairval.annotate.material.studies import configure_study
    from fairval.errors import StudyError
    if design != "adaptive" or not isinstance(budget, int) or isinstance(budget, bool):
        raise StudyError("the design is set as design=adaptive budget=N (N: the pairs people are expected to rate "
                         f"in all, a whole number), not design={design!r} budget={budget!r}")
    if "seed" in changes:
        configure_study(db, name, seed=changes.pop("seed"))
    found = adaptive.start(db, name, budget)
    click.echo(f"{name}: adaptive design, about {found['budget']:,} of {found['of']:,} pairs to people, decided "
               f"one at a time from the uncertainty of judge {found['judge']!r} and the answers so far")


@study.command("watch")
@click.argument("name")
@click.option("--every", type=click.FloatRange(min=1), default=60, show_default=True, help="Seconds between checks.")
@click.option("--once", is_flag=True, help="Check once and exit (for cron).")
@click.pass_context
@friendly
def study_watch(ctx, name, every, once):
    """Check the study's stopping rule (target_ci_width, stop_when_excludes) until it stops itself; every
    Submit that completes a pair and every Results page checks it too."""
    import time

    from fairval.annotate.crowd import stopping

    db = _db(ctx)
    while True:
        stopped = stopping.check(db, name)
        if stopped:
            click.echo(f"{name} stopped itself: {stopped['reason']}" + (f"; Prolific: {stopped['prolific']}"
                                                                        if stopped.get("prolific") else ""))
            return
        if once:
            click.echo(f"{name} goes on: its stopping rule is not met (or it has none, or it is not open)")
            return
        time.sleep(every)


@study.command("links")
@click.argument("name")
@click.option("--raters", "raters_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The raters' ids, one a line.")
@click.option("--base-url", default="http://localhost:8501", show_default=True, help="Where raters reach the app.")
@click.pass_context
@friendly
def study_links(ctx, name, raters_file, base_url):
    """One signed link per in-house rater (the study's `signed_links=true` then refuses unsigned ones)."""
    from pathlib import Path

    from fairval.annotate.material.studies import load_study
    from fairval.annotate.serving.rater_links import link
    from fairval.store import audit

    db = _db(ctx)
    study_id = load_study(db, name).study_id
    ids = [line.strip() for line in Path(raters_file).read_text(encoding="utf-8").splitlines() if line.strip()]
    if not ids:
        raise click.BadParameter(f"{raters_file} has no rater ids (one a line)", param_hint="--raters")
    for rater_id in ids:
        click.echo(link(db, base_url, study_id, rater_id))
    audit.record(db, "study.links", study_id, raters=len(ids))

