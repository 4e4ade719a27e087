"""kopa.rl.trl without TRL: the environment classes TRL's GRPOTrainer instantiates per rollout, and the
reward it calls. TRL itself runs them in `nox -s trl` (tests/test_rl_trl.py)."""

from __future__ import annotations

import inspect
import json

import pytest

from kopa.rl.trl import KopaTRL, final_text

TASKS = ["law-014", "traffic-009", "law-004"]  # RESPONSE; RESPONSE + ENVIRONMENT (watchlist); ENVIRONMENT


@pytest.fixture(scope="module")
def kopa() -> KopaTRL:
    return KopaTRL.of(only=TASKS)


def exposed(environment) -> list[str]:
    """The methods TRL offers a model as tools: its rule (public functions other than reset / get_reward)."""
    return sorted(name for name, _ in inspect.getmembers(type(environment), predicate=inspect.isfunction)
                  if name not in ("reset", "get_reward") and not name.startswith("_"))


def golden_rollout(kopa: KopaTRL, task_id: str, *, skip: str | None = None, answer: str | None = None):
    task = next(t for t in kopa.tasks if t.id == task_id)
    target = kopa.targets[task_id]
    environment = kopa.environments()[task_id]()
    environment.reset(**next(row for row in kopa.dataset() if row["task_id"] == task_id))
    messages: list[dict] = []
    for call in target.calls:
        if call.tool == skip:
            continue
        result = getattr(environment, call.tool)(**call.arguments)
        messages += [{"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": call.tool, "arguments": call.arguments}}]},
            {"role": "tool", "name": call.tool, "content": result}]
    if answer is None:
        answer = (f"정답은 \\boxed{{{target.answer}}} 입니다." if task.answer and task.answer.type == "number"
                  else target.answer or "관심목록에 추가했습니다.")
    messages.append({"role": "assistant", "content": answer})
    return environment, messages


def reward(kopa: KopaTRL, task_id: str, environment, completion) -> float:
    row = next(row for row in kopa.dataset() if row["task_id"] == task_id)
    return kopa.reward(prompts=[row["prompt"]], completions=[completion], environments=[environment],
                       ground_truth=[row["ground_truth"]], data_source=[row["data_source"]])[0]


@pytest.mark.parametrize("task_id", TASKS)
def test_a_tasks_environment_offers_exactly_its_tools(kopa, task_id):
    task = next(t for t in kopa.tasks if t.id == task_id)
    assert exposed(kopa.environments()[task_id]()) == sorted(task.available_tools)


@pytest.mark.parametrize("task_id", TASKS)
def test_the_golden_rollout_earns_one_and_a_wrong_one_zero(kopa, task_id):
    task = next(t for t in kopa.tasks if t.id == task_id)
    environment, completion = golden_rollout(kopa, task_id)
    assert environment.episode.env.state.hash() == kopa.targets[task_id].state_hash
    assert reward(kopa, task_id, environment, completion) == 1.0
    if "RESPONSE" in task.reward_basis:
        environment, completion = golden_rollout(kopa, task_id, answer="정답은 \\boxed{-12345} 입니다.")
        assert reward(kopa, task_id, environment, completion) == 0.0
    if "ENVIRONMENT" in task.reward_basis:  # the right answer, but the watchlist never written
        environment, completion = golden_rollout(kopa, task_id, skip="add_watchlist_item")
        assert reward(kopa, task_id, environment, completion) == 0.0


def test_a_rollout_that_ends_on_a_call_has_no_answer(kopa):
    environment, completion = golden_rollout(kopa, "law-014")
    ends_on_call = [*completion[:-1], completion[0]]  # the last message asks for a tool
    assert final_text(ends_on_call) == "" and reward(kopa, "law-014", environment, ends_on_call) == 0.0


def test_each_rollout_has_its_own_episode(kopa):
    first, _ = golden_rollout(kopa, "traffic-009")
    second, _ = golden_rollout(kopa, "traffic-009")
    assert first.episode.request_id != second.episode.request_id
    target = kopa.targets["traffic-009"]
    for environment in (first, second):  # not one shared watchlist with every item twice
        assert len(environment.episode.env.calls) == len(target.calls)
        assert environment.episode.env.state.hash() == target.state_hash


def test_a_call_without_a_required_argument_gets_kopas_error_as_its_result(kopa):
    """As in the agent loop: the call is made, recorded, and answered with the structural error."""
    environment = kopa.environments()["law-014"]()
    environment.reset(task_id="law-014")
    method = environment.issue_api_key
    assert [name for name, p in inspect.signature(method).parameters.items() if p.default is p.empty] == ["platform"]
    answer = json.loads(method())
    assert answer["error"]["error_class"] == "structural", answer
    assert [c.tool for c in environment.episode.env.calls] == ["issue_api_key"]
