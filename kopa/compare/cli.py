"""`kopa compare synth`: APIGen beside EDGE Phase B (kopa.compare.synth) on the command line."""

from __future__ import annotations

from pathlib import Path

import click

from kopa.cli_options import ModelRef, at_least, out_option, role_option
from kopa.console import LazyConsole, stage_bars

console = LazyConsole(soft_wrap=True)


@click.group("compare", short_help="Pipelines side by side on one inventory, backend and budget.")
def compare() -> None:
    """Pipelines side by side on one inventory, backend and budget."""


@compare.command("synth", short_help="APIGen beside EDGE Phase B: statistics, drops, robustness under drift/faults.")
@click.argument("apigen_run", type=click.Path(exists=True, file_okay=False))
@click.argument("edge_run", type=click.Path(exists=True, file_okay=False))
@click.option("--drift", default="sim:drift=default,epoch=1", show_default=True, metavar="SPEC",
              help="The drifted backend every sample is re-executed on.")
@click.option("--faulty", default="faults:harsh@sim", show_default=True, metavar="SPEC",
              help="The faulty backend every sample is re-executed on.")
@click.option("--limit", type=at_least(1), default=None, metavar="N",
              help="Re-execute only the first N samples of each dataset (by their order in the file).")
@role_option({"agent": "also play both datasets with this model and report its solve rates"})
@click.option("--llm-cache", type=click.Path(file_okay=False), default=None,
              help="--role agent: cache of LLM calls by request hash; default <out>/llm-cache.")
@click.option("--llm-mode", type=click.Choice(["auto", "record", "replay"]), default="auto", show_default=True,
              help="--role agent: auto answers from the cache and asks on a miss; record always asks; replay never "
                   "asks.")
@out_option("Where the report goes: report.md, comparison.json, plots/.", default="runs/compare-synth")
def compare_synth(apigen_run: str, edge_run: str, drift: str, faulty: str, limit: int | None,
                  roles: dict[str, ModelRef], llm_cache: str | None, llm_mode: str, out: str) -> None:
    """The two pipelines' datasets side by side: statistics (one-to-many chaining, cardinality, hops, calls,
    parallel share, junction types, domains and tools), verification drops by stage and reason, and the share
    of samples that still reproduce their answer at drift epoch 1 and under the harsh fault profile; with
    --role agent=…, that model's solve rate on each dataset (kopa's episode loop and scorers).

    \b
      kopa compare synth runs/apigen runs/synth --out runs/compare-synth
      kopa compare synth runs/apigen runs/synth --limit 100 --role agent=Qwen/Qwen3.5-9B@http://127.0.0.1:8000/v1
    """
    from kopa.compare.synth import compare_runs

    with stage_bars(console) as tick:
        text = compare_runs(Path(apigen_run), Path(edge_run), Path(out), drift=drift, faulty=faulty, limit=limit,
                            progress=tick, model=roles["agent"].model if "agent" in roles else None,
                            base_url=roles["agent"].base_url if "agent" in roles else None, llm_cache=llm_cache,
                            llm_mode=llm_mode)
    console.print(text, markup=False)
