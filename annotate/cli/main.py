"""`fairval`: the command line, a thin shell over the library. Library errors become ClickExceptions."""
from __future__ import annotations

import json
import os
from pathlib import Path

import click

from fairval.annotate.cli.common import _db, friendly
from fairval.annotate.cli.judge import calibrate, compare, judge_group, lmra_apply_map, plan
from fairval.annotate.cli.llm import generate, lmra_run
from fairval.annotate.cli.prolific import prolific
from fairval.annotate.cli.researcher import researcher
from fairval.annotate.cli.study import study
from fairval.annotate.outputs import formats
from fairval.annotate.results import BOOTSTRAP_DRAWS

# Each command imports the rooms it uses when it runs, so `fairval --help` loads no pandas or scipy
# (tests/test_layers.py checks it); only light modules are imported here.


MODEL_HELP = ("The judge whose scores the main numbers use (default: the study's main_judge setting, or the "
              "only judge, or the first by name).")

@click.group()
@click.option("--db", "db_path", envvar="FAIRVAL_DB", default="fairval.db", show_default=True,
              type=click.Path(dir_okay=False), help="SQLite file or postgresql:// URL (or set FAIRVAL_DB).")
@click.version_option(package_name="fairval")
@click.pass_context
def cli(ctx: click.Context, db_path: str) -> None:
    """fairval: human validation of LLM fairness evaluations."""
    ctx.obj = {"db_path": db_path,
               "db_given": ctx.get_parameter_source("db_path") != click.core.ParameterSource.DEFAULT}
    from fairval.store import audit
    audit.acting_as(_os_user(), "cli")          # what this command changes is recorded as done by this user


def _os_user() -> str:
    import getpass
    try:
        return getpass.getuser()
    except Exception:
        return f"uid {os.getuid()}"


@cli.command()
@click.pass_context
@friendly
def init(ctx):
    """Create the database (or bring its schema up to date)."""
    _db(ctx, create=True)
    click.echo(f"database ready: {ctx.obj['db_path']}")


@cli.group()
def items():
    """Import items."""


@cli.group()
def ratings():
    """Import ratings collected elsewhere."""


@cli.group()
def lmra():
    """LLM judge (LMRA) scores."""


MAP_HELP = ("LABEL=ANSWER: read LABEL as the question's answer ANSWER (repeatable); a combined group takes one "
            "answer per question joined by +, e.g. black_women=Black+female. See docs/formats.md.")


def _import_command(group: click.Group, importer: str, noun: tuple[str, str], help_text: str,
                    labels: bool = False) -> None:
    """`fairval <group> import STUDY FILE`: the same shell around each importer, all or nothing."""
    @group.command("import", help=help_text)
    @click.argument("study_name")
    @click.argument("file", type=click.Path(exists=True, dir_okay=False))
    @click.pass_context
    @friendly
    def command(ctx, study_name, file, label_map=()):
        from fairval.annotate.material import importers, vocabulary
        options = {"label_map": vocabulary.parse_map(label_map)} if labels else {}
        result = getattr(importers, importer)(_db(ctx), study_name, file, **options)
        click.echo(f"imported {result.written} {noun[result.written != 1]} into {study_name!r}"
                   + (f" ({result.skipped} identical to stored ones skipped)" if result.skipped else ""))
        for line in (result.kinds_line(), result.matched and result.matched_line(), *result.notices):
            if line:                            # what the items are, labels matched, then each notice
                click.echo(line)
    if labels:
        click.option("--map", "label_map", multiple=True, metavar="LABEL=ANSWER", help=MAP_HELP)(command)


_import_command(items, "import_items", ("item", "items"),
                "Import items from a JSON Lines or CSV FILE into STUDY_NAME, all or nothing.", labels=True)
_import_command(ratings, "import_ratings", ("rating", "ratings"),
                "Import ratings (item_id, rater_id, question, value[, flipped, seconds, rater_*]).", labels=True)
