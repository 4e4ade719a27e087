"""The `kopa` command line.

Every error a user can cause and fix — a `kopa.errors.UserError` from any layer, a `sim` input error, a
click usage error — is printed as one line (what, and where) with a non-zero exit; `kopa --debug …` adds the
traceback. Anything else is a bug and keeps its traceback.

The command modules (this one, `kopa/cli_mcp.py` and each package's `cli.py`) import click and
`kopa.cli_options` at module level and everything else inside the command that uses it, so `kopa --help`
and each command's start load only what that command needs (`benchmark/perf/cli_start.py` measures it).
Everywhere else an import inside a function says why, in a comment (`tests/test_local_imports.py`).
"""

from __future__ import annotations

import importlib
import json
import signal
import sys
import threading
import time
import traceback
from typing import Any

import click

from kopa.cli_options import (
    SEED,
    FaultsSpec,
    at_least,
    backend_options,
    compose_backend,
    json_option,
    out_option,
)
from kopa.console import LazyConsole, NarrowTable, Table
from kopa.errors import UserError
from sim.errors import SimInputError

console = LazyConsole(soft_wrap=True)
err_console = LazyConsole(stderr=True)


class OneLineError(click.ClickException):
    """What the top-level handler turns a user's error into: click shows it and exits with its code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(" ".join(part.strip() for part in message.splitlines() if part.strip()) or "error")
        # click annotates exit_code ClassVar, yet reads it off the instance (sys.exit(e.exit_code)): the code
        # of the error this one stands for is kept per instance
        self.exit_code = exit_code  # type: ignore[misc]

    def show(self, file: Any = None) -> None:
        click.echo(f"Error: {self.message}", err=True)


def _one_line(exc: BaseException) -> OneLineError:
    """The line an error is shown as: a usage error points at the command's --help, others say only what."""
    if isinstance(exc, click.UsageError):
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        return OneLineError(exc.format_message() + hint, exc.exit_code)
    if isinstance(exc, click.ClickException):
        return OneLineError(exc.format_message(), exc.exit_code)
    return OneLineError(str(exc), getattr(exc, "exit_code", 2))


# The command groups of the other layers, imported when a command line names one (or --help lists them):
# `kopa call` imports none of their seven modules.
GROUPS = {"bench": ("kopa.eval.cli", "bench"), "edge": ("kopa.edge.cli", "edge"), "study": ("kopa.study.cli", "study"),
          "mcp": ("kopa.cli_mcp", "mcp_group"), "rl": ("kopa.rl.cli", "rl"), "apigen": ("kopa.apigen.cli", "apigen"),
          "compare": ("kopa.compare.cli", "compare")}


class KopaGroup(click.Group):
    """The top-level group: where every user error, from any command below it, becomes one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *GROUPS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in GROUPS and cmd_name not in self.commands:
            module, name = GROUPS[cmd_name]
            command = getattr(importlib.import_module(module), name)
            if cmd_name == "edge":  # Phase B's commands sit under `kopa edge`
                from kopa.synth.cli import filter_command, intents_command, sample_command, synth_command

                for sub in (synth_command, filter_command, sample_command, intents_command):
                    command.add_command(sub)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        if "--debug" in args[1:]:
            # `kopa call … --debug` means what `kopa --debug call …` does: a traceback is wanted after the
            # fact, where the failing command was typed, not before it (options after `--` are left alone)
            cut = args.index("--") if "--" in args else len(args)
            args = ["--debug", *(a for a in args[:cut] if a != "--debug"), *args[cut:]]
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:  # a bad option of `kopa` itself
            raise _one_line(exc) from exc

    def invoke(self, ctx: click.Context) -> Any:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _terminated)
        try:
            return self._invoke(ctx)
        finally:
            _finish_recordings()

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OneLineError:
            raise
        except (click.ClickException, UserError, SimInputError) as exc:
            if ctx.params.get("debug"):
                click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
            raise _one_line(exc) from exc
        except EOFError as exc:
            # click would print a bare "Aborted!" for it (meant for prompts, which kopa has none of): an
            # EOFError that reaches here is unchecked input (e.g. a truncated gzip), a bug to show as one.
            raise RuntimeError(f"unexpected end of input: {exc}") from exc


def _finish_recordings() -> None:
    """Whatever a command recorded is whole on disk when it ends — normally, on an error, on Ctrl-C or a TERM:
    its cassettes sealed, its snapshot committed (only the modules a recording loaded are asked)."""
    if (cassettes := sys.modules.get("kopa.record.unit_cassettes")) is not None:
        cassettes.seal_open()
    if (snapshots := sys.modules.get("kopa.record.snapshot")) is not None:
        snapshots.commit_open()


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM unwinds the command as an exit does (status 143, as a shell reports a TERM): `finally` blocks,
    context managers and the recording snapshot's finalizer run, so what was recorded is committed to
    snapshot.duckdb rather than left in its journal. Only kill -9 leaves a journal (replayed on reopen)."""
    raise SystemExit(128 + signum)


