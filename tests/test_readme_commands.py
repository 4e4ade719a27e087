"""Every `kopa …` line of the README's command blocks names a command that exists, with options it takes.

A reader pastes these lines; a renamed option or command (`--seed` → `--world-seed`, `kopa drift` →
`kopa record diff`) once stayed in the README for weeks. Each line is parsed by click as `kopa` would parse
it — the command path resolved, every option and argument matched by click's parser — without running
the command (the lines build full worlds, train, serve) or converting values. The README's two set-up
commands run for real in tests/test_bootstrap.py.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from kopa.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"
# every fenced block, its language apart: a ```python or ```sql block is skipped whole, never read from its
# closing fence on as if that opened a shell block
FENCED = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
SHELL = ("", "bash", "sh", "console")


def _unquoted_comment(line: str) -> str:
    """The line without a trailing `# comment` (a # inside quotes is kept: '\\boxed{…}' has none, but a URL
    fragment might)."""
    quote = None
    for i, ch in enumerate(line):
        if ch in "'\"" and quote in (None, ch):
            quote = None if quote == ch else ch
        elif ch == "#" and quote is None and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def readme_commands() -> list[str]:
    """Each `kopa …` command of the README's code blocks, continuation lines joined, comments cut."""
    out: list[str] = []
    for block in (body for lang, body in FENCED.findall(README.read_text(encoding="utf-8")) if lang in SHELL):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = _unquoted_comment(line.strip())
            if line.startswith("kopa ") and "..." not in line and "…" not in line:
                out.append(line)
    return out


COMMANDS = readme_commands()


def test_the_readme_has_commands():
    assert len(COMMANDS) >= 30


def parse(line: str) -> click.Command:
    """The command `line` names, its arguments matched by click's own parser (an unknown option or a left
    over argument raises), with no callback, value conversion or command run."""
    args = shlex.split(line)[1:]
    command: click.Command = main
    ctx = click.Context(main, info_name="kopa")
    while True:
        _, rest, _ = command.make_parser(ctx).parse_args(args=list(args))
        if not isinstance(command, click.Group):
            assert not rest, f"{line}: left over arguments {rest}"
            return command
        assert rest, f"{line}: names the group {ctx.command_path}, not a command"
        name, *args = rest
        found = command.get_command(ctx, name)
        assert found is not None, f"{line}: no command {name!r} under {ctx.command_path}"
        command, ctx = found, click.Context(found, info_name=name, parent=ctx)


@pytest.mark.parametrize("line", COMMANDS)
def test_a_readme_command_parses(line: str):
    parse(line)


@pytest.mark.parametrize("line", ["kopa sim stats --seed 0", "kopa drift a b", "kopa bench run --policy oracle x",
                                  "kopa bench"])
def test_a_stale_line_would_fail(line: str):
    with pytest.raises((AssertionError, click.UsageError)):
        parse(line)


def test_the_tests_section_lists_every_session_ci_runs():
    """CI runs nox's default sessions (.ci/run); the README's Tests section names each as a list item, and no
    other: a session added to CI and not to the README (perf_smoke, demo) once went unmentioned."""
    noxfile = (README.parent / "noxfile.py").read_text(encoding="utf-8")
    listed = re.search(r"^nox\.options\.sessions = \[(.*?)\]", noxfile, re.M | re.S)
    assert listed is not None
    default = re.findall(r'"(\w+)"', listed.group(1))
    section = README.read_text(encoding="utf-8").split("\n## Tests\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^- `(\w+)` — ", section, re.M) == default
