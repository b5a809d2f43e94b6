"""Commands that talk to a language model over the OpenAI protocol: the judge and generation."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from fairval.annotate.cli.common import _db, friendly
from fairval.annotate.outputs import formats


@click.command("run")
@click.argument("study_name")
@click.option("--model", required=True, help="The judge model's name on the server.")
@click.option("--base-url", envvar="OPENAI_BASE_URL", help="An OpenAI-compatible server (default: OpenAI).")
@click.option("--samples", type=int, default=10, show_default=True,
              help="Samples per order when the server gives no log-probabilities.")
@click.option("--concurrency", type=int, default=4, show_default=True)
@click.option("--no-logprobs", is_flag=True, help="Sample instead of reading log-probabilities.")
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds a call may take before it counts as failed (and is retried with back-off).")
@click.option("--swap-groups", is_flag=True,
              help="Ask the judge again with the two groups' labels exchanged (kept apart from its scores; no people) "
                   "and report how often its verdict follows the labels rather than the responses.")
@click.option("--dry-run", is_flag=True, help="Only print the estimate of calls.")
@click.option("--yes", is_flag=True, help="Do not ask before spending.")
@click.pass_context
@friendly
def lmra_run(ctx, study_name, model, base_url, samples, concurrency, no_logprobs, timeout, swap_groups, dry_run, yes):
    """Rate a pair study's pairs with an LLM judge, both orders, resuming where a run stopped."""
    from fairval.annotate.judge.run import JudgeConfig, estimate, run_judge
    from fairval.errors import JudgeError

    config = JudgeConfig(model=model, base_url=base_url, samples=samples, concurrency=concurrency,
                         logprobs=not no_logprobs, timeout=timeout, swap_groups=swap_groups)
    db = _db(ctx)
    est = estimate(db, study_name, config)
    click.echo(f"{est.pairs} pairs; {est.pending_orders} orders still to rate: up to {est.requests} "
               f"requests, about {est.prompt_tokens} prompt tokens (characters / 4)")
    if dry_run:
        return
    if est.pending_orders and not yes and sys.stdin.isatty():
        click.confirm("Run the judge?", abort=True)
    with click.progressbar(length=est.pending_orders, label="judging", file=sys.stderr) as bar:
        try:
            summary = run_judge(db, study_name, config, on_progress=lambda done, total: bar.update(1))
        except JudgeError as e:
            raise click.ClickException(str(e)) from None
    run = summary["this_run"]
    click.echo(f"scored {summary['scored']} of {summary['pairs']} pairs with {model}; "
               f"{summary['requests']} requests, {summary['prompt_tokens']} prompt tokens in all; this run: "
               f"{run['answered']} requests answered and kept, {run['failed']} failed and retried"
               + (f" ({run['timed_out']} with no whole answer within {timeout:g} s)" if run["timed_out"] else "")
               + f", {run['left']} order(s) left for a resume")
    why = {"no_letter": "an order answered without A, B or C (saved, not asked again)",
           "orders_disagree": "the two orders disagree completely", "not_asked": "an order not asked yet"}
    for reason, n in summary["unscored"].items():
        if n:
            click.echo(f"  {formats.count(n, 'pair')} without a score: {why[reason]}")
    if swap_groups:
        click.echo(_label_swap_line(db, study_name, model))


def _label_swap_line(db, study_name: str, model: str) -> str:
    """How often the judge's verdict followed the group labels rather than the responses (analysis.judge_fairness)."""
    from fairval.analysis.judge_fairness import label_swap
    from fairval.store import lmra as lmra_store

    def scores(frame):
        return frame[frame["model"] == model].set_index("item_id")["score"]
    swap = label_swap(scores(lmra_store.scores_frame(db, study_name)), scores(lmra_store.swapped_frame(db, study_name)))
    if not swap.n or swap.follows_labels is None or swap.follows_responses is None:
        return (f"with the group labels swapped: nothing to compare yet; run `fairval lmra run {study_name} --model "
                f"{model}` without --swap-groups too")
    return (f"with the group labels swapped, {model}'s verdict followed the labels (kept its letter) on "
            f"{round(swap.follows_labels * swap.n)} of {swap.n} pairs ({formats.ratio(swap.follows_labels)} "
            f"{formats.interval(swap.follows_labels_ci)}) and the responses (changed sign, or stayed at none) on "
            f"{round(swap.follows_responses * swap.n)} ({formats.ratio(swap.follows_responses)})")


@click.group()
def generate():
    """Generate material to import: filled templates, response pairs."""


def _list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _write_jsonl(path: str, rows: list[dict]) -> None:
    from fairval.annotate.outputs.files import write_text

    write_text(path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))


