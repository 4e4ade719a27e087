"""`kopa bench run` and `kopa bench score`: generate episodes, then score them from the files — apart.

runs/<name>/config.json      the resolved configuration (a changed config is refused unless forced)
runs/<name>/episodes.jsonl   one Episode per line — the calls, answer and end state — appended as each
                             finishes (resume skips them), then rewritten in the canonical order (task-set
                             order, seed, rollout) once all are in, so its bytes do not depend on where
                             episodes ran or which finished first; scoring never rewrites it
runs/<name>/transcripts/     <task>.s<seed>.r<rollout>.json: the chat messages and every call's full result
runs/<name>/scores.jsonl     one ScoredEpisode per line, in task-set order, rewritten by every scoring
runs/<name>/scoring.json     how the scores were made: the run scored, the task set, the judge
runs/<name>/report.md, metrics.json, plots/*.png

Generation (:func:`generate`) executes policies against a backend; scoring (:func:`score_run`) reads only
``episodes.jsonl``, the task set and its targets — no tool, no backend, no model (unless a judge model is
named) — so a scorer fix re-scores a finished run, and the run's own scores come from the same code.

Where episodes run: threads of this process (the default: the offline policies spend their time in the
in-process simulator, where another process would first have to load the world and the catalog), or as
units on an executor (kopa.executor: local processes, Ray) — an :class:`EpisodeUnit` names its task,
seed and rollout; the process running it builds the task set, backend and policies once per run.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kopa.backends.base import Backend
from kopa.backends.parsed import parse_backend
from kopa.backends.spec import open_backend
from kopa.backends.world import open_checked
from kopa.catalog.loader import load_catalog
from kopa.errors import UserError
from kopa.eval.environment import Environment, ToolSource
from kopa.eval.episode import UNPLAYED, Episode, PredictedCall, ScoredEpisode, Transcript
from kopa.eval.judge import LLMJudge
from kopa.eval.policies.offline import POLICIES
from kopa.eval.policies.openai_agent import OpenAIAgentPolicy
from kopa.eval.scoring.episode import score_stored
from kopa.eval.task import Target, Task, TaskSet, task_set
from kopa.executor import Executor, can_fork, current, in_order
from kopa.fileio import RunFolder, drop_partial_line, write_atomic
from kopa.llm.cache import CachedChatModel, CacheMode
from kopa.llm.client import ChatModel, ChatModelError, OpenAIChatModel
from kopa.mcp.client import open_tools
from kopa.record.unit import cassette_unit
from kopa.tools.preload import preload_calls
from kopa.tools.render import MAX_TOOL_CHARS
from kopa.tools.runtime import RetryPolicy

INFRA_RETRIES = 1  # an infrastructure failure (not the model's) is retried once, then reported apart


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelled or renamed field is an error, not ignored

    policy: str = "oracle"
    backend: str = "sim"
    rollouts: int = Field(4, ge=1, description="n rollouts per task and seed")
    seeds: list[int] = Field([0], min_length=1)
    task_set: str | None = Field(None, description="the task set's folder (tasks/, targets/); None = KOPA-Bench")
    only: list[str] = Field(default_factory=list, description="task ids or domains; empty = all")
    model: str | None = None
    base_url: str | None = None
    llm_cache: str | None = None
    llm_mode: CacheMode = "auto"
    temperature: float = 0.0
    max_turns: int = Field(16, ge=1, description="model calls per episode (openai policy)")
    max_tool_chars: int = Field(MAX_TOOL_CHARS, ge=200, description="a tool result the model reads is cut to "
                                                                    "this many characters (records dropped)")
    max_tokens: int | None = Field(None, ge=1, description="max_tokens of every model request; None: the server's")
    episode_seconds: float | None = Field(None, gt=0, description="wall clock per episode; None: no limit")
    llm_timeout: float = Field(120.0, gt=0, description="seconds one model request may take")
    llm_retries: int = Field(2, ge=0, description="retries of a failed model request (kopa's, with backoff; the "
                                                   "SDK's own are off): N retries is at most N + 1 attempts")
    judge_model: str | None = Field(None, description="an LLM judge for judge/string answers (default: offline)")
    judge_base_url: str | None = None
    tools: str | None = Field(None, description="where tools are listed and called: None in-process on the "
                                                "backend; 'mcp:COMMAND' or 'mcp:URL' a kopa MCP server")

    def digest(self) -> str:
        data = self.model_dump()
        if data["tools"] is None:  # in-process runs keep the digest they had before MCP existed
            del data["tools"]
        for name in _LIMIT_OPTIONS:  # and runs at the default limits, the one they had before limits were options
            if data[name] == type(self).model_fields[name].default:
                del data[name]
        return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()


_LIMIT_OPTIONS = ("max_tool_chars", "max_tokens", "episode_seconds", "llm_timeout", "llm_retries")


class ConfigChanged(RuntimeError):
    """The run folder holds a run made with another configuration."""


class RunFolderError(UserError, ValueError):
    """A folder that is not a run folder, or holds episodes its task set cannot score."""


def load_task_set(config: RunConfig) -> TaskSet:
    return task_set(config.task_set)


def select_tasks(config: RunConfig, tasks: tuple[Task, ...] | None = None) -> list[Task]:
    """The task set's tasks, filtered by ``config.only``; an unknown id or domain is an error."""
    chosen_from = list(tasks if tasks is not None else load_task_set(config).tasks())
    if not config.only:
        return chosen_from
    wanted = set(config.only)
    chosen = [t for t in chosen_from if t.id in wanted or t.domain in wanted]
    unknown = wanted - {t.id for t in chosen} - {t.domain for t in chosen}
    if unknown:
        raise ValueError(f"unknown task ids or domains: {sorted(unknown)}")
    return chosen


