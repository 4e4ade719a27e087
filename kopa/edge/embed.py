"""Text embedders for the dense retriever: a pluggable protocol and an offline hashing default.

The default needs no download and handles Korean: character n-grams (2–4) of NFC-normalised text carry
Korean morphology (고유번호 shares 고유, 번호, 유번 … with "corp_code 고유번호") without a tokenizer,
and word tokens carry English identifiers. Features are hashed with BLAKE2b (stable across processes,
unlike Python's salted `hash()`), weighted by sublinear tf × smoothed idf and L2-normalised.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections import Counter
from typing import Protocol, runtime_checkable

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised row vectors (one row per text)."""

    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


def _words(text: str) -> list[str]:
    """Word tokens; identifiers are also split on `_` and camelCase so corp_code ~ corpCode."""
    out: list[str] = []
    for word in _WORD.findall(text):
        out.append(word)
        parts = [p for p in re.split(r"_|(?<=[a-z])(?=[A-Z])", word) if p]
        if len(parts) > 1:
            out.extend(p.lower() for p in parts)
    return out


def features(text: str, ngram: tuple[int, int] = (2, 4)) -> list[str]:
    """The feature strings of one text: lower-cased word tokens (`w:`) and character n-grams (`c:`)
    of each word padded with spaces, so n-grams never straddle two words."""
    text = unicodedata.normalize("NFC", text)
    words = _words(text)
    feats = [f"w:{w.lower()}" for w in words]
    lo, hi = ngram
    for word in _WORD.findall(text.lower()):
        padded = f" {word} "
        for n in range(lo, hi + 1):
            feats.extend(f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1))
    return feats


_HASHES: dict[str, int] = {}


def _hash64(feature: str) -> int:
    """A stable 64-bit BLAKE2b hash of a feature, memoised for the process (features repeat a lot)."""
    value = _HASHES.get(feature)
    if value is None:
        value = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
        _HASHES[feature] = value
    return value


class HashingEmbedder:
    """Hashed character n-gram + word tf-idf vectors. Deterministic; no download.

    `fit(corpus)` fixes the idf; `embed` on an unfitted embedder fits on the texts it is given, so a
    single `embed(all_texts)` call is self-contained.
    """

    def __init__(self, dim: int = 4096, ngram: tuple[int, int] = (2, 4)) -> None:
        self.dim = dim
        self.ngram = ngram
        self.name = f"hashing-{dim}-c{ngram[0]}{ngram[1]}w"
        self.idf: np.ndarray | None = None

    def _counts(self, texts: list[str]) -> list[Counter[int]]:
        dim = self.dim
        return [Counter(_hash64(f) % dim for f in features(t, self.ngram)) for t in texts]

    def fit(self, corpus: list[str]) -> HashingEmbedder:
        """Smoothed idf, log((1 + n) / (1 + df)) + 1, over the corpus's documents."""
        df = np.zeros(self.dim, dtype=np.float64)
        for counts in self._counts(corpus):
            df[list(counts)] += 1.0
        self.idf = np.log((1.0 + len(corpus)) / (1.0 + df)) + 1.0
        return self

    def embed(self, texts: list[str]) -> np.ndarray:
        all_counts = self._counts(texts)
        if self.idf is None:
            df = np.zeros(self.dim, dtype=np.float64)
            for counts in all_counts:
                df[list(counts)] += 1.0
            self.idf = np.log((1.0 + len(texts)) / (1.0 + df)) + 1.0
        matrix = np.zeros((len(texts), self.dim), dtype=np.float64)
        for row, counts in enumerate(all_counts):
            if counts:
                cols = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
                tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
                matrix[row, cols] = (1.0 + np.log(tf)) * self.idf[cols]
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms > 0, norms, 1.0)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine of two already-normalised vectors."""
    value = float(np.dot(a, b))
    return 0.0 if math.isnan(value) else value
