"""Every endpoint's options are what its family's typed model declares — an unknown name (a typo) or a
value of the wrong type is refused in one line — and every option name a family's code reads is declared."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

import sim
from sim.families.options import FAMILY_OPTIONS, EndpointOptionsError, validate_options
from sim.registry import served_modules

ENDPOINTS = [ep for _, module in served_modules() for ep in module.ENDPOINTS]
_READ = re.compile(r"""(?:opts|options)(?:\.get\(|\[)["']([a-z_]+)["']|["']([a-z_]+)["'] in opts""")


def test_every_endpoint_has_valid_options_for_its_family():
    assert len(ENDPOINTS) > 2000 and {ep.family for ep in ENDPOINTS} <= set(FAMILY_OPTIONS)
    for ep in ENDPOINTS:
        validate_options(ep)


def test_a_misspelt_option_is_refused_with_the_closest_name():
    ep = next(e for e in ENDPOINTS if e.family == "seoul" and e.options.get("positional"))
    typo = replace(ep, options={**{k: v for k, v in ep.options.items() if k != "positional"},
                                "positionl": ep.options["positional"]})
    with pytest.raises(EndpointOptionsError, match=r"unknown seoul option 'positionl' \(did you mean positional\?\)"):
        validate_options(typo)


def test_an_option_of_the_wrong_type_is_refused():
    ep = next(e for e in ENDPOINTS if e.family == "portal")
    with pytest.raises(EndpointOptionsError, match="option sample_rows"):
        validate_options(replace(ep, options={**ep.options, "sample_rows": "5"}))


@pytest.mark.parametrize("family", sorted(FAMILY_OPTIONS))
def test_every_option_a_family_reads_is_declared(family):
    source = Path(sim.__file__).parent / "families" / f"{family}.py"
    read = {a or b for a, b in _READ.findall(source.read_text(encoding="utf-8"))}
    assert read <= set(FAMILY_OPTIONS[family].model_fields), read - set(FAMILY_OPTIONS[family].model_fields)


def test_options_the_simulator_reads_are_declared_for_every_family():
    source = (Path(sim.__file__).parent / "app.py").read_text(encoding="utf-8")
    read = {a or b for a, b in _READ.findall(source)}
    assert read and all(read <= set(model.model_fields) for model in FAMILY_OPTIONS.values()), read


def test_options_read_outside_the_families_are_declared_where_they_apply():
    assert "max_items" in FAMILY_OPTIONS["dart"].model_fields  # sim/endpoints.py: comma lists
    assert "max_page_size" in FAMILY_OPTIONS["hrd"].model_fields  # sim/drift.py: page-size drift
