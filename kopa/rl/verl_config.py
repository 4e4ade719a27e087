"""`kopa rl verl-config`: verl's tool config YAML for exactly the tools a task set offers.

verl reads ``tools: [{class_name, config, tool_schema}]`` (``verl.tools.tool_registry``); each schema is
``kopa.rl.tool_schema.training_tool_schema``, the shape verl's ``OpenAIFunctionToolSchema`` keeps whole.

Every tool is the one class ``kopa.rl.verl.KopaTool``; its ``config`` names the backend (one YAML, one
backend), a default task set (each exported sample names its own) and how long a tool result may be.
"""

from __future__ import annotations

from typing import Any

import yaml

from kopa.catalog.loader import load_catalog
from kopa.eval.task import Task
from kopa.rl.tool_schema import VerlSchemaError, training_tool_schema
from kopa.tools.render import MAX_TOOL_CHARS  # the cut evaluation makes: one setting for both

TOOL_CLASS = "kopa.rl.verl.KopaTool"


def used_tools(tasks: list[Task]) -> list[str]:
    """Every tool some task offers, sorted; a tool the catalog lacks is an error."""
    catalog = load_catalog()
    names = sorted({name for task in tasks for name in task.available_tools})
    unknown = [n for n in names if n not in catalog]
    if unknown:
        raise VerlSchemaError(f"tools not in the catalog: {unknown[:10]}")
    return names


def tool_config(tasks: list[Task], *, backend: str, task_set: str | None,
                max_tool_chars: int = MAX_TOOL_CHARS) -> dict[str, Any]:
    config = {"type": "native", "backend": backend, "task_set": task_set, "max_tool_chars": max_tool_chars}
    return {"tools": [{"class_name": TOOL_CLASS, "config": dict(config), "tool_schema": training_tool_schema(name)}
                      for name in used_tools(tasks)]}


def render(config: dict[str, Any]) -> str:
    header = ("# verl tool config (actor_rollout_ref.rollout.multi_turn.tool_config_path), written by "
              "`kopa rl verl-config`\n")
    return header + yaml.safe_dump(config, allow_unicode=True, sort_keys=False, width=120)