def make_policy(config: RunConfig, seed: int):
    if config.policy in POLICIES:
        return POLICIES[config.policy]()
    if config.policy == "openai":
        if not config.model:
            raise ValueError("the openai policy needs a model: --role agent=MODEL[@URL]")
        model: ChatModel = OpenAIChatModel(config.model, base_url=config.base_url, role="agent",
                                           temperature=config.temperature, seed=seed, timeout=config.llm_timeout,
                                           max_retries=config.llm_retries)
        if config.llm_cache:
            model = CachedChatModel(model, Path(config.llm_cache), mode=config.llm_mode)
        params = {"max_tokens": config.max_tokens} if config.max_tokens is not None else {}
        return OpenAIAgentPolicy(model, max_turns=config.max_turns, max_tool_chars=config.max_tool_chars,
                                 params=params, time_limit=config.episode_seconds)
    raise ValueError(f"unknown policy {config.policy!r}; one of {[*POLICIES, 'openai']}")


def make_judge(config: RunConfig):
    """The offline deterministic judge unless a model is named; a model judge's calls share the run's
    LLM cache, so a judged run reproduces offline too."""
    if not config.judge_model:
        return None
    model: ChatModel = OpenAIChatModel(config.judge_model, base_url=config.judge_base_url, role="judge",
                                       temperature=0.0)
    if config.llm_cache:
        model = CachedChatModel(model, Path(config.llm_cache), mode=config.llm_mode)
    return LLMJudge(model)


