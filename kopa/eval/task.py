"""KOPA-Bench tasks (pydantic), loaded from `benchmark/tasks/*.yaml`; targets from `benchmark/targets/`.

A task's golden trajectory is written with references (`kopa.eval.template`) to earlier steps' results;
its target answer and target state are never written by hand — `kopa bench targets` executes the
trajectory on the simulator and stores them, and a test re-executes every trajectory against them.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import orjson
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kopa.catalog import load_catalog
from kopa.catalog.models import Domain  # a task's domain is a catalog domain: one literal
from kopa.errors import UserError

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
    about: str | None = Field(None, description="the item this fact is about, when the answer covers several "
                                                "(e.g. '첫째'): it must be stated next to that item, not another")
    anchor: bool = Field(False, description="with `about`: this fact names the item itself (its number, its "
                                            "article) and marks where the answer speaks of it")


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
    unit: Literal["percent", "억원", "천만원", "백만원", "만원", "천원"] | None = Field(
        None, description="number answers: what the target is counted in. percent: a bare number or one with "
                          "% / %p is read in percent (without it an answer with % does not pass). A money "
                          "unit (the query asks '몇 억원'): a bare number is read in it, and one written with "
                          "its own magnitude (2,811.42억원, 7억 1,480만원, 281,142,000,000원) is converted to it.")
    aliases: list[str] = Field(default_factory=list,
                               description="string answers: other accepted whole answers (templates)")
    item_forms: list[str] = Field(
        default_factory=list,
        description="string answers: accepted forms of the value, or of each item of a list target, "
                    "with {} for it (e.g. '제{}조')")
    pattern: str | None = Field(None, description="string answers: a regex the normalised answer must match")
    ordered: bool = Field(False, description="list answers the query asks for in an order ('도로법, 유료도로법 "
                                             "순서로'): the items must come in the target's order")
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
        # an id names files in a run folder (transcripts/<id>.s0.r0.json): "../../x" would write outside it
        if not self.id or self.id.startswith(".") or any(c in self.id for c in "/\\\0"):
            raise ValueError(f"task id {self.id!r}: an id names files, so it has no '/', '\\' or leading '.'")
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


class TaskFileError(UserError, ValueError):
    """A task (or target) file that does not load or validate; one line naming the file, the line where
    there is one, the task and the field or step at fault."""


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Loc = tuple[str | int, ...]


@cache
def catalog_tool_names() -> frozenset[str]:
    """Every tool a task may name: the catalog's (session tools included), loaded once per process."""
    return frozenset(tool.name for tool in load_catalog())


@cache
def catalog_platforms() -> tuple[str, ...]:
    """The platform ids a task may name (the catalog's, not the session tools' pseudo-platform)."""
    return tuple(sorted({tool.platform for tool in load_catalog()} - {"session"}))


def _unknown_platform(path: Path, lines: _Lines, index: int, task: Task) -> TaskFileError | None:
    """A misspelt platform would silently drop the task from `--only`-style selections and per-platform
    reports: refuse it at load."""
    known = catalog_platforms()
    for k, name in enumerate(task.platforms):
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            line = lines.of(("tasks", index, "platforms", k))
            where = f"{path}:{line}" if line else str(path)
            return TaskFileError(f"{where}: task {task.id}: unknown platform {name!r}{hint}; platforms: "
                                 f"{', '.join(known)}")
    return None


