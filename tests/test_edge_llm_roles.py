"""The EDGE LLM roles' plumbing — OpenAIProposer and OpenAIFiller over a loopback OpenAI-compatible stub
(tests/fakes/chat_server.py), the request-hash cache and its offline replay, one-line errors for bad
answers, and `kopa edge graph build --proposer/--filler openai`.

The stub answers from a script; nothing here measures a model's quality.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kopa.catalog import load_catalog
from kopa.catalog.view import view_of
from kopa.cli import main
from kopa.edge.config import EdgeConfig
from kopa.edge.filler import FillerAnswerError, OpenAIFiller
from kopa.edge.plan import is_generic
from kopa.edge.proposer import OpenAIProposer
from kopa.edge.run import build_graph
from kopa.errors import UserError
from kopa.llm.cache import CacheMiss, cached_openai_model
from kopa.llm.client import ChatModelError, OpenAIChatModel
from kopa.rng import stream
from tests.fakes.chat_server import ChatServer, Reply, text

SOURCE, TARGET = "find_dart_corp_code", "get_dart_company_overview"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _user_body(request: dict) -> dict:
    return json.loads(request["messages"][-1]["content"])


def _keys(value) -> set[str]:
    """Every key of a nested JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_proposer_request_shape_parsing_and_offline_replay(catalog, tmp_path):
    source, target = view_of(catalog[SOURCE]), view_of(catalog[TARGET])
    answer = {"score": 0.8, "bindings": {"corp_code": "corp_code"}, "defaults": {}, "rationale": "고유번호로 조회"}
    with ChatServer([text(json.dumps(answer, ensure_ascii=False))]) as server:
        chat = cached_openai_model("stub-model", server.base_url, tmp_path / "cache", "auto", role="proposer")
        proposal = OpenAIProposer(chat).propose(source, target)
    assert server.errors == [] and len(server.requests) == 1
    request = server.requests[0]
    assert request["model"] == "stub-model" and request["temperature"] == 0.0
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    body = _user_body(request)
    assert body["source"]["name"] == SOURCE and body["target"]["name"] == TARGET
    assert [p["name"] for p in body["target"]["params"]] == ["corp_code"]  # the API key is generic: not shown
    assert body["target"]["params"][0]["pattern"] == r"^\d{8}$"
    assert "format" not in _keys(body)  # the model sees the documented pattern and wording, never a format id
    assert (proposal.score, proposal.bindings, proposal.rationale) == (0.8, {"corp_code": "corp_code"}, "고유번호로 조회")

    # The server is gone: replay answers from the cache, and a request never recorded is a one-line miss.
    replay = cached_openai_model("stub-model", server.base_url, tmp_path / "cache", "replay", role="proposer")
    assert OpenAIProposer(replay).propose(source, target) == proposal
    with pytest.raises(CacheMiss) as miss:
        OpenAIProposer(replay).propose(target, source)
    assert "\n" not in str(miss.value) and "no recorded LLM reply" in str(miss.value)


def test_proposer_bad_answer_is_a_zero_score_with_a_one_line_reason(catalog, tmp_path):
    source, target = view_of(catalog[SOURCE]), view_of(catalog[TARGET])
    with ChatServer([text("이 연결은 가능해 보입니다.\n확실합니다.")]) as server:
        chat = cached_openai_model("stub-model", server.base_url, None, role="proposer")
        proposal = OpenAIProposer(chat).propose(source, target)
    assert proposal.score == 0.0 and proposal.bindings == {}
    assert proposal.rationale.startswith("unusable reply:") and "\n" not in proposal.rationale


