"""kopa's tools and reward inside verl (``pip install 'kopa[rl]'``): what verl's GRPO trainer loads.

``KopaTool`` is a ``verl.tools.base_tool.BaseTool``: one instance per catalog tool (the tool config YAML
of ``kopa rl verl-config`` lists them), each executing its tool through kopa's runtime on the backend
its config names (any backend string: sim, replay:DIR, faults:…@sim, live). verl's ToolAgentLoop creates
and releases an instance around every single call, so the episode — issued keys, watchlists, the call
log, the budget — is kept under the rollout's request id (``agent_data.request_id``, which every call of
one rollout shares), never under the instance id (:mod:`kopa.rl.episodes`). The task comes from the
sample's ``tools_kwargs`` (create_kwargs ``{"task_id": …}``, written by ``kopa rl export --format verl``).

What a call returns is the text a model reads: the API's JSON, or for a failed call the error with its
class (structural / environmental / auth) — never an exception, which verl would turn into a generic
message. After every call the episode's end state and calls are written into the sample's
``extra_fields['kopa']``, which verl hands to the reward function as ``extra_info['kopa']``.

The reward is :func:`kopa.rl.reward.compute_score` (re-exported here). ``KopaToolAgentLoop`` (registered as
'kopa_tool_agent', the agent name ``kopa rl export`` writes) is verl's ToolAgentLoop that also computes it at
the end of each rollout, in the process where the episode lives, as verl lets an agent loop do (its
``reward_score``): verl then takes that score on every reward path. Without it the end state reaches the
reward only where verl's reward manager merges ``tool_extra_fields`` into ``extra_info`` (its naive, limited
and remote managers), so on the other paths — DAPO's or GDPO's manager, a colocated reward model scoring the
trainer's batch — a perfect ENVIRONMENT rollout would earn 0.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from typing import Any
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, register
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from kopa.backends.spec import shared_backend
from kopa.rl.episodes import STORE, TaskIndex, snapshot
from kopa.rl.export import AGENT_NAME, SHARED_TOOLS_KWARGS
from kopa.rl.reward import compute_score
from kopa.tools.render import MAX_TOOL_CHARS, render_result

__all__ = ["KopaTool", "KopaToolAgentLoop", "compute_score"]

# One asyncio lock per request id, taken before a call's first await: verl gathers a turn's parallel calls
# in order, and a FIFO lock makes them reach the episode in that order, so the call log and the end state
# (a watchlist's order) never depend on thread timing. Weak values: a lock nobody waits on goes away.
_TURNS: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def _turn_lock(request_id: str) -> asyncio.Lock:
    lock = _TURNS.get(request_id)
    if lock is None:
        lock = asyncio.Lock()
        _TURNS[request_id] = lock
    return lock


def _backend(spec: str):
    """One backend per spec and process, shared by all tools (as `kopa bench run` shares one)."""
    return shared_backend(spec)


def _error_text(kind: str, message: str) -> str:
    return json.dumps({"error": {"error_class": "structural", "kind": kind, "message": message}}, ensure_ascii=False)


class KopaTool(BaseTool):
    """config: {type: native, backend: SPEC, task_set: PATH or null (when a sample names none),
    max_tool_chars: N (a result longer than that loses trailing records, stays valid JSON and says so —
    before verl's own max_tool_response_length cuts it mid-text)}."""

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema | None) -> None:
        if tool_schema is None:
            raise ValueError("KopaTool needs its tool_schema (write the tool config with `kopa rl verl-config`)")
        super().__init__(config, tool_schema)
        self.backend_spec = str(config.get("backend") or "sim")
        self.task_set = config.get("task_set") or None
        self.max_tool_chars = int(config.get("max_tool_chars") or MAX_TOOL_CHARS)
        self._creates: dict[str, dict[str, Any]] = {}  # instance id → create_kwargs, for one call

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
        instance_id = instance_id or str(uuid4())
        self._creates[instance_id] = dict(kwargs.get("create_kwargs") or {})
        return instance_id, ToolResponse()

    def _create_kwargs(self, instance_id: str, agent_data: Any) -> dict[str, Any]:
        create = self._creates.get(instance_id) or {}
        if create.get("task_id"):
            return create
        tools_kwargs = getattr(agent_data, "tools_kwargs", None) or {}
        own = (tools_kwargs.get(self.name) or {}).get("create_kwargs")
        return own or (tools_kwargs.get(SHARED_TOOLS_KWARGS) or {}).get("create_kwargs") or {}

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
                      ) -> tuple[ToolResponse, float, dict]:
        agent_data = kwargs.get("agent_data")
        request_id = str(getattr(agent_data, "request_id", None) or kwargs.get("request_id") or instance_id)
        async with _turn_lock(request_id):
            return await self._execute(instance_id, request_id, parameters, agent_data)

    async def _execute(self, instance_id: str, request_id: str, parameters: dict[str, Any], agent_data: Any
                       ) -> tuple[ToolResponse, float, dict]:
        try:
            create = self._create_kwargs(instance_id, agent_data)
            if not create.get("task_id"):
                return (ToolResponse(text=_error_text("no_task", "this sample names no kopa task (tools_kwargs "
                                                      "create_kwargs task_id)")), 0.0, {"ok": False})
            task, target = TaskIndex.of(create.get("task_set") or self.task_set).task(str(create["task_id"]))
            backend = _backend(self.backend_spec)
            episode = await asyncio.to_thread(STORE.get_or_start, request_id, task, target, backend)
            # Calls of one assistant turn are parallel calls: they share the turn number.
            turn = int(getattr(agent_data, "assistant_turns", 0) or 0) or len(episode.env.calls) + 1
            result = await asyncio.to_thread(self._call, episode, parameters, turn)
        except Exception as exc:  # a tool error is the model's to read, never the trainer's to crash on
            return ToolResponse(text=_error_text("kopa_error", f"{type(exc).__name__}: {exc}")), 0.0, {"ok": False}
        if agent_data is not None:
            agent_data.extra_fields["kopa"] = snapshot(episode)
        metrics = {"ok": result.ok, "error_class": result.error.error_class if result.error else None}
        return ToolResponse(text=render_result(result, self.max_tool_chars)), 0.0, metrics

    def _call(self, episode, parameters: dict[str, Any], turn: int):
        with episode.lock:  # the request's asyncio lock orders calls; this guards against other callers
            return episode.env.call(self.name, dict(parameters), turn)

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """0: the reward is the whole episode's (compute_score), not a step's."""
        return 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        # The instance lived for one call; the episode lives on under its request id.
        self._creates.pop(instance_id, None)


@register(AGENT_NAME)
class KopaToolAgentLoop(ToolAgentLoop):
    """verl's ToolAgentLoop, then the rollout's reward from the episode its tools left (module docstring).

    The response is decoded as verl's reward managers decode it (special tokens skipped) and scored by
    the same ``compute_score`` with the same arguments, so the score is the one verl's naive manager gives
    where that manager sees the episode. A sample without ``reward_model``/``data_source`` is left
    unscored, for verl's reward path."""

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        output = await super().run(sampling_params, **kwargs)
        truth = (kwargs.get("reward_model") or {}).get("ground_truth")
        if truth is None or kwargs.get("data_source") is None:
            return output
        extra_info = dict(kwargs.get("extra_info") or {})
        if "kopa" in output.extra_fields:
            extra_info["kopa"] = output.extra_fields["kopa"]
        text = await asyncio.to_thread(self.tokenizer.decode, output.response_ids, skip_special_tokens=True)
        scores = await asyncio.to_thread(compute_score, kwargs["data_source"], text, truth, extra_info)
        output.reward_score = scores["score"]
        output.extra_fields["reward_extra_info"] = scores
        return output
