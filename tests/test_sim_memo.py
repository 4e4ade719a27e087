"""The in-process simulator's answer memo (what synthesis turns on): the same bytes as unmemoized answers,
the simulator asked once per distinct request, bounded memory, and nothing changed for other backends."""

from __future__ import annotations

from kopa.backends.spec import open_backend
from kopa.tools.runtime import ToolRuntime

CALLS = [("list_gg_public_libraries", {}), ("search_assembly_bills", {"AGE": "22"}),
         ("list_gg_public_libraries", {}), ("search_assembly_bills", {"AGE": "22"}),
         ("search_assembly_bills", {"AGE": "21"})]


def _runtime(backend) -> ToolRuntime:
    runtime = ToolRuntime(backend)
    for platform in ("assembly", "gg"):
        assert runtime.call("issue_api_key", {"platform": platform}).ok
    return runtime


def _answers(memo: int | None) -> tuple[list[bytes], int]:
    backend = open_backend("sim")
    if memo is not None:
        backend.memoized(memo)
    simulator = backend.transport.simulator
    asked = []
    handle = simulator.handle

    def counted(request):
        asked.append(request)
        return handle(request)

    simulator.handle = counted
    runtime = _runtime(backend)
    asked.clear()
    bodies = []
    for tool, args in CALLS:
        result = runtime.call(tool, args)
        assert result.ok, result.error
        bodies.append(repr((result.records, result.total_count)).encode())
    return bodies, len(asked)


def test_memoized_answers_are_the_same_and_the_simulator_is_asked_once_per_request():
    plain, asked_plain = _answers(None)
    memo, asked_memo = _answers(64 * 2**20)
    assert memo == plain
    assert asked_plain >= len(CALLS)
    assert asked_memo == asked_plain - 2  # the two repeated calls (one page each) were answered from memory


def test_the_memo_keeps_within_its_limit():
    every = open_backend("sim").memoized(2**30)
    runtime = _runtime(every)
    for tool, args in CALLS:
        runtime.call(tool, args)
    sizes = [len(r.body) for r in every.transport._memo.values()]
    assert len(sizes) == 3  # three distinct pages
    limit = sum(sizes) - 1  # all three do not fit: the least recently used is dropped
    backend = open_backend("sim").memoized(limit)
    runtime = _runtime(backend)
    for tool, args in CALLS:
        runtime.call(tool, args)
    transport = backend.transport
    assert 0 < transport._memo_bytes <= limit and len(transport._memo) < 3
    assert transport._memo_bytes == sum(len(r.body) for r in transport._memo.values())


def test_other_backends_are_left_as_they_are():
    backend = open_backend("faults:realistic@sim")
    assert backend.memoized(2**20) is backend
    assert not hasattr(backend.transport, "_memo")
