"""Issue 23, Deliver 5: every leaf command of `kopa`, walked from `kopa.cli.main`, met with bad inputs.

The cases are derived from each command's declared parameters, not listed by hand:

- every integer option: a number past 64 bits (2**70) and -1;
- every path that must exist: a path with a `'` and a `..` that does not exist, a directory where a file is
  wanted (or a file where a directory is), and, for files, wrong-shaped JSON, cut JSON and non-UTF-8 bytes;
- every output folder option: an existing file (with a `'` and a `..` in its path) where a folder is wanted;
- every run folder a command reads: a folder whose JSON files all hold `{"x": 1}`, `[]`, no JSON, non-UTF-8
  bytes or an integer past 64 bits;
- every option or argument naming a thing (platform, domain, policy, tool, task, scenario, profile): `nosuch`;
  every Choice: `nosuch` too.

Each must be answered the README's way: exit 2, one line on stderr starting `Error: `, no traceback. None
builds a world or opens a socket: an integer or choice case is parsed only (`make_context`) before it is run,
so a command that would accept the value fails the test without running; the other cases fail in their
command's first reads. Where a generic case does not apply to a command, SKIP says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from kopa.cli import main


def walk(command: click.Command = main, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every leaf command under `command`, with the words that name it."""
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            yield from walk(sub, (*path, name))
    else:
        yield path, command


COMMANDS: dict[tuple[str, ...], click.Command] = dict(walk())

# Options and arguments that name a thing the catalog, the task set or the simulator knows.
NAMING = {"platform", "platforms", "domain", "domains", "policy", "name", "tool", "scenario", "profile", "only",
          "hold_out_platforms", "drift", "faulty", "kinds", "rules", "retries", "task_id", "backend_spec",
          "executor", "transport", "format"}

# (command, case kind) -> why the generic case does not apply there.
SKIP: dict[tuple[str, str], str] = {
    # `record diff A B` takes recordings or backend strings (`sim:seed=1`): a str, not a path; its bad
    # paths are met in tests/test_cli_errors.py (a missing recording is one line)
    ("record diff", "name"): "A and B are recordings or backend strings, not names",
    # `record scan` reads any file or folder and reports secrets: a non-UTF-8 or wrong-shaped file is a file
    # to scan like any other, not a bad input (it exits 0 and finds nothing)
    ("record scan", "file-shape"): "any file is a file to scan",
    # the tool's own arguments are `key=value` words checked against its schema, not names
    ("call", "name-args"): "assignments are key=value words",
}


# (command, option) -> the value a required or mode option is given, where its first choice would stop the
# command before it reads the input under test (`rl export --from` is read with --format sft only).
PRESET: dict[tuple[str, str], str] = {("rl export", "--format"): "sft"}

# (command, case kind) -> (the exit code, a fragment of the output, why the input is fine there).
FINE: dict[tuple[str, str], tuple[int, str, str]] = {
    # `apigen verify FILE` is APIGen's verifier: FILE is the data under test, and a line that is no record
    # (not JSON, not UTF-8, a list, an object without the fields) is judged by the format stage, counted in
    # verdicts.jsonl and the report ("0 verified of 1"), never a crash and never silent
    ("apigen verify", "file-shape"): (0, "0 verified of 1", "the format stage judges each line"),
}


@dataclass(frozen=True)
class Case:
    id: str
    argv: Callable[[Path], list[str]]
    parse_only_first: bool = False  # the value must be refused while parsing, before the command runs
    exit_code: int = 2
    output: str = ""  # where the input is fine (exit 0): what the output must say about it


def _words(path: tuple[str, ...]) -> str:
    return " ".join(path)


def _is_int(param: click.Parameter) -> bool:
    return isinstance(param.type, click.types.IntParamType) and not param.multiple and param.nargs == 1


def _first_opt(param: click.Parameter) -> str:
    return max(param.opts, key=len)


