"""One language across commands (issue 10, item 5): every option has help text, one spelling per meaning,
the tool-calling commands share --backend / --record / --faults, and the old names still work for one
release with a one-line note.

The walk covers every visible click command; a new command or option joins the checks by existing.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.cli_options import FaultsSpec

# The commands that call tools on a backend a user chooses.
TOOL_CALLING = {"kopa call", "kopa demo", "kopa bench run", "kopa bench baselines", "kopa edge graph build",
                "kopa mcp serve", "kopa edge synth", "kopa edge intents", "kopa rl rollouts", "kopa apigen generate",
                "kopa apigen verify"}
# Each seed's one name (anything else with "seed" in it is a second spelling of one of these).
SEED_OPTIONS = {"--world-seed": "the world", "--policy-seeds": "episode sampling", "--path-seed": "EDGE paths",
                "--seeds": "a study's replicates (each one's path and fault seed)", "--sample-seed": "APIGen samples; the tasks `edge sample` shows"}


def _subcommands(group: click.Group) -> list[tuple[str, click.Command]]:
    """The group's commands as click resolves them (kopa's groups are imported when first named)."""
    ctx = click.Context(group)
    return [(name, command) for name in group.list_commands(ctx)
            if (command := group.get_command(ctx, name)) is not None]


def commands(group: click.Group = main, path: str = "kopa") -> dict[str, click.Command]:
    """Every visible command under ``group``, by its full path."""
    found: dict[str, click.Command] = {}
    for name, command in _subcommands(group):
        if command.hidden:
            continue
        if isinstance(command, click.Group):
            found.update(commands(command, f"{path} {name}"))
        else:
            found[f"{path} {name}"] = command
    return found


def options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and not p.hidden]


ALL = commands()


def test_the_walk_sees_every_group():
    groups = {" ".join(path.split()[:2]) for path in ALL}
    assert groups == {"kopa tools", "kopa call", "kopa sim", "kopa demo", "kopa record", "kopa bench", "kopa edge",
                      "kopa study", "kopa mcp", "kopa rl", "kopa apigen", "kopa compare"}
    assert len(ALL) >= 22


@pytest.mark.parametrize("path", sorted(ALL))
def test_every_option_and_command_has_help(path):
    command = ALL[path]
    assert (command.help or "").strip(), f"{path} has no help"
    missing = [o.opts[0] for o in options(command) if not (o.help or "").strip()]
    assert not missing, f"{path}: options without help: {missing}"


def groups(group: click.Group = main, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, command in _subcommands(group):
        if isinstance(command, click.Group) and not command.hidden:
            found += groups(command, (*path, name))
    return found


@pytest.mark.parametrize("path", groups(), ids=lambda p: " ".join(("kopa", *p)))
def test_each_groups_help_lists_its_commands_untruncated(path):
    """`kopa GROUP --help` on an 80-column terminal: every command's summary whole, none cut with '...'."""
    shown = CliRunner().invoke(main, [*path, "--help"], terminal_width=80)
    assert shown.exit_code == 0
    listing = shown.output.split("Commands:\n", 1)[1]
    assert listing.strip() and "..." not in listing, listing


def test_one_spelling_per_option_everywhere():
    """A long name is always a flag or always takes a value, with the same short alias; a short alias
    always stands for the same long name."""
    shapes: dict[str, set[tuple]] = defaultdict(set)
    short_to_long: dict[str, set[str]] = defaultdict(set)
    for path, command in ALL.items():
        for option in options(command):
            longs = [o for o in option.opts if o.startswith("--")]
            shorts = sorted(o for o in option.opts if not o.startswith("--"))
            assert len(longs) == 1, f"{path}: {option.opts} needs exactly one long name"
            shapes[longs[0]].add((option.is_flag, tuple(shorts)))
            for short in shorts:
                short_to_long[short].add(longs[0])
    assert {name: s for name, s in shapes.items() if len(s) > 1} == {}
    assert {short: s for short, s in short_to_long.items() if len(s) > 1} == {}
    assert short_to_long["-o"] == {"--out"} and shapes["--out"] == {(False, ("-o",))}
    assert shapes["--json"] == {(True, ())}  # a flag: JSON on stdout, never a path


def test_no_bare_seed_and_each_seed_has_one_name():
    seen = {o.opts[-1] for c in ALL.values() for o in options(c) if "seed" in o.opts[-1]}
    assert seen == set(SEED_OPTIONS)


# Each "how many" has one name: items a command makes, rollouts per task, at most N of what exists, a study's
# replicates (--seeds, with the seeds above).
COUNT_OPTIONS = {"--count": "items a command makes (tasks, samples, queries shown)", "--rollouts": "per task",
                 "--limit": "at most N of what exists", "--seeds": "a study's replicates"}


def test_each_how_many_has_one_name():
    counting = {o.opts[-1] for c in ALL.values() for o in options(c)
                if o.opts[-1] in {"--n", "--num", "--samples", "--number", "--size"} or o.opts[-1] in COUNT_OPTIONS}
    assert counting == set(COUNT_OPTIONS)


def test_every_tool_calling_command_takes_backend_record_and_faults_the_same_way():
    with_backend = {path for path, c in ALL.items() if any(o.name == "backend_spec" for o in options(c))}
    assert with_backend == TOOL_CALLING
    for name in ("--backend", "--record", "--faults"):
        helps = {next(o.help for o in options(ALL[path]) if name in o.opts) for path in TOOL_CALLING}
        assert len(helps) == 1, f"{name} is explained differently across commands"
    faults_types = {type(o.type) for c in ALL.values() for o in options(c) if "--faults" in o.opts}
    assert faults_types == {FaultsSpec}  # sim serve's --faults is PROFILE[,seed=N] too