def run_episode(task: Task, target: Target, policy, backend: Backend | None, seed: int, rollout: int,
                tools: ToolSource | None = None, retry: RetryPolicy | None = None) -> tuple[Episode, Transcript]:
    """Play one episode and record what happened; nothing here scores. With ``tools`` the episode's tools
    are listed and called there (an MCP server) instead of in-process on ``backend``, whose runtime retries
    environmental failures by ``retry`` (None: the runtime's default)."""
    # a recording keeps the episode's exchanges in one cassette of its own (kopa.record.unit)
    with cassette_unit(f"{policy.name}.{transcript_name(task.id, seed, rollout).removesuffix('.json')}"):
        env = Environment(task, backend, budget=target.max_allowed_calls, tools=tools, retry=retry)
        try:
            output = policy.run(task, env, target, rollout)
        except UserError:
            raise  # the run's, not the episode's: a replay miss, a missing key (kopa.backends) stop the command
        except Exception as exc:
            raise EpisodeStopped(exc, [c.result.model_dump(mode="json") for c in env.calls]) from exc
    calls = [PredictedCall(tool=c.tool, arguments=c.arguments, turn=c.turn, ok=c.result.ok,
                           raw_arguments=c.raw_arguments, malformed=c.malformed, error=c.result.error,
                           records=len(c.result.records), total_count=c.result.total_count) for c in env.calls]
    episode = Episode(task_id=task.id, domain=task.domain, platforms=task.platforms, policy=policy.name,
                      seed=seed, rollout=rollout, answer=output.answer, calls=calls,
                      final_state=orjson.loads(env.state.canonical()), state_hash=env.state.hash(),
                      usage=output.usage, limits=output.limits)
    transcript = Transcript(task_id=task.id, seed=seed, rollout=rollout, messages=output.transcript,
                            results=[c.result.model_dump(mode="json") for c in env.calls])
    return episode, transcript


class EpisodeStopped(Exception):
    """The policy raised mid-episode (a model server that failed, the oracle reading a call that failed): the
    results of the calls made until then come with it, so a caller can tell what the environment did."""

    def __init__(self, cause: BaseException, results: list[dict[str, Any]]) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.results = results


def _infra_failure(task: Task, policy_name: str, seed: int, rollout: int, exc: BaseException) -> Episode:
    error = str(exc) if isinstance(exc, EpisodeStopped) else f"{type(exc).__name__}: {exc}"
    return Episode(task_id=task.id, domain=task.domain, platforms=task.platforms, policy=policy_name,
                   seed=seed, rollout=rollout, answer=None, calls=[], error=error[:500])


def episode_key(task_id: str, seed: int, rollout: int) -> str:
    return f"{task_id}|{seed}|{rollout}"


def transcript_name(task_id: str, seed: int, rollout: int) -> str:
    return f"{task_id}.s{seed}.r{rollout}.json"


