"""The launch chooses verl's tool-call parser from the model's name (kopa.rl.tool_formats); verl's own
parsers reading each family's documented format is tests/test_rl_verl.py's (it needs verl)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.rl.tool_formats import FAMILIES, UnknownModelFamily, tool_call_format

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("model", "parser"), [
    ("Qwen/Qwen3.5-4B", "qwen3_coder"),  # XML calls: verl's hermes parser reads none of them
    ("/models/Qwen3.5-9B/", "qwen3_coder"),  # a local path: its last part
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
    ("Qwen/Qwen3-4B-Instruct-2507", "hermes"),
    ("Qwen/Qwen2.5-7B-Instruct", "hermes"),
    ("openai/gpt-oss-20b", "gpt-oss"),
    ("zai-org/GLM-4.6", "glm"),
    ("moonshotai/Kimi-K2-Instruct", "kimi"),
])
def test_a_model_gets_its_familys_parser(model, parser):
    assert tool_call_format(model) == parser


def test_every_family_is_matched_by_its_own_name_first():
    # the table's order matters (Qwen3.5 before Qwen3): each family's pattern must not be shadowed
    examples = {"Qwen3.5": "Qwen3.5-4B", "Qwen3-Coder": "Qwen3-Coder-480B", "Qwen3": "Qwen3-8B", "Qwen2.5": "Qwen2.5-3B",
                "QwQ": "QwQ-32B", "gpt-oss": "gpt-oss-120b", "GLM-4.5 and later": "GLM-4.5-Air",
                "Seed-OSS": "Seed-OSS-36B-Instruct", "MiniMax-M2": "MiniMax-M2", "Kimi-K2": "Kimi-K2-Thinking",
                "DeepSeek-V4": "DeepSeek-V4-Flash", "Gemma 4": "gemma-4-12b-it"}
    assert set(examples) == {f.name for f in FAMILIES}
    for family in FAMILIES:
        assert tool_call_format(f"org/{examples[family.name]}") == family.parser, family.name


def test_an_unknown_family_is_refused_in_one_line_not_guessed():
    with pytest.raises(UnknownModelFamily, match=r"Llama-3\.1-8B: kopa does not know which tool-call format"):
        tool_call_format("meta-llama/Llama-3.1-8B")
    result = CliRunner().invoke(main, ["rl", "tool-format", "meta-llama/Llama-3.1-8B"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "FORMAT=… for benchmark/rl/grpo_kopa.sh" in result.output


def test_the_launch_script_resolves_its_default_models_parser():
    # the script's own lines that choose MODEL and FORMAT, run by bash with this kopa on PATH
    lines = [line for line in (ROOT / "benchmark/rl/grpo_kopa.sh").read_text().splitlines()
             if line.startswith(("MODEL=", "FORMAT="))]
    assert len(lines) == 2
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("MODEL", None)
    env.pop("FORMAT", None)
    done = subprocess.run(["bash", "-c", "set -euo pipefail; " + "; ".join(lines) + '; echo "$MODEL $FORMAT"'],
                          env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["Qwen/Qwen3.5-4B", "qwen3_coder"]
    env["MODEL"] = "meta-llama/Llama-3.1-8B"  # an unknown family stops the launch, before anything is written
    stopped = subprocess.run(["bash", "-c", "set -euo pipefail; " + "; ".join(lines) + "; echo launched"],
                             env=env, capture_output=True, text=True)
    assert stopped.returncode != 0 and "launched" not in stopped.stdout


def _launch(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """benchmark/rl/grpo_kopa.sh with `python3` a function that prints verl's arguments (no training)."""
    stub = 'python3(){ printf "%s\\n" "$@"; }; export -f python3; GPU_CHECK=0 bash benchmark/rl/grpo_kopa.sh'
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                   "OUT": str(tmp_path / "launch"), **env}
    for name in ("TASKS", "TRAIN_ON_KOPA_BENCH", "MODEL", "FORMAT"):
        if name not in env:
            environment.pop(name, None)
    return subprocess.run(["bash", "-c", stub], cwd=ROOT, env=environment, capture_output=True, text=True)


def test_the_launch_trains_on_a_phase_b_dataset_and_refuses_to_train_on_kopa_bench_unasked(tmp_path):
    refused = _launch(tmp_path)
    assert refused.returncode == 2 and not (tmp_path / "launch").exists()
    assert refused.stderr.strip() == ("grpo_kopa.sh: set TASKS to an EDGE Phase B dataset (kopa edge synth, then "
                                      "kopa edge filter); KOPA-Bench is the validation set (TRAIN_ON_KOPA_BENCH=1 "
                                      "trains on it anyway)")
    asked = _launch(tmp_path, TRAIN_ON_KOPA_BENCH="1")
    assert asked.returncode == 0, asked.stderr
    assert "training on KOPA-Bench, the set it validates on" in asked.stderr
    assert "trainer.val_before_train=True" in asked.stdout.splitlines()
