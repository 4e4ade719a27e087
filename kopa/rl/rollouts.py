"""`kopa rl rollouts`: GRPO rollout groups — n independent episodes per task, a binary reward each.

DIR/config.json        the resolved configuration and its digest (a changed one is refused unless forced)
DIR/groups.jsonl       one finished group per line (a task's n rollouts, scored), appended as groups finish
                       — a resume skips them — then rewritten in task-set order once all are in
DIR/rollouts.parquet   one row per rollout: task, group, rollout, reward, advantage, the group's pass@1
                       (group_mean), pass@n and zero variance, messages, tool calls, counts, provenance
                       (messages, calls and provenance as JSON text)
DIR/stats.json, DIR/report.md, DIR/plots/groups.png   the group statistics (kopa.rl.stats)

Every rollout is an ordinary KOPA-Bench episode (`kopa.eval.runner.play_one`: its own fresh environment,
the task's tools, injected state and call budget) scored by kopa's scorers (`score_stored`): the reward
r ∈ {0, 1} is 1 when every component of the task's reward_basis — RESPONSE, ENVIRONMENT — passes. Each
rollout has its own random stream: the mixed policy draws who plays from (seed, task, rollout), a model
samples with the seed seed·10000 + rollout. A group is one unit of work on the executor (local
processes or Ray); groups come back in task order whatever ran where, so the Parquet is the same bytes
on one process, many, or a cluster.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kopa.backends.base import Backend
from kopa.backends.parsed import parse_backend
from kopa.backends.spec import open_backend
from kopa.backends.world import open_checked
from kopa.catalog import load_catalog
from kopa.errors import UserError
from kopa.eval.episode import Episode
from kopa.eval.policies.offline import POLICIES
from kopa.eval.runner import RunConfig, make_policy, play_one
from kopa.eval.scoring.episode import score_stored
from kopa.eval.task import Target, Task, task_set
from kopa.executor import Executor, current, in_order
from kopa.fileio import RunFolder, drop_partial_line, read_json, sql_literal, write_atomic
from kopa.rl.advantages import EPSILON, group_advantages
from kopa.rl.messages import episode_messages, tool_calls
from kopa.rl.policy import MixedPolicy, parse_mixed
from kopa.rl.stats import group_stats, junction_type, write_report
from kopa.tools.preload import preload_calls

ROLLOUTS_VERSION = 1  # bump when the same configuration would give other rows: old groups are not reused


class RolloutsError(UserError, ValueError):
    """A rollouts folder made with another configuration, or a configuration that cannot run."""


class RolloutConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy: str = "mixed"
    backend: str = "sim"
    n: int = Field(4, ge=1, description="rollouts per task (the group size)")
    seed: int = Field(0, description="the policy seed: every rollout's stream is named by it")
    task_set: str | None = Field(None, description="the task set's folder; None = KOPA-Bench")
    only: list[str] = Field(default_factory=list)
    norm_adv_by_std: bool = Field(True, description="GRPO's (r − mean) / (std + ε); False: r − mean (Dr. GRPO)")
    epsilon: float = EPSILON
    model: str | None = None
    base_url: str | None = None
    llm_cache: str | None = None
    llm_mode: str = "auto"
    temperature: float = 1.0
    max_turns: int = 16
    version: int = ROLLOUTS_VERSION

    def digest(self) -> str:
        return hashlib.sha256(orjson.dumps(self.model_dump(), option=orjson.OPT_SORT_KEYS)).hexdigest()

    def run_config(self) -> RunConfig:
        """The same episode settings as `kopa bench run` takes (for the model policy and the task set)."""
        return RunConfig(policy="openai" if self.policy == "openai" else "oracle", backend=self.backend,
                         rollouts=self.n, seeds=[self.seed], task_set=self.task_set, only=self.only,
                         model=self.model, base_url=self.base_url, llm_cache=self.llm_cache,
                         llm_mode=self.llm_mode, temperature=self.temperature, max_turns=self.max_turns)


def make_rollout_policy(config: RolloutConfig):
    """`mixed[:…]`, one offline policy, or `openai` (the model --role agent=… names)."""
    if config.policy == "mixed" or config.policy.startswith("mixed:"):
        return parse_mixed(config.policy, config.seed)
    if config.policy in POLICIES:
        return POLICIES[config.policy]()
    if config.policy == "openai":
        if not config.model:
            raise RolloutsError("--policy openai needs --role agent=MODEL[@URL]")
        return make_policy(config.run_config(), config.seed)
    raise RolloutsError(f"--policy {config.policy!r}: valid: mixed[:SHARE][,HABIT…], "
                        f"{', '.join(POLICIES)}, openai")


def select(config: RolloutConfig) -> tuple[list[Task], dict[str, Target]]:
    found = task_set(config.task_set)
    tasks = list(found.tasks())
    if config.only:
        wanted = set(config.only)
        tasks = [t for t in tasks if t.id in wanted or t.domain in wanted]
        unknown = wanted - {t.id for t in tasks} - {t.domain for t in tasks}
        if unknown:
            raise RolloutsError(f"--only: unknown task ids or domains: {sorted(unknown)}")
    targets = found.targets()
    missing = [t.id for t in tasks if t.id not in targets]
    if missing:
        raise RolloutsError(f"no targets for {missing[:5]}; run `kopa bench targets` on the task set")
    return tasks, targets


# ------------------------------------------------------------------------------------ one group


def _usage(episode: Episode, key: str) -> int:
    return int(episode.usage.get(key, 0))


def play_group(task: Task, target: Target, policy, backend: Backend, config: RolloutConfig) -> dict[str, Any]:
    """A task's n rollouts, each played on a fresh environment and scored: one stored group."""
    rollouts = []
    for rollout in range(config.n):
        episode, transcript = play_one(task, target, policy, backend, config.seed, rollout)
        scored = score_stored(task, target, episode)
        played = policy.choose(task.id, rollout) if isinstance(policy, MixedPolicy) else policy.name
        messages = episode_messages(task, episode, transcript.results if transcript else [],
                                    transcript.messages if transcript else None)
        rollouts.append({
            "rollout": rollout, "played": played,
            "reward": 1.0 if scored.score.passed and episode.error is None else 0.0,
            "response": scored.score.response, "environment": scored.score.environment,
            "action": scored.score.action, "failure_cause": scored.failure_cause,
            "answer": episode.answer, "calls": len(episode.calls),
            "malformed_calls": scored.malformed_calls,
            "llm_calls": _usage(episode, "llm_calls"), "prompt_tokens": _usage(episode, "prompt_tokens"),
            "completion_tokens": _usage(episode, "completion_tokens"),
            "state_hash": episode.state_hash, "error": episode.error,
            "messages": messages, "tool_calls": tool_calls(episode),
        })
    return {"task_id": task.id, "domain": task.domain, "junction": junction_type(task),
            "reward_basis": list(task.reward_basis), "rollouts": rollouts}