def _open(backend_spec: str, record_dir: str | None, faults: str | None = None):
    """The backend a command runs on: --backend, wrapped by --record, then by --faults."""
    from kopa.backends import open_backend

    return open_backend(compose_backend(backend_spec, record_dir, faults))


@click.group(cls=KopaGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="kopa")
@click.option("--debug", is_flag=True, envvar="KOPA_DEBUG",
              help="Show the traceback of an error as well as its one line; also after the command (or set "
                   "KOPA_DEBUG=1).")
def main(debug: bool) -> None:
    """kopa — a recorded-replay testbed for multi-step tool calling over Korean open public APIs.

    \b
    Start here:
      kopa demo                       multi-step lookup chains on the embedded simulator
      kopa bench baselines            KOPA-Bench with the offline baselines: what it measures, how agents fail
      kopa tools list                 every tool of the eleven platforms
      kopa tools show find_dart_corp_code
      kopa call find_dart_corp_code corp_name=라이트론
      kopa sim serve --port 8800      the simulator over HTTP on loopback

    \b
    One spelling everywhere: --backend SPEC (the world: sim:seed=N), --faults PROFILE[,seed=N],
    --record DIR, --policy-seeds, --path-seed, -o/--out, --json (a flag: JSON on stdout).
    """


# ---------------------------------------------------------------- tools


@main.group()
def tools() -> None:
    """Browse the tool catalog (names, Korean descriptions, schemas)."""


@tools.command("list")
@click.option("--platform", help="Only this platform id (dart, krx, seoul, …).")
@click.option("--domain", help="Only this domain (traffic, finance, education, law, politics, district).")
@click.option("--json", "as_json", is_flag=True, help="Print OpenAI function-calling schemas as JSON.")
def tools_list(platform: str | None, domain: str | None, as_json: bool) -> None:
    """List tools with their platform and Korean title."""
    from kopa.catalog import load_catalog

    catalog = load_catalog()
    for option, value, known in (("--platform", platform, {t.platform for t in catalog}),
                                 ("--domain", domain, {t.domain for t in catalog if t.domain})):
        if value and value not in known:  # not an empty list: a misspelt name would look like one
            raise click.BadParameter(f"{value!r} is none of {', '.join(sorted(known))}", param_hint=f"'{option}'")
    selected = [t for t in catalog if (not platform or t.platform == platform) and (not domain or t.domain == domain)]
    if as_json:
        click.echo(json.dumps([t.openai_schema() for t in selected], ensure_ascii=False, indent=2))
        return
    from rich.markup import escape

    # at 80 columns: each tool on two lines, its name in full (what a user copies into `kopa tools show` or
    # `kopa call`, never cut to "…"), its title below
    table = NarrowTable(title=f"{len(selected)} tools")
    table.add_column("tool\n  title", overflow="fold")
    table.add_column("platform\n  domain", no_wrap=True)
    table.add_column("real", no_wrap=True)
    for t in selected:
        # real: a documented endpoint of the live service; "sim": the simulator's own (the generated long
        # tail), which --backend live refuses
        table.add_row(f"{t.name}\n  [dim]{escape(t.spec.title)}[/dim]", f"{t.platform}\n  {t.domain or '-'}",
                      "" if t.family == "session" else "yes" if t.spec.real else "sim")
    console.print(table)
    counts: dict[str, int] = {}
    for t in selected:
        counts[t.platform] = counts.get(t.platform, 0) + 1
    platforms = [p for p in counts if p != "session"]
    console.print(f"{len(selected)} tools across {len(platforms)} platforms: "
                  + ", ".join(f"{p} {n}" for p, n in sorted(counts.items())), soft_wrap=False)
    simulated = sum(not t.spec.real for t in selected if t.family != "session")
    if simulated:
        console.print(f"{simulated} of them are simulator-only (real = sim): no real service has their endpoint, "
                      "and --backend live refuses them", soft_wrap=False)