def read_config(run_dir: Path) -> RunConfig:
    path = run_dir / "config.json"
    if not path.exists():
        raise RunFolderError(f"{run_dir} is not a run folder (no config.json)")
    try:
        return RunConfig.model_validate(orjson.loads(path.read_bytes())["config"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValidationError) as exc:
        raise RunFolderError(f"{path}: not a run configuration: {exc}") from exc


def read_episodes(out_dir: Path, *, finished: bool = False) -> list[Episode]:
    """The stored episodes; `finished`: the run is read to be scored, so a cut last line is refused too."""
    return RunFolder(out_dir, what="a run", error=RunFolderError).appended(
        "episodes.jsonl", Episode.model_validate_json, finished=finished)


def read_unplayed(out_dir: Path) -> list[Episode]:
    """The episodes the last `kopa bench run` on the folder could not play, each with why."""
    return RunFolder(out_dir, what="a run", error=RunFolderError).appended(UNPLAYED, Episode.model_validate_json)


def read_scores(folder: Path) -> list[ScoredEpisode]:
    """The scored episodes of a folder that ``score_run`` wrote (written whole, so never cut short)."""
    path = folder / "scores.jsonl"
    if not path.exists():
        raise RunFolderError(f"{folder} has no scores.jsonl; score the run with `kopa bench score {folder}`")
    out = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            out.append(ScoredEpisode.model_validate_json(line))
        except ValueError as exc:
            raise RunFolderError(f"{path}:{number}: not a scored episode: {exc}") from exc
    return out


def prepare_folder(config: RunConfig, out_dir: Path, force: bool) -> None:
    RunFolder(out_dir, what="a run", error=ConfigChanged).claim(
        {"config": config.model_dump(), "digest": config.digest()}, force=force,
        stale=("episodes.jsonl", "scores.jsonl", "scoring.json", UNPLAYED))


def _sorted(items: list, tasks: list[Task] | tuple[Task, ...]) -> list:
    order = {t.id: i for i, t in enumerate(tasks)}
    return sorted(items, key=lambda e: (order.get(e.task_id, 1 << 30), e.task_id, e.seed, e.rollout))


def generate(config: RunConfig, out_dir: Path, *, workers: int = 4, force: bool = False,
             executor: Executor | None = None, on_episode: Callable[[Episode], Any] | None = None,
             scores: dict[str, bytes] | None = None) -> list[Episode]:
    """Play every (task, seed, rollout) not yet in ``episodes.jsonl`` and append it there: on ``workers``
    threads, or as units on ``executor`` when one is given; then put the file in the canonical order.
    ``scores`` receives, by `episode_key`, the score line of each episode units on an executor scored as they
    played it (offline judge only)."""
    checked = _checked_backend(config)  # before the folder is claimed: a refused backend leaves nothing behind
    with RunFolder(out_dir, what="a run", error=RunFolderError).writing("another `kopa bench run`"):
        return _generate(config, out_dir, checked, workers, force, executor, on_episode, scores)


def _generate(config: RunConfig, out_dir: Path, checked: Backend | None, workers: int, force: bool,
              executor: Executor | None, on_episode: Callable[[Episode], Any] | None,
              scores: dict[str, bytes] | None = None) -> list[Episode]:
    prepare_folder(config, out_dir, force)
    tasks = select_tasks(config)
    targets = load_task_set(config).targets()
    missing = [t.id for t in tasks if t.id not in targets]
    if missing:
        raise ValueError(f"no targets for {missing[:5]}…; run `kopa bench targets`")
    # an episode an older kopa stored with an infrastructure error was never played: played now
    done = {episode_key(e.task_id, e.seed, e.rollout) for e in read_episodes(out_dir) if e.error is None}
    (out_dir / UNPLAYED).unlink(missing_ok=True)  # this run plays them again
    jobs = [(task, seed, rollout) for seed in config.seeds for task in tasks for rollout in range(config.rollouts)
            if episode_key(task.id, seed, rollout) not in done]
    transcripts = out_dir / "transcripts"
    transcripts.mkdir(exist_ok=True)
    drop_partial_line(out_dir / "episodes.jsonl")
    if jobs and config.tools is None and parse_backend(config.backend).layer("live") is not None:
        require_keys(checked or open_backend(config.backend), {p for task, _, _ in jobs for p in task.platforms})
    if jobs and executor is not None and not executor.in_process:
        if config.tools is not None:
            raise UserError(f"--tools {config.tools}: episodes over MCP run on the local executor")
        _play_units(config, jobs, executor, out_dir, on_episode, scores)
    elif jobs:
        with _where_tools_run(config, checked) as (backend, tools):
            if tools is not None:
                tools.require({task.id: task.available_tools for task, _, _ in jobs})
            policies = {seed: make_policy(config, seed) for seed in config.seeds}
            _play(jobs, targets, policies, backend, out_dir, workers, on_episode, tools)
    episodes = _sorted([e for e in read_episodes(out_dir) if e.error is None], tasks)
    _write_canonical(out_dir / "episodes.jsonl", episodes)
    return episodes


def require_keys(backend: Backend, platforms: set[str]) -> None:
    """Every key the episodes will ask for, asked for now (on a live backend: the simulator issues any): a
    KOPA_*_KEY not set stops the run before its first episode with the variable named (exit 2), where each
    episode would otherwise fail its set-up and be filed as unplayed."""
    catalog = load_catalog()
    for key_id in sorted({k for p in platforms for k in catalog.key_ids(p)}):
        backend.issue_key(key_id)


def forkable(config: RunConfig) -> bool:
    """Episodes that gain from forked workers (`LocalExecutor(fork=True)`) over threads: an offline policy is
    Python-bound, so threads share one core (a model's episodes wait on its server, and threads serve them);
    in-process tools on a backend that records nothing (a recording has one writer)."""
    return (can_fork() and config.policy in POLICIES and config.tools is None
            and not parse_backend(config.backend).records)


def _checked_backend(config: RunConfig) -> Backend | None:
    """The run's backend, opened here to refuse it before any episode runs when the task set records
    another world (kopa.backends.world); in-process episodes then play on it, while units on an executor
    open their own (one more open here: a fraction of a second once the world is built and cached). None when
    the set records no world, or the tools answer over MCP (the server's backend, which this process never
    sees, is not checked)."""
    if config.tools is not None:
        return None
    return open_checked(load_task_set(config).root, config.backend)


@contextmanager
def _where_tools_run(config: RunConfig, opened: Backend | None = None
                     ) -> Iterator[tuple[Backend | None, ToolSource | None]]:
    """(backend, None) in-process — ``opened`` if the run's backend was already opened (and checked); (None,
    the MCP tool source) over MCP — one connection for the run, its server's own backend answering (this
    process opens none)."""
    if config.tools is None:
        yield opened if opened is not None else open_backend(config.backend), None
        return

    connection, tools = open_tools(config.tools)
    with connection:
        yield None, tools


def _write_canonical(path: Path, episodes: list[Episode]) -> None:
    """The episodes in their canonical order, written whole and renamed (an interruption keeps the old file)."""
    data = b"".join(e.model_dump_json().encode() + b"\n" for e in episodes)
    if not path.exists() or path.read_bytes() != data:
        write_atomic(path, data)


def play_one(task: Task, target: Target, policy, backend: Backend | None, seed: int, rollout: int,
             tools: ToolSource | None = None, retry: RetryPolicy | None = None) -> tuple[Episode, Transcript | None]:
    """One episode; an infrastructure failure (not the model's) is retried, then reported apart."""
    for attempt in range(INFRA_RETRIES + 1):
        try:
            return run_episode(task, target, policy, backend, seed, rollout, tools, retry)
        except UserError:
            # a request the recording lacks, a key not set: no retry plays it, and filing it with the model's
            # failures would hide it — the command stops with its one line (exit 2)
            raise
        except Exception as exc:
            # a model request that failed was retried by the client already (--llm-retries N is N attempts
            # more, not N more per replay of the episode): the episode is not played again
            if attempt == INFRA_RETRIES or isinstance(exc.__cause__, ChatModelError):
                # the calls made before the policy stopped, where it got that far (not kept in the run folder:
                # an episode that did not finish is replayed)
                partial = Transcript(task_id=task.id, seed=seed, rollout=rollout, results=exc.results) \
                    if isinstance(exc, EpisodeStopped) else None
                return _infra_failure(task, policy.name, seed, rollout, exc), partial
    raise AssertionError("unreachable")


def transcript_bytes(transcript: Transcript) -> bytes:
    """A transcript as its run-folder file holds it."""
    return orjson.dumps(transcript.model_dump(mode="json"), option=orjson.OPT_INDENT_2)


def _store(out_dir: Path, sink, episode: Episode, transcript: Transcript | bytes | None) -> None:
    if episode.error is not None:  # not played: apart (the caller holds the lock or is the only writer)
        with (out_dir / UNPLAYED).open("ab") as unplayed:
            unplayed.write(episode.model_dump_json().encode() + b"\n")
        return
    if transcript is not None:  # written first: an episode line always has its transcript
        name = transcript_name(episode.task_id, episode.seed, episode.rollout)
        # through the folder: a task id is checked where tasks load, and a name that leaves the folder is
        # refused here too (a task set from elsewhere, an id built by a caller)
        RunFolder(out_dir, what="a run", error=RunFolderError).file(f"transcripts/{name}").write_bytes(
            transcript if isinstance(transcript, bytes) else transcript_bytes(transcript))
    sink.write(episode.model_dump_json().encode() + b"\n")
    sink.flush()


def _play(jobs: list[tuple[Task, int, int]], targets: dict[str, Target], policies: dict[int, Any],
          backend: Backend | None, out_dir: Path, workers: int, on_episode: Callable[[Episode], Any] | None,
          tools: ToolSource | None = None) -> None:
    lock = threading.Lock()
    with (out_dir / "episodes.jsonl").open("ab") as sink, ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(play_one, task, targets[task.id], policies[seed], backend, seed, rollout, tools)
                   for task, seed, rollout in jobs]
        for future in as_completed(futures):
            episode, transcript = future.result()
            with lock:
                _store(out_dir, sink, episode, transcript)
            if on_episode is not None:
                on_episode(episode)


