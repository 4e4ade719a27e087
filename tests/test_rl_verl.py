"""kopa inside the real verl (`nox -s rl`; skipped where verl is not installed), all on CPU:

- verl's own ToolAgentLoop (its hermes tool-call parsing, tool create / execute / release around every
  call, continuous-token prompt building) executes kopa tools over the simulator, and the episode state
  lives under the rollout's request id across the calls of one rollout;
- verl's reward manager calls kopa's compute_score as it does in training: 1.0 for the golden answer,
  0.0 for a wrong one, on RESPONSE and ENVIRONMENT tasks; kopa's agent loop (the one exported rows name)
  gives each rollout that same score itself, and verl's worker keeps it;
- verl's GRPO advantage function agrees with kopa's to 1e-6 on the rewards of real rollout groups;
- the exported dataset loads with verl's RLHFDataset; the tool config with verl's tool registry;
- the launch script's overrides compose with verl's Hydra config and pass verl's own validation.

The model is a scripted server that answers with fixed assistant turns — the golden calls of the task,
turn by turn, then an answer — so what is tested is what verl and kopa do with them, never the model.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

verl = pytest.importorskip("verl", reason="verl is not installed: pip install 'kopa[rl]' (nox -s rl)")

pytestmark = pytest.mark.verl

from hydra import compose, initialize_config_dir  # noqa: E402  (installed with verl)

from kopa.eval.task import Task, task_set  # noqa: E402
from kopa.rl.advantages import group_advantages  # noqa: E402
from kopa.rl.episodes import STORE  # noqa: E402
from kopa.rl.export import verl_record, write_verl  # noqa: E402
from kopa.rl.tool_formats import FAMILIES  # noqa: E402
from kopa.rl.verl_config import render, tool_config  # noqa: E402
from tests.fakes.chatml_tokenizer import chatml_tokenizer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = str(Path(verl.__file__).parent / "trainer" / "config")
LOOP_OVERRIDES = [
    "actor_rollout_ref.rollout.multi_turn.enable=true",
    "actor_rollout_ref.rollout.multi_turn.max_parallel_calls=8",
    "actor_rollout_ref.rollout.multi_turn.max_tool_response_length=200000",
    "actor_rollout_ref.rollout.prompt_length=400000",
    "actor_rollout_ref.rollout.response_length=800000",
    "reward.custom_reward_function.path=pkg://kopa.rl.reward",
    "reward.custom_reward_function.name=compute_score",
]
# A RESPONSE task that issues its own key; RESPONSE + ENVIRONMENT with parallel calls and a watchlist;
# ENVIRONMENT alone.
TASKS = ("law-014", "traffic-009", "law-004")


def _compose(overrides: list[str]):
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


@pytest.fixture(scope="module")
def bench():
    found = task_set()
    return {t.id: t for t in found.tasks()}, found.targets()


@pytest.fixture(scope="module")
def verl_setup(tmp_path_factory, bench):
    from verl.tools.tool_registry import load_all_tools

    tasks, _ = bench
    folder = tmp_path_factory.mktemp("verl")
    tools_yaml = folder / "kopa_tools.yaml"
    tools_yaml.write_text(render(tool_config([tasks[t] for t in TASKS], backend="sim", task_set=None)),
                          encoding="utf-8")
    return {"config": _compose(LOOP_OVERRIDES), "tools": load_all_tools(str(tools_yaml), None),
            "tokenizer": chatml_tokenizer(), "tools_yaml": tools_yaml}


class ScriptedServer:
    """verl's server manager interface (`generate` → TokenOutput), answering with fixed assistant turns."""

    def __init__(self, tokenizer, turns: list[str]) -> None:
        self.tokenizer, self.turns, self.requests = tokenizer, list(turns), []

    async def generate(self, request_id: str, prompt_ids: list[int], sampling_params: dict, **kwargs: Any):
        from verl.workers.rollout.replica import TokenOutput

        self.requests.append(request_id)
        ids = self.tokenizer.encode(self.turns.pop(0), add_special_tokens=False)
        return TokenOutput(token_ids=ids, stop_reason="completed")