def _required_args(command: click.Command, tmp: Path, skip: str) -> list[str]:
    """Good-enough values for the required arguments other than `skip`: an existing folder for a path that
    must exist, a word otherwise. Used only where the case fails before these are read."""
    words: list[str] = []
    for param in command.params:
        if param.name == skip or not param.required:
            continue
        preset = PRESET.get((_words(_path_of(command)), _first_opt(param)))
        value = [preset] if preset else _required_args_for(param, tmp)
        words += value if isinstance(param, click.Argument) else [_first_opt(param), *value]
    return words


_CONTENTS: dict[str, bytes] = {
    "object": b'{"x": 1}',
    "list": b"[]",
    "not-json": b'{"x":',
    "non-utf8": b'{"x": "\xff\xfe"}',
    "int-past-64-bits": b'{"digest": "d", "config": {"seed": 18446744073709551616}, "x": 18446744073709551616}',
}
_RUN_FILES = ("config.json", "graph.json", "checkpoint.json", "figures.json", "truth.json", "skeleton.json",
              "stats.json", "summary.json", "scoring.json", "values.json", "episodes.jsonl", "scores.jsonl",
              "groups.jsonl", "dataset.jsonl", "candidates.jsonl", "verified.jsonl", "failures.jsonl")


def _bad_run_dir(tmp: Path, kind: str, files: tuple[str, ...] = _RUN_FILES) -> Path:
    """A folder whose `files` (by default every file a run folder may hold) all hold `kind`'s bytes."""
    folder = tmp / f"run-{kind}-{len(files)}"
    if not folder.exists():
        folder.mkdir(parents=True)
        for name in files:
            (folder / name).write_bytes(_CONTENTS[kind])
    return folder


def _bad_file(tmp: Path, kind: str) -> Path:
    path = tmp / f"file-{kind}.json"
    path.write_bytes({"wrong-shape": b"[1, 2]", **_CONTENTS}[kind])
    return path


_TASK_FILES: dict[str, bytes] = {"list": b"- 1\n- 2\n", "cut-yaml": b"tasks: [{id: a\n", "non-utf8": b"tasks: []\n\xff\xfe\n",
                                 "object": b"x: 1\n", "huge-number": b"tasks:\n- id: a-1\n  seed: 1180591620717411303424\n"}


def _task_set(tmp: Path, kind: str, text: bytes) -> Path:
    folder = tmp / f"task'set-{kind}"
    (folder / "tasks").mkdir(parents=True, exist_ok=True)
    (folder / "tasks" / "bad.yaml").write_bytes(text)
    return folder


def _quoted_missing(tmp: Path) -> str:
    (tmp / "it's").mkdir(exist_ok=True)
    return str(tmp / "it's" / ".." / "no'such")


def _quoted_file(tmp: Path) -> str:
    (tmp / "it's").mkdir(exist_ok=True)
    (tmp / "o'file").write_text("x")
    return str(tmp / "it's" / ".." / "o'file")


