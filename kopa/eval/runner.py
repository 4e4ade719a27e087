"""`kopa bench run`: episodes in parallel, resumable, into a run folder.

runs/<name>/config.json      the resolved configuration (a changed config is refused unless forced)
runs/<name>/episodes.jsonl   one EpisodeResult per line, appended as each finishes (resume skips them)
runs/<name>/transcripts/     one JSON transcript per episode
runs/<name>/report.md, plots/*.png
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, Field

from kopa.backends.spec import Backend, open_backend
from kopa.eval.causes import failure_cause
from kopa.eval.environment import Environment
from kopa.eval.episode import EpisodeResult, EpisodeScore, PredictedCall
from kopa.eval.policies.offline import POLICIES, lookup_steps
from kopa.eval.scoring.episode import score_episode
from kopa.eval.task import Target, Task, load_targets, load_tasks

INFRA_RETRIES = 1  # an infrastructure failure (not the model's) is retried once, then reported apart


class RunConfig(BaseModel):
    policy: str = "oracle"
    backend: str = "sim"
    rollouts: int = Field(4, ge=1, description="n rollouts per task and seed")
    seeds: list[int] = [0]
    tasks: list[str] = Field(default_factory=list, description="task ids or domains; empty = all")
    model: str | None = None
    base_url: str | None = None
    llm_cache: str | None = None
    llm_mode: str = "auto"
    temperature: float = 0.0
    max_turns: int = 16
    judge_model: str | None = Field(None, description="an LLM judge for judge/string answers (default: offline)")
    judge_base_url: str | None = None

    def digest(self) -> str:
        return hashlib.sha256(orjson.dumps(self.model_dump(), option=orjson.OPT_SORT_KEYS)).hexdigest()


class ConfigChanged(RuntimeError):
    """The run folder holds a run made with another configuration."""


def select_tasks(config: RunConfig) -> list[Task]:
    tasks = list(load_tasks())
    if not config.tasks:
        return tasks
    wanted = set(config.tasks)
    chosen = [t for t in tasks if t.id in wanted or t.domain in wanted]
    unknown = wanted - {t.id for t in chosen} - {t.domain for t in chosen}
    if unknown:
        raise ValueError(f"unknown task ids or domains: {sorted(unknown)}")
    return chosen


def make_policy(config: RunConfig, seed: int):
    if config.policy in POLICIES:
        return POLICIES[config.policy]()
    if config.policy == "openai":
        from kopa.eval.policies.openai_agent import OpenAIAgentPolicy
        from kopa.llm.cache import CachedChatModel
        from kopa.llm.client import OpenAIChatModel

        if not config.model:
            raise ValueError("the openai policy needs --model (and usually --base-url)")
        model = OpenAIChatModel(config.model, base_url=config.base_url, temperature=config.temperature, seed=seed)
        if config.llm_cache:
            model = CachedChatModel(model, Path(config.llm_cache), mode=config.llm_mode)
        return OpenAIAgentPolicy(model, max_turns=config.max_turns)
    raise ValueError(f"unknown policy {config.policy!r}; one of {[*POLICIES, 'openai']}")


def make_judge(config: RunConfig):
    """The offline deterministic judge unless a model is named; a model judge's calls share the run's
    LLM cache, so a judged run reproduces offline too."""
    if not config.judge_model:
        return None
    from kopa.eval.judge import LLMJudge
    from kopa.llm.cache import CachedChatModel
    from kopa.llm.client import OpenAIChatModel

    model = OpenAIChatModel(config.judge_model, base_url=config.judge_base_url, temperature=0.0)
    if config.llm_cache:
        model = CachedChatModel(model, Path(config.llm_cache), mode=config.llm_mode)
    return LLMJudge(model)


def run_episode(task: Task, target: Target, policy, backend: Backend, seed: int, rollout: int,
                judge=None) -> EpisodeResult:
    env = Environment(task, backend, budget=target.max_allowed_calls)
    output = policy.run(task, env, target, rollout)
    predicted = [PredictedCall(tool=c.tool, arguments=c.arguments, turn=c.turn, ok=c.result.ok,
                               error_class=c.result.error.error_class if c.result.error else None,
                               error_kind=c.result.error.kind if c.result.error else None,
                               records=len(c.result.records), total_count=c.result.total_count) for c in env.calls]
    state = orjson.loads(env.state.canonical())
    score = score_episode(task, target, output.answer, predicted, state, env.state.hash(), judge)
    lookups = {s.call for s in lookup_steps(task) if s.call}
    cause = failure_cause(task, target, predicted, output.answer, score, lookups)
    return EpisodeResult(task_id=task.id, domain=task.domain, platforms=task.platforms, policy=policy.name,
                         seed=seed, rollout=rollout, answer=output.answer, target_answer=target.answer,
                         calls=predicted, state_hash=env.state.hash(), score=score, failure_cause=cause,
                         transcript=output.transcript, usage=output.usage)


def _infra_failure(task: Task, target: Target, policy_name: str, seed: int, rollout: int, exc: BaseException
                   ) -> EpisodeResult:
    return EpisodeResult(task_id=task.id, domain=task.domain, platforms=task.platforms, policy=policy_name,
                         seed=seed, rollout=rollout, answer=None, target_answer=target.answer, calls=[],
                         state_hash="", score=EpisodeScore(), failure_cause="infrastructure",
                         error=f"{type(exc).__name__}: {exc}"[:500])


def episode_key(task_id: str, seed: int, rollout: int) -> str:
    return f"{task_id}|{seed}|{rollout}"


def read_episodes(out_dir: Path) -> list[EpisodeResult]:
    path = out_dir / "episodes.jsonl"
    if not path.exists():
        return []
    episodes = []
    for line in path.read_bytes().splitlines():
        try:
            episodes.append(EpisodeResult.model_validate_json(line))
        except ValueError:
            continue  # a line cut short by an interrupted run: that episode runs again
    return episodes


def _drop_partial_line(path: Path) -> None:
    """An interrupted run may leave its last line cut short; cut it off so appends start on a fresh line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def prepare_folder(config: RunConfig, out_dir: Path, force: bool) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "config.json"
    if path.exists():
        old = orjson.loads(path.read_bytes())
        if old.get("digest") != config.digest():
            if not force:
                changed = {k: (old["config"].get(k), v) for k, v in config.model_dump().items()
                           if old["config"].get(k) != v}
                raise ConfigChanged(f"{out_dir} holds a run with another configuration; differences "
                                    f"(old, new): {changed}. Use --force to discard it, or another --out.")
            (out_dir / "episodes.jsonl").unlink(missing_ok=True)
    path.write_bytes(orjson.dumps({"config": config.model_dump(), "digest": config.digest()},
                                  option=orjson.OPT_INDENT_2))


