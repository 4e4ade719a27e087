"""`kopa_bench`: KOPA-Bench (or any task set: a Phase B dataset, your own) as an Inspect task.

    inspect eval kopa/kopa_bench --model vllm/Qwen/Qwen3.5-4B
    inspect eval kopa/kopa_bench --model mockllm/model --limit 10 -T policy=oracle
    inspect eval kopa/kopa_bench --model openai/gpt-4.1-mini -T tasks=runs/synth -T rollouts=4 --epochs 4

A sample is one episode: kopa's agent loop on a fresh environment (tools in process on `backend`, the task's
call budget), the model Inspect's; `policy` names an offline baseline instead (oracle, first_page_only, …),
which plays without a model. Epochs are rollouts (rollout = epoch − 1, the seed kopa derives from it);
their reducers give the mean (pass@1) and pass@k.
"""

from __future__ import annotations

import anyio.to_thread
from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from kopa.backends.base import Backend
from kopa.backends.spec import shared_backend, world_to_build
from kopa.errors import UserError
from kopa.eval.policies.offline import POLICIES
from kopa.eval.policies.openai_agent import OpenAIAgentPolicy
from kopa.eval.report import kopa_version
from kopa.eval.runner import RunConfig, run_episode, select_tasks
from kopa.inspect_eval.model import InspectChatModel, inspect_messages
from kopa.inspect_eval.scorers import (
    EPISODE_KEY,
    kopa_action,
    kopa_environment,
    kopa_passed,
    kopa_response,
    tasks_at,
)
from kopa.rl.messages import episode_messages
from kopa.tools.render import MAX_TOOL_CHARS

MODEL_POLICY = "model"  # the policy that asks Inspect's model; the others are kopa's offline baselines

def _backend(spec: str) -> Backend:
    """One backend per spec and process, as `kopa bench run` opens one for all its episodes."""
    return shared_backend(spec)


@task
def kopa_bench(tasks: str | None = None, policy: str = MODEL_POLICY, backend: str = "sim", rollouts: int = 1,
               seed: int = 0, only: str | list[str] | None = None, max_turns: int = 16,
               max_tool_chars: int = MAX_TOOL_CHARS) -> Task:
    """KOPA-Bench's tasks (or those of the task set at `tasks`), `only` task ids or domains — comma-separated,
    or the list Inspect's CLI makes of `-T only=a,b`; `rollouts` epochs per task."""
    if policy != MODEL_POLICY and policy not in POLICIES:
        raise ValueError(f"policy={policy!r}: expected {MODEL_POLICY!r} or one of {sorted(POLICIES)}")
    try:  # a bad spec stops the task before its samples start (`inspect eval` then exits 1), not in each sample
        world_to_build(backend)
    except UserError as exc:
        raise ValueError(f"backend={backend!r}: {exc}") from exc
    names = only if isinstance(only, list) else (only or "").split(",")
    config = RunConfig(task_set=tasks, only=[str(x).strip() for x in names if str(x).strip()])
    found = tasks_at(tasks)
    targets = found.targets()
    samples = [Sample(id=t.id, input=t.query, target=targets[t.id].answer or "",
                      metadata={"domain": t.domain, "platforms": t.platforms, "reward_basis": list(t.reward_basis)})
               for t in select_tasks(config, found.tasks())]
    reducers = ["mean"] if rollouts == 1 else ["mean", f"pass_at_{rollouts}"]
    return Task(dataset=MemoryDataset(samples, name="kopa-bench" if tasks is None else str(tasks)),
                solver=kopa_agent(tasks, policy, backend, seed, max_turns, max_tool_chars),
                scorer=[kopa_passed(tasks), kopa_response(tasks), kopa_environment(tasks), kopa_action(tasks)],
                epochs=Epochs(rollouts, reducers),
                # what was evaluated, beside the model Inspect records: an offline policy plays without it
                metadata={"kopa_version": kopa_version(), "policy": policy, "backend": backend,
                          "task_set": tasks or "KOPA-Bench", "model_plays": policy == MODEL_POLICY})


@solver
def kopa_agent(tasks: str | None = None, policy: str = MODEL_POLICY, backend: str = "sim", seed: int = 0,
               max_turns: int = 16, max_tool_chars: int = MAX_TOOL_CHARS) -> Solver:
    """Play the sample's task as one kopa episode; the episode goes to the store for the scorers, its
    conversation to the sample's messages (what `inspect view` shows), its answer to the output."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        found = tasks_at(tasks)
        task_ = next(t for t in found.tasks() if t.id == str(state.sample_id))
        agent = POLICIES[policy]() if policy != MODEL_POLICY else OpenAIAgentPolicy(
            InspectChatModel(get_model()), max_turns=max_turns, max_tool_chars=max_tool_chars, seed=seed)
        episode, transcript = await anyio.to_thread.run_sync(
            run_episode, task_, found.targets()[task_.id], agent, _backend(backend), seed, state.epoch - 1)
        state.store.set(EPISODE_KEY, episode.model_dump(mode="json"))
        # an offline policy has no conversation: the chat a model would have had, as the SFT export writes it
        messages = episode_messages(task_, episode, transcript.results, transcript.messages, max_tool_chars)
        state.messages = await inspect_messages(messages)
        state.output = ModelOutput.from_content(model=policy if policy != MODEL_POLICY else str(get_model()),
                                                content=episode.answer or "")
        return state

    return solve
