"""The in-process simulator's answer memo (what synthesis turns on): the same answers as unmemoized calls,
the simulator asked once per distinct call, bounded memory, a copy per caller, the key part of what was
asked, and nothing changed for other backends."""

from __future__ import annotations

from kopa.backends.memo import AnswerMemo
from kopa.backends.spec import open_backend
from kopa.tools.runtime import ToolRuntime

CALLS = [("list_gg_public_libraries", {}), ("search_assembly_bills", {"AGE": "22"}),
         ("list_gg_public_libraries", {}), ("search_assembly_bills", {"AGE": "22"}),
         ("search_assembly_bills", {"AGE": "21"})]


def _runtime(backend, keys: tuple[str, ...] = ("assembly", "gg")) -> ToolRuntime:
    runtime = ToolRuntime(backend)
    for platform in keys:
        assert runtime.call("issue_api_key", {"platform": platform}).ok
    return runtime


def _counting(backend) -> list:
    simulator = backend.transport.simulator
    asked: list = []
    handle = simulator.handle

    def counted(request):
        asked.append(request)
        return handle(request)

    simulator.handle = counted
    return asked


def _answers(memo: int | None) -> tuple[list[bytes], int]:
    backend = open_backend("sim")
    if memo is not None:
        backend.memoized(memo)
    asked = _counting(backend)
    runtime = _runtime(backend)
    asked.clear()
    bodies = []
    for tool, args in CALLS:
        result = runtime.call(tool, args)
        assert result.ok, result.error
        bodies.append(repr((result.records, result.total_count, result.request, result.page)).encode())
    return bodies, len(asked)


def test_memoized_answers_are_the_same_and_the_simulator_is_asked_once_per_call():
    plain, asked_plain = _answers(None)
    memo, asked_memo = _answers(64 * 2**20)
    assert memo == plain
    assert asked_plain >= len(CALLS)
    assert asked_memo == asked_plain - 2  # the two repeated calls (one page each) were answered from memory


def test_every_caller_gets_its_own_records():
    backend = open_backend("sim").memoized(64 * 2**20)
    runtime = _runtime(backend)
    first = runtime.call("search_assembly_bills", {"AGE": "22"})
    expected = repr(first.records)
    first.records[0]["BILL_NAME"] = "changed by a caller"
    first.records.pop()
    again = runtime.call("search_assembly_bills", {"AGE": "22"})
    assert repr(again.records) == expected


def test_a_call_without_the_key_is_not_answered_from_a_keyed_one():
    backend = open_backend("sim").memoized(64 * 2**20)
    assert _runtime(backend).call("search_assembly_bills", {"AGE": "22"}).ok
    keyless = _runtime(backend, keys=()).call("search_assembly_bills", {"AGE": "22"})
    assert not keyless.ok and keyless.error is not None and keyless.error.error_class == "auth"
    assert _runtime(backend).call("search_assembly_bills", {"AGE": "22"}).ok  # the failure was not kept


def test_the_memo_keeps_within_its_limit():
    every = open_backend("sim").memoized(2**30)
    runtime = _runtime(every)
    for tool, args in CALLS:
        runtime.call(tool, args)
    assert every.answers is not None and len(every.answers) == 3  # three distinct calls
    limit = every.answers.used_bytes - 1  # all three do not fit: the least recently used is dropped
    backend = open_backend("sim").memoized(limit)
    runtime = _runtime(backend)
    for tool, args in CALLS:
        runtime.call(tool, args)
    assert backend.answers is not None
    assert 0 < backend.answers.used_bytes <= limit and len(backend.answers) < 3


def test_an_answer_over_the_limit_is_not_kept_and_the_oldest_goes_first():
    memo = AnswerMemo(10)
    memo.put("big", "x", 11)
    assert memo.get("big") is None and len(memo) == 0
    memo.put("a", 1, 4)
    memo.put("b", 2, 4)
    assert memo.get("a") == 1  # now "b" is the least recently used
    memo.put("c", 3, 4)
    assert memo.get("b") is None and memo.get("a") == 1 and memo.get("c") == 3 and memo.used_bytes == 8


def test_other_backends_are_left_as_they_are():
    backend = open_backend("faults:realistic@sim")
    assert backend.memoized(2**20) is backend
    assert backend.answers is None


def test_kept_answers_are_copied_per_caller_flat_or_nested():
    from kopa.backends.memo import OBJECT_BYTES_PER_JSON_BYTE, keepable, own_copy

    flat = [{"a": "x", "n": 1}, {"a": "y", "n": None}]
    kept, size = keepable(flat)
    assert isinstance(kept, tuple) and size == len(b'[{"a":"x","n":1},{"a":"y","n":null}]') * OBJECT_BYTES_PER_JSON_BYTE
    flat[0]["a"] = "changed before it was asked again"  # the caller's records are not the kept ones
    first, second = own_copy(kept), own_copy(kept)
    first[0]["a"] = "changed by a caller"
    assert second == [{"a": "x", "n": 1}, {"a": "y", "n": None}] == own_copy(kept)
    nested = [{"a": {"b": [1]}}]
    kept_nested, size_nested = keepable(nested)
    assert isinstance(kept_nested, bytes) and size_nested == len(kept_nested)  # kept as JSON: no shared lists
    mine = own_copy(kept_nested)
    mine[0]["a"]["b"].append(2)
    assert own_copy(kept_nested) == [{"a": {"b": [1]}}]
