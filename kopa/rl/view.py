"""`kopa rl view DIR`: a `kopa rl rollouts` folder as the same static site `kopa bench view` writes — one row
per rollout (its group's task, the rollout as 'rollout', the reward as the verdict), each rollout's page with
its messages and calls beside the golden trajectory. groups.jsonl keeps no records of the calls (the messages
carry the results as the model read them), so a call's box shows its arguments, status and error only."""

from __future__ import annotations

from pathlib import Path

from kopa.eval.episode import Episode, EpisodeScore, PredictedCall, ScoredEpisode, Transcript
from kopa.eval.task import task_set
from kopa.eval.view import ACTION_ONLY, EpisodeView, write_site
from kopa.rl.rollouts import RolloutsError, read_config, read_groups
from kopa.tools.results import ToolError


def load_rollout_views(folder: Path) -> list[EpisodeView]:
    config = read_config(folder)
    found = task_set(config.task_set)
    tasks, targets = {t.id: t for t in found.tasks()}, found.targets()
    views = []
    for group in read_groups(folder, finished=True):
        if group["task_id"] not in tasks:
            raise RolloutsError(f"{folder}: task {group['task_id']!r} is not in the task set the rollouts name")
        task = tasks[group["task_id"]]
        for r in group["rollouts"]:
            calls = [PredictedCall(tool=c["tool"], arguments=c["arguments"], turn=c["turn"], ok=c["ok"],
                                   malformed=c.get("malformed"), records=c.get("records") or 0,
                                   error=None if c.get("error_class") is None else ToolError(
                                       error_class=c["error_class"], kind=c.get("error_kind") or "",
                                       code=c.get("error_kind") or "", message=""))
                     for c in r["tool_calls"]]
            episode = Episode(task_id=task.id, domain=task.domain, platforms=task.platforms, policy=r["played"],
                              seed=config.seed, rollout=r["rollout"], answer=r["answer"], calls=calls, error=r["error"])
            score = EpisodeScore(response=r["response"], environment=r["environment"], action=r["action"],
                                 passed=r["reward"] == 1.0, details={ACTION_ONLY: True})
            scored = ScoredEpisode(task_id=task.id, domain=task.domain, platforms=task.platforms, policy=r["played"],
                                   seed=config.seed, rollout=r["rollout"], answer=r["answer"],
                                   target_answer=targets[task.id].answer, score=score,
                                   failure_cause=r["failure_cause"], calls=r["calls"],
                                   malformed_calls=r["malformed_calls"], error=r["error"])
            transcript = Transcript(task_id=task.id, seed=config.seed, rollout=r["rollout"], messages=r["messages"])
            views.append(EpisodeView(task, targets[task.id], episode, scored, transcript))
    return views


def write_rollout_view(folder: Path, out: Path | None = None) -> Path:
    views = load_rollout_views(folder)
    if not views:
        raise RolloutsError(f"{folder} has no finished group")
    return write_site(out or folder / "view", f"kopa rl rollouts · {folder.resolve().name}", views)