# ---------------------------------------------------------------- episodes as executor units


@dataclass(frozen=True)
class EpisodeUnit:
    """One episode to play in whatever process runs it: the run's configuration (its paths made absolute,
    so a worker with another working directory finds them) and the episode's coordinates."""

    config: dict[str, Any]
    task_id: str
    seed: int
    rollout: int


@dataclass
class _Player:
    tasks: dict[str, Task]
    targets: dict[str, Target]
    backend: Backend
    policies: dict[int, Any]


def _player_of(config: RunConfig) -> _Player:
    def build() -> _Player:
        found = load_task_set(config)
        return _Player({t.id: t for t in found.tasks()}, found.targets(), open_backend(config.backend),
                       {seed: make_policy(config, seed) for seed in config.seeds})

    return current("bench-episodes", config.digest(), build)


def play_unit(unit: EpisodeUnit) -> tuple[Episode, Transcript | None]:
    player = _player_of(RunConfig.model_validate(unit.config))
    task = player.tasks[unit.task_id]
    return play_one(task, player.targets[task.id], player.policies[unit.seed], player.backend, unit.seed,
                    unit.rollout)


def play_units(units: list[EpisodeUnit]) -> list[tuple[Episode, bytes | None, bytes | None]]:
    """The episodes of one task, in one worker: its first episode builds what the task reads (tables, the
    simulator's series, the backend's kept answers) and the others reuse it, where spreading them over workers
    would build it once per worker. Transcripts come back as the bytes their files hold, and each episode's
    score line (`scores.jsonl`) where the run's judge is offline: both made on the workers, not by the one
    process that stores them (serializing transcripts took a third of its time on the oracle's 580 episodes,
    scoring 2,320 episodes 2.5 s)."""
    out = []
    for unit in units:
        episode, transcript = play_unit(unit)
        out.append((episode, None if transcript is None else transcript_bytes(transcript), _score_line(unit, episode)))
    return out


