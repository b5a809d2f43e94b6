"""Researcher sign-ins: the server's signing secret, one-time grants, wrong passwords per client, and
sign-ins ended by signing out (until they would have expired anyway)."""
from __future__ import annotations

from fairval.store.engine import Connection, immediate


def revoke(db: Connection, signature: str, expires: float, now: float, forget_before: float | None = None) -> None:
    """Revoke a token until `expires`. Rows of tokens that expired before `forget_before` are forgotten:
    the caller passes a time by which no host's clock could still take them as valid."""
    with immediate(db):
        db.execute("DELETE FROM revoked_sign_ins WHERE expires < ?", [now if forget_before is None else forget_before])
        db.execute("INSERT INTO revoked_sign_ins (signature, expires) VALUES (?, ?) ON CONFLICT DO NOTHING",
                   [signature, expires])


def is_revoked(db: Connection, signature: str) -> bool:
    return bool(db.scalar("SELECT EXISTS (SELECT 1 FROM revoked_sign_ins WHERE signature = ?)", [signature]) == 1)


def secret(db: Connection, make: str) -> str:
    """The server's cookie secret: the stored one, or `make` stored now (the first process wins)."""
    found = db.scalar("SELECT value FROM server_secrets WHERE name = 'cookie'")
    if found is not None:
        return str(found)
    with immediate(db):
        db.execute("INSERT INTO server_secrets (name, value) VALUES ('cookie', ?) ON CONFLICT DO NOTHING", [make])
    return str(db.scalar("SELECT value FROM server_secrets WHERE name = 'cookie'"))


def add_grant(db: Connection, grant_id: str, token: str, expires: float, now: float) -> None:
    with immediate(db):
        db.execute("DELETE FROM sign_in_grants WHERE expires < ?", [now])
        db.execute("INSERT INTO sign_in_grants (grant_id, token, expires) VALUES (?, ?, ?)", [grant_id, token, expires])


def grant_open(db: Connection, grant_id: str, now: float) -> bool:
    """Whether the grant waits to be redeemed: neither used nor expired."""
    return bool(db.scalar("SELECT EXISTS (SELECT 1 FROM sign_in_grants WHERE grant_id = ? AND expires >= ?)",
                          [grant_id, now]) == 1)


def redeem_grant(db: Connection, grant_id: str, now: float) -> str | None:
    """The grant's token, once: the grant is gone after this, used or expired."""
    with immediate(db):
        row = db.execute("SELECT token, expires FROM sign_in_grants WHERE grant_id = ?", [grant_id]).fetchone()
        db.execute("DELETE FROM sign_in_grants WHERE grant_id = ?", [grant_id])
    return row[0] if row is not None and row[1] >= now else None


def record_failure(db: Connection, client: str, now: float, forget_before: float) -> None:
    with immediate(db):
        db.execute("DELETE FROM sign_in_failures WHERE at < ?", [forget_before])
        db.execute("INSERT INTO sign_in_failures (client, at) VALUES (?, ?)", [client, now])


def failures(db: Connection, client: str, since: float) -> list[float]:
    """This client's wrong passwords since then, oldest first."""
    return [r[0] for r in db.execute("SELECT at FROM sign_in_failures WHERE client = ? AND at >= ? ORDER BY at",
                                      [client, since]).fetchall()]