def cases() -> Iterator[object]:
    for path, command in sorted(COMMANDS.items()):
        words = _words(path)
        for param in command.params:
            name = param.name or ""
            label = f"{words} {_first_opt(param) if isinstance(param, click.Option) else name.upper()}"

            def argv(value: Callable[[Path], list[str]], param: click.Parameter = param,
                     path: tuple[str, ...] = path, command: click.Command = command) -> Callable[[Path], list[str]]:
                def build(tmp: Path) -> list[str]:
                    given = value(tmp)
                    if isinstance(param, click.Option):
                        given = [_first_opt(param), *given]
                    # the bad value first: click processes the parameters in the order they were typed
                    return [*path, *given, *_required_args(command, tmp, param.name or "")] \
                        if isinstance(param, click.Option) else [*path, *_args_around(command, param, given, tmp)]
                return build

            if _is_int(param) and not isinstance(param, click.Argument):
                for value in ("1180591620717411303424", "-1"):
                    yield pytest.param(Case(label, argv(lambda tmp, v=value: [v]), parse_only_first=True),
                                       id=f"{label}={'2**70' if len(value) > 3 else value}")
            if isinstance(param.type, click.Choice):
                yield pytest.param(Case(label, argv(lambda tmp: ["nosuch"]), parse_only_first=True),
                                   id=f"{label}=nosuch(choice)")
            elif isinstance(param.type, click.types.StringParamType) and name in NAMING \
                    and (words, "name") not in SKIP:
                yield pytest.param(Case(label, argv(lambda tmp: ["nosuch"])), id=f"{label}=nosuch")
            if isinstance(param.type, click.Path):
                t = param.type
                if t.exists:
                    yield pytest.param(Case(label, argv(lambda tmp: [_quoted_missing(tmp)])),
                                       id=f"{label}=missing-with-quote-and-dotdot")
                    if t.file_okay and not t.dir_okay:
                        yield pytest.param(Case(label, argv(lambda tmp: [str(tmp)])), id=f"{label}=a-folder")
                    if t.dir_okay and not t.file_okay:
                        yield pytest.param(Case(label, argv(lambda tmp: [str(_bad_file(tmp, "object"))])),
                                           id=f"{label}=a-file")
                        for kind in _CONTENTS:
                            yield pytest.param(Case(label, argv(lambda tmp, k=kind: [str(_bad_run_dir(tmp, k))])),
                                               id=f"{label}=run-folder-{kind}")
                            yield pytest.param(Case(label, argv(lambda tmp, k=kind: [str(_bad_run_dir(
                                tmp, k, ("config.json",)))])), id=f"{label}=config-only-{kind}")
                    if t.file_okay and (words, "file-shape") not in SKIP:
                        code, fragment, _ = FINE.get((words, "file-shape"), (2, "", ""))
                        for kind in ("wrong-shape", *_CONTENTS):
                            yield pytest.param(Case(label, argv(lambda tmp, k=kind: [str(_bad_file(tmp, k))]),
                                                    exit_code=code, output=fragment), id=f"{label}=file-{kind}")
                elif _first_opt(param) == "--tasks":  # a task set: a folder holding tasks/*.yaml
                    yield pytest.param(Case(label, argv(lambda tmp: [_quoted_missing(tmp)])),
                                       id=f"{label}=missing-with-quote-and-dotdot")
                    for kind, text in _TASK_FILES.items():
                        yield pytest.param(Case(label, argv(lambda tmp, k=kind, b=text: [str(_task_set(tmp, k, b))])),
                                           id=f"{label}=task-set-{kind}")
                if not t.exists and not t.file_okay:
                    yield pytest.param(Case(label, argv(lambda tmp: [_quoted_file(tmp)]), parse_only_first=True),
                                       id=f"{label}=a-file-with-quote-and-dotdot")
            if isinstance(param.type, click.File) and "r" in param.type.mode:
                yield pytest.param(Case(label, argv(lambda tmp: [_quoted_missing(tmp)])),
                                   id=f"{label}=missing-with-quote-and-dotdot")
                for kind in ("wrong-shape", *_CONTENTS):
                    yield pytest.param(Case(label, argv(lambda tmp, k=kind: [str(_bad_file(tmp, k))])),
                                       id=f"{label}=file-{kind}")


def _args_around(command: click.Command, param: click.Parameter, given: list[str], tmp: Path) -> list[str]:
    """The arguments of `command` with `given` in `param`'s place and good-enough values elsewhere."""
    words: list[str] = []
    for other in command.params:
        if not isinstance(other, click.Argument):
            continue
        if other is param:
            words += given * (other.nargs if other.nargs > 0 else 1)
        elif other.required:
            words += _required_args_for(other, tmp)
    for other in command.params:
        if isinstance(other, click.Option) and other.required:
            words += [_first_opt(other), *_required_args_for(other, tmp)]
    return words


