"""The generated long tail: scale, catalog == spec, entity annotations, and the simulator answers it."""

from __future__ import annotations

import re

import jsonschema
import pytest

from kopa.catalog import load_catalog
from kopa.wire import family_of
from sim.longtail import datasets
from sim.longtail_catalog import DATA_DIR, render
from sim.longtail_service import HOSTS
from sim.truth import endpoint_for_url, truth_of

CATALOG = load_catalog()
GENERATED = {d.name for d in datasets()}
# Wire names that look like codes or numbers, generic ones included (CODE, no, …).
CODE_LIKE = re.compile(r"(_CD|Cd|_ID|Id|Code|_CODE|_NO|No|_NUM|_KEY|crno)$|^(CODE|CD|NO|code|no)$")


def _sample(family: str, k: int = 60) -> list[str]:
    names = sorted(d.name for d in datasets() if d.family == family)
    step = max(len(names) // k, 1)
    return names[::step][:k]


SAMPLE = [n for fam in ("gg", "seoul", "assembly", "datagokr") for n in _sample(fam)]


def test_inventory_at_paper_scale_over_six_domains():
    api = [t for t in CATALOG if t.family != "session"]
    assert len(api) >= 2318
    assert {t.domain for t in api} == {"traffic", "finance", "education", "law", "politics", "district"}
    assert len(GENERATED) >= 2200
    for tool in CATALOG:
        if tool.name in GENERATED:
            assert tool.spec.real is False, tool.name


def test_catalog_files_equal_generator_output():
    for name, text in render().items():
        assert (DATA_DIR / name).read_text(encoding="utf-8") == text, f"{name}: run python -m sim.longtail_catalog"


def test_spec_is_deterministic_and_titles_distinct():
    from sim.longtail import _assembly, _datagokr, _local

    again = (*_local("gg"), *_local("seoul"), *_assembly(), *_datagokr())
    assert again == datasets()
    titles = [d.title for d in datasets()]
    assert len(set(titles)) == len(titles)
    assert all(4 <= len(d.columns) <= 12 for d in datasets())
    codes = [d.key for d in datasets() if d.family == "assembly"]
    assert all(re.fullmatch(r"[a-z]{17}", c) for c in codes)


def test_generated_schemas_are_valid():
    for name in SAMPLE:
        params = CATALOG[name].openai_schema()["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)


def test_every_code_like_column_is_annotated(simulator):
    # Through the simulator's truth API: each endpoint maps its own wire names onto the family table's
    # columns, and every code-like wire field carries the entity its spec column says.
    for d in datasets():
        truth = truth_of(simulator, simulator.endpoint(HOSTS[d.family], d.key))
        by_name = {a.name: a for a in d.columns}
        for a in d.columns:
            if CODE_LIKE.search(a.name):
                assert a.entity is not None, (d.name, a.name)
            assert truth.field_entities.get(a.name) == a.entity, (d.name, a.name)
        assert set(truth.param_entities) == {f for f in d.filters if by_name[f].entity}, d.name


@pytest.mark.parametrize("name", SAMPLE)
def test_simulator_answers_generated_tool(simulator, backend, name):
    tool = CATALOG[name]
    key = backend.issue_key(tool.auth.key_id) if tool.auth else None
    fam = family_of(tool.family)
    request = fam.build(tool, {}, key)
    endpoint = endpoint_for_url(simulator, str(request.url))
    assert endpoint is not None and endpoint.table.startswith("longtail_"), request.url
    parsed = fam.parse(tool, {}, backend.client().send(request))
    assert parsed.error is None, parsed.error
    assert parsed.records
    assert set(parsed.records[0]) == {f.name for f in tool.spec.output}
    truth = truth_of(simulator, endpoint)
    # A filter on an entity column narrows the answer to rows that carry that value.
    entity_params = [p for p in truth.param_entities if truth.param_entities[p] not in ("sigungu_name",)]
    if entity_params:
        param = entity_params[0]
        value = parsed.records[0][param]
        got = fam.parse(tool, {param: value}, backend.client().send(fam.build(tool, {param: value}, key)))
        assert got.error is None and got.records and all(r[param] == value for r in got.records)


def test_malformed_code_is_a_bad_parameter(backend):
    tool = CATALOG["list_gg_senior_welfare_facilities_status"]
    fam = family_of(tool.family)
    code = next(p for p in tool.spec.params if p.format == "digits5")  # the dataset's 시군코드, whatever its name
    args = {code.name: "9999"}
    parsed = fam.parse(tool, args, backend.client().send(fam.build(tool, args, backend.issue_key("gg"))))
    assert parsed.error is not None and parsed.error.error_class == "structural"