def _score_line(unit: EpisodeUnit, episode: Episode) -> bytes | None:
    """The line `score_run` writes for `episode`, scored as it scores it: from the episode as its stored line
    reads back, with the offline judge. None for a model judge (its calls are made once, by `score_run`) and
    for an episode that was not played."""
    config = RunConfig.model_validate(unit.config)
    if config.judge_model or episode.error is not None:
        return None
    player = _player_of(config)
    stored = Episode.model_validate_json(episode.model_dump_json())
    task = player.tasks[stored.task_id]
    return score_stored(task, player.targets[task.id], stored, None).model_dump_json().encode()


def _absolute(config: RunConfig) -> RunConfig:
    update = {name: str(Path(value).resolve()) for name in ("task_set", "llm_cache")
              if (value := getattr(config, name)) is not None}
    return config.model_copy(update=update)


def _play_units(config: RunConfig, jobs: list[tuple[Task, int, int]], executor: Executor, out_dir: Path,
                on_episode: Callable[[Episode], Any] | None, scores: dict[str, bytes] | None) -> None:
    if parse_backend(config.backend).records:
        raise UserError(f"{config.backend}: a recording is written by one process; record with the local "
                        "executor, then run on many from the recording (replay:DIR)")
    shipped = _absolute(config).model_dump()
    if getattr(executor, "fork", False):  # loaded once here; the forked workers share it copy-on-write
        player = _player_of(RunConfig.model_validate(shipped))
        preload_calls(player.backend, [(c.tool, c.arguments) for task, _, _ in jobs
                                        for c in player.targets[task.id].calls], load_catalog())
    by_task: dict[str, list[EpisodeUnit]] = {}
    for task, seed, rollout in jobs:
        by_task.setdefault(task.id, []).append(EpisodeUnit(shipped, task.id, seed, rollout))
    groups = list(by_task.values())
    try:
        with (out_dir / "episodes.jsonl").open("ab") as sink:
            for played in in_order(executor, play_units, groups):
                for episode, transcript, score in played:
                    _store(out_dir, sink, episode, transcript)
                    if scores is not None and score is not None:
                        scores[episode_key(episode.task_id, episode.seed, episode.rollout)] = score
                    if on_episode is not None:
                        on_episode(episode)
    finally:
        if getattr(executor, "fork", False):
            # forked workers hold copies of this run's descriptors, the folder's write lock among them, and
            # this run's player: they go with the run (the next run forks after loading its own)
            executor.close()


