"""Hugging Face `datasets`, unmodified, reads kopa's APIGen output as it reads xlam-function-calling-60k:
the published file's rows and a `kopa apigen generate` run's verified.jsonl load with the same JSON loader,
into the same four string/integer columns, and a row's `tools` is what `json.loads` gives a reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kopa.cli import main

pytestmark = pytest.mark.clients
datasets = pytest.importorskip("datasets")

PUBLISHED = Path(__file__).parents[1] / "data" / "apigen" / "xlam_published_rows.jsonl"


@pytest.fixture(autouse=True)
def offline_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a local file: nothing is fetched


def test_datasets_reads_kopas_rows_as_it_reads_the_published_ones(tmp_path, simulator):
    out = tmp_path / "apigen"
    result = CliRunner().invoke(main, ["apigen", "generate", "--count", "10", "--platforms", "krx,kdic", "--out", str(out)])
    assert result.exit_code == 0, result.output
    published = datasets.load_dataset("json", data_files=str(PUBLISHED), split="train")
    kopa = datasets.load_dataset("json", data_files=str(out / "verified.jsonl"), split="train")
    assert len(kopa) == len((out / "verified.jsonl").read_text().splitlines()) > 0
    assert published.features == kopa.features  # same columns, same types: int64 id, string query/answers/tools
    for row in kopa:
        tools = json.loads(row["tools"])
        answers = json.loads(row["answers"])
        assert {a["name"] for a in answers} <= {t["name"] for t in tools}
        assert all(isinstance(doc["type"], str) for t in tools for doc in t["parameters"].values())
