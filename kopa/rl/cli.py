"""`kopa rl`: GRPO rollout groups and what verl needs to train on KOPA-Bench or a synthesized task set.

Imports click and kopa.cli_options only; everything else is imported inside the commands, so
`kopa --help` stays fast.
"""

from __future__ import annotations

import click

from kopa.cli_options import (
    IntList,
    ModelRef,
    at_least,
    backend_options,
    check_llm_mode,
    compose_backend,
    executor_options,
    out_option,
    role_option,
    workers_option,
)
from kopa.console import LazyConsole, Table

console = LazyConsole()

TASKS_HELP = "A task set: a folder with tasks/*.yaml and targets/*.json (default: KOPA-Bench)."


@click.group(short_help="GRPO rollout groups, verl datasets, tool configs and SFT exports.")
def rl() -> None:
    """Reinforcement learning on KOPA-Bench tasks (seed §6): rollout groups with binary rewards and GRPO
    advantages on any backend, and the files verl's GRPO trainer reads (kopa.rl.verl adapts the tools
    and the reward)."""


def _only(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


@rl.command("rollouts", short_help="n episodes per task, binary reward, GRPO advantages, Parquet.")
@click.option("--tasks", "tasks_path", type=click.Path(file_okay=False), help=TASKS_HELP)
@click.option("--only", default="", help="Comma-separated task ids or domains (default: all).")
@click.option("--policy", default="mixed", show_default=True,
              help="mixed[:SHARE][,HABIT…] (the oracle with probability SHARE, else a failure-mode habit, drawn "
                   "per rollout), oracle, first_page_only, skip_key, skip_lookup, or openai (--role agent=…).")
@click.option("-n", "--rollouts", "n", type=at_least(1), default=4, show_default=True,
              help="Rollouts per task: the GRPO group size (actor_rollout_ref.rollout.n).")
@click.option("--policy-seeds", type=IntList(), default="0", show_default=True,
              help="The policy seed every rollout's random stream is named by (one; the world's is the "
                   "backend's sim:seed=N). Groups of other seeds go to another --out.")
@click.option("--no-std-norm", is_flag=True,
              help="Advantages r − mean without dividing by the group's std (Dr. GRPO; verl's "
                   "algorithm.norm_adv_by_std_in_grpo=False).")
@backend_options
@executor_options
@workers_option(1, "Groups run at once: local processes (forked once this one has loaded the task set and the world, for an offline policy), or Ray CPUs (the results do not depend on it).")
@out_option("Rollouts folder (default runs/rl-rollouts).", default="runs/rl-rollouts")
@click.option("--force", is_flag=True, help="Discard a folder made with another configuration.")
@role_option({"agent": "the model that plays (--policy openai), e.g. one a local vLLM server serves"})
@click.option("--temperature", type=float, default=1.0, show_default=True,
              help="Sampling temperature (openai policy); each rollout samples with its own seed.")
@click.option("--llm-cache", type=click.Path(file_okay=False), help="Cache LLM calls here (record/replay).")
@click.option("--llm-mode", type=click.Choice(["auto", "record", "replay"]), default="auto", show_default=True,
              help="With --llm-cache: auto asks the model on a miss; record always asks; replay never does.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON instead of tables.")
def rollouts_cmd(tasks_path: str | None, only: str, policy: str, n: int, policy_seeds: list[int], no_std_norm: bool,
                 backend_spec: str, record_dir: str | None, faults: str | None, executor: str,
                 address: str | None, workers: int, out: str, force: bool, roles: dict[str, ModelRef],
                 temperature: float, llm_cache: str | None, llm_mode: str,
                 as_json: bool) -> None:
    """Play n rollouts of every task (resumable: finished groups are kept), score each with kopa's
    RESPONSE / ENVIRONMENT scorers (reward 1 when the task's reward basis passes), compute the GRPO
    advantages and write OUT/rollouts.parquet (one row per rollout), stats.json and report.md.

    \b
      kopa rl rollouts -n 4 --policy mixed:0.5
      kopa rl rollouts --tasks runs/edge-synth --policy mixed --executor ray --workers 8
      kopa rl rollouts --policy openai --role agent=Qwen/Qwen3.5-4B@http://127.0.0.1:8000/v1
    """
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.executor import open_executor
    from kopa.rl.rollouts import RolloutConfig, forkable, generate, read_groups, select
    from kopa.rl.stats import group_stats

    if len(policy_seeds) != 1:
        raise click.BadParameter("one seed per rollouts folder (run once per seed, each with its own --out)",
                                 param_hint="--policy-seeds")
    check_llm_mode(llm_mode, llm_cache)
    agent = roles.get("agent")
    if (policy == "openai") != (agent is not None):
        raise click.UsageError("--policy openai and --role agent=MODEL[@URL] go together: the role names the "
                               "model that plays")
    config = RolloutConfig(policy=policy, backend=compose_backend(backend_spec, record_dir, faults), n=n,
                           seed=policy_seeds[0], task_set=tasks_path, only=_only(only), norm_adv_by_std=not no_std_norm,
                           model=agent.model if agent else None, base_url=agent.base_url if agent else None,
                           llm_cache=llm_cache, llm_mode=llm_mode,
                           temperature=temperature)
    tasks, _ = select(config)
    target = Path(out)
    done = len(read_groups(target)) if (target / "config.json").exists() else 0
    with open_executor(executor, workers=workers, address=address, fork=forkable(config)) as units, \
            Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                     console=console.real, transient=True) as progress:
        bar = progress.add_task("rollout groups", total=len(tasks), completed=min(done, len(tasks)))
        groups = generate(config, target, executor=None if units.in_process else units, force=force,
                          on_group=lambda g: progress.advance(bar))
    stats = group_stats(groups, n, norm_by_std=config.norm_adv_by_std)
    if as_json:
        click.echo(stats.model_dump_json(indent=2))
        return
    _print_stats(stats)
    console.print(f"[dim]{target / 'rollouts.parquet'} · {target / 'report.md'}[/dim]")


