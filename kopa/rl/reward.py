"""The reward verl's reward manager calls: ``compute_score(data_source, solution_str, ground_truth, extra_info)``.

It scores with kopa's own scorers (``kopa.eval.scoring.episode.score_episode``), exactly as a stored
episode is scored: RESPONSE from the final answer, ENVIRONMENT from the episode's end state, ACTION from
its calls; the score is 1.0 when every component of the task's reward_basis passes, else 0.0 — the
paper's binary reward. The end state and calls are what the kopa tools left under the rollout's request
id: they travel with the sample in ``extra_info['kopa']`` (verl merges the agent loop's extra fields,
where the tools write them, into extra_info), else the process's episode store is asked by request id;
an episode that called no tool is scored on the state its setup leaves (on the simulator, or the backend
``extra_info['backend']`` names).

The final answer is the text after the last tool response: verl hands the whole decoded response, tool
calls and tool results included, and an answer found inside a tool result is not the model's answer.
``<think>`` blocks are dropped; a response that ends on a tool call has no answer.

Named in verl's config as ``reward.custom_reward_function.path=pkg://kopa.rl.reward`` and
``reward.custom_reward_function.name=compute_score``. Needs no verl.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from kopa.backends.spec import open_backend
from kopa.eval.environment import Environment
from kopa.eval.episode import PredictedCall
from kopa.eval.scoring.episode import score_episode
from kopa.rl.episodes import STORE, TaskIndex, snapshot

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_ROLE_LINE = re.compile(r"^\s*(?:<\|im_start\|>)?assistant\s*\n", re.IGNORECASE)
_TOOL_END = ("</tool_response>", "<|im_end|>\nuser", "</tool_result>")


def final_answer(solution_str: str) -> str | None:
    """The model's last message: after the last tool response, without role labels or thinking."""
    text = _THINK.sub("", solution_str or "")
    cut = max((text.rfind(marker) + len(marker) for marker in _TOOL_END if marker in text), default=0)
    tail = text[cut:]
    tail = tail.replace("<|im_end|>", "").replace("<|endoftext|>", "")
    tail = _ROLE_LINE.sub("", tail, count=1).strip()
    if "<tool_call>" in tail:  # ended asking for a tool: no final answer was given
        return None
    return tail or None


def _episode(extra_info: dict[str, Any], task, target, backend_spec: str | None) -> dict[str, Any]:
    kopa = extra_info.get("kopa")
    if isinstance(kopa, dict) and kopa.get("state") is not None:
        return kopa
    request_id = extra_info.get("request_id") or (kopa or {}).get("request_id")
    stored = STORE.get(str(request_id)) if request_id else None
    if stored is not None:
        return snapshot(stored)
    if "ENVIRONMENT" not in task.reward_basis:  # no end state is scored: no environment to build
        return {"state": {}, "state_hash": "", "calls": []}
    env = Environment(task, open_backend(backend_spec or "sim"), budget=target.max_allowed_calls)
    return {"state": orjson.loads(env.state.canonical()), "state_hash": env.state.hash(), "calls": []}


def _verdict(value: bool | None) -> float:
    return -1.0 if value is None else float(value)  # -1: not in the task's reward basis


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None,
                  **kwargs: Any) -> dict[str, float]:
    """{'score': 1.0 or 0.0, 'acc': the same, 'response', 'environment' (1/0, −1 when not scored),
    'action', 'calls'}: the score for training, the rest for verl's logged reward metrics."""
    extra_info = dict(extra_info or {})
    truth = orjson.loads(ground_truth) if isinstance(ground_truth, str | bytes) else dict(ground_truth or {})
    task_id = truth.get("task_id") or extra_info.get("task_id")
    index = TaskIndex.of(extra_info.get("task_set") or None)
    task, target = index.task(str(task_id))
    episode = _episode(extra_info, task, target, extra_info.get("backend"))
    calls = [PredictedCall.model_validate(c) for c in episode.get("calls", [])]
    score = score_episode(task, target, final_answer(solution_str), calls, episode["state"], episode["state_hash"])
    reward = 1.0 if score.passed else 0.0
    return {"score": reward, "acc": reward, "response": _verdict(score.response),
            "environment": _verdict(score.environment), "action": float(score.action), "calls": float(len(calls))}
