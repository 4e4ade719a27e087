"""Graph code sees a tool as a model does (DESIGN.md decision 2): never kopa's format identifiers (which
often name the entity: `corp_code`, `mona_cd`), never the simulator.

Two checks: a scan of kopa/edge's source for the ways such a read is spelled, and a behavioural one —
renaming every format identifier of the catalog, patterns and Korean wording kept, leaves the skeleton
(edges, scores, plans) and the first-call filler byte for byte the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kopa.edge
from kopa.catalog import formats, load_catalog
from kopa.catalog.models import Tool
from kopa.edge.config import EdgeConfig
from kopa.edge.embed import HashingEmbedder
from kopa.edge.graph import build_skeleton
from kopa.edge.phase_a import ArgumentFiller
from kopa.edge.proposer import OfflineProposer
from kopa.rng import stream

EDGE_DIR = Path(kopa.edge.__file__).parent
# The one module allowed to read the truth: it measures graphs against it.
TRUTH_MODULES = {"truth_study.py"}
# Reading a catalog Tool's raw spec, by (module, function): Phase A's binding step reads which target
# parameters are required (the view shows the same flag); everything else goes through kopa.catalog.view.
RAW_SPEC_ALLOWED = {("phase_a.py", "_bind")}


def _graph_modules() -> list[Path]:
    return sorted(p for p in EDGE_DIR.glob("*.py") if p.name not in TRUTH_MODULES)


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []

    def where(node: ast.AST) -> str:
        return f"{path.name}:{getattr(node, 'lineno', '?')}"

    functions: dict[ast.AST, str] = {}  # node → the innermost function it sits in (walk is outer-first)
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(fn):
                functions[inner] = fn.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "sim" or alias.name.startswith("sim."):
                    found.append(f"{where(node)} imports {alias.name}")
                if alias.name == "kopa.catalog.formats":
                    found.append(f"{where(node)} imports kopa.catalog.formats")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module == "sim" or module.startswith("sim."):
                found.append(f"{where(node)} imports from {module}")
            if module == "kopa.catalog.formats" or (module == "kopa.catalog"
                                                     and any(a.name == "formats" for a in node.names)):
                found.append(f"{where(node)} imports kopa.catalog.formats")
        elif isinstance(node, ast.Attribute):
            # `.format` on anything but a string literal ("{}".format is str's method, not a spec's field)
            if node.attr == "format" and not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                found.append(f"{where(node)} reads .format")
            if node.attr == "FORMATS":
                found.append(f"{where(node)} reads .FORMATS")
            if node.attr == "spec" and (path.name, functions.get(node)) not in RAW_SPEC_ALLOWED:
                found.append(f"{where(node)} reads a tool's raw .spec (use kopa.catalog.view)")
        elif isinstance(node, ast.Name) and node.id == "FORMATS":
            found.append(f"{where(node)} names FORMATS")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "__import__"):
            texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if any(t in ("format", "FORMATS") or t == "sim" or t.startswith("sim.") for t in texts):
                found.append(f"{where(node)} {node.func.id}({', '.join(map(repr, texts))})")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "import_module":
            texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if any(t == "sim" or t.startswith("sim.") or t == "kopa.catalog.formats" for t in texts):
                found.append(f"{where(node)} import_module({', '.join(map(repr, texts))})")
    return found


def test_the_scan_covers_every_graph_module():
    names = {p.name for p in _graph_modules()}
    assert {"signature.py", "proposer.py", "plan.py", "retriever.py", "graph.py", "embed.py", "phase_a.py"} <= names
    assert "truth_study.py" not in names


def test_the_scan_catches_each_forbidden_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("\n".join([
        "import sim.truth",
        "from sim import app",
        "from kopa.catalog.formats import FORMATS",
        "from kopa.catalog import formats",
        "def f(p, tool):",
        "    x = p.format == 'yyyymmdd'",
        "    y = getattr(p, 'format')",
        "    z = tool.spec.params",
        "    return FORMATS, '{}'.format(x)",
    ]), encoding="utf-8")
    found = _violations(bad)
    for needle in ("imports sim.truth", "imports from sim", "imports kopa.catalog.formats", "reads .format",
                   "getattr('format')", "raw .spec", "names FORMATS"):
        assert any(needle in f for f in found), (needle, found)
    assert not any(":9 reads .format" in f for f in found)  # str.format on a literal is no spec read


@pytest.mark.parametrize("path", _graph_modules(), ids=lambda p: p.name)
def test_graph_code_reads_no_format_id_and_no_simulator(path):
    assert _violations(path) == []


def _synthesis_modules() -> list[Path]:
    """Synthesis (EDGE Phase B, APIGen) and the RL exports see a tool as a model does too (DESIGN decision 2):
    they may read a tool's spec — its names, descriptions, types — but a date or a code only as documented
    (kopa.catalog.view: pattern and wording), never by format identifier, and nothing of the simulator."""
    root = EDGE_DIR.parent
    return sorted(p for package in ("synth", "apigen", "rl") for p in (root / package).glob("*.py"))


@pytest.mark.parametrize("path", _synthesis_modules(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_synthesis_code_reads_no_format_id_and_no_simulator(path):
    assert [f for f in _violations(path) if "raw .spec" not in f] == []


# ---------------------------------------------------------------- renaming the format identifiers

def _renaming() -> dict[str, str]:
    """Every format id becomes the next one in sorted order: each id now names another format, so code
    that read an id (`== "yyyymmdd"`, `== "corp_code"`) would behave differently."""
    ids = sorted(formats.FORMATS)
    return {old: ids[(i + 1) % len(ids)] for i, old in enumerate(ids)}


def _renamed(tool: Tool, renaming: dict[str, str]) -> Tool:
    def fmt(item):
        return item.model_copy(update={"format": renaming[item.format]}) if item.format else item

    spec = tool.spec.model_copy(update={"params": [fmt(p) for p in tool.spec.params],
                                        "output": [fmt(f) for f in tool.spec.output]})
    return tool.model_copy(update={"spec": spec})


@pytest.fixture(scope="module")
def sample() -> list[Tool]:
    """Documented tools of five platforms and a slice of the long tail: every kind of format appears."""
    catalog = load_catalog()
    real = [t for t in catalog if t.spec.real and t.platform in {"dart", "krx", "law", "assembly", "edu"}]
    tail = [t for t in catalog if not t.spec.real][::40]
    return real + tail


def test_renaming_every_format_id_leaves_the_skeleton_and_the_filler_unchanged(sample, monkeypatch):
    config = EdgeConfig()
    before = build_skeleton(sample, HashingEmbedder(), OfflineProposer(), config)
    filler = ArgumentFiller("2026-01-30")
    fills_before = [filler.fill(t, {}, stream(0, "inventory", t.name)) for t in sample]

    renaming = _renaming()
    renamed_formats = {renaming[k]: v for k, v in formats.FORMATS.items()}
    monkeypatch.setattr(formats, "FORMATS", renamed_formats)
    renamed = [_renamed(t, renaming) for t in sample]
    # The rename took: ids moved, documentation stayed.
    moved = [(p.format, q.format) for t, r in zip(sample, renamed, strict=True)
             for p, q in zip(t.spec.params, r.spec.params, strict=True) if p.format]
    assert moved and all(a != b for a, b in moved)
    assert all(formats.describe(b) == formats.FORMATS[b][1] for _, b in moved)

    after = build_skeleton(renamed, HashingEmbedder(), OfflineProposer(), config)
    assert len(before) > 100
    assert after.to_json_bytes() == before.to_json_bytes()
    filler = ArgumentFiller("2026-01-30")
    assert [filler.fill(t, {}, stream(0, "inventory", t.name)) for t in renamed] == fills_before


def test_the_rename_check_has_power_a_view_leaking_the_id_is_caught(sample, monkeypatch):
    # The same comparison, with a view that lets the identifier through in its wording: it must differ,
    # or the test above would pass whatever graph code read.
    import kopa.catalog.view as view

    documented = view._documented
    monkeypatch.setattr(view, "_documented", lambda fmt, type_: (documented(fmt, type_)[0], fmt))
    config = EdgeConfig()
    before = build_skeleton(sample, HashingEmbedder(), OfflineProposer(), config)
    renaming = _renaming()
    monkeypatch.setattr(formats, "FORMATS", {renaming[k]: v for k, v in formats.FORMATS.items()})
    after = build_skeleton([_renamed(t, renaming) for t in sample], HashingEmbedder(), OfflineProposer(), config)
    assert after.to_json_bytes() != before.to_json_bytes()
