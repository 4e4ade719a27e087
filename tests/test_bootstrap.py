"""bootstrap.py: the README's two set-up commands, and what .ci/run calls."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bootstrap():
    spec = importlib.util.spec_from_file_location("bootstrap", ROOT / "bootstrap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_old_python_is_refused_in_one_line(capsys):
    bootstrap = _bootstrap()
    with pytest.raises(SystemExit) as exit_:
        bootstrap.check_python((3, 10, 12))
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Python >= 3.11" in err[0] and "3.10.12" in err[0]
    bootstrap.check_python((3, 11, 0))  # the oldest supported, and any newer one, pass
    bootstrap.check_python((3, 13, 1))


def test_ci_runs_the_readme_test_command_and_the_readme_installs_nothing_system_wide():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Set-up on a fresh machine.*?```bash\n(.*?)```", readme, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line and not line.startswith("#")]
    assert commands == ["python3 bootstrap.py demo", "python3 bootstrap.py"]
    ci = [line for line in (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
          if line and not line.startswith(("#", "set ", "cd "))]
    assert ci == [commands[1]]
    assert "pip install nox" not in readme  # refused by a Debian/Ubuntu Python (PEP 668)

