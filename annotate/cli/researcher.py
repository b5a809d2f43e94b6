"""`fairval researcher …`: the lab's named researchers and their roles (owner, editor, viewer)."""
from __future__ import annotations

from pathlib import Path

import click

from fairval.annotate.cli.common import _db, friendly

ROLE = click.Choice(["owner", "editor", "viewer"])


@click.group()
def researcher():
    """Named researchers with roles; once one exists, the pages ask for a name and password."""


def _password(password_file: str | None) -> str:
    if password_file:
        text = Path(password_file).read_text(encoding="utf-8").strip()
    else:
        text = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    if len(text) < 10:
        raise click.ClickException("a researcher's password needs at least 10 characters")
    return text


@researcher.command("add")
@click.argument("name")
@click.option("--role", type=ROLE, required=True)
@click.option("--password-file", type=click.Path(exists=True, dir_okay=False),
              help="Read the password from this file (its first line) instead of asking.")
@click.pass_context
@friendly
def add(ctx, name, role, password_file):
    """Add a researcher (owners do everything, editors create, configure, import and export, viewers read)."""
    from fairval.annotate.serving.sign_in import hash_password
    from fairval.store import audit, researchers

    name = name.strip()
    if not name or len(name) > 64 or any(not c.isprintable() for c in name):
        raise click.ClickException("a researcher's name is 1-64 printable characters")
    db = _db(ctx, create=True)
    researchers.add(db, name, role, hash_password(_password(password_file)))
    audit.record(db, "researcher.add", None, name=name, role=role)
    click.echo(f"added {name!r} as {role}; the pages now ask for a name and password")


@researcher.command("list")
@click.pass_context
@friendly
def list_(ctx):
    """The researchers and their roles."""
    from fairval.store import researchers
    rows = researchers.every(_db(ctx))
    for r in rows:
        click.echo(f"{r['name']}\t{r['role']}")
    if not rows:
        click.echo("no named researchers: the pages take the one password in FAIRVAL_RESEARCHER_PASSWORD")


@researcher.command("set")
@click.argument("name")
@click.option("--role", type=ROLE)
@click.option("--password-file", type=click.Path(exists=True, dir_okay=False), help="A new password, from this file.")
@click.option("--new-password", is_flag=True, help="Ask for a new password.")
@click.pass_context
@friendly
def set_(ctx, name, role, password_file, new_password):
    """Change a researcher's role or password (a new password ends their sign-ins)."""
    from fairval.annotate.serving.sign_in import hash_password
    from fairval.store import audit, researchers

    if role is None and not (password_file or new_password):
        raise click.UsageError("give --role, --password-file or --new-password")
    hashed = hash_password(_password(password_file)) if (password_file or new_password) else None
    db = _db(ctx)
    researchers.change(db, name, role=role, password_hash=hashed)
    audit.record(db, "researcher.set", None, name=name, role=role, password_changed=hashed is not None)
    click.echo(f"changed {name!r}" + (f": now {role}" if role else "") + ("; new password" if hashed else ""))


@researcher.command("remove")
@click.argument("name")
@click.pass_context
@friendly
def remove(ctx, name):
    """Remove a researcher: their sign-ins end at once, on every worker and host."""
    from fairval.store import audit, researchers

    db = _db(ctx)
    researchers.remove(db, name)
    audit.record(db, "researcher.remove", None, name=name)
    click.echo(f"removed {name!r}; their sign-ins end at their next page action")
