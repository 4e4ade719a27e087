"""KOPA-Bench tasks (pydantic), loaded from `benchmark/tasks/*.yaml`; targets from `benchmark/targets/`.

A task's golden trajectory is written with references (`kopa.eval.template`) to earlier steps' results;
its target answer and target state are never written by hand — `kopa bench targets` executes the
trajectory on the simulator and stores them, and a test re-executes every trajectory against them.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any, Literal

import orjson
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Domain = Literal["traffic", "finance", "education", "law", "politics", "district"]
RewardBasis = Literal["RESPONSE", "ENVIRONMENT"]
HEADROOM = 2.45  # the paper's max_allowed_calls / optimal calls

ROOT = Path(__file__).resolve().parents[2] / "benchmark"
TASK_DIR = ROOT / "tasks"
TARGET_DIR = ROOT / "targets"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GoldenStep(_Strict):
    """One step of the golden trajectory: a call, a fan-out of calls, or a group issued together."""

    id: str
    call: str | None = None
    args: dict[str, Any] = {}
    for_each: str | None = Field(None, description="a reference to a list: one call per element (`{item}`)")
    limit: int | None = Field(None, description="fan-out cap")
    pages: Literal["one", "all"] = Field("one", description="all: read every page (a reduction input)")
    page_size: int | None = None
    parallel: list[GoldenStep] | None = Field(None, description="independent steps issued in one turn")

    @model_validator(mode="after")
    def _shape(self) -> GoldenStep:
        if (self.call is None) == (self.parallel is None):
            raise ValueError(f"step {self.id!r}: give exactly one of call or parallel")
        if self.parallel is not None and (self.for_each or self.args or self.pages != "one"):
            raise ValueError(f"step {self.id!r}: a parallel group takes no args, for_each or pages")
        return self


class SetupAction(_Strict):
    tool: str
    args: dict[str, Any] = {}


class InjectedState(_Strict):
    predefined: dict[str, str] = Field(default_factory=dict, description="PredefinedSystemState, e.g. current_date")
    setup: list[SetupAction] = Field(default_factory=list, description="ActionSystemState: run at episode start")


class AnswerSpec(_Strict):
    type: Literal["number", "string", "judge"]
    value: str = Field(description="a template over the golden results; the target is its value")
    pattern: str | None = Field(None, description="string answers: a regex the normalised answer must match")
    rubric: str | None = Field(None, description="judge answers: what a correct answer must contain")
    tolerance: float = Field(1e-6, description="number answers: relative tolerance for non-rational values")


class Task(_Strict):
    id: str
    query: str
    domain: Domain
    platforms: list[str]
    available_tools: list[str]
    state: InjectedState = InjectedState()
    golden: list[GoldenStep]
    answer: AnswerSpec | None = None
    reward_basis: list[RewardBasis] = ["RESPONSE"]
    value_compare_args: dict[str, list[str]] | None = Field(
        None, description="tool → arguments whose values must match the golden's (default: all non-paging)")
    max_allowed_calls: int | None = None
    tags: list[str] = []

    @model_validator(mode="after")
    def _basis(self) -> Task:
        if "RESPONSE" in self.reward_basis and self.answer is None:
            raise ValueError(f"task {self.id}: RESPONSE in reward_basis needs an answer")
        if not self.reward_basis:
            raise ValueError(f"task {self.id}: empty reward_basis")
        return self

    def budget(self, optimal_calls: int) -> int:
        return self.max_allowed_calls or max(optimal_calls + 1, math.ceil(HEADROOM * optimal_calls))


class GoldenCall(_Strict):
    step: str
    tool: str
    arguments: dict[str, Any]
    turn: int  # calls sharing a turn were issued together (parallel)
    ok: bool


class Target(_Strict):
    """What executing a task's golden trajectory on the simulator produced."""

    task_id: str
    answer: str | None
    calls: list[GoldenCall]
    optimal_calls: int
    max_allowed_calls: int
    state_hash: str
    state: dict[str, Any]
    world: str  # provenance: the simulator world the targets were computed on


class TaskFileError(ValueError):
    """A task file that does not validate; the message names the file and the task."""


def load_task_file(path: Path) -> list[Task]:
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise TaskFileError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("tasks"), list):
        raise TaskFileError(f"{path}: expected a mapping with a 'tasks' list")
    tasks = []
    for i, item in enumerate(raw["tasks"]):
        try:
            tasks.append(Task.model_validate(item))
        except ValidationError as exc:
            name = item.get("id", f"#{i}") if isinstance(item, dict) else f"#{i}"
            raise TaskFileError(f"{path}: task {name}: {exc}") from exc
    return tasks


@cache
def load_tasks(directory: Path = TASK_DIR) -> tuple[Task, ...]:
    tasks = [t for path in sorted(directory.glob("*.yaml")) for t in load_task_file(path)]
    ids = [t.id for t in tasks]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise TaskFileError(f"duplicate task ids: {dup}")
    return tuple(tasks)


def target_path(domain: str, directory: Path = TARGET_DIR) -> Path:
    return directory / f"{domain}.json"


def load_targets(directory: Path = TARGET_DIR) -> dict[str, Target]:
    out: dict[str, Target] = {}
    for path in sorted(directory.glob("*.json")):
        for item in orjson.loads(path.read_bytes()):
            target = Target.model_validate(item)
            out[target.task_id] = target
    return out
