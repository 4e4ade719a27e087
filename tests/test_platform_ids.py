"""The names a platform goes by agree everywhere they are kept: the catalog's platform ids, the fault layer's
platforms and its module map, the key-issuance tool's enum, every fault profile's sections, the key systems
the fault quotas and the key shapes know, and the two Domain literals. (Until a platform is one declared unit,
this is what stops the copies drifting apart.)"""

from __future__ import annotations

import tomllib
import typing
from pathlib import Path

import pytest

import sim
from kopa.catalog import load_catalog
from kopa.catalog.models import Domain as CatalogDomain
from kopa.eval.task import Domain as TaskDomain
from sim.faults import _MODULE_PLATFORM, KEY_SYSTEMS, PLATFORM_IDS
from sim.keys import _KEY_SHAPES
from sim.platforms import PLATFORMS

CATALOG = load_catalog()
CATALOG_PLATFORMS = {t.platform for t in CATALOG} - {"session"}
PROFILES = sorted((Path(sim.__file__).parent / "profiles").glob("*.toml"))


def test_catalog_fault_layer_and_key_issuance_name_the_same_platforms():
    assert set(PLATFORM_IDS) == CATALOG_PLATFORMS
    enum = next(p.enum for p in CATALOG["issue_api_key"].spec.params if p.name == "platform")
    assert set(enum) == CATALOG_PLATFORMS
    modules = {m.__name__.rsplit(".", 1)[-1] for m in PLATFORMS} - {"longtail"}
    assert set(_MODULE_PLATFORM) == modules and set(_MODULE_PLATFORM.values()) == CATALOG_PLATFORMS


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.stem)
def test_every_fault_profile_names_only_known_platforms_and_key_systems(profile):
    data = tomllib.loads(profile.read_text(encoding="utf-8"))
    assert set(data.get("platforms", {})) <= CATALOG_PLATFORMS
    assert set(data.get("quotas", {})) <= set(KEY_SYSTEMS)


def test_the_realistic_profile_covers_every_platform():
    data = tomllib.loads((Path(sim.__file__).parent / "profiles" / "realistic.toml").read_text(encoding="utf-8"))
    assert set(data["platforms"]) == CATALOG_PLATFORMS


def test_key_systems_have_one_shape_each_and_domains_one_literal():
    assert set(KEY_SYSTEMS) == set(_KEY_SHAPES)
    assert typing.get_args(CatalogDomain) == typing.get_args(TaskDomain)
    assert {t.domain for t in CATALOG if t.domain} <= set(typing.get_args(CatalogDomain))