def golden_turns(task: Task, target, *, answer: str | None = None, skip: str | None = None) -> list[str]:
    """The golden calls as assistant turns of hermes tool calls, then the final answer."""
    turns: dict[int, list] = {}
    for call in target.calls:
        if call.tool != skip:
            turns.setdefault(call.turn, []).append(call)
    out = ["".join("<tool_call>\n" + json.dumps({"name": c.tool, "arguments": c.arguments}, ensure_ascii=False)
                   + "\n</tool_call>" for c in turns[t]) + "<|im_end|>" for t in sorted(turns)]
    if answer is None:
        answer = (f"정답은 \\boxed{{{target.answer}}} 입니다." if task.answer and task.answer.type == "number"
                  else target.answer or "관심목록에 추가했습니다.")
    return [*out, answer + "<|im_end|>"]


def run_loop(setup, task: Task, target, turns: list[str], agent_name: str | None = None):
    """One rollout through the agent loop the exported row names (or `agent_name`), found in verl's registry
    and built as verl's AgentLoopWorker builds it; its output, the requests the server saw, the row."""
    import hydra
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap, _agent_loop_registry
    from verl.utils.dataset.rl_dataset import RLHFDataset

    record = verl_record(task, target, 0, None)
    server = ScriptedServer(setup["tokenizer"], turns)
    row = {key: value for key, value in record.items() if key != "agent_name"}  # the sample's fields, as verl passes them

    async def go():
        loop = hydra.utils.instantiate(config=_agent_loop_registry[agent_name or record["agent_name"]],
                                       trainer_config=DictConfigWrap(setup["config"]), server_manager=server,
                                       tokenizer=setup["tokenizer"], processor=None, dataset_cls=RLHFDataset,
                                       data_config=DictConfigWrap(setup["config"].data),
                                       tools=ToolListWrap(setup["tools"]), hf_model_type="qwen2")
        return await loop.run(sampling_params={}, raw_prompt=record["prompt"],
                              tools_kwargs=record["extra_info"]["tools_kwargs"], **row)

    return asyncio.run(go()), server, record


def verl_reward(setup, record: dict, output) -> dict:
    """Score a rollout as verl's reward manager does: the NaiveRewardManager with the custom reward
    function the config names, on a DataProto shaped as the agent loop builds it."""
    import numpy as np
    import torch
    from tensordict import TensorDict
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.protocol import DataProto
    from verl.trainer.ppo.reward import get_custom_reward_fn

    prompt, response = torch.tensor(output.prompt_ids), torch.tensor(output.response_ids)
    batch = TensorDict({"prompts": prompt[None], "responses": response[None],
                        "input_ids": torch.cat([prompt, response])[None],
                        "attention_mask": torch.ones(1, len(prompt) + len(response), dtype=torch.long)}, batch_size=1)
    non_tensor = {"data_source": np.array([record["data_source"]], dtype=object),
                  "reward_model": np.array([record["reward_model"]], dtype=object),
                  "extra_info": np.array([dict(record["extra_info"])], dtype=object),
                  "tool_extra_fields": np.array([output.extra_fields], dtype=object),
                  "__num_turns__": np.array([output.num_turns])}

    async def go():
        manager = NaiveRewardManager(setup["config"], setup["tokenizer"], get_custom_reward_fn(setup["config"]))
        return await manager.run_single(DataProto(batch=batch, non_tensor_batch=non_tensor))

    return asyncio.run(go())


def test_verl_version_is_the_pinned_one():
    from importlib.metadata import version

    assert version("verl") == "0.9.1"


