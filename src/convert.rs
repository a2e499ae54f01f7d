//! Storage-class conversions of single values, exactly as SQLite's `sqlite3_column_*` make them.