def _read_yaml(path: Path) -> tuple[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise TaskFileError(f"{path}: cannot read the task file ({exc.strerror or exc})") from exc
    try:
        return text, yaml.load(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        context = f" ({exc.context})" if exc.context else ""
        raise TaskFileError(f"{where}: not valid YAML: {exc.problem}{context}") from exc
    except yaml.YAMLError as exc:
        raise TaskFileError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from exc


class _Lines:
    """Line numbers of the YAML nodes of a task file. Composed only when there is an error to report,
    so a valid file is parsed once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._root: yaml.Node | None = None

    def of(self, loc: Loc) -> int | None:
        """The 1-based line of the deepest node `loc` reaches (a missing field: its parent's line)."""
        if self._root is None:
            try:
                self._root = yaml.compose(self.text, Loader=_LOADER)
            except yaml.YAMLError:
                return None
        node = self._root
        line = node.start_mark.line + 1 if node is not None else None
        for part in loc:
            child: yaml.Node | None = None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                        child, line = value, key.start_mark.line + 1
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                child = node.value[part]
                line = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return line


def _dotted(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(task)"


def _schema_error(path: Path, lines: _Lines, index: int, name: str, exc: ValidationError) -> TaskFileError:
    """One line: the file and line of the first error, the task, each field path and its problem."""
    errors = exc.errors()
    parts = []
    first_line = None
    for n, err in enumerate(errors[:3]):
        loc = tuple(err["loc"])
        line = lines.of(("tasks", index, *loc))
        first_line = first_line or line
        message = str(err["msg"]).removeprefix("Value error, ")
        at = f" (line {line})" if n and line else ""
        parts.append(f"{_dotted(loc)}{at}: {message}")
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    where = f"{path}:{first_line}" if first_line else str(path)
    return TaskFileError(f"{where}: task {name}: {'; '.join(parts)}{more}")


def _tool_references(task: Task) -> list[tuple[Loc, str, str]]:
    """(where in the task, what names the tool, the tool) for every tool a task names."""
    out: list[tuple[Loc, str, str]] = []

    def steps(golden: list[GoldenStep], loc: Loc) -> None:
        for j, step in enumerate(golden):
            if step.call is not None:
                out.append(((*loc, j, "call"), f"step {step.id!r} calls", step.call))
            if step.parallel is not None:
                steps(step.parallel, (*loc, j, "parallel"))

    steps(task.golden, ("golden",))
    out.extend((("state", "setup", k, "tool"), f"setup action {k + 1} runs", action.tool)
               for k, action in enumerate(task.state.setup))
    out.extend((("available_tools", k), "available_tools lists", name) for k, name in enumerate(task.available_tools))
    return out


def _unknown_tools(path: Path, lines: _Lines, index: int, task: Task, known: Collection[str]
                   ) -> TaskFileError | None:
    """A task naming a tool the catalog lacks would run and fail with an error blaming a later step:
    refuse it at load, naming the task, the step and the tool."""
    bad = [(loc, what, name) for loc, what, name in _tool_references(task) if name not in known]
    if not bad:
        return None
    loc, what, name = bad[0]
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    line = lines.of(("tasks", index, *loc))
    where = f"{path}:{line}" if line else str(path)
    more = f" (and {len(bad) - 1} more: {', '.join(sorted({n for _, _, n in bad[1:]}))})" if len(bad) > 1 else ""
    return TaskFileError(f"{where}: task {task.id}: {what} unknown tool {name!r}{hint}; `kopa tools list` "
                         f"lists the tools{more}")


def load_task_file(path: Path, tools: Collection[str] | None = None) -> list[Task]:
    """The tasks of one file, each validated against the schema and against `tools` (default: the
    catalog), so every command that loads tasks refuses a bad file before it runs anything."""
    path = Path(path)
    text, raw = _read_yaml(path)
    lines = _Lines(text)
    if not isinstance(raw, dict) or not isinstance(raw.get("tasks"), list):
        got = "an empty file" if raw is None else f"a {type(raw).__name__}"
        if isinstance(raw, dict):
            got = "a mapping without a 'tasks' list"
        raise TaskFileError(f"{path}: expected a mapping with a 'tasks' list, got {got}")
    known = catalog_tool_names() if tools is None else tools
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw["tasks"]):
        name = str(item.get("id", f"#{i + 1}")) if isinstance(item, dict) else f"#{i + 1}"
        try:
            task = Task.model_validate(item)
        except ValidationError as exc:
            raise _schema_error(path, lines, i, name, exc) from exc
        if (error := _unknown_tools(path, lines, i, task, known) or _unknown_platform(path, lines, i, task)):
            raise error
        if task.id in seen:
            first, again = lines.of(("tasks", seen[task.id])), lines.of(("tasks", i))
            raise TaskFileError(f"{path}:{again}: duplicate task id {task.id!r} (first at line {first})")
        seen[task.id] = i
        tasks.append(task)
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
    tasks: list[Task] = []
    where: dict[str, Path] = {}
    for path in sorted(directory.glob("*.yaml")):
        for task in load_task_file(path):
            if task.id in where:
                raise TaskFileError(f"duplicate task id {task.id!r}: in {where[task.id]} and in {path}")
            where[task.id] = path
            tasks.append(task)
    return tuple(tasks)


def target_path(domain: str, directory: Path = TARGET_DIR) -> Path:
    return directory / f"{domain}.json"


def load_targets(directory: Path = TARGET_DIR) -> dict[str, Target]:
    """Every target file of a task set; a corrupt or hand-edited one names the file, the task and the
    field (`kopa bench targets` rewrites them)."""
    out: dict[str, Target] = {}
    for path in sorted(directory.glob("*.json")):
        try:
            items = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise TaskFileError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); rewrite the "
                                "targets with `kopa bench targets`") from exc
        except OSError as exc:
            raise TaskFileError(f"{path}: cannot read the target file ({exc.strerror or exc})") from exc
        if not isinstance(items, list):
            raise TaskFileError(f"{path}: expected a list of targets, got a {type(items).__name__}")
        for i, item in enumerate(items):
            try:
                target = Target.model_validate(item)
            except ValidationError as exc:
                name = item.get("task_id", f"#{i + 1}") if isinstance(item, dict) else f"#{i + 1}"
                err = exc.errors()[0]
                more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
                raise TaskFileError(f"{path}: target {name}: {_dotted(tuple(err['loc']))}: {err['msg']}{more}; "
                                    "rewrite the targets with `kopa bench targets`") from exc
            out[target.task_id] = target
    return out