@pytest.mark.parametrize("task_id", TASKS)
def test_verl_tool_agent_loop_executes_kopa_tools_and_keeps_episode_state(verl_setup, bench, task_id):
    tasks, targets = bench
    task, target = tasks[task_id], targets[task_id]
    output, server, _ = run_loop(verl_setup, task, target, golden_turns(task, target))
    assert len(set(server.requests)) == 1  # one rollout, one request id for all its turns
    kopa = output.extra_fields["kopa"]
    assert kopa["request_id"] == server.requests[0] and kopa["task_id"] == task_id
    # Every golden call ran, in its turn (parallel calls share one), and succeeded: calls after a key
    # issuance or a watchlist change saw the state earlier calls of the same rollout left.
    assert [(c["tool"], c["turn"]) for c in kopa["calls"]] == [(c.tool, c.turn) for c in target.calls]
    assert all(c["ok"] for c in kopa["calls"]), [c for c in kopa["calls"] if not c["ok"]]
    assert kopa["state_hash"] == target.state_hash
    episode = STORE.get(server.requests[0])
    assert episode is not None and len(episode.env.calls) == len(target.calls)
    # verl's own conversation carries kopa's results as tool messages
    assert output.num_turns == 2 * len({c.turn for c in target.calls}) + 2


def test_each_rollout_of_a_group_has_its_own_episode(verl_setup, bench):
    tasks, targets = bench
    task, target = tasks["traffic-009"], targets["traffic-009"]
    first, s1, _ = run_loop(verl_setup, task, target, golden_turns(task, target))
    second, s2, _ = run_loop(verl_setup, task, target, golden_turns(task, target))
    assert s1.requests[0] != s2.requests[0]
    for output in (first, second):  # not one shared watchlist with every item twice
        assert len(output.extra_fields["kopa"]["calls"]) == len(target.calls)
        assert output.extra_fields["kopa"]["state_hash"] == target.state_hash


def test_state_is_keyed_on_the_request_id_not_the_instance(verl_setup, bench):
    """verl creates and releases an instance around every call; the key issued by one call is there for
    the next call of the same request — and not for another request, which gets the auth error as text."""
    tools = {t.name: t for t in verl_setup["tools"]}
    _, targets = bench
    target = targets["law-014"]
    issue, search = target.calls[0], target.calls[1]
    kwargs = {"create_kwargs": {"task_id": "law-014"}}

    class Agent:  # the two fields of verl's AgentData a tool reads
        def __init__(self, request_id: str) -> None:
            self.request_id, self.assistant_turns, self.extra_fields = request_id, 1, {}
            self.tools_kwargs = {name: kwargs for name in tools}

    async def call(agent, name: str, arguments: dict):
        instance, _ = await tools[name].create(create_kwargs=kwargs["create_kwargs"])
        try:
            return await tools[name].execute(instance, arguments, agent_data=agent)
        finally:
            await tools[name].release(instance)

    async def go():
        a, b = Agent("request-a"), Agent("request-b")
        issued = await call(a, issue.tool, issue.arguments)
        a.assistant_turns = 2
        with_key = await call(a, search.tool, search.arguments)
        without_key = await call(b, search.tool, search.arguments)
        return issued, with_key, without_key, a

    issued, with_key, without_key, agent = asyncio.run(go())
    assert issued[2]["ok"] and with_key[2]["ok"], (issued[0].text, with_key[0].text)
    assert not without_key[2]["ok"] and without_key[2]["error_class"] == "auth"
    assert json.loads(without_key[0].text)["error"]["error_class"] == "auth"  # text, not an exception
    assert agent.extra_fields["kopa"]["state"]["issued"]


def test_tool_errors_come_back_as_text_with_their_class(verl_setup):
    tool = next(t for t in verl_setup["tools"] if t.name == "search_legal_interpretations")

    async def go(create: dict, arguments: dict):
        instance, _ = await tool.create(create_kwargs=create)
        return await tool.execute(instance, arguments, request_id=f"errors-{len(create)}-{len(arguments)}")

    unknown_task, _, _ = asyncio.run(go({"task_id": "no-such-task"}, {}))
    assert json.loads(unknown_task.text)["error"]["kind"] == "kopa_error" and "no-such-task" in unknown_task.text
    bad, _, metrics = asyncio.run(go({"task_id": "law-014"}, {"no_such_param": 1}))
    assert not metrics["ok"] and json.loads(bad.text)["error"]["error_class"] in {"structural", "auth"}