def _no_tool(catalog: Any, name: str) -> str:
    close = [t.name for t in catalog if name.split("_")[-1] in t.name][:8]
    return f"no tool named {name!r}" + (f"; similar: {', '.join(close)}" if close else "")


@tools.command("show")
@click.argument("name")
@click.option("--schema", is_flag=True, help="Print only the OpenAI function-calling schema.")
def tools_show(name: str, schema: bool) -> None:
    """Show one tool: endpoint, parameters, output fields and its schema."""
    from kopa.catalog import load_catalog

    catalog = load_catalog()
    if name not in catalog:
        raise click.UsageError(_no_tool(catalog, name))
    tool = catalog[name]
    if schema:
        click.echo(json.dumps(tool.openai_schema(), ensure_ascii=False, indent=2))
        return
    spec = tool.spec
    console.print(f"[bold]{spec.name}[/bold] — {spec.title}  ({tool.platform}, {tool.family} family)")
    console.print(spec.description)
    if tool.family != "session":
        # (an escaped bracket: rich would read "[simulator only]" as markup and print nothing)
        console.print(f"{spec.method} {tool.base_url}{spec.path}"
                      + (" \\[simulator only: no real service has this endpoint]" if not spec.real else ""))
        if tool.auth:
            console.print(f"key: {tool.auth.location} {tool.auth.name} (env {tool.auth.env_var})")
    params = Table(title="parameters")
    for col in ("name", "type", "required", "format", "where", "description"):
        params.add_column(col)
    for p in spec.params:
        params.add_row(p.name, p.type, "yes" if p.required else "", p.format or "", p.location, p.description)
    console.print(params)
    out = Table(title="output fields")
    for col in ("field", "format", "description"):
        out.add_column(col)
    for f in spec.output:
        out.add_row(f.name, f.format or "", f.description)
    console.print(out)


# ---------------------------------------------------------------- call


