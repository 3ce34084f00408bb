"""What a question may contain: valid Unicode text without control characters.

A question typed in a shell arrives as whatever bytes the terminal sent; Python hands undecodable
bytes over as lone surrogates (`"caf\\udce9"`), which no UTF-8 encoder accepts, so the first hash
or file write of the run raised. Cleaning the question once where it enters (Session.ask, the
runtime) lets every later step assume plain text.
"""

from __future__ import annotations

import re

# C0/C1 control characters (NUL, ESC, BEL …); tab and newline are kept.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")
# Surrogates that are not an escaped byte (those are \udc80-\udcff): never text.
_NOT_A_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
# Any surrogate (Unicode category Cs): found by the regex engine, not a loop over characters.
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_question(text: str) -> str:
    """`text` as valid Unicode: undecodable bytes become U+FFFD, control characters spaces.

    Bytes smuggled in as surrogates are first read as UTF-8 again (a UTF-8 `é` split by a
    wrong decoding comes back whole); what is still not UTF-8 becomes the replacement character.

    >>> clean_question("caf\\udcc3\\udca9 orders")
    'café orders'
    >>> clean_question("caf\\udce9\\x00 orders\\x1b[31m")
    'caf\\ufffd  orders [31m'
    """
    if _SURROGATE.search(text):
        text = _NOT_A_BYTE.sub("\ufffd", text)
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return _CONTROL.sub(" ", text)


def checked_question(question: object, limit: int) -> str:
    """The question, cleaned and stripped; ValueError when it is empty or longer than `limit`
    characters (the setting `max_question_chars`: the reasoning cost grows with the length, and
    nobody asks in 100 KB)."""
    if not isinstance(question, str):
        raise ValueError("the question is empty")
    text = clean_question(question).strip()  # shell bytes, NUL, escapes: plain text from here
    if not text:
        raise ValueError("the question is empty")
    if len(text) > limit:
        raise ValueError(f"the question is {len(text):,} characters long; the limit is "
                         f"{limit:,} (setting max_question_chars)")
    return text
