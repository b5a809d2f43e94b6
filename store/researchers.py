"""Named researchers with a role each (owner, editor, viewer) and a password hash (never the password)."""
from __future__ import annotations

import time

from fairval.errors import StoreError
from fairval.store.engine import Connection, Row, immediate

ROLES = ("viewer", "editor", "owner")          # each can do what the ones before it can


def add(db: Connection, name: str, role: str, password_hash: str, now: float | None = None) -> None:
    with immediate(db):
        if get(db, name) is not None:
            raise StoreError(f"a researcher named {name!r} exists already; change them with `fairval researcher set`")
        if role != "owner" and not db.scalar("SELECT COUNT(*) FROM researchers"):
            # the first named researcher ends the shared password: as a viewer or editor, nobody would be owner
            raise StoreError(f"the first researcher must be an owner (it ends the shared password, and someone "
                             f"must manage researchers): add {name!r} with --role owner, or an owner first")
        db.insert("researchers", [{"name": name, "role": role, "password_hash": password_hash,
                                   "added_at": time.time() if now is None else now}])


def get(db: Connection, name: str) -> Row | None:
    rows = db.query("SELECT name, role, password_hash, added_at FROM researchers WHERE name = ?", [name])
    return rows[0] if rows else None


def every(db: Connection) -> list[Row]:
    return db.query("SELECT name, role, password_hash, added_at FROM researchers ORDER BY name")


def any_named(db: Connection) -> bool:
    return bool(db.scalar("SELECT EXISTS (SELECT 1 FROM researchers)") == 1)


def change(db: Connection, name: str, *, role: str | None = None, password_hash: str | None = None) -> None:
    with immediate(db):
        if get(db, name) is None:
            raise StoreError(f"no researcher named {name!r}")
        if role is not None:
            if role != "owner":
                _keep_an_owner(db, name, f"{name!r} cannot become a{'n' if role[0] in 'aeiou' else ''} {role}")
            db.execute("UPDATE researchers SET role = ? WHERE name = ?", [role, name])
        if password_hash is not None:
            db.execute("UPDATE researchers SET password_hash = ? WHERE name = ?", [password_hash, name])


def remove(db: Connection, name: str) -> None:
    with immediate(db):
        if get(db, name) is None:
            raise StoreError(f"no researcher named {name!r}")
        _keep_an_owner(db, name, f"{name!r} cannot be removed")
        db.execute("DELETE FROM researchers WHERE name = ?", [name])


def _keep_an_owner(db: Connection, name: str, refused: str) -> None:
    """Refuse a change that leaves no owner: nobody could then manage researchers, and with none left the
    environment's shared password would silently sign in as owner again."""
    others = db.scalar("SELECT COUNT(*) FROM researchers WHERE role = 'owner' AND name <> ?", [name])
    if others == 0 and (get(db, name) or {}).get("role") == "owner":
        raise StoreError(f"{refused}: they are the last owner. Make another researcher an owner first "
                         "(`fairval researcher set NAME --role owner`)")