def _parse_assignments(pairs: tuple[str, ...]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.UsageError(f"argument {pair!r} is not key=value")
        key, value = pair.split("=", 1)
        args[key] = value
    return args


@main.command("call", context_settings={"ignore_unknown_options": True},
              short_help="Call one tool with key=value arguments (--pick FIELD for chains).")
@click.argument("tool")
@click.argument("assignments", nargs=-1)
@backend_options
@click.option("--no-auto-key", is_flag=True, help="Do not issue keys first (see the service's auth error).")
@click.option("--pick", metavar="FIELD",
              help="Print only this field of every record, one per line (for shell chaining).")
def call(tool: str, assignments: tuple[str, ...], backend_spec: str, record_dir: str | None, faults: str | None,
         no_auto_key: bool, pick: str | None) -> None:
    """Call TOOL with key=value arguments and print records or the typed error.

    \b
    Examples:
      kopa call find_dart_corp_code corp_name=라이트론 --pick corp_code
      kopa call get_dart_convertible_bond_issuance_decision corp_code=00104083 bgn_de=20260101 end_de=20260131
      kopa call get_stock_price_trend likeSrtnCd=253160 numOfRows=5 --backend live:http://127.0.0.1:8800
      kopa call find_dart_corp_code corp_name=라이트론 --faults realistic,seed=3 --record runs/rec
    Exit status: 0 records, 1 a typed tool error, 2 a usage error.
    """
    from kopa.catalog import load_catalog
    from kopa.tools.runtime import ToolRuntime

    # an unknown name is the user's bad input (exit 2), checked before any backend is opened; exit 1 is kept
    # for a tool's own typed error
    if tool not in load_catalog():
        raise click.BadParameter(_no_tool(load_catalog(), tool), param_hint="TOOL")
    arguments = _parse_assignments(assignments)
    runtime = ToolRuntime(_open(backend_spec, record_dir, faults))
    if not no_auto_key and tool in runtime.catalog and runtime.catalog[tool].family != "session":
        issued = runtime.call("issue_api_key", {"platform": runtime.catalog[tool].platform})
        if not issued.ok and issued.error is not None:
            raise click.UsageError(issued.error.message)
    result = runtime.call(tool, arguments)
    if pick and result.ok:
        fields = list(dict.fromkeys(name for record in result.records for name in record))
        if result.records and pick not in fields:
            # An empty line would flow into the next step of a shell chain as if it were a value.
            raise click.BadParameter(f"{pick!r}: {tool}'s records have no such field; they have "
                                     f"{', '.join(fields)}", param_hint="'--pick'")
        for record in result.records:
            click.echo(record.get(pick, ""))
    else:
        click.echo(json.dumps({"request": result.request, **result.for_model()}, ensure_ascii=False, indent=2))
    sys.exit(0 if result.ok else 1)


# ---------------------------------------------------------------- sim


@main.group("sim")
def sim_group() -> None:
    """Build, inspect and serve the deterministic simulator."""


def _world_options(f):
    """The world a `kopa sim` command builds, inspects or serves: the same fields as `sim:seed=…,scale=…`."""
    f = click.option("--today", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
                     help="The world's virtual 'today' (YYYY-MM-DD); default 2026-01-30.")(f)
    f = click.option("--scale", type=click.Choice(["small", "full"]), default="small", show_default=True,
                     help="World size: small (fast, what tests and KOPA-Bench use) or full.")(f)
    return click.option("--world-seed", type=SEED, default=0, show_default=True,
                        help="The world seed (the backend string's sim:seed=N).")(f)


def _config(seed: int, scale: str, today):
    from sim.world.context import WorldConfig

    data: dict[str, Any] = {"seed": seed, "scale": scale}
    if today:
        data["today"] = today.date()
    return WorldConfig.model_validate(data)


@sim_group.command("build", short_help="Build (or reuse) a world and print its content hash.")
@_world_options
@click.option("--rebuild", is_flag=True, help="Build even if a cached world exists.")
def sim_build(world_seed: int, scale: str, today, rebuild: bool) -> None:
    """Build (or reuse) the world of --world-seed and --scale and print its content hash."""
    from sim.world_file import load_world

    config = _config(world_seed, scale, today)
    started = time.perf_counter()
    with console.status(f"building world seed={world_seed} scale={scale} …"):
        world = load_world(config, rebuild=rebuild)
    rows = sum(world.row_counts.values())
    console.print(f"world {config.key()}: {len(world.tables)} tables, {rows:,} rows, "
                  f"built in {world.build_seconds:.2f}s (this command {time.perf_counter() - started:.2f}s)")
    console.print(f"file: {world.path}")
    console.print(f"content hash: {world.content_hash}")


@sim_group.command("stats", short_help="Per-endpoint cardinality and the world's content hash.")
@_world_options
@click.option("--verify", is_flag=True, help="Recompute the content hash from the loaded tables.")
@json_option()
def sim_stats(world_seed: int, scale: str, today, verify: bool, as_json: bool) -> None:
    """Per-endpoint cardinality distribution and the world's content hash."""
    from sim.app import Simulator
    from sim.stats import endpoint_stats
    from sim.world_file import load_world, recompute_hash

    world = load_world(_config(world_seed, scale, today))
    stats = endpoint_stats(Simulator(world))
    recomputed = recompute_hash(world) if verify else None
    if as_json:
        click.echo(json.dumps({"content_hash": world.content_hash, "recomputed_hash": recomputed,
                               "endpoints": [s.model_dump() for s in stats]}, ensure_ascii=False, indent=2))
        return
    from rich.markup import escape

    # at 80 columns the endpoint (host and path) and its table fold onto more lines; the numbers never do
    table = NarrowTable(title=f"world {world.config.key()} — records per call")
    table.add_column("endpoint\n  table", overflow="fold", ratio=1)
    for col in ("rows", "key param", "keys", "min", "med", "p90", "max"):
        table.add_column(col, justify="left" if col == "key param" else "right", no_wrap=col != "key param",
                         overflow="fold")
    for s in stats:
        table.add_row(f"{escape(s.host + s.endpoint)}\n  [dim]{s.table}[/dim]", f"{s.unfiltered:,}", s.key_param or "",
                      *(("" if v is None else f"{v:,.0f}") for v in (s.distinct_values, s.per_value_min,
                                                                   s.per_value_median, s.per_value_p90,
                                                                   s.per_value_max)))
    console.print(table)
    console.print(f"{len(stats)} endpoints, {len(world.tables)} tables, "
                  f"{sum(world.row_counts.values()):,} rows")
    console.print(f"content hash: {world.content_hash}")
    if recomputed is not None:
        verdict = "matches" if recomputed == world.content_hash else "DOES NOT MATCH"
        console.print(f"recomputed:   {recomputed} ({verdict})")
        if recomputed != world.content_hash:
            sys.exit(1)


@sim_group.command("serve")
@_world_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8800, show_default=True,
              help="TCP port to listen on (0: any free port, printed at start).")