@dataclass(frozen=True)
class GroupUnit:
    """One group to play in whatever process runs it (paths absolute, so any working directory finds them)."""

    config: dict[str, Any]
    task_id: str


@dataclass
class _Player:
    tasks: dict[str, Task]
    targets: dict[str, Target]
    backend: Backend
    policy: Any


def _player_of(config: RolloutConfig, opened: Backend | None = None) -> _Player:
    """This process's player for the run; it plays on ``opened`` when the backend was already opened here."""
    def build() -> _Player:
        found = task_set(config.task_set)
        backend = opened if opened is not None else open_backend(config.backend)
        return _Player({t.id: t for t in found.tasks()}, found.targets(), backend, make_rollout_policy(config))

    return current("rl-rollouts", config.digest(), build)


def play_unit(unit: GroupUnit, opened: Backend | None = None) -> bytes:
    """One group as the line groups.jsonl stores: serialized where it was played (on a worker, not by the one
    process that stores every group)."""
    config = RolloutConfig.model_validate(unit.config)
    player = _player_of(config, opened)
    group = play_group(player.tasks[unit.task_id], player.targets[unit.task_id], player.policy, player.backend,
                       config)
    return orjson.dumps(group) + b"\n"


# ------------------------------------------------------------------------------------ the run folder


def _prepare(config: RolloutConfig, out: Path, force: bool) -> None:
    RunFolder(out, what="rollouts", error=RolloutsError).claim(
        {"config": config.model_dump(), "digest": config.digest()}, force=force,
        stale=("groups.jsonl", "rollouts.parquet", "stats.json", "report.md"))


def read_config(folder: Path) -> RolloutConfig:
    """The configuration a rollouts folder was made with; a folder that is none is one line (RolloutsError)."""
    path = folder / "config.json"
    if not path.exists():
        raise RolloutsError(f"{folder}: not a rollouts folder (no config.json)")
    body = read_json(path, what="a rollouts folder's config", error=RolloutsError).get("config")
    try:
        return RolloutConfig.model_validate(body)
    except ValidationError as exc:
        raise RolloutsError(f"{path}: not a rollouts folder's config ({exc.error_count()} field(s) wrong)") from exc