@generate.command("fill")
@click.argument("templates", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="JSON Lines in discrim-eval's layout.")
@click.option("--ages", default="20,30,40,50,60,70,80,90,100", show_default=True)
@click.option("--genders", default="male,female,non-binary", show_default=True)
@click.option("--races", default="white,Black,Asian,Hispanic,Native American", show_default=True)
@click.option("--names", "names_file", type=click.Path(exists=True, dir_okay=False),
              help="Names (name, race, gender or name, name_group per row; or whats-in-a-name's "
                   "templates_and_names.json) for an implicit fill of [NAME].")
@click.option("--seed", type=int, default=0, show_default=True)
@friendly
def generate_fill(templates, out, ages, genders, races, names_file, seed):
    """Fill TEMPLATES (template, decision_question_id) with demographics, or with names.

    TEMPLATES may also be whats-in-a-name's templates_and_names.json: each template's {name} slot is filled
    with every name of its name_groups, in the layout of its just_prompts.csv."""
    from fairval.annotate.material.generate import fill_templates
    from fairval.annotate.material.layouts import fill_name_slots, is_names_and_templates, names_for_fill
    from fairval.annotate.material.records import read_records, require_text
    from fairval.annotate.material.vocabulary import said
    from fairval.errors import GenerationError

    doc = _json_document(templates)
    if is_names_and_templates(doc):
        if names_file:
            raise click.UsageError(f"{templates} carries its own name_groups; leave out --names")
        try:
            filled = fill_name_slots(doc)
        except GenerationError as e:
            raise click.ClickException(f"{templates}: {e}") from None
        _write_jsonl(out, filled)
        click.echo(f"wrote {len(filled)} prompts ({len(doc['name_groups'])} name groups) to {out}")
        return

    records = read_records(templates)
    for record in records:      # name the file and the line of a row without a template's text
        require_text(templates, record, "template")
    rows = [dict(r.data, decision_question_id=r.data.get("decision_question_id", r.data.get("id")))
            for r in records]
    names, matched, left_out = None, {}, 0
    if names_file:
        names, left_out = names_for_fill(names_file, _list(races), _list(genders), matched)
    try:
        filled = fill_templates(rows, ages=[int(a) for a in _list(ages)], genders=_list(genders),
                                races=_list(races), names=names, seed=seed)
    except GenerationError as e:
        raise click.ClickException(f"{Path(templates).name}: {e}") from None
    _write_jsonl(out, filled)
    click.echo(f"wrote {len(filled)} filled questions to {out}")
    if matched:
        click.echo(f"names' groups matched to --races/--genders: {said(matched)}")
    if left_out:
        click.echo(f"left out {formats.count(left_out, 'name')} whose group is none of the races and genders asked")


def _json_document(path: str):
    """A .json file's one document (None for JSON Lines, CSV, or a file that is not one JSON document)."""
    if not path.lower().endswith(".json"):
        return None
    try:
        return json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        return None


@generate.command("pairs")
@click.argument("prompts", type=click.Path(exists=True, dir_okay=False))
@click.option("--names", "names_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Names file: name and the attribute given by --group-by per row.")
@click.option("--group-by", default="gender", show_default=True)
@click.option("--group-a", required=True, help="Value of --group-by for group A, e.g. female.")
@click.option("--group-b", required=True, help="Value for group B, e.g. male.")
@click.option("--label-a", help="How group A is named to raters and the judge (default: its value).")
@click.option("--label-b", help="How group B is named (default: its value).")
@click.option("--model", required=True)
@click.option("--base-url", envvar="OPENAI_BASE_URL")
@click.option("--concurrency", type=int, default=4, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", required=True, type=click.Path(dir_okay=False))
@friendly
def generate_pairs_command(prompts, names_file, group_by, group_a, group_b, label_a, label_b, model,
                           base_url, concurrency, seed, out):
    """Ask a chatbot each prompt (rows with `prompt`) as a user of group A and of group B."""
    from fairval.annotate.material.generate import generate_pairs
    from fairval.annotate.material.records import read_records
    from fairval.errors import GenerationError

    texts = [r.data.get("prompt") for r in read_records(prompts)]
    if not all(isinstance(t, str) and t.strip() for t in texts):
        raise click.ClickException(f"{prompts}: every row needs a non-empty 'prompt'")
    by_group: dict[str, list[str]] = {}
    for r in read_records(names_file):
        by_group.setdefault(str(r.data.get(group_by)), []).append(r.data.get("name"))
    labels = {group_a: label_a or group_a, group_b: label_b or group_b}
    names = {labels[g]: by_group.get(g, []) for g in (group_a, group_b)}
    with click.progressbar(length=len(texts), label="generating", file=sys.stderr) as bar:
        try:
            rows = generate_pairs(texts, names, group_a=labels[group_a], group_b=labels[group_b], model=model,
                                  base_url=base_url, concurrency=concurrency, seed=seed,
                                  on_progress=lambda done, total: bar.update(1))
        except GenerationError as e:
            raise click.ClickException(str(e)) from None
    _write_jsonl(out, rows)
    click.echo(f"wrote {len(rows)} pairs to {out}")
