"""What a question may contain: valid Unicode text without control characters.

A question typed in a shell arrives as whatever bytes the terminal sent; Python hands undecodable
bytes over as lone surrogates (`"caf\\udce9"`), which no UTF-8 encoder accepts, so the first hash
or file write of the run raised. Cleaning the question once where it enters (Session.ask, the
runtime) lets every later step assume plain text.
"""

from __future__ import annotations

import re
import unicodedata

# C0/C1 control characters (NUL, ESC, BEL …); tab and newline are kept.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")
# Surrogates that are not an escaped byte (those are \udc80-\udcff): never text.
_NOT_A_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def clean_question(text: str) -> str:
    """`text` as valid Unicode: undecodable bytes become U+FFFD, control characters spaces.

    Bytes smuggled in as surrogates are first read as UTF-8 again (a UTF-8 `é` split by a
    wrong decoding comes back whole); what is still not UTF-8 becomes the replacement character.

    >>> clean_question("caf\\udcc3\\udca9 orders")
    'café orders'
    >>> clean_question("caf\\udce9\\x00 orders\\x1b[31m")
    'caf\\ufffd  orders [31m'
    """
    if any(unicodedata.category(ch) == "Cs" for ch in text):
        text = _NOT_A_BYTE.sub("\ufffd", text)
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return _CONTROL.sub(" ", text)
