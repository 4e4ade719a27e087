"""The OpenAI-compatible generator and semantic checker against a scripted loopback server: what they send
(the seed's temperature, the sampled tools, the five criteria), what kopa does with the replies (format
check, stage 3 verdicts, an unusable reply), and the cache replaying a run with the server gone."""

from __future__ import annotations

import json

import numpy as np

from kopa.apigen.generator import GENERATION_TEMPERATURE, ChatGenerator
from kopa.apigen.record import catalog_tool
from kopa.apigen.run import verify_record
from kopa.apigen.sampler import Prompt
from kopa.apigen.semantic import CRITERIA, ChatChecker
from kopa.apigen.verify import format_check, issue_keys
from kopa.backends.spec import open_backend
from kopa.catalog import load_catalog
from kopa.llm.cache import cached_openai_model
from kopa.tools.runtime import ToolRuntime
from tests.fakes.chat_server import ChatServer, text

CATALOG = load_catalog()
TOOL = CATALOG["find_dart_corp_code"]
PROMPT = Prompt(style="simple", context="plain", difficulty="easy", tools=[TOOL.name])


def _reply_from_the_tools(request: dict):
    """A scripted 'model' that reads the tool it was offered and calls it with a name it was shown."""
    body = json.loads(request["messages"][-1]["content"])
    name = body["tools"][0]["name"]
    corp = body["values_seen"]["corp_name"][0]
    answer = {"query": f"{corp}의 고유번호를 찾아 주세요.", "answers": [{"name": name, "arguments": {"corp_name": corp}}]}
    return text("```json\n" + json.dumps(answer, ensure_ascii=False) + "\n```")


def test_the_chat_generator_sends_the_seed_temperature_and_its_output_is_verified(tmp_path):
    from kopa.apigen.semantic import RuleChecker
    from kopa.apigen.values import ValueCache

    values = ValueCache(values={"corp_name": ["삼한전자"]})
    with ChatServer([_reply_from_the_tools]) as server:
        chat = cached_openai_model("fake-gen", server.base_url, tmp_path / "cache", "auto", role="generator",
                                   temperature=GENERATION_TEMPERATURE)
        made = ChatGenerator(chat, values).generate(PROMPT, [TOOL], [], np.random.default_rng(0))
        sent = server.requests[0]
    assert sent["temperature"] == 0.7
    assert json.loads(sent["messages"][-1]["content"])["tools"][0]["name"] == TOOL.name
    record, failed = format_check(made.raw, [catalog_tool(TOOL)], record_id="g")
    assert failed is None and record is not None
    runtime = ToolRuntime(open_backend("sim"), catalog=CATALOG)
    issue_keys(runtime, CATALOG)
    verdict, outcomes = verify_record(record, runtime, CATALOG, RuleChecker(CATALOG))
    assert verdict.passed and outcomes[0].records == 1
    replay = cached_openai_model("fake-gen", "http://127.0.0.1:9/v1", tmp_path / "cache", "replay", role="generator",
                                 temperature=GENERATION_TEMPERATURE)
    again = ChatGenerator(replay, values).generate(PROMPT, [TOOL], [], np.random.default_rng(0))
    assert again.raw == made.raw  # the server is gone: the cache answered


def test_the_chat_checker_turns_the_model_s_criteria_into_stage_three_verdicts(tmp_path):
    record, _ = format_check(json.dumps({"query": "삼한전자의 고유번호를 찾아 주세요.", "answers": [
        {"name": TOOL.name, "arguments": {"corp_name": "삼한전자"}}]}), [catalog_tool(TOOL)], record_id="c")
    assert record is not None
    runtime = ToolRuntime(open_backend("sim"), catalog=CATALOG)
    issue_keys(runtime, CATALOG)
    replies = [text(json.dumps({"thought": "ok", "criteria": dict.fromkeys(CRITERIA, "pass")})),
               text(json.dumps({"thought": "다른 함수", "criteria": {**dict.fromkeys(CRITERIA, "pass"),
                                                                     "function_choice": "fail"}})),
               text("잘 모르겠습니다")]
    with ChatServer(replies) as server:
        checker = ChatChecker(cached_openai_model("fake-check", server.base_url, tmp_path / "cache", "record",
                                                  role="checker"))
        verdicts = [verify_record(record, runtime, CATALOG, checker)[0] for _ in replies]
        asked = server.requests[0]
    assert [(v.passed, v.stage, v.reason) for v in verdicts] == [
        (True, None, None), (False, "semantic", "model:function_choice"), (False, "semantic", "checker_unparseable")]
    shown = json.loads(asked["messages"][-1]["content"])
    assert shown["results"][0]["records"][0]["corp_name"] == "삼한전자"  # the checker sees the execution results
    assert all(c in asked["messages"][0]["content"] for c in CRITERIA)


def test_generate_with_a_chat_generator_records_then_replays_with_the_server_gone(tmp_path):
    from click.testing import CliRunner

    from kopa.cli import main

    def model(request: dict):
        body = json.loads(request["messages"][-1]["content"])
        tool = body["tools"][0]
        seen = body.get("values_seen", {})
        args = {k: v[0] for k, v in seen.items() if k in tool["parameters"]}
        return text(json.dumps({"query": f"{tool['description'].split(':')[0]} 조회: "
                                         + ", ".join(str(v) for v in args.values()),
                                "answers": [{"name": tool["name"], "arguments": args}]}, ensure_ascii=False))

    cache = tmp_path / "cache"
    common = ["apigen", "generate", "--count", "4", "--platforms", "krx", "--generator", "openai",
              "--llm-cache", str(cache)]
    with ChatServer([model] * 4) as server:
        first = CliRunner().invoke(main, [*common, "--role", f"generator=fake@{server.base_url}", "--out", str(tmp_path / "a")])
        assert not server.errors, server.errors
        temperatures = {r["temperature"] for r in server.requests}
    assert first.exit_code == 0, first.output
    assert temperatures == {0.7} and len(server.requests) == 4
    replay = CliRunner().invoke(main, [*common, "--role", "generator=fake@http://127.0.0.1:9/v1", "--llm-mode", "replay",
                                       "--out", str(tmp_path / "b")])
    assert replay.exit_code == 0, replay.output
    for name in ("verdicts.jsonl", "verified.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    config = json.loads((tmp_path / "a" / "config.json").read_text(encoding="utf-8"))
    assert config["generator"] == "openai:fake@0.7"