def test_filler_request_shape_parsing_and_offline_replay(catalog, tmp_path):
    tool = catalog[TARGET]
    cache = {"corp_code": ["00126380", "00164779"], "corp_name": ["삼성전자"]}
    with ChatServer([text('{"arguments": {"corp_code": "00126380", "extra": 1}}')]) as server:
        chat = cached_openai_model("stub-model", server.base_url, tmp_path / "cache", "auto", role="filler")
        args = OpenAIFiller(chat, "2026-01-30").fill(tool, cache, stream(0, "test"))
    assert args == {"corp_code": "00126380"}  # names the tool does not require are dropped
    body = _user_body(server.requests[0])
    assert body["today"] == "20260130" and body["tool"]["name"] == TARGET
    assert body["required"] == [{"name": "corp_code", "type": "string", "pattern": r"^\d{8}$",
                                 "description": view_of(tool).param("corp_code").text,
                                 "seen": ["00126380", "00164779"]}]
    replay = cached_openai_model("stub-model", server.base_url, tmp_path / "cache", "replay", role="filler")
    assert OpenAIFiller(replay, "2026-01-30").fill(tool, cache, stream(1, "other")) == args
    # A tool with nothing required asks nothing (the replay cache would miss if it asked).
    free = next(t for t in catalog if t.family != "session" and not any(
        p.required and not is_generic(p) for p in view_of(t).params))
    assert OpenAIFiller(replay, "2026-01-30").fill(free, cache, stream(0, "test")) == {}


@pytest.mark.parametrize(("content", "needle"), [
    ("모르겠습니다", "unusable answer"),
    ('{"args": {}}', "no 'arguments' key"),
    ('{"arguments": {"corp_code": ""}}', "leaves required corp_code empty"),
    ('{"arguments": ["00126380"]}', "not an object"),
])
def test_filler_bad_answer_is_a_one_line_error(catalog, content, needle):
    with ChatServer([text(content)]) as server:
        filler = OpenAIFiller(cached_openai_model("stub-model", server.base_url, None, role="filler"), "2026-01-30")
        with pytest.raises(FillerAnswerError) as err:
            filler.fill(catalog[TARGET], {}, stream(0, "test"))
    message = str(err.value)
    assert isinstance(err.value, UserError) and "\n" not in message
    assert needle in message and TARGET in message and "stub-model" in message


def test_filler_may_decline(catalog):
    with ChatServer([text('{"arguments": null}')]) as server:
        filler = OpenAIFiller(cached_openai_model("stub-model", server.base_url, None, role="filler"), "2026-01-30")
        assert filler.fill(catalog[TARGET], {}, stream(0, "test")) is None


def test_a_failing_endpoint_is_a_chat_model_error(catalog):
    with ChatServer([]) as server:  # every request is past the script's end: HTTP 500
        chat = OpenAIChatModel("stub-model", base_url=server.base_url, max_retries=0)
        with pytest.raises(ChatModelError, match="HTTP 500"):
            OpenAIProposer(chat).propose(view_of(catalog[SOURCE]), view_of(catalog[TARGET]))


def _same_name_model(request: dict) -> Reply:
    """A scripted stand-in: binds a target parameter to a source field of the same name, fills required
    inputs from the values shown as seen. Plumbing only."""
    body = _user_body(request)
    if "required" in body:
        args = {p["name"]: (p.get("seen") or p.get("enum") or [None])[0] for p in body["required"]}
        return text(json.dumps({"arguments": args if all(v is not None for v in args.values()) else None}))
    fields = {f["name"] for f in body["source"]["output"]}
    bindings = {p["name"]: p["name"] for p in body["target"]["params"] if p["name"] in fields}
    return text(json.dumps({"score": 0.9 if bindings else 0.0, "bindings": bindings, "defaults": {}}))


