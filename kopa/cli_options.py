"""The options every `kopa` command spells one way, so a flag means the same thing wherever it appears.

One name per meaning:

- the *world* lives in the backend string (`--backend sim:seed=7,scale=full`); the `kopa sim` commands,
  which are the world, take `--world-seed`;
- the *faults* are `--faults PROFILE[,seed=N]` (the fault seed), a wrapper around whatever backend is named;
- `--policy-seeds` are the seeds episodes are sampled with (`kopa bench`), `--path-seed` the seed EDGE
  samples paths with;
- `--record DIR` records, `-o/--out` names where results go, `--json` prints JSON to stdout;
- a model is `--role NAME=MODEL[@URL]` (the agent, a judge, the writer, …), its key `KOPA_<NAME>_API_KEY`
  or `OPENAI_API_KEY`.

Old spellings (`--seed`, `--fault-seed`, `--seeds` for policy seeds, `--output`, `--model`/`--base-url` and
the `--judge-`, `--writer-`, `--solver-` and `--checker-` model flags, `kopa drift`, `kopa secrets scan`) are gone, not hidden: 0.1.0 is the first release, so an old name is an unknown option (exit 2). The
module imports click alone, so every command's start stays fast.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

BACKEND_HELP = ("Where tools are answered: sim[:seed=N,scale=small|full,today=YYYY-MM-DD,drift=NAME,epoch=N] "
                "(seed= is the world seed) | live | live:http://127.0.0.1:8800 | record:DIR@INNER | replay:DIR | "
                "snapshot:FILE | faults:PROFILE[,seed=N]@INNER.")
RECORD_HELP = ("Record every HTTP exchange (cassettes) and tool call (DuckDB snapshot) into DIR: the backend "
               "becomes record:DIR@BACKEND; rerunning records only what is missing.")
FAULTS_HELP = ("Inject faults from PROFILE (none, realistic, harsh or a TOML file); seed=N is the fault seed "
               "(default 0). Wraps the backend after --record, so a recording keeps the clean answers and a "
               "replay with the same --faults meets the same faults.")
JSON_HELP = "Print JSON to stdout instead of tables."
WORKERS_HELP = "Work items run in parallel (the results do not depend on it)."


class FaultsSpec(click.ParamType):
    """`PROFILE[,seed=N]`, normalised to `PROFILE,seed=N` so the same faults always spell the same backend
    string (a run folder's resume check compares it)."""

    name = "PROFILE[,seed=N]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        profile, *options = str(value).split(",")
        seed = "0"
        for option in options:
            key, sep, number = option.partition("=")
            if key.strip() != "seed" or not sep:
                self.fail(f"{value!r}: after the profile only seed=N may follow (e.g. realistic,seed=3)",
                          param, ctx)
            seed = number.strip()
        if not profile.strip():
            self.fail(f"{value!r}: name a profile (none, realistic, harsh or a TOML file)", param, ctx)
        try:
            int(seed)
        except ValueError:
            self.fail(f"{value!r}: seed must be an integer, not {seed!r}", param, ctx)
        return f"{profile.strip()},seed={int(seed)}"


class IntList(click.ParamType):
    """Comma-separated distinct integers, e.g. `0,1,2`, each within [low, high] where those are given (a seed:
    0 … 2³² − 1, what the samplers take). A value given twice is refused: a seed run twice is no second seed."""

    name = "N[,N…]"

    def __init__(self, low: int | None = None, high: int | None = None) -> None:
        self.low, self.high = low, high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[int]:
        if isinstance(value, list):
            return value
        try:
            numbers = [int(s) for s in str(value).split(",") if s.strip()]
        except ValueError:
            self.fail(f"{value!r}: expected comma-separated integers", param, ctx)
        if not numbers:
            self.fail(f"{value!r}: give at least one integer", param, ctx)
        twice = sorted({n for n in numbers if numbers.count(n) > 1})
        if twice:
            self.fail(f"{value!r}: {', '.join(map(str, twice))} given twice", param, ctx)
        outside = [n for n in numbers if (self.low is not None and n < self.low)
                   or (self.high is not None and n > self.high)]
        if outside:
            self.fail(f"{value!r}: {str(outside[0])[:20]} is outside {self.low}…{self.high}", param, ctx)
        return numbers


@dataclass(frozen=True)
class ModelRef:
    """The model(s) a `--role` names and the OpenAI-compatible endpoint serving them (None: the OpenAI API)."""

    models: tuple[str, ...]
    base_url: str | None = None

    @property
    def model(self) -> str:
        return self.models[0]


class RoleSpec(click.ParamType):
    """`NAME=MODEL[@URL]`: the model playing a role, and where it is served (an http(s) base URL)."""

    name = "NAME=MODEL[@URL]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, ModelRef]:
        if isinstance(value, tuple):
            return value
        role, eq, rest = str(value).partition("=")
        role = role.strip()
        if not eq or not role or not rest.strip():
            self.fail(f"{value!r}: write ROLE=MODEL[@URL], e.g. agent=Qwen/Qwen3.5-9B@http://127.0.0.1:8000/v1",
                      param, ctx)
        names, at, url = rest.partition("@")
        if at and not url.strip().startswith(("http://", "https://")):
            self.fail(f"{value!r}: after @ comes the endpoint's http(s) base URL, e.g. @http://127.0.0.1:8000/v1",
                      param, ctx)
        models = tuple(m.strip() for m in names.split(",") if m.strip())
        if not models:
            self.fail(f"{value!r}: name the model before @", param, ctx)
        return role, ModelRef(models, url.strip() or None)


def role_option(roles: dict[str, str], *, several: tuple[str, ...] = ()) -> Callable[[F], F]:
    """`--role NAME=MODEL[@URL]`, repeatable, for the roles a command has (name → what it does); the command
    gets `roles: dict[str, ModelRef]`. Only the roles in `several` take two models (`judge=A,B`)."""
    listed = "; ".join(f"{name}: {does}" for name, does in roles.items())

    def check(ctx: click.Context, param: click.Parameter, values: tuple[tuple[str, ModelRef], ...]
              ) -> dict[str, ModelRef]:
        chosen: dict[str, ModelRef] = {}
        for role, ref in values:
            if role not in roles:
                close = difflib.get_close_matches(role, list(roles), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise click.BadParameter(f"{role!r} is no role of this command{hint}; its roles: "
                                         f"{', '.join(roles)}", ctx, param)
            if role in chosen:
                raise click.BadParameter(f"{role} is given twice", ctx, param)
            if len(ref.models) > 1 and role not in several:
                raise click.BadParameter(f"{role} takes one model, not {len(ref.models)}", ctx, param)
            chosen[role] = ref
        return chosen

    return click.option("--role", "roles", type=RoleSpec(), multiple=True, callback=check, metavar=RoleSpec.name,
                        help=f"A model for a role (repeat for several): {listed}. MODEL is served at URL, an "
                             "OpenAI-compatible endpoint (default: the OpenAI API); its API key is read from "
                             "KOPA_<NAME>_API_KEY, else OPENAI_API_KEY.")


def check_llm_mode(llm_mode: str, llm_cache: str | None) -> None:
    """--llm-mode record/replay without --llm-cache would be ignored, and replay would ask the model after all
    (with no --base-url, the SDK's remote default): refused instead."""
    if llm_mode != "auto" and not llm_cache:
        raise click.UsageError(f"--llm-mode {llm_mode} needs --llm-cache DIR (where the model's replies are "
                               f"{'stored' if llm_mode == 'record' else 'replayed from'})")


def compose_backend(backend: str, record_dir: str | None, faults: str | None) -> str:
    """The one backend string that --backend, --record and --faults together name: faults outermost."""
    spec = f"record:{record_dir}@{backend}" if record_dir else backend
    return f"faults:{faults}@{spec}" if faults else spec


def backend_options(f: F) -> F:
    """--backend, --record and --faults: on every command that calls tools on a backend one chooses."""
    f = click.option("--faults", "faults", type=FaultsSpec(), metavar=FaultsSpec.name, help=FAULTS_HELP)(f)
    f = click.option("--record", "record_dir", metavar="DIR", type=click.Path(file_okay=False), help=RECORD_HELP)(f)
    return click.option("--backend", "backend_spec", metavar="SPEC", default="sim", show_default=True,
                        help=BACKEND_HELP)(f)


INT64_MAX = 2**63 - 1
"""The largest integer an option takes: a run's config is JSON that orjson, numpy and DuckDB read as 64-bit
integers, so a larger one would fail (a traceback) where it is written or used, not where it is typed."""


class _AtLeast(click.IntRange):
    """click's IntRange from a minimum up to the 64-bit limit; help and messages name the limit only to a
    number past it ("x>=1", as before, for one below the minimum)."""

    def __init__(self, minimum: int) -> None:
        super().__init__(minimum, INT64_MAX)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.INT.convert(value, param, ctx)
        if number > INT64_MAX:
            self.fail(f"{number} is past the largest number an option takes (2**63-1)", param, ctx)
        return super().convert(number, param, ctx)

    def _describe_range(self) -> str:
        return f"x>={self.min}"


SEED = _AtLeast(0)
"""A seed option (--world-seed, --path-seed, --sample-seed): 0 up to the 64-bit limit."""


def at_least(minimum: int) -> click.IntRange:
    """A count or size option: `minimum` up to the 64-bit limit, refused in one line past it."""
    return _AtLeast(minimum)


def out_option(help: str, *, default: str | None = None, file: bool = False, required: bool = False
               ) -> Callable[[F], F]:
    """-o/--out: where the command writes its results (a folder; a file for commands that write one)."""
    return click.option("-o", "--out", "out", type=click.Path(file_okay=file, dir_okay=not file), default=default,
                        show_default=default is not None, required=required,
                        metavar="FILE" if file else "DIR", help=help)


def json_option(help: str = JSON_HELP) -> Callable[[F], F]:
    return click.option("--json", "as_json", is_flag=True, help=help)


def workers_option(default: int, help: str = WORKERS_HELP) -> Callable[[F], F]:
    return click.option("--workers", type=at_least(1), default=default, show_default=True, help=help)


def executor_options(f: F) -> F:
    """--executor NAME and --address A: where independent units (path batches, study cells, episodes) run;
    --workers (workers_option) says how many. Results do not depend on either (kopa.executor)."""
    f = click.option("--address", default=None, metavar="auto|HOST:PORT",
                     help="Ray cluster to join with --executor ray ('auto': the one `ray start` runs here); "
                          "default: a local Ray instance with --workers CPUs.")(f)
    return click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                        help="Run units in local processes, or on Ray (pip install 'kopa[ray]'); the "
                             "results are byte-identical either way.")(f)
