"""Schema linking: question words -> tables, columns and stored values (linker), value look-ups in
the data (lookup) and what linking produces (mentions)."""
