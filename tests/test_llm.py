"""The LLM layer against a real loopback HTTP server through the real `openai` SDK: replies and tool
calls parsed, malformed arguments kept as typed errors, the request cache (auto / record / replay), and
the API key kept out of every file."""

from __future__ import annotations

import base64

import pytest

from kopa.llm import (
    CachedChatModel,
    CacheFileError,
    CacheMiss,
    ChatModel,
    ChatModelError,
    OpenAIChatModel,
    parse_arguments,
    request_hash,
)
from tests.fakes.chat_server import ChatServer, Refusal, calls, text

SECRET = "sk-test-SECRET-do-not-store-5f3a"
HELLO = [{"role": "user", "content": "안녕하세요"}]
TOOL = {"type": "function", "function": {"name": "find_dart_corp_code", "description": "고유번호",
                                         "parameters": {"type": "object", "properties": {"corp_name": {"type": "string"}},
                                                        "required": ["corp_name"]}}}


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("KOPA_AGENT_API_KEY", SECRET)


def _model(server: ChatServer, **kwargs) -> OpenAIChatModel:
    return OpenAIChatModel("fake-model", server.base_url, max_retries=0, timeout=10, **kwargs)


def test_text_and_tool_calls_through_the_sdk():
    script = [text("답은 \\boxed{42} 입니다."),
              calls(("find_dart_corp_code", {"corp_name": "라이트론"}), ("get_current_date", ""))]
    with ChatServer(script) as server:
        model = _model(server, seed=7)
        assert isinstance(model, ChatModel)
        first = model.complete(HELLO)
        second = model.complete(HELLO, tools=[TOOL])
    assert first.content == "답은 \\boxed{42} 입니다." and first.tool_calls == []
    assert first.finish_reason == "stop" and first.usage == {"prompt_tokens": 100, "completion_tokens": 10,
                                                             "total_tokens": 110, "llm_attempts": 1}
    assert second.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments, c.parse_error) for c in second.tool_calls] == [
        ("call_1_0", "find_dart_corp_code", {"corp_name": "라이트론"}, None),
        ("call_1_1", "get_current_date", {}, None),  # "" (vLLM's no-argument form) is {}
    ]
    plain, with_tools = server.requests
    assert plain["model"] == "fake-model" and plain["temperature"] == 0.0 and plain["seed"] == 7
    assert "tools" not in plain and "parallel_tool_calls" not in plain
    assert with_tools["tools"] == [TOOL] and with_tools["parallel_tool_calls"] is True
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in repr(model)


def test_malformed_tool_arguments_are_a_typed_parse_error():
    script = [calls(("find_dart_corp_code", '{"corp_name": 라이트론'), ("find_dart_corp_code", "[1, 2]"))]
    with ChatServer(script) as server:
        reply = _model(server).complete(HELLO, tools=[TOOL])
    bad_json, not_object = reply.tool_calls
    assert bad_json.arguments == {} and bad_json.raw_arguments == '{"corp_name": 라이트론'
    assert bad_json.parse_error.startswith("arguments are not valid JSON")
    assert not_object.parse_error == "arguments must be a JSON object, got list"
    # Sent back as '{}': a server parses earlier arguments (vLLM answers 400 on text that does not parse);
    # arguments that parse go back as the model wrote them
    assert [c["function"]["arguments"] for c in reply.assistant_message()["tool_calls"]] == ["{}", "{}"]
    good = reply.tool_calls[0].model_copy(update={"raw_arguments": '{ "corp_name":"라이트론" }', "parse_error": None})
    assert good.sent_back() == '{ "corp_name":"라이트론" }'
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)


def test_unreachable_server_is_a_chat_model_error():
    server = ChatServer([])
    server.start()
    server.stop()  # the port is now closed
    with pytest.raises(ChatModelError, match="fake-model"):
        _model(server).complete(HELLO)


def test_script_exhausted_is_a_chat_model_error_with_status():
    with ChatServer([]) as server, pytest.raises(ChatModelError, match="HTTP 500"):
        _model(server).complete(HELLO)


