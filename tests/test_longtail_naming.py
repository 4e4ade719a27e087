"""The generated long tail names things the way real portals do, and documents shapes, not entities.

Expectations come from the catalog (what a model sees) and the simulator's truth API (which entity a
wire field carries), never from typed numbers: one entity goes by several wire names, a generic name
(`CODE`, `NM`, `code`, …) means different entities in different datasets, and a catalog format names a
value's shape, the same id for every entity of that shape, never the entity itself.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from kopa.catalog import load_catalog
from kopa.catalog.formats import FORMATS
from kopa.eval.task import GoldenStep, load_tasks
from sim.longtail import datasets
from sim.longtail_service import HOSTS
from sim.truth import truth_of
from sim.world_file import read_index

CATALOG = load_catalog()
DATASETS = {d.name: d for d in datasets()}
LONGTAIL = [CATALOG[name] for name in sorted(DATASETS)]
GENERIC = {"upper": {"CODE", "CD", "NO", "NM"}, "camel": {"code", "no", "name"}}
HANGUL = re.compile(r"[가-힣]")


@pytest.fixture(scope="module")
def endpoints(simulator):
    """tool name -> the endpoint the simulator answers it with."""
    out = {}
    for name, d in DATASETS.items():
        ep = simulator.endpoint(HOSTS[d.family], d.key)
        assert ep is not None, name
        out[name] = ep
    return out


@pytest.fixture(scope="module")
def field_entities(simulator, endpoints) -> dict[str, dict[str, str]]:
    """tool name -> {wire output field: entity it carries}, from the simulator's truth."""
    return {name: truth_of(simulator, ep).field_entities for name, ep in endpoints.items()}


def _wire_names_by_entity(field_entities, family: str | None = None) -> dict[str, dict[str, set[str]]]:
    """entity -> wire name -> the tools that carry the entity under that name."""
    out: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for tool, fields in field_entities.items():
        if family is None or DATASETS[tool].family == family:
            for wire, entity in fields.items():
                out[entity][wire].add(tool)
    return out


def test_catalog_documents_what_the_simulator_serves(endpoints):
    # Over every long-tail tool: the documented output is the endpoint's wire output, in order, and
    # every non-paging parameter is one the endpoint binds.
    for tool in LONGTAIL:
        ep = endpoints[tool.name]
        assert [f.name for f in tool.spec.output] == list(ep.columns or ()), tool.name
        assert {p.name for p in tool.spec.params if not p.paging} == set(ep.binds), tool.name


def test_an_entity_in_three_datasets_goes_by_two_names_or_more(field_entities):
    overall = _wire_names_by_entity(field_entities)
    checked = 0
    for entity, names in overall.items():
        tools = set().union(*names.values())
        if len(tools) >= 3:
            checked += 1
            assert len(names) >= 2, (entity, sorted(names))
    assert checked  # the rule was exercised
    # Korean labels vary too (법인등록번호 / 법인번호), read from what the catalog documents.
    labels: dict[str, set[str]] = defaultdict(set)
    for tool in LONGTAIL:
        for f in tool.spec.output:
            if f.name in field_entities[tool.name]:
                labels[field_entities[tool.name][f.name]].add(f.description)
    for entity, names in overall.items():
        if len(set().union(*names.values())) >= 3:
            assert len(labels[entity]) >= 2, (entity, sorted(labels[entity]))
    # … and within each family too: one portal does not name an entity the same way in every dataset.
    for family in HOSTS:
        for entity, names in _wire_names_by_entity(field_entities, family).items():
            if len(set().union(*names.values())) >= 3:
                assert len(names) >= 2, (family, entity, sorted(names))


def test_names_follow_the_family_style(field_entities):
    upper = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*")
    camel = re.compile(r"[a-z][a-z0-9]*([A-Z][a-z0-9]*)*")
    for tool, fields in field_entities.items():
        style = upper if DATASETS[tool].family in ("gg", "seoul", "assembly") else camel
        for wire in fields:
            assert style.fullmatch(wire), (tool, wire)