def test_build_graph_with_both_llm_roles_replays_offline(catalog, tmp_path, backend):
    tools = [catalog[n] for n in (SOURCE, TARGET, "search_dart_disclosures", "get_dart_dividend_info")]
    config = EdgeConfig(T=1, M=4, seed=3)

    def run(out, chat):
        return build_graph(out, config, "sim", tools=tools, proposer=OpenAIProposer(chat),
                           filler=lambda today: OpenAIFiller(chat, today),
                           roles={"proposer": "openai:stub-model", "filler": "openai:stub-model"})

    with ChatServer([_same_name_model] * 200) as server:
        phase, skeleton = run(tmp_path / "a", cached_openai_model("stub-model", server.base_url, tmp_path / "llm", role="proposer"))
    assert server.errors == []
    asked = len(server.requests)
    assert asked > 0 and any("required" in _user_body(r) for r in server.requests)  # both roles were asked
    assert skeleton.meta["proposer"] == "chat:stub-model"
    assert (SOURCE, TARGET) in skeleton.edges
    assert json.loads((tmp_path / "a" / "config.json").read_text())["roles"]["filler"] == "openai:stub-model"

    phase2, _ = run(tmp_path / "b", cached_openai_model("stub-model", server.base_url, tmp_path / "llm", "replay", role="proposer"))
    assert (tmp_path / "b" / "graph.json").read_bytes() == (tmp_path / "a" / "graph.json").read_bytes()
    assert phase2.history == phase.history and len(server.requests) == asked


def _cli(*args: str):
    return CliRunner().invoke(main, ["edge", "graph", "build", *args], prog_name="kopa")


def test_cli_openai_role_without_model_is_a_one_line_usage_error(tmp_path):
    result = _cli("--proposer", "openai", "--out", str(tmp_path / "x"))
    assert result.exit_code == 2
    assert "--proposer openai needs --role proposer=MODEL[@URL]" in result.output
    result = _cli("--role", "filler=m", "--out", str(tmp_path / "y"))
    assert result.exit_code == 2 and "--role filler=…: the model plays only with --filler openai" in result.output
    result = _cli("--role", "judge=m", "--out", str(tmp_path / "z"))
    assert result.exit_code == 2 and "'judge' is no role of this command; its roles: proposer, filler" in result.output


def test_cli_runs_both_roles_through_the_cache_and_replays_with_the_server_gone(catalog, tmp_path, monkeypatch,
                                                                               backend):
    import functools

    import kopa.edge.run

    # The whole catalog would ask the stub ~60,000 times; the CLI's plumbing is the same on four tools.
    tools = [catalog[n] for n in (SOURCE, TARGET, "search_dart_disclosures", "get_dart_dividend_info")]
    monkeypatch.setattr(kopa.edge.run, "build_graph", functools.partial(kopa.edge.run.build_graph, tools=tools))
    common = ["--proposer", "openai", "--filler", "openai", "-T", "1", "-M", "4",
              "--probe-edges", "0", "--no-truth", "--llm-cache", str(tmp_path / "llm")]

    def roles(url: str) -> list[str]:  # one server plays both roles
        return ["--role", f"proposer=stub-model@{url}", "--role", f"filler=stub-model@{url}"]

    with ChatServer([_same_name_model] * 200) as server:
        first = _cli(*common, *roles(server.base_url), "--out", str(tmp_path / "a"))
    assert first.exit_code == 0, first.output
    assert server.errors == [] and server.requests
    again = _cli(*common, *roles(server.base_url), "--llm-mode", "replay", "--out", str(tmp_path / "b"))
    assert again.exit_code == 0, again.output
    assert (tmp_path / "b" / "graph.json").read_bytes() == (tmp_path / "a" / "graph.json").read_bytes()

    # A filler answer that is no JSON: the command stops with one line naming the model and the tool.
    def garbled_filler(request: dict) -> Reply:
        return text("죄송합니다") if "required" in _user_body(request) else _same_name_model(request)

    with ChatServer([garbled_filler] * 200) as server:
        bad = _cli(*common[:-2], "--llm-cache", str(tmp_path / "llm2"), *roles(server.base_url),
                   "--out", str(tmp_path / "c"))
    assert bad.exit_code != 0
    error_lines = [line for line in bad.output.splitlines() if "argument filler" in line]
    assert len(error_lines) == 1 and "stub-model" in error_lines[0] and "unusable answer" in error_lines[0]
