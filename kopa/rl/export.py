"""`kopa rl export`: a task set as verl's RL dataset, and verified trajectories as SFT chat data.

verl (``--format verl``, Parquet): one row per task, as verl's ``RLHFDataset`` and ``ToolAgentLoop`` read it —
``data_source``, ``agent_name`` 'kopa_tool_agent' (verl's ToolAgentLoop that also scores the rollout where its
episode lives: :class:`kopa.rl.verl.KopaToolAgentLoop`), ``prompt`` (the system prompt with the task's injected
runtime state, then the query: the same messages a model gets in ``kopa bench run``), ``ability``,
``reward_model`` {style 'rule', ground_truth}, and ``extra_info`` {index, task_id, tools_kwargs, tool_selection (the
task's own tools, by name: verl offers only those to this sample), need_tools_kwargs}. ``tools_kwargs`` is one plain entry,
``{"kopa": {"create_kwargs": {task_id, task_set}}}``, that every kopa tool reads (they all build the same
episode): a Parquet column has one type, and an entry per tool name would make every row a union of all the
tools' names, nearly all null. The ground truth is JSON text
(the target answer, the target state hash, the reward basis): the reward function reads it whole.

SFT (``--format sft``, JSONL): from a ``kopa rl rollouts`` folder, per task the first rollout that earned
reward 1 — a verified trajectory — as ``{messages, tools, task_id, provenance}``: the chat with the
assistant's tool calls and the tool results, and the task's tools as every trainer shows them
(``kopa.rl.tool_schema.training_tool_schema``: the same rendering verl's tool config and TRL's environment
methods give, so SFT and GRPO train on one prompt). The
messages are in the chat format Hugging Face templates render (a tool call's ``arguments`` an object, not
the JSON text of the OpenAI wire, which Qwen2.5's template would write as a quoted string), so TRL's
SFTTrainer reads the file as it is: ``datasets.load_dataset("json", …)`` keeps each call's own arguments.

verl SFT (``--format verl-sft``, Parquet): the same records for verl's SFT trainer, the nested columns as JSON
text that :class:`kopa.rl.verl_sft.KopaSFTDataset` decodes (Parquet would give every call the union of all
calls' argument names, the missing ones null, and the chat template would write the nulls).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import orjson

from kopa.catalog.loader import load_catalog
from kopa.errors import UserError
from kopa.eval.contamination import audit, audit_table, held_out_subset, platforms_of
from kopa.eval.policies.prompt import initial_messages
from kopa.eval.task import Target, Task, task_set
from kopa.fileio import sql_literal, write_atomic
from kopa.rl.tool_schema import training_tool_schema

AGENT_NAME = "kopa_tool_agent"  # registered by kopa.rl.verl, which verl imports for the tools
SHARED_TOOLS_KWARGS = "kopa"  # the tools_kwargs entry every kopa tool reads
ABILITY = "tool_calling"


class ExportError(UserError, ValueError):
    """Nothing to export, or a folder that is not what the format reads."""


def data_source(task_set: str | None) -> str:
    return "kopa-bench" if task_set is None else f"kopa:{Path(task_set).name}"


def ground_truth(task: Task, target: Target) -> str:
    return orjson.dumps({"task_id": task.id, "answer": target.answer, "state_hash": target.state_hash,
                         "reward_basis": list(task.reward_basis)}, option=orjson.OPT_SORT_KEYS).decode()


def training_tool_order(task: Task) -> list[str]:
    """The order a trainer lists a task's tools in: by name, as TRL lists an environment's methods (it
    cannot be told otherwise), so verl's rows and the SFT file show the same prompt. `kopa bench run` keeps
    the task's own order."""
    return sorted(task.available_tools)


def verl_record(task: Task, target: Target, index: int, task_set: str | None, split: str = "train"
                ) -> dict[str, Any]:
    # The task set travels with the sample, so one tool config serves samples of several task sets
    # (training on a synthesized set, validating on KOPA-Bench).
    create = {"task_id": task.id, "task_set": str(Path(task_set).resolve()) if task_set else ""}
    return {
        "data_source": data_source(task_set),
        "agent_name": AGENT_NAME,
        "prompt": initial_messages(task),
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": ground_truth(task, target)},
        "extra_info": {"index": index, "split": split, "task_id": task.id, "domain": task.domain,
                       "task_set": str(Path(task_set).resolve()) if task_set else "",
                       "need_tools_kwargs": True,
                       "tools_kwargs": {SHARED_TOOLS_KWARGS: {"create_kwargs": create}},
                       "tool_selection": training_tool_order(task)},
    }


def write_verl(path: Path, tasks: list[Task], targets: dict[str, Target], task_set: str | None) -> list[dict]:
    if not tasks:
        raise ExportError("no tasks to export")
    records = [verl_record(task, targets[task.id], index, task_set) for index, task in enumerate(tasks)]
    _write_parquet(path, records)
    return records


