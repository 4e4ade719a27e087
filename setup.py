"""Packages of the wheel: everything under `kopa/` and `sim/`, and KOPA-Bench as `kopa/_benchmark/`.

KOPA-Bench's files stay where a reader expects them, in `benchmark/` (tasks, targets, SCORING.md);
the wheel carries them as package data of `kopa._benchmark`, a package whose folder is `benchmark/`.
pyproject.toml cannot say this: a package it finds cannot also be one mapped from another folder.
Everything else (metadata, dependencies, which data files each package ships) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

# benchmark/perf (scripts, not part of the package) stays out.
BENCHMARK = ["kopa._benchmark", "kopa._benchmark.tasks", "kopa._benchmark.targets"]

setup(
    packages=[*find_namespace_packages(include=["kopa*", "sim*"]), *BENCHMARK],
    package_dir={"kopa._benchmark": "benchmark"},
)
