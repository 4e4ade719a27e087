"""What `pip install 'kopa[rl-gpu]'` would install, read from pip's dry-run report (`nox -s rl_gpu_recipe`).

    python -m pip install --dry-run --ignore-installed --report report.json '.[rl-gpu]'
    python benchmark/rl/gpu_recipe.py report.json

Prints the versions that matter for GRPO on a GPU and exits 1 when the set is not the one pyproject's
`rl-gpu` extra means: verl 0.9.1 with the vLLM, torch and transformers its own `vllm` extra pins (a CUDA torch:
a `+cpu` build cannot serve vLLM). `pip install 'kopa[rl]' vllm` fails it: pip takes the newest vLLM, which
verl 0.9.1 was not released against.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

# verl 0.9.1's `vllm` extra: the versions it was released against (and transformers inside the range verl
# imports, >= 5.5.3, < 5.11, not 5.6.0 — noxfile.py's CPU session pins that range too).
WANTED = {"verl": SpecifierSet("==0.9.1"), "vllm": SpecifierSet("==0.24.0"), "torch": SpecifierSet("==2.11.0"),
          "transformers": SpecifierSet("==5.9.0"), "kopa": SpecifierSet(">=0.1")}
SHOWN = ("kopa", "verl", "vllm", "torch", "transformers", "ray", "tensordict", "numpy", "pydantic", "duckdb")


def resolved(report: Path) -> dict[str, str]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in data.get("install", [])}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: gpu_recipe.py REPORT.json (pip install --dry-run --report's output)", file=sys.stderr)
        return 2
    versions = resolved(Path(argv[0]))
    print(f"kopa[rl-gpu] resolves to {len(versions)} distributions:")
    for name in SHOWN:
        print(f"  {name:<13} {versions.get(name, '-')}")
    wrong = [f"{name} {versions.get(name, 'missing')} (wanted {spec})" for name, spec in WANTED.items()
             if name not in versions or Version(versions[name]) not in spec]
    if "+cpu" in versions.get("torch", ""):
        wrong.append(f"torch {versions['torch']} is a CPU build: vLLM needs CUDA")
    for line in wrong:
        print(f"not the recipe: {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
