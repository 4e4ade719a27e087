"""The layers DESIGN.md draws, as pyproject.toml's import contracts state them, hold, and nothing imports in
a cycle — and a contract that holds can still fail: an upward import, or a cycle, planted in a copy of the
tree breaks it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                              "sys.exit(lint_imports_command())"]


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    # the packages are found on PYTHONPATH (the tree's own, first) and the contract in the tree's pyproject
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([*LINT, "--no-cache"], cwd=tree, env=env, capture_output=True, text=True)


def test_the_layers_hold():
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 4 kept, 0 broken." in done.stdout


def _copy_tree(tmp_path: Path) -> None:
    for part in ("kopa", "sim"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")


def test_an_upward_import_breaks_the_contract(tmp_path):
    _copy_tree(tmp_path)
    planted = tmp_path / "kopa" / "tools" / "planted.py"  # the tools reaching up into the benchmark runner
    planted.write_text("from kopa.eval import runner\n", encoding="utf-8")
    done = _lint(tmp_path)
    assert done.returncode == 1
    assert "kopa.tools is not allowed to import kopa.eval" in done.stdout
    assert "kopa.tools.planted -> kopa.eval.runner" in done.stdout


def test_a_cycle_breaks_the_contract(tmp_path):
    # a function-local import counts: deferring an import does not make a cycle acceptable
    _copy_tree(tmp_path)
    planted = tmp_path / "kopa" / "backends" / "parsed.py"
    planted.write_text(planted.read_text(encoding="utf-8")
                       + "\n\ndef _planted():\n    from kopa.backends.spec import open_backend\n\n"
                         "    return open_backend\n", encoding="utf-8")
    done = _lint(tmp_path)
    assert done.returncode == 1
    assert "No cycles are allowed in kopa.backends." in done.stdout
    assert "Contracts: 3 kept, 1 broken." in done.stdout


def test_apigen_reaching_into_phase_b_breaks_the_contract(tmp_path):
    # APIGen sits above EDGE Phase B in the layers, so only the independence contract catches this
    _copy_tree(tmp_path)
    planted = tmp_path / "kopa" / "apigen" / "planted.py"
    planted.write_text("from kopa.synth import dataset\n", encoding="utf-8")
    done = _lint(tmp_path)
    assert done.returncode == 1
    assert "kopa.apigen.planted -> kopa.synth.dataset" in done.stdout
    assert "Contracts: 3 kept, 1 broken." in done.stdout
