"""Layering (DESIGN.md): nothing in kopa/ reads simulator internals except the backends that mount it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
# kopa.backends mounts the simulator as a transport; the EDGE truth study asks sim.truth explicitly
# (DESIGN.md decision 2), and so does kopa.study, the layer of studies that need the simulator's truth
# (it also builds fault profiles and drifted simulators); nothing else in kopa/ may import `sim`.
ALLOWED = {ROOT / "kopa" / "backends", ROOT / "kopa" / "edge" / "truth_study.py", ROOT / "kopa" / "study"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_only_backends_import_the_simulator():
    offenders = []
    for path in sorted((ROOT / "kopa").rglob("*.py")):
        if any(path.is_relative_to(a) for a in ALLOWED):
            continue
        if path.name == "cli.py":
            continue  # the CLI's `sim build/serve/stats` commands operate the simulator itself
        bad = sorted(n for n in _imports(path) if n == "sim" or n.startswith("sim."))
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {bad}")
    assert not offenders, offenders


def test_simulator_never_imports_kopa():
    offenders = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "sim").rglob("*.py"))
                 if any(n == "kopa" or n.startswith("kopa.") for n in _imports(p))]
    assert not offenders, offenders
