"""Imports sit at the top of a module. One inside a function is a deferral — of a heavy or optional
dependency, for a fast start — and says so: a comment between the function's first line and the import.
The command modules are the exception their docstring states (kopa/cli.py): a command imports its work
when it runs."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND_MODULES = ("cli.py", "cli_mcp.py")


def unexplained_local_imports(path: Path, root: Path = ROOT) -> list[str]:
    """`file:line` of every import inside a function with no comment from the function's first line to it
    (imports under `if TYPE_CHECKING:` are at module level and not looked at)."""
    source = path.read_text(encoding="utf-8")
    comments = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                if tok.type == tokenize.COMMENT}
    found: set[int] = set()
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import | ast.ImportFrom) and not any(
                    function.lineno <= line <= node.end_lineno for line in comments):
                found.add(node.lineno)
    return [f"{path.relative_to(root)}:{line}" for line in sorted(found)]


def test_every_local_import_says_why():
    modules = [p for package in ("kopa", "sim") for p in sorted((ROOT / package).rglob("*.py"))
               if p.name not in COMMAND_MODULES]
    assert modules
    unexplained = [where for path in modules for where in unexplained_local_imports(path)]
    assert unexplained == []


def test_an_import_without_a_reason_is_found(tmp_path):
    module = tmp_path / "planted.py"
    module.write_text("import os\n\n\ndef plain():\n    import json\n\n    return json\n\n\n"
                      "def explained():\n    # deferred: a reason\n    import json\n\n    return json\n\n\n"
                      "def inline():\n    import json  # deferred: a reason\n\n    return json\n",
                      encoding="utf-8")
    assert unexplained_local_imports(module, tmp_path) == ["planted.py:5"]