def _print_stats(stats) -> None:
    from kopa.rl.stats import summary_rows

    table = Table(title="GRPO rollout groups")
    table.add_column("figure")
    table.add_column("value")
    for label, value in summary_rows(stats):
        table.add_row(label, value)
    console.print(table)
    for title, slices in (("domain", stats.by_domain), ("junction", stats.by_junction)):
        part = Table(title=f"by {title}")
        for column in (title, "groups", "pass@1", f"pass@{stats.n}", "zero-variance"):
            part.add_column(column, justify="left" if column == title else "right")
        for s in slices:
            part.add_row(s.name, str(s.groups), f"{s.pass_at_1:.4f}", f"{s.pass_at_n:.4f}", f"{s.zero_variance:.4f}")
        console.print(part)


@rl.command("view", short_help="The rollouts as pages in the browser, beside the golden trajectories.")
@click.argument("rollouts_dir", type=click.Path(exists=True, file_okay=False))
@out_option("Write the site here (default: ROLLOUTS_DIR/view).")
def view_cmd(rollouts_dir: str, out: str | None) -> None:
    """Write the static site `kopa bench view` writes for a `kopa rl rollouts` folder: a row per rollout
    (filters: domain, reward, failure cause), each rollout's messages and calls beside its golden trajectory.

    \b
      kopa rl rollouts --only finance -n 4 --out runs/rl && kopa rl view runs/rl
    """
    from pathlib import Path

    from kopa.rl.view import write_rollout_view

    index = write_rollout_view(Path(rollouts_dir), Path(out) if out else None)
    console.print(f"{index} — open it in a browser (file://{index.resolve()})")


@rl.command("export", short_help="verl's RL Parquet of a task set, or the SFT data of verified rollouts.")
@click.option("--format", "fmt", type=click.Choice(["verl", "sft", "verl-sft"]), required=True,
              help="verl: the task set as verl's RL dataset (Parquet); sft: verified trajectories of a "
                   "rollouts folder as chat JSONL (TRL, datasets); verl-sft: the same for verl's SFT trainer "
                   "(Parquet, read with kopa's dataset class: the command prints the two overrides).")
@click.option("--tasks", "tasks_path", type=click.Path(file_okay=False), help=TASKS_HELP + " (--format verl)")
@click.option("--only", default="", help="Comma-separated task ids or domains (--format verl; default: all).")
@click.option("--from", "rollouts_dir", type=click.Path(file_okay=False, exists=True), metavar="DIR",
              help="A `kopa rl rollouts` folder (--format sft, verl-sft): per task its first rollout with reward 1.")
@click.option("--held-out-platforms", default="", metavar="P,Q",
              help="Leave out the training tasks that call these platforms' tools; with --format verl also "
                   "write KOPA-Bench's tasks that need only them as OUT.heldout.parquet (the paper's held-out "
                   "study: seoul,dart,krx, 31 tasks).")