@pytest.mark.parametrize("task_id", TASKS)
def test_reward_is_one_for_the_golden_answer_and_zero_for_a_wrong_one(verl_setup, bench, task_id):
    tasks, targets = bench
    task, target = tasks[task_id], targets[task_id]
    golden, _, record = run_loop(verl_setup, task, target, golden_turns(task, target))
    result = verl_reward(verl_setup, record, golden)
    assert result["reward_score"] == 1.0, result
    if "RESPONSE" in task.reward_basis:
        wrong, _, _ = run_loop(verl_setup, task, target, golden_turns(task, target, answer="정답은 \\boxed{-12345} 입니다."))
        scored = verl_reward(verl_setup, record, wrong)
        assert scored["reward_score"] == 0.0 and scored["reward_extra_info"]["response"] == 0.0
    if "ENVIRONMENT" in task.reward_basis:  # the right answer, but the watchlist never written
        unchanged, _, _ = run_loop(verl_setup, task, target, golden_turns(task, target, skip="add_watchlist_item"))
        scored = verl_reward(verl_setup, record, unchanged)
        assert scored["reward_score"] == 0.0 and scored["reward_extra_info"]["environment"] == 0.0


@pytest.mark.parametrize("task_id", TASKS)
def test_kopas_agent_loop_scores_each_rollout_as_verls_reward_manager_does(verl_setup, bench, task_id):
    """The exported rows name kopa_tool_agent: its own score equals what verl's naive manager gives with the
    tools' extra fields, for a golden, a wrong-answer and a state-missing rollout — so verl keeps it on
    reward paths that never see those fields. verl's plain tool_agent leaves the score to the reward path."""
    tasks, targets = bench
    task, target = tasks[task_id], targets[task_id]
    rollouts = [golden_turns(task, target)]
    if "RESPONSE" in task.reward_basis:
        rollouts.append(golden_turns(task, target, answer="정답은 \\boxed{-12345} 입니다."))
    if "ENVIRONMENT" in task.reward_basis:
        rollouts.append(golden_turns(task, target, skip="add_watchlist_item"))
    scores = []
    for turns in rollouts:
        output, _, record = run_loop(verl_setup, task, target, turns)
        manager = verl_reward(verl_setup, record, output)
        assert output.reward_score == manager["reward_score"]
        assert output.extra_fields["reward_extra_info"] == manager["reward_extra_info"]
        scores.append(output.reward_score)
    assert scores == [1.0] + [0.0] * (len(rollouts) - 1)
    plain, _, _ = run_loop(verl_setup, task, target, golden_turns(task, target), agent_name="tool_agent")
    assert plain.reward_score is None


def test_verl_keeps_the_agent_loops_score(verl_setup, bench):
    """verl's AgentLoopWorker asks a reward worker for a score only when the agent loop left none: with
    kopa's loop the reward worker (here one that fails if asked) is never called."""
    from types import SimpleNamespace

    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker

    class NeverAsked:
        class compute_score:  # the shape of a Ray actor method handle
            @staticmethod
            def remote(data):
                raise AssertionError("the reward worker was asked though the agent loop scored")

    tasks, targets = bench
    task, target = tasks["law-004"], targets["law-004"]  # ENVIRONMENT alone: the end state decides
    output, _, record = run_loop(verl_setup, task, target, golden_turns(task, target))
    worker = SimpleNamespace(reward_loop_worker_handles=[NeverAsked()])
    asyncio.run(AgentLoopWorker._compute_score(worker, [output], {k: v for k, v in record.items()}))
    assert output.reward_score == 1.0


