"""What a `kopa` start imports: a command loads only what it uses, so a shell chain of `kopa call`s
does not pay for graph, plotting, LLM or YAML libraries (timings are in benchmark/perf/cli_start.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Libraries no small call needs; any of them at start costs every step of a shell chain.
HEAVY = ("networkx", "matplotlib", "sympy", "openai", "yaml", "duckdb", "vcr", "pyarrow", "pandas", "scipy")

PROBE = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})), file=sys.stderr))
sys.argv = ["kopa", *sys.argv[1:]]
from kopa.cli import main
main()
"""


@pytest.fixture(scope="module")
def warm_cache(world):
    """The session's world and compiled catalog already built, as for any start after the first."""
    from kopa.catalog.loader import catalog_files, load_catalog_from

    load_catalog_from(catalog_files())


def modules_after(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(("argv", "allowed"), [
    (("--help",), set()),
    (("tools", "show", "find_dart_corp_code"), set()),
    (("call", "get_current_date"), set()),  # a session tool touches no world table: no DuckDB
    (("call", "find_dart_corp_code", "corp_name=라이트론"), {"duckdb"}),
])
def test_a_command_imports_only_what_it_uses(warm_cache, argv, allowed):
    loaded = modules_after(*argv) & set(HEAVY)
    assert loaded <= allowed, f"kopa {' '.join(argv)} imported {sorted(loaded - allowed)}"
