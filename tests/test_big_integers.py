"""Integers a service cannot hold get that service's own invalid-parameter answer, in-process and over
`kopa sim serve` alike: classified structural, answered once, never retried as if the line had failed.

The services parse numeric parameters into 32-bit Java ``int`` fields (sim.families.common.MAX_WIRE_INT), so
2**31 - 1 is still a number to them and 2**31 is not. The runtime passes such values through: ranges are the
service's to judge (tests/test_required_params.py).
"""

from __future__ import annotations

import pytest

from kopa.backends import open_backend
from kopa.tools.runtime import ToolRuntime
from kopa.wire import family_of
from sim.serve import SimServer

BIG = "99999999999999999999"  # past 64 bits
INT_MAX = 2**31 - 1

# (tool, arguments, the service's own invalid-parameter code, the envelope's format)
CASES = [
    ("get_stock_price_trend", {"numOfRows": BIG}, "10", "json"),  # data.go.kr, JSON
    ("get_stock_price_trend", {"pageNo": BIG}, "10", "json"),
    ("get_stock_price_trend", {"numOfRows": "-" + BIG}, "10", "json"),
    ("get_stock_price_trend", {"numOfRows": str(INT_MAX + 1)}, "10", "json"),
    ("list_qnet_qualifications", {"numOfRows": BIG}, "10", "xml"),  # data.go.kr, XML
    ("search_dart_disclosures", {"page_count": BIG}, "100", "json"),  # DART
    ("search_dart_disclosures", {"page_no": BIG}, "100", "json"),
    ("search_dart_disclosures", {"page_no": str(INT_MAX + 1)}, "100", "json"),
    ("get_seoul_rent_contracts", {"START_INDEX": 1, "END_INDEX": BIG}, "ERROR-333", "json"),  # Seoul
    ("get_seoul_rent_contracts", {"START_INDEX": BIG, "END_INDEX": BIG}, "ERROR-333", "json"),
    ("find_assembly_member", {"pSize": BIG}, "ERROR-333", "json"),  # 열린국회정보 portal
    ("find_assembly_member", {"pIndex": BIG}, "ERROR-333", "json"),
    ("list_ex_routes", {"pageNo": BIG}, "INVALID_PARAMETER_VALUE", "json"),  # 한국도로공사
]
KEY_IDS = ("dart", "krx", "data_go_kr", "ex", "seoul", "neis", "schoolinfo", "hrd", "law", "assembly", "gg")


def _runtime(backend, tool: str) -> ToolRuntime:
    runtime = ToolRuntime(backend)
    assert runtime.call("issue_api_key", {"platform": runtime.catalog[tool].platform}).ok
    return runtime


@pytest.fixture(scope="module")
def served(simulator):
    with SimServer(simulator) as server:
        yield server


@pytest.fixture()
def live(served, monkeypatch):
    for key_id in KEY_IDS:
        monkeypatch.setenv(f"KOPA_{key_id.upper()}_KEY", f"test-{key_id}-key")
    return open_backend(f"live:{served.url}")


def _assert_invalid_parameter(result, code: str) -> None:
    assert not result.ok
    assert (result.error.error_class, result.error.kind, result.error.code) == ("structural", "bad_param", code)
    assert [a.outcome for a in result.attempts] == ["structural"]  # answered once, not retried
    assert result.request is not None  # the service answered it, not the runtime


@pytest.mark.parametrize(("tool", "args", "code", "fmt"), CASES)
def test_in_process(backend, tool, args, code, fmt):
    _assert_invalid_parameter(_runtime(backend, tool).call(tool, args), code)


@pytest.mark.parametrize(("tool", "args", "code", "fmt"), CASES)
def test_the_envelope_is_the_services_own(backend, tool, args, code, fmt):
    """Read without kopa.wire: the raw body carries the service's code, in the family's format."""
    spec = _runtime(backend, tool).catalog[tool]
    request = family_of(spec.family).build(spec, args, backend.issue_key(spec.auth.key_id))
    response = backend.client().send(request)
    response.read()
    assert response.status_code == 200
    if fmt == "xml":
        assert response.text.startswith("<?xml") and f">{code}<" in response.text
    else:
        assert code in list(_leaves(response.json()))


def _leaves(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


@pytest.mark.parametrize(("tool", "args", "code", "fmt"), CASES)
def test_over_a_served_simulator(backend, live, tool, args, code, fmt):
    remote = _runtime(live, tool).call(tool, args)
    _assert_invalid_parameter(remote, code)
    assert remote.for_model() == _runtime(backend, tool).call(tool, args).for_model()


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("search_dart_disclosures", {"page_no": str(INT_MAX)}),
        ("get_stock_price_trend", {"pageNo": str(INT_MAX)}),
        ("find_assembly_member", {"pIndex": str(INT_MAX)}),
    ],
)
def test_the_largest_int_is_still_a_number(backend, tool, args):
    """2**31 - 1 parses: the answer is a page past the end, not an invalid parameter."""
    result = _runtime(backend, tool).call(tool, args)
    assert result.error.error_class == "structural" and result.error.kind in ("no_data", "page_out_of_range")
