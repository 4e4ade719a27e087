"""`kopa rl export` (verl Parquet, SFT JSONL), `kopa rl verl-config`, and the reward's answer extraction —
without verl (tests/test_rl_verl.py loads the same files with verl's own classes)."""

from __future__ import annotations

import duckdb
import orjson
import pytest
import yaml
from click.testing import CliRunner

from kopa.cli import main
from kopa.eval.task import task_set
from kopa.rl import tool_schema
from kopa.rl.reward import compute_score, final_answer
from kopa.rl.rollouts import RolloutConfig, generate

VERL_PROPERTY_KEYS = {"type", "description", "enum"}  # what verl's OpenAIFunctionPropertySchema keeps


@pytest.fixture(scope="module")
def bench():
    found = task_set()
    return list(found.tasks()), found.targets()


def test_verl_config_lists_exactly_the_tools_of_the_tasks(tmp_path, bench):
    tasks, _ = bench
    out = tmp_path / "tools.yaml"
    result = CliRunner().invoke(main, ["rl", "verl-config", "--only", "law", "--backend", "replay:rec", "-o", str(out)])
    assert result.exit_code == 0, result.output
    config = yaml.safe_load(out.read_text(encoding="utf-8"))
    law = [t for t in tasks if t.domain == "law"]
    assert [e["tool_schema"]["function"]["name"] for e in config["tools"]] == sorted(
        {n for t in law for n in t.available_tools})
    for entry in config["tools"]:
        assert entry["class_name"] == "kopa.rl.verl.KopaTool"
        assert entry["config"] == {"type": "native", "backend": "replay:rec", "task_set": None, "max_tool_chars": 24_000}
        parameters = entry["tool_schema"]["function"]["parameters"]
        # `required` only where a parameter is required (verl and transformers' get_json_schema leave it out)
        assert set(parameters) - {"required"} == {"type", "properties"} and parameters.get("required", ["x"])
        for prop in parameters["properties"].values():
            assert set(prop) <= VERL_PROPERTY_KEYS and prop["type"] in tool_schema.SCALAR_TYPES


def test_what_verl_would_drop_is_written_into_the_description():
    from kopa.catalog.loader import load_catalog

    catalog = load_catalog()
    name, param, prop = next((tool.spec.name, p, v) for tool in catalog.tools.values()
                             for p, v in tool.openai_schema()["function"]["parameters"]["properties"].items()
                             if "pattern" in v and "default" not in v)
    flat = tool_schema.training_tool_schema(name)["function"]["parameters"]["properties"][param]
    assert prop["pattern"] in flat["description"] and flat["description"].startswith(prop["description"])


def test_a_nested_parameter_is_refused_with_a_clear_message(monkeypatch):
    class Nested:
        def openai_schema(self):
            return {"type": "function", "function": {"name": "nested", "description": "d", "parameters": {
                "type": "object", "properties": {"filter": {"type": "object", "description": "조건"}}}}}

    monkeypatch.setattr(tool_schema, "load_catalog", lambda: {"nested": Nested()})
    with pytest.raises(tool_schema.VerlSchemaError, match=r"nested\.filter: type 'object'.*flatten"):
        tool_schema.training_tool_schema("nested")


