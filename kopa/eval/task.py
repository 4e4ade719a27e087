"""KOPA-Bench tasks (pydantic), loaded from `benchmark/tasks/*.yaml`; targets from `benchmark/targets/`.

A task's golden trajectory is written with references (`kopa.eval.template`) to earlier steps' results;
its target answer and target state are never written by hand — `kopa bench targets` executes the
trajectory on the simulator and stores them, and a test re-executes every trajectory against them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import orjson
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Domain = Literal["traffic", "finance", "education", "law", "politics", "district"]
RewardBasis = Literal["RESPONSE", "ENVIRONMENT"]
HEADROOM = Decimal("2.45")  # the paper's mean max_allowed_calls / optimal calls


def _kopa_bench_root() -> Path:
    """KOPA-Bench's folder: package data `kopa/_benchmark/` when installed from a wheel (setup.py maps
    `benchmark/` there); in a source checkout, or an editable install of one, `benchmark/` itself."""
    shipped = Path(str(resources.files("kopa") / "_benchmark"))
    return shipped if (shipped / "tasks").is_dir() else Path(__file__).resolve().parents[2] / "benchmark"


ROOT = _kopa_bench_root()
TASK_DIR = ROOT / "tasks"
TARGET_DIR = ROOT / "targets"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GoldenStep(_Strict):
    """One step of the golden trajectory: a call, a fan-out of calls, or a group issued together."""

    id: str
    call: str | None = None
    args: dict[str, Any] = {}
    for_each: str | list[Any] | None = Field(
        None, description="a reference to a list, or a list of literals: one call per element (`{item}`)")
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


class RubricFact(_Strict):
    """One fact a correct answer must state, with the forms in which it is accepted."""

    fact: str = Field(description="what must be stated, in words (for people and the LLM judge)")
    forms: list[str] = Field(min_length=1, description="accepted forms; templates over the golden results")


class Rubric(_Strict):
    """A judge answer's contract: every fact stated (in one of its forms), and none of the wrong forms."""

    facts: list[RubricFact] = Field(min_length=1)
    wrong: list[str] = Field(default_factory=list,
                             description="forms whose presence makes an answer wrong (templates)")


class AnswerSpec(_Strict):
    type: Literal["number", "string", "judge"]
    value: str = Field(description="a template over the golden results; the target is its value "
                                   "(number answers: the exact value, e.g. {calc.records[0].exact})")
    precision: int | None = Field(
        None, ge=0, le=10,
        description="number answers: the decimal places the query asks for (0 = 정수로 반올림); "
                    "required when the target is not an integer")
    unit: Literal["percent"] | None = Field(
        None, description="number answers: the target is in percent (or %p); a bare number or one with "
                          "% / %p is read in percent. Without it an answer with % does not pass.")
    aliases: list[str] = Field(default_factory=list,
                               description="string answers: other accepted whole answers (templates)")
    item_forms: list[str] = Field(
        default_factory=list,
        description="string answers: accepted forms of the value, or of each item of a list target, "
                    "with {} for it (e.g. '제{}조')")
    pattern: str | None = Field(None, description="string answers: a regex the normalised answer must match")
    rubric: Rubric | None = Field(None, description="judge answers: the facts and the wrong forms")


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
        """The call budget: 2.45 × optimal rounded half up (never under optimal + 1), so that the mean
        headroom over tasks is the paper's 2.45 — rounding up every task would lift it to about 2.55."""
        if self.max_allowed_calls:
            return self.max_allowed_calls
        rounded = int((HEADROOM * optimal_calls).quantize(Decimal(1), rounding=ROUND_HALF_UP))
        return max(optimal_calls + 1, rounded)


class GoldenCall(_Strict):
    step: str
    tool: str
    arguments: dict[str, Any]
    turn: int  # calls sharing a turn were issued together (parallel)
    ok: bool


class AnswerKey(_Strict):
    """A task's answer as executing its golden trajectory produced it, with every template resolved."""

    display: str = Field(description="the answer as a person would read it")
    exact: str | None = Field(None, description="number answers: the exact value (sympy's printing, "
                                                "e.g. 25/3), parsed by kopa.tools.expression")
    items: list[str] | None = Field(None, description="list targets: the items, as a set")
    aliases: list[str] = Field(default_factory=list, description="string answers: other accepted answers")
    rubric: Rubric | None = Field(None, description="judge answers: the rubric with forms resolved")


class Target(_Strict):
    """What executing a task's golden trajectory on the simulator produced."""

    task_id: str
    answer: str | None  # the display form (key.display), kept for reports
    key: AnswerKey | None = None
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


def default_task_root() -> Path:
    """KOPA-Bench as shipped: the folder holding `tasks/` and `targets/`."""
    return ROOT


@dataclass(frozen=True)
class TaskSet:
    """A task set: `ROOT/tasks/*.yaml` and the targets computed from them, `ROOT/targets/*.json`.

    KOPA-Bench is the default; `--tasks DIR` names another (e.g. a synthesized dataset)."""

    root: Path

    @property
    def tasks_dir(self) -> Path:
        return self.root / "tasks"

    @property
    def targets_dir(self) -> Path:
        return self.root / "targets"

    def tasks(self) -> tuple[Task, ...]:
        return load_tasks(self.tasks_dir)

    def targets(self) -> dict[str, Target]:
        return load_targets(self.targets_dir)


def task_set(path: str | Path | None = None) -> TaskSet:
    """The task set at `path` (default: KOPA-Bench); a clear error when it holds no task files."""
    root = Path(path) if path is not None else default_task_root()
    if not (root / "tasks").is_dir() or not any((root / "tasks").glob("*.yaml")):
        raise TaskFileError(f"{root}: not a task set (expected {root / 'tasks'}/*.yaml)")
    return TaskSet(root)


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