_import_command(lmra, "import_lmra", ("LMRA score", "LMRA scores"),
                "Import LMRA scores: item_id, model and score, or p_a,p_b,p_c,q_a,q_b,q_c.")


@cli.command()
@click.argument("study_name")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--exclude-flagged", is_flag=True, help="Leave out raters flagged for quality.")
@click.option("--bootstrap", "n_boot", type=click.IntRange(min=0), default=BOOTSTRAP_DRAWS, show_default=True,
              help="Bootstrap resamples for every interval (0: numbers without intervals).")
@click.option("--model", help=MODEL_HELP)
@click.pass_context
@friendly
def analyze(ctx, study_name, as_json, exclude_flagged, n_boot, model):
    """Compute a study's numbers."""
    from fairval.annotate.outputs.judge_table import with_ci
    from fairval.annotate.results import numbers as results
    from fairval.annotate.results.numbers import rate_of
    from fairval.annotate.results.progress import counts_line

    data = results.load_study_data(_db(ctx), study_name, exclude_flagged=exclude_flagged)
    result = results.study_numbers(_db(ctx), study_name, exclude_flagged=exclude_flagged, n_boot=n_boot,
                                   model=model, data=data)
    if as_json:
        click.echo(formats.json_text(result.to_dict()))         # the JSON edge: the one plain form
        return
    # the words of `study show` and the Results page: a judgment is a rater's answers to one item
    click.echo(f"{result.study} ({result.task}): {counts_line(data, result.n_items, result.n_raters)}")
    for qid, q in result.questions.items():
        line = f"  {qid}: n={q.n} alpha({q.level})={formats.ratio(q.alpha)}"
        if q.alpha_ci:
            line += f" {formats.interval(q.alpha_ci)}"
        if q.scale in ("likert", "numeric"):         # the questions with a mean (a numeric one has no 4–5 share)
            line += f" mean={formats.mean(q.mean)} share 4-5={formats.ratio(q.share_4_or_5)}"
        click.echo(line + (f" ({q.reason})" if q.reason else ""))
    for attr, found in (result.names.by_question if result.names is not None else {}).items():
        click.echo(f"  {attr} accuracy: " + (", ".join(
            f"{g} {formats.ratio(a)} (n={found.n[g]})" for g, a in found.accuracy.items()) or "– (no ratings)"))
        for why in found.unscored.values():
            click.echo(f"    {why}")
    rate = result.rate
    if rate is not None:                # a pair study's headline number (H), as the Calibration page says it
        click.echo(f"  {rate_of(result)[1]}: humans {with_ci(rate.human, rate.human_ci)} over "
                   f"{formats.count(rate.n_items_human, 'pair')}" + (
                       "" if result.lmra is None else
                       f"; LMRA {with_ci(rate.lmra, rate.lmra_ci)} over {formats.count(rate.n_items_lmra, 'pair')}"))
    judge = result.lmra
    if judge is not None:
        click.echo(f"  LMRA {judge.model}: r={formats.ratio(judge.pearson_r)} "
                   f"{formats.interval(judge.pearson_ci)} sign agreement="
                   f"{formats.ratio(judge.sign_agreement)} n={judge.n_items}")


@cli.command()
@click.argument("study_name")
@click.option("--out", required=True, type=click.Path(),
              help="The validated set: .jsonl or .csv; numbers go to OUT.numbers.json beside it. "
                   "With --format hf, a new folder.")
@click.option("--format", "kind", type=click.Choice(["validated", "hf"]), default="validated", show_default=True,
              help="hf: a Hugging Face dataset folder (ratings, items, dataset card).")
@click.option("--quality-min", type=float, default=4.0, show_default=True)
@click.option("--yes-min", type=float, default=4.0, show_default=True)
@click.option("--min-ratings", type=int, default=3, show_default=True,
              help="Ratings a template needs on each question to be judged.")
