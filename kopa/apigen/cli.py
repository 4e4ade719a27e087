"""`kopa apigen generate | verify` and `kopa compare synth`."""

from __future__ import annotations

import time
from pathlib import Path

import click

from kopa.cli_options import (
    SEED,
    ModelRef,
    at_least,
    backend_options,
    compose_backend,
    out_option,
    role_option,
)
from kopa.console import LazyConsole, stage_bars

console = LazyConsole(soft_wrap=True)


@click.group("apigen", short_help="APIGen on the catalog: generate and verify function-calling data.")
def apigen() -> None:
    """APIGen (the seed's baseline) on kopa's catalog: generate and verify function-calling data."""


def _checker_options(f):
    f = click.option("--llm-mode", type=click.Choice(["auto", "record", "replay"]), default="auto",
                     show_default=True, help="auto answers from the LLM cache and asks the model on a miss; "
                                             "record always asks; replay never asks (a miss is an error).")(f)
    f = click.option("--llm-cache", type=click.Path(file_okay=False), default=None,
                     help="Cache of LLM calls by request hash; default <out>/llm-cache.")(f)
    return click.option("--checker", type=click.Choice(["rules", "openai"]), default="rules", show_default=True,
                        help="Semantic checker: offline rules (they say which criteria they decide) or a chat "
                             "model asked the seed's five criteria.")(f)


CHECKER_ROLE = {"checker": "the chat model of --checker openai"}


def _paired(role: str, kind: str, roles: dict[str, ModelRef]) -> ModelRef | None:
    """The model of `role` where its option chose openai; refused where the two disagree."""
    if (kind == "openai") != (role in roles):
        raise click.UsageError(f"--{role} openai and --role {role}=MODEL[@URL] go together: the role names the "
                               "model")
    return roles.get(role)


def _checker(kind: str, roles: dict[str, ModelRef], cache_dir: str, mode: str, catalog):
    from kopa.apigen.semantic import ChatChecker, RuleChecker

    ref = _paired("checker", kind, roles)
    if ref is None:
        return RuleChecker(catalog)
    from kopa.llm.cache import cached_openai_model

    return ChatChecker(cached_openai_model(ref.model, ref.base_url, cache_dir, mode,  # type: ignore[arg-type]
                                           role="checker"))


def _split(text: str) -> frozenset[str]:
    return frozenset(p.strip() for p in text.split(",") if p.strip())


@apigen.command("generate", short_help="Generate samples of the four styles and verify them in three stages.")
@backend_options
@click.option("--count", "count", type=at_least(1), default=200, show_default=True,
              help="Samples to generate (each then verified; the seed generated 40,000 per model).")
@click.option("--budget", type=at_least(1), default=None, metavar="CALLS",
              help="Stop once this many tool calls are spent (probing the value cache included): the budget "
                   "`kopa compare synth` compares pipelines on.")
@click.option("--sample-seed", "seed", type=SEED, default=0, show_default=True,
              help="The seed APIGen samples with: every sample's stream (seed, index) — tools, style, prompt, "
                   "arguments (the world's seed is the backend's sim:seed=N).")
@click.option("--domains", default="", metavar="D,E", help="Sample tools of these domains only (e.g. finance,law).")
@click.option("--platforms", default="", metavar="P,Q", help="Sample tools of these platforms only (e.g. dart,krx).")
@click.option("--real-only", is_flag=True,
              help="Sample only tools with a live endpoint (not the simulator-only long tail).")
@click.option("--generator", type=click.Choice(["template", "openai"]), default="template", show_default=True,
              help="Generator role: offline Korean templates with arguments the backend returned, or a chat model.")
@role_option({"generator": "the chat model of --generator openai", **CHECKER_ROLE})
@click.option("--temperature", type=float, default=0.7, show_default=True,
              help="--generator openai: the sampling temperature (the seed's 0.7).")