def read_groups(out: Path, *, finished: bool = False) -> list[dict[str, Any]]:
    """The stored groups; `finished`: the folder is read for what it holds (an export), so a cut last line
    is refused too."""
    return RunFolder(out, what="rollouts", error=RolloutsError).appended("groups.jsonl", _group, finished=finished)


_ROLLOUT_FIELDS = ("rollout", "reward", "messages", "played")


def _group(line: bytes) -> dict[str, Any]:
    """One line of groups.jsonl: a task's group, each rollout with the fields an export reads."""
    group = orjson.loads(line)
    if not isinstance(group, dict) or not isinstance(group.get("task_id"), str) \
            or not isinstance(group.get("rollouts"), list) \
            or not all(isinstance(r, dict) and all(f in r for f in _ROLLOUT_FIELDS) for r in group["rollouts"]):
        raise ValueError(f"not a group: a task_id and rollouts, each with {', '.join(_ROLLOUT_FIELDS)}")
    return group


def _absolute(config: RolloutConfig) -> RolloutConfig:
    update = {name: str(Path(value).resolve()) for name in ("task_set", "llm_cache")
              if (value := getattr(config, name)) is not None}
    return config.model_copy(update=update)


def generate(config: RolloutConfig, out: Path, *, executor: Executor | None = None, force: bool = False,
             on_group: Callable[[str], Any] | None = None) -> list[dict[str, Any]]:
    """Play every group not yet in ``groups.jsonl``; then the file in task-set order, the Parquet and the
    statistics. Returns the groups in that order. ``on_group`` is called with each group's task id as the
    group is stored."""
    if parse_backend(config.backend).records and executor is not None \
            and not executor.in_process:
        raise RolloutsError(f"{config.backend}: a recording is written by one process; record with one local "
                            "worker, then run on many from the recording (replay:DIR)")
    make_rollout_policy(config)  # a bad --policy is an error before anything is written
    tasks, _ = select(config)
    # Refused here, before the folder is claimed, when the task set records another world; groups played in
    # this process use it, units on an executor open their own (one more open: a fraction of a second once
    # the world is built and cached).
    checked = open_checked(task_set(config.task_set).root, config.backend)
    with RunFolder(out, what="rollouts", error=RolloutsError).writing("another `kopa rl rollouts`"):
        return _generate(config, out, tasks, executor, force, on_group, checked)


def _generate(config: RolloutConfig, out: Path, tasks: list[Task], executor: Executor | None, force: bool,
              on_group: Callable[[str], Any] | None, checked: Backend | None) -> list[dict[str, Any]]:
    _prepare(config, out, force)
    done = {g["task_id"] for g in read_groups(out)}
    pending = [t.id for t in tasks if t.id not in done]
    path = out / "groups.jsonl"
    drop_partial_line(path)
    if pending:
        _play(config, pending, out, executor, on_group, checked)
    order = {t.id: i for i, t in enumerate(tasks)}
    groups = sorted((g for g in read_groups(out) if g["task_id"] in order), key=lambda g: order[g["task_id"]])
    canonical = b"".join(orjson.dumps(g) + b"\n" for g in groups)
    if path.read_bytes() != canonical:
        write_atomic(path, canonical)

    write_parquet(out / "rollouts.parquet", groups, config)
    stats = group_stats(groups, config.n, norm_by_std=config.norm_adv_by_std)
    write_atomic(out / "stats.json", orjson.dumps(stats.model_dump(), option=orjson.OPT_INDENT_2) + b"\n")
    write_report(out / "report.md", stats, config, groups)
    return groups


def forkable(config: RolloutConfig) -> bool:
    """Groups that gain from workers forked after this process has loaded the task set and the world: an
    offline policy's (Python-bound, so each process should not load its own copy); a model's episodes wait on
    its server, and recording has one writer."""
    return config.policy != "openai" and not parse_backend(config.backend).records


def _play(config: RolloutConfig, pending: list[str], out: Path, executor: Executor | None,
          on_group: Callable[[str], Any] | None, opened: Backend | None = None) -> None:
    shipped = _absolute(config).model_dump()
    forked = getattr(executor, "fork", False)
    if forked:  # loaded once here; the forked workers share it copy-on-write
        player = _player_of(RolloutConfig.model_validate(shipped), opened)
        preload_calls(player.backend, [(c.tool, c.arguments) for task_id in pending
                                        for c in player.targets[task_id].calls], load_catalog())
    units = [GroupUnit(shipped, task_id) for task_id in pending]
    # Finished groups are stored (a resume keeps them) as they come, in order, not only at the end.
    lines = in_order(executor, play_unit, units, per_worker=4) if executor is not None \
        else (play_unit(u, opened) for u in units)
    try:
        with (out / "groups.jsonl").open("ab") as sink:
            for unit, line in zip(units, lines, strict=True):
                sink.write(line)
                sink.flush()
                if on_group is not None:
                    on_group(unit.task_id)
    finally:
        if forked and executor is not None:
            # the forked workers hold copies of this run's descriptors (the folder's write lock among them)
            # and its player: they go with the run
            executor.close()


