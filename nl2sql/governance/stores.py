"""Pins and approval decisions, persisted as plain JSON files in the project folder.

    .nl2sql/pins/<key>.json         one pinned run per (question, datasource)
    .nl2sql/approvals/<id>.json     one decision (approved or rejected) per approval request

Readable, diffable and safe to commit; written atomically (temp file + rename) so a reader never
sees half a file. Nothing is created until something is stored.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from nl2sql.files import private_dir, write_private
from nl2sql.governance.approvals import Approval, ApprovalRequest, PinnedRun

_M = TypeVar("_M", bound=BaseModel)

#: Written beside the stores so a project folder committed to git keeps only readable state.
GITIGNORE = "# nl2sql: caches are rebuilt on demand\nartifacts/\nchroma/\n"


def normalize_question(question: str) -> str:
    """Case, spacing and final punctuation do not make a different question.

    >>> normalize_question("  How many  Orders? ")
    'how many orders'
    """
    return re.sub(r"\s+", " ", question).strip().casefold().rstrip("?.!;: ")


def write_text_atomic(path: Path, data: str, project: Path | None = None) -> None:
    """Write `data` to `path` atomically, creating its folder; with `project` (the .nl2sql
    folder), also its .gitignore for the caches, when there is none yet."""
    private_dir(path.parent)
    if project is not None and not (project / ".gitignore").exists():
        (project / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    write_private(path, data)  # pins and approvals quote questions and SQL: 0600


class PinRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    datasource: str | None = None
    pinned: PinnedRun


class PinStore:
    """Pinned runs by question (normalized) and datasource."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._lock = threading.Lock()

    @staticmethod
    def key(question: str, datasource: str | None = None) -> str:
        # surrogatepass: a question read from undecodable shell bytes still has a key
        blob = f"{normalize_question(question)}\x1f{datasource or ''}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(blob).hexdigest()[:16]

    def save(self, question: str, pinned: PinnedRun, datasource: str | None = None) -> Path:
        """Store `pinned` for the question; replaces an earlier pin of it."""
        record = PinRecord(question=question, datasource=datasource, pinned=pinned)
        path = self.folder / f"{self.key(question, datasource)}.json"
        with self._lock:
            write_text_atomic(path, record.model_dump_json(indent=2), self.folder.parent)
        return path

    def get(self, question: str, datasource: str | None = None) -> PinnedRun | None:
        path = self.folder / f"{self.key(question, datasource)}.json"
        record = _read(path, PinRecord)
        return record.pinned if record is not None else None

    def remove(self, question: str, datasource: str | None = None) -> bool:
        """Unpin the question; True when a pin was removed."""
        path = self.folder / f"{self.key(question, datasource)}.json"
        with self._lock:
            if path.exists():
                path.unlink()
                return True
        return False

    def list(self) -> list[PinRecord]:
        return [r for p in sorted(self.folder.glob("*.json")) if (r := _read(p, PinRecord))]


class ApprovalRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request: ApprovalRequest
    decision: Approval


class ApprovalStore:
    """Approval decisions by request id; the requests are kept with them for review."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._lock = threading.Lock()

    def record(self, request: ApprovalRequest, decision: Approval) -> Path:
        """Store a decision on `request` (a later decision on the same request replaces it)."""
        if decision.request_id != request.id:
            raise ValueError("the decision is about another request")
        path = self.folder / f"{_safe(request.id)}.json"
        with self._lock:
            write_text_atomic(path, ApprovalRecord(request=request, decision=decision).model_dump_json(indent=2),
                              self.folder.parent)
        return path

    def get(self, request_id: str) -> ApprovalRecord | None:
        return _read(self.folder / f"{_safe(request_id)}.json", ApprovalRecord)

    def for_question(self, question: str) -> list[Approval]:
        """Every decision on requests made for `question` (after run.before), normalized."""
        wanted = normalize_question(question)
        return [r.decision for r in self.list() if normalize_question(r.request.question) == wanted]

    def forget(self, request_id: str) -> bool:
        path = self.folder / f"{_safe(request_id)}.json"
        with self._lock:
            if path.exists():
                path.unlink()
                return True
        return False

    def list(self) -> list[ApprovalRecord]:
        return [r for p in sorted(self.folder.glob("*.json")) if (r := _read(p, ApprovalRecord))]


def _read(path: Path, model: type[_M]) -> _M | None:
    """The record in `path`, or None when absent; a damaged file is an error naming it."""
    if not path.is_file():
        return None
    try:
        return model.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        raise ValueError(f"{path} is not a valid {model.__name__}: {exc}") from None


def _safe(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"not a request id: {name!r}")
    return name


class Damaged(list[Any]):
    """What a damaged pin or approvals file reads as: nothing (so the run goes on unpinned, or
    is held for approval again — the safe side), carrying the one-line warning it reports."""

    def __init__(self, warning: Any):
        super().__init__()
        self.warning = warning


def read_stored(read: Callable[[], Any], default: Any, what: str) -> Any:
    """read(), or a Damaged stand-in when a stored file cannot be read (hand-edited, half
    written by a crash): never an exception out of a run, and never a silent loss."""
    from nl2sql.errors import ErrorCode, ErrorSeverity, error, safe_one_line

    try:
        return read()
    except (ValueError, OSError) as exc:
        return Damaged(error(
            "session", ErrorCode.INVALID_STATE,
            f"a stored {what} file could not be read and was not used ({safe_one_line(exc, 200)}): "
            "fix or delete it",
            severity=ErrorSeverity.WARNING,
        ))