@_checker_options
@out_option("Run folder: verified.jsonl, verdicts.jsonl, relevance.jsonl, report.md, stats.json, parts/.",
            default="runs/apigen")
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
def generate_command(backend_spec: str, record_dir: str | None, faults: str | None, count: int, budget: int | None,
                     seed: int, domains: str, platforms: str, real_only: bool, generator: str,
                     roles: dict[str, ModelRef], temperature: float, checker: str, llm_cache: str | None,
                     llm_mode: str, out: str, force: bool) -> None:
    """Sample APIs, few-shot examples (verified samples fed back) and a prompt; generate `{query, answers}`;
    verify by format, execution on the backend and semantics; resumable per chunk of 25 samples.

    \b
      kopa apigen generate --count 500 --platforms dart,krx,assembly,kdic --out runs/apigen
      kopa apigen generate --count 200 --faults harsh --out runs/apigen-harsh
      kopa apigen generate --generator openai --role generator=Qwen/Qwen3.5-9B@http://127.0.0.1:8000/v1 \\
                           --checker openai --role checker=Qwen/Qwen3.5-9B@http://127.0.0.1:8000/v1
    """
    from kopa.apigen.generator import GENERATION_TEMPERATURE, ChatGenerator, TemplateGenerator
    from kopa.apigen.run import generate_run
    from kopa.catalog.loader import load_catalog

    catalog = load_catalog()
    spec = compose_backend(backend_spec, record_dir, faults)
    cache_dir = llm_cache or str(Path(out) / "llm-cache")
    chosen = _checker(checker, roles, cache_dir, llm_mode, catalog)
    ref = _paired("generator", generator, roles)
    if ref is None:
        name = "template"

        def factory(cache, today):
            return TemplateGenerator(cache, today)
    else:
        from kopa.llm.cache import cached_openai_model

        chat = cached_openai_model(ref.model, ref.base_url, cache_dir, llm_mode,  # type: ignore[arg-type]
                                   role="generator",
                                   temperature=temperature if temperature is not None else GENERATION_TEMPERATURE)
        name = f"openai:{ref.model}@{temperature}"

        def factory(cache, today):
            return ChatGenerator(chat, cache)
    from kopa.llm.client import ChatModelError

    started = time.perf_counter()
    try:
        with stage_bars(console) as tick:
            tallied = generate_run(Path(out), count, factory, chosen, catalog, generator_name=name,
                                   backend_spec=spec, seed=seed, budget=budget, domains=_split(domains),
                                   platforms=_split(platforms), real_only=real_only, force=force, progress=tick)
    except ChatModelError as exc:
        raise click.ClickException(f"LLM role failed: {exc}") from exc
    _print_summary(Path(out), name, tallied, started)


@apigen.command("verify", short_help="Verify a JSONL file in the xlam format (format, execution, semantic).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@backend_options
@_checker_options
@role_option(CHECKER_ROLE)
@out_option("Run folder: verdicts.jsonl (one line per input record, in order), verified.jsonl, report.md.",
            default="runs/apigen-verify")
@click.option("--force", is_flag=True, help="Discard a run folder made with another input or configuration.")
def verify_command(file: str, backend_spec: str, record_dir: str | None, faults: str | None, checker: str,
                   roles: dict[str, ModelRef], llm_cache: str | None, llm_mode: str, out: str, force: bool) -> None:
    """Verify any file in the xlam-function-calling-60k format (`id`, `query`, `tools`, `answers`; lists or JSON
    text): calls to catalog tools run on the backend, keys filled by the runtime; resumable per chunk.

    \b
      kopa apigen verify tests/data/apigen/xlam_kopa_100.jsonl --out runs/apigen-verify
      kopa apigen verify my_slice.jsonl --faults realistic --out runs/slice-verify
    """
    from kopa.apigen.run import verify_run
    from kopa.catalog.loader import load_catalog
    from kopa.llm.client import ChatModelError

    catalog = load_catalog()
    spec = compose_backend(backend_spec, record_dir, faults)
    chosen = _checker(checker, roles, llm_cache or str(Path(out) / "llm-cache"), llm_mode, catalog)
    started = time.perf_counter()
    try:
        with stage_bars(console) as tick:
            tallied = verify_run(Path(file), Path(out), chosen, catalog, backend_spec=spec, force=force,
                                 progress=tick)
    except ChatModelError as exc:
        raise click.ClickException(f"LLM role failed: {exc}") from exc
    _print_summary(Path(out), f"file:{Path(file).name}", tallied, started)


def _print_summary(out: Path, name: str, tallied, started: float) -> None:
    import orjson

    from kopa.apigen.report import render_reasons, render_table

    stats = orjson.loads((out / "stats.json").read_bytes())
    console.print(render_table(name, stats["table"]), markup=False)
    console.print("")
    console.print(render_reasons(stats["table"]), markup=False)
    samples = tallied.samples
    if samples:
        console.print("\nOne verified sample per style:", markup=False)
    for style, record in samples.items():
        calls = orjson.dumps([{"name": c.name, "arguments": c.arguments} for c in record.answers]).decode()
        console.print(f"  [{style}] {record.query}\n    {calls}", markup=False)
    console.print(f"\n{stats['table']['verified']} verified of {tallied.generated}; {stats['relevance']} relevance "
                  f"samples; {stats['calls']} tool calls; {time.perf_counter() - started:.1f} s → {out}/verified.jsonl, "
                  "verdicts.jsonl, relevance.jsonl, report.md", markup=False)


# ------------------------------------------------------------------------------ kopa compare
