"""kopa's tools and reward inside TRL's GRPOTrainer (``environment_factory``), which runs on CPU.

    from trl import GRPOConfig, GRPOTrainer
    from kopa.rl.trl import KopaTRL

    kopa = KopaTRL.of(tasks="runs/synth", backend="sim")    # a Phase B folder; None: KOPA-Bench
    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), train_dataset=Dataset.from_list(kopa.dataset()),
                          environment_factory=kopa.environments(), reward_funcs=[kopa.reward])

TRL exposes an environment's public methods as the tools of a rollout and builds their schemas from each
method's signature and Google-style docstring (transformers' ``get_json_schema``). A task offers its own
tools, so each task gets an environment class whose methods are exactly those tools, written so that
get_json_schema reads back ``kopa.rl.tool_schema.training_tool_schema`` character for character — what verl's
tool config and the SFT export carry, so a model is SFT-trained and GRPO-trained on one prompt (TRL lists the
methods by name; the SFT export and verl's rows list them so too). Every dataset row names its task's
environment (TRL's multi-environment mode). One instance
is one rollout: ``reset`` starts the task's episode (setup actions, the injected date, the call budget) and
every call goes through kopa's runtime, its result rendered as the agent loop renders it.

The reward is kopa's (:func:`kopa.rl.reward.compute_score`, the one verl calls): the final assistant message
scored against the task's target with the episode's end state and calls — 1.0 when every component of the
task's reward basis passes, else 0.0. Needs no TRL import: TRL calls in.
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kopa.backends.base import Backend
from kopa.backends.spec import open_backend
from kopa.eval.environment import Environment
from kopa.eval.policies.prompt import initial_messages
from kopa.eval.task import Target, Task, task_set
from kopa.rl.episodes import Episode, snapshot
from kopa.rl.export import data_source, ground_truth
from kopa.rl.reward import compute_score
from kopa.rl.tool_schema import training_tool_schema
from kopa.tools.render import MAX_TOOL_CHARS, render_result

_ROLLOUTS = itertools.count(1)  # names each rollout's episode (the name is not scored)
PYTHON_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}


def tool_method(name: str) -> Callable[..., str]:
    """The tool `name` as an environment method TRL can describe and call. Its signature, annotations and
    Google-style docstring are written so that transformers' get_json_schema reads back exactly
    `training_tool_schema(name)`: what verl and the SFT export show a model too (tests/test_rl_trl.py)."""
    function = training_tool_schema(name)["function"]
    properties: dict[str, dict[str, Any]] = function["parameters"]["properties"]
    required = set(function["parameters"].get("required", []))
    ordered = list(properties)  # keyword-only: a required one may follow a default, so the schema's order holds
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for param in ordered:
        # an optional parameter defaults to None but is annotated with its plain type: `str | None` would make
        # get_json_schema add "nullable", which the schema does not say
        annotations[param] = kind = PYTHON_TYPES[properties[param]["type"]]
        parameters.append(inspect.Parameter(param, inspect.Parameter.KEYWORD_ONLY, annotation=kind,
                                            default=inspect.Parameter.empty if param in required else None))
    # no return annotation and no Returns section: get_json_schema would add a "return" entry the schema lacks
    args = "".join(f"\n    {p}: {_argument_doc(properties[p])}" for p in ordered)

    def call(self: KopaEnvironment, **arguments: Any) -> str:
        # everything the model wrote goes to kopa's runtime, which answers a missing or unknown argument with
        # its structural error as the agent loop does (the signature is for the schema, not enforced)
        return self._call(name, {k: v for k, v in arguments.items() if v is not None})

    call.__name__ = call.__qualname__ = name
    call.__doc__ = function["description"] + (f"\n\nArgs:{args}" if args else "")
    call.__annotations__ = annotations
    call.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return call


def _argument_doc(prop: dict[str, Any]) -> str:
    """A property's description as one docstring line; an enum as get_json_schema reads one back."""
    text = " ".join((prop.get("description") or "").split())
    if "enum" in prop:
        text += f" (choices: {json.dumps(prop['enum'], ensure_ascii=False)})"
    return text


class KopaEnvironment:
    """One rollout of one task: TRL builds an instance, calls `reset` with the dataset row, then the tool
    methods the model calls. Subclasses (one per task, `KopaTRL.environments`) add the task's tools."""

    task: Task
    target: Target
    backend: Backend
    max_tool_chars: int = MAX_TOOL_CHARS

    def reset(self, **row: Any) -> None:
        self.episode = Episode(f"trl-{self.task.id}-{next(_ROLLOUTS)}",
                               Environment(self.task, self.backend, budget=self.target.max_allowed_calls))
        return None  # the row's prompt already holds the query and the injected state

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        env = self.episode.env
        result = env.call(name, arguments, len(env.calls) + 1)
        return render_result(result, self.max_tool_chars)


@dataclass
class KopaTRL:
    """A task set, its targets and one backend: what TRL's GRPOTrainer needs from kopa."""

    tasks: list[Task]
    targets: dict[str, Target]
    backend: Backend
    task_set: str | None = None
    max_tool_chars: int = MAX_TOOL_CHARS

    @classmethod
    def of(cls, tasks: str | None = None, backend: str = "sim", only: list[str] | None = None,
           max_tool_chars: int = MAX_TOOL_CHARS) -> KopaTRL:
        found = task_set(tasks)
        chosen = [t for t in found.tasks() if not only or t.id in only]
        return cls(chosen, found.targets(), open_backend(backend), tasks, max_tool_chars)

    def dataset(self) -> list[dict[str, Any]]:
        """Rows for `datasets.Dataset.from_list`: the prompt a model gets in `kopa bench run`, the task's
        environment, and what the reward reads."""
        return [{"prompt": initial_messages(task), "environment": task.id, "task_id": task.id,
                 "data_source": data_source(self.task_set),
                 "ground_truth": ground_truth(task, self.targets[task.id])} for task in self.tasks]

    def environments(self) -> dict[str, Callable[[], KopaEnvironment]]:
        """Per task, a class whose methods are the task's tools (TRL instantiates it once per rollout)."""
        classes: dict[str, Callable[[], KopaEnvironment]] = {}
        for task in self.tasks:
            attributes: dict[str, Any] = {name: tool_method(name) for name in task.available_tools}
            attributes.update(task=task, target=self.targets[task.id], backend=self.backend,
                              max_tool_chars=self.max_tool_chars)
            classes[task.id] = type(f"KopaEnvironment_{task.id.replace('-', '_')}", (KopaEnvironment,), attributes)
        return classes

    def reward(self, prompts: list[Any], completions: list[Any], environments: list[KopaEnvironment],
               ground_truth: list[str], data_source: list[str], **kwargs: Any) -> list[float]:
        """TRL's reward function: per rollout, kopa's binary reward (compute_score's 'score')."""
        scores = []
        for completion, environment, truth, source in zip(completions, environments, ground_truth, data_source,
                                                          strict=True):
            extra = {"kopa": snapshot(environment.episode), "task_set": self.task_set}
            scores.append(compute_score(source, final_text(completion), truth, extra)["score"])
        return scores


def final_text(completion: Any) -> str:
    """The model's last message: a conversational completion's last assistant message without tool calls
    (a rollout that ends on a call has no answer), or a plain completion's text."""
    if isinstance(completion, str):
        return completion
    last = completion[-1] if completion else {}
    if last.get("role") != "assistant" or last.get("tool_calls"):
        return ""
    content = last.get("content") or ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)