@click.option("--strict-keys", is_flag=True, help="Accept only keys issued by issue_api_key (or configured).")
@click.option("--log", is_flag=True, help="Log every request (keys scrubbed).")
@click.option("--drift", "drift_name", default=None, help="Drift scenario (name or TOML file), e.g. default.")
@click.option("--epoch", type=at_least(0), default=0, show_default=True, help="Drift epoch to serve (0 = none).")
@click.option("--faults", "faults", type=FaultsSpec(), metavar=FaultsSpec.name,
              help="Fault profile (none, realistic, harsh or a TOML file) and its fault seed, PROFILE[,seed=N]: "
                   "real delays, resets, cut bodies.")
@click.option("--fault-time-scale", type=float, default=1.0, show_default=True,
              help="Real seconds per simulated second of fault delay (e.g. 0.01 in tests).")
def sim_serve(world_seed: int, scale: str, today, host: str, port: int, strict_keys: bool, log: bool,
              drift_name: str | None, epoch: int, faults: str | None, fault_time_scale: float) -> None:
    """Serve the simulator over HTTP on loopback.

    Clients reach a platform by its real Host header, or by a first path segment naming the real host:
    \b
      curl 'http://127.0.0.1:8800/opendart.fss.or.kr/api/company.json?crtfc_key=any&corp_code=00104083'
      kopa call get_dart_company_overview corp_code=00104083 --backend live:http://127.0.0.1:8800
    """
    from sim.app import Simulator
    from sim.keys import KeyPolicy
    from sim.serve import SimServer
    from sim.world_file import load_world

    config = _config(world_seed, scale, today)
    world = load_world(config)
    scenario = _drift_scenario(drift_name, epoch)
    served_faults = None
    if faults:
        from kopa.backends.parsed import parse_backend
        from sim.faults import load_profile
        from sim.serve import ServedFaults

        layer = parse_backend(f"faults:{faults}").layers[0]  # FaultsSpec wrote it as PROFILE,seed=N
        profile, fault_seed = layer.target, layer.option("seed") or "0"
        try:
            served_faults = ServedFaults(load_profile(profile), int(fault_seed), fault_time_scale)
        except FileNotFoundError as exc:
            raise click.BadParameter(str(exc), param_hint="'--faults'") from exc
        console.print(f"faults: profile {profile!r}, seed {fault_seed}, time scale {fault_time_scale:g}")
    server = SimServer(Simulator(world, KeyPolicy(seed=world_seed, strict=strict_keys), drift=scenario, epoch=epoch),
                       host, port, quiet=not log, faults=served_faults)
    if scenario is not None:
        console.print(f"drift scenario {scenario.name!r} at epoch {epoch} of {scenario.max_epoch}")
    console.print(f"kopa sim serving world {config.key()} (hash {world.content_hash[:12]}) on {server.url}")
    console.print(f"use it with: --backend live:{server.url}   (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        console.print("stopped")


# ---------------------------------------------------------------- demo


@main.command("demo")
@backend_options
def demo(backend_spec: str, record_dir: str | None, faults: str | None) -> None:
    """Run multi-step lookup chains across platforms and print each step.

    \b
    Offline, from the committed recording:  kopa demo --backend replay:cassettes/demo
    Then KOPA-Bench itself:                 kopa bench baselines
    """
    from kopa.demo import run_demo

    failures = run_demo(_open(backend_spec, record_dir, faults), console.real)
    console.print("next: [bold]kopa bench baselines[/bold] — KOPA-Bench on the simulator with the offline "
                  "baselines (what the benchmark measures, and how a weak agent fails)")
    sys.exit(1 if failures else 0)


# ---------------------------------------------------------------- record


@main.group("record", short_help="Recordings: compare two (diff), check them for keys (scan), convert old ones.")
def record_group() -> None:
    """Recordings (made with --record DIR): compare two, and check them for keys that escaped scrubbing."""


@record_group.command("scan", short_help="Scan recordings for keys that escaped scrubbing.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True), required=True)
def record_scan(paths: tuple[str, ...]) -> None:
    """Scan cassettes, snapshots and other files for API keys; exit 1 if any is found.

    Looks at query strings, JSON/YAML key fields, key headers, the key's path segment, gzip, zip and
    base64 bodies, and the values of any KOPA_*_KEY variables set in the environment.
    """
    _scan(paths)


def _scan(paths: tuple[str, ...]) -> None:
    from pathlib import Path

    from kopa.record.scan import scan_paths

    findings = scan_paths(Path(p) for p in paths)
    for finding in findings:
        err_console.print(f"[red]leak[/red] {finding}")
    console.print(f"{len(findings)} finding(s) in {', '.join(paths)}")
    sys.exit(1 if findings else 0)


@record_group.command("convert", short_help="Rewrite an older recording as vcrpy cassettes (the default layout).")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
def record_convert(directory: str) -> None:
    """Rewrite a recording made before cassettes were vcrpy's own (interactions/, one file per exchange, json.gz)
    in the default layout: cassettes/*.yaml, which stock vcrpy replays (README: Recording and offline replay).

    \b
    In place; interrupted, it leaves a recording that replays as before, and a rerun finishes it:
      kopa record convert runs/rec-2026-11
    """
    from pathlib import Path

    from kopa.backends.convert import convert_recording

    done = convert_recording(Path(directory))
    if done.cassette is None:
        console.print(f"{directory} is in the default layout already ({done.exchanges} exchanges in run.yaml)")
    else:
        console.print(f"{done.exchanges} exchanges → {done.cassette}")


@record_group.command("diff", short_help="Compare two recordings per tool: what drifted.")
@click.argument("a")
@click.argument("b")
@out_option("Write the report into DIR as drift.md and drift.json.")
@json_option("Print the report as JSON instead of Markdown.")
def record_diff(a: str, b: str, out: str | None, as_json: bool) -> None:
    """Compare two recordings per tool: fields, formats, record counts, error rates, retired endpoints.

    \b
    A and B are recording directories or snapshot files; B may be a backend string instead, whose
    answers to A's calls are recorded into a temporary snapshot first:
      kopa record diff runs/rec-epoch0 runs/rec-epoch1 --out runs/drift
      kopa record diff runs/rec-epoch0 sim:drift=default,epoch=1 --json
    """
    from pathlib import Path

    report = _diff_report(a, b)
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "drift.md").write_text(report.markdown(), encoding="utf-8")
        (Path(out) / "drift.json").write_bytes(report.to_json())
    if as_json:
        click.echo(report.to_json().decode())
    else:
        _print_markdown(report.markdown())
    if out:
        err_console.print(f"report: {Path(out) / 'drift.md'} and drift.json")


def _diff_report(a: str, b: str):
    from pathlib import Path

    from kopa.tools.reissue import drift_report

    if not Path(a).exists():
        raise click.BadParameter(f"no snapshot or recording at {a}", param_hint="A")
    try:
        return drift_report(a, b)
    except FileNotFoundError as exc:
        raise click.BadParameter(str(exc), param_hint="B") from exc


def _print_markdown(text: str) -> None:
    from rich.markdown import Markdown

    console.print(Markdown(text))


# ---------------------------------------------------------------- sim drift


def _drift_scenario(name: str | None, epoch: int):
    """The scenario `--drift NAME --epoch N` names, checked; None without --drift."""
    from sim.drift import DriftError, load_scenario

    if name is None:
        if epoch:
            raise click.UsageError("--epoch needs --drift SCENARIO")
        return None
    try:
        scenario = load_scenario(name)
        scenario.changes_until(epoch)
    except DriftError as exc:
        raise click.UsageError(str(exc)) from exc
    return scenario


@sim_group.group("drift", short_help="Drift scenarios: numbered epochs of endpoint changes.")
def sim_drift_group() -> None:
    """Drift scenarios: numbered epochs of endpoint changes (serve one with --drift NAME --epoch N)."""


@sim_drift_group.command("show", short_help="Print a scenario's changes, epoch by epoch.")
@click.argument("scenario")
def sim_drift_show(scenario: str) -> None:
    """Print the changes of SCENARIO (a shipped name or a TOML file), epoch by epoch."""
    loaded = _drift_scenario(scenario, 0)
    console.print(f"[bold]{loaded.name}[/bold] — {loaded.description}")
    for epoch in loaded.epochs:
        table = Table(title=f"epoch {epoch.number}: {epoch.description}", title_justify="left")
        for col in ("host", "endpoint", "change", "note"):
            table.add_column(col, overflow="fold")
        for change in epoch.changes:
            table.add_row(change.host, change.endpoint, change.describe(), change.note)
        console.print(table)
    console.print(f"{loaded.max_epoch} epochs, {sum(len(e.changes) for e in loaded.epochs)} changes; "
                  "epochs are cumulative")


# ---------------------------------------------------------------- sim faults


@sim_group.group("faults", short_help="Fault profiles: each service's real fault answers, by rate.")
def sim_faults_group() -> None:
    """Fault profiles: rates of each service's real fault answers (rate limits, maintenance, 5xx, …)."""


@sim_faults_group.command("show", short_help="Print a profile's fault rates per platform and kind.")
@click.argument("profile")
def sim_faults_show(profile: str) -> None:
    """Print the expected fault rates of PROFILE (a shipped name or a TOML file) per platform and kind."""
    from rich import box

    from sim.faults import KINDS, FaultProfileError, expected_rates, load_profile

    try:
        loaded = load_profile(profile)
    except FaultProfileError as exc:
        raise click.UsageError(str(exc)) from exc
    console.print(f"[bold]{loaded.name}[/bold] — {loaded.description}")
    short = {"rate_limit": "rate lim", "maintenance": "maint", "server_error": "5xx", "timeout": "timeout",
             "connection_reset": "reset", "truncated": "trunc", "malformed": "malf"}
    table = Table(title="% of first attempts per platform and fault kind; latency in s per call",
                  title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True)
    table.add_column("platform", no_wrap=True)
    for kind in KINDS:
        table.add_column(short[kind], justify="right", no_wrap=True)
    table.add_column("any", justify="right", no_wrap=True)
    table.add_column("latency", justify="right", no_wrap=True)
    for platform, rates in expected_rates(loaded).items():
        latency = loaded.platforms[platform].latency if platform in loaded.platforms else None
        latency = loaded.default.latency if latency is None else latency
        table.add_row(platform, *(f"{100 * rates[k]:.2f}" for k in KINDS),
                      f"{100 * sum(rates.values()):.2f}", f"{latency or 0:.2f}")
    console.print(table)
    if loaded.overrides:
        over = Table(title="endpoint overrides", title_justify="left")
        for col in ("host", "path prefix", "sets"):
            over.add_column(col, overflow="fold")
        for o in loaded.overrides:
            sets = o.model_dump(exclude={"host", "path_prefix"}, exclude_none=True)
            over.add_row(o.host, o.path_prefix, ", ".join(f"{k}={v}" for k, v in sets.items()))
        console.print(over)
    console.print(f"maintenance window: attempts 0..{loaded.maintenance_attempts - 1} of a maintained request "
                  f"({loaded.maintenance_attempts} attempt(s)); a timeout costs {loaded.timeout_seconds:g} s")
    if loaded.quotas:
        quotas = ", ".join(f"{k} {v:,}" for k, v in sorted(loaded.quotas.items()))
        console.print(f"quotas per {loaded.quota_window_seconds:,} s: {quotas}")
    else:
        console.print("quotas: off (counting is order-dependent; set \\[quotas] in the profile to enable)")


if __name__ == "__main__":
    main()