def _write_parquet(path: Path, records: list[dict[str, Any]]) -> None:
    """The Parquet through DuckDB: rows go in as JSON lines and DuckDB infers the nested types (structs
    and lists, as verl's examples write them; never MAPs, which datasets would read as key/value lists)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = path.with_name(path.name + ".jsonl.partial")
    partial = path.with_name(path.name + ".partial")
    lines.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    con = duckdb.connect()
    try:
        con.execute("SET threads TO 1")
        con.execute(f"COPY (SELECT * FROM read_json({sql_literal(str(lines))}, format='newline_delimited', "
                    f"sample_size=-1, map_inference_threshold=-1)) TO {sql_literal(str(partial))} (FORMAT PARQUET)")
    finally:
        con.close()
        lines.unlink(missing_ok=True)
    partial.replace(path)


def sft_records(groups: list[dict[str, Any]], tasks: dict[str, Task], provenance: dict[str, Any]
                ) -> list[dict[str, Any]]:
    catalog = load_catalog()
    out: list[dict[str, Any]] = []
    for group in groups:
        verified = [r for r in group["rollouts"] if r["reward"] == 1.0]
        if not verified or group["task_id"] not in tasks:
            continue
        best = min(verified, key=lambda r: r["rollout"])
        task = tasks[group["task_id"]]
        out.append({"messages": chat_format(best["messages"]),
                    "tools": [training_tool_schema(n) for n in training_tool_order(task) if n in catalog],
                    "task_id": task.id,
                    "provenance": {**provenance, "rollout": best["rollout"], "played": best["played"]}})
    return out


def chat_format(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI wire messages as chat templates take them: each tool call's arguments as an object."""
    out: list[dict[str, Any]] = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls:
            message = {**message, "tool_calls": [
                {**call, "function": {**call["function"], "arguments": _object(call["function"]["arguments"])}}
                for call in calls]}
        out.append(message)
    return out


def _object(arguments: Any) -> dict[str, Any]:
    # the agent loop sends an unparseable call back as '{}' (kopa.rl.messages), so the text always parses
    value = orjson.loads(arguments) if isinstance(arguments, str | bytes) else arguments
    return dict(value or {})


def write_sft(path: Path, records: list[dict[str, Any]]) -> None:
    if not records:
        raise ExportError("no verified trajectory (reward 1) to export")
    write_atomic(path, b"".join(orjson.dumps(r) + b"\n" for r in records))


VERL_SFT_TEXT_COLUMNS = ("messages", "tools", "provenance")
# verl's SFT trainer overrides that read the file (kopa.rl.verl_sft imports verl, so the names are spelled here)
VERL_SFT_OVERRIDES = ("data.custom_cls.path=pkg://kopa.rl.verl_sft", "data.custom_cls.name=KopaSFTDataset")


def write_verl_sft(path: Path, records: list[dict[str, Any]]) -> None:
    """The SFT records as verl's SFT trainer reads them through :class:`kopa.rl.verl_sft.KopaSFTDataset`:
    the nested columns as JSON text, so Parquet's one type per column cannot fill each call's arguments and
    each tool's parameters with the other rows' names set to null."""
    if not records:
        raise ExportError("no verified trajectory (reward 1) to export")
    _write_parquet(path, [{k: orjson.dumps(v).decode() if k in VERL_SFT_TEXT_COLUMNS else v for k, v in r.items()}
                          for r in records])


def leave_out(tasks: list[Task], held_out: list[str]) -> list[Task]:
    """The tasks that call none of `held_out`'s platforms' data tools (an unknown platform is an error)."""
    catalog = load_catalog()
    unknown = sorted(set(held_out) - set(catalog.platforms))
    if unknown:
        raise ExportError(f"--held-out-platforms: unknown platform(s) {unknown}; one of {', '.join(catalog.platforms)}")
    return [t for t in tasks if not platforms_of(t, catalog) & set(held_out)]


def write_training_split(path: Path, tasks: list[Task], held_out: list[str]
                         ) -> tuple[list[Task], dict[str, Any], int]:
    """For a training set to be exported at `path`: (its tasks that call none of `held_out`'s platforms, the
    audit against KOPA-Bench, how many KOPA-Bench tasks need only those platforms). Beside `path` go the audit
    (.contamination.json / .md) and, with `held_out`, that subset (.heldout.parquet: the held-out evaluation
    set)."""
    catalog = load_catalog()
    bench = task_set(None)
    kept = leave_out(tasks, held_out)
    subset = held_out_subset(bench.tasks(), held_out, catalog) if held_out else []
    if held_out:
        write_verl(path.with_suffix(".heldout.parquet"), subset, bench.targets(), None)
    found = audit(kept, bench.tasks(), catalog)
    stem = path.with_suffix("")
    write_atomic(stem.with_name(stem.name + ".contamination.json"),
                 orjson.dumps(found, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    text = [f"# {path.name} against KOPA-Bench", "", f"{len(kept)} training tasks; KOPA-Bench "
            f"({len(bench.tasks())} tasks) is the validation set.", "", *audit_table(found), ""]
    write_atomic(stem.with_name(stem.name + ".contamination.md"), "\n".join(text).encode())
    return kept, found, len(subset)
