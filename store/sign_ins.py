"""Researcher sign-ins ended by signing out, until they would have expired anyway."""
from __future__ import annotations

from store.db import Database, immediate


def revoke(db: Database, signature: str, expires: float, now: float) -> None:
    with immediate(db):
        db.execute("DELETE FROM revoked_sign_ins WHERE expires < ?", [now])      # long expired: forget
        db.execute("INSERT INTO revoked_sign_ins (signature, expires) VALUES (?, ?) ON CONFLICT DO NOTHING",
                   [signature, expires])


def is_revoked(db: Database, signature: str) -> bool:
    return db.scalar("SELECT EXISTS (SELECT 1 FROM revoked_sign_ins WHERE signature = ?)", [signature]) == 1
