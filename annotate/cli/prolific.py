"""`fairval prolific …`: pay, review, approve and sync a study run on Prolific."""
from __future__ import annotations

import click

from fairval.annotate.cli.common import _db, friendly


@click.group()
def prolific():
    """Run the Prolific side of a study: bonuses, review, approvals, returned participants."""


def _client():
    from fairval.annotate.crowd.prolific_api import ProlificClient
    return ProlificClient()


@prolific.command("bonuses")
@click.argument("study_name")
@click.option("--out", type=click.Path(dir_okay=False), help="Prolific's bulk-bonus file (.csv): id,amount per line.")
@click.option("--pay", "prolific_study", help="Pay through the API instead, for this Prolific study id "
              "(PROLIFIC_TOKEN from the environment).")
@click.pass_context
@friendly
def bonuses(ctx, study_name, out, prolific_study):
    """Bonuses for judgments not yet paid; a second run pays only the new ones."""
    from fairval.annotate.crowd.prolific import pay_bonuses, write_bonuses

    if bool(out) == bool(prolific_study):
        raise click.ClickException("give either --out FILE (to upload yourself) or --pay PROLIFIC_STUDY_ID")
    if out:
        n, total = write_bonuses(_db(ctx), study_name, out)
        click.echo(f"wrote {out}: {n} participant(s), {total:.2f} in bonuses (recorded as paid)")
        return
    with _client() as client:
        n, total = pay_bonuses(_db(ctx), study_name, client, prolific_study)
    click.echo(f"paid {n} participant(s) {total:.2f} in bonuses through Prolific")


@prolific.command("settle")
@click.argument("study_name")
@click.argument("batch", required=False)
@click.option("--paid", "outcome", flag_value="paid", help="Prolific shows these bonuses paid: keep them as paid.")
@click.option("--not-paid", "outcome", flag_value="not-paid",
              help="Prolific shows them not paid: free the batch, so the next run pays those judgments.")
@click.pass_context
@friendly
def settle_command(ctx, study_name, batch, outcome):
    """Bonus batches whose outcome is unknown (the answer to the pay call was lost): list them, or settle one
    after checking on Prolific."""
    from fairval.annotate.crowd.prolific import settle, unsettled

    db = _db(ctx)
    if batch is None or outcome is None:
        batches = unsettled(db, study_name)
        if not batches:
            click.echo(f"every bonus batch of {study_name} is settled")
            return
        for b in batches:
            click.echo(f"{b['batch']}: {b['state']}, Prolific study {b['platform_study_id']}, bulk bonus "
                       f"{b['bulk_id'] or '(not set up)'}, {b['total']:.2f} to "
                       + ", ".join(f"{r} {a:.2f}" for r, a in b["participants"]))
        click.echo(f"check each on Prolific, then: fairval prolific settle {study_name} BATCH --paid|--not-paid")
        return
    b = settle(db, study_name, batch, paid=outcome == "paid")
    click.echo(f"{batch} settled as {outcome}" + ("" if outcome == "paid" else
               f": {b['total']:.2f} to {len(b['participants'])} participant(s) will be paid by the next run"))


@prolific.command("review")
@click.argument("study_name")
@click.pass_context
@friendly
def review_command(ctx, study_name):
    """Submissions to approve, and those to look at again or that may be rejected, with the reason."""
    from fairval.annotate.crowd.prolific import review

    table = review(_db(ctx), study_name)
    if table.empty:
        click.echo("no submissions with answers yet")
        return
    click.echo(table.to_markdown(index=False, disable_numparse=True))
    click.echo("fairval rejects nothing: approve with `fairval prolific approve`, reject on Prolific.")


@prolific.command("approve")
@click.argument("study_name")
@click.argument("prolific_study")
@click.option("--participant", "participants", multiple=True, help="A participant to approve (repeat).")
@click.option("--suggested", is_flag=True, help="Every participant `review` suggests approving.")
@click.pass_context
@friendly
def approve_command(ctx, study_name, prolific_study, participants, suggested):
    """Approve the chosen submissions through the API."""
    from fairval.annotate.crowd.prolific import approve, review

    chosen = list(participants)
    if suggested:
        table = review(_db(ctx), study_name)
        chosen += list(table.loc[table["suggestion"] == "approve", "rater_id"])
    if not chosen:
        raise click.ClickException("name participants with --participant, or use --suggested")
    with _client() as client:
        done = approve(client, prolific_study, chosen, db=_db(ctx), study_id=study_name)
    click.echo(f"approved {len(done)} submission(s)" + (f": {', '.join(done)}" if done else
                                                         " (none was awaiting review)"))


@prolific.command("sync")
@click.argument("study_name")
@click.argument("prolific_study")
@click.pass_context
@friendly
def sync_command(ctx, study_name, prolific_study):
    """Fetch submission statuses; RETURNED and TIMED-OUT participants give their slots back at once."""
    from fairval.annotate.crowd.prolific import sync_submissions

    with _client() as client:
        result = sync_submissions(_db(ctx), study_name, client, prolific_study)
    click.echo(", ".join(f"{status} {n}" for status, n in sorted(result["statuses"].items()))
               + f"; released {result['released_slots']} open slot(s)")


@prolific.command("hooks")
@click.argument("study_name")
@click.argument("prolific_study")
@click.option("--url", required=True, help="This server's hook address: https://HOST/fairval/prolific-hook.")
@click.option("--workspace", required=True, help="The Prolific workspace the study is in (its id).")
@click.pass_context
@friendly
def hooks_command(ctx, study_name, prolific_study, url, workspace):
    """Have Prolific push submission status changes to this server, so a returned or timed-out participant's
    slots go back at once (no `prolific sync` from cron)."""
    from fairval.annotate.crowd.hooks import subscribe
    from fairval.annotate.material.studies import load_study

    db = _db(ctx)
    load_study(db, study_name)
    with _client() as client:                   # an http:// address is a ProlificError, one line by @friendly
        subscription = subscribe(db, client, workspace, url, study_id=study_name)
    click.echo(f"Prolific will push submission status changes of workspace {workspace} (study {prolific_study}) to "
               f"{url} (subscription {subscription}); events are checked against the secret kept in the database")
