"""The semantic layer the analyst controls: relationships, terms, column notes, metrics, labels.

`models.py` is the file's shape, `load.py` reads it (a YAML file the config names, and/or
`[semantic]` in nl2sql.toml), `check.py` checks every entry against the sources' schemas,
`apply.py` writes what it says into the schema snapshots every part of the pipeline reads, and
`describe.py` drafts one from the data (`nl2sql describe`).
"""
