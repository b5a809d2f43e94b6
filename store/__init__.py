"""The only code in fairval that speaks SQL: schema, migrations, reads (DataFrames) and writes."""
from fairval.store.db import open_db
from fairval.store.engine import Connection, immediate

__all__ = ["Connection", "immediate", "open_db"]
