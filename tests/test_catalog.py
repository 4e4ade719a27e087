"""The catalog: size and coverage, schemas, naming, and that the simulator answers every tool."""

from __future__ import annotations

import re

import jsonschema
import pytest

from kopa.catalog import load_catalog
from kopa.wire import family_of
from sim.truth import endpoint_for_url, truth_of

PLATFORMS = {"ex", "seoul", "dart", "krx", "kdic", "edu", "hrd", "law", "assembly", "gg", "tago"}
CATALOG = load_catalog()
API_TOOLS = [t for t in CATALOG if t.family != "session"]
# Every real endpoint is swept in the fast suite; the generated long tail (about 2,300 simulator-only
# dataset tools of uniform shape) by a fixed sample of every 25th — the full sweep is marked slow.
REAL_TOOLS = [t for t in API_TOOLS if t.spec.real]
GENERATED = [t for t in API_TOOLS if not t.spec.real]
FAST_SWEEP = REAL_TOOLS + GENERATED[::25]


def test_every_generated_schema_is_valid_json_schema():
    for tool in GENERATED:
        params = tool.openai_schema()["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)


def test_at_least_150_tools_over_all_eleven_platforms():
    by_platform = {p: len(CATALOG.by_platform(p)) for p in PLATFORMS}
    assert set(CATALOG.platforms) - {"session"} == PLATFORMS
    assert all(n >= 8 for n in by_platform.values()), by_platform
    assert len(API_TOOLS) >= 150, by_platform


@pytest.mark.parametrize("tool", [*[t for t in CATALOG if t.spec.real], *GENERATED[::25]], ids=lambda t: t.name)
def test_openai_schema_is_valid_json_schema(tool):
    schema = tool.openai_schema()
    assert schema["type"] == "function"
    params = schema["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(params)
    for name, prop in params["properties"].items():
        if "pattern" in prop:
            re.compile(prop["pattern"])
        assert prop["description"], f"{tool.name}.{name} has no description"
    assert set(params["required"]) <= set(params["properties"])


def test_session_tools_exist():
    for name in ("issue_api_key", "get_current_date", "evaluate_expression"):
        assert CATALOG[name].family == "session"


def test_tool_names_are_unique_and_descriptions_korean():
    hangul = re.compile(r"[가-힣]")
    for tool in CATALOG:
        assert hangul.search(tool.spec.description), tool.name
        assert tool.spec.output, f"{tool.name} documents no output fields"


def test_a_parameter_s_field_names_one_of_its_tool_s_output_fields():
    """`field` says which output field a parameter filters on (a client-side filter applies it; synthesis
    states a search by that field's values), so it must be one the tool answers with."""
    named = [(t, p) for t in CATALOG for p in t.spec.params if p.field]
    assert any(p.location != "client" for _, p in named)  # server-side searches document theirs too
    for tool, param in named:
        assert param.field in {f.name for f in tool.spec.output}, f"{tool.name}.{param.name} → {param.field}"


def _answers(simulator, backend, tool):
    """Routed to an endpoint, never 'unknown service', and the parser recognises the answer."""
    request = family_of(tool.family).build(tool, {}, backend.issue_key(tool.auth.key_id) if tool.auth else None)
    endpoint = endpoint_for_url(simulator, str(request.url))
    assert endpoint is not None, f"{tool.name}: no simulator endpoint for {request.url}"
    response = backend.client().send(request)
    parsed = family_of(tool.family).parse(tool, {}, response)
    if parsed.error is not None:
        assert parsed.error.kind not in ("unknown_service", "malformed"), parsed.error
    else:
        assert parsed.records
    truth = truth_of(simulator, endpoint)
    assert truth.table == endpoint.table


@pytest.mark.parametrize("tool", FAST_SWEEP, ids=lambda t: t.name)
def test_simulator_answers_every_real_tool_and_a_sample_of_the_rest(simulator, backend, tool):
    _answers(simulator, backend, tool)


@pytest.mark.slow
@pytest.mark.parametrize("tool", GENERATED, ids=lambda t: t.name)
def test_simulator_answers_every_generated_tool(simulator, backend, tool):
    _answers(simulator, backend, tool)