def _parquet_rows(path):
    con = duckdb.connect()
    try:
        cursor = con.execute(f"SELECT * FROM read_parquet('{path}')")
        names = [d[0] for d in cursor.description]
        return names, [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    finally:
        con.close()


def test_verl_export_has_verls_fields_and_the_injected_state(tmp_path, bench):
    tasks, targets = bench
    out = tmp_path / "kopa.parquet"
    result = CliRunner().invoke(main, ["rl", "export", "--format", "verl", "-o", str(out), "--show"])
    assert result.exit_code == 0, result.output
    assert f"{len(tasks)} tasks" in result.output and '"agent_name": "kopa_tool_agent"' in result.output
    names, rows = _parquet_rows(out)
    assert names == ["data_source", "agent_name", "prompt", "ability", "reward_model", "extra_info"]
    assert len(rows) == len(tasks)
    for index, (task, row) in enumerate(zip(tasks, rows, strict=True)):
        assert row["data_source"] == "kopa-bench" and row["agent_name"] == "kopa_tool_agent"
        system, user = row["prompt"]
        assert system["role"] == "system" and user == {"role": "user", "content": task.query}
        for value in task.state.predefined.values():
            assert value in system["content"]  # the injected runtime state is in the system prompt
        assert row["reward_model"]["style"] == "rule"
        truth = orjson.loads(row["reward_model"]["ground_truth"])
        assert truth == {"task_id": task.id, "answer": targets[task.id].answer,
                         "state_hash": targets[task.id].state_hash, "reward_basis": list(task.reward_basis)}
        extra = row["extra_info"]
        assert extra["index"] == index and extra["task_id"] == task.id
        assert extra["tool_selection"] == sorted(task.available_tools)  # as TRL lists tools: one prompt
        # one plain entry every kopa tool reads, not a union of every tool's name (nearly all null)
        assert extra["tools_kwargs"] == {"kopa": {"create_kwargs": {"task_id": task.id, "task_set": ""}}}
    again = tmp_path / "again.parquet"
    CliRunner().invoke(main, ["rl", "export", "--format", "verl", "-o", str(again)])
    assert again.read_bytes() == out.read_bytes()


@pytest.fixture(scope="module")
def rollouts(tmp_path_factory, _isolated_cache):
    folder = tmp_path_factory.mktemp("rl") / "sft"
    generate(RolloutConfig(policy="mixed:0.3", n=3, only=["law-001", "finance-001", "traffic-009", "law-004"]), folder)
    return folder


def test_sft_export_keeps_one_verified_trajectory_per_task(tmp_path, rollouts):
    out = tmp_path / "sft.jsonl"
    result = CliRunner().invoke(main, ["rl", "export", "--format", "sft", "--from", str(rollouts), "-o", str(out)])
    assert result.exit_code == 0, result.output
    groups = [orjson.loads(line) for line in (rollouts / "groups.jsonl").read_bytes().splitlines()]
    verified = {g["task_id"]: min(r["rollout"] for r in g["rollouts"] if r["reward"] == 1.0)
                for g in groups if any(r["reward"] == 1.0 for r in g["rollouts"])}
    lines = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert {line["task_id"]: line["provenance"]["rollout"] for line in lines} == verified
    for line in lines:
        messages = line["messages"]
        assert [m["role"] for m in messages[:2]] == ["system", "user"] and messages[-1]["role"] == "assistant"
        asked = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
        answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
        assert asked == answered and asked  # every call has its result, in order
        names = {c["function"]["name"] for m in messages for c in m.get("tool_calls", [])}
        listed = [t["function"]["name"] for t in line["tools"]]
        assert names <= set(listed) and listed == sorted(listed)  # by name, as verl's rows and TRL list them
        # chat-template form: each call's arguments an object, the ones the stored rollout sent as JSON text
        group = next(g for g in groups if g["task_id"] == line["task_id"])
        stored = next(r for r in group["rollouts"] if r["rollout"] == line["provenance"]["rollout"])["messages"]
        wire = [c["function"]["arguments"] for m in stored for c in m.get("tool_calls", [])]
        chat = [c["function"]["arguments"] for m in messages for c in m.get("tool_calls", [])]
        assert all(isinstance(a, str) for a in wire) and chat == [orjson.loads(a) for a in wire]


def test_sft_export_leaves_out_the_held_out_platforms(tmp_path, rollouts):
    everything, kept = tmp_path / "all.jsonl", tmp_path / "kept.jsonl"
    CliRunner().invoke(main, ["rl", "export", "--format", "sft", "--from", str(rollouts), "-o", str(everything)])
    result = CliRunner().invoke(main, ["rl", "export", "--format", "sft", "--from", str(rollouts),
                                       "--held-out-platforms", "law", "-o", str(kept)])
    assert result.exit_code == 0, result.output
    assert "tasks calling law left out" in result.output
    ids = {orjson.loads(line)["task_id"] for line in everything.read_bytes().splitlines()}
    left = {orjson.loads(line)["task_id"] for line in kept.read_bytes().splitlines()}
    assert {i for i in ids if i.startswith("law-")} and left == {i for i in ids if not i.startswith("law-")}
    bad = CliRunner().invoke(main, ["rl", "export", "--format", "sft", "--from", str(rollouts),
                                    "--held-out-platforms", "nosuch", "-o", str(kept)])
    assert bad.exit_code == 2 and "unknown platform(s) ['nosuch']" in bad.output


def test_verl_sft_export_holds_the_sft_records_as_json_text_columns(tmp_path, rollouts):
    """verl's SFT Parquet: the same records as the JSONL, the nested ones as JSON text (one string column each,
    so nothing is unified across rows); verl's trainer reading it is tests/test_rl_verl_sft.py."""
    jsonl, parquet = tmp_path / "sft.jsonl", tmp_path / "sft.parquet"
    CliRunner().invoke(main, ["rl", "export", "--format", "sft", "--from", str(rollouts), "-o", str(jsonl)])
    result = CliRunner().invoke(main, ["rl", "export", "--format", "verl-sft", "--from", str(rollouts),
                                       "-o", str(parquet)])
    assert result.exit_code == 0, result.output
    assert "data.custom_cls.path=pkg://kopa.rl.verl_sft data.custom_cls.name=KopaSFTDataset" in result.output
    con = duckdb.connect()
    types = {name: kind for name, kind, *_ in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{parquet}')").fetchall()}
    assert types == {"messages": "VARCHAR", "tools": "VARCHAR", "task_id": "VARCHAR", "provenance": "VARCHAR"}
    rows = con.execute(f"SELECT messages, tools, task_id, provenance FROM read_parquet('{parquet}')").fetchall()
    want = [orjson.loads(line) for line in jsonl.read_bytes().splitlines()]
    assert [{"messages": orjson.loads(m), "tools": orjson.loads(t), "task_id": i, "provenance": orjson.loads(p)}
            for m, t, i, p in rows] == want


def test_sft_export_needs_a_rollouts_folder(tmp_path):
    result = CliRunner().invoke(main, ["rl", "export", "--format", "sft", "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code != 0 and "--from" in result.output


@pytest.mark.parametrize(("response", "answer"), [
    ("정답은 \\boxed{3} 입니다.", "정답은 \\boxed{3} 입니다."),
    ('<tool_call>\n{"name": "f"}\n</tool_call>user\n<tool_response>\n{"답": "25-0117"}\n</tool_response>\n'
     "assistant\n25-0118", "25-0118"),
    ('<tool_call>{"name": "f"}</tool_call>\n<tool_response>{"답": "25-0117"}</tool_response>\n'
     '<tool_call>{"name": "g"}</tool_call>', None),
    ("<think>아마 25-0117</think>모르겠습니다", "모르겠습니다"),
    ("", None),
])
def test_final_answer_is_the_text_after_the_last_tool_response(response, answer):
    assert final_answer(response) == answer


def test_compute_score_without_any_tool_call(bench):
    tasks, targets = bench
    task = next(t for t in tasks if t.id == "law-014")
    truth = orjson.dumps({"task_id": task.id}).decode()
    right = compute_score("kopa-bench", targets[task.id].answer, truth, {"task_id": task.id})
    wrong = compute_score("kopa-bench", "25-9999", truth, {"task_id": task.id})
    assert right["score"] == 1.0 and right["environment"] == -1.0 and right["calls"] == 0.0
    assert wrong["score"] == 0.0 and wrong["response"] == 0.0


def test_an_environment_task_without_any_call_scores_zero(bench):
    _, targets = bench
    truth = orjson.dumps({"task_id": "law-004"}).decode()
    scored = compute_score("kopa-bench", "관심목록에 추가했습니다.", truth, {"task_id": "law-004"})
    assert targets["law-004"].state["data"]  # the target state has the watchlist the episode never wrote
    assert scored["score"] == 0.0 and scored["environment"] == 0.0 and scored["response"] == -1.0