def score_run(run_dir: Path, out_dir: Path | None = None, *, judge_model: str | None = None,
              judge_base_url: str | None = None, workers: int = 4) -> list[ScoredEpisode]:
    """Score every stored episode of ``run_dir`` with the current scorers into ``out_dir`` (default: the
    run folder): ``scores.jsonl`` and ``scoring.json``. Reads ``episodes.jsonl`` and the run's task set
    only — no tool is called and no backend opened; no model either, unless ``judge_model`` is named
    (its calls go through the run's LLM cache, so a judged re-score replays offline)."""
    out_dir = out_dir or run_dir
    config = read_config(run_dir)
    with RunFolder(run_dir, what="a run", error=RunFolderError).writing("`kopa bench run`"):  # not mid-run
        episodes = read_episodes(run_dir, finished=True)
    if not episodes:
        raise RunFolderError(f"{run_dir} has no episodes")
    found = load_task_set(config)
    tasks, targets = found.tasks(), found.targets()
    by_id = {t.id: t for t in tasks}
    unknown = sorted({e.task_id for e in episodes if e.task_id not in by_id or e.task_id not in targets})
    if unknown:
        raise RunFolderError(f"{run_dir}: episodes of tasks the task set no longer has (or has no target "
                             f"for): {unknown[:10]}")
    judge = make_judge(config.model_copy(update={"judge_model": judge_model, "judge_base_url": judge_base_url}))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        scored = list(pool.map(lambda e: score_stored(by_id[e.task_id], targets[e.task_id], e, judge), episodes))
    scored = _sorted(scored, tasks)
    _write_scores(run_dir, out_dir, found, [s.model_dump_json().encode() for s in scored],
                  judge_model=judge_model, judge_base_url=judge_base_url)
    return scored


def _write_scores(run_dir: Path, out_dir: Path, found: TaskSet, lines: list[bytes], *,
                  judge_model: str | None = None, judge_base_url: str | None = None) -> None:
    """scores.jsonl (the lines, in the canonical order) and scoring.json (what scored them)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    partial = out_dir / "scores.jsonl.partial"  # written whole, then renamed: never a half-written file
    partial.write_bytes(b"".join(line + b"\n" for line in lines))
    partial.replace(out_dir / "scores.jsonl")
    provenance = {"run": str(run_dir), "task_set": str(found.root), "judge_model": judge_model,
                  "judge_base_url": judge_base_url, "episodes": len(lines)}
    (out_dir / "scoring.json").write_bytes(orjson.dumps(provenance, option=orjson.OPT_INDENT_2))


def run_bench(config: RunConfig, out_dir: Path, *, workers: int = 4, force: bool = False,
              executor: Executor | None = None, on_episode: Callable[[Episode], Any] | None = None
              ) -> list[ScoredEpisode]:
    """Generate, then score from the files with the run's judge: the run's scores are a re-score. Where units
    on an executor scored every stored episode as they played it (from its stored line, with the offline
    judge: `_score_line`), those lines are written instead of scoring the files again in this process — the
    same bytes. Nothing to score when no episode could be played (see `read_unplayed`)."""
    scores: dict[str, bytes] = {}
    played = generate(config, out_dir, workers=workers, force=force, executor=executor, on_episode=on_episode,
                      scores=scores)
    if not played:
        return []
    keys = [episode_key(e.task_id, e.seed, e.rollout) for e in played]
    if not config.judge_model and all(k in scores for k in keys):
        lines = [scores[k] for k in keys]  # `played` is in the canonical order `score_run` writes
        _write_scores(out_dir, out_dir, load_task_set(config), lines)
        return [ScoredEpisode.model_validate_json(line) for line in lines]
    return score_run(out_dir, judge_model=config.judge_model, judge_base_url=config.judge_base_url,
                     workers=workers)