def test_an_answer_inside_a_tool_result_is_not_the_models_answer(verl_setup, bench):
    tasks, targets = bench
    task, target = tasks["law-014"], targets["law-014"]
    # The tool result of the last call contains the target text; a reply with no answer must not pass.
    output, _, record = run_loop(verl_setup, task, target, golden_turns(task, target, answer="모르겠습니다."))
    assert target.answer in verl_setup["tokenizer"].decode(output.response_ids)
    assert verl_reward(verl_setup, record, output)["reward_score"] == 0.0


@pytest.fixture(scope="module")
def rollout_rewards(tmp_path_factory, _isolated_cache) -> list[list[float]]:
    from kopa.rl.rollouts import RolloutConfig, generate

    groups = generate(RolloutConfig(policy="mixed:0.5", n=4, only=["finance", "law"]),
                      tmp_path_factory.mktemp("groups") / "rl")
    rewards = [[r["reward"] for r in g["rollouts"]] for g in groups]
    assert any(len(set(r)) > 1 for r in rewards) and any(len(set(r)) == 1 for r in rewards)
    return [*rewards, [1.0], [0.0], [1.0, 0.0]]  # and the edge cases: singleton groups, a pair


@pytest.mark.parametrize("norm", [True, False])
def test_verl_grpo_advantages_equal_kopas(rollout_rewards, norm):
    import numpy as np
    import torch
    from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage

    scores = [r for group in rollout_rewards for r in group]
    index = np.array([f"g{i}" for i, group in enumerate(rollout_rewards) for _ in group], dtype=object)
    length = 5  # the outcome reward sits on a response's last token, as verl's reward places it
    token_rewards = torch.zeros(len(scores), length)
    token_rewards[:, -1] = torch.tensor(scores)
    advantages, _ = compute_grpo_outcome_advantage(token_rewards, torch.ones(len(scores), length), index,
                                                   norm_adv_by_std_in_grpo=norm)
    theirs = advantages[:, 0].tolist()
    ours = [a for group in rollout_rewards for a in group_advantages(group, norm_by_std=norm)]
    assert np.max(np.abs(np.array(theirs) - np.array(ours))) < 1e-6


def test_exported_dataset_loads_with_verls_rl_dataset(tmp_path, bench, monkeypatch, verl_setup):
    import datasets
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf")  # never the user's ~/.cache
    tasks, targets = bench
    chosen = [tasks[t] for t in TASKS]
    path = tmp_path / "train.parquet"
    write_verl(path, chosen, targets, None)
    config = OmegaConf.create({"cache_dir": str(tmp_path / "cache"), "max_prompt_length": 400000,
                               "filter_overlong_prompts": True, "filter_overlong_prompts_workers": 1,
                               "tool_config_path": str(verl_setup["tools_yaml"]), "return_raw_chat": True})
    dataset = RLHFDataset(str(path), verl_setup["tokenizer"], config)
    assert len(dataset) == len(TASKS)
    for index, task in enumerate(chosen):
        row = dataset[index]
        assert row["agent_name"] == "kopa_tool_agent" and row["index"] == index
        assert row["raw_prompt"][0]["role"] == "system" and row["raw_prompt"][1]["content"] == task.query
        assert row["extra_info"]["tool_selection"] == sorted(task.available_tools)
        assert row["tools_kwargs"] == {"kopa": {"create_kwargs": {"task_id": task.id, "task_set": ""}}}
        truth = json.loads(row["reward_model"]["ground_truth"])
        assert truth["task_id"] == task.id and truth["state_hash"] == targets[task.id].state_hash


def _phase_b_folder(root: Path) -> Path:
    """A task set folder as `kopa edge filter` writes one (tasks/*.yaml, targets/*.json): KOPA-Bench's law
    tasks stand in for a synthesized dataset."""
    for part, name in (("tasks", "law.yaml"), ("targets", "law.json")):
        (root / part).mkdir(parents=True)
        (root / part / name).write_bytes((ROOT / "benchmark" / part / name).read_bytes())
    return root