@click.option("--exclude-flagged", is_flag=True)
@click.option("--model", help=MODEL_HELP)
@click.pass_context
@friendly
def export(ctx, study_name, out, kind, quality_min, yes_min, min_ratings, exclude_flagged, model):
    """Export what passed: template rows as imported (template studies), scored pairs (pair studies);
    or, with --format hf, the study as a dataset folder for the Hugging Face Hub."""
    from fairval.annotate.outputs.export import Thresholds, export_validated

    if kind == "hf":
        from fairval.annotate.outputs.hf_export import export_hf
        click.echo(f"wrote the dataset folder {export_hf(_db(ctx), study_name, out, exclude_flagged=exclude_flagged)}")
        return
    sidecar = export_validated(_db(ctx), study_name, out, exclude_flagged=exclude_flagged,
                               thresholds=Thresholds(quality_min, yes_min, min_ratings), model=model)
    extra = (f" ({len(sidecar['templates_passed'])} of {sidecar['n_templates']} templates passed)"
             if "templates_passed" in sidecar else "")
    click.echo(f"wrote {sidecar['n_rows']} rows to {out}{extra}; numbers in {out}.numbers.json")


@cli.command("export-ratings")
@click.argument("study_name")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help=".csv or .parquet")
@click.option("--exclude-flagged", is_flag=True)
@click.option("--soft-labels", is_flag=True,
              help="Instead: each answer's share per item and rater group (all, and each balance group).")
@click.pass_context
@friendly
def export_ratings_command(ctx, study_name, out, exclude_flagged, soft_labels):
    """Every rating, one row each, with rater attributes, order shown, canonical value and seconds; or, with
    --soft-labels, one row per item, question and rater group with n_raters and a share_<question>_<answer>
    column for each answer of each question (chosen or not; empty in other questions' rows)."""
    from fairval.annotate.outputs.export import export_ratings, export_soft_labels

    if soft_labels:
        n = export_soft_labels(_db(ctx), study_name, out, exclude_flagged=exclude_flagged)
        click.echo(f"wrote {n} soft-label rows to {out}")
        return
    n = export_ratings(_db(ctx), study_name, out, exclude_flagged=exclude_flagged)
    click.echo(f"wrote {n} ratings to {out}")


@cli.command()
@click.argument("study_name")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help=".html or .md (with --methods: any name)")
@click.option("--exclude-flagged", is_flag=True)
@click.option("--model", help=MODEL_HELP)
@click.option("--methods", is_flag=True, help="Write the methods paragraph and its BibTeX instead of the report.")
@click.option("--format", "kind", type=click.Choice(["md", "tex"]), default="md", show_default=True,
              help="With --methods: Markdown or LaTeX (\\citep{} citations).")
@click.pass_context
@friendly
def report(ctx, study_name, out, exclude_flagged, model, methods, kind):
    """Write the study report: self-contained HTML with charts, or Markdown; or, with --methods, the methods
    paragraph for the paper (--format md or tex) and its BibTeX beside it (OUT with .bib)."""
    from fairval.annotate.outputs.report import write_report

    if methods:
        from fairval.annotate.outputs.methods import write_methods

        text, bib = write_methods(_db(ctx), study_name, out, kind=kind, exclude_flagged=exclude_flagged, model=model)
        click.echo(f"wrote {text} and {bib}")
        return

    click.echo(f"wrote {write_report(_db(ctx), study_name, out, exclude_flagged=exclude_flagged, model=model)}")


@cli.command()
@click.option("--port", type=click.IntRange(1, 65535), help="Port (default 8501).")
@click.option("--address", help="Address to listen on, e.g. 127.0.0.1 (default: all; then a researcher password "
                                "other than the demo's must be set).")
@click.option("--workers", type=click.IntRange(1, 64),
              help="Streamlit processes behind one address (each browser stays with one); default: one per core "
                   "when HAProxy is installed, else 1.")
