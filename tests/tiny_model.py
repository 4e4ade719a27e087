"""benchmark/rl/tiny_model.py — the tiny Qwen2 and tokenizer gpu_smoke.sh builds — for the tests that train or
tokenize with it. It is a script, not a package, so it is loaded by path, once."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmark" / "rl" / "tiny_model.py"
    spec = importlib.util.spec_from_file_location("tiny_model", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TINY = _load()