def _launch_overrides(tmp_path: Path) -> list[str]:
    """The overrides benchmark/rl/grpo_kopa.sh passes to verl's trainer, as bash expands them (kopa's
    exports run for real; `python3` is a function that prints its arguments)."""
    stub = 'python3(){ printf "%s\\n" "$@"; }; export -f python3; GPU_CHECK=0 bash benchmark/rl/grpo_kopa.sh'
    env = {**os.environ, "OUT": str(tmp_path / "launch"), "TASKS": str(_phase_b_folder(tmp_path / "synth"))}
    done = subprocess.run(["bash", "-c", stub], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    args = done.stdout.splitlines()
    start = args.index("verl.trainer.main_ppo") + 1
    return args[start:]


def test_launch_script_composes_with_verls_hydra_config(tmp_path):
    from verl.tools.tool_registry import load_all_tools
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    overrides = _launch_overrides(tmp_path)
    print("\n".join(overrides))
    config = _compose(overrides)  # an unknown key would raise here
    validate_config(config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    assert config.algorithm.adv_estimator == "grpo" and config.actor_rollout_ref.rollout.n == 4
    assert config.actor_rollout_ref.rollout.multi_turn.enable is True
    assert config.reward.custom_reward_function.path == "pkg://kopa.rl.reward"
    tools = load_all_tools(config.actor_rollout_ref.rollout.multi_turn.tool_config_path, None)
    assert len(tools) == len({n for t in task_set().tasks() for n in t.available_tools})  # law's are among them
    assert Path(config.data.train_files).exists() and Path(config.data.val_files).exists()
    assert config.trainer.val_before_train is True and config.trainer.test_freq > 0  # KOPA-Bench, validated
    assert config.actor_rollout_ref.rollout.multi_turn.format == "qwen3_coder"  # the default model's parser
    multi_turn = config.actor_rollout_ref.rollout.multi_turn
    assert multi_turn.max_parallel_calls > 1
    assert multi_turn.max_tool_response_length > tools[0].max_tool_chars  # kopa cuts first, to whole records
    with pytest.raises(Exception, match="no_such_key"):  # the check can fail: a key verl does not know
        _compose([*overrides, "actor_rollout_ref.rollout.no_such_key=1"])


def test_gpu_smoke_script_composes_with_verls_hydra_config(tmp_path):
    """benchmark/rl/gpu_smoke.sh up to verl's trainer: the tiny model is built for real, `python3 -m` is a
    function that prints its arguments; the overrides compose and validate, the tiny model's folder is the
    policy. (The run itself needs a GPU; with no trainer there is no step line, and the summary says so.)"""
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    stub = ('python3(){ if [ "$1" = "-m" ]; then printf "%s\\n" "$@"; else command python3 "$@"; fi; }; '
            "export -f python3; bash benchmark/rl/gpu_smoke.sh")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # python3: this interpreter's
    done = subprocess.run(["bash", "-c", stub], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "OUT": str(tmp_path / "smoke"), "PATH": path, "GPU_CHECK": "0"})
    assert done.returncode == 1 and "no step line in the log" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    printed = done.stdout.splitlines()
    start = printed.index("verl.trainer.main_ppo") + 1
    end = next(i for i, line in enumerate(printed) if line.startswith("gpu_smoke:"))
    config = _compose(printed[start:end])
    validate_config(config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    assert config.trainer.total_training_steps == 2 and config.trainer.n_gpus_per_node == 1
    assert config.actor_rollout_ref.model.path == str(tmp_path / "smoke" / "model")
    assert config.actor_rollout_ref.rollout.multi_turn.format == "hermes"
    assert (tmp_path / "smoke" / "model" / "config.json").exists()


# One tool call, 라이트론's DART lookup, as each family documents its calls (its chat template / model card):
# written here by hand, independently of kopa.rl.tool_formats' table, so the test checks the table's parser
# against the format, not the table against itself.
CALL = {"name": "find_dart_corp_code", "arguments": {"corp_name": "라이트론"}}
_ARGS = json.dumps(CALL["arguments"], ensure_ascii=False)
WRITTEN = {
    "Qwen3.5": "<tool_call>\n<function=find_dart_corp_code>\n<parameter=corp_name>\n라이트론\n</parameter>\n"
               "</function>\n</tool_call>",
    "Qwen3": f'<tool_call>\n{{"name": "find_dart_corp_code", "arguments": {_ARGS}}}\n</tool_call>',
    "gpt-oss": "<|start|>assistant<|channel|>commentary to=functions.find_dart_corp_code <|constrain|>json"
               f"<|message|>{_ARGS}<|call|>",
    "GLM-4.5 and later": "<tool_call>find_dart_corp_code\n<arg_key>corp_name</arg_key>\n<arg_value>라이트론"
                         "</arg_value>\n</tool_call>",
    "Seed-OSS": "<seed:tool_call>\n<function=find_dart_corp_code>\n<parameter=corp_name>라이트론</parameter>\n"
                "</function>\n</seed:tool_call>",
    "MiniMax-M2": '<minimax:tool_call>\n<invoke name="find_dart_corp_code">\n<parameter name="corp_name">라이트론'
                  "</parameter>\n</invoke>\n</minimax:tool_call>",
    "Kimi-K2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.find_dart_corp_code:0"
               f"<|tool_call_argument_begin|>{_ARGS}<|tool_call_end|><|tool_calls_section_end|>",
    "DeepSeek-V4": '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="find_dart_corp_code">\n<｜DSML｜parameter '
                   'name="corp_name" string="true">라이트론</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
    "Gemma 4": '<|tool_call>call:find_dart_corp_code{corp_name:<|"|>라이트론<|"|>}<tool_call|>',
}
WRITTEN["Qwen3-Coder"] = WRITTEN["Qwen3.5"]
WRITTEN["Qwen2.5"] = WRITTEN["QwQ"] = WRITTEN["Qwen3"]


def _parsed(parser: str, text: str) -> list[dict[str, Any]]:
    from verl.experimental.agent_loop.tool_parser import ToolParser
    from verl.tools.schemas import OpenAIFunctionToolSchema

    from kopa.catalog.loader import load_catalog

    tokenizer = chatml_tokenizer()
    tools = [OpenAIFunctionToolSchema.model_validate(load_catalog()[CALL["name"]].openai_schema())]
    ids = tokenizer.encode(text, add_special_tokens=False)
    _, calls = asyncio.run(ToolParser.get_tool_parser(parser, tokenizer).extract_tool_calls(ids, tools))
    return [{"name": c.name, "arguments": json.loads(c.arguments)} for c in calls]


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_verls_parser_for_each_family_reads_a_call_in_its_documented_format(family):
    assert _parsed(family.parser, WRITTEN[family.name]) == [CALL], (family.name, family.parser)


def test_the_wrong_parser_reads_no_call():
    """What the launch did before: Qwen3.5's XML calls through verl's hermes parser — nothing to execute."""
    assert _parsed("hermes", WRITTEN["Qwen3.5"]) == []


def test_the_gpu_scripts_stop_first_where_there_is_no_gpu(tmp_path):
    """Without a GPU (nvidia-smi missing from PATH) both scripts stop in one line, exit 2, before exporting or
    building anything: nothing is written."""
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("bash", "dirname", "mkdir", "date", "tee", "cat"):
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    env = {**os.environ, "PATH": f"{bare}{os.pathsep}{Path(sys.executable).parent}", "OUT": str(tmp_path / "out"),
           "TASKS": str(tmp_path / "tasks")}
    env.pop("GPU_CHECK", None)
    for script in ("benchmark/rl/gpu_smoke.sh", "benchmark/rl/grpo_kopa.sh"):
        done = subprocess.run(["bash", script], cwd=ROOT, capture_output=True, text=True, env=env)
        assert done.returncode == 2 and "no GPU here" in done.stderr, (script, done.stderr)
        assert not (tmp_path / "out").exists()