@out_option("The file to write (default runs/rl-export/kopa.parquet, sft.jsonl or sft.parquet).", file=True)
@click.option("--show", is_flag=True, help="Print the first record.")
def export_cmd(fmt: str, tasks_path: str | None, only: str, rollouts_dir: str | None, held_out_platforms: str,
               out: str | None, show: bool) -> None:
    """Write what a trainer reads. A training set (--format verl --tasks DIR) is audited against KOPA-Bench,
    the validation set, beside the export: OUT.contamination.md and .json (benchmark queries it repeats
    verbatim or nearly, and the tool-universe overlap).

    \b
      kopa rl export --format verl -o runs/rl/val.parquet                       # KOPA-Bench
      kopa rl export --format verl --tasks runs/synth -o runs/rl/train.parquet  # Phase B, audited
      kopa rl export --format verl --tasks runs/synth-heldout --held-out-platforms seoul,dart,krx \\
                     -o runs/rl/train.parquet
      kopa rl export --format sft --from runs/rl-rollouts -o runs/rl/sft.jsonl
      kopa rl export --format verl-sft --from runs/rl-rollouts -o runs/rl/sft.parquet
    """
    import json
    from pathlib import Path

    from kopa.rl import export

    if fmt == "verl":
        from kopa.rl.rollouts import RolloutConfig, select

        if rollouts_dir:
            raise click.UsageError("--from is for --format sft or verl-sft; --format verl reads --tasks")
        held_out = _only(held_out_platforms)
        if held_out and tasks_path is None:
            raise click.UsageError("--held-out-platforms splits a training set: name it with --tasks DIR")
        tasks, targets = select(RolloutConfig(task_set=tasks_path, only=_only(only)))
        path = Path(out or "runs/rl-export/kopa.parquet")
        if tasks_path is not None:  # a training set: audited against KOPA-Bench, split by platform if asked
            kept, found, subset = export.write_training_split(path, tasks, held_out)
            if held_out:
                click.echo(f"{path.with_suffix('.heldout.parquet')}: {subset} KOPA-Bench tasks that need only "
                           f"{', '.join(held_out)} (paper: 31); {len(tasks) - len(kept)} training tasks calling "
                           "them left out")
            tasks = kept
            click.echo(f"contamination: {found['verbatim']}/{found['bench_tasks']} benchmark queries repeated "
                       f"verbatim, {found['near_verbatim']} nearly; tool-universe overlap "
                       f"{100 * found['bench_covered']:.1f}% → {path.with_suffix('').name}.contamination.md")
        records = export.write_verl(path, tasks, targets, tasks_path)
        click.echo(f"{path}: {len(records)} tasks (verl RL dataset)")
    else:
        from kopa.eval.task import task_set
        from kopa.fileio import read_json
        from kopa.rl.rollouts import read_groups

        if not rollouts_dir:
            raise click.UsageError(f"--format {fmt} needs --from DIR (a `kopa rl rollouts` folder)")
        folder = Path(rollouts_dir)
        if not (folder / "config.json").exists():
            raise export.ExportError(f"{folder}: not a rollouts folder (no config.json)")
        config = read_json(folder / "config.json", what="a rollouts folder's config",
                           error=export.ExportError).get("config")
        if not isinstance(config, dict):
            raise export.ExportError(f"{folder / 'config.json'}: not a rollouts folder's config (no \"config\" object)")
        kept_out = _only(held_out_platforms)
        by_id = {t.id: t for t in export.leave_out(list(task_set(config.get("task_set")).tasks()), kept_out)}
        provenance = {k: config.get(k) for k in ("backend", "policy", "seed", "n", "task_set", "model")}
        records = export.sft_records(read_groups(folder, finished=True), by_id, provenance)
        left_out = f"; tasks calling {', '.join(sorted(kept_out))} left out" if kept_out else ""
        if fmt == "sft":
            path = Path(out or "runs/rl-export/sft.jsonl")
            export.write_sft(path, records)
            click.echo(f"{path}: {len(records)} verified trajectories (chat JSONL){left_out}")
        else:
            path = Path(out or "runs/rl-export/sft.parquet")
            export.write_verl_sft(path, records)
            click.echo(f"{path}: {len(records)} verified trajectories (verl SFT Parquet){left_out}; verl's SFT "
                       f"trainer reads it with {' '.join(export.VERL_SFT_OVERRIDES)}")
    if show:
        click.echo(json.dumps(records[0], ensure_ascii=False, indent=2))


@rl.command("verl-config", short_help="verl's tool config YAML for the tools task sets use.")
@click.option("--tasks", "tasks_paths", type=click.Path(file_okay=False), multiple=True,
              help=TASKS_HELP + " Repeat it for the tools of several (e.g. training and validation sets).")
@click.option("--only", default="", help="Comma-separated task ids or domains (default: all).")
@click.option("--backend", "training_backend", metavar="SPEC", default="sim", show_default=True,
              help="The backend string written into the config: where the tools answer during training "
                   "(e.g. replay:DIR); nothing is called now.")
@click.option("--with-kopa-bench", is_flag=True,
              help="Add KOPA-Bench's tools to those of --tasks (KOPA-Bench as the validation set).")