@click.option("--most-active", type=click.IntRange(1), metavar="N",
              help="Participants active at once on all workers; past it, or while the workers are saturated, "
                   "newcomers wait in line in arrival order (default: 300 per core).")
@click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False),
              help="Serve HTTPS with this certificate (PEM, with its chain), at the HAProxy front.")
@click.option("--tls-key", type=click.Path(exists=True, dir_okay=False), help="The certificate's private key (PEM).")
@click.option("--http-port", type=click.IntRange(1, 65535),
              help="With --tls-cert: also listen here for plain HTTP and redirect it to HTTPS.")
@click.pass_context
@friendly
def serve(ctx, port, address, workers, most_active, tls_cert, tls_key, http_port):
    """Run the app (raters' page and researcher pages) on this database; SIGTERM stops it all."""
    from fairval.annotate.serving.server import default_workers, run

    if bool(tls_cert) != bool(tls_key):
        raise click.UsageError("HTTPS needs both --tls-cert and --tls-key")
    if http_port and not tls_cert:
        raise click.UsageError("--http-port redirects to HTTPS: give --tls-cert and --tls-key too")
    _db(ctx, create=True)
    raise SystemExit(run(ctx.obj["db_path"], port=port, address=address, workers=workers or default_workers(),
                         extra_env={"FAIRVAL_MOST_ACTIVE": str(most_active)} if most_active else None,
                         tls=(tls_cert, tls_key) if tls_cert else None, http_port=http_port))