def run_bench(config: RunConfig, out_dir: Path, *, workers: int = 4, force: bool = False,
              on_episode: Callable[[EpisodeResult], Any] | None = None) -> list[EpisodeResult]:
    prepare_folder(config, out_dir, force)
    tasks = select_tasks(config)
    targets = load_targets()
    missing = [t.id for t in tasks if t.id not in targets]
    if missing:
        raise ValueError(f"no targets for {missing[:5]}…; run `kopa bench targets`")
    done = {episode_key(e.task_id, e.seed, e.rollout) for e in read_episodes(out_dir)}
    jobs = [(task, seed, rollout) for seed in config.seeds for task in tasks for rollout in range(config.rollouts)
            if episode_key(task.id, seed, rollout) not in done]
    backend = open_backend(config.backend)
    policies = {seed: make_policy(config, seed) for seed in config.seeds}
    judge = make_judge(config)
    transcripts = out_dir / "transcripts"
    transcripts.mkdir(exist_ok=True)
    lock = threading.Lock()
    _drop_partial_line(out_dir / "episodes.jsonl")
    sink = (out_dir / "episodes.jsonl").open("ab")

    def one(task: Task, seed: int, rollout: int) -> EpisodeResult:
        for attempt in range(INFRA_RETRIES + 1):
            try:
                return run_episode(task, targets[task.id], policies[seed], backend, seed, rollout, judge)
            except Exception as exc:  # infrastructure, not the model: retried, then reported apart
                if attempt == INFRA_RETRIES:
                    return _infra_failure(task, targets[task.id], policies[seed].name, seed, rollout, exc)
        raise AssertionError("unreachable")

    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(one, *job) for job in jobs]
            for future in as_completed(futures):
                episode = future.result()
                name = f"{episode.task_id}.s{episode.seed}.r{episode.rollout}.json"
                (transcripts / name).write_bytes(orjson.dumps(episode.model_dump(mode="json"),
                                                              option=orjson.OPT_INDENT_2))
                with lock:
                    sink.write(episode.model_dump_json().encode() + b"\n")
                    sink.flush()
                if on_episode is not None:
                    on_episode(episode)
    finally:
        sink.close()
    episodes = read_episodes(out_dir)
    order = {t.id: i for i, t in enumerate(tasks)}
    return sorted(episodes, key=lambda e: (order.get(e.task_id, 1 << 30), e.seed, e.rollout))