@click.option("--max-tool-chars", type=at_least(200), default=24_000, show_default=True,
              help="A longer tool result keeps its leading records (valid JSON, with a note) — the cut `kopa bench "
                   "run` makes by default, so a trained model reads results as it is evaluated on them; set "
                   "verl's multi_turn.max_tool_response_length above it.")
@out_option("The YAML to write (default runs/rl-export/kopa_tools.yaml).", file=True)
def verl_config_cmd(tasks_paths: tuple[str, ...], only: str, training_backend: str, with_kopa_bench: bool,
                    max_tool_chars: int, out: str | None) -> None:
    """One entry per tool (class_name kopa.rl.verl.KopaTool, config with the backend, the tool's schema in the
    form verl's schema model keeps), for actor_rollout_ref.rollout.multi_turn.tool_config_path.

    \b
      kopa rl verl-config -o runs/rl/kopa_tools.yaml
      kopa rl verl-config --tasks runs/edge-synth --with-kopa-bench --backend replay:runs/rec
    """
    from pathlib import Path

    from kopa.backends.parsed import backend_kind
    from kopa.fileio import write_atomic
    from kopa.rl.rollouts import RolloutConfig, select
    from kopa.rl.verl_config import render, tool_config

    backend_kind(training_backend)  # written down for training, opened only there: at least a known kind
    sets: list[str | None] = [*tasks_paths] or [None]
    if with_kopa_bench and None not in sets:
        sets.append(None)
    tasks = [t for path in sets for t in select(RolloutConfig(task_set=path, only=_only(only)))[0]]
    default = str(Path(tasks_paths[0]).resolve()) if tasks_paths else None
    config = tool_config(tasks, backend=training_backend, task_set=default, max_tool_chars=max_tool_chars)
    path = Path(out or "runs/rl-export/kopa_tools.yaml")
    write_atomic(path, render(config).encode())
    click.echo(f"{path}: {len(config['tools'])} tools for {len(tasks)} tasks")


@rl.command("tool-format", short_help="verl's tool-call parser for a model (multi_turn.format).")
@click.argument("model", required=False)
@click.option("--list", "list_families", is_flag=True, help="Print every known model family, its parser and what "
                                                          "its tool calls look like.")
def tool_format_cmd(model: str | None, list_families: bool) -> None:
    """Print the verl parser (actor_rollout_ref.rollout.multi_turn.format) that reads the tool calls MODEL
    writes: a parser that does not match the model reads no call, and every rollout ends at its first turn.
    A model of no known family is refused in one line (exit 2).

    \b
      kopa rl tool-format Qwen/Qwen3.5-4B          # qwen3_coder
      kopa rl tool-format --list
    """
    from kopa.rl.tool_formats import FAMILIES, tool_call_format

    if list_families:
        for family in FAMILIES:
            click.echo(f"{family.name:<18} {family.parser:<12} {family.writes}")
        return
    if model is None:
        raise click.UsageError("name a MODEL (a hub id or a local path), or --list")
    click.echo(tool_call_format(model))


@rl.command("tiny-model", short_help="A tiny random Qwen2 and its tokenizer, to try training on a CPU.")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--template", type=click.Choice(["hermes", "qwen2.5"]), default="hermes", show_default=True,
              help="The chat template: hermes (<tool_call> JSON; verl's hermes parser reads it) or qwen2.5 "
                   "(TRL's own Qwen2.5 template, whose tool calls TRL's parser reads).")
def tiny_model_cmd(out: str, template: str) -> None:
    """Build a tiny causal LM with random weights (a Qwen2 of about 0.4M parameters) and a byte-level BPE tokenizer
    trained on KOPA-Bench's prompts and tools, seeded, nothing downloaded — for smoke runs of verl or TRL on
    kopa's tools. It learns to call tools only once trained on trajectories (`kopa rl export --format sft`).
    Needs transformers and torch: `pip install 'kopa[trl]'`.

    \b
      kopa rl tiny-model runs/tiny --template qwen2.5      # the README's TRL snippet
      kopa rl tiny-model runs/gpu-smoke/model              # what benchmark/rl/gpu_smoke.sh serves with vLLM
    """
    from importlib.util import find_spec
    from pathlib import Path

    from kopa.errors import UserError
    from kopa.rl.tiny_model import CHATML, build

    missing = [m for m in ("torch", "transformers", "tokenizers", *(["trl"] if template == "qwen2.5" else []))
               if find_spec(m) is None]
    if missing:
        raise UserError(f"kopa rl tiny-model needs {', '.join(missing)}: pip install 'kopa[trl]'")
    chat_template = CHATML
    if template == "qwen2.5":
        from trl import chat_template_utils

        chat_template = chat_template_utils.qwen2_5_chat_template
    console.print(build(Path(out), chat_template))
