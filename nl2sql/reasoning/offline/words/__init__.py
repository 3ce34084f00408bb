"""Words and cues: tokens, stems, synonyms, generic English word classes, dates, numbers and
shape cues, read from the question before any schema is consulted."""