def test_the_policy_choices_are_the_registry():
    from kopa.eval.cli import POLICY_NAMES
    from kopa.eval.policies.offline import POLICIES

    assert (*POLICIES, "openai") == POLICY_NAMES


def test_faults_and_record_apply_on_every_tool_calling_command(tmp_path):
    """--faults wraps the backend outside --record: the recording keeps the clean answer."""
    rec = tmp_path / "rec"
    result = CliRunner().invoke(main, ["call", "find_dart_corp_code", "corp_name=라이트론", "--pick", "corp_code",
                                       "--record", str(rec), "--faults", "none,seed=4"])
    assert result.exit_code == 0, result.output
    assert (rec / "snapshot.duckdb").exists() and any((rec / "cassettes").glob("*.yaml"))
    replayed = CliRunner().invoke(main, ["call", "find_dart_corp_code", "corp_name=라이트론", "--pick",
                                         "corp_code", "--backend", f"replay:{rec}"])
    assert replayed.exit_code == 0 and replayed.stdout == result.stdout


def test_bench_run_records_and_stores_the_composed_backend(tmp_path):
    import orjson

    out, rec = tmp_path / "run", tmp_path / "rec"
    result = CliRunner().invoke(main, ["bench", "run", "--only", "finance-001", "-n", "1", "--out", str(out),
                                       "--record", str(rec), "--faults", "realistic,seed=2"])
    assert result.exit_code == 0, result.output
    config = orjson.loads((out / "config.json").read_bytes())["config"]
    assert config["backend"] == f"faults:realistic,seed=2@record:{rec}@sim"
    assert (rec / "snapshot.duckdb").exists()


# ---------------------------------------------------------------- old names are gone


@pytest.mark.parametrize("argv", [
    ["sim", "stats", "--seed", "0"],
    ["sim", "serve", "--fault-seed", "3"],
    ["bench", "run", "--seeds", "3"],
    ["edge", "graph", "build", "--seed", "3"],
    ["edge", "graph", "export", ".", "--output", "g.json"],
    ["drift", "a", "b"],
    ["secrets", "scan", "."],
    ["apigen", "generate", "--n", "3"],  # --count, as edge synth says it
])
def test_old_spellings_are_unknown(argv):
    # the first release carries no deprecated aliases: an old name is a usage error, before anything runs
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2, result.output
    assert "No such option" in result.stderr or "No such command" in result.stderr


def _record_one_call(rec: Path) -> None:
    """A recording of one lookup, its snapshot closed (a CliRunner run keeps it open in this process)."""
    from kopa.backends import open_backend
    from kopa.tools.runtime import ToolRuntime

    backend = open_backend(f"record:{rec}@sim")
    runtime = ToolRuntime(backend)
    assert runtime.call("issue_api_key", {"platform": "dart"}).ok
    assert runtime.call("find_dart_corp_code", {"corp_name": "라이트론"}).ok
    backend.observer.snapshot.close()


def test_record_diff_writes_its_folder_and_prints_json(tmp_path):
    import orjson

    runner = CliRunner()
    rec = tmp_path / "rec"
    _record_one_call(rec)
    result = runner.invoke(main, ["record", "diff", str(rec), str(rec), "--json", "-o", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["matched_calls"] == 1
    assert orjson.loads((tmp_path / "d" / "drift.json").read_bytes()) == orjson.loads(result.stdout)
    assert (tmp_path / "d" / "drift.md").read_text(encoding="utf-8").startswith("# Drift report")


def test_edge_build_composes_its_backend_and_export_needs_out(tmp_path, monkeypatch):
    import kopa.edge.run
    from kopa.edge.graph import ToolGraph

    built: dict = {}

    def capture(out_dir, config, spec, **kwargs):
        built.update(config=config, spec=spec)
        raise click.ClickException("captured")

    monkeypatch.setattr(kopa.edge.run, "build_graph", capture)
    runner = CliRunner()
    plain = runner.invoke(main, ["edge", "graph", "build", "--faults", "realistic"])
    assert plain.exit_code == 1 and "captured" in plain.stderr
    assert built["config"].seed == 0 and built["spec"] == "faults:realistic,seed=0@sim"
    runner.invoke(main, ["edge", "graph", "build", "--path-seed", "5", "--faults", "realistic,seed=1",
                         "--record", str(tmp_path / "rec")])
    assert built["config"].seed == 5 and built["spec"] == f"faults:realistic,seed=1@record:{tmp_path / 'rec'}@sim"

    run_dir = tmp_path / "edge"
    run_dir.mkdir()
    ToolGraph(nodes=["a", "b"]).save_json(run_dir / "graph.json")
    exported = runner.invoke(main, ["edge", "graph", "export", str(run_dir), "-o", str(tmp_path / "g.json")])
    assert exported.exit_code == 0 and (tmp_path / "g.json").exists()
    missing = runner.invoke(main, ["edge", "graph", "export", str(run_dir)])
    assert missing.exit_code == 2 and "Missing option '-o' / '--out'" in missing.stderr
    unfinished = runner.invoke(main, ["edge", "graph", "export", str(tmp_path), "-o", str(tmp_path / "x")])
    assert unfinished.exit_code == 2 and "has no graph.json" in unfinished.stderr
