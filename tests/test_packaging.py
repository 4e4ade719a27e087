"""What a wheel of kopa needs: KOPA-Bench found as shipped, and never rewritten inside the package.

The installed wheel itself is exercised by `nox -s wheel` (tests/smoke/installed_cli.sh)."""

from __future__ import annotations

import click
import pytest

from kopa.errors import UserError
from kopa.eval.targets import PACKAGE, TargetsNotWritable, write_targets
from kopa.eval.task import ROOT, default_task_root, load_tasks


def test_kopa_bench_is_found_in_the_checkout_or_the_package():
    assert default_task_root() == ROOT
    assert ROOT in (PACKAGE / "_benchmark", PACKAGE.parent / "benchmark")
    assert load_tasks(ROOT / "tasks")


def test_targets_are_never_written_inside_the_package():
    with pytest.raises(TargetsNotWritable, match="read-only package data") as exc:
        write_targets([], PACKAGE / "_benchmark" / "targets")
    assert isinstance(exc.value, UserError) and isinstance(exc.value, click.ClickException)  # one line
    assert "\n" not in exc.value.format_message()


def test_targets_are_written_into_a_task_set_folder(tmp_path):
    assert write_targets([], tmp_path / "mine" / "targets") == {}