def test_auto_mode_answers_a_repeat_from_the_cache(tmp_path):
    with ChatServer([text("첫 번째")]) as server:  # a second request would exhaust the script
        model = CachedChatModel(_model(server), tmp_path, mode="auto")
        first = model.complete(HELLO, tools=[TOOL])
        again = model.complete(HELLO, tools=[TOOL])
    assert first == again and len(server.requests) == 1
    assert (model.hits, model.misses) == (1, 1)


def test_record_then_replay_with_the_server_stopped(tmp_path):
    script = [calls(("find_dart_corp_code", {"corp_name": "라이트론"})), text("\\boxed{1}")]
    conversation = [HELLO, [*HELLO, {"role": "user", "content": "다시"}]]
    with ChatServer(script) as server:
        recorder = CachedChatModel(_model(server), tmp_path, mode="record")
        recorded = [recorder.complete(m, tools=[TOOL]) for m in conversation]
    files = sorted(tmp_path.rglob("*.json"))
    assert len(files) == 2 and not list(tmp_path.rglob("*.tmp"))
    replayer = CachedChatModel(_model(server), tmp_path, mode="replay")  # server is gone
    assert [replayer.complete(m, tools=[TOOL]) for m in conversation] == recorded
    for path in files:  # the key is in no file, under any encoding the SDK or orjson might use
        assert SECRET.encode() not in path.read_bytes()
        assert b"authorization" not in path.read_bytes().lower()


def test_replay_miss_names_the_request_hash(tmp_path):
    server = ChatServer([])
    model = CachedChatModel(_model(server), tmp_path, mode="replay")
    expected = request_hash("fake-model", HELLO, [TOOL], {"temperature": 0.0, "seed": 3})
    with pytest.raises(CacheMiss, match=expected):
        model.complete(HELLO, tools=[TOOL], seed=3)
    assert server.requests == []


def test_the_key_covers_sampling_parameters_but_not_the_endpoint():
    other = OpenAIChatModel("fake-model", "http://127.0.0.1:9/v1")
    same = OpenAIChatModel("fake-model", "http://10.0.0.1:8000/v1")
    params = other.request_params({})
    assert params == same.request_params({}) == {"temperature": 0.0}
    assert request_hash("m", HELLO, None, {"seed": 1}) != request_hash("m", HELLO, None, {"seed": 2})
    assert request_hash("m", HELLO, None, {}) != request_hash("n", HELLO, None, {})


def test_a_corrupt_cache_entry_names_its_file(tmp_path):
    model = CachedChatModel(OpenAIChatModel("fake-model", "http://127.0.0.1:9/v1"), tmp_path, mode="replay")
    path = model.path_for(request_hash("fake-model", HELLO, None, {"temperature": 0.0}))
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(CacheFileError, match=path.name):
        model.complete(HELLO)


def test_bad_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="cache mode"):
        CachedChatModel(OpenAIChatModel("m", "http://127.0.0.1:9/v1"), tmp_path, mode="write")  # type: ignore[arg-type]


def test_the_key_comes_from_the_roles_variable_else_openais(monkeypatch):
    monkeypatch.delenv("KOPA_AGENT_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-openai-variable")
    monkeypatch.setenv("KOPA_JUDGE_API_KEY", "sk-judge-only")
    with ChatServer([text("a"), text("b"), text("c")]) as server:
        _model(server).complete(HELLO)  # the agent: no variable of its own set
        _model(server, role="judge").complete(HELLO)
        _model(server, role="writer").complete(HELLO)
    assert [h["authorization"] for h in server.headers] == ["Bearer sk-from-openai-variable", "Bearer sk-judge-only",
                                                            "Bearer sk-from-openai-variable"]


def test_a_server_that_echoes_the_key_in_an_error_never_gets_it_into_the_message():
    encoded = base64.b64encode(SECRET.encode()).decode()
    echo = Refusal(401, f"Incorrect API key provided: {SECRET} (basic {encoded})")
    with ChatServer([echo]) as server, pytest.raises(ChatModelError) as caught:
        _model(server).complete(HELLO)
    message = str(caught.value)
    assert "HTTP 401" in message and "Incorrect API key provided: REDACTED" in message
    assert SECRET not in message and encoded.rstrip("=") not in message