@cli.command("audit")
@click.argument("study_name", required=False)
@click.option("--since", help="Only what was done from this moment on (ISO date or time, e.g. 2026-11-01).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@friendly
def audit_command(ctx, study_name, since, as_json):
    """Who did what, when: sign-ins, study changes, imports, exports, payments (append-only)."""
    from datetime import UTC, datetime

    from fairval.store import audit

    start = None
    if since:
        try:
            moment = datetime.fromisoformat(since)
        except ValueError:
            raise click.BadParameter(f"{since!r} is not an ISO date or time (e.g. 2026-11-01 or 2026-11-01T09:30)",
                                     param_hint="--since") from None
        start = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
    rows = audit.entries(_db(ctx), study_name, start)
    if as_json:
        click.echo(json.dumps(rows))
        return
    for r in rows:
        when = datetime.fromtimestamp(r["at"], UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        # every value escaped: an actor or detail typed on a sign-in form prints as one line, no terminal escape
        shown = audit.printable
        details = ", ".join(f"{shown(k)}={shown(v)}" for k, v in r["details"].items() if v is not None)
        click.echo(f"{when}  {shown(r['actor'])} ({shown(r['via'])})  {shown(r['action'])}"
                   + (f"  {shown(r['study_id'])}" if r["study_id"] else "") + (f"  {details}" if details else ""))
    if not rows:
        click.echo("nothing recorded" + (f" for {study_name!r}" if study_name else "") + (f" since {since}" if since else ""))


@cli.command()
@click.argument("destination", type=click.Path(dir_okay=False))
@click.pass_context
@friendly
def backup(ctx, destination):
    """A consistent copy of the database while the study runs (SQLite; PostgreSQL: pg_dump)."""
    from fairval.store.backup import backup as copy_database

    made = copy_database(_db(ctx), destination)
    click.echo(f"backed up {ctx.obj['db_path']} to {destination} ({made['bytes'] / 2**20:.1f} MiB, {made['ratings']:,} "
               f"ratings, integrity checked); to restore, stop fairval and copy it over the database file, or "
               f"open it as it is: fairval --db {destination} …")


_SERVING = "FAIRVAL_DEMO_SERVING"      # set for the child that makes the studies of a demo about to be served
# The demo's own file: its raters, ratings and public password stay out of fairval.db. Here, not in
# material/demo.py, so the parent that supervises the server never imports the importers (pandas, scipy).
DEMO_DB = "fairval-demo.db"


@cli.command()
@click.option("--port", type=int)
@click.option("--address", default="127.0.0.1", show_default=True,
              help="Address to listen on: this machine only, unless you give another (the demo's password is public).")
@click.option("--no-serve", is_flag=True, help="Only create the demo studies.")
@click.pass_context
@friendly
def demo(ctx, port, address, no_serve):
    """Create the demo studies (once) in fairval-demo.db and run the app on them. With --db (or FAIRVAL_DB),
    in that database instead, which must hold no studies but the demo's (its password "demo" is public)."""
    if not ctx.obj["db_given"]:
        ctx.obj["db_path"] = DEMO_DB
    password = os.environ.get("FAIRVAL_RESEARCHER_PASSWORD", "demo")
    if not no_serve:
        from fairval.annotate.serving.server import port_taken, run

        # said before anything is printed or made: Streamlit would say it only after the whole banner
        if port_taken(address, port or 8501):
            taken = port or 8501
            raise click.ClickException(
                f"port {taken} is already in use on {address} (a fairval started before? it is at "
                f"http://localhost:{taken}/): stop it, or start this one on another port, e.g. PORT={taken + 1} "
                f"make app (fairval demo --port {taken + 1})")
        # The studies are made by a child process, so the parent that then supervises the server never
        # loads pandas or scipy (the importers need them): it stays a small process beside Streamlit.
        import subprocess
        import sys

        made = subprocess.run([sys.executable, "-c", "import sys; from fairval.annotate.cli.main import main; "
                               f"sys.argv[0] = {sys.argv[0]!r}; main()",
                               "--db", ctx.obj["db_path"], "demo", "--no-serve"], env={**os.environ, _SERVING: "1"})
        if made.returncode:
            raise SystemExit(made.returncode)
        click.echo(f"rater link:      http://localhost:{port or 8501}/?study=demo-templates&rater=you")
        click.echo(f"researcher page: http://localhost:{port or 8501}/Results  (password: {password})")
        raise SystemExit(run(ctx.obj["db_path"], port=port, address=address, demo=True,
                             extra_env={"FAIRVAL_RESEARCHER_PASSWORD": password}))
    from fairval.annotate.material.demo import DEMO_STUDIES, ensure_demo
    from fairval.annotate.material.studies import list_study_names

    db = _db(ctx, create=True)
    others = sorted(set(list_study_names(db)) - set(DEMO_STUDIES))
    if others:
        raise click.ClickException(
            f"{ctx.obj['db_path']} holds studies other than the demo's ({', '.join(others)}): the demo adds raters, "
            f"ratings and a public password to the database it is given, so give it its own file (without --db it "
            f"uses {DEMO_DB})")
    created = ensure_demo(db)
    click.echo(("created demo studies: " + ", ".join(created)) if created else "demo studies exist")
    click.echo(f"numbers:         {_this_command()} --db {ctx.obj['db_path']} analyze demo-templates --json")
    if not os.environ.get(_SERVING):          # run by hand: nothing is served, so no link is given
        click.echo(f"to rate them:    {_this_command()} --db {ctx.obj['db_path']} demo  (serves the app; --port "
                   "to choose its port)")


lmra.add_command(lmra_run)
lmra.add_command(lmra_apply_map)
cli.add_command(study)
cli.add_command(calibrate)
cli.add_command(compare)
cli.add_command(plan)
cli.add_command(prolific)
cli.add_command(generate)
cli.add_command(researcher)
cli.add_command(judge_group)


def _this_command() -> str:
    """How to run fairval again from this shell: the path it was started by (`.venv/bin/fairval` after
    `make app`, which a fresh shell without the venv activated can run), else plain `fairval`."""
    import shlex
    import sys

    started = Path(sys.argv[0])
    if started.name != "fairval" or not started.is_file():
        return "fairval"
    relative = os.path.relpath(started)
    return shlex.quote(str(started) if relative.startswith("..") else relative)


def main() -> None:
    cli(prog_name="fairval")