def _required_args_for(param: click.Parameter, tmp: Path) -> list[str]:
    if isinstance(param.type, click.Path) and param.type.exists:
        value = str(_bad_run_dir(tmp, "object"))
    elif isinstance(param.type, click.Choice):
        value = str(param.type.choices[0])
    else:
        value = "x"
    return [value] * (param.nargs if isinstance(param, click.Argument) and param.nargs > 0 else 1)


def _path_of(command: click.Command) -> tuple[str, ...]:
    return next(path for path, c in COMMANDS.items() if c is command)


CASES = list(cases())


def run(argv: list[str]) -> Result:
    return CliRunner().invoke(main, argv, prog_name="kopa")


def _refused_while_parsing(argv: list[str]) -> bool:
    """Whether click refuses `argv` before the command runs (nothing is built, read or served)."""
    command: click.Command = main
    ctx: click.Context | None = None
    words = list(argv)
    while isinstance(command, click.Group):
        ctx = click.Context(command, info_name=words[0] if ctx else "kopa", parent=ctx)
        name, words = words[0], words[1:]
        sub = command.get_command(ctx, name)
        assert sub is not None
        command = sub
    try:
        command.make_context(name, words, parent=ctx)
    except click.ClickException:
        return True
    return False


@pytest.mark.parametrize("case", CASES)
def test_a_bad_input_is_one_line_with_exit_2(case: Case, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # anything written by default (runs/…) stays here
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9")  # loopback, nothing listens: no network
    argv = case.argv(tmp_path)
    if case.parse_only_first:
        assert _refused_while_parsing(argv), f"accepted silently: kopa {' '.join(argv)}"
    result = run(argv)
    assert "Traceback" not in result.output, result.output
    assert result.exit_code == case.exit_code, (argv, result.output, result.exception)
    if case.exit_code == 0:
        assert case.output in result.output, result.output
        return
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr


def test_every_command_is_walked():
    # the walk sees the nested groups too (edge graph, sim drift, …): a new command is walked without a line here
    assert ("edge", "graph", "build") in COMMANDS and ("sim", "drift", "show") in COMMANDS
    assert len(COMMANDS) >= 34
    walked = {c.values[0].id.rsplit(" ", 1)[0] for c in CASES}  # type: ignore[union-attr]
    assert {"bench score", "edge filter", "rl export", "tools list", "sim build"} <= walked


# ---------------------------------------------------------------- real run folders, one file damaged
#
# The folders above hold bad bytes in every file, so a command stops at the first it reads. Here a real
# run folder (made by the command that writes it, in a path with a ' and a ..) has one file damaged at a
# time, so every file a reader takes is met with each kind of bad content.

def _make(tmp: Path, *argv: str) -> Path:
    out = tmp / "it's" / ".." / f"run '{argv[1]}"
    result = run([*argv, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def bench_folders(tmp_path_factory, _isolated_cache) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("real")
    (tmp / "it's").mkdir()
    return {"bench": _make(tmp, "bench", "run", "--only", "finance-001", "-n", "1", "--workers", "1"),
            "rl": _make(tmp, "rl", "rollouts", "--only", "finance-001", "-n", "1", "--workers", "1")}


@pytest.fixture(scope="module")
def edge_folders(tmp_path_factory, _isolated_cache) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("edge")
    (tmp / "it's").mkdir()
    graph = _make(tmp, "edge", "graph", "build", "-T", "2", "-M", "10", "--probe-edges", "10", "--workers", "1")
    return {"graph": graph, "synth": _make(tmp, "edge", "synth", "--graph", str(graph), "--count", "3",
                                          "--workers", "1")}


# (the folder, the file damaged, the command with {} for the folder)
REAL: list[tuple[str, str, tuple[str, ...]]] = [
    *[("bench", name, ("bench", "score", "{}")) for name in ("config.json", "episodes.jsonl")],
    # (`bench show` reads scores.jsonl and the report, not config.json: a damaged config.json is not its input)
    *[("bench", name, ("bench", "show", "{}")) for name in ("scores.jsonl",)],
    *[("rl", name, ("rl", "export", "--format", "sft", "--from", "{}")) for name in ("config.json", "groups.jsonl")],
]
EDGE: list[tuple[str, str, tuple[str, ...]]] = [
    # (`edge graph show` prints report.md only: the other files are not its input)
    *[("graph", name, ("edge", "graph", "export", "{}")) for name in ("graph.json",)],
    *[("graph", name, ("edge", "graph", "compare", "{}", "{}")) for name in ("config.json", "figures.json",
                                                                            "edges.duckdb")],
    # (Phase B reads what a finished Phase A publishes, graph.json and values.json, never its resume checkpoint)
    *[("graph", name, ("edge", "synth", "--graph", "{}", "--count", "1")) for name in ("graph.json", "values.json")],
    *[("synth", name, ("edge", "filter", "{}")) for name in ("config.json", "candidates.jsonl", "failures.jsonl")],
]


def _damaged(folders: dict[str, Path], folder: str, name: str, kind: str, tmp: Path) -> Path:
    import shutil

    copy = tmp / "it's" / ".." / f"copy '{folder}"
    (tmp / "it's").mkdir(exist_ok=True)
    shutil.copytree(folders[folder], copy)
    (copy / name).write_bytes(_CONTENTS[kind] + (b"\n" if name.endswith(".jsonl") else b""))
    return copy


def _one_line_exit_2(argv: list[str]) -> None:
    result = run(argv)
    assert "Traceback" not in result.output, result.output
    assert result.exit_code == 2, (argv, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr


def _damaged_is_one_line(folders, folder: str, name: str, command: tuple[str, ...], kind: str, tmp_path,
                         writes: bool) -> None:
    """The command on a copy of the folder with `name` damaged (`kind`); `writes`: it takes an output folder."""
    copy = _damaged(folders, folder, name, kind, tmp_path)
    _one_line_exit_2([w.replace("{}", str(copy)) for w in command] + (["-o", str(tmp_path / "out")] if writes else []))


@pytest.mark.parametrize("kind", sorted(_CONTENTS))
@pytest.mark.parametrize(("folder", "name", "command"), REAL, ids=[f"{' '.join(c[:2])}-{n}" for _, n, c in REAL])
def test_a_real_run_folder_with_one_damaged_file_is_one_line(bench_folders, folder, name, command, kind, tmp_path,
                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    _damaged_is_one_line(bench_folders, folder, name, command, kind, tmp_path,
                         writes=command[:2] != ("bench", "show"))


def test_the_real_run_folders_in_quoted_paths_are_read(bench_folders, tmp_path, monkeypatch):
    # the good form beside the bad ones: a ' and a .. in the path are fine (exit 0), in every reader
    monkeypatch.chdir(tmp_path)
    for argv in (["bench", "score", str(bench_folders["bench"]), "-o", str(tmp_path / "it's scored")],
                 ["rl", "export", "--format", "sft", "--from", str(bench_folders["rl"]), "-o", str(tmp_path / "s'.jsonl")]):
        result = run(argv)
        assert result.exit_code == 0, result.output


@pytest.mark.slow  # an EDGE graph build and a synthesis: about 80 s
@pytest.mark.parametrize("kind", sorted(_CONTENTS))
@pytest.mark.parametrize(("folder", "name", "command"), EDGE, ids=[f"{' '.join(c[:3])}-{n}" for _, n, c in EDGE])
def test_a_real_edge_folder_with_one_damaged_file_is_one_line(edge_folders, folder, name, command, kind, tmp_path,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    _damaged_is_one_line(edge_folders, folder, name, command, kind, tmp_path, writes=command[1] == "synth")