def test_generic_names_mean_different_entities_in_different_datasets(field_entities):
    meanings: dict[str, set[str]] = defaultdict(set)
    for fields in field_entities.values():
        for wire, entity in fields.items():
            if wire in GENERIC["upper"] | GENERIC["camel"]:
                meanings[wire].add(entity)
    for style in ("upper", "camel"):
        ambiguous = [w for w in GENERIC[style] if len(meanings[w]) >= 2]
        assert ambiguous, (style, dict(meanings))


def test_generic_names_are_labelled_honestly():
    # A generic wire name says nothing; its Korean label must (시군코드, not 코드).
    for tool in LONGTAIL:
        for item in (*tool.spec.params, *tool.spec.output):
            assert HANGUL.search(item.description or ""), (tool.name, item.name)
            if item.name in GENERIC["upper"] | GENERIC["camel"]:
                assert item.description not in ("코드", "번호", "명", "이름"), (tool.name, item.name)


def test_descriptions_name_the_lookup_keys_as_documented(field_entities):
    for tool in LONGTAIL:
        assert HANGUL.search(tool.spec.description), tool.name
        labels = {p.name: p.description for p in tool.spec.params}
        for p in tool.spec.params:
            if p.name in field_entities[tool.name]:
                assert f"{labels[p.name].split(' (')[0]}({p.name})" in tool.spec.description, (tool.name, p.name)


def _longtail_formats() -> dict[str, set[tuple[str, str]]]:
    """format id -> the (tool, wire name) items documented with it, params and outputs."""
    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for tool in LONGTAIL:
        for item in (*tool.spec.params, *tool.spec.output):
            if item.format:
                out[item.format].add((tool.name, item.name))
    return out


def test_no_format_id_names_an_entity(world, field_entities):
    entities = {e for cols in read_index(world.path).columns.values() for _, e in cols if e}
    entities |= {e for fields in field_entities.values() for e in fields.values()}
    formats = _longtail_formats()
    assert formats and entities
    for fmt in formats:
        for entity in entities:
            assert entity not in fmt, (fmt, entity)


def test_a_format_is_a_shape_shared_by_every_entity_of_that_shape(field_entities):
    formats = _longtail_formats()
    patterns = [FORMATS[f][0] for f in formats]
    assert len(set(patterns)) == len(patterns), "two long-tail format ids document the same shape"
    carried: dict[str, set[str]] = defaultdict(set)
    for fmt, items in formats.items():
        for tool, wire in items:
            if wire in field_entities[tool]:
                carried[fmt].add(field_entities[tool][wire])
    # Shapes coincide across entities (e.g. 7 digits), so one format id documents several of them.
    assert any(len(es) >= 2 for es in carried.values()), dict(carried)
    # And one entity is documented with one shape wherever it appears.
    shapes: dict[str, set[str]] = defaultdict(set)
    for fmt, es in carried.items():
        for e in es:
            shapes[e].add(fmt)
    assert all(len(fs) == 1 for fs in shapes.values()), dict(shapes)


def test_documented_shapes_hold_for_every_served_value(world, endpoints):
    # The documentation is honest: each value the simulator holds for a formatted field matches the
    # documented pattern (the column is shared by the family's datasets, so every row is checked).
    checked: set[tuple[str, str, str]] = set()
    for tool in LONGTAIL:
        ep = endpoints[tool.name]
        for field in tool.spec.output:
            if not field.format:
                continue
            key = (ep.table, ep.columns[field.name], field.format)
            if key in checked:
                continue
            checked.add(key)
            pattern = re.compile(FORMATS[field.format][0])
            values = world.table(ep.table).cols[key[1]].text_vocab()
            bad = [v for v in values.tolist() if v != "" and not pattern.match(v)]
            assert not bad, (key, bad[:3])
    assert checked


def _golden_calls(steps: list[GoldenStep]) -> set[str]:
    out = set()
    for step in steps:
        if step.call:
            out.add(step.call)
        out |= _golden_calls(step.parallel or [])
    return out


def test_no_benchmark_task_uses_a_generated_tool():
    for task in load_tasks():
        used = set(task.available_tools) | _golden_calls(task.golden)
        assert not used & set(DATASETS), (task.id, sorted(used & set(DATASETS)))
