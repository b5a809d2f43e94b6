"""The only code in fairval that speaks SQL: schema, migrations, reads (DataFrames) and writes."""
from store.db import Database, StoreError, immediate, open_db

__all__ = ["Database", "immediate", "open_db", "StoreError"]