# ------------------------------------------------------------------------------------ Parquet

COLUMNS: tuple[tuple[str, str], ...] = (
    ("task_id", "VARCHAR"), ("group_index", "INTEGER"), ("rollout", "INTEGER"), ("domain", "VARCHAR"),
    ("junction", "VARCHAR"), ("reward_basis", "VARCHAR"), ("played", "VARCHAR"), ("reward", "DOUBLE"),
    ("advantage", "DOUBLE"), ("group_mean", "DOUBLE"), ("group_pass_at_n", "BOOLEAN"),
    ("group_zero_variance", "BOOLEAN"),
    ("response", "BOOLEAN"), ("environment", "BOOLEAN"), ("action", "DOUBLE"), ("failure_cause", "VARCHAR"),
    ("answer", "VARCHAR"), ("calls", "INTEGER"), ("malformed_calls", "INTEGER"), ("llm_calls", "INTEGER"),
    ("prompt_tokens", "INTEGER"), ("completion_tokens", "INTEGER"), ("state_hash", "VARCHAR"),
    ("error", "VARCHAR"), ("messages", "VARCHAR"), ("tool_calls", "VARCHAR"), ("provenance", "VARCHAR"),
)


def _provenance(config: RolloutConfig) -> dict[str, Any]:
    return {"backend": config.backend, "policy": config.policy, "seed": config.seed, "n": config.n,
            "task_set": config.task_set or "KOPA-Bench", "model": config.model, "temperature": config.temperature
            if config.policy == "openai" else None, "norm_adv_by_std": config.norm_adv_by_std,
            "epsilon": config.epsilon, "rollouts_version": config.version}


def rows(groups: list[dict[str, Any]], config: RolloutConfig) -> list[tuple[Any, ...]]:
    """One tuple per rollout in COLUMNS' order, with the group's advantages."""
    base = _provenance(config)
    out = []
    for index, group in enumerate(groups):
        rewards = [r["reward"] for r in group["rollouts"]]
        advantages = group_advantages(rewards, norm_by_std=config.norm_adv_by_std, epsilon=config.epsilon)
        mean = sum(rewards) / len(rewards)
        flat = len(set(rewards)) <= 1
        for r, advantage in zip(group["rollouts"], advantages, strict=True):
            provenance = orjson.dumps({**base, "played": r["played"]}, option=orjson.OPT_SORT_KEYS).decode()
            out.append((group["task_id"], index, r["rollout"], group["domain"], group["junction"],
                        ",".join(group["reward_basis"]), r["played"], r["reward"], advantage, mean, max(rewards) > 0,
                        flat,
                        r["response"], r["environment"], r["action"], r["failure_cause"], r["answer"], r["calls"],
                        r["malformed_calls"], r["llm_calls"], r["prompt_tokens"], r["completion_tokens"],
                        r["state_hash"], r["error"], orjson.dumps(r["messages"]).decode(),
                        orjson.dumps(r["tool_calls"]).decode(), provenance))
    return out


def write_parquet(path: Path, groups: list[dict[str, Any]], config: RolloutConfig) -> None:
    """Through DuckDB (already a dependency), on one thread so the file's row groups never depend on
    the machine; written beside and renamed, so an interruption never leaves half a file."""
    partial = path.with_name(path.name + ".partial")
    con = duckdb.connect()
    try:
        con.execute("SET threads TO 1")
        con.execute(f"CREATE TABLE rollouts ({', '.join(f'{n} {t}' for n, t in COLUMNS)})")
        data = rows(groups, config)
        if data:
            # handed over column by column (object arrays DuckDB scans, casting into the table's types): row by
            # row, `executemany` took 2.7 s for 2,320 rollouts, longer than playing them on two workers
            columns = {name: np.array([row[i] for row in data], dtype=object) for i, (name, _) in enumerate(COLUMNS)}
            con.register("incoming", columns)
            con.execute("INSERT INTO rollouts SELECT * FROM incoming")
        con.execute(f"COPY (SELECT * FROM rollouts ORDER BY group_index, rollout) TO {sql_literal(str(partial))} "
                    "(FORMAT PARQUET)")
    finally:
        con.close()
    partial.replace(path)
